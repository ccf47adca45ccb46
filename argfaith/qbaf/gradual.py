"""Strengths under any gradual semantics of :mod:`argfaith.qbaf.semantics`, with diagnostics.

:func:`gradual_strengths` is :func:`argfaith.qbaf.dfquad_strengths` for every semantics: the same
solver scheme (exact one pass on acyclic frameworks; cyclic strongly connected components
iterated synchronously — ``method="sync"``, the discrete semantics — or by RK4 on the
continuous model dσ/dt = ι(w, α(σ)) − σ — ``method="rk4"``, Potyka 2018/2019), the same
stopping rule and the same :class:`~argfaith.qbaf.dfquad.StrengthResult` with ``converged``,
``iterations`` and ``residual``. Every semantics runs on the one solver of
:mod:`argfaith.qbaf._gradual_kernels`; DF-QuAD (and any product × linear(1) composition) on its
DF-QuAD instance, so its results are bit-identical to ``dfquad_strengths``.

:func:`gradual_batch` is the batch API (:class:`~argfaith.qbaf.batch.QBAFBatch`, one kernel call
for many small frameworks) for every semantics.

Examples
--------
>>> from argfaith.qbaf import QBAF
>>> q = QBAF.from_arrays([0.5, 1.0], attacks=[(1, 0)], ids=["x", "a"])
>>> round(gradual_strengths(q, "dfquad")["x"], 6), round(gradual_strengths(q, "quadratic-energy")["x"], 6)
(0.0, 0.25)
>>> round(gradual_strengths(q, "weighted-h-categorizer")["x"], 6)
0.25
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from argfaith.qbaf.dfquad import StrengthResult, solve_csr, strength_result
from argfaith.qbaf.semantics import GradualSemantics, get_semantics

if TYPE_CHECKING:
    from argfaith.qbaf.batch import BatchStrengthResult, QBAFBatch
    from argfaith.qbaf.framework import QBAF

__all__ = ["gradual_strengths", "gradual_batch", "solve_semantics_csr", "strength_function"]


def solve_semantics_csr(
    sem: GradualSemantics, n: int, tau: np.ndarray, in_csr: tuple[np.ndarray, np.ndarray, np.ndarray], **options: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`argfaith.qbaf.dfquad.solve_csr` for ``sem`` (``options``: method, max_iter, tol, step)."""
    return solve_csr(n, tau, in_csr, semantics=sem, **options)


def gradual_strengths(
    qbaf: QBAF,
    semantics: str | GradualSemantics = "dfquad",
    *,
    method: str = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
    strict: bool = False,
    step: float = 0.5,
) -> StrengthResult:
    """Strengths σ of every argument of ``qbaf`` under ``semantics``, with solver diagnostics.

    Parameters
    ----------
    qbaf : QBAF
    semantics : str or GradualSemantics
        A named instance (``"dfquad"``, ``"quad"``, ``"quadratic-energy"``, ``"euler-based"``,
        ``"restricted-euler-based"``, ``"mlp-based"``, ``"weighted-h-categorizer"``), an
        ``"aggregation:influence"`` spec, or a :class:`GradualSemantics`.
    method : {"sync", "rk4"}
        Cyclic components: discrete synchronous iteration, or RK4 on the continuous model.
    max_iter, tol, step, strict :
        As in :func:`argfaith.qbaf.dfquad_strengths`.

    Raises
    ------
    SemanticsDomainError
        The framework has a cycle and the semantics is restricted to acyclic frameworks, or it
        has supports and the semantics is attack-only.
    NotConvergedError
        ``strict=True`` and some cyclic component did not reach ``tol``.
    """
    sem = get_semantics(semantics)
    if sem.attack_only:
        sem.check_domain(qbaf)
    # A restricted semantics runs without iterations: the kernel finds any cycle on the way
    # (an acyclic framework is one exact pass either way), so the domain check costs nothing.
    out = solve_csr(
        qbaf.n, qbaf.base_scores, qbaf.in_csr, semantics=sem, method=method, max_iter=0 if sem.acyclic_only else max_iter, tol=tol, step=step
    )
    if sem.acyclic_only and out[1].shape[0]:  # a cyclic component
        sem.check_domain(qbaf)  # raises, naming an argument on a cycle
    return strength_result(qbaf, out, method=method, max_iter=max_iter, tol=tol, strict=strict, semantics=sem.name, title=sem.title or sem.name)


def gradual_batch(
    batch: QBAFBatch,
    semantics: str | GradualSemantics = "dfquad",
    *,
    method: str = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
    strict: bool = False,
    step: float = 0.5,
) -> BatchStrengthResult:
    """Strengths of every framework of ``batch`` under ``semantics`` in one kernel call (a disjoint
    union is evaluated part by part: every semantics here satisfies independence).

    Domain restrictions are checked on the whole batch: an attack-only semantics refuses a batch
    with supports; a restricted (acyclic-only) one a batch with a cycle, naming the framework.
    """
    from argfaith.qbaf.batch import solve_batch

    return solve_batch(batch, get_semantics(semantics), method=method, max_iter=max_iter, tol=tol, strict=strict, step=step)


def strength_function(semantics: str | GradualSemantics, **options: Any) -> Callable[[QBAF], dict[str, float]]:
    """``semantics`` as a plain callable ``QBAF -> {id: σ}`` (the ``Semantics`` type of
    :mod:`argfaith.qbaf.principles` and of user property tests); ``options`` go to
    :func:`gradual_strengths` (method, max_iter, tol, step)."""
    sem = get_semantics(semantics)

    def strengths(qbaf: QBAF) -> dict[str, float]:
        return gradual_strengths(qbaf, sem, **options).as_dict()

    strengths.__name__ = f"{sem.name}_strengths".replace("-", "_").replace(":", "_")
    return strengths
