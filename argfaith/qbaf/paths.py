"""Paths, pro and con arguments, and relevance (PAPER.md §3 and §5).

A path from y to x is a non-empty sequence of A ∪ S edges from y to x; nodes may repeat, so
paths are walks and parity questions are polynomial: a search over (node, parity) states
backwards from x, where an attack edge flips the parity and a support edge keeps it, visits
exactly the pairs (y, p) such that some walk y → x has attack-parity p.

:func:`pro_con_index` runs that search for many targets at once in a numba kernel (64 targets
per machine word, see :func:`argfaith.qbaf._kernels.pro_con_chunk`) and returns compact index
arrays; :func:`pro_con_sets` and :func:`pro_con` wrap it into id sets. The plain-Python oracle
is :func:`argfaith.qbaf.reference.pro_con_reference`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from argfaith.qbaf.framework import QBAF

__all__ = [
    "ProCon",
    "ProConIndex",
    "pro_con",
    "pro_arguments",
    "con_arguments",
    "pro_con_sets",
    "pro_con_index",
    "relevant_arguments",
    "relevance_mask",
]

_WORD = 64  # targets per kernel call: one bit of a uint64 mask each


@dataclass(frozen=True)
class ProCon:
    """pro(x) and con(x) of one argument x. An argument can be in both (cycles or two routes)."""

    target: str
    pro: frozenset[str]
    con: frozenset[str]


@dataclass(frozen=True, eq=False)
class ProConIndex:
    """pro/con sets of several targets as index arrays (CSR: one slice per target).

    ``pro_idx[pro_ptr[k]:pro_ptr[k+1]]`` are the argument indices (ascending) in pro(targets[k]);
    likewise for con. Use :meth:`pro` / :meth:`con` for index arrays and :meth:`procon` for id
    sets; nothing is converted to Python objects unless asked, so this scales to 10^6 arguments.
    """

    qbaf: QBAF = field(repr=False)
    targets: tuple[str, ...]
    target_idx: np.ndarray
    pro_ptr: np.ndarray = field(repr=False)
    pro_idx: np.ndarray = field(repr=False)
    con_ptr: np.ndarray = field(repr=False)
    con_idx: np.ndarray = field(repr=False)

    def __len__(self) -> int:
        return len(self.targets)

    def _k(self, target: str | int) -> int:
        if isinstance(target, (int, np.integer)):
            return int(target)
        if "_position" not in self.__dict__:
            # First occurrence wins when a target is listed twice (both slices are equal anyway).
            pos: dict[str, int] = {}
            for k, t in enumerate(self.targets):
                pos.setdefault(t, k)
            object.__setattr__(self, "_position", pos)
        try:
            return self.__dict__["_position"][target]
        except KeyError:
            raise KeyError(f"{target!r} is not one of the targets of this index") from None

    def pro(self, target: str | int) -> np.ndarray:
        """Indices of pro(target) (target given by id or by position in :attr:`targets`)."""
        k = self._k(target)
        return self.pro_idx[self.pro_ptr[k] : self.pro_ptr[k + 1]]

    def con(self, target: str | int) -> np.ndarray:
        """Indices of con(target)."""
        k = self._k(target)
        return self.con_idx[self.con_ptr[k] : self.con_ptr[k + 1]]

    def procon(self, target: str | int) -> ProCon:
        """pro/con of one target as id sets."""
        k = self._k(target)
        ids = self.qbaf.ids
        return ProCon(
            self.targets[k],
            frozenset(ids[v] for v in self.pro(k).tolist()),
            frozenset(ids[v] for v in self.con(k).tolist()),
        )

    def speech_counts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per target: ``(|pro ∩ X_s|, |con ∩ X_s|, |(pro ∪ con) ∩ X_s|)`` — the counts behind the
        pro-con ratio π_pcr (PAPER.md §5)."""
        speech = ~self.qbaf.is_proposal
        n_t = len(self.targets)
        out = []
        for ptr, idx in ((self.pro_ptr, self.pro_idx), (self.con_ptr, self.con_idx)):
            flag = speech[idx].astype(np.int64)
            cs = np.concatenate([[0], np.cumsum(flag)])
            out.append(cs[ptr[1:]] - cs[ptr[:-1]] if n_t else np.zeros(0, np.int64))
        both = np.zeros(n_t, np.int64)
        for k in range(n_t):
            both[k] = int(speech[np.intersect1d(self.pro(k), self.con(k), assume_unique=True)].sum())
        return out[0], out[1], out[0] + out[1] - both


