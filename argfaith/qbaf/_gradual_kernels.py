"""numba kernels of every gradual semantics: one component scaffolding, each semantics an instance
of it (private; the public API is :mod:`argfaith.qbaf.dfquad` and :mod:`argfaith.qbaf.gradual`).

The scaffolding is the solver of ``docs/engine.md``, written once:

1. an acyclic graph is evaluated exactly in one pass: in index order (or its reverse) when every
   edge respects it (:func:`_index_order_direction`), else in the depth-first post-order over
   predecessors of ``dfs_eval``;
2. otherwise the arguments not yet final are condensed by
   :func:`~argfaith.qbaf._kernels.tarjan_components` (components come out in topological
   order); a singleton without a self-loop is evaluated exactly, every other component is
   iterated with its predecessors fixed by ``iterate_component`` — synchronous sweeps
   (``method`` 0) or classical RK4 steps on dσ/dt = f(σ) − σ clamped to [0, 1] (``method`` 1) —
   until ‖f(σ) − σ‖∞ ≤ tol or ``max_iter`` (components of ≥ 256 arguments on a compact copy of
   their rows, ``iterate_large_component``);
3. the diagnostics: per cyclic component a representative argument, its size, iterations and
   final residual, and the mask of arguments whose component did not converge.

A semantics enters as its *rule*: three small functions and a parameter tuple ``P``,

* ``start(w, P)``: the accumulator of a polarity with no arguments yet (w = τ(x));
* ``fold(acc, v, is_support, P)``: the accumulator with one more attacker / supporter of
  strength v folded in — rows are folded in CSR order (attackers, then supporters, each in input
  order);
* ``finish(w, acc_att, acc_sup, x, iptr, iatt, P)``: σ(x) = ι(w, α) from the two accumulators.

:func:`_scaffolding` builds the solver's functions for one rule: the rule's functions are
constants of those closures, so numba resolves their calls at compile time and LLVM inlines them
— each instance is machine code of its own, with no indirect call. (Passing the rule as function
arguments instead makes numba turn the functions into run-time addresses, which cannot be
cached.) The instances, each a cached entry point compiled on first use:

* :func:`dfquad_solve`: DF-QuAD = product aggregation × linear(1) influence, both fixed at
  compile time (products ∏(1 − v) in CSR order, then c(τ, 1 − ∏att, 1 − ∏sup));
* :func:`sum_solve`, :func:`product_solve`, :func:`top_solve`: the aggregation fixed at compile
  time (it runs once per edge), the influence chosen once per argument by ``P = (inf, k, p)`` —
  ``inf``: 0 linear(k), 1 p-max(p, k), 2 euler, 3 logistic (MLP), 4 h-categorizer;
* :func:`quad_solve`: QuAD's attack and support functions (they fold from w) and its
  combination.

:func:`gradual_solve` picks the instance from a semantics' kernel codes ``(agg, inf, k, p)``
(``agg``: 0 sum, 1 product, 2 top, 3 QuAD). Forced onto product × linear(1) it computes exactly
what :func:`dfquad_solve` computes (linear(k) is written as DF-QuAD's c(v0, va, vs); w/1.0 is w).

Every update follows :meth:`argfaith.qbaf.semantics.GradualSemantics.update` and the plain-Python
references of :mod:`argfaith.qbaf.reference` operation for operation — same order of the
products and sums, same stopping rule, same RK4 stages — so the kernels agree with them to the
last bit (``exp`` / ``log`` come from the same C library in both). Never compile these with
``fastmath``: it would let LLVM reassociate those products.

Only the instances are cached (``cache=True``); the scaffolding is compiled and linked into each
of them, so a cold start compiles only the instances used (DF-QuAD ≈ 6 s CPU, a modular one
≈ 11 s: what the former DF-QuAD and generic kernels took).
numba does no bounds checking: the public wrappers validate every index before calling.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from argfaith.qbaf._kernels import tarjan_components

__all__ = [
    "dfquad_solve",
    "sum_solve",
    "product_solve",
    "top_solve",
    "quad_solve",
    "gradual_solve",
    "dfquad_combine",
    "AGG_SUM",
    "AGG_PRODUCT",
    "AGG_TOP",
    "AGG_QUAD",
    "METHOD_SYNC",
    "METHOD_RK4",
]

METHOD_SYNC = 0
METHOD_RK4 = 1
AGG_SUM = 0
AGG_PRODUCT = 1
AGG_TOP = 2
AGG_QUAD = 3
#: Cyclic components at least this large are iterated on a compact copy (see
#: ``iterate_large_component`` of :func:`_scaffolding`); smaller ones in place, where copying would cost more.
LARGE_COMPONENT = 256


# ------------------------------------------------------------------ aggregations and influences
@njit(cache=True, inline="always")
def _product_add(acc, v):  # pragma: no cover - compiled
    # ∏(1 − v) so far; the polarity aggregate is 1 − acc
    return acc * (1.0 - v)


@njit(cache=True, inline="always")
def dfquad_combine(w, va, vs):  # pragma: no cover - compiled
    """DF-QuAD's c(v0, va, vs) = v0 − v0·(va − vs) if va ≥ vs, else v0 + (1 − v0)·(vs − va) —
    linear(1) (shared with the explanation kernels)."""
    return _linear(w, va, vs, 1.0)


@njit(cache=True, inline="always")
def _linear(w, a, s, k):  # pragma: no cover - compiled
    # linear(k), written as DF-QuAD's c(v0, va, vs) so that k = 1 is it to the bit
    if a >= s:
        return w - (w / k) * (a - s)
    return w + ((1.0 - w) / k) * (s - a)


@njit(cache=True, inline="always")
def _pmax(w, a, s, k, p):  # pragma: no cover - compiled
    if a >= s:
        x = (a - s) / k
        xp = x * x if p == 2.0 else x**p
        return w - w * (xp / (1.0 + xp))
    x = (s - a) / k
    xp = x * x if p == 2.0 else x**p
    return w + (1.0 - w) * (xp / (1.0 + xp))


@njit(cache=True, inline="always")
def _euler(w, a, s):  # pragma: no cover - compiled
    if w == 0.0:
        return 0.0
    return 1.0 - (1.0 - w * w) / (1.0 + w * math.exp(s - a))


@njit(cache=True, inline="always")
def _logistic(w, a, s):  # pragma: no cover - compiled
    if w == 0.0 or w == 1.0:
        return w
    z = math.log(w / (1.0 - w)) + (s - a)
    return 1.0 / (1.0 + math.exp(-z))


@njit(cache=True, inline="always")
def _quad_combine(fa, fs, v, iptr, iatt):  # pragma: no cover - compiled
    # QuAD: F_att alone, F_sup alone, or their mean; attacks precede supports in a CSR row, so
    # the row's first and last edges say which sides are present
    lo = iptr[v]
    hi = iptr[v + 1]
    if lo == hi or iatt[hi - 1]:  # no supporters
        return fa  # = w when there are no attackers either
    if not iatt[lo]:  # no attackers
        return fs
    return (fa + fs) / 2.0


# ------------------------------------------------------------------------------------- rules
# DF-QuAD: product aggregation × linear(1) influence, all fixed at compile time
@njit(cache=True, inline="always")
def _product_start(w, P):  # pragma: no cover - compiled
    return 1.0


@njit(cache=True, inline="always")
def _product_fold(acc, v, is_support, P):  # pragma: no cover - compiled
    return _product_add(acc, v)


@njit(cache=True, inline="always")
def _dfquad_finish(w, acc_a, acc_s, x, iptr, iatt, P):  # pragma: no cover - compiled
    return dfquad_combine(w, 1.0 - acc_a, 1.0 - acc_s)


# the modular rules: the aggregation fixed at compile time (it runs once per edge), the influence
# chosen by P = (inf, k, p) once per argument
@njit(cache=True, inline="always")
def _influence(w, a, s, P):  # pragma: no cover - compiled
    inf, k, p = P
    if inf == 0:
        return _linear(w, a, s, k)
    if inf == 1:
        return _pmax(w, a, s, k, p)
    if inf == 2:
        return _euler(w, a, s)
    if inf == 3:
        return _logistic(w, a, s)
    return w / (1.0 - (s - a))  # weighted h-categorizer (attack-only: s == 0)


@njit(cache=True, inline="always")
def _zero_start(w, P):  # pragma: no cover - compiled
    return 0.0


@njit(cache=True, inline="always")
def _sum_fold(acc, v, is_support, P):  # pragma: no cover - compiled
    return acc + v


@njit(cache=True, inline="always")
def _top_fold(acc, v, is_support, P):  # pragma: no cover - compiled
    return v if v > acc else acc


@njit(cache=True, inline="always")
def _modular_finish(w, acc_a, acc_s, x, iptr, iatt, P):  # pragma: no cover - compiled
    return _influence(w, acc_a, acc_s, P)


@njit(cache=True, inline="always")
def _product_finish(w, acc_a, acc_s, x, iptr, iatt, P):  # pragma: no cover - compiled
    # the accumulators hold ∏(1 − v); the polarity aggregates are 1 − ∏(1 − v)
    return _influence(w, 1.0 - acc_a, 1.0 - acc_s, P)


# QuAD: its attack and support functions fold from w, one argument at a time
@njit(cache=True, inline="always")
def _quad_start(w, P):  # pragma: no cover - compiled
    return w


@njit(cache=True, inline="always")
def _quad_fold(acc, v, is_support, P):  # pragma: no cover - compiled
    # f_att(v0, v) = v0·(1 − v) and f_supp(v0, v) = v0 + (1 − v0)·v
    if is_support:
        return acc + (1.0 - acc) * v
    return acc * (1.0 - v)


@njit(cache=True, inline="always")
def _quad_finish(w, acc_a, acc_s, x, iptr, iatt, P):  # pragma: no cover - compiled
    # the accumulators are F_att(w, att) and F_supp(w, sup)
    return _quad_combine(acc_a, acc_s, x, iptr, iatt)


# ------------------------------------------------------------------------------- scaffolding
@njit(cache=True)
def _index_order_direction(n, iptr, isrc):  # pragma: no cover - compiled
    """+1 if every edge goes from a lower to a higher index (index order is topological), -1 if
    every edge goes from higher to lower (reverse index order is), 0 otherwise. One sequential
    pass: worth it because frameworks numbered in debate order (source QBAFs: later arguments
    attack earlier ones) can then be evaluated with sequential instead of random row reads."""
    up = True
    down = True
    for v in range(n):
        for j in range(iptr[v], iptr[v + 1]):
            u = isrc[j]
            if u >= v:
                up = False
            if u <= v:
                down = False
        if not up and not down:
            return 0
    if up:
        return 1
    return -1 if down else 0


@njit(cache=True)
def _has_self_loop(v, iptr, isrc):  # pragma: no cover - compiled
    for j in range(iptr[v], iptr[v + 1]):
        if isrc[j] == v:
            return True
    return False


def _scaffolding(name, start, fold, finish):  # noqa: C901 - the solver, written once
    """The solver's functions compiled for one rule ``(start, fold, finish)`` (module docstring);
    returns its entry ``solve(n, tau, iptr, isrc, iatt, method, max_iter, tol, step, P)``.

    The rule's functions are constants of these closures, so numba resolves every call to them
    at compile time and LLVM inlines them: each rule gets its own machine code, with no
    indirect call, and the closures' code is linked into (and cached with) the instance that
    calls ``solve``.

    Each instance's functions get a qualified name of their own (``_<name>_solver.solve``, ...):
    numba names compiled symbols after the qualified name and a per-process counter, so the
    closures of two instances — same name, same argument types — could be compiled, cached, and
    later loaded into one process under one symbol, and one instance would run the other's
    rule (seen: the QuAD instance computing DF-QuAD's update)."""

    def jit(**options: object) -> object:
        def compile_as(fn: object) -> object:
            fn.__qualname__ = f"_{name}_solver.{fn.__name__}"  # type: ignore[attr-defined]
            return njit(**options)(fn)

        return compile_as

    @jit(inline="always")
    def update(x, tau, iptr, isrc, iatt, sigma, P):  # pragma: no cover - compiled
        """f(σ)(x): the rule applied to x's row."""
        # τ(x) is read where each part needs it (not held across the row: one register fewer in
        # the loop, measured ~5% on RK4 sweeps of sum-aggregation semantics)
        acc_a = start(tau[x], P)
        acc_s = acc_a
        # A row lists its attacks first (build_csr), so a first loop folds them without a branch
        # per edge; the second folds the rest, any order still handled. Same folds in the same
        # order as one loop — but with one loop LLVM turned the branch into a select on both
        # accumulators, 7-9% slower on RK4 sweeps of the sum rule (paired, 10^5 arguments).
        j = iptr[x]
        end = iptr[x + 1]
        while j < end and iatt[j]:
            acc_a = fold(acc_a, sigma[isrc[j]], False, P)
            j += 1
        while j < end:
            if iatt[j]:
                acc_a = fold(acc_a, sigma[isrc[j]], False, P)
            else:
                acc_s = fold(acc_s, sigma[isrc[j]], True, P)
            j += 1
        return finish(tau[x], acc_a, acc_s, x, iptr, iatt, P)

    @jit()
    def dfs_eval(n, tau, iptr, isrc, iatt, sigma, state, P):  # pragma: no cover - compiled
        """One exact pass in topological order: a depth-first search over *predecessors* (iterative,
        explicit stack) evaluates each argument at its post-order time, when all its predecessors
        are final. ``state``: 0 unvisited, 1 on the DFS path, 2 final.

        The two accumulators of a row are folded *during* its scan (a frame keeps them; the edge that
        caused a descent is read again on return, once its source is final), so every row is read
        once and folded in CSR order — bit-identical to :func:`update` — without a second pass
        over the row.

        Returns True if the whole graph was evaluated (it is acyclic); False as soon as an edge
        closes a cycle — ``state == 2`` then marks the arguments already final. A post-order over
        the incoming CSR needs no outgoing CSR, unlike Kahn's algorithm (measured: ~0.4 s less at
        5·10^6 edges).
        """
        stack_v = np.empty(n, np.int64)
        stack_j = np.empty(n, np.int64)
        stack_a = np.empty(n, np.float64)
        stack_s = np.empty(n, np.float64)
        for r in range(n):
            if state[r] != 0:
                continue
            state[r] = 1
            stack_v[0] = r
            stack_j[0] = iptr[r]
            stack_a[0] = start(tau[r], P)
            stack_s[0] = stack_a[0]
            sp = 1
            while sp > 0:
                v = stack_v[sp - 1]
                j = stack_j[sp - 1]
                acc_a = stack_a[sp - 1]
                acc_s = stack_s[sp - 1]
                end = iptr[v + 1]
                pushed = False
                while j < end:
                    u = isrc[j]
                    su = state[u]
                    if su == 2:
                        if iatt[j]:
                            acc_a = fold(acc_a, sigma[u], False, P)
                        else:
                            acc_s = fold(acc_s, sigma[u], True, P)
                        j += 1
                        continue
                    if su == 1:
                        return False
                    stack_j[sp - 1] = j  # edge j is read again once u is final
                    stack_a[sp - 1] = acc_a
                    stack_s[sp - 1] = acc_s
                    state[u] = 1
                    stack_v[sp] = u
                    stack_j[sp] = iptr[u]
                    stack_a[sp] = start(tau[u], P)
                    stack_s[sp] = stack_a[sp]
                    sp += 1
                    pushed = True
                    break
                if not pushed:
                    sigma[v] = finish(tau[v], acc_a, acc_s, v, iptr, iatt, P)
                    state[v] = 2
                    sp -= 1
        return True

    @jit()
    def iterate_component(c, tau, iptr, isrc, iatt, sigma, method, max_iter, tol, step, new, base, k1, k2, k3, P):  # pragma: no cover
        """Iterate one cyclic component ``c`` (argument indices) with its predecessors fixed, from
        the current σ (= τ on entry). Stops at the first iterate whose residual ‖f(σ) − σ‖∞ ≤ tol or
        after ``max_iter`` sweeps/steps; returns ``(iterations, residual)``. Mirrors
        ``reference.gradual_reference`` statement by statement."""
        s = c.shape[0]
        it = 0
        res = 0.0
        while True:
            res = 0.0
            for i in range(s):
                v = c[i]
                new[i] = update(v, tau, iptr, isrc, iatt, sigma, P)
                d = abs(new[i] - sigma[v])
                if d > res:
                    res = d
            if res <= tol or it >= max_iter:
                break
            it += 1
            if method == 0:
                for i in range(s):
                    sigma[c[i]] = new[i]
            else:
                for i in range(s):
                    v = c[i]
                    base[i] = sigma[v]
                    k1[i] = new[i] - base[i]
                for i in range(s):
                    sigma[c[i]] = base[i] + 0.5 * step * k1[i]
                for i in range(s):
                    v = c[i]
                    k2[i] = update(v, tau, iptr, isrc, iatt, sigma, P) - sigma[v]
                for i in range(s):
                    sigma[c[i]] = base[i] + 0.5 * step * k2[i]
                for i in range(s):
                    v = c[i]
                    k3[i] = update(v, tau, iptr, isrc, iatt, sigma, P) - sigma[v]
                for i in range(s):
                    sigma[c[i]] = base[i] + step * k3[i]
                for i in range(s):
                    v = c[i]
                    new[i] = update(v, tau, iptr, isrc, iatt, sigma, P) - sigma[v]  # k4
                for i in range(s):
                    x = base[i] + step / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + new[i])
                    sigma[c[i]] = min(1.0, max(0.0, x))
        return it, res

    @jit()
    def iterate_large_component(c, tau, iptr, isrc, iatt, sigma, loc, method, max_iter, tol, step, new, base, k1, k2, k3, P):  # pragma: no cover
        """:func:`iterate_component` on a compact copy of the component: its rows renumbered
        0..s-1 and stored contiguously, every edge keeping its position in its row, and the fixed
        values of external predecessors copied next to the component's own values. Each sweep then
        reads rows sequentially instead of jumping through the whole graph; the arithmetic, and so
        every bit of the result, is unchanged. ``loc`` is a scratch array of -1s (left as found)."""
        s = c.shape[0]
        m = 0
        for i in range(s):
            loc[c[i]] = i
            m += iptr[c[i] + 1] - iptr[c[i]]
        lptr = np.empty(s + 1, np.int64)
        lsrc = np.empty(m, np.int64)
        latt = np.empty(m, np.bool_)
        ltau = np.empty(s, np.float64)
        lval = np.empty(s + m, np.float64)
        ext = s
        k = 0
        for i in range(s):
            v = c[i]
            lptr[i] = k
            ltau[i] = tau[v]
            lval[i] = sigma[v]
            for j in range(iptr[v], iptr[v + 1]):
                u = isrc[j]
                latt[k] = iatt[j]
                if loc[u] >= 0:
                    lsrc[k] = loc[u]
                else:
                    lsrc[k] = ext
                    lval[ext] = sigma[u]
                    ext += 1
                k += 1
        lptr[s] = k
        it, res = iterate_component(np.arange(s), ltau, lptr, lsrc, latt, lval, method, max_iter, tol, step, new, base, k1, k2, k3, P)
        for i in range(s):
            sigma[c[i]] = lval[i]
            loc[c[i]] = -1
        return it, res

    @jit()
    def solve(n, tau, iptr, isrc, iatt, method, max_iter, tol, step, P):  # pragma: no cover
        """The strengths of a whole framework (or of a batch: disjoint frameworks are just one bigger
        graph) under the rule ``(start, add, finish, P)``, by the scheme of the module docstring.

        Returns ``(sigma, cyc_node, cyc_size, cyc_iters, cyc_res, bad)``: one entry per cyclic
        component (a representative argument, its size, its iterations and its final residual), and
        ``bad[v]`` True iff ``v`` lies in a cyclic component that did not reach ``tol``.
        """
        sigma = tau.copy()
        bad = np.zeros(n, np.bool_)
        z = np.zeros(0, np.int64)
        direction = _index_order_direction(n, iptr, isrc)
        if direction != 0:
            for i in range(n):
                v = i if direction == 1 else n - 1 - i
                sigma[v] = update(v, tau, iptr, isrc, iatt, sigma, P)
            return sigma, z, z.copy(), z.copy(), np.zeros(0, np.float64), bad
        state = np.zeros(n, np.uint8)
        if dfs_eval(n, tau, iptr, isrc, iatt, sigma, state, P):
            return sigma, z, z.copy(), z.copy(), np.zeros(0, np.float64), bad
        done = np.zeros(n, np.bool_)
        for v in range(n):
            if state[v] == 2:
                done[v] = True
            else:
                sigma[v] = tau[v]  # σ⁰ = τ for everything not final
        comp_ptr, comp_nodes, nc = tarjan_components(n, iptr, isrc, done)
        max_size = 0
        n_cyc = 0
        for ci in range(nc):
            s = comp_ptr[ci + 1] - comp_ptr[ci]
            if s > max_size:
                max_size = s
            if s > 1 or _has_self_loop(comp_nodes[comp_ptr[ci]], iptr, isrc):
                n_cyc += 1
        new = np.empty(max_size, np.float64)
        base = np.empty(max_size, np.float64)
        k1 = np.empty(max_size, np.float64)
        k2 = np.empty(max_size, np.float64)
        k3 = np.empty(max_size, np.float64)
        cyc_node = np.empty(n_cyc, np.int64)
        cyc_size = np.empty(n_cyc, np.int64)
        cyc_iters = np.empty(n_cyc, np.int64)
        cyc_res = np.empty(n_cyc, np.float64)
        loc = np.full(n if max_size >= LARGE_COMPONENT else 0, -1, np.int64)
        q = 0
        for ci in range(nc):
            c = comp_nodes[comp_ptr[ci] : comp_ptr[ci + 1]]
            v0 = c[0]
            if c.shape[0] == 1 and not _has_self_loop(v0, iptr, isrc):
                sigma[v0] = update(v0, tau, iptr, isrc, iatt, sigma, P)
                continue
            if c.shape[0] >= LARGE_COMPONENT:
                it, res = iterate_large_component(c, tau, iptr, isrc, iatt, sigma, loc, method, max_iter, tol, step, new, base, k1, k2, k3, P)
            else:
                it, res = iterate_component(c, tau, iptr, isrc, iatt, sigma, method, max_iter, tol, step, new, base, k1, k2, k3, P)
            cyc_node[q] = v0
            cyc_size[q] = c.shape[0]
            cyc_iters[q] = it
            cyc_res[q] = res
            if not res <= tol:
                for v in c:
                    bad[v] = True
            q += 1
        return sigma, cyc_node, cyc_size, cyc_iters, cyc_res, bad

    return solve


