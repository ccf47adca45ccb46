"""numba kernels for every modular gradual semantics (private; the public API is
:mod:`argfaith.qbaf.gradual`).

The scheme is the DF-QuAD solver's (:mod:`argfaith.qbaf._kernels`), with the update
σ(x) = ι(w, α) of :mod:`argfaith.qbaf.semantics` chosen by integer codes:

* aggregation ``agg``: 0 sum, 1 product, 2 top — each polarity is folded in CSR order
  (attackers and supporters each in input order) into A = g(att) and S = g(sup); 3 is QuAD's
  sequential attack / support functions (they start from w, so they fold per argument too);
* influence ``inf``: 0 linear(k), 1 p-max(p, k), 2 euler, 3 logistic (MLP), 4 h-categorizer,
  5 QuAD's combination (which also needs whether each side is empty).

The arithmetic follows :meth:`argfaith.qbaf.semantics.GradualSemantics.update` operation for
operation, and the stopping rule and RK4 stages are those of the DF-QuAD kernel, so the kernel
agrees with the plain-Python references (:mod:`argfaith.qbaf.reference`) to the last bit on the
tests' inputs (``exp`` / ``log`` come from the same C library in both).

Branches on ``agg`` / ``inf`` sit outside the loops over a row, so a semantics costs one
predictable branch per argument over DF-QuAD's dedicated kernel.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from argfaith.qbaf._kernels import LARGE_COMPONENT, _has_self_loop, _index_order_direction, tarjan_components

__all__ = ["gradual_solve", "AGG_SUM", "AGG_PRODUCT", "AGG_TOP", "AGG_QUAD"]

AGG_SUM = 0
AGG_PRODUCT = 1
AGG_TOP = 2
AGG_QUAD = 3


@njit(cache=True, inline="always")
def _acc_init(agg, w):  # pragma: no cover - compiled
    if agg == 3:
        return w
    return 1.0 if agg == 1 else 0.0


@njit(cache=True, inline="always")
def _acc_add(agg, acc, v, sup):  # pragma: no cover - compiled
    if agg == 1:
        return acc * (1.0 - v)
    if agg == 0:
        return acc + v
    if agg == 2:
        return v if v > acc else acc
    # QuAD's f_att(v0, v) = v0·(1 − v) and f_supp(v0, v) = v0 + (1 − v0)·v, one argument at a time
    if sup:
        return acc + (1.0 - acc) * v
    return acc * (1.0 - v)


@njit(cache=True, inline="always")
def _influence(agg, inf, w, acc_a, acc_s, na, ns, k, p):  # pragma: no cover - compiled
    """σ = ι(w, A, S) from the raw accumulators (product: ∏(1 − v); sum: Σ v; top: max v)."""
    if inf == 5:  # QuAD (agg 3): the accumulators are already F_att(w, att) and F_supp(w, sup)
        if ns == 0:
            return acc_a  # = w when there are no attackers either
        if na == 0:
            return acc_s
        return (acc_a + acc_s) / 2.0
    if agg == 1:
        a = 1.0 - acc_a
        s = 1.0 - acc_s
    else:
        a = acc_a
        s = acc_s
    if inf == 0:  # linear(k); written as DF-QuAD's c(v0, va, vs) so that k = 1 is bit-identical
        if a >= s:
            return w - (w / k) * (a - s)
        return w + ((1.0 - w) / k) * (s - a)
    if inf == 1:  # p-max(k)
        if a >= s:
            x = (a - s) / k
            xp = x * x if p == 2.0 else x**p
            return w - w * (xp / (1.0 + xp))
        x = (s - a) / k
        xp = x * x if p == 2.0 else x**p
        return w + (1.0 - w) * (xp / (1.0 + xp))
    if inf == 2:  # Euler-based
        if w == 0.0:
            return 0.0
        return 1.0 - (1.0 - w * w) / (1.0 + w * math.exp(s - a))
    if inf == 3:  # logistic (MLP-based)
        if w == 0.0 or w == 1.0:
            return w
        z = math.log(w / (1.0 - w)) + (s - a)
        return 1.0 / (1.0 + math.exp(-z))
    # weighted h-categorizer (attack-only: s == 0)
    return w / (1.0 - (s - a))


@njit(cache=True, inline="always")
def _f(v, tau, iptr, isrc, iatt, sigma, agg, inf, k, p):  # pragma: no cover - compiled
    acc_a = _acc_init(agg, tau[v])
    acc_s = acc_a
    na = 0
    ns = 0
    for j in range(iptr[v], iptr[v + 1]):
        if iatt[j]:
            acc_a = _acc_add(agg, acc_a, sigma[isrc[j]], False)
            na += 1
        else:
            acc_s = _acc_add(agg, acc_s, sigma[isrc[j]], True)
            ns += 1
    return _influence(agg, inf, tau[v], acc_a, acc_s, na, ns, k, p)


@njit(cache=True)
def _dfs_eval(n, tau, iptr, isrc, iatt, sigma, state, agg, inf, k, p):  # pragma: no cover - compiled
    """One exact pass in topological order (DFS post-order over predecessors), accumulating each
    row's polarity aggregates while scanning it — :func:`argfaith.qbaf._kernels._dfs_eval` with
    the generic update. Returns False as soon as an edge closes a cycle."""
    stack_v = np.empty(n, np.int64)
    stack_j = np.empty(n, np.int64)
    stack_a = np.empty(n, np.float64)
    stack_s = np.empty(n, np.float64)
    stack_na = np.empty(n, np.int64)
    stack_ns = np.empty(n, np.int64)
    for r in range(n):
        if state[r] != 0:
            continue
        state[r] = 1
        stack_v[0] = r
        stack_j[0] = iptr[r]
        stack_a[0] = _acc_init(agg, tau[r])
        stack_s[0] = stack_a[0]
        stack_na[0] = 0
        stack_ns[0] = 0
        sp = 1
        while sp > 0:
            v = stack_v[sp - 1]
            j = stack_j[sp - 1]
            acc_a = stack_a[sp - 1]
            acc_s = stack_s[sp - 1]
            na = stack_na[sp - 1]
            ns = stack_ns[sp - 1]
            end = iptr[v + 1]
            pushed = False
            while j < end:
                u = isrc[j]
                su = state[u]
                if su == 2:
                    if iatt[j]:
                        acc_a = _acc_add(agg, acc_a, sigma[u], False)
                        na += 1
                    else:
                        acc_s = _acc_add(agg, acc_s, sigma[u], True)
                        ns += 1
                    j += 1
                    continue
                if su == 1:
                    return False
                stack_j[sp - 1] = j
                stack_a[sp - 1] = acc_a
                stack_s[sp - 1] = acc_s
                stack_na[sp - 1] = na
                stack_ns[sp - 1] = ns
                state[u] = 1
                stack_v[sp] = u
                stack_j[sp] = iptr[u]
                stack_a[sp] = _acc_init(agg, tau[u])
                stack_s[sp] = stack_a[sp]
                stack_na[sp] = 0
                stack_ns[sp] = 0
                sp += 1
                pushed = True
                break
            if not pushed:
                sigma[v] = _influence(agg, inf, tau[v], acc_a, acc_s, na, ns, k, p)
                state[v] = 2
                sp -= 1
    return True


@njit(cache=True)
def _iterate_component(c, tau, iptr, isrc, iatt, sigma, method, max_iter, tol, step, new, base, k1, k2, k3, agg, inf, k, p):  # pragma: no cover
    """Iterate one cyclic component with its predecessors fixed, from σ = τ: synchronous sweeps
    (``method`` 0) or classical RK4 steps on dσ/dt = f(σ) − σ clamped to [0, 1] (``method`` 1).
    Stops at the first iterate with ‖f(σ) − σ‖∞ ≤ tol or after ``max_iter``; returns
    ``(iterations, residual)``. Same statements as the DF-QuAD kernel's."""
    s = c.shape[0]
    it = 0
    res = 0.0
    while True:
        res = 0.0
        for i in range(s):
            v = c[i]
            new[i] = _f(v, tau, iptr, isrc, iatt, sigma, agg, inf, k, p)
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
                k2[i] = _f(v, tau, iptr, isrc, iatt, sigma, agg, inf, k, p) - sigma[v]
            for i in range(s):
                sigma[c[i]] = base[i] + 0.5 * step * k2[i]
            for i in range(s):
                v = c[i]
                k3[i] = _f(v, tau, iptr, isrc, iatt, sigma, agg, inf, k, p) - sigma[v]
            for i in range(s):
                sigma[c[i]] = base[i] + step * k3[i]
            for i in range(s):
                v = c[i]
                new[i] = _f(v, tau, iptr, isrc, iatt, sigma, agg, inf, k, p) - sigma[v]  # k4
            for i in range(s):
                x = base[i] + step / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + new[i])
                sigma[c[i]] = min(1.0, max(0.0, x))
    return it, res


