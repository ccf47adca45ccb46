"""Explanations: why a proposal's strength differs between the source and the summary.

For each proposal x the explanation gives σ(x) in Q, σ*(x) in Q*, the difference σ*(x) − σ(x),
and on each side the arguments that bear on x — its attackers and supporters, direct and
indirect — ranked by their *influence* on σ(x), in the spirit of the paper's qualitative example
(PAPER.md §6, Table 4).

Influence (removal influence). For an argument y and a proposal x of a QBAF Q,

    influence_Q(y → x) = σ_Q(x) − σ_{Q − y}(x),

where Q − y is Q without y and without every attack/support edge incident to y, and σ is the
DF-QuAD strength (PAPER.md §2) — or the strength under another gradual semantics when one is
given (``semantics=``, docs/semantics.md) — computed with the same solver settings. It is positive when y
raises x's strength, negative when y lowers it, and exactly 0 for arguments with no path to x.
It is computed exactly, in one of two ways:

* acyclic frameworks under DF-QuAD (every source QBAF, most summaries): for all proposals at once, by pushing
  each removal forward through the removed argument's descendants only
  (:mod:`argfaith.metrics._influence_kernels`; an argument with σ = 0 is the same as an absent
  one in DF-QuAD). Cost O(Σ_y |desc(y)| · log), seconds for 200,000 arguments
  (``benchmarks/explain.py``);
* cyclic frameworks, and every framework under another semantics (the propagation kernel is
  DF-QuAD's): one solve per argument with a path to x, on the sub-framework induced by x and its
  ancestors (σ(x) depends on nothing else: every modular update of x reads only its attackers
  and supporters, recursively), O(|anc(x)| · |edges among anc(x)|) per
  proposal — :func:`argument_influences_reference`, also the plain-Python reference the kernel is
  tested against.

Arguments are ranked by |influence| (largest first), ties by framework order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from argfaith.qbaf import QBAF, ProConIndex, pro_con, pro_con_index
from argfaith.qbaf.gradual import gradual_strengths
from argfaith.qbaf.semantics import GradualSemantics, get_semantics

if TYPE_CHECKING:
    from argfaith.metrics.alignment import Alignment
    from argfaith.qbaf import ProCon, StrengthResult

__all__ = [
    "ArgumentInfluence",
    "SideExplanation",
    "ProposalExplanation",
    "InfluenceTable",
    "removal_influence_table",
    "argument_influences",
    "argument_influences_reference",
    "side_explanation",
    "explain_proposals",
]

#: ``progress(done, total)`` after each chunk of work.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ArgumentInfluence:
    """One argument that bears on a proposal.

    Attributes
    ----------
    id : str
    influence : float
        σ(x) − σ_{Q−y}(x) (see the module docstring); > 0 raises the proposal, < 0 lowers it.
    relation : {"attack", "support"} or None
        The direct edge from this argument to the proposal, if any (None: indirect only).
    pro, con : bool
        Membership of pro(x) / con(x) (PAPER.md §3): an even / odd number of attacks on some
        path to x.
    strength : float
        The argument's own σ.
    text, speaker : str or None
        Provenance from the QBAF (untrusted text: escaped by every renderer).
    aligned : tuple of str
        Partners on the other side under the evaluation's alignment (empty without one).
    """

    id: str
    influence: float
    relation: str | None
    pro: bool
    con: bool
    strength: float
    text: str | None = None
    speaker: str | None = None
    aligned: tuple[str, ...] = ()


@dataclass(frozen=True)
class SideExplanation:
    """The arguments bearing on one proposal in one QBAF, ranked by |influence|.

    ``arguments`` may be truncated to the top ``limit``; ``n_arguments`` is the full count.
    """

    sigma: float
    arguments: tuple[ArgumentInfluence, ...]
    n_arguments: int
    n_attackers: int
    n_supporters: int


@dataclass(frozen=True)
class ProposalExplanation:
    """Per proposal: σ in Q and Q*, the difference σ* − σ, and each side's ranked arguments."""

    proposal: str
    text: str | None
    sigma_source: float
    sigma_summary: float
    difference: float
    source: SideExplanation
    summary: SideExplanation


def _ancestors(qbaf: QBAF, x: int) -> list[int]:
    ptr, src, _ = qbaf.in_csr
    ptr_l, src_l = ptr.tolist(), src.tolist()
    seen = {x}
    todo = [x]
    while todo:
        v = todo.pop()
        for j in range(ptr_l[v], ptr_l[v + 1]):
            u = src_l[j]
            if u not in seen:
                seen.add(u)
                todo.append(u)
    return sorted(seen)


