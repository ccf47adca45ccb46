"""Loaders (and a writer) for argument-relation pair corpora.

Two layouts are understood:

- the Amelia CSV layout (github.com/brunoyun/amelia, ``spl2_{train,val}.csv``): columns
  ``datasets`` (source corpus), ``spl``, ``single_ans`` (label), ``conversations`` (SOURCE
  argument), ``answer``, ``trg`` (TARGET argument);
- a generic table of pairs as CSV, TSV or JSONL with columns ``source``, ``target``, ``label`` and
  optional ``topic``, ``corpus``, ``pair_id``, ``source_id``, ``target_id``, ``target_kind``
  (the EP silver pairs, ``ep_relations_silver/dev.jsonl``, are in this layout; its ``debate_id``
  is used as the corpus when no ``corpus`` field exists). Column names and the label vocabulary
  are configurable.

Labels are the paper's three classes (PAPER.md §7): ``attack``, ``support``, ``no relation``.
Every malformed input raises :class:`~argfaith.errors.DataFormatError` naming the file and line.
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from argfaith.datasets.labels import LABELS, RelationLabel, normalise_label
from argfaith.errors import ConfigurationError, DataFormatError
from argfaith.textio import read_text

__all__ = [
    "RelationPair",
    "PairColumns",
    "AMELIA_COLUMNS",
    "load_relation_pairs",
    "load_amelia_pairs",
    "save_relation_pairs",
    "label_counts",
]

PairFormat = Literal["csv", "tsv", "jsonl"]


@dataclass(frozen=True, slots=True)
class RelationPair:
    """One labelled candidate relation ``source → target``.

    ``line`` is the (1-based) line of the record in its file, for error messages and provenance.
    """

    source: str
    target: str
    label: RelationLabel
    topic: str | None = None
    corpus: str | None = None
    pair_id: str | None = None
    source_id: str | None = None
    target_id: str | None = None
    target_kind: str | None = None  # "proposal" | "speech" for debate pairs
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict without empty optional fields (``line`` is dropped)."""
        d = asdict(self)
        d.pop("line")
        return {k: v for k, v in d.items() if v is not None}


@dataclass(frozen=True, slots=True)
class PairColumns:
    """Where each field lives in a generic pair table (``None`` = column not used)."""

    source: str = "source"
    target: str = "target"
    label: str = "label"
    topic: str | None = "topic"
    corpus: str | None = "corpus"
    pair_id: str | None = "pair_id"
    source_id: str | None = "source_id"
    target_id: str | None = "target_id"
    target_kind: str | None = "target_kind"
    #: Used as the corpus when the ``corpus`` column is absent (EP pairs carry ``debate_id``).
    corpus_fallback: str | None = "debate_id"


#: The Amelia CSV layout (``spl2_train.csv`` / ``spl2_val.csv``).
AMELIA_COLUMNS = PairColumns(
    source="conversations",
    target="trg",
    label="single_ans",
    topic=None,
    corpus="datasets",
    pair_id=None,
    source_id=None,
    target_id=None,
    target_kind=None,
    corpus_fallback=None,
)
_AMELIA_HEADER = {"conversations", "trg", "single_ans"}


def _read_text(path: Path, encoding: str) -> str:
    return read_text(path, what="pair file", encoding=encoding, encoding_option="--encoding")


def _infer_format(path: Path) -> PairFormat:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in (".jsonl", ".ndjson"):
        return "jsonl"
    if suffixes and suffixes[-1] in (".tsv", ".tab"):
        return "tsv"
    if suffixes and suffixes[-1] == ".csv":
        return "csv"
    raise DataFormatError(f"{path}: cannot tell the format from the extension; pass format='csv'|'tsv'|'jsonl'")


