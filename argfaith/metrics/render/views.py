"""View models of the HTML report, built from a report or suite (plain data; the template only
formats them).

* :func:`proposal_cards` — the default view: per provision, σ in the debate and σ* in each
  summary with the pairwise verdicts, then the arguments that raise it (pro) and lower it (con)
  on each side, side by side, aligned rows where an alignment pairs a summary argument with a
  debate argument;
* :func:`argument_label` — the short label used everywhere: speaker and the argument's first
  words (ids are shown only on demand: in mined debates they all share a long prefix);
* :func:`graph_view` — the opt-in full graph: every argument with the classes the page's CSS
  filters use (proposal reached, relation, speaker).

"Pro" and "con" here follow the sign of the removal influence (:mod:`argfaith.metrics.explain`):
pro arguments raise σ(x), con arguments lower it. The paper's path-based membership (PAPER.md §3:
pro(x) = an even number of attacks on some path) is shown as a tag, since in mined debates most
arguments reach a provision both ways.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from argfaith.metrics.render.common import (
    _summary_key,
    disagreeing_proposals,
    primary_tau,
    summary_codes,
    summary_names,
)
from argfaith.metrics.report import EvaluationReport

__all__ = [
    "ArgView",
    "SideCell",
    "ProposalCard",
    "GraphView",
    "all_strengths",
    "argument_label",
    "clean_speaker",
    "first_words",
    "short_ids",
    "proposal_cards",
    "graph_view",
    "GRAPH_AUTO_LIMIT",
]

#: Frameworks up to this many arguments get the full-graph view unless it is switched off;
#: larger ones only when asked (``full_graph=True``): above it a drawing is no longer readable.
GRAPH_AUTO_LIMIT = 500
#: A drawing is never made above this size (the file would be tens of MB).
GRAPH_HARD_LIMIT = 5000

_NONE_ROWS = 3  # rows of "no effect" arguments shown per card
#: Removal influences smaller than this in absolute value are listed under "no effect": they show
#: as ±0.000 at the report's three decimals, and a row of "−0.000" under "con" would say that an
#: argument lowers σ when removing it changes nothing visible.
ZERO_INFLUENCE = 5e-4
_TRAIL = re.compile(r"[\s,;:–—-]+$")
_WORD = re.compile(r"\S+")


def clean_speaker(speaker: str | None) -> str:
    """A speaker as a label: ``"Zita Pleštinská (PPE-DE). –"`` → ``"Zita Pleštinská (PPE-DE)"``."""
    if not speaker:
        return ""
    s = " ".join(speaker.split())
    s = _TRAIL.sub("", s)
    return s.rstrip(".") if s.endswith(").") else s


def first_words(text: str | None, words: int = 12, chars: int = 90) -> str:
    """The first ``words`` words of ``text`` (at most ``chars`` characters), with … if cut."""
    if not text:
        return ""
    toks = _WORD.findall(text)
    out = " ".join(toks[:words])
    cut = len(toks) > words
    if len(out) > chars:
        out, cut = out[: chars - 1].rstrip(), True
    return out + ("…" if cut else "")


def argument_label(text: str | None, speaker: str | None, fallback: str) -> str:
    """``Speaker: first words…`` — or the first words alone, or ``fallback`` (an id)."""
    sp = clean_speaker(speaker)
    fw = first_words(text)
    if sp and fw:
        return f"{sp}: {fw}"
    return fw or sp or fallback


def short_ids(ids: Sequence[str], *, keep_word: bool = False) -> dict[str, str]:
    """Ids without the prefix they all share (cut after a separator): ``CRE-20060213-ITEM-013-1-143-5``
    → ``1-143-5`` when every id of the framework starts with ``CRE-20060213-ITEM-013-``.
    ``keep_word``: never leave bare numbers — ``…-013-PAR-22`` → ``PAR-22``, not ``22``."""
    uniq = list(dict.fromkeys(ids))
    if len(uniq) < 2:
        return {i: i for i in uniq}
    pre = os.path.commonprefix(uniq)
    cuts = sorted((k + 1 for k, c in enumerate(pre) if c in "-_.:/ "), reverse=True) + [0]
    for cut in cuts:
        out = {i: i[cut:] or i for i in uniq}
        if keep_word and cut and all(v.isdigit() for v in out.values()):
            continue
        return out if len(set(out.values())) == len(uniq) else {i: i for i in uniq}
    return {i: i for i in uniq}


# ---------------------------------------------------------------------------- proposal cards
@dataclass(frozen=True)
class ArgView:
    """One argument in a card."""

    id: str
    short_id: str
    label: str  # speaker: first words
    text: str
    speaker: str
    influence: float
    sigma: float
    membership: str  # "pro", "con", "pro and con" (paths, PAPER.md §3)
    relation: str  # "direct attack", "direct support", "indirect"
    note: str = ""  # e.g. aligned with a debate argument on the other side


@dataclass(frozen=True)
class SideCell:
    """The per-summary head of a card: σ*, difference and verdicts."""

    code: str
    name: str
    sigma: float
    difference: float
    balance: bool
    epsilon: bool
    dpc: bool
    accepted: bool
    n_arguments: int | None


@dataclass
class ProposalCard:
    id: str
    short_id: str
    text: str
    sigma: float
    accepted: bool
    n_source_arguments: int | None
    heads: list[SideCell]
    # ("pro" | "con" | "none", rows): raise σ, lower σ, or change nothing when removed alone
    groups: list[tuple[str, list[list[ArgView | None]]]] = field(default_factory=list)
    hidden: dict[str, int] = field(default_factory=dict)  # column → arguments bearing on it but not listed
    ok: bool = True  # every summary agrees on every pairwise metric
    aligned: bool = False
    # "pro" | "con" → per column (debate first): why that column lists no argument ("" = it lists some)
    notes: dict[str, list[str]] = field(default_factory=dict)


def _membership(a: Any) -> str:
    return "pro and con" if a.pro and a.con else ("pro" if a.pro else ("con" if a.con else "—"))


def _relation(a: Any) -> str:
    return f"direct {a.relation}" if a.relation else "indirect"


def _view(a: Any, sid: Mapping[str, str], note: str = "") -> ArgView:
    return ArgView(
        id=a.id, short_id=sid.get(a.id, a.id), label=argument_label(a.text, a.speaker, sid.get(a.id, a.id)),
        text=" ".join((a.text or "").split()), speaker=clean_speaker(a.speaker), influence=a.influence,
        sigma=a.strength, membership=_membership(a), relation=_relation(a), note=note,
    )


def _sign(g: str, a: Any) -> bool:
    if g == "pro":
        return a.influence >= ZERO_INFLUENCE
    if g == "con":
        return a.influence <= -ZERO_INFLUENCE
    return abs(a.influence) < ZERO_INFLUENCE


def _empty_note(g: str, side: Any, debate: bool) -> str:
    """Why a column of a card lists no argument that raises (``g = "pro"``) or lowers σ."""
    if side is None:
        return ""
    who = "debate" if debate else "summary"
    if side.n_arguments == 0:
        return f"no {who} argument bears on this provision" + ("" if debate else " (σ* stays at its base score)")
    verb = "raises" if g == "pro" else "lowers"
    listed = list(side.arguments)
    if listed and all(abs(a.influence) < ZERO_INFLUENCE for a in listed):
        sym = "σ" if debate else "σ*"
        if side.sigma >= 0.999 or side.sigma <= 0.001:
            return (f"{sym} is saturated at {side.sigma:.3f}: {side.n_arguments} argument(s) bear on it, but removing any one "
                    "of them alone changes nothing (listed under no effect)")
        return f"removing any one of the {side.n_arguments} argument(s) that bear on it alone changes nothing (listed under no effect)"
    return f"no {who} argument {verb} it"


def proposal_cards(reports: list[EvaluationReport]) -> list[ProposalCard]:
    """One card per proposal of the source, for the reports at the primary τ (σ depends on τ; the
    Table-6 view covers the others). Without explanations the cards carry σ and verdicts only."""
    tau0 = primary_tau(reports)
    shown = [r for r in reports if r.settings.tau == tau0]
    r0 = shown[0]
    names, codes = summary_names(reports), summary_codes(reports)
    ex_by = [{e.proposal: e for e in r.explanations} for r in shown]
    if r0.source.qbaf:
        all_src = [a["id"] for a in r0.source.qbaf.get("arguments", [])]
    else:  # QBAF not embedded: the ids the report mentions
        all_src = [a.id for e in r0.explanations for a in e.source.arguments] + list(r0.source.strengths)
    kinds = {a["id"]: a.get("kind") for a in (r0.source.qbaf or {}).get("arguments", [])}
    props = [i for i in all_src if i in r0.source.strengths or kinds.get(i) == "proposal"]
    sid = short_ids([i for i in all_src if i not in set(props)])
    sid.update(short_ids(props, keep_word=True))
    cards: list[ProposalCard] = []
    for p, sigma in r0.source.strengths.items():
        heads = []
        ok = True
        for r, ex in zip(shown, ex_by):
            v = r.pairwise.per_proposal.get(p)
            if v is None:
                continue
            ok = ok and v.balance_consistent and v.epsilon_accurate and v.d_preferability_consistent
            e = ex.get(p)
            heads.append(SideCell(
                code=codes[_summary_key(r)], name=names[_summary_key(r)], sigma=v.sigma_summary, difference=v.difference,
                balance=v.balance_consistent, epsilon=v.epsilon_accurate, dpc=v.d_preferability_consistent,
                accepted=v.accepted_summary, n_arguments=e.summary.n_arguments if e else None,
            ))
        e0 = ex_by[0].get(p)
        card = ProposalCard(
            id=p, short_id=sid.get(p, p), text=" ".join((r0.proposals.texts.get(p) or "").split()), sigma=sigma,
            accepted=p in r0.source.accepted, n_source_arguments=e0.source.n_arguments if e0 else None,
            heads=heads, ok=ok, aligned=any(r.alignment is not None for r in shown),
        )
        if e0 is not None:
            _fill(card, e0, [ex.get(p) for ex in ex_by], sid, [short_ids([a.id for a in (ex.get(p).summary.arguments if ex.get(p) else [])]) for ex in ex_by])
        cards.append(card)
    return cards


def _fill(card: ProposalCard, e0: Any, exs: list[Any], sid: Mapping[str, str], sum_sids: list[Mapping[str, str]]) -> None:
    src_args = list(e0.source.arguments)
    shown_src = {a.id for a in src_args}
    for g in ("pro", "con", "none"):
        rows: list[list[ArgView | None]] = [[_view(a, sid)] + [None] * len(exs) for a in src_args if _sign(g, a)]
        row_of = {r[0].id: i for i, r in enumerate(rows) if r[0] is not None}
        for j, e in enumerate(exs, start=1):
            if e is None:
                continue
            left: list[ArgView] = []
            for a in e.summary.arguments:
                if not _sign(g, a):
                    continue
                placed = False
                for s in a.aligned:
                    i = row_of.get(s)
                    if i is not None and rows[i][j] is None:
                        rows[i][j] = _view(a, sum_sids[j - 1])
                        placed = True
                        break
                if not placed:
                    other = [s for s in a.aligned if s in shown_src]
                    note = ""
                    if other:
                        note = "aligned with a debate argument on the other side"
                    elif a.aligned:
                        note = "aligned with a debate argument outside the top list"
                    left.append(_view(a, sum_sids[j - 1], note))
            free = [i for i, r in enumerate(rows) if r[j] is None and (card.aligned is False or r[0] is None)]
            for v in left:
                if free:
                    rows[free.pop(0)][j] = v
                else:
                    rows.append([None] * (len(exs) + 1))
                    rows[-1][j] = v
        if g == "none" and len(rows) > _NONE_ROWS:  # a saturated σ: a few examples are enough
            card.hidden["none"] = sum(1 for r in rows[_NONE_ROWS:] for c in r if c is not None)
            rows = rows[:_NONE_ROWS]
        if g != "none":
            sides = [e0.source] + [e.summary if e is not None else None for e in exs]
            card.notes[g] = [
                "" if any(r[j] is not None for r in rows) else _empty_note(g, sides[j], j == 0) for j in range(len(exs) + 1)
            ]
        if rows or g != "none":
            card.groups.append((g, rows))
    card.hidden["Q"] = max(0, e0.source.n_arguments - len(src_args))
    for j, e in enumerate(exs, start=1):
        if e is not None:
            card.hidden[str(j)] = max(0, e.summary.n_arguments - len(e.summary.arguments))


# ---------------------------------------------------------------------------- full graph
@dataclass(frozen=True)
class GraphView:
    """The full graph of one QBAF with filter classes (see the template)."""

    role: str  # "source" | "summary"
    uid: str
    layout: Any  # GraphLayout
    node_classes: Mapping[str, str]  # id → " pp3 pp7 sp2 ..."
    edge_classes: tuple[str, ...]  # per layout edge
    proposals: tuple[tuple[int, str, str], ...]  # (k, short id, label)
    speakers: tuple[tuple[int, str, int], ...]  # (k, speaker, n arguments)
    n_arguments: int
    n_edges: int


def all_strengths(qdict: dict[str, Any], method: str, semantics: str = "dfquad") -> dict[str, float]:
    """σ of every argument of an embedded QBAF (the side report keeps only the proposals'), in the
    report's own semantics (names and ``"aggregation:influence"`` specs parse back)."""
    from argfaith.qbaf import qbaf_from_dict
    from argfaith.qbaf.gradual import gradual_strengths

    q = qbaf_from_dict(qdict, source="report")
    return gradual_strengths(q, semantics, method=method if method in ("sync", "rk4") else "sync").as_dict()  # type: ignore[arg-type]


def graph_view(side: Any, role: str, uid: str, *, proposal_order: Sequence[str]) -> GraphView | None:
    """The filterable drawing of ``side``'s embedded QBAF (None when it is not embedded); nodes
    coloured by σ in the report's semantics."""
    from argfaith.metrics.render.layout import layout_qbaf_dict
    from argfaith.qbaf import pro_con_index, qbaf_from_dict

    qd = side.qbaf
    if qd is None:
        return None
    q = qbaf_from_dict(qd, source="report")
    sigma = all_strengths(qd, side.convergence.method, getattr(side.convergence, "semantics", "dfquad"))
    args = {a["id"]: a for a in qd.get("arguments", [])}
    # Proposals and speech arguments lose their own shared prefixes (PAR-3; 1-143-5 or #12).
    sid = short_ids([i for i in q.ids if args[i].get("kind") == "proposal"], keep_word=True)
    sid.update({k: (f"#{v}" if v.isdigit() else v) for k, v in short_ids([i for i in q.ids if args[i].get("kind") != "proposal"]).items()})
    # Speakers in order of first appearance; labels: initials + running number per speaker.
    speakers: dict[str, int] = {}
    count: dict[str, int] = {}
    labels: dict[str, str] = {}
    for a in qd.get("arguments", []):
        if a.get("kind") == "proposal":
            labels[a["id"]] = sid[a["id"]]
            continue
        sp = clean_speaker(a.get("speaker"))
        if sp:
            speakers.setdefault(sp, len(speakers))
            count[sp] = count.get(sp, 0) + 1
            initials = "".join(w[0] for w in re.findall(r"[^\W\d_]+", sp.split("(")[0])[:3]).upper() or "?"
            labels[a["id"]] = f"{initials}{count[sp]}"
        else:
            labels[a["id"]] = sid[a["id"]]
    titles = {
        i: "\n".join(x for x in (
            argument_label(args[i].get("text"), args[i].get("speaker"), sid[i]) if args[i].get("kind") != "proposal" else sid[i],
            f"id {i}", f"σ = {sigma[i]:.3f}", first_words(args[i].get("text"), 80, 500),
        ) if x)
        for i in q.ids
    }
    layout = layout_qbaf_dict(qd, sigma, labels=labels, titles=titles, max_per_row=24)
    props = [p for p in proposal_order if p in q] + [p for p in q.proposals if p not in set(proposal_order)]
    index = pro_con_index(q, props)
    reach: dict[str, list[int]] = {i: [] for i in q.ids}
    for k, p in enumerate(props):
        reach[p].append(k)
        for v in set(index.pro(k).tolist()) | set(index.con(k).tolist()):
            reach[q.ids[v]].append(k)
    pk = {p: k for k, p in enumerate(props)}
    direct: dict[str, list[int]] = {i: ([pk[i]] if i in pk else []) for i in q.ids}
    for s_, t_ in (*q.attacks, *q.supports):
        if t_ in pk:
            direct[s_].append(pk[t_])
    node_classes = {}
    for i in q.ids:
        sp = clean_speaker(args[i].get("speaker"))
        cls = [f"pp{k}" for k in reach[i]] + [f"dp{k}" for k in direct[i]] + ([f"sp{speakers[sp]}"] if sp in speakers else [])
        node_classes[i] = " ".join(cls)
    edge_classes = []
    for e in layout.edges:
        common = sorted(set(reach[e.source]) & (set(reach[e.target]) | ({pk[e.target]} if e.target in pk else set())))
        sp = clean_speaker(args[e.source].get("speaker"))
        edge_classes.append(" ".join([f"pp{k}" for k in common] + ([f"dk{pk[e.target]}"] if e.target in pk else [])
                                     + ([f"sp{speakers[sp]}"] if sp in speakers else [])))
    ptext = {p: args[p].get("text") for p in props}
    return GraphView(
        role=role, uid=uid, layout=layout, node_classes=node_classes, edge_classes=tuple(edge_classes),
        proposals=tuple((k, sid[p], first_words(ptext[p], 8, 60)) for k, p in enumerate(props)),
        speakers=tuple((k, sp, count[sp]) for sp, k in speakers.items()),
        n_arguments=q.n, n_edges=len(layout.edges),
    )


def bad_proposals(reports: list[EvaluationReport]) -> set[str]:
    """Proposals some summary (at the primary τ) gets wrong."""
    tau0 = primary_tau(reports)
    out: set[str] = set()
    for r in reports:
        if r.settings.tau == tau0:
            out |= set(disagreeing_proposals(r))
    return out
