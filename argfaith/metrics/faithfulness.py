"""The paper's argumentative faithfulness metrics (PAPER.md §5; Cunningham et al. 2026, §4).

Single-framework metrics of a debate QBAF Q (or a summary QBAF Q*):

* :func:`argument_relevance` — π_ar, the share of speech arguments with a path to a proposal;
* :func:`pro_con_ratio` / :func:`pro_con_ratios` / :func:`mean_pro_con_ratio` — π_pcr.

Pairwise metrics of a summary QBAF Q* against its source Q, each a share of proposals:

* :func:`d_preferability_consistency` — π_dpc (credulous d-preferred acceptance agrees);
* :func:`balance_consistency` — π_bc (σ on the same side of 0.5);
* :func:`epsilon_accuracy` — π_εa (|σ*(x) − σ(x)| ≤ ε).

Undefined cases follow one policy everywhere: a ratio whose denominator is 0 is ``None`` (never 0
or NaN), is excluded from means, and is counted in the result's diagnostics.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Union

from argfaith.metrics.proposals import OnMismatch, match_proposals
from argfaith.qbaf import (
    AcceptanceResult,
    StrengthResult,
    credulous_acceptance,
    dfquad_strengths,
    pro_con_sets,
    relevant_arguments,
)

if TYPE_CHECKING:
    from argfaith.qbaf import QBAF, ProCon

__all__ = [
    "DEFAULT_EPSILON",
    "DEFAULT_TOLERANCE",
    "RelevanceResult",
    "ProConRatio",
    "MeanProConRatio",
    "PairwiseResult",
    "argument_relevance",
    "pro_con_ratio",
    "pro_con_ratios",
    "mean_pro_con_ratio",
    "balance_side",
    "d_preferability_consistency",
    "balance_consistency",
    "epsilon_accuracy",
]

#: The paper's ε for π_εa.
DEFAULT_EPSILON = 0.1
#: Absolute tolerance for comparisons of strengths (around 0.5 in π_bc, around ε in π_εa), so
#: that floating-point noise such as 0.5000000000000001 does not flip a verdict.
DEFAULT_TOLERANCE = 1e-9

Strengths = Union[StrengthResult, Mapping[str, float]]

_EMPTY: Mapping[str, bool] = MappingProxyType({})


# ---------------------------------------------------------------------------- single QBAF
@dataclass(frozen=True)
class RelevanceResult:
    """π_ar(Q) with its counts.

    Attributes
    ----------
    value : float or None
        ``relevant / n_speech``; ``None`` when Q has no speech arguments (0/0 is undefined).
    relevant : int
        Speech arguments with a path to some proposal argument.
    n_speech : int
        |X_s|.
    irrelevant : tuple of str
        Speech arguments with no such path (in framework order).
    """

    value: float | None
    relevant: int
    n_speech: int
    irrelevant: tuple[str, ...] = ()


def argument_relevance(qbaf: QBAF) -> RelevanceResult:
    """Argument relevance π_ar(Q): the share of speech arguments with a path TO a proposal.

    PAPER.md §5. Erratum: the paper writes paths(x_j, x_i) from a proposal x_j to a speech
    argument x_i, but no edge leaves a proposal argument in a debate QBAF (Definition 1), so that
    reading is always empty; the intended — and implemented — direction is speech → proposal.

    Returns
    -------
    RelevanceResult
        ``value`` is ``None`` when there are no speech arguments.

    Examples
    --------
    >>> from argfaith.qbaf import QBAF, Argument
    >>> q = QBAF.from_arguments([Argument("p1", "proposal", 0.5), Argument("s1"), Argument("s2")],
    ...                         attacks=[("s1", "p1")], debate=True)
    >>> argument_relevance(q).value
    0.5
    """
    speech = qbaf.speech_arguments
    rel = relevant_arguments(qbaf)
    n = len(speech)
    k = sum(1 for s in speech if s in rel)
    return RelevanceResult(
        value=k / n if n else None,
        relevant=k,
        n_speech=n,
        irrelevant=tuple(s for s in speech if s not in rel),
    )


@dataclass(frozen=True)
class ProConRatio:
    """π_pcr(Q, x) of one proposal x with its counts.

    Attributes
    ----------
    proposal : str
    value : float or None
        ``n_pro / n_total``; ``None`` when no speech argument has a path to x.
    n_pro : int
        |pro(x) ∩ X_s|.
    n_con : int
        |con(x) ∩ X_s|.
    n_both : int
        Speech arguments in both pro(x) and con(x) (possible with cycles or two routes).
    n_total : int
        |(pro(x) ∪ con(x)) ∩ X_s|, the denominator.
    """

    proposal: str
    value: float | None
    n_pro: int
    n_con: int
    n_both: int
    n_total: int


def _ratio_from_procon(pc: ProCon, is_speech: Mapping[str, bool]) -> ProConRatio:
    pro = {a for a in pc.pro if is_speech.get(a, False)}
    con = {a for a in pc.con if is_speech.get(a, False)}
    total = len(pro | con)
    return ProConRatio(
        proposal=pc.target,
        value=len(pro) / total if total else None,
        n_pro=len(pro),
        n_con=len(con),
        n_both=len(pro & con),
        n_total=total,
    )


def _speech_map(qbaf: QBAF) -> dict[str, bool]:
    return dict(zip(qbaf.ids, (~qbaf.is_proposal).tolist()))


def pro_con_ratios(
    qbaf: QBAF,
    proposals: Iterable[str] | None = None,
    *,
    procon: Mapping[str, ProCon] | None = None,
) -> dict[str, ProConRatio]:
    """π_pcr(Q, x) for several proposals (default: every proposal of Q), in the given order.

    ``procon`` may pass precomputed :func:`argfaith.qbaf.pro_con_sets` to avoid recomputing them.
    """
    ps = qbaf.proposals if proposals is None else tuple(proposals)
    for p in ps:
        qbaf.idx(p)  # unknown ids raise UnknownArgumentError naming the id
    pcs = procon if procon is not None else pro_con_sets(qbaf, ps)
    speech = _speech_map(qbaf)
    return {p: _ratio_from_procon(pcs[p], speech) for p in ps}


def pro_con_ratio(qbaf: QBAF, proposal: str) -> ProConRatio:
    """Pro-con ratio π_pcr(Q, x) = |pro(x) ∩ X_s| / |(pro(x) ∪ con(x)) ∩ X_s| (PAPER.md §5).

    pro(x) / con(x) are the arguments with a path to x carrying an even / odd number of attacks
    (PAPER.md §3); an argument may be in both, so ``n_pro + n_con`` can exceed ``n_total``.
    The value is ``None`` (undefined) when the denominator is 0.

    Examples
    --------
    >>> from argfaith.qbaf import QBAF, Argument
    >>> q = QBAF.from_arguments([Argument("p1", "proposal", 0.5), Argument("s1"), Argument("s2")],
    ...                         attacks=[("s1", "p1")], supports=[("s2", "s1")], debate=True)
    >>> pro_con_ratio(q, "p1").value
    0.0
    """
    return pro_con_ratios(qbaf, (proposal,))[proposal]


@dataclass(frozen=True)
class MeanProConRatio:
    """Mean of π_pcr over proposals (the paper's Table 3 row "mean π_pcr").

    Attributes
    ----------
    value : float or None
        Mean over the proposals whose ratio is defined; ``None`` if none is.
    ratios : Mapping[str, ProConRatio]
        Per proposal, in order.
    undefined : tuple of str
        Proposals with an undefined ratio (no pro or con speech argument), excluded from the mean.
    """

    value: float | None
    ratios: Mapping[str, ProConRatio]
    undefined: tuple[str, ...]

    @property
    def n_defined(self) -> int:
        return len(self.ratios) - len(self.undefined)


def mean_pro_con_ratio(
    qbaf: QBAF,
    proposals: Iterable[str] | None = None,
    *,
    procon: Mapping[str, ProCon] | None = None,
) -> MeanProConRatio:
    """Mean π_pcr over the proposals (default: all), excluding undefined ratios (PAPER.md §5)."""
    ratios = pro_con_ratios(qbaf, proposals, procon=procon)
    defined = [r.value for r in ratios.values() if r.value is not None]
    return MeanProConRatio(
        value=sum(defined) / len(defined) if defined else None,
        ratios=MappingProxyType(ratios),
        undefined=tuple(p for p, r in ratios.items() if r.value is None),
    )


# ---------------------------------------------------------------------------- pairwise
@dataclass(frozen=True)
class PairwiseResult:
    """One pairwise metric π(Q*, Q): the share of proposals on which Q* agrees with Q.

    Attributes
    ----------
    metric : str
        Function name, e.g. ``"balance_consistency"``.
    symbol : str
        The paper's symbol, e.g. ``"π_bc"``.
    value : float or None
        ``n_agree / n_proposals``; ``None`` when there is no proposal to compare.
    agree : Mapping[str, bool]
        Per compared proposal, whether Q* agrees with Q.
    parameters : Mapping[str, float]
        The settings used (ε, tolerance).
    """

    metric: str
    symbol: str
    value: float | None
    agree: Mapping[str, bool] = field(default_factory=lambda: _EMPTY)
    parameters: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def n_proposals(self) -> int:
        return len(self.agree)

    @property
    def n_agree(self) -> int:
        return sum(self.agree.values())

    @property
    def disagreeing(self) -> tuple[str, ...]:
        """Proposals on which Q* disagrees with Q, in order."""
        return tuple(p for p, ok in self.agree.items() if not ok)


def _pairwise(metric: str, symbol: str, agree: dict[str, bool], **parameters: float) -> PairwiseResult:
    n = len(agree)
    return PairwiseResult(
        metric=metric,
        symbol=symbol,
        value=sum(agree.values()) / n if n else None,
        agree=MappingProxyType(agree),
        parameters=MappingProxyType(dict(parameters)),
    )


def _shared(q_star: QBAF, q: QBAF, proposals: Iterable[str] | None, on_mismatch: OnMismatch) -> tuple[str, ...]:
    if proposals is not None:
        ps = tuple(proposals)
        for p in ps:
            q.idx(p)
            q_star.idx(p)
        return ps
    return match_proposals(q, q_star, on_mismatch=on_mismatch).shared


def _strength_getter(qbaf: QBAF, given: Strengths | None) -> Mapping[str, float] | StrengthResult:
    return given if given is not None else dfquad_strengths(qbaf)


def d_preferability_consistency(
    q_star: QBAF,
    q: QBAF,
    *,
    proposals: Iterable[str] | None = None,
    on_mismatch: OnMismatch = "error",
    summary_acceptance: AcceptanceResult | None = None,
    source_acceptance: AcceptanceResult | None = None,
) -> PairwiseResult:
    """d-preferability consistency π_dpc(Q*, Q) (PAPER.md §5).

    The share of proposals of Q* whose credulous acceptance under d-preferred semantics
    (PAPER.md §4: member of at least one d-preferred extension) is the same in Q and Q*.

    Parameters
    ----------
    q_star, q : QBAF
        The summary QBAF Q* and the source QBAF Q (the paper's argument order).
    proposals : iterable of str, optional
        Proposals to compare; default: all, which must be the same in both (see ``on_mismatch``).
    on_mismatch : {"error", "intersection"}
        Policy when the proposal sets differ (:func:`argfaith.metrics.proposals.match_proposals`).
    summary_acceptance, source_acceptance : AcceptanceResult, optional
        Precomputed :func:`argfaith.qbaf.credulous_acceptance` results covering the proposals.
    """
    ps = _shared(q_star, q, proposals, on_mismatch)
    acc_star = summary_acceptance if summary_acceptance is not None else credulous_acceptance(q_star, ps)
    acc = source_acceptance if source_acceptance is not None else credulous_acceptance(q, ps)
    agree = {p: (p in acc_star.accepted) == (p in acc.accepted) for p in ps}
    return _pairwise("d_preferability_consistency", "π_dpc", agree)


def balance_side(sigma: float, tolerance: float = DEFAULT_TOLERANCE) -> int:
    """+1 if σ > 0.5, −1 if σ < 0.5, and 0 if |σ − 0.5| ≤ ``tolerance`` (balanced)."""
    d = sigma - 0.5
    if abs(d) <= tolerance:
        return 0
    return 1 if d > 0 else -1


def balance_consistency(
    q_star: QBAF,
    q: QBAF,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    proposals: Iterable[str] | None = None,
    on_mismatch: OnMismatch = "error",
    summary_strengths: Strengths | None = None,
    source_strengths: Strengths | None = None,
) -> PairwiseResult:
    """Balance consistency π_bc(Q*, Q) (PAPER.md §5).

    The share of proposals x with σ*(x) > 0.5 ⇔ σ(x) > 0.5 and σ*(x) < 0.5 ⇔ σ(x) < 0.5, i.e.
    whose DF-QuAD strengths lie on the same side of 0.5 — where "exactly 0.5" is a side of its
    own that must match exactly 0.5. A strength within ``tolerance`` (default 1e-9) of 0.5 counts
    as exactly 0.5 (:func:`balance_side`), so rounding noise cannot flip a verdict.

    ``summary_strengths`` / ``source_strengths`` may pass precomputed DF-QuAD strengths (a
    :class:`~argfaith.qbaf.StrengthResult` or ``{id: σ}``); otherwise they are computed with
    :func:`argfaith.qbaf.dfquad_strengths` defaults.
    """
    if not tolerance >= 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance!r}")
    ps = _shared(q_star, q, proposals, on_mismatch)
    s_star = _strength_getter(q_star, summary_strengths)
    s = _strength_getter(q, source_strengths)
    agree = {p: balance_side(s_star[p], tolerance) == balance_side(s[p], tolerance) for p in ps}
    return _pairwise("balance_consistency", "π_bc", agree, tolerance=tolerance)


def epsilon_accuracy(
    q_star: QBAF,
    q: QBAF,
    *,
    epsilon: float = DEFAULT_EPSILON,
    tolerance: float = DEFAULT_TOLERANCE,
    proposals: Iterable[str] | None = None,
    on_mismatch: OnMismatch = "error",
    summary_strengths: Strengths | None = None,
    source_strengths: Strengths | None = None,
) -> PairwiseResult:
    """ε-accuracy π_εa(Q*, Q) (PAPER.md §5): the share of proposals with |σ*(x) − σ(x)| ≤ ε.

    ε defaults to the paper's 0.1. The comparison is ``|σ*(x) − σ(x)| ≤ ε + tolerance`` so that a
    difference that is ε up to floating-point rounding (0.4 − 0.3 = 0.10000000000000003) counts
    as within ε, as it does in exact arithmetic.
    """
    if not epsilon >= 0:
        raise ValueError(f"epsilon must be >= 0, got {epsilon!r}")
    if not tolerance >= 0:
        raise ValueError(f"tolerance must be >= 0, got {tolerance!r}")
    ps = _shared(q_star, q, proposals, on_mismatch)
    s_star = _strength_getter(q_star, summary_strengths)
    s = _strength_getter(q, source_strengths)
    agree = {p: abs(s_star[p] - s[p]) <= epsilon + tolerance for p in ps}
    return _pairwise("epsilon_accuracy", "π_εa", agree, epsilon=epsilon, tolerance=tolerance)
