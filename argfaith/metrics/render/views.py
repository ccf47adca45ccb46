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
from argfaith.metrics.render.labels import argument_label, clean_speaker, first_words, short_ids
from argfaith.metrics.render.speakers import Speaker, speaker_index
from argfaith.metrics.report import EvaluationReport

__all__ = [
    "ArgView",
    "SideCell",
    "ProposalCard",
    "GraphView",
    "ProvisionGraph",
    "provision_graphs",
    "all_strengths",
    "argument_label",
    "clean_speaker",
    "first_words",
    "short_ids",
    "proposal_cards",
    "graph_view",
    "GRAPH_AUTO_LIMIT",
    "GRAPH_HARD_LIMIT",
]

_NONE_ROWS = 3  # rows of "no effect" arguments shown per card
#: Removal influences smaller than this in absolute value are listed under "no effect": they show
#: as ±0.000 at the report's three decimals, and a row of "−0.000" under "con" would say that an
#: argument lowers σ when removing it changes nothing visible.
ZERO_INFLUENCE = 5e-4


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
    #: With error bars (issue 23): σ*'s central interval over the draws, and the share of draws in
    #: which each verdict holds (π_bc, π_εa) and in which σ* is on the other side of 0.5.
    interval: tuple[float, float] | None = None
    p_balance: float | None = None
    p_epsilon: float | None = None
    p_side_change: float | None = None


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
    interval: tuple[float, float] | None = None  # σ's central interval over the draws (error bars)


def _ends(intervals: Any, key: str) -> tuple[float, float] | None:
    """(low, high) of ``intervals[key]`` (a verdict's error bars), None when absent or undefined."""
    iv = (intervals or {}).get(key)
    return None if iv is None or iv.low is None or iv.high is None else (iv.low, iv.high)


def _source_interval(shown: list[EvaluationReport], p: str) -> tuple[float, float] | None:
    """σ(p)'s interval in the debate: the same in every report of one τ (paired draws)."""
    for r in shown:
        v = r.pairwise.per_proposal.get(p)
        ends = _ends(v.interval, "sigma_source") if v is not None else None
        if ends is not None:
            return ends
    return None


def _membership(a: Any) -> str:
    return "pro and con" if a.pro and a.con else ("pro" if a.pro else ("con" if a.con else "—"))


def _relation(a: Any) -> str:
    return f"direct {a.relation}" if a.relation else "indirect"


def _view(a: Any, sid: Mapping[str, str], note: str = "", speakers: Mapping[str, Speaker] | None = None) -> ArgView:
    spk = (speakers or {}).get(a.speaker or "")
    name = spk.name if spk is not None else a.speaker
    return ArgView(
        id=a.id, short_id=sid.get(a.id, a.id), label=argument_label(a.text, name, sid.get(a.id, a.id)),
        text=" ".join((a.text or "").split()), speaker=clean_speaker(name), influence=a.influence,
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
    spk = speaker_index(
        [a.get("speaker") for a in (r0.source.qbaf or {}).get("arguments", [])]
        + [a.speaker for r in shown for e in r.explanations for sd in (e.source, e.summary) for a in sd.arguments]
    )
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
            pr = v.probability or {}
            heads.append(SideCell(
                code=codes[_summary_key(r)], name=names[_summary_key(r)], sigma=v.sigma_summary, difference=v.difference,
                balance=v.balance_consistent, epsilon=v.epsilon_accurate, dpc=v.d_preferability_consistent,
                accepted=v.accepted_summary, n_arguments=e.summary.n_arguments if e else None,
                interval=_ends(v.interval, "sigma_summary"), p_balance=pr.get("balance_consistent"),
                p_epsilon=pr.get("epsilon_accurate"), p_side_change=pr.get("side_change"),
            ))
        e0 = ex_by[0].get(p)
        card = ProposalCard(
            id=p, short_id=sid.get(p, p), text=" ".join((r0.proposals.texts.get(p) or "").split()), sigma=sigma,
            accepted=p in r0.source.accepted, n_source_arguments=e0.source.n_arguments if e0 else None,
            heads=heads, ok=ok, aligned=any(r.alignment is not None for r in shown),
            interval=_source_interval(shown, p),
        )
        if e0 is not None:
            _fill(card, e0, [ex.get(p) for ex in ex_by], sid, [short_ids([a.id for a in (ex.get(p).summary.arguments if ex.get(p) else [])]) for ex in ex_by], spk)
        cards.append(card)
    return cards


def _fill(card: ProposalCard, e0: Any, exs: list[Any], sid: Mapping[str, str], sum_sids: list[Mapping[str, str]],
          spk: Mapping[str, Speaker] | None = None) -> None:
    src_args = list(e0.source.arguments)
    shown_src = {a.id for a in src_args}
    for g in ("pro", "con", "none"):
        rows: list[list[ArgView | None]] = [[_view(a, sid, speakers=spk)] + [None] * len(exs) for a in src_args if _sign(g, a)]
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
# The drawings live in :mod:`argfaith.metrics.render.graphs`; re-exported here for callers of
# the earlier layout.
from argfaith.metrics.render.graphs import (  # noqa: E402
    GRAPH_AUTO_LIMIT,
    GRAPH_HARD_LIMIT,
    GraphView,
    ProvisionGraph,
    all_strengths,
    graph_view,
    provision_graphs,
)


def bad_proposals(reports: list[EvaluationReport]) -> set[str]:
    """Proposals some summary (at the primary τ) gets wrong."""
    tau0 = primary_tau(reports)
    out: set[str] = set()
    for r in reports:
        if r.settings.tau == tau0:
            out |= set(disagreeing_proposals(r))
    return out