def _map_label(raw: Any, label_map: Mapping[str, str] | None, path: Path, line: int) -> RelationLabel:
    value = "" if raw is None else str(raw).strip()
    # Amelia's `answer` column style: "['attack']".
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1].strip().strip("'\"")
    if label_map is not None:
        mapped = label_map.get(value, label_map.get(value.lower()))
        if mapped is not None:
            value = mapped
    label = normalise_label(value)
    if label is None:
        allowed = ", ".join(LABELS)
        extra = f" (after label mapping {dict(label_map)})" if label_map else ""
        raise DataFormatError(f"{path}, line {line}: unknown label {raw!r}{extra}; expected one of: {allowed}")
    return label


def _opt(record: Mapping[str, Any], column: str | None) -> str | None:
    if column is None:
        return None
    value = record.get(column)
    if value is None:
        return None
    value = str(value).strip()
    return value or None


def _to_pair(
    record: Mapping[str, Any],
    columns: PairColumns,
    label_map: Mapping[str, str] | None,
    path: Path,
    line: int,
    default_corpus: str | None,
) -> RelationPair:
    texts = {}
    for field in ("source", "target"):
        col = getattr(columns, field)
        value = record.get(col)
        if value is None or not isinstance(value, str | int | float) or str(value).strip() == "":
            raise DataFormatError(f"{path}, line {line}: empty or missing {field} text (column {col!r})")
        texts[field] = str(value).strip()
    label = _map_label(record.get(columns.label), label_map, path, line)
    corpus = _opt(record, columns.corpus) or _opt(record, columns.corpus_fallback) or default_corpus
    kind = _opt(record, columns.target_kind)
    return RelationPair(
        source=texts["source"],
        target=texts["target"],
        label=label,
        topic=_opt(record, columns.topic),
        corpus=corpus,
        pair_id=_opt(record, columns.pair_id),
        source_id=_opt(record, columns.source_id),
        target_id=_opt(record, columns.target_id),
        target_kind=kind.lower() if kind else None,
        line=line,
    )


def _check_header(header: Sequence[str], columns: PairColumns, path: Path) -> None:
    missing = [c for c in (columns.source, columns.target, columns.label) if c not in header]
    if missing:
        raise DataFormatError(
            f"{path}, line 1: missing required column(s) {', '.join(map(repr, missing))}; "
            f"header has {', '.join(map(repr, header))}"
        )


def _iter_table(text: str, path: Path, delimiter: str, columns: PairColumns | None) -> tuple[PairColumns, Iterable[tuple[int, dict[str, str]]]]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise DataFormatError(f"{path}: empty file (no header line)") from None
    except csv.Error as e:
        raise DataFormatError(f"{path}, line 1: malformed header: {e}") from None
    if columns is None:
        columns = AMELIA_COLUMNS if _AMELIA_HEADER <= set(header) else PairColumns()
    _check_header(header, columns, path)

    def rows() -> Iterable[tuple[int, dict[str, str]]]:
        start = reader.line_num + 1
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as e:
                raise DataFormatError(f"{path}, line {start}: malformed {delimiter!r}-separated record: {e}") from None
            line = start  # first physical line of the record (quoted fields may span lines)
            start = reader.line_num + 1
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != len(header):
                raise DataFormatError(
                    f"{path}, line {line}: expected {len(header)} fields (as in the header), found {len(row)}"
                )
            yield line, dict(zip(header, row, strict=True))

    return columns, rows()


def _iter_jsonl(text: str, path: Path, columns: PairColumns | None) -> tuple[PairColumns, Iterable[tuple[int, dict[str, Any]]]]:
    columns = columns or PairColumns()

    def rows() -> Iterable[tuple[int, dict[str, Any]]]:
        for i, raw in enumerate(text.splitlines(), start=1):
            if not raw.strip():
                continue
            try:
                obj = json.loads(raw)
            except json.JSONDecodeError as e:
                raise DataFormatError(f"{path}, line {i}: malformed JSON ({e.msg} at column {e.colno})") from None
            if not isinstance(obj, dict):
                raise DataFormatError(f"{path}, line {i}: expected a JSON object, found {type(obj).__name__}")
            missing = [c for c in (columns.source, columns.target, columns.label) if c not in obj]
            if missing:
                raise DataFormatError(f"{path}, line {i}: missing required field(s) {', '.join(map(repr, missing))}")
            yield i, obj

    return columns, rows()


