"""DF-QuAD gradual semantics: strengths σ of every argument (PAPER.md §2; Rago et al. 2016).

Public entry point :func:`dfquad_strengths` returns a :class:`StrengthResult` carrying the
strengths together with the solver diagnostics (converged, iterations, residual).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

from argfaith.qbaf.errors import NotConvergedError

if TYPE_CHECKING:
    from argfaith.qbaf.framework import QBAF

__all__ = ["StrengthResult", "dfquad_strengths", "Method"]

Method = Literal["sync", "rk4"]


@dataclass(frozen=True)
class StrengthResult:
    """DF-QuAD strengths with solver diagnostics.

    ``result[id]`` is σ of one argument; :meth:`as_dict` gives ``{id: σ}``.

    Attributes
    ----------
    ids : tuple of str
    values : numpy.ndarray
        σ aligned with ``ids`` (read-only).
    converged : bool
        False iff some cyclic component did not reach ``tol`` within ``max_iter``.
    iterations : int
        Largest number of sweeps (sync) or steps (rk4) used by a cyclic component; 0 if acyclic.
    residual : float
        ‖f(σ) − σ‖∞ of the returned σ over the cyclic components (0.0 if acyclic).
    method : str
    cyclic_components : int
        Number of strongly connected components that needed iteration.
    not_converged : tuple of str
        Ids of the arguments in components that did not converge.
    """

    ids: tuple[str, ...]
    values: np.ndarray
    converged: bool
    iterations: int
    residual: float
    method: str = "sync"
    cyclic_components: int = 0
    not_converged: tuple[str, ...] = ()
    _index: Mapping[str, int] | None = field(default=None, repr=False, compare=False)

    def __getitem__(self, arg_id: str) -> float:
        idx = self._index if self._index is not None else {a: i for i, a in enumerate(self.ids)}
        return float(self.values[idx[arg_id]])

    def __len__(self) -> int:
        return len(self.ids)

    def as_dict(self) -> dict[str, float]:
        """``{id: σ}`` as plain floats."""
        return dict(zip(self.ids, self.values.tolist()))


def dfquad_strengths(
    qbaf: QBAF,
    *,
    method: Method = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
    strict: bool = False,
) -> StrengthResult:
    """DF-QuAD strengths σ(x) = c(τ(x), F(σ(attackers)), F(σ(supporters))) for every argument.

    Acyclic frameworks are solved exactly in one topological pass. Cyclic frameworks are
    condensed into strongly connected components; acyclic parts stay exact and each cyclic
    component is iterated from σ⁰ = τ — synchronously (``method="sync"``, Jacobi) or by
    integrating the continuous model dσ/dt = f(σ) − σ with RK4 (``method="rk4"``) — until the
    fixed-point residual ‖f(σ) − σ‖∞ ≤ ``tol`` or ``max_iter`` is reached.

    Parameters
    ----------
    strict : bool
        Raise :class:`NotConvergedError` instead of returning a non-converged result.

    Notes
    -----
    Mutual attack a ↔ b with τ = (1, 1) oscillates under synchronous updates and is reported as
    not converged; the continuous model (``rk4``) gives (0.5, 0.5).
    """
    from argfaith.qbaf.reference import dfquad_reference

    vals, converged, iterations, residual = dfquad_reference(qbaf, method=method, max_iter=max_iter, tol=tol)
    arr = np.asarray(vals, dtype=np.float64)
    arr.setflags(write=False)
    res = StrengthResult(
        ids=qbaf.ids,
        values=arr,
        converged=converged,
        iterations=iterations,
        residual=residual,
        method=method,
        _index=qbaf.index,
    )
    if strict and not converged:
        raise NotConvergedError(
            f"DF-QuAD ({method}) did not converge within {max_iter} iterations (residual {residual:.3g} > tol {tol:g})"
        )
    return res
