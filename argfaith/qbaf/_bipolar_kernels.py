"""numba kernels for bipolar set-attacks and the Dung-level algorithms built on them.

Private: :mod:`argfaith.qbaf.bipolar` is the public face. Every kernel works on CSR arrays
(``ptr`` of length n + 1, ``idx`` of neighbour indices) and is compiled with ``cache=True`` so
the CLI pays the JIT cost once per installation, not once per call. Plain-Python references for
the differential tests live in :mod:`argfaith.qbaf.reference`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from argfaith.qbaf._kernels import tarjan_components

__all__ = [
    "set_attack_csr",
    "set_attack_csr_bitset",
    "transpose_csr",
    "grounded_labels",
    "scc_labels",
]


@njit(cache=True)
def _grow(buf: np.ndarray, need: int) -> np.ndarray:
    cap = buf.shape[0]
    while cap < need:
        cap *= 2
    out = np.empty(cap, dtype=buf.dtype)
    out[: buf.shape[0]] = buf
    return out


@njit(cache=True)
def set_attack_csr(
    n: int,
    sup_ptr: np.ndarray,
    sup_src: np.ndarray,
    att_ptr: np.ndarray,
    att_src: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Set-attackers of every argument, as an incoming CSR ``(ptr, src)`` with sorted rows, and
    the mask of self-attacking arguments.

    ``sup_ptr/sup_src`` list the supporters and ``att_ptr/att_src`` the attackers of each
    argument. For each target y, two backward searches with per-target visit stamps:

    * supported and direct attacks: every x with x S* s and (s, y) ∈ A — a search backwards
      along supports from the attackers of y; every node it reaches is a set-attacker;
    * indirect and direct attacks: every s with (s, t) ∈ A and t S* y — a search backwards
      along supports from y, collecting the attackers of each node reached.

    Supports are never followed on both sides of the attack, so mixed chains are excluded
    (PAPER.md §4). Cost per target: the support-ancestors visited, i.e. output-sensitive for
    the first part; memory O(n + |R|) — no n × n matrix.
    """
    stamp_sup = np.full(n, -1, dtype=np.int64)  # visited by the supported-attack search of y
    stamp_anc = np.full(n, -1, dtype=np.int64)  # visited by the backward search from y
    stamp_out = np.full(n, -1, dtype=np.int64)  # already emitted as an attacker of y
    stack = np.empty(max(n, 1), dtype=np.int64)
    ptr = np.zeros(n + 1, dtype=np.int64)
    self_attack = np.zeros(n, dtype=np.bool_)
    out = np.empty(max(16, 2 * att_src.shape[0]), dtype=np.int32)
    k = 0
    for y in range(n):
        start = k
        top = 0
        for j in range(att_ptr[y], att_ptr[y + 1]):
            s = att_src[j]
            if stamp_sup[s] != y:
                stamp_sup[s] = y
                stack[top] = s
                top += 1
        while top > 0:
            top -= 1
            x = stack[top]
            if stamp_out[x] != y:
                stamp_out[x] = y
                if k >= out.shape[0]:
                    out = _grow(out, k + 1)
                out[k] = x
                k += 1
            for j in range(sup_ptr[x], sup_ptr[x + 1]):
                u = sup_src[j]
                if stamp_sup[u] != y:
                    stamp_sup[u] = y
                    stack[top] = u
                    top += 1
        stamp_anc[y] = y
        stack[0] = y
        top = 1
        while top > 0:
            top -= 1
            t = stack[top]
            for j in range(att_ptr[t], att_ptr[t + 1]):
                s = att_src[j]
                if stamp_out[s] != y:
                    stamp_out[s] = y
                    if k >= out.shape[0]:
                        out = _grow(out, k + 1)
                    out[k] = s
                    k += 1
            for j in range(sup_ptr[t], sup_ptr[t + 1]):
                u = sup_src[j]
                if stamp_anc[u] != y:
                    stamp_anc[u] = y
                    stack[top] = u
                    top += 1
        self_attack[y] = stamp_out[y] == y
        if (k - start) * 16 > n:
            # Dense row: reading the stamps in index order is cheaper than sorting.
            j = start
            for v in range(n):
                if stamp_out[v] == y:
                    out[j] = v
                    j += 1
        else:
            out[start:k] = np.sort(out[start:k])
        ptr[y + 1] = k
    return ptr, out[:k].copy(), self_attack