def _concat_csr(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    if not parts:
        return np.zeros(1, np.int64), np.zeros(0, np.int64)
    ptrs, idxs, shift = [np.zeros(1, np.int64)], [], 0
    for ptr, idx in parts:
        ptrs.append(ptr[1:] + shift)
        idxs.append(idx)
        shift += int(ptr[-1])
    return np.concatenate(ptrs), np.concatenate(idxs)


def pro_con_index(qbaf: QBAF, targets: Iterable[str] | None = None) -> ProConIndex:
    """pro(x) and con(x) for many targets at once (by default every proposal argument).

    pro(x) = {y | some path y → x has an even number of attacks}; con(x) likewise odd
    (PAPER.md §3). Runs one multi-target (node, parity) search per 64 targets; each costs
    O(ancestors of its targets), so a corpus of independent debates scales linearly.
    """
    from argfaith.qbaf._kernels import pro_con_chunk

    if targets is None:
        # All proposals, without building the id → index map (10^6 ids cost seconds).
        tidx = np.flatnonzero(qbaf.is_proposal).astype(np.int64)
        ts = qbaf.proposals
    else:
        ts = tuple(targets)
        tidx = np.fromiter((qbaf.idx(t) for t in ts), dtype=np.int64, count=len(ts))
    iptr, isrc, iatt = qbaf.in_csr
    n = qbaf.n
    # Work arrays shared by all chunks; the kernel leaves them clean, so each chunk costs
    # O(ancestors of its targets) and a corpus of many debates is not rescanned per chunk.
    work = (
        np.zeros(n, np.uint64), np.zeros(n, np.uint64), np.zeros(n, np.uint64),
        np.zeros(n, np.bool_), np.empty(n, np.int64), np.empty(n, np.int64),
    )
    pro_parts, con_parts = [], []
    for lo in range(0, len(ts), _WORD):
        chunk = np.ascontiguousarray(tidx[lo : lo + _WORD])
        pp, pi, cp, ci = pro_con_chunk(iptr, isrc, iatt, chunk, *work)
        pro_parts.append((pp, pi))
        con_parts.append((cp, ci))
    pro_ptr, pro_idx = _concat_csr(pro_parts)
    con_ptr, con_idx = _concat_csr(con_parts)
    for a in (tidx, pro_ptr, pro_idx, con_ptr, con_idx):
        a.setflags(write=False)
    return ProConIndex(qbaf, ts, tidx, pro_ptr, pro_idx, con_ptr, con_idx)


def pro_con(qbaf: QBAF, x: str) -> ProCon:
    """pro(x) = {y | some path y → x has an even number of attacks}; con(x) likewise odd.

    Examples
    --------
    >>> from argfaith.qbaf import QBAF
    >>> q = QBAF.from_arrays([0.5, 0.2, 0.2], attacks=[(1, 0)], supports=[(2, 1)], ids=["p", "a", "b"])
    >>> pc = pro_con(q, "p")
    >>> sorted(pc.pro), sorted(pc.con)
    ([], ['a', 'b'])
    """
    return pro_con_index(qbaf, (x,)).procon(0)


def pro_arguments(qbaf: QBAF, x: str) -> frozenset[str]:
    """pro(x) (PAPER.md §3)."""
    return pro_con(qbaf, x).pro


def con_arguments(qbaf: QBAF, x: str) -> frozenset[str]:
    """con(x) (PAPER.md §3)."""
    return pro_con(qbaf, x).con


def pro_con_sets(qbaf: QBAF, targets: Iterable[str] | None = None) -> dict[str, ProCon]:
    """pro/con sets of several arguments at once; by default of every proposal argument."""
    index = pro_con_index(qbaf, targets)
    return {t: index.procon(k) for k, t in enumerate(index.targets)}


def relevance_mask(qbaf: QBAF) -> np.ndarray:
    """Boolean array: True for speech arguments with a path TO some proposal argument."""
    from argfaith.qbaf._kernels import reach_to_targets

    iptr, isrc, _ = qbaf.in_csr
    seen = reach_to_targets(qbaf.n, iptr, isrc, qbaf.is_proposal)
    return seen & ~qbaf.is_proposal


def relevant_arguments(qbaf: QBAF) -> frozenset[str]:
    """Speech arguments with a path TO some proposal argument (the reading of π_ar adopted in
    PAPER.md §5: speech → proposal; the paper's proposal → speech direction is always empty)."""
    ids = qbaf.ids
    return frozenset(ids[v] for v in np.flatnonzero(relevance_mask(qbaf)).tolist())
