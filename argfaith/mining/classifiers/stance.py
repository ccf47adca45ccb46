"""The stance-aware offline relation classifier: a fine-tuned MiniLM cross-encoder run with
onnxruntime (no torch, no network).

Model: all-MiniLM-L6-v2 (Wang et al. 2020, MiniLM; sentence-transformers release, Apache-2.0)
fine-tuned as a cross-encoder (Nogueira & Cho 2019 style: ``[CLS] source [SEP] target [SEP]`` →
3 classes) on argfaith's EP relation corpus (``data/ep_relations_llm``, silver labels made by LLM
annotators with the paper's class definitions, PAPER.md §7), exported to ONNX and quantised to
int8. Reading source and target together lets the model compare their *stance* (does the source
take the target's line or the opposite one), which pair features over separately analysed texts
(:mod:`~argfaith.mining.classifiers.offline`) cannot do. Training: ``scripts/train_stance.py``.

Input (:func:`pair_texts`): the source, and the target prefixed by its kind — ``provision:`` for
proposal arguments, ``same speech:`` / ``speech:`` for speech arguments of a debate (same or
another intervention), ``summary:`` for summary sentences — so the one model learns the few
conventions that differ between debates and summaries.

Decisions (``prior``): the raw arg-max of the model (``balanced``, the default outside mining) or
``all-pairs`` (what mining uses): per-genre offsets added to the logits so that, on reference
logits shipped with the weights (out-of-fold predictions on the exhaustively labelled candidates
of the corpus, debate and summary genre separately), each class is predicted as often as the
labels say (the ``match`` rule of :mod:`~argfaith.mining.classifiers.prior`). A custom prior
(``attack=..;support=..;no relation=..``) is matched the same way on the debate reference.
"""

from __future__ import annotations

import copy
import hashlib
from collections import OrderedDict
import json
import os
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from argfaith.datasets.labels import LABELS
from argfaith.errors import ConfigurationError
from argfaith.mining.classifiers.base import PairQuery, Prediction, ProgressCallback, Usage
from argfaith.mining.classifiers.prior import ClassPrior, match_offsets, resolve_prior

__all__ = [
    "StanceRelationClassifier",
    "pair_texts",
    "split_texts",
    "genre_of",
    "default_stance_dir",
    "STANCE_FILES",
    "MAX_LENGTH",
]

#: Files of a stance model directory.
STANCE_FILES = {
    "model": "stance_model.onnx",  # plain cross-encoder
    "lower": "stance_lower.onnx",  # late interaction: per-argument lower layers
    "upper": "stance_upper.onnx",  # late interaction: per-pair upper layers
    "tokenizer": "stance_tokenizer.json",
    "meta": "stance_model.json",
}
#: How many argument encodings (lower-layer outputs) the late-interaction model keeps in memory.
LOWER_CACHE = 2000
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


def split_texts(q: PairQuery) -> tuple[str, str, int]:
    """The late-interaction model's inputs: the source segment, the target segment (with its
    per-unit kind tag, so it can be encoded once per argument) and the pair flag *same speech*."""
    if q.target_kind == "proposal":
        tag = "provision"
    elif genre_of(q) == "summary":
        tag = "summary"
    else:
        tag = "speech"
    same = int(genre_of(q) == "debate" and q.target_kind != "proposal" and q.source_position is not None
               and q.source_position == q.target_position)
    return " ".join(q.source.split()), f"{tag}: " + " ".join(q.target.split()), same


