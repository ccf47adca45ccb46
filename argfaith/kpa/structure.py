"""Structure metrics of a key point analysis (KPA) output, from judgement files (PAPER.md §9).

A KPA output assigns arguments to key points (an argument may stay unmatched). Given the
needed judgements, three set-level qualities of that output (as listed for ArgKP-X in
PAPER.md §9; the formulas below are argfaith's reading of those one-line definitions):

- **global cluster precision** = (matched (argument, key point) pairs judged to match) /
  (matched pairs with a judgement), pooled over all key points ("global": micro-averaged; the
  per-key-point precisions are reported too). Matched pairs without a judgement are counted
  and left out, never guessed.
- **uniqueness** = distinct key points / key points, where key points judged to make the same
  point (pairwise duplicate judgements, closed transitively) count once.
- **true unmatched rate** = unmatched arguments judged to match no key point / unmatched
  arguments with a judgement: how often "unmatched" is right.

Judgement inputs (CSV): match judgements ``arg_id,key_point_id,label`` (the ArgKP labels file is
one); duplicate judgements ``key_point_id_1,key_point_id_2,same``; unmatched judgements
``arg_id,truly_unmatched``. Unmatched judgements can also be derived from match judgements
(:func:`unmatched_judgements_from_labels`): truly unmatched iff judged non-matching for every
candidate key point. Assignments come from a CSV ``arg_id,key_point_id`` (empty key point =
unmatched) or from Track 1 predictions and a threshold (:func:`assignments_from_predictions`).
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from argfaith.errors import DataFormatError
from argfaith.textio import read_text

__all__ = [
    "ClusterPrecision",
    "Uniqueness",
    "UnmatchedRate",
    "KPAStructureScore",
    "global_cluster_precision",
    "uniqueness",
    "true_unmatched_rate",
    "kpa_structure",
    "assignments_from_predictions",
    "unmatched_judgements_from_labels",
    "load_assignments",
    "load_duplicate_judgements",
    "load_unmatched_judgements",
]

Assignments = Mapping[str, Sequence[str]]


@dataclass(frozen=True)
class ClusterPrecision:
    """Global cluster precision with its counts; ``per_key_point[kp] = (correct, judged)``."""

    value: float | None
    n_matched_pairs: int
    n_judged: int
    n_correct: int
    n_unjudged: int
    per_key_point: Mapping[str, tuple[int, int]]

    @property
    def macro(self) -> float | None:
        """Unweighted mean of the per-key-point precisions (key points with a judged pair)."""
        v = [c / j for c, j in self.per_key_point.values() if j]
        return sum(v) / len(v) if v else None


@dataclass(frozen=True)
class Uniqueness:
    """Distinct key points / key points; ``clusters`` lists the groups of duplicates (size > 1)."""

    value: float | None
    n_key_points: int
    n_distinct: int
    clusters: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class UnmatchedRate:
    """True unmatched rate with its counts."""

    value: float | None
    n_unmatched: int
    n_judged: int
    n_truly_unmatched: int
    n_unjudged: int


@dataclass(frozen=True)
class KPAStructureScore:
    """The three structure metrics (each None when its judgements were not given)."""

    n_arguments: int
    n_matched_arguments: int
    cluster_precision: ClusterPrecision | None
    uniqueness: Uniqueness | None
    unmatched: UnmatchedRate | None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if self.cluster_precision is not None:
            d["cluster_precision"]["macro"] = self.cluster_precision.macro
            d["cluster_precision"]["per_key_point"] = {k: list(v) for k, v in self.cluster_precision.per_key_point.items()}
        return d


def global_cluster_precision(assignments: Assignments, judgements: Mapping[tuple[str, str], int]) -> ClusterPrecision:
    """Share of matched (argument, key point) pairs judged to match, pooled over key points.

    Examples
    --------
    >>> global_cluster_precision({"a": ["k1"], "b": ["k1"], "c": []}, {("a", "k1"): 1, ("b", "k1"): 0}).value
    0.5
    """
    per: dict[str, list[int]] = {}
    matched = judged = correct = 0
    for arg_id, kps in assignments.items():
        for kp in dict.fromkeys(kps):
            matched += 1
            lab = judgements.get((arg_id, kp))
            c = per.setdefault(kp, [0, 0])
            if lab is None:
                continue
            judged += 1
            c[1] += 1
            if lab:
                correct += 1
                c[0] += 1
    return ClusterPrecision(
        value=correct / judged if judged else None,
        n_matched_pairs=matched,
        n_judged=judged,
        n_correct=correct,
        n_unjudged=matched - judged,
        per_key_point={k: (v[0], v[1]) for k, v in per.items()},
    )


def uniqueness(key_points: Sequence[str], duplicates: Iterable[tuple[str, str]]) -> Uniqueness:
    """Distinct key points / key points; duplicate pairs are closed transitively (union-find).

    Raises
    ------
    DataFormatError
        A duplicate pair names a key point not in ``key_points``.
    """
    kps = list(dict.fromkeys(key_points))
    parent = {k: k for k in kps}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in duplicates:
        for k in (a, b):
            if k not in parent:
                raise DataFormatError(f"duplicate judgement names unknown key point {k!r}")
        ra, rb = find(a), find(b)
        if ra != rb:
            # the root is the key point listed first, so clusters read in input order
            if kps.index(ra) < kps.index(rb):
                parent[rb] = ra
            else:
                parent[ra] = rb
    groups: dict[str, list[str]] = {}
    for k in kps:
        groups.setdefault(find(k), []).append(k)
    return Uniqueness(
        value=len(groups) / len(kps) if kps else None,
        n_key_points=len(kps),
        n_distinct=len(groups),
        clusters=tuple(tuple(g) for g in groups.values() if len(g) > 1),
    )


def true_unmatched_rate(assignments: Assignments, unmatched_judgements: Mapping[str, bool]) -> UnmatchedRate:
    """Share of the unmatched arguments that are judged to match no key point."""
    unmatched = [a for a, kps in assignments.items() if not kps]
    judged = [a for a in unmatched if a in unmatched_judgements]
    truly = sum(1 for a in judged if unmatched_judgements[a])
    return UnmatchedRate(
        value=truly / len(judged) if judged else None,
        n_unmatched=len(unmatched),
        n_judged=len(judged),
        n_truly_unmatched=truly,
        n_unjudged=len(unmatched) - len(judged),
    )


def kpa_structure(
    assignments: Assignments,
    *,
    match_judgements: Mapping[tuple[str, str], int] | None = None,
    key_points: Sequence[str] | None = None,
    duplicates: Iterable[tuple[str, str]] | None = None,
    unmatched_judgements: Mapping[str, bool] | None = None,
) -> KPAStructureScore:
    """All structure metrics whose judgements are given (the others are None).

    ``key_points`` defaults to the key points that appear in ``assignments`` (for uniqueness,
    pass the full list so that key points nobody was matched to count too).
    """
    kps = list(key_points) if key_points is not None else list(dict.fromkeys(k for v in assignments.values() for k in v))
    return KPAStructureScore(
        n_arguments=len(assignments),
        n_matched_arguments=sum(1 for v in assignments.values() if v),
        cluster_precision=global_cluster_precision(assignments, match_judgements) if match_judgements is not None else None,
        uniqueness=uniqueness(kps, duplicates) if duplicates is not None else None,
        unmatched=true_unmatched_rate(assignments, unmatched_judgements) if unmatched_judgements is not None else None,
    )


def assignments_from_predictions(
    predictions: Mapping[str, Mapping[str, float]],
    threshold: float,
    *,
    candidates: Mapping[str, Sequence[str]] | None = None,
    best_only: bool = True,
) -> dict[str, list[str]]:
    """Assignments from Track 1 predictions: each argument to its best key point if its score is
    ≥ ``threshold`` (``best_only=False``: to every key point at or above it).

    With ``candidates`` (``arg_id -> key points of its topic and stance``, e.g. from
    :meth:`argfaith.datasets.kpa.KPAData.candidate_key_points`), only those key points count,
    ties go to the first candidate, every candidate argument appears (unmatched if not
    predicted) and predictions for other arguments are dropped. Without it, ties go to the
    predictions' order.
    """
    out: dict[str, list[str]] = {a: [] for a in (candidates or ())}
    for a, kps in predictions.items():
        if candidates is not None:
            if a not in candidates:
                continue
            order = {k: i for i, k in enumerate(candidates[a])}
            items = sorted(((k, s) for k, s in kps.items() if k in order), key=lambda kv: (-kv[1], order[kv[0]]))
        else:
            items = sorted(kps.items(), key=lambda kv: -kv[1])  # stable: predictions' order on ties
        chosen = [k for k, s in items if s >= threshold]
        out[a] = chosen[:1] if best_only else chosen
    return out


def unmatched_judgements_from_labels(
    labels: Mapping[tuple[str, str], int], candidates: Mapping[str, Sequence[str]]
) -> dict[str, bool]:
    """Truly-unmatched judgements derived from match labels: an argument is truly unmatched iff
    every candidate key point is labelled 0; it is judged matchable iff one is labelled 1; it is
    left unjudged when neither holds (some pairs undecided or unlabelled)."""
    out: dict[str, bool] = {}
    for a, kps in candidates.items():
        labs = [labels.get((a, k)) for k in kps]
        if any(x == 1 for x in labs):
            out[a] = False
        elif labs and all(x == 0 for x in labs):
            out[a] = True
    return out


# ---------------------------------------------------------------------------- readers
def _csv_rows(path: str | os.PathLike[str], columns: Sequence[str]) -> Iterable[tuple[int, dict[str, str]]]:
    p = Path(path)
    with io.StringIO(read_text(p, what="CSV file"), newline="") as fh:
        r = csv.DictReader(fh)
        if r.fieldnames is None:
            raise DataFormatError(f"{p}: empty file (expected header {','.join(columns)})")
        missing = [c for c in columns if c not in r.fieldnames]
        if missing:
            raise DataFormatError(f"{p}:1: missing column(s) {', '.join(missing)}")
        line = r.line_num + 1
        for row in r:
            if any(row.get(c) is None for c in columns):
                raise DataFormatError(f"{p}:{line}: fewer fields than the header")
            yield line, {c: (row[c] or "").strip() for c in columns}
            line = r.line_num + 1


def _flag(raw: str, p: Any, line: int, col: str) -> bool:
    v = raw.strip().lower()
    if v in ("1", "1.0", "true", "yes"):
        return True
    if v in ("0", "0.0", "false", "no"):
        return False
    raise DataFormatError(f"{p}:{line}: {col} must be 0/1 (or true/false), got {raw!r}")


def load_assignments(path: str | os.PathLike[str]) -> dict[str, list[str]]:
    """``arg_id,key_point_id`` rows (repeat an argument for several key points; leave the key
    point empty for an unmatched argument)."""
    out: dict[str, list[str]] = {}
    for line, row in _csv_rows(path, ("arg_id", "key_point_id")):
        if not row["arg_id"]:
            raise DataFormatError(f"{path}:{line}: empty arg_id")
        lst = out.setdefault(row["arg_id"], [])
        if row["key_point_id"]:
            if row["key_point_id"] in lst:
                raise DataFormatError(f"{path}:{line}: ({row['arg_id']}, {row['key_point_id']}) listed twice")
            lst.append(row["key_point_id"])
    return out


def load_duplicate_judgements(path: str | os.PathLike[str]) -> list[tuple[str, str]]:
    """Pairs judged to be the same key point, from ``key_point_id_1,key_point_id_2,same`` rows."""
    out = []
    for line, row in _csv_rows(path, ("key_point_id_1", "key_point_id_2", "same")):
        if _flag(row["same"], path, line, "same"):
            out.append((row["key_point_id_1"], row["key_point_id_2"]))
    return out


def load_unmatched_judgements(path: str | os.PathLike[str]) -> dict[str, bool]:
    """``arg_id,truly_unmatched`` rows (1 = the argument expresses none of the key points)."""
    out: dict[str, bool] = {}
    for line, row in _csv_rows(path, ("arg_id", "truly_unmatched")):
        if row["arg_id"] in out:
            raise DataFormatError(f"{path}:{line}: duplicate arg_id {row['arg_id']!r}")
        out[row["arg_id"]] = _flag(row["truly_unmatched"], path, line, "truly_unmatched")
    return out
