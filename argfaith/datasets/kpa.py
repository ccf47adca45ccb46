"""Loaders for ArgKP / the Key Point Analysis 2021 shared task data (Track 1, key point matching).

Layout (github.com/IBM/KPA_2021_shared_task, ``kpm_data/``; the test split lives in
``test_data/``), one triple of CSV files per split:

- ``arguments_<split>.csv``: ``arg_id, argument, topic, stance``
- ``key_points_<split>.csv``: ``key_point_id, key_point, topic, stance``
- ``labels_<split>.csv``: ``arg_id, key_point_id, label`` (1 = match, 0 = no match)

Stance is ``1`` (pro) or ``-1`` (con). Pairs whose crowd annotation was *undecided* (more than 15%
yet less than 60% of annotators marked a match; Bar-Haim et al., ACL 2020) are absent from the
labels file; the Track 1 scorer counts them as no-match (strict) or match (relaxed).

``arg_id`` values repeat across splits (``arg_0_0`` exists in train and in test), so every record
carries its split and :attr:`KPArgument.key` is ``(split, arg_id)``. Every malformed input raises
:class:`~argfaith.errors.DataFormatError` naming the file and line.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType

from argfaith.datasets.paths import data_dir
from argfaith.errors import ConfigurationError, DataFormatError
from argfaith.textio import read_text

__all__ = [
    "KPArgument",
    "KeyPoint",
    "KPAData",
    "Group",
    "KPA_SUBDIR",
    "find_kpa_dir",
    "load_kpa",
    "load_kpa_arguments",
    "load_kpa_key_points",
    "load_kpa_labels",
]

#: Where the KPA data sits inside an ``ARGFAITH_DATA`` directory.
KPA_SUBDIR = Path("kpa2021") / "kpm_data"

#: A (topic, stance) group: the unit of Track 1 matching and of the mAP average.
Group = tuple[str, int]

_ARG_COLUMNS = ("arg_id", "argument", "topic", "stance")
_KP_COLUMNS = ("key_point_id", "key_point", "topic", "stance")
_LABEL_COLUMNS = ("arg_id", "key_point_id", "label")


@dataclass(frozen=True, slots=True)
class KPArgument:
    """One crowd argument of ArgKP. ``key`` = ``(split, arg_id)`` is unique across splits."""

    split: str
    arg_id: str
    text: str
    topic: str
    stance: int
    line: int | None = None  # 1-based line of the record in its CSV file

    @property
    def key(self) -> tuple[str, str]:
        return (self.split, self.arg_id)

    @property
    def group(self) -> Group:
        return (self.topic, self.stance)


@dataclass(frozen=True, slots=True)
class KeyPoint:
    """One expert key point of ArgKP, for one (topic, stance)."""

    split: str
    kp_id: str
    text: str
    topic: str
    stance: int
    line: int | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.split, self.kp_id)

    @property
    def group(self) -> Group:
        return (self.topic, self.stance)


@dataclass(frozen=True)
class KPAData:
    """One split of ArgKP: arguments, key points and the decided labels.

    Attributes
    ----------
    split : str
        ``"train"``, ``"dev"``, ``"test"`` or any name the files use.
    arguments : Mapping[str, KPArgument]
        By ``arg_id``, in file order.
    key_points : Mapping[str, KeyPoint]
        By ``key_point_id``, in file order.
    labels : Mapping[tuple[str, str], int]
        ``(arg_id, key_point_id) -> 0 | 1``; undecided pairs are absent.
    source : str | None
        The directory the split was read from.
    labelled : bool
        False when the labels were not read (unlabelled data, or system key points).
    """

    split: str
    arguments: Mapping[str, KPArgument]
    key_points: Mapping[str, KeyPoint]
    labels: Mapping[tuple[str, str], int] = field(default_factory=dict)
    source: str | None = None
    labelled: bool = True

    @cached_property
    def groups(self) -> Mapping[Group, tuple[tuple[str, ...], tuple[str, ...]]]:
        """``(topic, stance) -> (arg_ids, kp_ids)``, both in file order; groups in first-seen order.

        Groups with arguments but no key points (or the reverse) are included with an empty side.
        """
        args: dict[Group, list[str]] = {}
        kps: dict[Group, list[str]] = {}
        for a in self.arguments.values():
            args.setdefault(a.group, []).append(a.arg_id)
            kps.setdefault(a.group, [])
        for k in self.key_points.values():
            kps.setdefault(k.group, []).append(k.kp_id)
            args.setdefault(k.group, [])
        return MappingProxyType({g: (tuple(args[g]), tuple(kps[g])) for g in args})

    def candidate_key_points(self, arg_id: str) -> tuple[str, ...]:
        """The key points of the argument's (topic, stance): its Track 1 candidates."""
        return self.groups[self.arguments[arg_id].group][1]

    def candidate_pairs(self) -> Iterator[tuple[str, str]]:
        """Every (arg_id, kp_id) of the same topic and stance, in file order."""
        for arg_ids, kp_ids in self.groups.values():
            for a in arg_ids:
                for k in kp_ids:
                    yield (a, k)

    def label(self, arg_id: str, kp_id: str) -> int | None:
        """1 / 0 for a decided pair, ``None`` for an undecided (unlabelled) one."""
        return self.labels.get((arg_id, kp_id))

    def gold_predictions(self, *, undecided: float = 0.5) -> dict[str, dict[str, float]]:
        """Predictions derived from the labels: 1.0 for matches, 0.0 for non-matches and
        ``undecided`` for unlabelled same-group pairs. Scored by Track 1 they give the best
        attainable value (plain AP = 1 in every group with a positive among kept pairs)."""
        out: dict[str, dict[str, float]] = {}
        for a, k in self.candidate_pairs():
            lab = self.labels.get((a, k))
            out.setdefault(a, {})[k] = float(lab) if lab is not None else float(undecided)
        return out