def default_stance_dir() -> Path:
    """The package's shipped model directory (``argfaith/data``)."""
    return Path(str(resources.files("argfaith") / "data"))


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class StanceRelationClassifier:
    """Cross-encoder relation classifier (see the module docstring).

    Parameters
    ----------
    model_dir
        Folder with :data:`STANCE_FILES` (default: the shipped weights).
    prior
        ``None``/``"balanced"`` (raw arg-max), ``"all-pairs"`` (per-genre calibrated; mining's
        choice) or a custom ``attack=P;support=P;no relation=P``.
    threads
        onnxruntime intra-op threads (default: all cores).
    batch_size
        Pairs per inference batch (pairs are sorted by length first, so padding stays small).
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
    ) -> None:
        self.model_dir = Path(model_dir) if model_dir is not None else default_stance_dir()
        meta_path = self.model_dir / STANCE_FILES["meta"]
        if not meta_path.is_file():
            raise ConfigurationError(f"stance model: {meta_path} not found (a model folder has {', '.join(STANCE_FILES.values())})")
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as e:  # both are core dependencies; a broken install names them
            raise ConfigurationError(
                f"the stance relation classifier needs {e.name or 'onnxruntime'} (a dependency of argfaith): pip install onnxruntime tokenizers"
            ) from None
        self.meta: dict[str, Any] = json.loads(meta_path.read_text(encoding="utf-8"))
        self.classes: tuple[str, ...] = tuple(self.meta["classes"])
        if sorted(self.classes) != sorted(LABELS):
            raise ConfigurationError(f"stance model: classes {self.classes} are not {LABELS}")
        arch = str(self.meta.get("architecture", "cross"))
        self.split = int(arch.split(":")[1]) if arch.startswith("split:") else 0
        needed = ("lower", "upper", "tokenizer") if self.split else ("model", "tokenizer")
        paths = {k: self.model_dir / STANCE_FILES[k] for k in needed}
        for k, p in paths.items():
            if not p.is_file():
                raise ConfigurationError(f"stance model: {k} file {p} not found")
        self.max_length = int(self.meta.get("max_length", MAX_LENGTH))
        self.segment_lengths = tuple(self.meta.get("segment_lengths", (64, 96)))
        self.tokenizer = Tokenizer.from_file(str(paths["tokenizer"]))
        self.tokenizer.no_padding()
        so = ort.SessionOptions()
        so.intra_op_num_threads = int(threads or os.cpu_count() or 1)
        so.inter_op_num_threads = 1
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        h = hashlib.sha256()
        if self.split:
            self.lower_session = ort.InferenceSession(str(paths["lower"]), so, providers=["CPUExecutionProvider"])
            self.upper_session = ort.InferenceSession(str(paths["upper"]), so, providers=["CPUExecutionProvider"])
            h.update(paths["lower"].read_bytes())
            h.update(paths["upper"].read_bytes())
            self._lower_cache: OrderedDict[tuple[int, str], np.ndarray] = OrderedDict()
        else:
            self.tokenizer.enable_truncation(self.max_length, strategy="longest_first")
            self.session = ort.InferenceSession(str(paths["model"]), so, providers=["CPUExecutionProvider"])
            self._input_names = {i.name for i in self.session.get_inputs()}
            h.update(paths["model"].read_bytes())
        self.batch_size = batch_size
        self._usage = Usage()
        self._digest = h.hexdigest()
        ref = self.meta.get("reference", {})
        self.reference = {g: np.asarray(v, dtype=np.float64) for g, v in ref.get("logits", {}).items()}
        self.reference_shares = {g: np.asarray(v, dtype=np.float64) for g, v in ref.get("shares", {}).items()}
        self._init_prior(prior, decision)

    # ------------------------------------------------------------------ decisions
    def _init_prior(self, prior: str | ClassPrior | None, decision: str | None = None) -> None:
        self.prior_explicit = prior is not None
        self.offsets: dict[str, np.ndarray] = {g: np.zeros(len(self.classes)) for g in ("debate", "summary")}
        self.prior_name = "balanced"
        if prior is None or prior == "balanced":
            return
        spec = prior.name if isinstance(prior, ClassPrior) else str(prior)
        if spec == "all-pairs":
            if not self.reference:
                raise ConfigurationError("stance model: these weights ship no reference logits; use prior=balanced")
            for g in ("debate", "summary"):
                if g in self.reference and g in self.reference_shares:
                    self.offsets[g] = np.asarray(match_offsets(self.reference[g], self.reference_shares[g]).offsets)
            self.prior_name = "all-pairs (per-genre match on the corpus' exhaustive labels)"
            return
        cp = resolve_prior(prior, decision=decision)
        if cp is None:
            return
        if "debate" not in self.reference:
            raise ConfigurationError("stance model: a custom prior needs the shipped reference logits")
        target = cp.vector(self.classes)
        off = np.asarray(match_offsets(self.reference["debate"], target).offsets)
        self.offsets = {"debate": off, "summary": off}
        self.prior_name = cp.describe()

    def with_prior(self, prior: str | ClassPrior, decision: str | None = None) -> StanceRelationClassifier:
        """A sibling sharing the session (mining uses it to switch to ``all-pairs``)."""
        twin = copy.copy(self)
        twin._init_prior(prior, decision)
        return twin

    # ------------------------------------------------------------------ inference
    def logits(self, pairs: Sequence[PairQuery], *, progress: ProgressCallback | None = None) -> np.ndarray:
        """Raw model logits, shape (n, 3), columns in :attr:`classes` order."""
        if self.split:
            return self._split_logits(pairs, progress)
        n = len(pairs)
        out = np.zeros((n, len(self.classes)), dtype=np.float32)
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

    def _encode_arguments(self, texts: list[str], role: int) -> None:
        """Lower-layer hidden states of each text not cached yet (role 0 = source, 1 = target)."""
        todo = [t for t in dict.fromkeys(texts) if (role, t) not in self._lower_cache]
        if todo:
            max_src, max_tgt = self.segment_lengths
            self.tokenizer.enable_truncation(max_src if role == 0 else max_tgt + 1)
            encs = self.tokenizer.encode_batch(todo)
            seqs = [e.ids if role == 0 else e.ids[1:] for e in encs]  # a target segment has no [CLS]
            order = sorted(range(len(todo)), key=lambda i: len(seqs[i]))
            for start in range(0, len(order), self.batch_size):
                idx = order[start : start + self.batch_size]
                width = max(len(seqs[i]) for i in idx)
                ids = np.zeros((len(idx), width), dtype=np.int64)
                mask = np.zeros_like(ids)
                for r, i in enumerate(idx):
                    ids[r, : len(seqs[i])] = seqs[i]
                    mask[r, : len(seqs[i])] = 1
                hid = self.lower_session.run(None, {"input_ids": ids, "attention_mask": mask,
                                                    "token_type_ids": np.full_like(ids, role)})[0]
                for r, i in enumerate(idx):
                    self._lower_cache[(role, todo[i])] = hid[r, : len(seqs[i])].copy()
        for t in texts:
            self._lower_cache.move_to_end((role, t))
        while len(self._lower_cache) > max(LOWER_CACHE, 2 * len(set(texts))):
            self._lower_cache.popitem(last=False)

    def _split_logits(self, pairs: Sequence[PairQuery], progress: ProgressCallback | None) -> np.ndarray:
        n = len(pairs)
        out = np.zeros((n, len(self.classes)), dtype=np.float32)
        if n == 0:
            return out
        trip = [split_texts(q) for q in pairs]
        self._encode_arguments([t[0] for t in trip], 0)
        self._encode_arguments([t[1] for t in trip], 1)
        hs_all = [self._lower_cache[(0, t[0])] for t in trip]
        ht_all = [self._lower_cache[(1, t[1])] for t in trip]
        lengths = np.array([len(a) + len(b) for a, b in zip(hs_all, ht_all)])
        order = np.argsort(lengths, kind="stable")
        dim = hs_all[0].shape[1]
        done = 0
        for start in range(0, n, self.batch_size):
            idx = order[start : start + self.batch_size]
            ws = max(len(hs_all[i]) for i in idx)
            wt = max(len(ht_all[i]) for i in idx)
            hs = np.zeros((len(idx), ws, dim), dtype=np.float32)
            ht = np.zeros((len(idx), wt, dim), dtype=np.float32)
            ms = np.zeros((len(idx), ws), dtype=np.int64)
            mt = np.zeros((len(idx), wt), dtype=np.int64)
            for r, i in enumerate(idx):
                a, b = hs_all[i], ht_all[i]
                hs[r, : len(a)] = a
                ms[r, : len(a)] = 1
                ht[r, : len(b)] = b
                mt[r, : len(b)] = 1
            flag = np.array([trip[i][2] for i in idx], dtype=np.int64)
            out[idx] = self.upper_session.run(None, {"hs": hs, "ms": ms, "ht": ht, "mt": mt, "same_speech": flag})[0]
            done += len(idx)
            if progress is not None:
                progress(done, n)
        return out

    def classify(self, pairs: Sequence[PairQuery], *, progress: ProgressCallback | None = None) -> list[Prediction]:
        z = self.logits(pairs, progress=progress).astype(np.float64)
        genres = [genre_of(q) for q in pairs]
        for g in ("debate", "summary"):
            rows = [i for i, x in enumerate(genres) if x == g]
            if rows:
                z[rows] += self.offsets[g]
        p = _softmax(z)
        k = p.argmax(axis=1)
        self._usage.calls += 0
        self._usage.extra["pairs"] = self._usage.extra.get("pairs", 0) + len(pairs)
        return [
            Prediction(self.classes[int(k[i])], float(p[i, k[i]]), probabilities={c: float(p[i, j]) for j, c in enumerate(self.classes)})
            for i in range(len(pairs))
        ]

    @property
    def usage(self) -> Usage:
        return self._usage

    @property
    def fingerprint(self) -> str:
        """The model file's SHA-256 prefix and the decision rule (mining checkpoints use it)."""
        off = {g: [round(float(x), 6) for x in v] for g, v in self.offsets.items()}
        h = hashlib.sha256(json.dumps({"model": self._digest, "offsets": off}, sort_keys=True).encode()).hexdigest()
        return f"stance-{h[:10]}"

    def describe(self) -> dict[str, Any]:
        """Provenance for reports: model digest, training summary, decision rule."""
        return {"model_sha256": self._digest[:16], "prior": self.prior_name, "trained": self.meta.get("trained", {})}
