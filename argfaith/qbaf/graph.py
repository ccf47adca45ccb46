"""Graph structure of a QBAF's edge set A ∪ S: topological order and strongly connected components.

Pure-Python/NumPy helpers over the CSR arrays; they are used to decide when DF-QuAD can be
computed in one exact pass and to condense cyclic frameworks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from argfaith.qbaf.framework import QBAF

__all__ = ["topological_order", "strongly_connected_components"]


def topological_order(qbaf: QBAF) -> np.ndarray | None:
    """Kahn's algorithm on (X, A ∪ S): an order where every edge goes from earlier to later,
    or ``None`` when the graph has a directed cycle (a self-loop is a cycle)."""
    n = qbaf.n
    optr, odst, _ = qbaf.out_csr
    indeg = np.bincount(odst, minlength=n).astype(np.int64)
    stack = list(np.flatnonzero(indeg == 0)[::-1].tolist())
    order = np.empty(n, dtype=np.int64)
    k = 0
    optr_l = optr.tolist()
    odst_l = odst.tolist()
    indeg_l = indeg.tolist()
    while stack:
        v = stack.pop()
        order[k] = v
        k += 1
        for j in range(optr_l[v], optr_l[v + 1]):
            w = odst_l[j]
            indeg_l[w] -= 1
            if indeg_l[w] == 0:
                stack.append(w)
    return order if k == n else None


def strongly_connected_components(qbaf: QBAF) -> list[np.ndarray]:
    """Strongly connected components of (X, A ∪ S) in topological order of the condensation
    (every edge between components goes from an earlier to a later component).

    Tarjan's algorithm, iterative (no recursion limit). Tarjan emits components in reverse
    topological order; the list is reversed before returning.
    """
    n = qbaf.n
    optr, odst, _ = qbaf.out_csr
    optr_l = optr.tolist()
    odst_l = odst.tolist()
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    comps: list[np.ndarray] = []
    counter = 0
    for root in range(n):
        if index[root] != -1:
            continue
        work = [(root, optr_l[root])]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            v, j = work[-1]
            if j < optr_l[v + 1]:
                work[-1] = (v, j + 1)
                w = odst_l[j]
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, optr_l[w]))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp.append(w)
                    if w == v:
                        break
                comps.append(np.array(sorted(comp), dtype=np.int64))
    comps.reverse()
    return comps