def load_relation_pairs(
    path: str | os.PathLike[str],
    *,
    format: PairFormat | None = None,
    columns: PairColumns | None = None,
    label_map: Mapping[str, str] | None = None,
    encoding: str = "utf-8",
    corpus: str | None = None,
    limit: int | None = None,
) -> list[RelationPair]:
    """Load labelled relation pairs from a CSV, TSV or JSONL file.

    Parameters
    ----------
    path
        The file. Its format is taken from the extension unless ``format`` is given.
    format
        ``"csv"``, ``"tsv"`` or ``"jsonl"``.
    columns
        Column (or JSON field) names; default: the generic names, or :data:`AMELIA_COLUMNS` when a
        CSV/TSV header has Amelia's ``conversations``/``trg``/``single_ans`` columns.
    label_map
        Raw label → canonical label (e.g. ``{"0": "no relation", "1": "support", "-1": "attack"}``);
        unmapped values go through :func:`~argfaith.datasets.labels.normalise_label`.
    encoding
        Text encoding (default UTF-8; a BOM is tolerated).
    corpus
        Corpus name for records without a corpus column.
    limit
        Keep only the first ``limit`` pairs.

    Returns
    -------
    list of RelationPair
        In file order.

    Raises
    ------
    DataFormatError
        Unknown label, missing column/field, wrong encoding, malformed JSON line or CSV record,
        empty source/target; the message names the file and line.
    """
    p = Path(path)
    fmt = format or _infer_format(p)
    if fmt not in ("csv", "tsv", "jsonl"):
        raise ConfigurationError(f"unknown pair file format {fmt!r}; use csv, tsv or jsonl")
    if limit is not None and limit < 0:
        raise ConfigurationError(f"limit must be >= 0, got {limit}")
    text = _read_text(p, encoding)
    if fmt == "jsonl":
        cols, rows = _iter_jsonl(text, p, columns)
    else:
        cols, rows = _iter_table(text, p, "," if fmt == "csv" else "\t", columns)
    pairs: list[RelationPair] = []
    for line, record in rows:
        if limit is not None and len(pairs) >= limit:
            break
        pairs.append(_to_pair(record, cols, label_map, p, line, corpus))
    return pairs


def load_amelia_pairs(path: str | os.PathLike[str], *, limit: int | None = None) -> list[RelationPair]:
    """Load an Amelia split (``spl2_train.csv`` / ``spl2_val.csv``); corpus = the ``datasets`` column.

    Origin: github.com/brunoyun/amelia (8 public ARC corpora, each under its own licence).
    """
    return load_relation_pairs(path, format="csv", columns=AMELIA_COLUMNS, limit=limit)


def save_relation_pairs(pairs: Iterable[RelationPair], path: str | os.PathLike[str], *, extra: Sequence[Mapping[str, Any]] | None = None) -> int:
    """Write pairs as JSONL in the generic layout (readable by :func:`load_relation_pairs`).

    ``extra`` (one mapping per pair) adds provenance fields such as ``annotator``. Returns the
    number of lines written.
    """
    items = list(pairs)
    if extra is not None and len(extra) != len(items):
        raise ValueError("extra must have one mapping per pair")
    with open(path, "w", encoding="utf-8") as fh:
        for i, pair in enumerate(items):
            d = pair.to_dict()
            if extra is not None:
                d.update(extra[i])
            fh.write(json.dumps(d, ensure_ascii=False) + "\n")
    return len(items)


def label_counts(pairs: Iterable[RelationPair]) -> dict[str, int]:
    """Pairs per label, in the canonical label order."""
    counts = {label: 0 for label in LABELS}
    for pair in pairs:
        counts[pair.label] += 1
    return counts