@njit(cache=True)
def _iterate_large_component(c, tau, iptr, isrc, iatt, sigma, loc, method, max_iter, tol, step, new, base, k1, k2, k3, agg, inf, k, p):  # pragma: no cover
    """:func:`_iterate_component` on a compact, renumbered copy of the component's rows (same
    arithmetic; sequential memory access), as in the DF-QuAD kernel."""
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
    q = 0
    for i in range(s):
        v = c[i]
        lptr[i] = q
        ltau[i] = tau[v]
        lval[i] = sigma[v]
        for j in range(iptr[v], iptr[v + 1]):
            u = isrc[j]
            latt[q] = iatt[j]
            if loc[u] >= 0:
                lsrc[q] = loc[u]
            else:
                lsrc[q] = ext
                lval[ext] = sigma[u]
                ext += 1
            q += 1
    lptr[s] = q
    it, res = _iterate_component(
        np.arange(s), ltau, lptr, lsrc, latt, lval, method, max_iter, tol, step, new, base, k1, k2, k3, agg, inf, k, p
    )
    for i in range(s):
        sigma[c[i]] = lval[i]
        loc[c[i]] = -1
    return it, res


@njit(cache=True)
def gradual_solve(n, tau, iptr, isrc, iatt, agg, inf, k, p, method, max_iter, tol, step):  # pragma: no cover
    """Strengths of a whole framework (or batch) under the semantics (``agg``, ``inf``, ``k``,
    ``p``): exact one pass on acyclic graphs (index order or DFS post-order), else Tarjan
    condensation with every cyclic component iterated. Returns
    ``(sigma, cyc_node, cyc_size, cyc_iters, cyc_res, bad)`` exactly as
    :func:`argfaith.qbaf._kernels.dfquad_solve` does."""
    sigma = tau.copy()
    bad = np.zeros(n, np.bool_)
    z = np.zeros(0, np.int64)
    direction = _index_order_direction(n, iptr, isrc)
    if direction != 0:
        for i in range(n):
            v = i if direction == 1 else n - 1 - i
            sigma[v] = _f(v, tau, iptr, isrc, iatt, sigma, agg, inf, k, p)
        return sigma, z, z.copy(), z.copy(), np.zeros(0, np.float64), bad
    state = np.zeros(n, np.uint8)
    if _dfs_eval(n, tau, iptr, isrc, iatt, sigma, state, agg, inf, k, p):
        return sigma, z, z.copy(), z.copy(), np.zeros(0, np.float64), bad
    done = np.zeros(n, np.bool_)
    for v in range(n):
        if state[v] == 2:
            done[v] = True
        else:
            sigma[v] = tau[v]
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
            sigma[v0] = _f(v0, tau, iptr, isrc, iatt, sigma, agg, inf, k, p)
            continue
        if c.shape[0] >= LARGE_COMPONENT:
            it, res = _iterate_large_component(
                c, tau, iptr, isrc, iatt, sigma, loc, method, max_iter, tol, step, new, base, k1, k2, k3, agg, inf, k, p
            )
        else:
            it, res = _iterate_component(
                c, tau, iptr, isrc, iatt, sigma, method, max_iter, tol, step, new, base, k1, k2, k3, agg, inf, k, p
            )
        cyc_node[q] = v0
        cyc_size[q] = c.shape[0]
        cyc_iters[q] = it
        cyc_res[q] = res
        if not res <= tol:
            for v in c:
                bad[v] = True
        q += 1
    return sigma, cyc_node, cyc_size, cyc_iters, cyc_res, bad
