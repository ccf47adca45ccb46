"""KPA 2021 Track 1 (key point matching) scorer: strict and relaxed mAP.

The official procedure (PAPER.md §9; github.com/IBM/KPA_2021_shared_task, README "Evaluation" and
``code/track_1_kp_matching.py``), restated:

1. Each argument is paired with its highest-scoring key point among the key points of its own
   topic and stance that the predictions score.
2. Per (topic, stance) group, the pairs are sorted by score and only the top
   ``floor(0.5 · n_arguments)`` are kept (an argument set always holds unique claims that match
   no key point).
3. Average precision of the kept pairs against the labels, where an *undecided* pair (absent
   from the labels file) is a no-match for the **strict** score and a match for the **relaxed**
   one. AP is scikit-learn's ``average_precision_score``: AP = Σₙ (Rₙ − Rₙ₋₁) · Pₙ over the
   distinct score thresholds, so pairs with equal scores enter the curve together. A group with
   no positive among its kept pairs has AP = 0.
4. mAP = unweighted mean of the group APs.

Two AP variants appeared in the history of the official script; both are computed:

- ``plain``: the AP of step 3. This is the published version of the script (and the one of
  ``e09636f``, its typed refactor), and the one the leaderboard reports.
- ``scaled``: that AP multiplied by the share of kept pairs that are positive
  (``AP · positives_kept / n_kept``), which another version of the script used to turn the
  precision-only AP into a retrieval-like score. Its ceiling is below 1 whenever fewer than
  half of a group's arguments have a matching key point.

Deterministic tie handling (the official script picks at random, seed 42, so its value can
differ from ours only when there are ties):

- best key point: among equally scored key points the one listed first in the key points file;
- top-50% cut: pairs with equal scores keep the order of the arguments file (stable sort), so
  a tie block that straddles the cut is kept in file order. :attr:`KPAGroupScore.tied_at_cut`
  reports how many pairs of such a block were dropped, and :attr:`KPAScore.tied_best` how many
  arguments had tied best key points, so the user can see when ties decided the value.

Edge policies (documented departures where the script versions disagree): an argument for
which no valid key point is scored gets no key point, score 0 and label no-match (strict and
relaxed), as in the released script's ``dummy_id`` (without its later re-scoring of dummies
to 0.99 inside the kept set); predictions for key points of another topic/stance or unknown ids
are ignored and counted; predictions for unknown arguments are ignored and listed; groups with
key points but no arguments are skipped.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from argfaith.datasets.kpa import KPAData
from argfaith.errors import DataFormatError

__all__ = [
    "APVariant",
    "AP_VARIANTS",
    "KPAPair",
    "KPAGroupScore",
    "KPAScore",
    "average_precision",
    "scaled_average_precision",
    "best_key_points",
    "kpa_track1_score",
    "load_kpa_predictions",
    "save_kpa_predictions",
    "validate_kpa_predictions",
]

APVariant = Literal["plain", "scaled"]
AP_VARIANTS: tuple[APVariant, ...] = ("plain", "scaled")

Predictions = Mapping[str, Mapping[str, float]]


def average_precision(labels: Sequence[int | bool], scores: Sequence[float]) -> float:
    """Average precision with tied scores treated as one threshold (scikit-learn's definition).

    AP = Σₙ (Rₙ − Rₙ₋₁) · Pₙ, where n runs over the distinct scores in decreasing order and Pₙ,
    Rₙ are precision and recall of "score ≥ threshold n". Returns 0.0 when there is no positive
    (the official KPA script's guard; scikit-learn would warn and return an undefined value).

    Examples
    --------
    >>> average_precision([1, 0, 1], [0.9, 0.8, 0.7])
    0.8333333333333333
    >>> average_precision([0, 1], [0.5, 0.5])  # one tied threshold: P = 1/2 at R = 1
    0.5
    """
    if len(labels) != len(scores):
        raise ValueError(f"labels ({len(labels)}) and scores ({len(scores)}) differ in length")
    total = sum(1 for y in labels if y)
    if total == 0:
        return 0.0
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    ap = 0.0
    tp = 0
    prev_recall = 0.0
    i = 0
    n = len(order)
    while i < n:
        # consume the whole block of equal scores: they share one threshold
        j = i
        s = scores[order[i]]
        while j < n and scores[order[j]] == s:
            tp += 1 if labels[order[j]] else 0
            j += 1
        recall = tp / total
        ap += (recall - prev_recall) * (tp / j)
        prev_recall = recall
        i = j
    return ap


def scaled_average_precision(labels: Sequence[int | bool], scores: Sequence[float]) -> float:
    """The ``scaled`` variant: :func:`average_precision` × (positives / pairs); 0.0 if empty."""
    if not labels:
        return 0.0
    return average_precision(labels, scores) * sum(1 for y in labels if y) / len(labels)


@dataclass(frozen=True, slots=True)
class KPAPair:
    """An argument with its best key point (``kp_id`` None = no key point scored)."""

    arg_id: str
    kp_id: str | None
    score: float
    label_strict: int
    label_relaxed: int
    kept: bool = False

    @property
    def undecided(self) -> bool:
        return self.label_strict != self.label_relaxed


@dataclass(frozen=True)
class KPAGroupScore:
    """Track 1 result of one (topic, stance) group.

    ``ap_*`` are the ``plain`` AP, ``ap_*_scaled`` the ``scaled`` one. ``n_positive_*`` count
    positives among the kept pairs; ``tied_at_cut`` counts pairs dropped from a tie block that
    straddles the 50% cut.
    """

    topic: str
    stance: int
    n_arguments: int
    n_key_points: int
    n_kept: int
    n_positive_strict: int
    n_positive_relaxed: int
    n_undecided_kept: int
    ap_strict: float
    ap_relaxed: float
    ap_strict_scaled: float
    ap_relaxed_scaled: float
    tied_at_cut: int
    pairs: tuple[KPAPair, ...] = field(default=(), repr=False)

    def ap(self, relaxed: bool = False, variant: APVariant = "plain") -> float:
        if variant == "plain":
            return self.ap_relaxed if relaxed else self.ap_strict
        return self.ap_relaxed_scaled if relaxed else self.ap_strict_scaled


@dataclass(frozen=True)
class KPAScore:
    """KPA 2021 Track 1 scores of one predictions set on one split, with diagnostics.

    Attributes
    ----------
    map_strict, map_relaxed :
        mAP with the ``plain`` AP (the leaderboard's numbers).
    map_strict_scaled, map_relaxed_scaled :
        mAP with the ``scaled`` AP.
    groups :
        Per (topic, stance) results, in the order of the arguments file.
    n_arguments, n_predicted_arguments :
        Arguments of the split / arguments with at least one valid scored key point.
    unpredicted_arguments :
        Arguments without any valid prediction (scored as "no key point", label no-match).
    unknown_arguments :
        Prediction keys that are not arguments of the split (ignored).
    ignored_pairs :
        Predicted pairs whose key point is unknown or of another topic/stance (ignored).
    tied_best :
        Arguments whose best score is shared by several key points (file order decides).
    """

    split: str
    top_fraction: float
    map_strict: float
    map_relaxed: float
    map_strict_scaled: float
    map_relaxed_scaled: float
    groups: tuple[KPAGroupScore, ...]
    n_arguments: int
    n_predicted_arguments: int
    unpredicted_arguments: tuple[str, ...]
    unknown_arguments: tuple[str, ...]
    ignored_pairs: int
    tied_best: int

    def map(self, relaxed: bool = False, variant: APVariant = "plain") -> float:
        if variant == "plain":
            return self.map_relaxed if relaxed else self.map_strict
        return self.map_relaxed_scaled if relaxed else self.map_strict_scaled

    def to_dict(self, *, pairs: bool = False) -> dict[str, Any]:
        """JSON-ready summary (per-pair detail only when ``pairs``)."""
        d = asdict(self)
        for g in d["groups"]:
            if pairs:
                g["pairs"] = [dict(p) for p in g["pairs"]]
            else:
                g.pop("pairs")
        d["unpredicted_arguments"] = list(self.unpredicted_arguments)
        d["unknown_arguments"] = list(self.unknown_arguments)
        return d


def validate_kpa_predictions(raw: Any, *, source: str = "<predictions>") -> dict[str, dict[str, float]]:
    """Check the Track 1 predictions shape ``{arg_id: {kp_id: score}}`` and return a copy.

    Raises
    ------
    DataFormatError
        Not an object of objects, or a score that is not a finite number (names arg and kp).
    """
    if not isinstance(raw, Mapping):
        raise DataFormatError(f"{source}: expected a JSON object {{arg_id: {{kp_id: score}}}}, got {type(raw).__name__}")
    out: dict[str, dict[str, float]] = {}
    for arg_id, kps in raw.items():
        if not isinstance(kps, Mapping):
            raise DataFormatError(
                f"{source}: argument {arg_id!r}: expected an object {{kp_id: score}}, got {type(kps).__name__}"
            )
        row: dict[str, float] = {}
        for kp_id, score in kps.items():
            # bool is an int subclass; a true/false "score" is a format error, not 1/0
            if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                raise DataFormatError(
                    f"{source}: argument {arg_id!r}, key point {kp_id!r}: score must be a finite number, got {score!r}"
                )
            row[str(kp_id)] = float(score)
        out[str(arg_id)] = row
    return out


def load_kpa_predictions(path: str | os.PathLike[str]) -> dict[str, dict[str, float]]:
    """Read a Track 1 predictions JSON file (the shared task's ``predictions.p``)."""
    from argfaith.textio import read_json

    p = Path(path)
    return validate_kpa_predictions(read_json(p, what="predictions file"), source=str(p))


def save_kpa_predictions(predictions: Predictions, path: str | os.PathLike[str]) -> None:
    """Write predictions as JSON (atomically: a temporary file renamed into place)."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps({a: dict(k) for a, k in predictions.items()}, indent=1), encoding="utf-8")
    os.replace(tmp, p)


def best_key_points(
    predictions: Predictions, data: KPAData
) -> tuple[dict[str, tuple[str | None, float]], int, int]:
    """Step 1: each argument's best key point among scored same-group key points.

    Returns ``(best, ignored_pairs, tied_best)`` where ``best[arg_id] = (kp_id | None, score)``
    for every argument of ``data`` (``(None, 0.0)`` when none is scored). Ties go to the key
    point listed first in the key points file.
    """
    kp_rank = {k: i for i, k in enumerate(data.key_points)}
    best: dict[str, tuple[str | None, float]] = {}
    ignored = 0
    tied = 0
    for arg_id, arg in data.arguments.items():
        scored = predictions.get(arg_id, {})
        top: tuple[str | None, float] = (None, 0.0)
        top_rank = -1
        n_top = 0
        for kp_id, score in scored.items():
            kp = data.key_points.get(kp_id)
            if kp is None or kp.group != arg.group:
                ignored += 1
                continue
            r = kp_rank[kp_id]
            if top[0] is None or score > top[1]:
                top, top_rank, n_top = (kp_id, score), r, 1
            elif score == top[1]:
                n_top += 1
                if r < top_rank:
                    top, top_rank = (kp_id, score), r
        best[arg_id] = top
        tied += n_top > 1
    return best, ignored, tied


def kpa_track1_score(
    predictions: Predictions,
    data: KPAData,
    *,
    top_fraction: float = 0.5,
) -> KPAScore:
    """Score Track 1 predictions: strict / relaxed mAP, ``plain`` and ``scaled`` AP variants.

    Parameters
    ----------
    predictions
        ``{arg_id: {kp_id: score}}``; higher = more likely a match. Use
        :func:`validate_kpa_predictions` first on untrusted input.
    data
        The labelled split (:func:`argfaith.datasets.kpa.load_kpa`).
    top_fraction
        Share of each group's arguments kept for evaluation (official: 0.5; kept =
        ``floor(top_fraction · n)``).

    Returns
    -------
    KPAScore
        See the module docstring for the procedure, both AP variants and the tie policy.

    Examples
    --------
    >>> from argfaith.datasets.kpa import load_kpa
    >>> data = load_kpa("tests/fixtures/kpa", "dev")  # doctest: +SKIP
    >>> kpa_track1_score(data.gold_predictions(), data).map_strict  # doctest: +SKIP
    """
    if not 0.0 < top_fraction <= 1.0:
        raise ValueError(f"top_fraction must be in (0, 1], got {top_fraction}")
    if not data.labelled:
        raise DataFormatError(f"split {data.split!r} was loaded without labels: Track 1 needs labels_{data.split}.csv")
    best, ignored, tied = best_key_points(predictions, data)
    groups: list[KPAGroupScore] = []
    for (topic, stance), (arg_ids, kp_ids) in data.groups.items():
        if not arg_ids:
            continue  # key points without arguments: nothing to rank (the official groupby skips them too)
        pairs = []
        for a in arg_ids:
            kp_id, score = best[a]
            lab = data.labels.get((a, kp_id)) if kp_id is not None else 0
            pairs.append(
                KPAPair(
                    arg_id=a,
                    kp_id=kp_id,
                    score=score,
                    label_strict=0 if lab is None else lab,
                    label_relaxed=1 if lab is None else lab,
                )
            )
        # stable sort: equal scores keep arguments-file order (the documented tie policy)
        order = sorted(range(len(pairs)), key=lambda i: -pairs[i].score)
        n_keep = int(len(pairs) * top_fraction)
        kept_idx = order[:n_keep]
        tied_at_cut = 0
        if 0 < n_keep < len(order):
            boundary = pairs[order[n_keep - 1]].score
            tied_at_cut = sum(1 for i in order[n_keep:] if pairs[i].score == boundary)
        kept_set = set(kept_idx)
        pairs = [
            KPAPair(p.arg_id, p.kp_id, p.score, p.label_strict, p.label_relaxed, i in kept_set)
            for i, p in enumerate(pairs)
        ]
        kept = [pairs[i] for i in kept_idx]
        ys = [p.label_strict for p in kept]
        yr = [p.label_relaxed for p in kept]
        sc = [p.score for p in kept]
        groups.append(
            KPAGroupScore(
                topic=topic,
                stance=stance,
                n_arguments=len(arg_ids),
                n_key_points=len(kp_ids),
                n_kept=len(kept),
                n_positive_strict=sum(ys),
                n_positive_relaxed=sum(yr),
                n_undecided_kept=sum(1 for p in kept if p.undecided),
                ap_strict=average_precision(ys, sc),
                ap_relaxed=average_precision(yr, sc),
                ap_strict_scaled=scaled_average_precision(ys, sc),
                ap_relaxed_scaled=scaled_average_precision(yr, sc),
                tied_at_cut=tied_at_cut,
                pairs=tuple(pairs),
            )
        )

    def mean(values: list[float]) -> float:
        return sum(values) / len(values) if values else 0.0

    unpredicted = tuple(a for a, (k, _) in best.items() if k is None)
    unknown = tuple(a for a in predictions if a not in data.arguments)
    return KPAScore(
        split=data.split,
        top_fraction=top_fraction,
        map_strict=mean([g.ap_strict for g in groups]),
        map_relaxed=mean([g.ap_relaxed for g in groups]),
        map_strict_scaled=mean([g.ap_strict_scaled for g in groups]),
        map_relaxed_scaled=mean([g.ap_relaxed_scaled for g in groups]),
        groups=tuple(groups),
        n_arguments=len(data.arguments),
        n_predicted_arguments=len(data.arguments) - len(unpredicted),
        unpredicted_arguments=unpredicted,
        unknown_arguments=unknown,
        ignored_pairs=ignored,
        tied_best=tied,
    )
