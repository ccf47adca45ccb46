"""Supplementary metrics over an alignment of speech arguments (PAPER.md §5, "Supplementary").

Given an :class:`~argfaith.metrics.alignment.Alignment` that says which summary argument restates
which source argument, the intersection X_s ∩ X_s* is made concrete:

* π_sap, supplementary precision = |X_s ∩ X_s*| / |X_s*| — here the number of summary speech
  arguments that have at least one aligned source argument, over |X_s*|;
* π_sar, supplementary recall = |X_s ∩ X_s*| / |X_s| — the number of source speech arguments with
  at least one aligned summary argument, over |X_s|;
* π_pcc, pro-con consistency = the share of aligned pairs (a, a*) such that, for every shared
  proposal x, a ∈ pro(x) ⇔ a* ∈ pro*(x) and a ∈ con(x) ⇔ a* ∈ con*(x).

For a one-to-one alignment (what the built-in methods produce) the two numerators coincide and
equal the number of pairs, which is the paper's |X_s ∩ X_s*|; many-to-many alignments (e.g. from
a file) are counted per side as stated. A ratio with denominator 0 is ``None``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from argfaith.errors import DataFormatError
from argfaith.metrics.proposals import OnMismatch, match_proposals
from argfaith.qbaf import pro_con_sets

if TYPE_CHECKING:
    from argfaith.metrics.alignment import Alignment
    from argfaith.qbaf import QBAF, ProCon

__all__ = [
    "RatioResult",
    "ProConConsistency",
    "supplementary_precision",
    "supplementary_recall",
    "pro_con_consistency",
    "check_alignment",
]


@dataclass(frozen=True)
class RatioResult:
    """A ratio metric with its numerator and denominator (``value`` None when 0/0)."""

    metric: str
    symbol: str
    value: float | None
    numerator: int
    denominator: int


@dataclass(frozen=True)
class ProConConsistency:
    """π_pcc with per-pair verdicts.

    Attributes
    ----------
    value : float or None
        Share of consistent pairs; None when the alignment is empty.
    consistent : Mapping[tuple[str, str], bool]
        Per aligned (source id, summary id) pair.
    proposals : tuple of str
        The shared proposals checked.
    """

    value: float | None
    consistent: Mapping[tuple[str, str], bool] = field(default_factory=lambda: MappingProxyType({}))
    proposals: tuple[str, ...] = ()
    metric: str = "pro_con_consistency"
    symbol: str = "π_pcc"

    @property
    def n_pairs(self) -> int:
        return len(self.consistent)

    @property
    def inconsistent(self) -> tuple[tuple[str, str], ...]:
        return tuple(k for k, ok in self.consistent.items() if not ok)


def check_alignment(q_star: QBAF, q: QBAF, alignment: Alignment) -> None:
    """Every pair must join a speech argument of Q (source) to a speech argument of Q*
    (summary); raises :class:`DataFormatError` naming the first offending id otherwise."""
    src = set(q.speech_arguments)
    summ = set(q_star.speech_arguments)
    for p in alignment.pairs:
        if p.source_id not in src:
            raise DataFormatError(f"alignment ({alignment.method}): source id {p.source_id!r} is not a speech argument of the source QBAF")
        if p.summary_id not in summ:
            raise DataFormatError(f"alignment ({alignment.method}): summary id {p.summary_id!r} is not a speech argument of the summary QBAF")


def supplementary_precision(q_star: QBAF, q: QBAF, alignment: Alignment) -> RatioResult:
    """Supplementary precision π_sap(Q*, Q) = |X_s ∩ X_s*| / |X_s*| (PAPER.md §5): the share of
    summary speech arguments aligned to some source speech argument."""
    check_alignment(q_star, q, alignment)
    k, n = len(alignment.summary_ids), len(q_star.speech_arguments)
    return RatioResult("supplementary_precision", "π_sap", k / n if n else None, k, n)


def supplementary_recall(q_star: QBAF, q: QBAF, alignment: Alignment) -> RatioResult:
    """Supplementary recall π_sar(Q*, Q) = |X_s ∩ X_s*| / |X_s| (PAPER.md §5): the share of
    source speech arguments aligned to some summary speech argument."""
    check_alignment(q_star, q, alignment)
    k, n = len(alignment.source_ids), len(q.speech_arguments)
    return RatioResult("supplementary_recall", "π_sar", k / n if n else None, k, n)


def pro_con_consistency(
    q_star: QBAF,
    q: QBAF,
    alignment: Alignment,
    *,
    proposals: Iterable[str] | None = None,
    on_mismatch: OnMismatch = "error",
    summary_procon: Mapping[str, ProCon] | None = None,
    source_procon: Mapping[str, ProCon] | None = None,
) -> ProConConsistency:
    """Pro-con consistency π_pcc(Q*, Q) (PAPER.md §5).

    The share of aligned pairs (a, a*) whose pro and con membership with respect to every shared
    proposal is the same: for all x, (a ∈ pro(x), a ∈ con(x)) = (a* ∈ pro*(x), a* ∈ con*(x)).
    ``*_procon`` may pass precomputed :func:`argfaith.qbaf.pro_con_sets`.
    """
    check_alignment(q_star, q, alignment)
    ps = tuple(proposals) if proposals is not None else match_proposals(q, q_star, on_mismatch=on_mismatch).shared
    pc = source_procon if source_procon is not None else pro_con_sets(q, ps)
    pc_star = summary_procon if summary_procon is not None else pro_con_sets(q_star, ps)
    verdict: dict[tuple[str, str], bool] = {}
    for pair in alignment.pairs:
        a, b = pair.source_id, pair.summary_id
        verdict[(a, b)] = all(
            (a in pc[x].pro, a in pc[x].con) == (b in pc_star[x].pro, b in pc_star[x].con) for x in ps
        )
    n = len(verdict)
    return ProConConsistency(
        value=sum(verdict.values()) / n if n else None,
        consistent=MappingProxyType(verdict),
        proposals=ps,
    )
