"""Argument coverage of a summary: the share of the debate's *salient* arguments it covers.

ARC-style coverage (PAPER.md §9, "the recall-side twin of π_sar"): π_sar asks which share of
*all* source speech arguments the summary restates; argument coverage asks the same of the
salient ones only — a summary that drops fifty side remarks but keeps the ten arguments the
debate turned on should score high here even though its π_sar is low.

    coverage_k(Q*, Q) = |{x ∈ S_k(Q) : x is aligned to some summary argument}| / |S_k(Q)|

where S_k(Q) are the k most salient speech arguments of the source QBAF Q and "aligned" is
decided by an :class:`~argfaith.metrics.alignment.Alignment` — the same interface (and the same
aligners: id, exact, lexical, embedding, llm, file) as the supplementary metrics, so the value
is reported next to π_sar computed with the very same alignment.

Salience measures (``salience=``):

- ``strength``: DF-QuAD σ(x) in Q (PAPER.md §2) — the strongest arguments;
- ``influence``: max over proposals p of |σ_Q(p) − σ_{Q−x}(p)| — how much removing x would move
  some proposal's strength (exact removal influence, :mod:`argfaith.metrics.explain`);
- ``degree``: number of attack/support edges incident to x — the most connected;
- ``replies``: number of arguments attacking or supporting x — the most discussed.

Ties are broken deterministically by a second measure (degree for strength/influence, σ for
degree/replies), then debate position, then framework order; ``k`` larger than |X_s| takes all.
``fraction`` instead of ``k`` takes the top ⌈fraction·|X_s|⌉.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from argfaith.errors import ConfigurationError
from argfaith.metrics.supplementary import check_alignment, supplementary_recall
from argfaith.qbaf import QBAF, dfquad_strengths
from argfaith.qbaf.gradual import gradual_strengths
from argfaith.qbaf.semantics import GradualSemantics

if TYPE_CHECKING:
    from argfaith.metrics.alignment import Aligner, Alignment

__all__ = ["Salience", "SALIENCE_MEASURES", "CoverageResult", "salience_scores", "salient_arguments", "argument_coverage"]

Salience = Literal["strength", "influence", "degree", "replies"]
SALIENCE_MEASURES: tuple[str, ...] = ("strength", "influence", "degree", "replies")


@dataclass(frozen=True)
class CoverageResult:
    """Argument coverage with what it was computed from.

    Attributes
    ----------
    value : float or None
        Covered salient arguments / salient arguments (None when Q has no speech argument).
    salient : tuple of str
        S_k(Q), most salient first.
    covered, uncovered : tuple of str
        The salient arguments with / without an aligned summary argument (salience order).
    scores : Mapping[str, float]
        Salience of every source speech argument.
    supplementary_recall : float or None
        π_sar with the same alignment, for reporting side by side.
    """

    value: float | None
    salience: str
    k: int
    salient: tuple[str, ...]
    covered: tuple[str, ...]
    uncovered: tuple[str, ...]
    scores: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    supplementary_recall: float | None = None
    alignment_method: str | None = None
    metric: str = "argument_coverage"
    symbol: str = "π_cov"

    def to_dict(self) -> dict[str, object]:
        return {
            "metric": self.metric,
            "symbol": self.symbol,
            "value": self.value,
            "salience": self.salience,
            "k": self.k,
            "salient": list(self.salient),
            "covered": list(self.covered),
            "uncovered": list(self.uncovered),
            "scores": dict(self.scores),
            "supplementary_recall": self.supplementary_recall,
            "alignment_method": self.alignment_method,
        }


def _degrees(q: QBAF) -> tuple[dict[str, int], dict[str, int]]:
    deg = {a: 0 for a in q.ids}
    rep = {a: 0 for a in q.ids}
    for s, t in list(q.attacks) + list(q.supports):
        deg[s] += 1
        deg[t] += 1
        rep[t] += 1
    return deg, rep


def salience_scores(
    q: QBAF, salience: Salience = "strength", *, method: str = "sync", max_iter: int = 10_000, tol: float = 1e-9,
    semantics: str | GradualSemantics = "dfquad",
) -> dict[str, float]:
    """Salience of every speech argument of ``q`` (module docstring); strengths and influences
    are those of ``semantics`` (default DF-QuAD)."""
    if salience not in SALIENCE_MEASURES:
        raise ConfigurationError(f"unknown salience {salience!r}; choose one of {', '.join(SALIENCE_MEASURES)}")
    speech = q.speech_arguments
    if salience == "strength":
        sigma = gradual_strengths(q, semantics, method=method, max_iter=max_iter, tol=tol)
        return {a: float(sigma[a]) for a in speech}
    if salience in ("degree", "replies"):
        deg, rep = _degrees(q)
        src = deg if salience == "degree" else rep
        return {a: float(src[a]) for a in speech}
    from argfaith.metrics.explain import argument_influences

    out = {a: 0.0 for a in speech}
    for p in q.proposals:
        side = argument_influences(q, p, method=method, max_iter=max_iter, tol=tol, semantics=semantics)
        for inf in side.arguments:
            if inf.id in out:
                out[inf.id] = max(out[inf.id], abs(inf.influence))
    return out


def salient_arguments(
    q: QBAF,
    *,
    k: int | None = 10,
    fraction: float | None = None,
    salience: Salience = "strength",
    scores: Mapping[str, float] | None = None,
) -> tuple[str, ...]:
    """S_k(Q): the ``k`` (or ``⌈fraction·|X_s|⌉``) most salient speech arguments, ranked with
    the deterministic tie-breaks of the module docstring."""
    if fraction is not None:
        if not 0.0 < fraction <= 1.0:
            raise ConfigurationError(f"fraction must be in (0, 1], got {fraction}")
        k = math.ceil(fraction * len(q.speech_arguments))
    if k is None or k < 1:
        raise ConfigurationError(f"k must be a positive integer, got {k!r}")
    sc = dict(scores) if scores is not None else salience_scores(q, salience)
    if salience in ("strength", "influence"):
        deg, _ = _degrees(q)
        second = {a: float(deg[a]) for a in sc}
    else:
        sigma = dfquad_strengths(q)
        second = {a: float(sigma[a]) for a in sc}
    pos = {a.id: (a.position if a.position is not None else math.inf) for a in q.arguments}
    order = {a: i for i, a in enumerate(q.ids)}
    ranked = sorted(sc, key=lambda a: (-sc[a], -second[a], pos[a], order[a]))
    return tuple(ranked[:k])


def argument_coverage(
    source: QBAF,
    summary: QBAF,
    alignment: Alignment | Aligner,
    *,
    k: int | None = 10,
    fraction: float | None = None,
    salience: Salience = "strength",
) -> CoverageResult:
    """Argument coverage π_cov of ``summary`` with respect to ``source`` (module docstring).

    Parameters
    ----------
    source, summary
        The debate QBAF Q and the summary QBAF Q*.
    alignment
        An :class:`Alignment` of X_s to X_s*, or an :class:`Aligner` to compute one.
    k, fraction
        Size of the salient set (``fraction`` wins when given).
    salience
        ``strength`` (default), ``influence``, ``degree`` or ``replies``.

    Examples
    --------
    >>> from argfaith.qbaf import load_qbaf
    >>> from argfaith.metrics.alignment import IdAligner
    >>> q, qa = load_qbaf("examples/paper/q.json"), load_qbaf("examples/paper/qa.json")  # doctest: +SKIP
    >>> argument_coverage(q, qa, IdAligner(), k=2, salience="degree").value  # doctest: +SKIP
    0.0
    """
    if not hasattr(alignment, "pairs"):
        from argfaith.metrics.alignment import align_qbafs

        alignment = align_qbafs(source, summary, alignment)  # type: ignore[arg-type]
    check_alignment(summary, source, alignment)  # type: ignore[arg-type]
    sc = salience_scores(source, salience)
    if not source.speech_arguments:
        return CoverageResult(None, salience, 0, (), (), (), MappingProxyType(sc), None, alignment.method)  # type: ignore[union-attr]
    top = salient_arguments(source, k=k, fraction=fraction, salience=salience, scores=sc)
    aligned = alignment.source_ids  # type: ignore[union-attr]
    covered = tuple(a for a in top if a in aligned)
    sar = supplementary_recall(summary, source, alignment)  # type: ignore[arg-type]
    return CoverageResult(
        value=len(covered) / len(top),
        salience=salience,
        k=len(top),
        salient=top,
        covered=covered,
        uncovered=tuple(a for a in top if a not in aligned),
        scores=MappingProxyType(sc),
        supplementary_recall=sar.value,
        alignment_method=alignment.method,  # type: ignore[union-attr]
    )
