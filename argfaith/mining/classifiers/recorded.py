"""A relation classifier that replays recorded labels (gold annotations or a previous run).

Recorded labels make evaluations reproducible and free: a file of (pair → label) rows is looked
up instead of calling a model. Accepted files:

- JSONL (``.jsonl``/``.ndjson``): one object per line with ``label`` and either
  ``source_id``/``target_id`` or ``source``/``target`` texts (or both), optional ``confidence``;
  the EP silver pairs (``ep_relations_silver/dev.jsonl``) and the pair files written by
  ``argfaith mine`` (``<out>.pairs.jsonl``) are in this layout;
- CSV / TSV with a header naming the same columns.

Lookup (``key``): ``"ids"`` by (source_id, target_id); ``"texts"`` by the two texts with
whitespace collapsed; ``"auto"`` (default) by ids when the query has ids that the file knows —
unless the file also records the texts and they differ from the query's (span and sentence units
share the id format ``<debate>-<intervention>-<k>``, so an id alone can name another text) —
else by texts.

Unknown pairs (``unknown``): ``"error"`` (default) raises :class:`UnrecordedPairError` naming the
pair and the file; ``"no relation"`` answers "no relation" with ``fallback=True`` and counts it in
:attr:`RecordedClassifier.unrecorded` and ``usage.extra["unrecorded"]``. With a ``fallback``
classifier (CLI ``recorded:FILE?fallback=offline``) unknown pairs are classified by it instead —
recorded labels where they exist, a model elsewhere (the self-test's ceiling with annotator labels
on the summary side, issue 21); the fallback runs with the mining prior.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from argfaith.datasets.labels import LABELS, NO_RELATION, RelationLabel, normalise_label
from argfaith.errors import ArgfaithError, ConfigurationError, DataFormatError
from argfaith.datasets.provision_ids import legacy_provision_id
from argfaith.textio import read_text
from argfaith.mining.classifiers.base import PairQuery, Prediction, ProgressCallback, RelationClassifier, Usage

__all__ = ["RecordedClassifier", "UnrecordedPairError", "make_recorded_classifier"]

_WS = re.compile(r"\s+")


class UnrecordedPairError(ArgfaithError, LookupError):
    """A pair was asked for that the recorded-label file does not contain."""


def _norm(text: str) -> str:
    return _WS.sub(" ", text).strip()


class RecordedClassifier:
    """Replays labels from a file (see the module docstring for the formats and policies).

    Parameters
    ----------
    path
        JSONL, CSV or TSV file of recorded labels.
    key
        ``"auto"``, ``"ids"`` or ``"texts"``.
    unknown
        ``"error"`` or ``"no relation"``.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        key: Literal["auto", "ids", "texts"] = "auto",
        unknown: Literal["error", "no relation"] = "error",
        fallback: RelationClassifier | None = None,
    ) -> None:
        if key not in ("auto", "ids", "texts"):
            raise ConfigurationError(f"key must be 'auto', 'ids' or 'texts', got {key!r}")
        if unknown not in ("error", "no relation"):
            raise ConfigurationError(f"unknown must be 'error' or 'no relation', got {unknown!r}")
        self.path = Path(path)
        self.key = key
        self.unknown = unknown
        self.fallback = fallback
        self.name = f"recorded:{self.path.name}" + (f"+{fallback.name}" if fallback is not None else "")
        Entry = tuple[RelationLabel, float | None, int, "tuple[str, str] | None"]
        self._by_ids: dict[tuple[str, str], Entry] = {}
        self._by_texts: dict[tuple[str, str], Entry] = {}
        self._usage = Usage()
        self.unrecorded = 0
        self.replayed = 0
        #: id hits ignored (auto mode) because the recorded texts differ from the query's.
        self.id_text_mismatches = 0
        self._norm_cache: dict[str, str] = {}  # the same argument text is looked up many times
        self._load()

    # ------------------------------------------------------------------ loading
    def _rows(self) -> list[tuple[int, dict]]:
        p = self.path
        text = read_text(p, what="recorded-label file")
        suffix = p.suffix.lower()
        rows: list[tuple[int, dict]] = []
        if suffix in (".jsonl", ".ndjson", ".json"):
            lines = text.splitlines()
            for i, raw in enumerate(lines, start=1):
                if not raw.strip():
                    continue
                try:
                    obj = json.loads(raw)
                except json.JSONDecodeError as e:
                    if i == len(lines) and not text.endswith("\n"):
                        break  # a torn last line of an interrupted run: everything before it is valid
                    raise DataFormatError(f"{p}:{i}: malformed JSON ({e.msg} at column {e.colno})") from None
                if not isinstance(obj, dict):
                    raise DataFormatError(f"{p}:{i}: expected a JSON object, got {type(obj).__name__}")
                if "argfaith_checkpoint" in obj:
                    continue  # header line of a mining checkpoint
                rows.append((i, obj))
        elif suffix in (".csv", ".tsv", ".tab"):
            reader = csv.DictReader(io.StringIO(text, newline=""), delimiter="," if suffix == ".csv" else "\t")
            try:
                for row in reader:
                    rows.append((reader.line_num, dict(row)))
            except csv.Error as e:
                raise DataFormatError(f"{p}:{reader.line_num}: malformed record: {e}") from None
            if reader.fieldnames is None:
                raise DataFormatError(f"{p}: empty file (no header line)")
            if "label" not in reader.fieldnames:
                raise DataFormatError(f"{p}:1: no 'label' column (header: {', '.join(reader.fieldnames)})")
        else:
            raise DataFormatError(f"{p}: unknown recorded-label format {suffix!r}; use .jsonl, .csv or .tsv")
        return rows

    def _load(self) -> None:
        p = self.path
        for line, row in self._rows():
            raw_label = row.get("label")
            label = normalise_label(str(raw_label)) if raw_label is not None else None
            if label is None:
                raise DataFormatError(f"{p}:{line}: unknown label {raw_label!r}; expected one of {', '.join(LABELS)}")
            conf = row.get("confidence")
            if conf in ("", None):
                conf_v = None
            else:
                try:
                    conf_v = float(conf)
                except (TypeError, ValueError):
                    raise DataFormatError(f"{p}:{line}: confidence {conf!r} is not a number") from None
                if not (0.0 <= conf_v <= 1.0) or math.isnan(conf_v):
                    raise DataFormatError(f"{p}:{line}: confidence {conf_v} is not in [0, 1]")
            sid, tid = row.get("source_id"), row.get("target_id")
            src, tgt = row.get("source"), row.get("target")
            has_ids = bool(sid) and bool(tid)
            has_texts = isinstance(src, str) and isinstance(tgt, str) and bool(src.strip()) and bool(tgt.strip())
            if not (has_ids or has_texts):
                raise DataFormatError(f"{p}:{line}: needs 'source_id' and 'target_id', or 'source' and 'target' texts")
            texts = (_norm(src), _norm(tgt)) if has_texts else None
            entry = (label, conf_v, line, texts)
            if has_ids:
                self._put(self._by_ids, (str(sid), str(tid)), entry, f"ids {sid!r} -> {tid!r}")
            if has_texts:
                self._put(self._by_texts, texts, entry, "this source/target text pair")

    def _put(self, index: dict, k: tuple[str, str], entry: tuple, what: str) -> None:
        old = index.get(k)
        if old is not None and old[0] != entry[0]:
            raise DataFormatError(
                f"{self.path}:{entry[2]}: {what} is labelled {entry[0]!r} here but {old[0]!r} on line {old[2]}"
            )
        if old is None:
            index[k] = entry

    @property
    def n_records(self) -> int:
        """Distinct recorded pairs (by ids, else by texts)."""
        return max(len(self._by_ids), len(self._by_texts))

    def _normed(self, text: str) -> str:
        v = self._norm_cache.get(text)
        if v is None:
            v = self._norm_cache[text] = _norm(text)
        return v

    # ------------------------------------------------------------------ protocol
    def lookup(self, q: PairQuery) -> tuple[RelationLabel, float | None] | None:
        """The recorded (label, confidence) of ``q``, or ``None``."""
        if self.key in ("auto", "ids") and q.source_id is not None and q.target_id is not None:
            hit = self._by_ids.get((q.source_id, q.target_id))
            if hit is None:  # a file keyed by the old positional provision ids (argfaith.datasets.provision_ids)
                old = legacy_provision_id(q.target_id)
                hit = self._by_ids.get((q.source_id, old)) if old is not None else None
            if hit is not None:
                # In auto mode an id hit whose recorded texts differ from the query's is not trusted:
                # span ids and sentence ids share one format, so the same id can name other text.
                if self.key == "ids" or hit[3] is None or hit[3] == (self._normed(q.source), self._normed(q.target)):
                    return hit[0], hit[1]
                self.id_text_mismatches += 1
            elif self.key == "ids":
                return None
        if self.key in ("auto", "texts") and self._by_texts:
            hit = self._by_texts.get((self._normed(q.source), self._normed(q.target)))
            if hit is not None:
                return hit[0], hit[1]
        return None

    @property
    def fingerprint(self) -> str | None:
        """The fallback's identity (the label file itself is hashed by the study fingerprint)."""
        if self.fallback is None:
            return None
        fb = self.fallback
        return f"fallback:{type(fb).__qualname__}:{fb.name}:{getattr(fb, 'fingerprint', None) or ''}"

    def classify(self, pairs: Sequence[PairQuery], *, progress: ProgressCallback | None = None) -> list[Prediction]:
        if self.fallback is not None:
            hits = [self.lookup(q) for q in pairs]
            missing = [i for i, h in enumerate(hits) if h is None]
            delegated = self.fallback.classify([pairs[i] for i in missing]) if missing else []
            got = dict(zip(missing, delegated))
            self.replayed += len(pairs) - len(missing)
            self.unrecorded += len(missing)
            self._usage.extra["replayed"] = float(self.replayed)
            self._usage.extra["delegated"] = float(self.unrecorded)
            if progress is not None:
                progress(len(pairs), len(pairs))
            return [got[i] if h is None else Prediction(h[0], confidence=h[1]) for i, h in enumerate(hits)]
        out: list[Prediction] = []
        total = len(pairs)
        for i, q in enumerate(pairs):
            hit = self.lookup(q)
            if hit is None:
                if self.unknown == "error":
                    who = (
                        f"{q.source_id!r} -> {q.target_id!r}"
                        if q.source_id is not None
                        else f"source {q.source[:40]!r} -> target {q.target[:40]!r}"
                    )
                    raise UnrecordedPairError(
                        f"{self.path}: no recorded label for pair {who}; "
                        "use unknown='no relation' (CLI: recorded:FILE?unknown=no-relation) to treat such pairs as unrelated"
                    )
                self.unrecorded += 1
                self._usage.extra["unrecorded"] = float(self.unrecorded)
                out.append(Prediction(NO_RELATION, fallback=True))
            else:
                self.replayed += 1
                self._usage.extra["replayed"] = float(self.replayed)
                out.append(Prediction(hit[0], confidence=hit[1]))
            if progress is not None and ((i + 1) % 1000 == 0 or i + 1 == total):
                progress(i + 1, total)
        return out

    @property
    def usage(self) -> Usage:
        return self._usage


def make_recorded_classifier(spec: str, *, fallback: RelationClassifier | None = None) -> RecordedClassifier:
    """From a CLI spec ``FILE`` or ``FILE?unknown=no-relation&key=ids`` (the part after ``recorded:``)."""
    path, _, query = spec.partition("?")
    if not path:
        raise ConfigurationError("recorded: needs a file, e.g. --classifier recorded:labels.jsonl")
    opts: dict[str, Any] = {}
    for part in filter(None, query.split("&")):
        k, _, v = part.partition("=")
        if k not in ("unknown", "key"):
            raise ConfigurationError(
                f"recorded: unknown option {k!r} (use unknown=error|no-relation, key=auto|ids|texts, fallback=CLASSIFIER)")
        opts[k] = v.replace("-", " ").replace("_", " ") if k == "unknown" else v
    return RecordedClassifier(path, fallback=fallback, **opts)