# ------------------------------------------------------------------------------- instances
_DFQUAD = _scaffolding("dfquad", _product_start, _product_fold, _dfquad_finish)
_SUM = _scaffolding("sum", _zero_start, _sum_fold, _modular_finish)
_PRODUCT = _scaffolding("product", _product_start, _product_fold, _product_finish)
_TOP = _scaffolding("top", _zero_start, _top_fold, _modular_finish)
_QUAD = _scaffolding("quad", _quad_start, _quad_fold, _quad_finish)


@njit(cache=True)
def dfquad_solve(n, tau, iptr, isrc, iatt, method, max_iter, tol, step):  # pragma: no cover
    """DF-QuAD strengths: the scaffolding with the product × linear(1) rule."""
    return _DFQUAD(n, tau, iptr, isrc, iatt, method, max_iter, tol, step, (0,))


@njit(cache=True)
def sum_solve(n, tau, iptr, isrc, iatt, inf, k, p, method, max_iter, tol, step):  # pragma: no cover
    """Sum aggregation × the influence ``(inf, k, p)``."""
    return _SUM(n, tau, iptr, isrc, iatt, method, max_iter, tol, step, (inf, k, p))


@njit(cache=True)
def product_solve(n, tau, iptr, isrc, iatt, inf, k, p, method, max_iter, tol, step):  # pragma: no cover
    """Product aggregation × the influence ``(inf, k, p)``."""
    return _PRODUCT(n, tau, iptr, isrc, iatt, method, max_iter, tol, step, (inf, k, p))


