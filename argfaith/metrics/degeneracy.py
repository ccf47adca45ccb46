"""Degeneracy warnings: when a report's numbers carry little information, say so in the report.

Measured on EP debates (FINDINGS.md §7; ``argfaith selftest``): dense mined graphs make
d-preferred semantics accept almost no proposal, cyclic summaries make every pro-con ratio 1,
sparse summary graphs leave most proposals at their base score, and a relation classifier whose
edge density is far from labelled data distorts every strength. None of this is visible in the
metric values themselves; :func:`degeneracy_warnings` turns each condition into one sentence that
says what it means for the numbers. The thresholds are documented constants, not tuned per run.

=========================  ===================================================================
condition                  what the warning says
=========================  ===================================================================
source accepts < 10 %      π_dpc mostly measures the summary graph's own acceptance
π_pcr = 1 (or 0) for all   the pro-con ratio carries no information on that side
≥ 50 % of σ* at the base   the summary graph does not touch most proposals; π_bc / π_εa then
                           compare σ against an untouched base score
edge density off ×2        share of candidate pairs that became edges (or the attack share)
                           is outside [½×, 2×] of the labelled EP corpus
> 20 % of summary          the summary QBAF saturates (issue 21: all ordered pairs make support
arguments at σ ≥ 0.99      cycles): σ* is nearly binary, a fabricated support cannot raise what
                           is already 1 and an omission cannot lower it while one saturated
                           supporter remains
=========================  ===================================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["degeneracy_warnings", "is_debate_warning", "saturation", "REFERENCE_DENSITY", "ACCEPTANCE_FLOOR", "BASE_SCORE_SHARE",
           "DENSITY_FACTOR", "MIN_PROPOSALS", "SATURATED", "SATURATION_SHARE"]

#: Below this share of credulously accepted proposals in the source, π_dpc is flagged.
ACCEPTANCE_FLOOR = 0.10
#: At or above this share of summary strengths exactly at the proposal base score, π_bc/π_εa are flagged.
BASE_SCORE_SHARE = 0.5
#: Relation density outside [1/F, F] × the labelled reference is flagged.
DENSITY_FACTOR = 2.0
#: Share-based warnings need at least this many proposals (with fewer, a share is too coarse).
MIN_PROPOSALS = 5
#: A summary argument whose strength reaches this is saturated.
SATURATED = 0.99
#: Above this share of saturated summary arguments the summary QBAF is flagged.
SATURATION_SHARE = 0.20


def saturation(qbaf: Any, strengths: Mapping[str, float], *, tolerance: float = 1e-9) -> dict[str, Any]:
    """How saturated a summary QBAF is: speech arguments at σ ≥ :data:`SATURATED`, and proposals
    whose σ* sits exactly at 0.5 or at 1.0 (issue 21's measurement)."""
    speech = list(qbaf.speech_arguments)
    props = list(qbaf.proposals)
    sat = sum(1 for a in speech if strengths[a] >= SATURATED)
    return {
        "speech_arguments": len(speech), "saturated": sat,
        "saturated_share": sat / len(speech) if speech else None,
        "proposals": len(props),
        "sigma_at_half": sum(1 for p in props if abs(strengths[p] - 0.5) <= tolerance),
        "sigma_at_one": sum(1 for p in props if strengths[p] >= 1.0 - tolerance),
    }

#: Labelled densities of the EP relation corpus (data/ep_relations_llm, stats.json): the share of
#: candidate pairs that are related, and the share of attacks among related pairs, for debate
#: sources (exhaustive candidates of 45 uniformly drawn source arguments, 15 debates) and summaries
#: (every ordered pair of 12 summaries). Silver labels (two LLM annotators + adjudication).
REFERENCE_DENSITY: dict[str, dict[str, float]] = {
    "debate": {"related": 363 / 7472, "attack_share": 65 / 363},
    "summary": {"related": 1676 / 20226, "attack_share": 231 / 1676},
}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%" if x < 0.1 else f"{100 * x:.0f}%"


def _density_warning(role: str, genre: str, info: Mapping[str, Any], n_att: int, n_sup: int) -> list[str]:
    counts = (info or {}).get("counts") or {}
    pairs = counts.get("candidate_pairs_classified") or counts.get("candidate_pairs_all")
    ref = REFERENCE_DENSITY.get(genre, {})
    if not pairs or not ref.get("related"):
        return []
    out = []
    rel = (n_att + n_sup) / pairs
    lo, hi = ref["related"] / DENSITY_FACTOR, ref["related"] * DENSITY_FACTOR
    if not lo <= rel <= hi:
        out.append(
            f"relation density: {role} QBAF has {_pct(rel)} of its {pairs} candidate pairs as edges, labelled EP "
            f"{genre} pairs {_pct(ref['related'])}: the classifier's structure is far from labelled data, so strengths "
            "and acceptance reflect the classifier more than the text"
        )
    if n_att + n_sup >= 20 and ref.get("attack_share"):
        ash = n_att / (n_att + n_sup)
        a_lo, a_hi = ref["attack_share"] / DENSITY_FACTOR, min(1.0, ref["attack_share"] * DENSITY_FACTOR)
        if not a_lo <= ash <= a_hi:
            out.append(
                f"attack share: {_pct(ash)} of the {role} QBAF's edges are attacks, labelled EP {genre} pairs "
                f"{_pct(ref['attack_share'])}: proposal strengths are pushed {'down' if ash > a_hi else 'up'} by the classifier"
            )
    return out


def is_debate_warning(warning: str) -> bool:
    """True for a warning about the debate's QBAF alone (the same for every summary of the debate:
    reports show it once per debate, not once per summary)."""
    return warning.startswith("source ") or "source QBAF" in warning or "debate's QBAF" in warning


def degeneracy_warnings(source: Any, summary: Any, *, tolerance: float = 1e-9) -> list[str]:
    """Warnings for one (source, summary) evaluation.

    ``source`` and ``summary`` are :class:`~argfaith.metrics.evaluate.SideAnalysis` objects (the
    QBAF with its strengths, pro/con sets, acceptance and single-side report).
    """
    out: list[str] = []
    props = list(source.qbaf.proposals)
    n = len(props)
    if n < MIN_PROPOSALS:
        return out
    acc = sum(1 for p in props if p in source.accepted)
    if acc / n < ACCEPTANCE_FLOOR:
        out.append(
            f"source acceptance: the debate's QBAF credulously accepts {acc} of {n} proposals ({_pct(acc / n)}; "
            "a dense web of attacks): π_dpc then mostly measures which proposals the summary's own graph accepts"
        )
    for role, side in (("source", source), ("summary", summary)):
        vals = [v for v in side.report.pro_con_ratio.values() if v is not None]
        if len(vals) >= 3 and (all(v == 1.0 for v in vals) or all(v == 0.0 for v in vals)):
            out.append(
                f"pro-con ratio: π_pcr = {vals[0]:g} for every one of the {len(vals)} proposals with a defined ratio in the "
                f"{role} QBAF: the ratio carries no information there (either no attack reaches the proposals, or, with "
                "paths read as walks, every argument upstream of a cycle with an odd number of attacks is both pro and con)"
            )
    shared = [p for p in props if p in summary.report.strengths]
    if shared:
        at_base = sum(1 for p in shared if abs(summary.report.strengths[p] - summary.qbaf.argument(p).base_score) <= tolerance)
        if at_base / len(shared) >= BASE_SCORE_SHARE:
            out.append(
                f"untouched proposals: {at_base} of {len(shared)} proposals ({_pct(at_base / len(shared))}) keep σ* exactly at "
                "their base score in the summary's QBAF (no argument reaches them): π_bc and π_εa then compare the debate's "
                "σ with an untouched base score, not with what the summary says"
            )
    speech = list(summary.qbaf.speech_arguments)
    if len(speech) >= MIN_PROPOSALS:
        sat = saturation(summary.qbaf, summary.strengths, tolerance=tolerance)
        if sat["saturated_share"] > SATURATION_SHARE:
            out.append(
                f"saturated summary: {sat['saturated']} of {len(speech)} summary arguments ({_pct(sat['saturated_share'])}) reach "
                f"σ ≥ {SATURATED} (support cycles between summary sentences): σ* is then nearly binary — a fabricated support "
                "cannot raise a provision already at 1 and an omission cannot lower it while one saturated supporter remains "
                "(try --summary-pairs proposals or ordered)"
            )
    genres = (("source", "debate", source), ("summary", "summary", summary))
    for role, genre, side in genres:
        out += _density_warning(role, genre, side.qbaf.info, side.report.n_attacks, side.report.n_supports)
    return out
