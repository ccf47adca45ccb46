"""Graph structure of a QBAF's edge set A ∪ S: topological order and strongly connected components.

Thin wrappers over the numba kernels of :mod:`argfaith.qbaf._kernels`; they decide when DF-QuAD
can be computed in one exact pass and how a cyclic framework condenses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from argfaith.qbaf.framework import QBAF

__all__ = ["topological_order", "strongly_connected_components"]


def topological_order(qbaf: QBAF) -> np.ndarray | None:
    """Kahn's algorithm on (X, A ∪ S): an order where every edge goes from earlier to later,
    or ``None`` when the graph has a directed cycle (a self-loop is a cycle).

    Examples
    --------
    >>> from argfaith.qbaf import QBAF
    >>> topological_order(QBAF.from_arrays([0.5, 0.5], attacks=[(1, 0)])).tolist()
    [1, 0]
    """
    from argfaith.qbaf._kernels import kahn_order

    iptr, _, _ = qbaf.in_csr
    optr, odst, _ = qbaf.out_csr
    order, k = kahn_order(qbaf.n, iptr, optr, odst)
    return order if k == qbaf.n else None


def strongly_connected_components(qbaf: QBAF) -> list[np.ndarray]:
    """Strongly connected components of (X, A ∪ S) in topological order of the condensation
    (every edge between components goes from an earlier to a later component); each component
    is sorted.

    Tarjan's algorithm, iterative (no recursion limit), run on the predecessor graph so that
    components come out in topological order without a final reversal (Tarjan 1972).

    Examples
    --------
    >>> from argfaith.qbaf import QBAF
    >>> q = QBAF.from_arrays([0.5] * 3, attacks=[(0, 1), (1, 0)], supports=[(1, 2)])
    >>> [c.tolist() for c in strongly_connected_components(q)]
    [[0, 1], [2]]
    """
    from argfaith.qbaf._kernels import scc_topological

    iptr, isrc, _ = qbaf.in_csr
    comp_ptr, comp_nodes, nc = scc_topological(qbaf.n, iptr, isrc)
    return [np.sort(comp_nodes[comp_ptr[i] : comp_ptr[i + 1]]) for i in range(nc)]