@njit(cache=True)
def top_solve(n, tau, iptr, isrc, iatt, inf, k, p, method, max_iter, tol, step):  # pragma: no cover
    """Top aggregation × the influence ``(inf, k, p)``."""
    return _TOP(n, tau, iptr, isrc, iatt, method, max_iter, tol, step, (inf, k, p))


@njit(cache=True)
def quad_solve(n, tau, iptr, isrc, iatt, method, max_iter, tol, step):  # pragma: no cover
    """QuAD: its attack / support functions and combination."""
    return _QUAD(n, tau, iptr, isrc, iatt, method, max_iter, tol, step, (0,))


def gradual_solve(n, tau, iptr, isrc, iatt, agg, inf, k, p, method, max_iter, tol, step):
    """Strengths under the semantics with kernel codes (``agg``, ``inf``, ``k``, ``p``; see
    :attr:`argfaith.qbaf.semantics.GradualSemantics.kernel_codes`): the instance of its
    aggregation, each compiled on first use."""
    if agg == AGG_QUAD:
        return quad_solve(n, tau, iptr, isrc, iatt, method, max_iter, tol, step)
    solve = (sum_solve, product_solve, top_solve)[agg]
    return solve(n, tau, iptr, isrc, iatt, inf, k, p, method, max_iter, tol, step)
