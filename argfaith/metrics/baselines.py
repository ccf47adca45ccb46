"""Trivial summaries a real summary must beat: the empty summary's value of every pairwise metric.

The **empty summary** Q*_∅ keeps the proposal arguments of Q* and has no speech argument (a
summary that says nothing). Under any gradual semantics whose strength of an argument without
attackers and supporters is its base score (DF-QuAD, PAPER.md §2, and every semantics of
:mod:`argfaith.qbaf.semantics`), σ*_∅(p) = τ(p) — 0.5 for proposal arguments (Definition 1) —
and every proposal is unattacked, hence in the grounded extension and credulously d-preferred
accepted (PAPER.md §4). So its metrics against Q need no computation on Q*_∅ at all:

====================  =========================================================================
metric                value for the empty summary
====================  =========================================================================
π_dpc                 share of shared proposals that Q accepts
π_bc                  share of shared proposals whose σ(p) is on the same side of 0.5 as τ(p)
                      (with τ(p) = 0.5: σ(p) within the tolerance of 0.5)
π_εa                  share of shared proposals with |σ(p) − τ(p)| ≤ ε (+ tolerance)
π_sap, π_pcc          undefined (no summary speech argument; no aligned pair)
π_sar, π_cov          0 (undefined when Q has no speech argument)
====================  =========================================================================

FINDINGS.md §11: on real EP summaries mined offline, the empty summary beats the real one on
π_εa in 10 of 12 cases — a number that is not better than the empty summary's says nothing
about the summary. The report carries these values (``pairwise.baselines.empty_summary``) and the
renderers flag every metric on which a summary does not beat them (:func:`beats`).

>>> v = empty_summary_values({"p1": 0.4}, {"p1": 0.5}, accepted=set(), epsilon=0.1)
>>> v["balance_consistency"], v["epsilon_accuracy"], v["d_preferability_consistency"]
(0.0, 1.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from argfaith.metrics.faithfulness import DEFAULT_TOLERANCE, balance_side

__all__ = ["EMPTY_SUMMARY", "WRONG_DEBATE", "BASELINE_TITLES", "empty_summary_values", "beats", "not_better_words"]

#: Key of the empty summary in ``pairwise.baselines``.
EMPTY_SUMMARY = "empty_summary"
#: Key of the wrong-debate summary (a summary of another debate, mined against this one's
#: provisions; computed by ``argfaith selftest``) in tables that carry it.
WRONG_DEBATE = "wrong_debate"
#: Words for each baseline in reports.
BASELINE_TITLES = {EMPTY_SUMMARY: "the empty summary", WRONG_DEBATE: "a summary of another debate"}


def _share(flags: list[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def empty_summary_values(
    source_strengths: Mapping[str, float],
    base_scores: Mapping[str, float],
    *,
    accepted: Collection[str],
    epsilon: float,
    tolerance: float = DEFAULT_TOLERANCE,
    n_source_speech: int | None = None,
    alignment: bool = False,
    coverage: bool = False,
) -> dict[str, float | None]:
    """The pairwise metrics of the empty summary against Q (module docstring).

    ``source_strengths``: σ of every shared proposal in Q; ``base_scores``: τ(p) of the same
    proposals in Q* (σ*_∅(p)); ``accepted``: the proposals Q credulously accepts. With
    ``alignment`` the supplementary metrics are added (π_sap, π_pcc undefined; π_sar 0, or
    undefined when ``n_source_speech`` is 0), with ``coverage`` also π_cov.
    """
    ps = list(source_strengths)
    out: dict[str, float | None] = {
        "d_preferability_consistency": _share([p in accepted for p in ps]),
        "balance_consistency": _share([balance_side(source_strengths[p], tolerance) == balance_side(base_scores[p], tolerance) for p in ps]),
        "epsilon_accuracy": _share([abs(base_scores[p] - source_strengths[p]) <= epsilon + tolerance for p in ps]),
    }
    if alignment:
        zero = 0.0 if n_source_speech else None
        out.update(supplementary_precision=None, supplementary_recall=zero, pro_con_consistency=None)
        if coverage:
            out["argument_coverage"] = zero
    return out


def beats(value: float | None, baseline: float | None) -> bool | None:
    """Whether a summary's metric value is strictly higher than a baseline's (higher is better
    for every pairwise metric); ``None`` when either is undefined."""
    if value is None or baseline is None:
        return None
    return value > baseline + 1e-12


def not_better_words(value: float | None, baseline: float | None, which: str = EMPTY_SUMMARY) -> str:
    """Words for a value that does not beat a baseline — ``not better than the empty summary
    (0.73)`` — or ``""`` when it does (or either is undefined).

    >>> not_better_words(0.6, 0.73)
    'not better than the empty summary (0.73)'
    >>> not_better_words(0.8, 0.73)
    ''
    """
    if beats(value, baseline) is False:
        return f"not better than {BASELINE_TITLES[which]} ({baseline:.2f})"
    return ""
