"""pro and con arguments with paths read as SIMPLE paths (an option next to PAPER.md §3's walks).

PAPER.md §3 reads "path" as a walk (nodes may repeat), which makes pro/con polynomial
(:mod:`argfaith.qbaf.paths`). On cyclic summary QBAFs that reading is degenerate: every argument
upstream of a cycle with an odd number of attacks reaches the proposal with both parities, so it
is both pro and con, and π_pcr is 1.0 for every summary measured. Under the *simple-path* reading
a path may not visit an argument twice (a cycle may only close at the target itself):

    pro_s(x) = {y | some simple path y → x has an even number of attacks}, con_s(x) likewise odd.

Deciding this is NP-hard in general (it contains "is there an even simple path", Lapaugh &
Papadimitriou 1984), so :func:`simple_pro_con_sets` enumerates simple paths backwards from x by
depth-first search within a **budget** of search steps, and reports per target whether the result
is exact:

- on an acyclic ancestor set walks are simple paths: the walk result is returned at once, exact;
- otherwise the search records every (argument, parity) it reaches and stops early as soon as
  every pair that walks allow has been found (walk sets are upper bounds), so dense summary graphs
  usually finish long before the budget;
- when the budget runs out the sets found so far (lower bounds) are returned with
  ``complete=False`` and the number of (argument, parity) pairs left undecided.

The plain-Python oracle for tests is :func:`simple_pro_con_brute_force` (enumerates all simple
paths; tiny graphs only).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from argfaith.qbaf.framework import QBAF

__all__ = ["SimpleProCon", "simple_pro_con", "simple_pro_con_sets", "simple_pro_con_brute_force", "DEFAULT_PATH_BUDGET"]

#: Search steps (path extensions) per target before the simple-path search gives up.
DEFAULT_PATH_BUDGET = 200_000


@dataclass(frozen=True)
class SimpleProCon:
    """pro/con of one target under the simple-path reading, with the search's diagnostics."""

    target: str
    pro: frozenset[str]
    con: frozenset[str]
    complete: bool
    steps: int
    unresolved: int = 0  # (argument, parity) pairs walks allow that the search neither found nor excluded


def _ancestors_acyclic(preds: list[list[tuple[int, bool]]], t: int) -> tuple[set[int], bool]:
    anc: set[int] = set()
    stack = [t]
    while stack:
        v = stack.pop()
        for u, _ in preds[v]:
            if u not in anc:
                anc.add(u)
                stack.append(u)
    nodes = anc | {t}
    indeg = {v: 0 for v in nodes}
    for v in nodes:
        for u, _ in preds[v]:
            if u in nodes:
                indeg[u] += 1  # edge u -> v counted at the source in the reversed graph
    # Kahn on the reversed edges v -> u
    queue = [v for v in nodes if indeg[v] == 0]
    seen = 0
    while queue:
        v = queue.pop()
        seen += 1
        for u, _ in preds[v]:
            if u in nodes:
                indeg[u] -= 1
                if indeg[u] == 0:
                    queue.append(u)
    return anc, seen == len(nodes)


def _predecessors(qbaf: QBAF) -> list[list[tuple[int, bool]]]:
    ptr, src, att = qbaf.in_csr
    ptr_l, src_l, att_l = ptr.tolist(), src.tolist(), att.tolist()
    return [[(src_l[k], bool(att_l[k])) for k in range(ptr_l[v], ptr_l[v + 1])] for v in range(qbaf.n)]


def simple_pro_con_sets(
    qbaf: QBAF, targets: Iterable[str] | None = None, *, budget: int = DEFAULT_PATH_BUDGET
) -> dict[str, SimpleProCon]:
    """pro/con under the simple-path reading for several targets (default: every proposal)."""
    from argfaith.qbaf.paths import pro_con_sets

    ts = qbaf.proposals if targets is None else tuple(targets)
    walk = pro_con_sets(qbaf, ts)
    preds = _predecessors(qbaf)
    ids = qbaf.ids
    out: dict[str, SimpleProCon] = {}
    for x in ts:
        t = qbaf.idx(x)
        anc, acyclic = _ancestors_acyclic(preds, t)
        w = walk[x]
        if acyclic:
            out[x] = SimpleProCon(x, w.pro, w.con, True, 0)
            continue
        idx = qbaf.index
        need = {idx[a]: (1 if a in w.pro else 0) | (2 if a in w.con else 0) for a in (w.pro | w.con)}
        found = dict.fromkeys(need, 0)
        remaining = sum(bin(m).count("1") for m in need.values())
        steps = 0
        # iterative DFS over simple paths, backwards from t: (node, parity, visited bitmask, next edge)
        stack: list[list[int]] = [[t, 0, 1 << t, 0]]
        exhausted = False
        while stack and remaining:
            top = stack[-1]
            v, par, vis, k = top
            ps = preds[v]
            if k >= len(ps):
                stack.pop()
                continue
            top[3] = k + 1
            u, is_att = ps[k]
            p2 = par ^ int(is_att)
            if u != t and (vis >> u) & 1:
                continue  # a simple path visits each argument once (a cycle may close at the target)
            bit = 1 << p2
            if u in found and not found[u] & bit:
                found[u] |= bit
                remaining -= 1
            if u == t:
                continue
            steps += 1
            if steps > budget:
                exhausted = True
                break
            stack.append([u, p2, vis | (1 << u), 0])
        pro = frozenset(ids[v] for v, m in found.items() if m & 1)
        con = frozenset(ids[v] for v, m in found.items() if m & 2)
        complete = not exhausted
        out[x] = SimpleProCon(x, pro, con, complete, steps, 0 if complete else remaining)
    return out


def simple_pro_con(qbaf: QBAF, x: str, *, budget: int = DEFAULT_PATH_BUDGET) -> SimpleProCon:
    """pro/con of one argument under the simple-path reading (see the module docstring).

    Examples
    --------
    >>> from argfaith.qbaf import QBAF
    >>> # a and b attack each other; a supports the proposal p
    >>> q = QBAF.from_arrays([0.5, 0.2, 0.2], attacks=[(1, 2), (2, 1)], supports=[(1, 0)], ids=["p", "a", "b"])
    >>> r = simple_pro_con(q, "p")
    >>> sorted(r.pro), sorted(r.con), r.complete
    (['a'], ['b'], True)
    """
    return simple_pro_con_sets(qbaf, (x,), budget=budget)[x]


def simple_pro_con_brute_force(qbaf: QBAF, x: str) -> tuple[frozenset[str], frozenset[str]]:
    """Oracle: enumerate every simple path into ``x`` (exponential; for tests on tiny graphs)."""
    preds = _predecessors(qbaf)
    t = qbaf.idx(x)
    pro: set[int] = set()
    con: set[int] = set()

    def dfs(v: int, par: int, vis: frozenset[int]) -> None:
        for u, att in preds[v]:
            if u in vis and u != t:
                continue  # u already on the path: u -> ... would not be simple
            p2 = par ^ int(att)
            (con if p2 else pro).add(u)
            if u != t:
                dfs(u, p2, vis | {u})

    dfs(t, 0, frozenset({t}))
    ids = qbaf.ids
    return frozenset(ids[v] for v in pro), frozenset(ids[v] for v in con)