def _sub(qbaf: QBAF, keep: list[int]) -> tuple[QBAF, dict[int, int]]:
    """The sub-framework induced by ``keep`` (original indices, sorted) and the index map."""
    pos = {v: i for i, v in enumerate(keep)}
    keep_arr = np.asarray(keep, dtype=np.int64)
    mask = np.zeros(qbaf.n, dtype=np.bool_)
    mask[keep_arr] = True
    remap = np.full(qbaf.n, -1, dtype=np.int64)
    remap[keep_arr] = np.arange(len(keep), dtype=np.int64)

    def edges(e: np.ndarray) -> np.ndarray:
        if e.size == 0:
            return np.zeros((0, 2), dtype=np.int64)
        sel = mask[e[:, 0]] & mask[e[:, 1]]
        return remap[e[sel]]

    sub = QBAF(
        [qbaf.ids[v] for v in keep],
        qbaf.is_proposal[keep_arr],
        qbaf.base_scores[keep_arr],
        edges(qbaf.attack_array),
        edges(qbaf.support_array),
        tau=qbaf.tau,
        validate=False,
    )
    return sub, pos


def argument_influences_reference(
    qbaf: QBAF,
    proposal: str,
    *,
    strengths: StrengthResult | Mapping[str, float] | None = None,
    procon: ProCon | None = None,
    method: str = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
    alignment_partners: Mapping[str, tuple[str, ...]] | None = None,
    limit: int | None = None,
    semantics: str | GradualSemantics = "dfquad",
) -> SideExplanation:
    """The arguments with a path to ``proposal``, ranked by removal influence, by re-solving
    the semantics (DF-QuAD by default) on the ancestor sub-framework once per ancestor (module
    docstring): the reference, and the method for cyclic frameworks and for other semantics. Same parameters as :func:`argument_influences`.

    Parameters
    ----------
    strengths : optional
        Precomputed σ of ``qbaf`` (for the ``strength`` field and σ(x)).
    procon : ProCon, optional
        Precomputed pro/con sets of ``proposal``.
    method, max_iter, tol :
        Solver settings (:func:`argfaith.qbaf.gradual.gradual_strengths`), used for every removal.
    semantics : str or GradualSemantics
        The gradual semantics whose σ the influences are measured in (default DF-QuAD).
    alignment_partners : Mapping, optional
        ``{argument id: partner ids on the other side}``, copied into ``aligned``.
    limit : int, optional
        Keep only the ``limit`` most influential arguments (``n_arguments`` still counts all).
    """
    x = qbaf.idx(proposal)
    anc = _ancestors(qbaf, x)
    sub, pos = _sub(qbaf, anc)
    kw = dict(method=method, max_iter=max_iter, tol=tol)
    base = gradual_strengths(sub, semantics, **kw)  # type: ignore[arg-type]
    sx = float(base.values[pos[x]])
    full = strengths if strengths is not None else None
    pc = procon if procon is not None else pro_con(qbaf, proposal)
    direct_att = set(qbaf.attackers(proposal))
    direct_sup = set(qbaf.supporters(proposal))
    ids = qbaf.ids
    args = qbaf.arguments
    partners = alignment_partners or {}
    out: list[tuple[float, int, ArgumentInfluence]] = []
    for y in anc:
        if y == x:
            continue
        keep = [v for v in anc if v != y]
        sub_y, pos_y = _sub(qbaf, keep)
        sx_y = float(gradual_strengths(sub_y, semantics, **kw).values[pos_y[x]])  # type: ignore[arg-type]
        yid = ids[y]
        infl = sx - sx_y
        a = args[y]
        rel = "attack" if yid in direct_att else ("support" if yid in direct_sup else None)
        own = float(full[yid]) if full is not None else float(base.values[pos[y]])
        out.append(
            (
                -abs(infl),
                y,
                ArgumentInfluence(
                    id=yid,
                    influence=infl,
                    relation=rel,
                    pro=yid in pc.pro,
                    con=yid in pc.con,
                    strength=own,
                    text=a.text,
                    speaker=a.speaker,
                    aligned=tuple(partners.get(yid, ())),
                ),
            )
        )
    out.sort(key=lambda t: (t[0], t[1]))
    ranked = tuple(t[2] for t in out)
    sigma = float(full[proposal]) if full is not None else sx
    return SideExplanation(
        sigma=sigma,
        arguments=ranked if limit is None else ranked[:limit],
        n_arguments=len(ranked),
        n_attackers=len(direct_att),
        n_supporters=len(direct_sup),
    )