@njit(cache=True)
def transpose_csr(n: int, ptr: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Transpose a CSR relation by counting sort (rows of the result come out sorted)."""
    tptr = np.zeros(n + 1, dtype=np.int64)
    for j in range(idx.shape[0]):
        tptr[idx[j] + 1] += 1
    for v in range(n):
        tptr[v + 1] += tptr[v]
    fill = tptr[:-1].copy()
    tidx = np.empty(idx.shape[0], dtype=np.int32)
    for v in range(n):
        for j in range(ptr[v], ptr[v + 1]):
            w = idx[j]
            tidx[fill[w]] = v
            fill[w] += 1
    return tptr, tidx


@njit(cache=True)
def grounded_labels(
    n: int, in_ptr: np.ndarray, in_src: np.ndarray, out_ptr: np.ndarray, out_dst: np.ndarray
) -> np.ndarray:
    """Grounded labelling of a Dung AF: 1 = in, -1 = out, 0 = undecided.

    The least fixed point of the characteristic function (Dung 1995), computed by the usual
    counter propagation in O(n + |R|): an argument goes in once all its attackers are out, and
    everything an in-argument attacks goes out. Rows must not contain duplicates.
    """
    lab = np.zeros(n, dtype=np.int8)
    alive = np.empty(n, dtype=np.int64)  # attackers not (yet) labelled out
    queue = np.empty(max(n, 1), dtype=np.int64)
    head = 0
    tail = 0
    for v in range(n):
        alive[v] = in_ptr[v + 1] - in_ptr[v]
        if alive[v] == 0:
            lab[v] = 1
            queue[tail] = v
            tail += 1
    while head < tail:
        v = queue[head]
        head += 1
        for j in range(out_ptr[v], out_ptr[v + 1]):
            w = out_dst[j]
            if lab[w] != -1:  # an in-argument never attacks an in-argument here
                lab[w] = -1
                for i in range(out_ptr[w], out_ptr[w + 1]):
                    z = out_dst[i]
                    alive[z] -= 1
                    if alive[z] == 0 and lab[z] == 0:
                        lab[z] = 1
                        queue[tail] = z
                        tail += 1
    return lab


@njit(cache=True)
def scc_labels(n: int, ptr: np.ndarray, dst: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, int]:
    """Strongly connected components of the subgraph induced by ``mask`` (Tarjan, iterative;
    the gradual solver's :func:`~argfaith.qbaf._kernels.tarjan_components` on successors).

    Returns ``(comp, n_comp)`` with ``comp[v] = -1`` outside the mask. Component numbers are
    in reverse topological order (Tarjan closes sink components first).
    """
    comp_ptr, comp_nodes, n_comp = tarjan_components(n, ptr, dst, ~mask)
    comp = np.full(n, -1, dtype=np.int64)
    for c in range(n_comp):
        for k in range(comp_ptr[c], comp_ptr[c + 1]):
            comp[comp_nodes[k]] = c
    return comp, n_comp


# Position of the single set bit of a power of two x: _DEBRUIJN_INDEX[(x * _DEBRUIJN) >> 58]
# (de Bruijn multiplication, Leiserson, Prokop & Randall 1998); uint64 products wrap mod 2^64.
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_INDEX[((1 << _i) * 0x03F79D71B4CB0A89 % (1 << 64)) >> 58] = _i
del _i


@njit(cache=True)
def set_attack_csr_bitset(
    n: int,
    sup_ptr: np.ndarray,
    sup_src: np.ndarray,
    att_ptr: np.ndarray,
    att_src: np.ndarray,
    comp: np.ndarray,
    n_comp: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Same output as :func:`set_attack_csr`, by bitsets over the support condensation.

    ``comp`` are the strongly connected components of the support graph numbered in reverse
    topological order (as :func:`scc_labels` returns them), so every predecessor of component c
    has a larger number. Per component, two bitsets of n bits:

    * ``anc[c]`` = S*-ancestors of c (its members and everything that supports its way to c);
    * ``ind[c]`` = sources of attacks on S*-ancestors of c (the indirect and direct attackers of
      any member of c).

    The set-attackers of y are ``ind[c(y)] | OR_{(s, y) ∈ A} anc[c(s)]``. Cost
    O((|S| + |A| + n) · n/64 + |R|) and 2 · n_comp · n/8 bytes: the dense-closure path.
    """
    words = (n + 63) // 64
    anc = np.zeros((max(n_comp, 1), max(words, 1)), dtype=np.uint64)
    ind = np.zeros((max(n_comp, 1), max(words, 1)), dtype=np.uint64)
    # members of each component, grouped
    cnt = np.zeros(n_comp + 1, dtype=np.int64)
    for v in range(n):
        cnt[comp[v] + 1] += 1
    for c in range(n_comp):
        cnt[c + 1] += cnt[c]
    fill = cnt[:-1].copy()
    members = np.empty(n, dtype=np.int64)
    for v in range(n):
        members[fill[comp[v]]] = v
        fill[comp[v]] += 1
    one = np.uint64(1)
    for c in range(n_comp - 1, -1, -1):  # sources first
        for j in range(cnt[c], cnt[c + 1]):
            v = members[j]
            anc[c, v >> 6] |= one << np.uint64(v & 63)
            for i in range(att_ptr[v], att_ptr[v + 1]):
                s = att_src[i]
                ind[c, s >> 6] |= one << np.uint64(s & 63)
            for i in range(sup_ptr[v], sup_ptr[v + 1]):
                c2 = comp[sup_src[i]]
                if c2 != c:
                    for w in range(words):
                        anc[c, w] |= anc[c2, w]
                        ind[c, w] |= ind[c2, w]
    ptr = np.zeros(n + 1, dtype=np.int64)
    self_attack = np.zeros(n, dtype=np.bool_)
    out = np.empty(max(16, 2 * att_src.shape[0]), dtype=np.int32)
    row = np.empty(max(words, 1), dtype=np.uint64)
    k = 0
    for y in range(n):
        cy = comp[y]
        for w in range(words):
            row[w] = ind[cy, w]
        for i in range(att_ptr[y], att_ptr[y + 1]):
            cs = comp[att_src[i]]
            for w in range(words):
                row[w] |= anc[cs, w]
        for w in range(words):
            b = row[w]
            while b != 0:
                low = b & (~b + one)  # lowest set bit
                bit = _DEBRUIJN_INDEX[(low * _DEBRUIJN) >> np.uint64(58)]
                if k >= out.shape[0]:
                    out = _grow(out, k + 1)
                out[k] = w * 64 + bit
                k += 1
                b ^= low
        self_attack[y] = (row[y >> 6] >> np.uint64(y & 63)) & one == one
        ptr[y + 1] = k
    return ptr, out[:k].copy(), self_attack
