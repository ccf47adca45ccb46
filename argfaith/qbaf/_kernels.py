"""numba kernels of the QBAF engine's graph work (private; the public API lives in framework,
batch, paths, graph, bipolar): CSR construction and validation, Tarjan's components, Kahn's order,
reachability, pro/con sets, batch index translation. The solver of every gradual semantics,
DF-QuAD included, is :mod:`argfaith.qbaf._gradual_kernels`.

Every kernel works on flat arrays: argument indices ``0..n-1`` and the incoming-edge CSR
``(iptr, isrc, iatt)`` (edges entering ``v`` are ``isrc[iptr[v]:iptr[v+1]]``, attacks first,
each relation in input order) or the outgoing CSR ``(optr, odst, oatt)``. All kernels are
``@njit(cache=True)``: the first process compiles them into ``__pycache__`` and later processes
load the machine code instead of recompiling.

numba does no bounds checking, so every public wrapper validates indices *before* calling a
kernel (:func:`build_csr` checks them itself and reports the first bad edge).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "build_csr",
    "first_edge_conflict",
    "tarjan_components",
    "pro_con_chunk",
    "reach_backward",
    "reach_to_targets",
    "kahn_order",
    "scc_topological",
    "globalize_edges",
    "address_table",
    "match_addresses",
    "string_table",
    "match_strings",
]


# ---------------------------------------------------------------------------------------- CSR
@njit(cache=True)
def build_csr(n, att, sup, key_col):  # pragma: no cover - compiled
    """Stable counting sort of the edges ``att`` (m_a, 2) and ``sup`` (m_s, 2) by column
    ``key_col`` (1: by target → incoming CSR, 0: by source → outgoing CSR).

    Returns ``(bad, ptr, other, is_att)``: ``bad`` is -1, or the position of the first edge
    (attacks ``0..m_a-1``, then supports) with an endpoint outside ``0..n-1`` — in that case the
    other arrays are empty. Within one key attacks precede supports and each relation keeps its
    input order (O(n + m), no comparison sort).
    """
    ma = att.shape[0]
    ms = sup.shape[0]
    m = ma + ms
    val_col = 1 - key_col
    for k in range(ma):
        s = att[k, 0]
        t = att[k, 1]
        if s < 0 or s >= n or t < 0 or t >= n:
            return k, np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.bool_)
    for k in range(ms):
        s = sup[k, 0]
        t = sup[k, 1]
        if s < 0 or s >= n or t < 0 or t >= n:
            return ma + k, np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.bool_)
    ptr = np.zeros(n + 1, np.int64)
    for k in range(ma):
        ptr[att[k, key_col] + 1] += 1
    for k in range(ms):
        ptr[sup[k, key_col] + 1] += 1
    for v in range(n):
        ptr[v + 1] += ptr[v]
    fill = ptr[:-1].copy()
    other = np.empty(m, np.int64)
    is_att = np.empty(m, np.bool_)
    for k in range(ma):
        key = att[k, key_col]
        p = fill[key]
        fill[key] = p + 1
        other[p] = att[k, val_col]
        is_att[p] = True
    for k in range(ms):
        key = sup[k, key_col]
        p = fill[key]
        fill[key] = p + 1
        other[p] = sup[k, val_col]
        is_att[p] = False
    return -1, ptr, other, is_att


@njit(cache=True)
def first_edge_conflict(n, ptr, other):  # pragma: no cover - compiled
    """First pair of CSR slots ``(j1, j2)``, ``j1 < j2``, holding the same (source, target) pair,
    or ``(-1, -1)``. One O(n + m) sweep with a last-seen marker per neighbour instead of sorting
    edge codes (np.unique would sort 5·10^6 codes); ``j1`` is looked up in the row only when a
    pair repeats, so the sweep writes one marker per edge."""
    mark = np.full(n, -1, np.int64)
    for v in range(n):
        for j in range(ptr[v], ptr[v + 1]):
            u = other[j]
            if mark[u] == v:
                j1 = ptr[v]
                while other[j1] != u:
                    j1 += 1
                return j1, j
            mark[u] = v
    return -1, -1


# -------------------------------------------------------------------------------------- graph
@njit(cache=True)
def tarjan_components(n, iptr, isrc, done):  # pragma: no cover - compiled
    """Strongly connected components of the arguments not ``done``, by Tarjan's algorithm
    (iterative, explicit call stack) following the adjacency ``iptr``/``isrc``.

    Tarjan emits a component only after every component reachable from it through that
    adjacency. Run on the *predecessor* graph (the gradual-semantics solver), "reachable" means
    "ancestor", so the emission order is a topological order of the original condensation; run
    on successors (the bipolar kernels) it is a reverse topological order. ``done`` arguments
    are skipped, as roots and as neighbours. Returns ``(comp_ptr, comp_nodes, n_comps)``.
    """
    index = np.full(n, -1, np.int64)
    low = np.zeros(n, np.int64)
    on_stack = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int64)
    cs_v = np.empty(n, np.int64)
    cs_j = np.empty(n, np.int64)
    comp_nodes = np.empty(n, np.int64)
    comp_ptr = np.zeros(n + 1, np.int64)
    sp = 0
    nc = 0
    pos = 0
    counter = 0
    for r in range(n):
        if done[r] or index[r] != -1:
            continue
        index[r] = counter
        low[r] = counter
        counter += 1
        stack[sp] = r
        sp += 1
        on_stack[r] = True
        cs_v[0] = r
        cs_j[0] = iptr[r]
        csp = 1
        while csp > 0:
            v = cs_v[csp - 1]
            j = cs_j[csp - 1]
            if j < iptr[v + 1]:
                cs_j[csp - 1] = j + 1
                w = isrc[j]
                if done[w]:
                    continue
                if index[w] == -1:
                    index[w] = counter
                    low[w] = counter
                    counter += 1
                    stack[sp] = w
                    sp += 1
                    on_stack[w] = True
                    cs_v[csp] = w
                    cs_j[csp] = iptr[w]
                    csp += 1
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            csp -= 1
            if csp > 0:
                u = cs_v[csp - 1]
                if low[v] < low[u]:
                    low[u] = low[v]
            if low[v] == index[v]:
                comp_ptr[nc] = pos
                while True:
                    sp -= 1
                    w = stack[sp]
                    on_stack[w] = False
                    comp_nodes[pos] = w
                    pos += 1
                    if w == v:
                        break
                nc += 1
    comp_ptr[nc] = pos
    return comp_ptr, comp_nodes, nc


# -------------------------------------------------------------------------------------- paths
@njit(cache=True)
def pro_con_chunk(iptr, isrc, iatt, targets, r0, r1, z, in_queue, queue, touched):  # pragma: no cover
    """pro/con membership for up to 64 targets at once (bit ``k`` of a word = ``targets[k]``).

    ``r0[y]`` / ``r1[y]`` collect the targets x such that some non-empty walk y → x has an even
    / odd number of attacks. This is the search over (node, parity) states of PAPER.md §3 run
    for 64 targets in parallel: the least fixed point of
    ``R_{p ⊕ [e is attack]}(u) ⊇ R_p(v) ∪ ({v}·[p = 0 and v is a target])`` over edges e = (u, v),
    computed with a FIFO worklist (masks only grow, so it terminates on cyclic graphs too).

    The work arrays (``r0, r1, z`` zeroed, ``in_queue`` False, ``queue`` and ``touched`` of size
    n) are passed in and left clean again, so one chunk costs O(what it reaches), not O(n).
    Returns ``(pro_ptr, pro_idx, con_ptr, con_idx)``: per target k the argument indices,
    ascending.
    """
    n = r0.shape[0]
    n_t = targets.shape[0]
    one = np.uint64(1)
    head = 0
    size = 0
    n_touched = 0
    for k in range(n_t):
        t = targets[k]
        z[t] |= one << np.uint64(k)
        if not in_queue[t]:
            in_queue[t] = True
            queue[(head + size) % n] = t
            size += 1
    while size > 0:
        v = queue[head]
        head = (head + 1) % n
        size -= 1
        in_queue[v] = False
        out0 = r0[v] | z[v]
        out1 = r1[v]
        for j in range(iptr[v], iptr[v + 1]):
            u = isrc[j]
            if iatt[j]:
                n0 = r0[u] | out1
                n1 = r1[u] | out0
            else:
                n0 = r0[u] | out0
                n1 = r1[u] | out1
            if n0 != r0[u] or n1 != r1[u]:
                if r0[u] == 0 and r1[u] == 0:
                    touched[n_touched] = u
                    n_touched += 1
                r0[u] = n0
                r1[u] = n1
                if not in_queue[u]:
                    in_queue[u] = True
                    queue[(head + size) % n] = u
                    size += 1
    nodes = np.sort(touched[:n_touched])
    pro_ptr = np.zeros(n_t + 1, np.int64)
    con_ptr = np.zeros(n_t + 1, np.int64)
    for i in range(n_touched):
        v = nodes[i]
        for k in range(n_t):
            bit = one << np.uint64(k)
            if r0[v] & bit:
                pro_ptr[k + 1] += 1
            if r1[v] & bit:
                con_ptr[k + 1] += 1
    for k in range(n_t):
        pro_ptr[k + 1] += pro_ptr[k]
        con_ptr[k + 1] += con_ptr[k]
    pro_idx = np.empty(pro_ptr[n_t], np.int64)
    con_idx = np.empty(con_ptr[n_t], np.int64)
    pfill = pro_ptr[:-1].copy()
    cfill = con_ptr[:-1].copy()
    for i in range(n_touched):
        v = nodes[i]
        for k in range(n_t):
            bit = one << np.uint64(k)
            if r0[v] & bit:
                pro_idx[pfill[k]] = v
                pfill[k] += 1
            if r1[v] & bit:
                con_idx[cfill[k]] = v
                cfill[k] += 1
        r0[v] = 0
        r1[v] = 0
    for k in range(n_t):
        z[targets[k]] = 0
    return pro_ptr, pro_idx, con_ptr, con_idx


@njit(cache=True, inline="always")
def _push(u, seen, stack, top):  # pragma: no cover - compiled
    # put u on the search stack unless it was seen; the new stack height
    if seen[u]:
        return top
    seen[u] = True
    stack[top] = u
    return top + 1


@njit(cache=True, inline="always")
def _reach_from_stack(ptr, src, seen, stack, top):  # pragma: no cover - compiled
    # depth-first search along ``src`` rows from the ``top`` nodes on ``stack`` (already seen)
    while top > 0:
        top -= 1
        v = stack[top]
        for j in range(ptr[v], ptr[v + 1]):
            top = _push(src[j], seen, stack, top)
    return seen


@njit(cache=True)
def reach_backward(n, ptr, src, seeds):  # pragma: no cover - compiled
    """Mask of the nodes with a (possibly empty) path to some seed, following ``src`` rows
    (depth-first, explicit stack)."""
    seen = np.zeros(n, dtype=np.bool_)
    stack = np.empty(max(n, 1), dtype=np.int64)
    top = 0
    for s in seeds:
        top = _push(s, seen, stack, top)
    return _reach_from_stack(ptr, src, seen, stack, top)


@njit(cache=True)
def reach_to_targets(n, iptr, isrc, is_target):  # pragma: no cover - compiled
    """Arguments with a non-empty path to some target: the search of :func:`reach_backward`
    started from the targets' predecessors."""
    seen = np.zeros(n, dtype=np.bool_)
    stack = np.empty(max(n, 1), dtype=np.int64)
    top = 0
    for x in range(n):
        if is_target[x]:
            for j in range(iptr[x], iptr[x + 1]):
                top = _push(isrc[j], seen, stack, top)
    return _reach_from_stack(iptr, isrc, seen, stack, top)