@dataclass(frozen=True)
class InfluenceTable:
    """Removal influences on the proposals (targets) of one QBAF, computed once and read by every
    explanation of that QBAF (the source's, for each summary it is compared with).

    ``by_target[t] = (argument indices, influences)`` lists the arguments whose removal changes
    σ(t), by ascending index; every other argument with a path to ``t`` (``pro(t) ∪ con(t)``,
    from ``procon``) has influence 0. ``method`` is ``"propagation"`` (acyclic) or
    ``"re-solve"`` (cyclic, or a semantics other than DF-QuAD: the reference method);
    ``semantics`` names the semantics of σ.
    """

    qbaf: QBAF
    sigma: np.ndarray
    by_target: Mapping[int, tuple[np.ndarray, np.ndarray]]
    procon: ProConIndex
    method: str
    seconds: float
    semantics: str = "dfquad"


_CHUNK = 4096  # removals per kernel call between progress reports


def removal_influence_table(
    qbaf: QBAF,
    targets: Iterable[str] | None = None,
    *,
    strengths: StrengthResult | None = None,
    method: str = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
    progress: Progress | None = None,
    semantics: str | GradualSemantics = "dfquad",
) -> InfluenceTable:
    """influence(y → t) = σ(t) − σ_{Q−y}(t) for every argument y and every target t (default:
    the proposals) it reaches — see the module docstring for the two methods.

    ``progress(done, total)`` is called as the removals (acyclic) or targets (cyclic) are done.
    """
    import time

    t0 = time.perf_counter()
    tids = tuple(targets) if targets is not None else qbaf.proposals
    tix = [qbaf.idx(t) for t in tids]
    sem = get_semantics(semantics)
    res = strengths if strengths is not None else gradual_strengths(qbaf, sem, method=method, max_iter=max_iter, tol=tol)  # type: ignore[arg-type]
    sigma = np.asarray(res.values, dtype=np.float64)
    index = pro_con_index(qbaf, tids)
    if not tix:
        return InfluenceTable(qbaf, sigma, {}, index, "none", 0.0, sem.name)
    if sem.is_dfquad and qbaf.is_acyclic():
        by_target = _propagate(qbaf, sigma, tix, progress)
        how = "propagation"
    else:
        by_target = {}
        for i, (t, x) in enumerate(zip(tids, tix)):
            side = argument_influences_reference(qbaf, t, method=method, max_iter=max_iter, tol=tol, semantics=sem)
            idx = np.array([qbaf.idx(a.id) for a in side.arguments], dtype=np.int64)
            val = np.array([a.influence for a in side.arguments], dtype=np.float64)
            o = np.argsort(idx)
            by_target[x] = (idx[o], val[o])
            if progress is not None:
                progress(i + 1, len(tix))
        how = "re-solve"
    return InfluenceTable(qbaf, sigma, by_target, index, how, time.perf_counter() - t0, sem.name)


