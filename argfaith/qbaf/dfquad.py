"""DF-QuAD gradual semantics: strengths σ of every argument (PAPER.md §2; Rago et al. 2016).

Public entry point :func:`dfquad_strengths` returns a :class:`StrengthResult` carrying the
strengths together with the solver diagnostics (converged, iterations, residual). The work is
done by one numba kernel (:func:`argfaith.qbaf._gradual_kernels.dfquad_solve`, the DF-QuAD
instance of the solver every gradual semantics shares); the plain-Python
:func:`argfaith.qbaf.reference.dfquad_reference` implements the same scheme for tests.

Solver scheme (PAPER.md §2, the reading argfaith adopts for cyclic summary QBAFs):

1. An acyclic QBAF is evaluated exactly in one pass in topological order (a depth-first
   post-order over predecessors; ``iterations == 0``).
2. Otherwise the arguments are condensed into strongly connected components (Tarjan), taken in
   topological order. A component of one argument without a self-loop is evaluated exactly;
   every other component is iterated with its predecessors fixed, from σ⁰ = τ:
   synchronously (``"sync"``, Jacobi: σ ← f(σ)) or by classical RK4 steps of size ``step`` on
   the continuous model dσ/dt = f(σ) − σ (``"rk4"``; Potyka 2018), clamped to [0, 1].
3. A component stops at the first iterate σ̂ with ‖f(σ̂) − σ̂‖∞ ≤ ``tol`` (that residual is
   reported) or after ``max_iter`` sweeps/steps, in which case it is reported as not converged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from argfaith.qbaf.errors import NotConvergedError, UnknownArgumentError
from argfaith.qbaf.semantics import DFQUAD, GradualSemantics

if TYPE_CHECKING:
    from argfaith.qbaf.framework import QBAF

__all__ = ["StrengthResult", "dfquad_strengths", "Method", "METHODS"]

Method = Literal["sync", "rk4"]
#: The iteration schemes for cyclic components.
METHODS: tuple[str, ...] = ("sync", "rk4")


@dataclass(frozen=True, eq=False)
class StrengthResult:
    """DF-QuAD strengths with solver diagnostics.

    ``result[id]`` is σ of one argument; :meth:`as_dict` gives ``{id: σ}``.

    Attributes
    ----------
    values : numpy.ndarray
        σ aligned with :attr:`ids` (read-only).
    converged : bool
        False iff some cyclic component did not reach ``tol`` within ``max_iter``.
    iterations : int
        Largest number of sweeps (sync) or steps (rk4) used by a cyclic component; 0 if acyclic.
    residual : float
        ‖f(σ) − σ‖∞ of the returned σ, the maximum over the cyclic components (0.0 if acyclic).
    method : str
        ``"sync"`` or ``"rk4"``.
    cyclic_components : int
        Number of strongly connected components that needed iteration.
    not_converged : tuple of str
        Ids of the arguments in components that did not converge.
    source : QBAF or None
        The framework the strengths belong to (gives :attr:`ids` lazily).
    semantics : str
        Name of the gradual semantics (``"dfquad"`` here; see :mod:`argfaith.qbaf.gradual`).

    Strengths are addressable by id (``result["p1"]``) and by position (``result[0]``,
    ``result.values[0]``), positions being those of the framework's arguments.
    """

    values: np.ndarray
    converged: bool
    iterations: int
    residual: float
    method: str = "sync"
    cyclic_components: int = 0
    not_converged: tuple[str, ...] = ()
    source: Any = field(default=None, repr=False)
    explicit_ids: tuple[str, ...] | None = field(default=None, repr=False)
    semantics: str = "dfquad"

    @property
    def ids(self) -> tuple[str, ...]:
        """Argument ids aligned with :attr:`values`."""
        if self.explicit_ids is not None:
            return self.explicit_ids
        if self.source is None:
            return tuple(f"a{i}" for i in range(len(self.values)))
        return self.source.ids

    def __getitem__(self, arg_id: str | int) -> float:
        """σ of argument ``arg_id`` (an id, or an integer position; negative positions count from
        the end). :class:`UnknownArgumentError` names an unknown id, ``IndexError`` a bad position."""
        if isinstance(arg_id, (int, np.integer)) and not isinstance(arg_id, bool):
            n = len(self.values)
            if not -n <= int(arg_id) < n:
                raise IndexError(f"argument position {int(arg_id)} out of range for {n} arguments")
            return float(self.values[int(arg_id)])
        if self.source is not None and self.explicit_ids is None:
            return float(self.values[self.source.idx(arg_id)])
        try:
            return float(self.values[self.ids.index(arg_id)])
        except ValueError:
            raise UnknownArgumentError(f"unknown argument {arg_id!r}") from None

    def __len__(self) -> int:
        return len(self.values)

    def as_dict(self) -> dict[str, float]:
        """``{id: σ}`` as plain floats."""
        return dict(zip(self.ids, self.values.tolist()))

    def index(self, arg_id: str) -> int:
        """Position of ``arg_id`` in :attr:`values`."""
        if self.source is not None and self.explicit_ids is None:
            return self.source.idx(arg_id)
        try:
            return self.ids.index(arg_id)
        except ValueError:
            raise UnknownArgumentError(f"unknown argument {arg_id!r}") from None


def _check_options(method: str, max_iter: int, tol: float, step: float) -> int:
    if method not in METHODS:
        raise ValueError(f"unknown DF-QuAD method {method!r}; use one of {', '.join(METHODS)}")
    if not isinstance(max_iter, (int, np.integer)) or max_iter < 0:
        raise ValueError(f"max_iter must be a non-negative integer, got {max_iter!r}")
    if not (isinstance(tol, (int, float)) and math.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a finite number >= 0, got {tol!r}")
    if not (isinstance(step, (int, float)) and 0 < step <= 1):
        raise ValueError(f"step must be in (0, 1], got {step!r}")
    return 0 if method == "sync" else 1


def solve_csr(
    n: int,
    tau: np.ndarray,
    in_csr: tuple[np.ndarray, np.ndarray, np.ndarray],
    *,
    semantics: GradualSemantics = DFQUAD,
    method: str = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
    step: float = 0.5,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Run the solver on raw CSR arrays: the one way into the kernels, shared by
    :func:`dfquad_strengths`, :func:`argfaith.qbaf.gradual.gradual_strengths` and both batch
    APIs. product × linear(1) runs on the DF-QuAD instance of the solver, every other semantics
    on its modular instance (:mod:`argfaith.qbaf._gradual_kernels`).

    Returns ``(sigma, cyc_node, cyc_size, cyc_iters, cyc_res, not_converged_mask)``.
    """
    code = _check_options(method, max_iter, tol, step)
    from argfaith.qbaf._gradual_kernels import dfquad_solve, gradual_solve

    iptr, isrc, iatt = in_csr
    if semantics.is_dfquad:
        return dfquad_solve(n, tau, iptr, isrc, iatt, code, int(max_iter), float(tol), float(step))
    agg, inf, k, p = semantics.kernel_codes
    return gradual_solve(n, tau, iptr, isrc, iatt, agg, inf, k, p, code, int(max_iter), float(tol), float(step))


