"""Many small QBAFs at once: DF-QuAD over a batch in ONE kernel call.

A batch is the disjoint union of its frameworks laid out as concatenated arrays: base scores of
all arguments back to back (``node_offsets[f]:node_offsets[f+1]`` belong to framework ``f``)
and the attack / support edges of all frameworks back to back (``attack_offsets``,
``support_offsets``), each edge given by *local* indices inside its own framework. DF-QuAD of a
disjoint union is DF-QuAD of each part (independence, Amgoud & Ben-Naim 2018), so the batch is
solved as one graph by the same kernel as :func:`argfaith.qbaf.dfquad.dfquad_strengths` and the
diagnostics are then reduced per framework.

Build a batch straight from arrays with :meth:`QBAFBatch.from_arrays` (no per-framework Python
objects at all — the fast path for 10^5+ frameworks) or from QBAF objects with
:meth:`QBAFBatch.from_qbafs`.

Examples
--------
>>> import numpy as np
>>> b = QBAFBatch.from_arrays(
...     base_scores=[0.5, 0.2, 0.5, 0.2, 0.2],
...     node_offsets=[0, 2, 5],
...     attacks=[[1, 0], [1, 0]], attack_offsets=[0, 1, 2],
...     supports=[[2, 0]], support_offsets=[0, 0, 1])
>>> r = dfquad_batch(b)
>>> [np.round(r.strengths(f), 3).tolist() for f in range(len(r))]
[[0.4, 0.2], [0.5, 0.2, 0.2]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from argfaith.qbaf.dfquad import StrengthResult, solve_csr
from argfaith.qbaf.errors import (
    BaseScoreError,
    ConflictingEdgeError,
    DuplicateEdgeError,
    NotConvergedError,
    QBAFError,
    UnknownArgumentError,
)
from argfaith.qbaf.semantics import DFQUAD, GradualSemantics, SemanticsDomainError

if TYPE_CHECKING:
    from argfaith.qbaf.framework import QBAF

__all__ = ["QBAFBatch", "BatchStrengthResult", "dfquad_batch"]


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _offsets(values: Any, total: int, what: str, n_fw: int | None) -> np.ndarray:
    off = np.ascontiguousarray(values, dtype=np.int64)
    if off.ndim != 1 or off.shape[0] < 1:
        raise QBAFError(f"{what} must be a 1-d array of framework boundaries [0, ..., {total}]")
    if n_fw is not None and off.shape[0] != n_fw + 1:
        raise QBAFError(f"{what} has {off.shape[0]} entries, expected {n_fw + 1} (one more than the number of frameworks)")
    if off[0] != 0 or off[-1] != total:
        raise QBAFError(f"{what} must start at 0 and end at {total}, got {int(off[0])} .. {int(off[-1])}")
    dec = np.flatnonzero(np.diff(off) < 0)
    if dec.size:
        f = int(dec[0])
        raise QBAFError(f"{what} decreases at framework {f} ({int(off[f])} -> {int(off[f + 1])})")
    return off


def _edges(values: Any, relation: str) -> np.ndarray:
    if values is None:
        return np.zeros((0, 2), np.int64)
    e = np.ascontiguousarray(values, dtype=np.int64)
    if e.size == 0:
        return np.zeros((0, 2), np.int64)
    if e.ndim != 2 or e.shape[1] != 2:
        raise QBAFError(f"{relation}: expected an (m, 2) array of local (source, target) indices, got shape {e.shape}")
    return e


@dataclass(frozen=True, eq=False)
class QBAFBatch:
    """A batch of QBAFs stored as concatenated arrays (see the module docstring).

    Attributes
    ----------
    base_scores : numpy.ndarray
        τ of all arguments, framework after framework (read-only).
    node_offsets : numpy.ndarray
        ``(F + 1,)`` boundaries: framework ``f`` owns arguments ``node_offsets[f]:node_offsets[f+1]``.
    attacks, supports : numpy.ndarray
        ``(m, 2)`` local (source, target) indices, framework after framework.
    attack_offsets, support_offsets : numpy.ndarray
        ``(F + 1,)`` edge boundaries per framework.
    in_csr : tuple of numpy.ndarray
        Incoming-edge CSR over the global argument indices (what the kernel reads).
    sources : tuple of QBAF or None
        The frameworks the batch was built from, when built by :meth:`from_qbafs` (gives ids).
    """

    base_scores: np.ndarray
    node_offsets: np.ndarray
    attacks: np.ndarray
    attack_offsets: np.ndarray
    supports: np.ndarray
    support_offsets: np.ndarray
    in_csr: tuple[np.ndarray, np.ndarray, np.ndarray] = field(repr=False)
    sources: tuple[QBAF, ...] | None = field(default=None, repr=False)

    # ---------------------------------------------------------------------------- construction
    @classmethod
    def from_arrays(
        cls,
        base_scores: Any,
        node_offsets: Any,
        attacks: Any = None,
        attack_offsets: Any = None,
        supports: Any = None,
        support_offsets: Any = None,
    ) -> QBAFBatch:
        """Build and validate a batch from concatenated arrays (no per-framework objects).

        Every error names the framework and the offending item: base score out of [0, 1] or NaN,
        an edge endpoint outside its framework, an edge listed twice, an edge in both relations.
        """
        bs = np.ascontiguousarray(base_scores, dtype=np.float64)
        if bs.ndim != 1:
            raise QBAFError(f"base_scores must be a 1-d array, got shape {bs.shape}")
        n = bs.shape[0]
        noff = _offsets(node_offsets, n, "node_offsets", None)
        n_fw = noff.shape[0] - 1
        bad = np.flatnonzero(~((bs >= 0.0) & (bs <= 1.0)))  # NaN fails both comparisons
        if bad.size:
            i = int(bad[0])
            f = int(np.searchsorted(noff, i, side="right") - 1)
            raise BaseScoreError(
                f"framework {f}: argument {i - int(noff[f])} (global {i}): base score {bs[i]!r} is not in [0, 1]"
                + (f" ({bad.size} arguments in all)" if bad.size > 1 else "")
            )
        att = _edges(attacks, "attacks")
        sup = _edges(supports, "supports")
        aoff = _offsets(attack_offsets if attack_offsets is not None else np.zeros(n_fw + 1), att.shape[0], "attack_offsets", n_fw)
        soff = _offsets(support_offsets if support_offsets is not None else np.zeros(n_fw + 1), sup.shape[0], "support_offsets", n_fw)
        return cls._assemble(bs, noff, att, aoff, sup, soff, None, check=True)

    @classmethod
    def from_qbafs(cls, qbafs: Sequence[QBAF]) -> QBAFBatch:
        """Concatenate already validated QBAFs (their ids are kept for :meth:`BatchStrengthResult.result`)."""
        qs = tuple(qbafs)
        sizes = np.fromiter((q.n for q in qs), dtype=np.int64, count=len(qs))
        noff = np.zeros(len(qs) + 1, np.int64)
        np.cumsum(sizes, out=noff[1:])
        bs = np.concatenate([q.base_scores for q in qs]) if qs else np.zeros(0)
        att = np.concatenate([q.attack_array for q in qs]) if qs else np.zeros((0, 2), np.int64)
        sup = np.concatenate([q.support_array for q in qs]) if qs else np.zeros((0, 2), np.int64)
        aoff = np.zeros(len(qs) + 1, np.int64)
        np.cumsum([len(q.attack_array) for q in qs], out=aoff[1:])
        soff = np.zeros(len(qs) + 1, np.int64)
        np.cumsum([len(q.support_array) for q in qs], out=soff[1:])
        return cls._assemble(
            np.ascontiguousarray(bs, np.float64), noff, att.reshape(-1, 2), aoff, sup.reshape(-1, 2), soff, qs, check=False
        )

    @classmethod
    def _assemble(
        cls,
        bs: np.ndarray,
        noff: np.ndarray,
        att: np.ndarray,
        aoff: np.ndarray,
        sup: np.ndarray,
        soff: np.ndarray,
        sources: tuple[QBAF, ...] | None,
        *,
        check: bool,
    ) -> QBAFBatch:
        from argfaith.qbaf._kernels import build_csr, first_edge_conflict, globalize_edges

        glob = []
        for rel, e, off in (("attacks", att, aoff), ("supports", sup, soff)):
            bad, g = globalize_edges(np.ascontiguousarray(e, np.int64), off, noff)
            if bad >= 0:
                f = int(np.searchsorted(off, bad, side="right") - 1)
                raise UnknownArgumentError(
                    f"framework {f}: {rel}[{bad - int(off[f])}] (global {rel}[{bad}]): local index pair "
                    f"{(int(e[bad, 0]), int(e[bad, 1]))} outside 0..{int(noff[f + 1] - noff[f]) - 1}"
                )
            glob.append(g)
        n = bs.shape[0]
        _, ptr, src, is_att = build_csr(n, glob[0], glob[1], 1)
        if check:
            j1, j2 = first_edge_conflict(n, ptr, src)
            if j1 >= 0:
                u, v = int(src[j1]), int(np.searchsorted(ptr, j1, side="right") - 1)
                f = int(np.searchsorted(noff, v, side="right") - 1)
                pair = (u - int(noff[f]), v - int(noff[f]))
                rels = ["attacks" if is_att[j] else "supports" for j in (j1, j2)]
                where = " and ".join(sorted(set(rels)))
                if rels[0] == rels[1]:
                    raise DuplicateEdgeError(f"framework {f}: {where}: edge {pair} (local indices) is listed more than once")
                raise ConflictingEdgeError(
                    f"framework {f}: edge {pair} (local indices) is both an attack and a support; A ∩ S must be empty"
                )
        return cls(
            base_scores=_readonly(bs),
            node_offsets=_readonly(noff),
            attacks=_readonly(np.ascontiguousarray(att)),
            attack_offsets=_readonly(aoff),
            supports=_readonly(np.ascontiguousarray(sup)),
            support_offsets=_readonly(soff),
            in_csr=(_readonly(ptr), _readonly(src), _readonly(is_att)),
            sources=sources,
        )

    # ---------------------------------------------------------------------------- views
    def __len__(self) -> int:
        return int(self.node_offsets.shape[0] - 1)

    @property
    def sizes(self) -> np.ndarray:
        """Number of arguments of every framework."""
        return np.diff(self.node_offsets)

    @property
    def n_arguments(self) -> int:
        return int(self.base_scores.shape[0])

    def qbaf(self, f: int) -> QBAF:
        """Framework ``f`` as a :class:`QBAF` (the original object if built by :meth:`from_qbafs`)."""
        if not -len(self) <= f < len(self):
            raise IndexError(f"framework {f} out of range for a batch of {len(self)}")
        f %= len(self)
        if self.sources is not None:
            return self.sources[f]
        from argfaith.qbaf.framework import QBAF

        lo, hi = int(self.node_offsets[f]), int(self.node_offsets[f + 1])
        a = self.attacks[self.attack_offsets[f] : self.attack_offsets[f + 1]]
        s = self.supports[self.support_offsets[f] : self.support_offsets[f + 1]]
        return QBAF.from_arrays(self.base_scores[lo:hi], a, s)


@dataclass(frozen=True, eq=False)
class BatchStrengthResult:
    """Strengths of every framework of a batch (DF-QuAD, or the ``semantics`` named), with
    per-framework diagnostics.

    Attributes
    ----------
    values : numpy.ndarray
        σ of all arguments, aligned with :attr:`QBAFBatch.base_scores` (read-only).
    node_offsets : numpy.ndarray
    converged, iterations, residual, cyclic_components : numpy.ndarray
        One entry per framework, with the meaning of the :class:`StrengthResult` fields.
    method : str
    """

    values: np.ndarray
    node_offsets: np.ndarray
    converged: np.ndarray
    iterations: np.ndarray
    residual: np.ndarray
    cyclic_components: np.ndarray
    method: str
    batch: QBAFBatch = field(repr=False)
    not_converged_mask: np.ndarray = field(repr=False, default=None)  # type: ignore[assignment]
    semantics: str = "dfquad"

    def __len__(self) -> int:
        return int(self.node_offsets.shape[0] - 1)

    @property
    def all_converged(self) -> bool:
        return bool(self.converged.all())

    def strengths(self, f: int) -> np.ndarray:
        """σ of framework ``f`` (a read-only view)."""
        return self.values[self.node_offsets[f] : self.node_offsets[f + 1]]

    def result(self, f: int) -> StrengthResult:
        """Framework ``f`` as a :class:`StrengthResult` (ids from the source QBAF if known)."""
        vals = self.strengths(f)
        src = self.batch.sources[f] if self.batch.sources is not None else None
        ids = src.ids if src is not None else tuple(f"a{i}" for i in range(len(vals)))
        lo = int(self.node_offsets[f])
        not_conv: tuple[str, ...] = ()
        if not self.converged[f]:
            not_conv = tuple(ids[i] for i in np.flatnonzero(self.not_converged_mask[lo : lo + len(vals)]))
        return StrengthResult(
            values=vals,
            converged=bool(self.converged[f]),
            iterations=int(self.iterations[f]),
            residual=float(self.residual[f]),
            method=self.method,
            cyclic_components=int(self.cyclic_components[f]),
            not_converged=not_conv,
            explicit_ids=ids,
            semantics=self.semantics,
        )


def dfquad_batch(
    batch: QBAFBatch,
    *,
    method: str = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
    strict: bool = False,
    step: float = 0.5,
) -> BatchStrengthResult:
    """DF-QuAD strengths of every framework of ``batch`` in one kernel call.

    Same semantics and options as :func:`argfaith.qbaf.dfquad.dfquad_strengths`, applied to each
    framework independently; ``strict=True`` raises :class:`NotConvergedError` naming the first
    frameworks that did not converge. Other semantics: :func:`argfaith.qbaf.gradual.gradual_batch`.
    """
    return solve_batch(batch, DFQUAD, method=method, max_iter=max_iter, tol=tol, strict=strict, step=step)


def solve_batch(
    batch: QBAFBatch, semantics: GradualSemantics, *, method: str, max_iter: int, tol: float, strict: bool, step: float
) -> BatchStrengthResult:
    """The strengths of every framework of ``batch`` under ``semantics`` in one solver call (the
    body of :func:`dfquad_batch` and :func:`argfaith.qbaf.gradual.gradual_batch`): domain check,
    solve, per-framework diagnostics."""
    _check_batch_domain(semantics, batch)
    out = solve_csr(batch.n_arguments, batch.base_scores, batch.in_csr, semantics=semantics, method=method, max_iter=max_iter, tol=tol, step=step)
    return _batch_result(batch, out, method=method, max_iter=max_iter, tol=tol, strict=strict, semantics=semantics)


def _check_batch_domain(sem: GradualSemantics, batch: QBAFBatch) -> None:
    """Domain restrictions, checked on the whole batch and naming the framework: an attack-only
    semantics refuses supports, a restricted (acyclic-only) one a cycle."""
    if sem.attack_only and batch.supports.shape[0]:
        f = int(np.searchsorted(batch.support_offsets, 0, side="right") - 1)
        raise SemanticsDomainError(
            f"the {sem.title or sem.name} semantics is defined for attack-only frameworks; framework {f} of the batch has "
            f"supports (first: local edge {tuple(int(v) for v in batch.supports[0])})"
        )
    if sem.acyclic_only:
        from argfaith.qbaf._kernels import scc_topological

        iptr, isrc, _ = batch.in_csr
        comp_ptr, comp_nodes, nc = scc_topological(batch.n_arguments, iptr, isrc)
        sizes = np.diff(comp_ptr[: nc + 1])
        loops = np.flatnonzero(isrc == np.repeat(np.arange(batch.n_arguments), np.diff(iptr)))
        if (sizes > 1).any() or loops.size:
            v = int(comp_nodes[comp_ptr[int(np.flatnonzero(sizes > 1)[0])]]) if (sizes > 1).any() else int(
                np.searchsorted(iptr, loops[0], side="right") - 1
            )
            f = int(np.searchsorted(batch.node_offsets, v, side="right") - 1)
            raise SemanticsDomainError(
                f"the {sem.title or sem.name} semantics is defined on acyclic frameworks only ({sem.citation}); framework {f} "
                f"of the batch has a cycle through its argument {v - int(batch.node_offsets[f])}"
            )


def _batch_result(
    batch: QBAFBatch, out: tuple[np.ndarray, ...], *, method: str, max_iter: int, tol: float, strict: bool, semantics: GradualSemantics
) -> BatchStrengthResult:
    """Reduce the kernel's per-component diagnostics to per-framework arrays."""
    n_fw = len(batch)
    sigma, cyc_node, _size, cyc_iters, cyc_res, bad_mask = out
    fw = np.searchsorted(batch.node_offsets, cyc_node, side="right") - 1
    iterations = np.zeros(n_fw, np.int64)
    residual = np.zeros(n_fw, np.float64)
    n_cyc = np.zeros(n_fw, np.int64)
    if fw.size:
        np.maximum.at(iterations, fw, cyc_iters)
        np.maximum.at(residual, fw, cyc_res)
        np.add.at(n_cyc, fw, 1)
    converged = np.ones(n_fw, np.bool_)
    converged[fw[~(cyc_res <= tol)]] = False
    for a in (sigma, iterations, residual, n_cyc, converged, bad_mask):
        a.setflags(write=False)
    res = BatchStrengthResult(
        values=sigma,
        node_offsets=batch.node_offsets,
        converged=converged,
        iterations=iterations,
        residual=residual,
        cyclic_components=n_cyc,
        method=method,
        batch=batch,
        not_converged_mask=bad_mask,
        semantics=semantics.name,
    )
    if strict and not res.all_converged:
        bad = np.flatnonzero(~converged)
        shown = ", ".join(str(int(f)) for f in bad[:10]) + (", ..." if bad.size > 10 else "")
        raise NotConvergedError(
            f"{semantics.title or semantics.name} ({method}) did not converge within {max_iter} iterations in {bad.size} framework(s) of the "
            f"batch: {shown} (largest residual {float(residual.max()):.3g} > tol {tol:g})"
        )
    return res