def _propagate(qbaf: QBAF, sigma: np.ndarray, tix: list[int], progress: Progress | None) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    from argfaith.metrics._influence_kernels import aggregation_products, removal_influences_chunk
    from argfaith.qbaf._kernels import reach_to_targets
    from argfaith.qbaf.graph import topological_order

    n = qbaf.n
    iptr, isrc, iatt = qbaf.in_csr
    optr, odst, oatt = qbaf.out_csr
    order = topological_order(qbaf)
    assert order is not None  # acyclic: checked by the caller
    pos = np.empty(n, dtype=np.int64)
    pos[order] = np.arange(n, dtype=np.int64)
    is_target = np.zeros(n, dtype=np.bool_)
    is_target[np.asarray(tix, dtype=np.int64)] = True
    # Only arguments with a path to some target can influence one.
    reach = np.asarray(reach_to_targets(n, iptr, isrc, is_target), dtype=np.bool_)
    reach[is_target] = False
    candidates = np.flatnonzero(reach).astype(np.int64)
    tau = np.asarray(qbaf.base_scores, dtype=np.float64)
    pa, za, ps, zs = aggregation_products(n, iptr, isrc, iatt, sigma)
    stamp = np.full(n, -1, dtype=np.int64)
    apa, aps = np.empty(n), np.empty(n)
    aza, azs = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    ks, ts, vs = [], [], []
    total = len(candidates)
    for start in range(0, total, _CHUNK):
        chunk = candidates[start : start + _CHUNK]
        k, t, v = removal_influences_chunk(
            chunk, start, tau, optr, odst, oatt, sigma, pos, order, is_target, pa, za, ps, zs, stamp, apa, aza, aps, azs
        )
        ks.append(chunk[k])
        ts.append(t)
        vs.append(v)
        if progress is not None:
            progress(min(start + _CHUNK, total), total)
    y = np.concatenate(ks) if ks else np.zeros(0, np.int64)
    t = np.concatenate(ts) if ts else np.zeros(0, np.int64)
    v = np.concatenate(vs) if vs else np.zeros(0, np.float64)
    out: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    order_t = np.lexsort((y, t))  # by target, then argument index
    y, t, v = y[order_t], t[order_t], v[order_t]
    bounds = np.searchsorted(t, np.asarray(tix, dtype=np.int64), side="left"), np.searchsorted(t, np.asarray(tix, dtype=np.int64), side="right")
    for x, lo, hi in zip(tix, *bounds):
        out[x] = (y[lo:hi], v[lo:hi])
    return out


def side_explanation(
    table: InfluenceTable,
    proposal: str,
    *,
    procon: ProCon | None = None,
    strengths: StrengthResult | Mapping[str, float] | None = None,
    alignment_partners: Mapping[str, tuple[str, ...]] | None = None,
    limit: int | None = None,
) -> SideExplanation:
    """The :class:`SideExplanation` of ``proposal`` read from an :class:`InfluenceTable`: every
    argument with a path to it (``pro ∪ con``), ranked by |influence|, ties by framework order.
    Vectorised: only the ``limit`` arguments kept become Python objects. (``procon`` is accepted
    for symmetry with :func:`argument_influences`; the table's index holds the same sets.)"""
    qbaf = table.qbaf
    x = qbaf.idx(proposal)
    pro = np.unique(table.procon.pro(proposal))
    con = np.unique(table.procon.con(proposal))
    members = np.union1d(pro, con)
    members = members[members != x]
    sidx, sval = table.by_target.get(x, (np.zeros(0, np.int64), np.zeros(0, np.float64)))
    vals = np.zeros(len(members), dtype=np.float64)
    if len(sidx) and len(members):
        at = np.minimum(np.searchsorted(sidx, members), len(sidx) - 1)
        hit = sidx[at] == members
        vals[hit] = sval[at[hit]]
    order = np.lexsort((members, -np.abs(vals)))
    keep = order if limit is None else order[:limit]
    direct_att = set(qbaf.attackers(proposal))
    direct_sup = set(qbaf.supporters(proposal))
    ids, args = qbaf.ids, qbaf.arguments
    partners = alignment_partners or {}

    def member(arr: np.ndarray, v: int) -> bool:
        i = int(np.searchsorted(arr, v))
        return i < len(arr) and int(arr[i]) == v

    out = []
    for i in keep.tolist():
        y = int(members[i])
        yid = ids[y]
        a = args[y]
        own = float(strengths[yid]) if strengths is not None else float(table.sigma[y])
        out.append(
            ArgumentInfluence(
                id=yid,
                influence=float(vals[i]),
                relation="attack" if yid in direct_att else ("support" if yid in direct_sup else None),
                pro=member(pro, y),
                con=member(con, y),
                strength=own,
                text=a.text,
                speaker=a.speaker,
                aligned=tuple(partners.get(yid, ())),
            )
        )
    sigma = float(strengths[proposal]) if strengths is not None else float(table.sigma[x])
    return SideExplanation(
        sigma=sigma, arguments=tuple(out), n_arguments=len(members), n_attackers=len(direct_att), n_supporters=len(direct_sup)
    )


