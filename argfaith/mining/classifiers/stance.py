"""The v1 offline relation classifier (``stance``; the default before issue 20): relatedness ×
stance, two stages, no torch. Kept selectable by name; the default is now
:mod:`~argfaith.mining.classifiers.relmodel` (``offline``).

1. **Relatedness** — P(related) = 1 − P(no relation) from the offline pair-feature model
   (:mod:`~argfaith.mining.classifiers.offline`: lexical overlap, cue lexicons, debate context;
   class-balanced logistic regression) retrained on argfaith's EP relation corpus
   (``data/ep_relations_llm``: silver labels by LLM annotators with the paper's class definitions,
   PAPER.md §7).
2. **Stance** — given a relation, attack or support? all-MiniLM-L6-v2 (Wang et al. 2020; the
   sentence-transformers release, Apache-2.0) fine-tuned as a cross-encoder on the corpus' related
   pairs (Nogueira & Cho 2019 style: ``[CLS] source [SEP] kind: target [SEP]``), run with
   onnxruntime (int8). Reading source and target together lets it compare their stance — whether
   the source takes the target's line or the opposite one — which features of separately analysed
   texts cannot do (the old offline path: fabricated opposition raised a provision's strength).

Training and the measurements behind the design: ``scripts/train_stance.py``,
``benchmarks/stance.py``, ``benchmarks/relations.md``.

Decisions (``prior``):

- ``balanced`` (default outside mining): related when the relatedness model's class-balanced
  arg-max is not *no relation*; stance by the cross-encoder's arg-max;
- ``all-pairs`` (mining's choice): per genre (debate transcripts vs summaries, :func:`genre_of`),
  related when P(related) reaches a threshold, and an offset on the stance margin, both set so that
  on out-of-fold predictions for the exhaustively labelled candidates the predicted share of
  related pairs and of attacks equals the labelled one (stored in ``stance_model.json``);
- a custom prior ``attack=P;support=P;no relation=P``: the same matching on the shipped reference
  arrays of the debate genre.

``Prediction.probabilities``: P(no relation) = 1 − P(related); P(attack), P(support) split P(related)
by the cross-encoder's stance probability. The cross-encoder only runs for pairs decided related
(``stance_for_all=True`` runs it everywhere, e.g. for benchmarks); for the others the stance split
uses the training attack share.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from argfaith.datasets.labels import ATTACK, NO_RELATION, SUPPORT
from argfaith.errors import ConfigurationError
from argfaith.mining.classifiers.base import PairQuery, Prediction, ProgressCallback, Usage
from argfaith.mining.classifiers.prior import ClassPrior, resolve_prior

__all__ = ["StanceRelationClassifier", "pair_texts", "genre_of", "default_stance_dir", "STANCE_FILES", "STANCE_CLASSES", "MAX_LENGTH"]

#: Files of a stance model directory.
STANCE_FILES = {
    "model": "stance_model.onnx",  # stage 2: the cross-encoder (int8)
    "relatedness": "stance_relatedness.npz",  # stage 1: the pair-feature logistic regression
    "reference": "stance_reference.npz",  # out-of-fold P(related) and stance margins (custom priors)
    "tokenizer": "stance_tokenizer.json",
    "meta": "stance_model.json",
}
#: The cross-encoder's classes, in logit order.
STANCE_CLASSES = (ATTACK, SUPPORT)
#: Tokens per pair (source and target truncated longest-first), as in training.
MAX_LENGTH = 128


def genre_of(q: PairQuery) -> str:
    """``"summary"`` or ``"debate"`` (queries without a genre count as debate pairs)."""
    return "summary" if q.genre == "summary" else "debate"


def pair_texts(q: PairQuery) -> tuple[str, str]:
    """The two segments the cross-encoder reads: the source, and the target with its kind."""
    if q.target_kind == "proposal":
        tag = "provision"
    elif genre_of(q) == "summary":
        tag = "summary"
    elif q.source_position is not None and q.source_position == q.target_position:
        tag = "same speech"
    else:
        tag = "speech"
    return " ".join(q.source.split()), f"{tag}: " + " ".join(q.target.split())


def matched_rule(p_related: np.ndarray, margin: np.ndarray, related_share: float, attack_share: float) -> tuple[float, float]:
    """The ``all-pairs`` decision rule matched to a class mix: the P(related) threshold whose share
    of ``p_related`` at or above it is ``related_share``, and the offset on the attack-minus-support
    ``margin`` that makes ``attack_share`` of those pairs attacks (0 when none is related)."""
    t = float(np.quantile(p_related, 1.0 - related_share))
    pred = p_related >= t
    return t, (float(-np.quantile(margin[pred], 1.0 - attack_share)) if pred.any() else 0.0)


def default_stance_dir() -> Path:
    """The package's shipped model directory (``argfaith/data``)."""
    return Path(str(resources.files("argfaith") / "data"))