# -------------------------------------------------------------------------------------- graph
@njit(cache=True)
def kahn_order(n, iptr, optr, odst):  # pragma: no cover - compiled
    """Kahn's algorithm: ``(order, k)``; the first ``k`` entries are a topological order of every
    argument with no cycle among its ancestors, ``k == n`` iff the graph is acyclic."""
    indeg = np.empty(n, np.int64)
    order = np.empty(n, np.int64)
    tail = 0
    for v in range(n):
        indeg[v] = iptr[v + 1] - iptr[v]
        if indeg[v] == 0:
            order[tail] = v
            tail += 1
    head = 0
    while head < tail:
        v = order[head]
        head += 1
        for j in range(optr[v], optr[v + 1]):
            w = odst[j]
            indeg[w] -= 1
            if indeg[w] == 0:
                order[tail] = w
                tail += 1
    return order, tail


@njit(cache=True)
def scc_topological(n, iptr, isrc):  # pragma: no cover - compiled
    """All strongly connected components, in topological order of the condensation."""
    return tarjan_components(n, iptr, isrc, np.zeros(n, np.bool_))


# -------------------------------------------------------------------------------------- batch
@njit(cache=True)
def globalize_edges(local, edge_offsets, node_offsets):  # pragma: no cover - compiled
    """Local (per-framework) edge indices → global indices of the concatenated batch.

    Returns ``(bad, glob)``: ``bad`` is -1 or the first edge whose endpoint lies outside its own
    framework (then ``glob`` is incomplete)."""
    m = local.shape[0]
    glob = np.empty((m, 2), np.int64)
    n_fw = edge_offsets.shape[0] - 1
    for f in range(n_fw):
        base = node_offsets[f]
        size = node_offsets[f + 1] - base
        for k in range(edge_offsets[f], edge_offsets[f + 1]):
            s = local[k, 0]
            t = local[k, 1]
            if s < 0 or s >= size or t < 0 or t >= size:
                return k, glob
            glob[k, 0] = base + s
            glob[k, 1] = base + t
    return -1, glob