def dfquad_strengths(
    qbaf: QBAF,
    *,
    method: Method = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
    strict: bool = False,
    step: float = 0.5,
) -> StrengthResult:
    """DF-QuAD strengths σ(x) = c(τ(x), F(σ(attackers)), F(σ(supporters))) for every argument.

    F(()) = 0, F(v1..vn) = 1 − ∏(1 − vi); c(v0, va, vs) = v0 − v0·(va − vs) if va ≥ vs, else
    v0 + (1 − v0)·(vs − va) (PAPER.md §2; Rago, Toni, Aurisicchio, Baroni 2016). Acyclic parts
    are exact; cyclic components are iterated as described in the module docstring.

    Parameters
    ----------
    qbaf : QBAF
    method : {"sync", "rk4"}
        Iteration scheme for cyclic components.
    max_iter : int
        Sweep (sync) or step (rk4) budget per cyclic component.
    tol : float
        Convergence tolerance on the fixed-point residual ‖f(σ) − σ‖∞.
    strict : bool
        Raise :class:`NotConvergedError` instead of returning a non-converged result.
    step : float
        RK4 step size (``method="rk4"`` only).

    Notes
    -----
    Mutual attack a ↔ b with τ = (1, 1) oscillates (0, 0) ↔ (1, 1) under synchronous updates
    and is reported as not converged; the continuous model (``rk4``) gives (0.5, 0.5).

    Examples
    --------
    >>> from argfaith.qbaf import QBAF
    >>> q = QBAF.from_arrays([0.5, 0.2, 0.2], attacks=[(1, 0)], supports=[(2, 0)], ids=["p", "a", "s"])
    >>> r = dfquad_strengths(q)
    >>> round(r["p"], 6), r.converged, r.iterations
    (0.5, True, 0)
    """
    out = solve_csr(qbaf.n, qbaf.base_scores, qbaf.in_csr, method=method, max_iter=max_iter, tol=tol, step=step)
    return strength_result(qbaf, out, method=method, max_iter=max_iter, tol=tol, strict=strict)


def strength_result(
    qbaf: QBAF,
    out: tuple[np.ndarray, ...],
    *,
    method: str,
    max_iter: int,
    tol: float,
    strict: bool,
    semantics: str = "dfquad",
    title: str = "DF-QuAD",
) -> StrengthResult:
    """The kernel's output ``(sigma, cyc_node, cyc_size, cyc_iters, cyc_res, not_converged_mask)``
    for one framework as a :class:`StrengthResult` (shared by :func:`dfquad_strengths` and
    :func:`argfaith.qbaf.gradual.gradual_strengths`); ``strict=True`` raises
    :class:`NotConvergedError` naming the first argument that did not converge."""
    sigma, cyc_node, _cyc_size, cyc_iters, cyc_res, bad = out
    sigma.setflags(write=False)
    n_cyc = int(cyc_node.shape[0])
    iterations = int(cyc_iters.max()) if n_cyc else 0
    residual = float(cyc_res.max()) if n_cyc else 0.0
    converged = not bool(bad.any()) if n_cyc else True
    not_conv = tuple(qbaf._id(int(i)) for i in np.flatnonzero(bad)) if not converged else ()
    res = StrengthResult(
        values=sigma,
        converged=converged,
        iterations=iterations,
        residual=residual,
        method=method,
        cyclic_components=n_cyc,
        not_converged=not_conv,
        source=qbaf,
        semantics=semantics,
    )
    if strict and not converged:
        raise NotConvergedError(
            f"{title} ({method}) did not converge within {max_iter} iterations on {len(not_conv)} argument(s) "
            f"(first: {not_conv[0]!r}); residual {residual:.3g} > tol {tol:g}. "
            + ("Try method='rk4'." if method == "sync" else "Try a larger max_iter or tol.")
        )
    return res