def find_kpa_dir(path: str | os.PathLike[str] | None = None, split: str = "dev") -> Path:
    """The directory holding ``arguments_<split>.csv``.

    ``path`` may be that directory itself, a checkout of the shared-task repository (with
    ``kpm_data/`` and ``test_data/``), or an ``ARGFAITH_DATA`` root (with ``kpa2021/kpm_data``);
    ``None`` means ``$ARGFAITH_DATA``.

    Raises
    ------
    ConfigurationError
        No directory configured, or none of the candidate places holds the split's files.
    """
    root = data_dir(path)
    assert root is not None  # required=True
    candidates = [root, root / "kpm_data", root / "test_data", root / KPA_SUBDIR, root / "kpa2021" / "test_data"]
    for c in candidates:
        if (c / f"arguments_{split}.csv").is_file():
            return c
    raise ConfigurationError(
        f"no KPA split {split!r} under {root}: expected arguments_{split}.csv there or in "
        f"kpm_data/, test_data/ or {KPA_SUBDIR}/"
    )


def _rows(path: Path, columns: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """(line, row) for each record; checks the header names the required columns."""
    # read_text: errors name the file and line; a BOM from spreadsheet exports is dropped
    with io.StringIO(read_text(path, what="KPA CSV file"), newline="") as fh:
        reader = csv.DictReader(fh)
        try:
            header = reader.fieldnames
            if header is None:
                raise DataFormatError(f"{path}: empty file (expected header {','.join(columns)})")
            missing = [c for c in columns if c not in header]
            if missing:
                raise DataFormatError(
                    f"{path}:1: missing column(s) {', '.join(missing)} (header is {','.join(header)})"
                )
            start = reader.line_num + 1
            for row in reader:
                if None in row:  # more fields than the header
                    raise DataFormatError(f"{path}:{start}: more fields than the header's {len(header)}")
                if any(row.get(c) is None for c in columns):
                    raise DataFormatError(f"{path}:{start}: fewer fields than the header's {len(header)}")
                yield start, row
                start = reader.line_num + 1  # physical line of the next record (quoted fields span lines)
        except csv.Error as e:
            raise DataFormatError(f"{path}:{reader.line_num}: malformed CSV: {e}") from e
        except UnicodeDecodeError as e:
            raise DataFormatError(f"{path}: not UTF-8 text: {e}") from e


def _stance(raw: str, path: Path, line: int) -> int:
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if value not in (1.0, -1.0):
        raise DataFormatError(f"{path}:{line}: stance must be 1 or -1, got {raw!r}")
    return int(value)


def _nonempty(row: dict[str, str], col: str, path: Path, line: int) -> str:
    value = row[col].strip()
    if not value:
        raise DataFormatError(f"{path}:{line}: empty {col}")
    return value


def load_kpa_arguments(path: str | os.PathLike[str], split: str) -> dict[str, KPArgument]:
    """Read ``arguments_<split>.csv``; ``arg_id -> KPArgument`` in file order.

    Raises
    ------
    DataFormatError
        Missing columns, empty id/text/topic, stance not in {1, -1}, duplicate ``arg_id``.
    """
    p = Path(path)
    out: dict[str, KPArgument] = {}
    for line, row in _rows(p, _ARG_COLUMNS):
        arg_id = _nonempty(row, "arg_id", p, line)
        if arg_id in out:
            raise DataFormatError(f"{p}:{line}: duplicate arg_id {arg_id!r} (first on line {out[arg_id].line})")
        out[arg_id] = KPArgument(
            split=split,
            arg_id=arg_id,
            text=_nonempty(row, "argument", p, line),
            topic=_nonempty(row, "topic", p, line),
            stance=_stance(row["stance"], p, line),
            line=line,
        )
    return out


def load_kpa_key_points(path: str | os.PathLike[str], split: str) -> dict[str, KeyPoint]:
    """Read ``key_points_<split>.csv`` (or a Track 2 system's key point file of the same layout)."""
    p = Path(path)
    out: dict[str, KeyPoint] = {}
    for line, row in _rows(p, _KP_COLUMNS):
        kp_id = _nonempty(row, "key_point_id", p, line)
        if kp_id in out:
            raise DataFormatError(f"{p}:{line}: duplicate key_point_id {kp_id!r} (first on line {out[kp_id].line})")
        out[kp_id] = KeyPoint(
            split=split,
            kp_id=kp_id,
            text=_nonempty(row, "key_point", p, line),
            topic=_nonempty(row, "topic", p, line),
            stance=_stance(row["stance"], p, line),
            line=line,
        )
    return out


def load_kpa_labels(
    path: str | os.PathLike[str],
    arguments: Mapping[str, KPArgument] | None = None,
    key_points: Mapping[str, KeyPoint] | None = None,
) -> dict[tuple[str, str], int]:
    """Read ``labels_<split>.csv``; ``(arg_id, key_point_id) -> 0 | 1``.

    When ``arguments`` / ``key_points`` are given, every label must refer to known ids of the
    same topic and stance.

    Raises
    ------
    DataFormatError
        Label not 0/1, duplicate pair, unknown id, or a pair across (topic, stance) groups.
    """
    p = Path(path)
    out: dict[tuple[str, str], int] = {}
    first: dict[tuple[str, str], int] = {}
    for line, row in _rows(p, _LABEL_COLUMNS):
        a = _nonempty(row, "arg_id", p, line)
        k = _nonempty(row, "key_point_id", p, line)
        raw = row["label"].strip()
        try:
            value = float(raw)
        except ValueError:
            value = float("nan")
        if value not in (0.0, 1.0):
            raise DataFormatError(f"{p}:{line}: label must be 0 or 1, got {raw!r} for ({a}, {k})")
        if (a, k) in out:
            raise DataFormatError(f"{p}:{line}: duplicate label for ({a}, {k}) (first on line {first[(a, k)]})")
        if arguments is not None and a not in arguments:
            raise DataFormatError(f"{p}:{line}: unknown arg_id {a!r} (not in the arguments file)")
        if key_points is not None and k not in key_points:
            raise DataFormatError(f"{p}:{line}: unknown key_point_id {k!r} (not in the key points file)")
        if arguments is not None and key_points is not None and arguments[a].group != key_points[k].group:
            raise DataFormatError(
                f"{p}:{line}: ({a}, {k}) pairs an argument and a key point of different topic/stance"
            )
        out[(a, k)] = int(value)
        first[(a, k)] = line
    return out


def load_kpa(
    path: str | os.PathLike[str] | None = None,
    split: str = "dev",
    *,
    key_points_file: str | os.PathLike[str] | None = None,
    labels: bool = True,
) -> KPAData:
    """Load one split of ArgKP.

    Parameters
    ----------
    path
        The ``kpm_data`` directory, a shared-task checkout, or an ``ARGFAITH_DATA`` root
        (see :func:`find_kpa_dir`); ``None`` uses ``$ARGFAITH_DATA``.
    split
        ``"train"``, ``"dev"`` or ``"test"``.
    key_points_file
        Use these key points instead of ``key_points_<split>.csv`` (Track 2 system output);
        labels are then not read, since they refer to the gold key points.
    labels
        Read ``labels_<split>.csv`` (set False for unlabelled data).

    Examples
    --------
    >>> data = load_kpa("tests/fixtures/kpa", "dev")  # doctest: +SKIP
    >>> data.groups[("Topic", 1)]  # doctest: +SKIP
    """
    d = find_kpa_dir(path, split)
    arguments = load_kpa_arguments(d / f"arguments_{split}.csv", split)
    kp_path = Path(key_points_file) if key_points_file is not None else d / f"key_points_{split}.csv"
    if not kp_path.is_file():
        raise ConfigurationError(f"key points file not found: {kp_path}")
    key_points = load_kpa_key_points(kp_path, split)
    lab: dict[tuple[str, str], int] = {}
    if labels and key_points_file is None:
        lp = d / f"labels_{split}.csv"
        if not lp.is_file():
            raise ConfigurationError(f"labels file not found: {lp} (pass labels=False for unlabelled data)")
        lab = load_kpa_labels(lp, arguments, key_points)
    return KPAData(
        split=split,
        arguments=MappingProxyType(arguments),
        key_points=MappingProxyType(key_points),
        labels=MappingProxyType(lab),
        source=str(d),
        labelled=labels and key_points_file is None,
    )