def default_threads() -> int:
    """onnxruntime intra-op threads when the caller names none.

    ``OMP_NUM_THREADS`` if it is a positive integer — a study's pool workers and Dask's nanny set
    it to 1 per worker, so several workers sharing a machine do not each take every core (two
    workers on two cores were slower than one with the default of all cores,
    ``benchmarks/study_executors.md``) — else the number of cores this process may run on.
    """
    env = os.environ.get("OMP_NUM_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class StanceRelationClassifier:
    """Relatedness × stance relation classifier (see the module docstring).

    Parameters
    ----------
    model_dir
        Folder with :data:`STANCE_FILES` (default: the shipped weights in ``argfaith/data``).
    prior, decision
        ``None``/``"balanced"``, ``"all-pairs"`` or a custom ``attack=P;support=P;no relation=P``.
    threads
        onnxruntime intra-op threads (default: :func:`default_threads` — ``OMP_NUM_THREADS``
        where set, as in a study's pool and Dask workers, else every core this process may use).
    batch_size
        Pairs per cross-encoder batch (pairs are sorted by length, so padding stays small).
    stance_for_all
        Run the cross-encoder on every pair, not only on pairs decided related.
    """

    name = "stance"

    def __init__(
        self,
        model_dir: str | Path | None = None,
        *,
        prior: str | ClassPrior | None = None,
        decision: str | None = None,
        threads: int | None = None,
        batch_size: int = 64,
        stance_for_all: bool = False,
    ) -> None:
        from argfaith.mining.classifiers._linear import LinearModel
        from argfaith.mining.classifiers.offline import OfflineRelationClassifier

        self.model_dir = Path(model_dir) if model_dir is not None else default_stance_dir()
        paths = {k: self.model_dir / v for k, v in STANCE_FILES.items()}
        for k in ("model", "relatedness", "tokenizer", "meta"):
            if not paths[k].is_file():
                raise ConfigurationError(f"stance model: {k} file {paths[k]} not found")
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as e:  # both are core dependencies; a broken install names them
            raise ConfigurationError(
                f"the offline relation classifier needs {e.name or 'onnxruntime'} (a dependency of argfaith): "
                "pip install onnxruntime tokenizers"
            ) from None
        self.meta: dict[str, Any] = json.loads(paths["meta"].read_text(encoding="utf-8"))
        if tuple(self.meta.get("stance_classes", STANCE_CLASSES)) != STANCE_CLASSES:
            raise ConfigurationError(f"stance model: stance classes {self.meta.get('stance_classes')} are not {STANCE_CLASSES}")
        lm, _ = LinearModel.load(paths["relatedness"])
        self.relatedness = OfflineRelationClassifier(lm, reference_scores=np.zeros((0, 3)))
        self._rel_order = [list(lm.classes).index(c) for c in (ATTACK, SUPPORT, NO_RELATION)]
        self.tokenizer = Tokenizer.from_file(str(paths["tokenizer"]))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(int(self.meta.get("max_length", MAX_LENGTH)), strategy="longest_first")
        so = ort.SessionOptions()
        so.intra_op_num_threads = int(threads or default_threads())
        so.inter_op_num_threads = 1
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(str(paths["model"]), so, providers=["CPUExecutionProvider"])
        self._input_names = {i.name for i in self.session.get_inputs()}
        self._reference_path = paths["reference"]
        self.batch_size = batch_size
        self.stance_for_all = stance_for_all
        h = hashlib.sha256()
        for k in ("model", "relatedness"):
            h.update(paths[k].read_bytes())
        self._digest = h.hexdigest()
        trained = (self.meta.get("trained") or {}).get("labels") or {}
        a, s = float(trained.get(ATTACK, 1)), float(trained.get(SUPPORT, 1))
        self._train_attack_share = a / (a + s)
        #: Provenance (``argfaith bench relations`` flags scores on the model's own training files).
        self.metadata = {"provenance": str((self.meta.get("trained") or {}).get("data", ""))}
        self._usage = Usage()
        self._init_prior(prior, decision)

    # ------------------------------------------------------------------ decisions
    def _init_prior(self, prior: str | ClassPrior | None, decision: str | None = None) -> None:
        self.prior_explicit = prior is not None
        self.prior: ClassPrior | None = None
        self.rule: dict[str, tuple[float, float]] | None = None  # genre -> (related threshold, stance offset)
        self.prior_name = "balanced"
        if prior is None or (isinstance(prior, str) and prior == "balanced"):
            return
        name = prior.name if isinstance(prior, ClassPrior) else str(prior)
        if name == "all-pairs":
            ap = self.meta.get("all_pairs") or {}
            if not all(g in ap for g in ("debate", "summary")):
                raise ConfigurationError("stance model: these weights ship no all-pairs thresholds; use prior=balanced")
            self.rule = {g: (float(ap[g]["related_threshold"]), float(ap[g]["stance_offset"])) for g in ("debate", "summary")}
            d = ap["debate"]
            self.prior = ClassPrior(
                "all-pairs",
                {ATTACK: d["density"] * d["attack_share"], SUPPORT: d["density"] * (1 - d["attack_share"]), NO_RELATION: 1 - d["density"]},
                "exhaustively labelled candidates of the EP relation corpus (summaries: their own densities)",
                decision="match",
            )
            self.prior_name = "all-pairs (per-genre thresholds matched to the corpus' exhaustive labels)"
            return
        cp = resolve_prior(prior, decision=decision)
        if cp is None:
            return
        if not self._reference_path.is_file():
            raise ConfigurationError(f"stance model: a custom prior needs {self._reference_path}")
        with np.load(self._reference_path) as z:
            p_rel, margin = z["debate_p_related"].astype(np.float64), z["debate_stance_margin"].astype(np.float64)
        related = cp.probabilities[ATTACK] + cp.probabilities[SUPPORT]
        t, b = matched_rule(p_rel, margin, related, cp.probabilities[ATTACK] / related if related > 0 else 0.0)
        self.rule = {"debate": (t, b), "summary": (t, b)}
        self.prior = cp
        self.prior_name = cp.describe()

    def with_prior(self, prior: str | ClassPrior, decision: str | None = None) -> StanceRelationClassifier:
        """A sibling sharing the models (mining uses it to switch to ``all-pairs``)."""
        twin = copy.copy(self)
        twin._init_prior(prior, decision)
        return twin

    # ------------------------------------------------------------------ the two stages
    def relatedness_probabilities(self, pairs: Sequence[PairQuery]) -> np.ndarray:
        """Stage 1: (n, 3) class-balanced posteriors (attack, support, no relation)."""
        X = self.relatedness.featurizer.matrix(pairs)
        return self.relatedness.model.predict_proba(X)[:, self._rel_order]

    def stance_logits(self, pairs: Sequence[PairQuery], *, progress: ProgressCallback | None = None) -> np.ndarray:
        """Stage 2: (n, 2) cross-encoder logits (attack, support)."""
        n = len(pairs)
        out = np.zeros((n, len(STANCE_CLASSES)), dtype=np.float32)
        if n == 0:
            return out
        encs = self.tokenizer.encode_batch([pair_texts(q) for q in pairs])
        lengths = np.fromiter((len(e.ids) for e in encs), dtype=np.int64, count=n)
        order = np.argsort(lengths, kind="stable")
        done = 0
        for start in range(0, n, self.batch_size):
            idx = order[start : start + self.batch_size]
            width = int(lengths[idx].max())
            ids = np.zeros((len(idx), width), dtype=np.int64)
            types = np.zeros_like(ids)
            mask = np.zeros_like(ids)
            for r, i in enumerate(idx):
                e = encs[i]
                m = len(e.ids)
                ids[r, :m] = e.ids
                types[r, :m] = e.type_ids
                mask[r, :m] = 1
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            out[idx] = self.session.run(None, {k: v for k, v in feed.items() if k in self._input_names})[0]
            done += len(idx)
            if progress is not None:
                progress(done, n)
        return out

    def classify(self, pairs: Sequence[PairQuery], *, progress: ProgressCallback | None = None) -> list[Prediction]:
        n = len(pairs)
        if n == 0:
            return []
        p3 = self.relatedness_probabilities(pairs)
        p_rel = 1.0 - p3[:, 2]
        genres = [genre_of(q) for q in pairs]
        if self.rule is None:
            related = p3.argmax(axis=1) != 2
            offset = np.zeros(n)
        else:
            thr = np.array([self.rule[g][0] for g in genres])
            related = p_rel >= thr
            offset = np.array([self.rule[g][1] for g in genres])
        todo = np.arange(n) if self.stance_for_all else np.flatnonzero(related)
        p_att = np.full(n, self._train_attack_share)
        margin = np.zeros(n)
        if len(todo):
            z = self.stance_logits([pairs[i] for i in todo], progress=None).astype(np.float64)
            margin[todo] = z[:, 0] - z[:, 1]
            p_att[todo] = 1.0 / (1.0 + np.exp(-margin[todo]))
        if progress is not None:
            progress(n, n)
        self._usage.extra["pairs"] = self._usage.extra.get("pairs", 0) + n
        self._usage.extra["stance_pairs"] = self._usage.extra.get("stance_pairs", 0) + len(todo)
        out = []
        for i in range(n):
            probs = {ATTACK: float(p_rel[i] * p_att[i]), SUPPORT: float(p_rel[i] * (1 - p_att[i])), NO_RELATION: float(1 - p_rel[i])}
            if related[i]:
                label = ATTACK if margin[i] + offset[i] > 0 else SUPPORT
            else:
                label = NO_RELATION
            out.append(Prediction(label, probs[label], probabilities=probs))  # type: ignore[arg-type]
        return out

    @property
    def usage(self) -> Usage:
        return self._usage

    @property
    def fingerprint(self) -> str:
        """Digest of both stages' weights and the decision rule (mining checkpoints use it)."""
        rule = {g: [round(x, 8) for x in v] for g, v in (self.rule or {}).items()}
        h = hashlib.sha256(json.dumps({"models": self._digest, "rule": rule}, sort_keys=True).encode()).hexdigest()
        return f"stance-{h[:10]}"

    def describe(self) -> dict[str, Any]:
        """Provenance for reports: weights digest, training summary, decision rule."""
        return {"weights_sha256": self._digest[:16], "prior": self.prior_name, "trained": self.meta.get("trained", {})}
