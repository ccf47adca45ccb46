"""Paths, pro and con arguments, and relevance (PAPER.md §3 and §5).

A path from y to x is a non-empty sequence of A ∪ S edges from y to x; nodes may repeat, so
paths are walks and parity questions are polynomial: a breadth-first search over
(node, parity) states backwards from x, where an attack edge flips the parity and a support
edge keeps it, visits exactly the pairs (y, p) such that some walk y → x has attack-parity p.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from argfaith.qbaf.framework import QBAF

__all__ = ["ProCon", "pro_con", "pro_arguments", "con_arguments", "pro_con_sets", "relevant_arguments"]


@dataclass(frozen=True)
class ProCon:
    """pro(x) and con(x) of one argument x. An argument can be in both (cycles or two routes)."""

    target: str
    pro: frozenset[str]
    con: frozenset[str]


def _search(qbaf: QBAF, x: int) -> tuple[list[int], list[int]]:
    ptr, src, att = qbaf.in_csr
    ptr_l, src_l, att_l = ptr.tolist(), src.tolist(), att.tolist()
    n = qbaf.n
    seen = bytearray(2 * n)  # seen[2*v + parity]
    queue: deque[int] = deque()
    # Seed with the edges entering x: parity counts attacks on the walk so far.
    for j in range(ptr_l[x], ptr_l[x + 1]):
        st = 2 * src_l[j] + (1 if att_l[j] else 0)
        if not seen[st]:
            seen[st] = 1
            queue.append(st)
    while queue:
        st = queue.popleft()
        v, p = divmod(st, 2)
        for j in range(ptr_l[v], ptr_l[v + 1]):
            nst = 2 * src_l[j] + (p ^ (1 if att_l[j] else 0))
            if not seen[nst]:
                seen[nst] = 1
                queue.append(nst)
    pro = [v for v in range(n) if seen[2 * v]]
    con = [v for v in range(n) if seen[2 * v + 1]]
    return pro, con


def pro_con(qbaf: QBAF, x: str) -> ProCon:
    """pro(x) = {y | some path y → x has an even number of attacks}; con(x) likewise odd."""
    pro, con = _search(qbaf, qbaf.idx(x))
    ids = qbaf.ids
    return ProCon(x, frozenset(ids[v] for v in pro), frozenset(ids[v] for v in con))


def pro_arguments(qbaf: QBAF, x: str) -> frozenset[str]:
    """pro(x) (PAPER.md §3)."""
    return pro_con(qbaf, x).pro


def con_arguments(qbaf: QBAF, x: str) -> frozenset[str]:
    """con(x) (PAPER.md §3)."""
    return pro_con(qbaf, x).con


def pro_con_sets(qbaf: QBAF, targets: Iterable[str] | None = None) -> dict[str, ProCon]:
    """pro/con sets of several arguments at once; by default of every proposal argument."""
    ts = qbaf.proposals if targets is None else tuple(targets)
    return {t: pro_con(qbaf, t) for t in ts}


def relevant_arguments(qbaf: QBAF) -> frozenset[str]:
    """Speech arguments with a path TO some proposal argument (the reading of π_ar adopted in
    PAPER.md §5: speech → proposal; the paper's proposal → speech direction is always empty)."""
    ptr, src, _ = qbaf.in_csr
    ptr_l, src_l = ptr.tolist(), src.tolist()
    is_prop = qbaf.is_proposal.tolist()
    n = qbaf.n
    seen = bytearray(n)
    queue: deque[int] = deque()
    for x in range(n):
        if is_prop[x]:
            for j in range(ptr_l[x], ptr_l[x + 1]):
                u = src_l[j]
                if not seen[u]:
                    seen[u] = 1
                    queue.append(u)
    while queue:
        v = queue.popleft()
        for j in range(ptr_l[v], ptr_l[v + 1]):
            u = src_l[j]
            if not seen[u]:
                seen[u] = 1
                queue.append(u)
    ids = qbaf.ids
    return frozenset(ids[v] for v in range(n) if seen[v] and not is_prop[v])
