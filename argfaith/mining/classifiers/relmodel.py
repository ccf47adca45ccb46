"""argfaith's default offline relation classifier (v2, issue 20): calibrated relation probabilities
from natural EP pairs.

Trained by ``scripts/relmodel/train.py`` on the natural pairs of the EP relation corpus
(``data/ep_relations_llm`` + ``data/ep_relations_v2``: silver labels by LLM annotators with the
paper's class definitions, PAPER.md §7), chosen by debate-grouped cross-validation on natural pairs
only (``benchmarks/relations_v2.md``). Two parts:

1. **Relation model** — a multinomial logistic regression over the pair features of ``features``
   (lexical overlap, cue lexicons, debate context) and MiniLM sentence-embedding cosines
   (:mod:`~argfaith.mining.classifiers.relatedness`): P(attack), P(support), P(no relation).
2. **Stance cross-encoder** (when the weights ship one) — all-MiniLM-L6-v2 fine-tuned on related
   natural pairs (attack vs support), reading source, its previous sentence, target and topic
   together (:mod:`~argfaith.mining.classifiers.pairtext`); for pairs whose P(related) reaches the
   cascade threshold, its margin and the relation model's stance are combined by a logistic
   regression fitted on out-of-fold predictions.

**Calibration.** The relation model is trained on a mix of pair samples; its probabilities are
shifted to each genre's labelled class prior (debate transcripts: the exhaustively labelled
candidates; summaries: the fully labelled summaries; Saerens et al. 2002, as in
:mod:`~argfaith.mining.classifiers.prior`) and temperature-scaled on out-of-fold predictions of
those parts, so ``Prediction.probabilities`` are calibrated class probabilities for all-pairs
candidates of that genre (the uncertainty of issue 23 is drawn from them).

**Decisions** (``prior``): ``all-pairs`` (mining's choice): related iff P(related) reaches the
genre's threshold and attack iff P(attack | related) reaches its stance threshold, both matched on
out-of-fold predictions to the labelled density and attack share; ``balanced`` (default outside
mining, for sampled pairs where relations are common): the arg-max of P(k) / prior(k); a custom
``attack=P;support=P;no relation=P``: the Bayes arg-max after shifting to that prior.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from argfaith.datasets.labels import ATTACK, NO_RELATION, SUPPORT
from argfaith.errors import ConfigurationError
from argfaith.mining.classifiers.base import PairQuery, Prediction, ProgressCallback, Usage
from argfaith.mining.classifiers.prior import ClassPrior, resolve_prior

__all__ = ["RelationModelClassifier", "RELMODEL_FILE", "CLASSES", "genre_of"]

RELMODEL_FILE = "relation_model.json"
CLASSES = (ATTACK, SUPPORT, NO_RELATION)
GENRES = ("debate", "summary")


def genre_of(q: PairQuery) -> str:
    """``"summary"`` or ``"debate"`` (queries without a genre count as debate pairs)."""
    return "summary" if q.genre == "summary" else "debate"


def _log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


class RelationModelClassifier:
    """Calibrated relation probabilities (see the module docstring).

    Parameters
    ----------
    model_dir
        Folder with ``relation_model.json`` and the files it names (default: the shipped weights).
    prior
        ``None``/``"balanced"``, ``"all-pairs"`` or a custom ``attack=P;support=P;no relation=P``.
    threads
        onnxruntime intra-op threads of the encoders.
    """

    name = "offline"

    def __init__(self, model_dir: str | Path | None = None, *, prior: str | ClassPrior | None = None,
                 decision: str | None = None, threads: int | None = None) -> None:
        from argfaith.mining.classifiers._linear import LinearModel
        from argfaith.mining.classifiers.offline import PairFeaturizer, default_idf_path, load_idf
        from argfaith.mining.classifiers.relatedness import RelatednessFeaturizer
        from argfaith.mining.encoder import SentenceEncoder, TokenEmbeddings, default_model_dir, ENCODER_FILES

        d = Path(model_dir) if model_dir is not None else default_model_dir()
        meta_path = d / RELMODEL_FILE
        if not meta_path.is_file():
            raise ConfigurationError(f"relation model: {meta_path} not found")
        self.meta: dict[str, Any] = json.loads(meta_path.read_text(encoding="utf-8"))
        if tuple(self.meta.get("classes", ())) != CLASSES:
            raise ConfigurationError(f"relation model: classes {self.meta.get('classes')} are not {CLASSES}")
        self.model_dir = d
        self.stage1, _ = LinearModel.load(d / self.meta["stage1"])
        self._order = [list(self.stage1.classes).index(c) for c in CLASSES]
        tokens = TokenEmbeddings(d / ENCODER_FILES["tokens"])
        self.encoder = SentenceEncoder(d, threads=threads, tokens=tokens)
        self.featurizer = RelatednessFeaturizer(PairFeaturizer(load_idf(default_idf_path())), self.encoder)
        self.stance = None
        if self.meta.get("stance_model"):
            from argfaith.mining.classifiers.crossencoder import RelationCrossEncoder

            self.stance = RelationCrossEncoder(d, self.meta["stance_model"], threads=threads, tokens=tokens)
        self.train_prior = np.asarray(self.meta["train_prior"], dtype=np.float64)
        self.genres = {g: self.meta["genres"][g] for g in GENRES}
        h = hashlib.sha256()
        for f in [self.meta["stage1"], *( [self.meta["stance_model"]] if self.meta.get("stance_model") else [])]:
            h.update((d / f).read_bytes())
        h.update(json.dumps(self.meta, sort_keys=True).encode())
        self._digest = h.hexdigest()
        self.metadata = {"provenance": str((self.meta.get("trained") or {}).get("data", ""))}
        self._usage = Usage()
        self._init_prior(prior, decision)

    # ------------------------------------------------------------------ priors and decisions
    def _init_prior(self, prior: str | ClassPrior | None, decision: str | None = None) -> None:
        self.prior_explicit = prior is not None
        self.prior: ClassPrior | None = None
        self.mode = "balanced"
        self.prior_name = "balanced (arg-max of P(k) / prior(k))"
        if prior is None or (isinstance(prior, str) and prior == "balanced"):
            return
        name = prior.name if isinstance(prior, ClassPrior) else str(prior)
        if name == "all-pairs":
            self.mode = "all-pairs"
            g = self.genres["debate"]
            self.prior = ClassPrior("all-pairs", dict(zip(CLASSES, g["prior"], strict=True)),
                                    "labelled all-pairs candidates (summaries: their own)", decision="match")
            self.prior_name = "all-pairs (per-genre thresholds matched to the labelled density and attack share)"
            return
        cp = resolve_prior(prior, decision=decision)
        if cp is None:
            return
        self.mode = "custom"
        self.prior = cp
        self.prior_name = cp.describe()

    def with_prior(self, prior: str | ClassPrior, decision: str | None = None) -> RelationModelClassifier:
        """A sibling sharing the models (mining uses it to switch to ``all-pairs``)."""
        twin = copy.copy(self)
        twin._init_prior(prior, decision)
        return twin

    # ------------------------------------------------------------------ probabilities
    def calibrated_probabilities(self, pairs: Sequence[PairQuery], *, with_stance: bool = True) -> np.ndarray:
        """(n, 3) calibrated P(attack), P(support), P(no relation) at each pair's genre prior."""
        n = len(pairs)
        if n == 0:
            return np.zeros((0, 3))
        logp = _log_softmax(self.stage1.decision_function(self.featurizer.matrix(pairs))[:, self._order])
        genre = np.array([genre_of(q) for q in pairs])
        out = np.zeros((n, 3))
        for g in GENRES:
            m = genre == g
            if not m.any():
                continue
            par = self.genres[g]
            z = (logp[m] + np.log(np.asarray(par["prior"])) - np.log(self.train_prior)) / float(par["temperature"])
            out[m] = np.exp(_log_softmax(z))
        if with_stance and self.stance is not None:
            comb = self.meta["stance_combiner"]
            rel = 1.0 - out[:, 2]
            cut = np.array([self.genres[g]["cascade"] for g in genre])
            todo = np.flatnonzero(rel >= cut)
            if len(todo):
                zc = self.stance.logits([pairs[i] for i in todo]).astype(np.float64)
                margin = zc[:, 0] - zc[:, 1]
                s_lr = np.log(np.maximum(out[todo, 0], 1e-12)) - np.log(np.maximum(out[todo, 1], 1e-12))
                q = 1.0 / (1.0 + np.exp(-(comb["w_ce"] * margin + comb["w_lr"] * s_lr + comb["bias"])))
                out[todo, 0] = rel[todo] * q
                out[todo, 1] = rel[todo] * (1.0 - q)
                self._usage.extra["stance_pairs"] = self._usage.extra.get("stance_pairs", 0) + len(todo)
        return out

    def classify(self, pairs: Sequence[PairQuery], *, progress: ProgressCallback | None = None) -> list[Prediction]:
        n = len(pairs)
        if n == 0:
            return []
        p = self.calibrated_probabilities(pairs)
        genre = [genre_of(q) for q in pairs]
        rel = 1.0 - p[:, 2]
        share = p[:, 0] / np.maximum(rel, 1e-12)
        if self.mode == "all-pairs":
            t = np.array([self.genres[g]["related_threshold"] for g in genre])
            b = np.array([self.genres[g]["attack_threshold"] for g in genre])
            labels = np.where(rel >= t, np.where(share >= b, 0, 1), 2)
        elif self.mode == "custom":
            assert self.prior is not None
            target = np.array([self.prior.probabilities[c] for c in CLASSES])
            pri = np.array([self.genres[g]["prior"] for g in genre])
            labels = np.argmax(p * target[None, :] / pri, axis=1)
        else:
            pri = np.array([self.genres[g]["prior"] for g in genre])
            labels = np.argmax(p / pri, axis=1)
        if progress is not None:
            progress(n, n)
        self._usage.extra["pairs"] = self._usage.extra.get("pairs", 0) + n
        out = []
        for i in range(n):
            probs = {c: float(p[i, k]) for k, c in enumerate(CLASSES)}
            lab = CLASSES[int(labels[i])]
            out.append(Prediction(lab, probs[lab], probabilities=probs))  # type: ignore[arg-type]
        return out

    @property
    def usage(self) -> Usage:
        return self._usage

    @property
    def fingerprint(self) -> str:
        """Digest of the weights, the calibration and the decision mode (mining checkpoints use it)."""
        h = hashlib.sha256(json.dumps({"models": self._digest, "mode": self.mode,
                                       "prior": dict(self.prior.probabilities) if self.prior else None}, sort_keys=True).encode())
        return f"relmodel-{h.hexdigest()[:10]}"

    def describe(self) -> dict[str, Any]:
        """Provenance for reports: weights digest, training summary, decision rule."""
        return {"weights_sha256": self._digest[:16], "prior": self.prior_name, "trained": self.meta.get("trained", {})}