def argument_influences(
    qbaf: QBAF,
    proposal: str,
    *,
    strengths: StrengthResult | Mapping[str, float] | None = None,
    procon: ProCon | None = None,
    method: str = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
    alignment_partners: Mapping[str, tuple[str, ...]] | None = None,
    limit: int | None = None,
    table: InfluenceTable | None = None,
    semantics: str | GradualSemantics = "dfquad",
) -> SideExplanation:
    """The arguments with a path to ``proposal``, ranked by removal influence (module docstring).

    Parameters
    ----------
    strengths : optional
        Precomputed σ of ``qbaf`` (for the ``strength`` field and σ(x)).
    procon : ProCon, optional
        Precomputed pro/con sets of ``proposal``.
    method, max_iter, tol :
        Solver settings (:func:`argfaith.qbaf.gradual.gradual_strengths`), used for every removal.
    alignment_partners : Mapping, optional
        ``{argument id: partner ids on the other side}``, copied into ``aligned``.
    limit : int, optional
        Keep only the ``limit`` most influential arguments (``n_arguments`` still counts all).
    semantics : str or GradualSemantics
        The gradual semantics whose σ the influences are measured in (default DF-QuAD).
    table : InfluenceTable, optional
        Influences computed earlier for this QBAF (:func:`removal_influence_table`).
    """
    if table is None:
        res = strengths if hasattr(strengths, "values") and not isinstance(strengths, Mapping) else None
        table = removal_influence_table(qbaf, [proposal], strengths=res, method=method, max_iter=max_iter, tol=tol, semantics=semantics)  # type: ignore[arg-type]
    return side_explanation(table, proposal, procon=procon, strengths=strengths, alignment_partners=alignment_partners, limit=limit)


def _partners(alignment: Alignment | None) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    if alignment is None:
        return {}, {}
    src: dict[str, list[str]] = {}
    summ: dict[str, list[str]] = {}
    for p in alignment.pairs:
        src.setdefault(p.source_id, []).append(p.summary_id)
        summ.setdefault(p.summary_id, []).append(p.source_id)
    return {k: tuple(v) for k, v in src.items()}, {k: tuple(v) for k, v in summ.items()}


def explain_proposals(
    source: QBAF,
    summary: QBAF,
    proposals: Iterable[str] | None = None,
    *,
    source_strengths: StrengthResult | Mapping[str, float] | None = None,
    summary_strengths: StrengthResult | Mapping[str, float] | None = None,
    source_procon: Mapping[str, ProCon] | None = None,
    summary_procon: Mapping[str, ProCon] | None = None,
    alignment: Alignment | None = None,
    method: str = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
    limit: int | None = None,
    source_table: InfluenceTable | None = None,
    summary_table: InfluenceTable | None = None,
    progress: Callable[[str, int, int], None] | None = None,
    semantics: str | GradualSemantics = "dfquad",
) -> list[ProposalExplanation]:
    """Explanations for the given proposals (default: the source's proposals present in both),
    influences measured in the σ of ``semantics`` (default DF-QuAD).

    ``source_table`` / ``summary_table`` reuse influences computed earlier (the source's are the
    same for every summary); ``progress(side, done, total)`` reports the computation of a table.
    """
    ps = tuple(proposals) if proposals is not None else tuple(p for p in source.proposals if p in summary)
    s_src = source_strengths if source_strengths is not None else gradual_strengths(source, semantics, method=method, max_iter=max_iter, tol=tol)  # type: ignore[arg-type]
    s_sum = summary_strengths if summary_strengths is not None else gradual_strengths(summary, semantics, method=method, max_iter=max_iter, tol=tol)  # type: ignore[arg-type]
    kw = dict(method=method, max_iter=max_iter, tol=tol, semantics=semantics)

    def table(q: QBAF, s: object, role: str) -> InfluenceTable:
        res = s if hasattr(s, "values") and not isinstance(s, Mapping) else None
        cb = (lambda d, t: progress(role, d, t)) if progress is not None else None
        return removal_influence_table(q, [p for p in q.proposals if p in set(ps)], strengths=res, progress=cb, **kw)  # type: ignore[arg-type]

    t_src = source_table if source_table is not None else table(source, s_src, "source")
    t_sum = summary_table if summary_table is not None else table(summary, s_sum, "summary")
    part_src, part_sum = _partners(alignment)
    out = []
    for p in ps:
        a = side_explanation(t_src, p, procon=(source_procon or {}).get(p), strengths=s_src, alignment_partners=part_src, limit=limit)
        b = side_explanation(t_sum, p, procon=(summary_procon or {}).get(p), strengths=s_sum, alignment_partners=part_sum, limit=limit)
        text = source.argument(p).text or summary.argument(p).text
        out.append(ProposalExplanation(p, text, a.sigma, b.sigma, b.sigma - a.sigma, a, b))
    return out
