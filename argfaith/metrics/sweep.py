"""The semantics sweep: do the σ-based findings survive another gradual semantics?

The paper fixes DF-QuAD and names the choice of semantics as a limitation. For a source QBAF Q,
its summary QBAFs Q* and several semantics (:mod:`argfaith.qbaf.semantics`), the sweep computes
per (summary, τ, semantics) the σ-based metrics π_bc and π_εa (PAPER.md §5; π_dpc and the path
metrics do not depend on σ) and, relative to the *first* semantics (the report's):

* ``source_side_changes`` — proposals whose side of 0.5 (above / balanced / below, with the
  report's tolerance; :func:`argfaith.metrics.faithfulness.balance_side`) in Q differs;
* ``summary_side_changes`` — the same in Q*;
* ``balance_verdict_changes`` — proposals whose π_bc verdict (Q and Q* on the same side) differs.

A semantics outside its domain for a framework (the attack-only weighted h-categorizer on a
bipolar QBAF, the restricted Euler-based semantics on a cyclic summary QBAF) is reported as
``skipped`` with the reason, not silently dropped. Strengths are computed once per
(framework, τ, semantics).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from argfaith.metrics.faithfulness import balance_side
from argfaith.metrics.report import SemanticsSweepRow
from argfaith.qbaf import QBAF
from argfaith.qbaf.gradual import gradual_strengths
from argfaith.qbaf.semantics import GradualSemantics, SemanticsDomainError, get_semantics

__all__ = ["as_semantics_list", "semantics_sweep_rows"]


def as_semantics_list(semantics: Any) -> list[GradualSemantics]:
    """One semantics (name or object) or a sequence of them → a de-duplicated list, first kept first."""
    items = [semantics] if isinstance(semantics, (str, GradualSemantics)) else list(semantics)
    if not items:
        raise ValueError("semantics: at least one semantics is needed")
    sems = [get_semantics(s) for s in items]
    return list({s.name: s for s in sems}.values())


def _strengths(q: QBAF, sem: GradualSemantics, *, method: str, max_iter: int, tol: float) -> tuple[Any, str | None]:
    try:
        return gradual_strengths(q, sem, method=method, max_iter=max_iter, tol=tol), None
    except SemanticsDomainError as e:
        return None, str(e)


def semantics_sweep_rows(
    source: QBAF,
    summaries: Sequence[QBAF],
    names: Sequence[str],
    proposals: Sequence[Sequence[str]],
    semantics: Sequence[GradualSemantics],
    *,
    tau: float | None,
    epsilon: float,
    tolerance: float,
    method: str = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
) -> list[SemanticsSweepRow]:
    """Rows of the sweep at one τ: for every summary (``names[i]``, shared ``proposals[i]``),
    every semantics, the first one being the reference (module docstring)."""
    src = source.with_speech_base_score(tau) if tau is not None else source
    sums = [s.with_speech_base_score(tau) if tau is not None else s for s in summaries]
    src_sig = [_strengths(src, sem, method=method, max_iter=max_iter, tol=tol) for sem in semantics]
    rows: list[SemanticsSweepRow] = []
    for i, q_star in enumerate(sums):
        ps = list(proposals[i])
        ref: dict[str, tuple[int, int, bool]] | None = None
        for k, sem in enumerate(semantics):
            s_src, why_src = src_sig[k]
            s_sum, why_sum = _strengths(q_star, sem, method=method, max_iter=max_iter, tol=tol)
            why = why_src or why_sum
            if why is not None:
                role = "source" if why_src else "summary"
                what = "has supports (attack-only semantics)" if sem.attack_only and "attack-only" in why else "has a cycle (acyclic frameworks only)"
                rows.append(SemanticsSweepRow(
                    summary=names[i], semantics=sem.name, tau=tau, balance_consistency=None, epsilon_accuracy=None,
                    skipped=f"the {role} QBAF {what}",
                ))
                continue
            sides: dict[str, tuple[int, int, bool]] = {}
            for p in ps:
                a, b = float(s_src[p]), float(s_sum[p])
                sa, sb = balance_side(a, tolerance), balance_side(b, tolerance)
                sides[p] = (sa, sb, sa == sb)
            bc = [v[2] for v in sides.values()]
            ea = [abs(float(s_sum[p]) - float(s_src[p])) <= epsilon + tolerance for p in ps]
            if ref is None:
                ref = sides
            rows.append(SemanticsSweepRow(
                summary=names[i], semantics=sem.name, tau=tau,
                balance_consistency=sum(bc) / len(bc) if bc else None,
                epsilon_accuracy=sum(ea) / len(ea) if ea else None,
                source_side_changes=[p for p in ps if sides[p][0] != ref[p][0]],
                summary_side_changes=[p for p in ps if sides[p][1] != ref[p][1]],
                balance_verdict_changes=[p for p in ps if sides[p][2] != ref[p][2]],
                converged=bool(s_src.converged and s_sum.converged),
            ))
    return rows