# ------------------------------------------------------------------------------------ from_edges
_FIBONACCI = np.uint64(0x9E3779B97F4A7C15)  # 2^64 / golden ratio: multiplicative hashing


@njit(cache=True, inline="always")
def _log2_ceil(size):  # pragma: no cover - compiled
    # bits of the smallest power of two ≥ size, at least 1: a hash table's slot count and shift
    bits = 1
    while (1 << bits) < size:
        bits += 1
    return bits


@njit(cache=True)
def address_table(keys):  # pragma: no cover - compiled
    """An open-addressing hash table of ``keys`` (object addresses, never 0) for
    :func:`match_addresses`: slots of (key, position), 2-4 slots per key, hashed by Fibonacci
    multiplication; a repeated key keeps its first position."""
    bits = _log2_ceil(2 * keys.shape[0])
    mask = (1 << bits) - 1
    shift = np.uint64(64 - bits)
    slots = np.zeros((1 << bits, 2), np.int64)  # key 0: empty
    for i in range(keys.shape[0]):
        k = keys[i]
        h = np.int64((np.uint64(k) * _FIBONACCI) >> shift)
        while slots[h, 0] != 0 and slots[h, 0] != k:
            h = (h + 1) & mask
        if slots[h, 0] == 0:
            slots[h, 0] = k
            slots[h, 1] = i
    return slots


