"""Explanations: why a proposal's strength differs between the source and the summary.

For each proposal x the explanation gives σ(x) in Q, σ*(x) in Q*, the difference σ*(x) − σ(x),
and on each side the arguments that bear on x — its attackers and supporters, direct and
indirect — ranked by their *influence* on σ(x), in the spirit of the paper's qualitative example
(PAPER.md §6, Table 4).

Influence (removal influence). For an argument y and a proposal x of a QBAF Q,

    influence_Q(y → x) = σ_Q(x) − σ_{Q − y}(x),

where Q − y is Q without y and without every attack/support edge incident to y, and σ is the
DF-QuAD strength (PAPER.md §2) computed with the same solver settings. It is positive when y
raises x's strength, negative when y lowers it, and exactly 0 for arguments with no path to x.
It is computed exactly — one DF-QuAD evaluation per argument with a path to x — on the
sub-framework induced by x and its ancestors (σ(x) depends on nothing else: every DF-QuAD
update of x reads only its attackers and supporters, recursively), so it costs
O(|anc(x)| · |edges among anc(x)|) and not O(|X| · |A ∪ S|).
Arguments are ranked by |influence| (largest first), ties by framework order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from argfaith.qbaf import QBAF, dfquad_strengths, pro_con

if TYPE_CHECKING:
    from argfaith.metrics.alignment import Alignment
    from argfaith.qbaf import ProCon, StrengthResult

__all__ = ["ArgumentInfluence", "SideExplanation", "ProposalExplanation", "argument_influences", "explain_proposals"]


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
) -> SideExplanation:
    """The arguments with a path to ``proposal``, ranked by removal influence (module docstring).

    Parameters
    ----------
    strengths : optional
        Precomputed σ of ``qbaf`` (for the ``strength`` field and σ(x)).
    procon : ProCon, optional
        Precomputed pro/con sets of ``proposal``.
    method, max_iter, tol :
        DF-QuAD solver settings (:func:`argfaith.qbaf.dfquad_strengths`), used for every removal.
    alignment_partners : Mapping, optional
        ``{argument id: partner ids on the other side}``, copied into ``aligned``.
    limit : int, optional
        Keep only the ``limit`` most influential arguments (``n_arguments`` still counts all).
    """
    x = qbaf.idx(proposal)
    anc = _ancestors(qbaf, x)
    sub, pos = _sub(qbaf, anc)
    kw = dict(method=method, max_iter=max_iter, tol=tol)
    base = dfquad_strengths(sub, **kw)  # type: ignore[arg-type]
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
        sx_y = float(dfquad_strengths(sub_y, **kw).values[pos_y[x]])  # type: ignore[arg-type]
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
) -> list[ProposalExplanation]:
    """Explanations for the given proposals (default: the source's proposals present in both)."""
    ps = tuple(proposals) if proposals is not None else tuple(p for p in source.proposals if p in summary)
    s_src = source_strengths if source_strengths is not None else dfquad_strengths(source, method=method, max_iter=max_iter, tol=tol)  # type: ignore[arg-type]
    s_sum = summary_strengths if summary_strengths is not None else dfquad_strengths(summary, method=method, max_iter=max_iter, tol=tol)  # type: ignore[arg-type]
    part_src, part_sum = _partners(alignment)
    out = []
    for p in ps:
        kw = dict(method=method, max_iter=max_iter, tol=tol, limit=limit)
        a = argument_influences(
            source, p, strengths=s_src, procon=(source_procon or {}).get(p), alignment_partners=part_src, **kw  # type: ignore[arg-type]
        )
        b = argument_influences(
            summary, p, strengths=s_sum, procon=(summary_procon or {}).get(p), alignment_partners=part_sum, **kw  # type: ignore[arg-type]
        )
        text = source.argument(p).text or summary.argument(p).text
        out.append(ProposalExplanation(p, text, a.sigma, b.sigma, b.sigma - a.sigma, a, b))
    return out
