"""numba kernels of the explanations: removal influence of every argument on every proposal of an
acyclic QBAF, by propagating each removal through the removed argument's descendants only.

Why this is exact. In DF-QuAD (PAPER.md §2) an argument y enters its targets' aggregations only
through the factor (1 − σ(y)) of a product F = 1 − ∏(1 − σ); an argument with σ = 0 contributes
the factor 1, exactly as if it were absent. So σ_{Q−y} is σ with σ(y) set to 0 and the change
pushed forward: on an acyclic framework only the descendants of y change, each once, in
topological order. Each target keeps its attacker and supporter products as (product of the
non-zero factors, number of zero factors), so a changed input updates them in O(1) — one
division and one multiplication — instead of a rescan of all its inputs (proposals in mined
debates have thousands); the new σ comes from the solver's own DF-QuAD combination
(:func:`argfaith.qbaf._gradual_kernels.dfquad_combine`). Results agree with re-solving
``Q − y`` from scratch to rounding (~1e-15; the differential tests compare with the
plain-Python removal in :func:`argfaith.metrics.explain.argument_influences_reference`).

Cost: O(Σ_y (|desc(y)| · log + out-edges of desc(y))) instead of one DF-QuAD solve of the
ancestor set per (argument, proposal) pair.
"""

from __future__ import annotations

import heapq

import numpy as np
from numba import njit
from numba.typed import List

from argfaith.qbaf._gradual_kernels import dfquad_combine

__all__ = ["aggregation_products", "removal_influences_chunk"]


@njit(cache=True)
def aggregation_products(n, iptr, isrc, iatt, sigma):  # pragma: no cover - compiled
    """Per argument: ∏(1 − σ) over its attackers and over its supporters, each as (product of the
    non-zero factors, count of zero factors)."""
    pa = np.ones(n, np.float64)
    za = np.zeros(n, np.int64)
    ps = np.ones(n, np.float64)
    zs = np.zeros(n, np.int64)
    for v in range(n):
        for j in range(iptr[v], iptr[v + 1]):
            f = 1.0 - sigma[isrc[j]]
            if iatt[j]:
                if f == 0.0:
                    za[v] += 1
                else:
                    pa[v] *= f
            elif f == 0.0:
                zs[v] += 1
            else:
                ps[v] *= f
    return pa, za, ps, zs


@njit(cache=True, inline="always")
def _swap_factor(p, z, w, old, new):  # pragma: no cover - compiled
    # Take the factor `old` out of (product of non-zero factors, zero count) of w, put `new` in.
    if old == 0.0:
        z[w] -= 1
    else:
        p[w] /= old
    if new == 0.0:
        z[w] += 1
    else:
        p[w] *= new


@njit(cache=True, inline="always")
def _pass_on(v, old, new, mark, optr, odst, oatt, stamp, pa, za, ps, zs, apa, aza, aps, azs, heap, pos):  # pragma: no cover - compiled
    # v's factor in each child's attack / support product goes from `old` to `new`; a child met for
    # the first time under this removal (`mark`) starts from its unperturbed products and is queued.
    for j in range(optr[v], optr[v + 1]):
        w = odst[j]
        if stamp[w] != mark:
            stamp[w] = mark
            apa[w] = pa[w]
            aza[w] = za[w]
            aps[w] = ps[w]
            azs[w] = zs[w]
            heapq.heappush(heap, pos[w])
        if oatt[j]:
            _swap_factor(apa, aza, w, old, new)
        else:
            _swap_factor(aps, azs, w, old, new)


@njit(cache=True)
def removal_influences_chunk(
    candidates, first, tau, optr, odst, oatt, sigma, pos, node_at, is_target,
    pa, za, ps, zs, stamp, apa, aza, aps, azs,
):  # pragma: no cover - compiled
    """σ(t) − σ_{Q−y}(t) for each candidate y and each target t (``is_target``) whose strength the
    removal of y reaches. ``first`` numbers the candidates globally (stamps of the work arrays).

    Returns three arrays (candidate position in ``candidates``, target, influence). Targets that
    y reaches but whose inputs do not change (σ(y) = 0, say) are not listed: their influence is 0.
    """
    out_k = List.empty_list(np.int64)
    out_t = List.empty_list(np.int64)
    out_v = List.empty_list(np.float64)
    heap = [np.int64(0)]
    heap.pop()
    for k in range(candidates.shape[0]):
        y = candidates[k]
        mark = first + k
        stamp[y] = mark
        old_y = 1.0 - sigma[y]
        if old_y == 1.0:
            continue  # σ(y) = 0 already: removing it changes nothing
        _pass_on(y, old_y, 1.0, mark, optr, odst, oatt, stamp, pa, za, ps, zs, apa, aza, aps, azs, heap, pos)
        while len(heap) > 0:
            v = node_at[heapq.heappop(heap)]
            va = 1.0 - (0.0 if aza[v] > 0 else apa[v])
            vs = 1.0 - (0.0 if azs[v] > 0 else aps[v])
            nv = dfquad_combine(tau[v], va, vs)
            if is_target[v]:
                out_k.append(k)
                out_t.append(v)
                out_v.append(sigma[v] - nv)
            if nv == sigma[v]:
                continue
            old = 1.0 - sigma[v]
            new = 1.0 - nv
            _pass_on(v, old, new, mark, optr, odst, oatt, stamp, pa, za, ps, zs, apa, aza, aps, azs, heap, pos)
    m = len(out_k)
    ks = np.empty(m, np.int64)
    ts = np.empty(m, np.int64)
    vs_ = np.empty(m, np.float64)
    for i in range(m):
        ks[i] = out_k[i]
        ts[i] = out_t[i]
        vs_[i] = out_v[i]
    return ks, ts, vs_