@njit(cache=True)
def match_addresses(slots, queries):  # pragma: no cover - compiled
    """Position of each of ``queries`` in the keys of :func:`address_table` ``slots``, -1 where
    absent: one probe (one cache line) per query, mostly, against the log2(keys) cache-missing
    probes of a binary search."""
    mask = slots.shape[0] - 1
    shift = np.uint64(64 - _log2_ceil(slots.shape[0]))
    out = np.full(queries.shape[0], -1, np.int64)
    for i in range(queries.shape[0]):
        k = queries[i]
        h = np.int64((np.uint64(k) * _FIBONACCI) >> shift)
        while slots[h, 0] != 0:
            if slots[h, 0] == k:
                out[i] = slots[h, 1]
                break
            h = (h + 1) & mask
    return out


@njit(cache=True, inline="always")
def _code_len(u, i):  # pragma: no cover - compiled
    # Code points of row i of a fixed-width string array without its zero padding.
    k = u.shape[1]
    while k > 0 and u[i, k - 1] == 0:
        k -= 1
    return k


@njit(cache=True, inline="always")
def _code_hash(u, i, k):  # pragma: no cover - compiled
    h = np.uint64(14695981039346656037)  # FNV-1a over the code points
    for j in range(k):
        h = (h ^ np.uint64(u[i, j])) * np.uint64(1099511628211)
    return h * _FIBONACCI


@njit(cache=True, inline="always")
def _code_equal(u, i, ki, w, j, kj):  # pragma: no cover - compiled
    if ki != kj:
        return False
    for c in range(ki):
        if u[i, c] != w[j, c]:
            return False
    return True


@njit(cache=True)
def string_table(keys):  # pragma: no cover - compiled
    """An open-addressing hash table of the strings ``keys`` — an (n, width) array of their code
    points, zero-padded (a fixed-width numpy string array viewed as ``uint32``) — for
    :func:`match_strings`: slots hold key positions (-1: empty), 2-4 slots per key; a repeated
    key keeps its first position."""
    n = keys.shape[0]
    bits = _log2_ceil(2 * n)
    mask = (1 << bits) - 1
    shift = np.uint64(64 - bits)
    slots = np.full(1 << bits, -1, np.int64)
    for i in range(n):
        k = _code_len(keys, i)
        h = np.int64(_code_hash(keys, i, k) >> shift)
        while slots[h] != -1 and not _code_equal(keys, slots[h], _code_len(keys, slots[h]), keys, i, k):
            h = (h + 1) & mask
        if slots[h] == -1:
            slots[h] = i
    return slots


@njit(cache=True)
def match_strings(slots, keys, queries):  # pragma: no cover - compiled
    """Position of each row of ``queries`` (code points, zero-padded, any width) among the rows
    of ``keys`` through :func:`string_table` ``slots``; -1 where absent. Zero padding is not
    part of a string here, so a string ending in NUL characters matches its stripped form: the
    caller compares lengths."""
    mask = slots.shape[0] - 1
    shift = np.uint64(64 - _log2_ceil(slots.shape[0]))
    out = np.full(queries.shape[0], -1, np.int64)
    for i in range(queries.shape[0]):
        k = _code_len(queries, i)
        h = np.int64(_code_hash(queries, i, k) >> shift)
        while slots[h] != -1:
            j = slots[h]
            if _code_equal(keys, j, _code_len(keys, j), queries, i, k):
                out[i] = j
                break
            h = (h + 1) & mask
    return out
