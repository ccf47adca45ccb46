"""Argument graphs of the HTML report, as plain data for the template (SVG, no script).

* :func:`graph_view` — one framework drawn whole, with the classes the page's CSS filters use
  (proposal reached, relation, speaker). Summaries are drawn this way: they are small.
* :func:`provision_graphs` — a mined debate (hundreds of arguments, thousands of edges, nearly
  every argument reaching nearly every provision) drawn whole is a hairball. Per provision p it
  draws instead **p's direct attackers and supporters and, for each of the arguments with the
  largest removal influence on p (the explanations' ranking), one shortest path to p** — the
  arguments a reader asks about and how they reach p — and says how many more reach it.

Node labels: a speaker's unique label (:mod:`argfaith.metrics.render.speakers`: ``JF``, ``MMav``)
and the number of their argument in the debate; summary sentences (no speaker) by their first
words. Labels are drawn in near-black or white, whichever contrasts more with the node's fill
(:func:`argfaith.metrics.render.layout.text_fill`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from argfaith.metrics.render.labels import argument_label, first_words, short_ids
from argfaith.metrics.render.speakers import Speaker, speaker_index

__all__ = [
    "GRAPH_AUTO_LIMIT",
    "GRAPH_HARD_LIMIT",
    "WHOLE_DEBATE_LIMIT",
    "GraphView",
    "ProvisionGraph",
    "all_strengths",
    "graph_view",
    "provision_graphs",
]

#: Frameworks up to this many arguments get the full-graph view unless it is switched off;
#: larger ones only when asked (``full_graph=True``): above it a drawing is no longer readable.
GRAPH_AUTO_LIMIT = 500
#: A drawing is never made above this size (the file would be tens of MB).
GRAPH_HARD_LIMIT = 5000
#: A debate with more arguments than this is drawn per provision by default, not whole.
WHOLE_DEBATE_LIMIT = 60
#: Direct attackers / supporters drawn per provision (the strongest by σ when there are more).
DIRECT_LIMIT = 40
#: Characters of a summary sentence's first words on its node.
SUMMARY_LABEL_CHARS = 16


@dataclass(frozen=True)
class GraphView:
    """The full graph of one QBAF with filter classes (see the template)."""

    role: str  # "source" | "summary"
    uid: str
    layout: Any  # GraphLayout
    node_classes: Mapping[str, str]  # id → " pp3 pp7 sp2 ..."
    edge_classes: tuple[str, ...]  # per layout edge
    proposals: tuple[tuple[int, str, str], ...]  # (k, short id, label)
    speakers: tuple[tuple[int, str, int], ...]  # (k, "label — name (also written …)", n arguments)
    n_arguments: int
    n_edges: int


@dataclass(frozen=True)
class ProvisionGraph:
    """The part of a debate graph drawn for one provision (module docstring)."""

    proposal: str
    uid: str
    layout: Any  # GraphLayout
    n_direct: int  # direct attackers and supporters
    n_direct_drawn: int
    n_paths: int  # influential indirect arguments drawn with a path
    n_reaching: int  # arguments with some path to the proposal
    n_drawn: int  # speech arguments drawn
    legend: tuple[tuple[str, str], ...]  # (label, speaker) of the speakers drawn


def all_strengths(qdict: dict[str, Any], method: str, semantics: str = "dfquad") -> dict[str, float]:
    """σ of every argument of an embedded QBAF (the side report keeps only the proposals'), in the
    report's own semantics (names and ``"aggregation:influence"`` specs parse back)."""
    from argfaith.qbaf import qbaf_from_dict
    from argfaith.qbaf.gradual import gradual_strengths

    q = qbaf_from_dict(qdict, source="report")
    return gradual_strengths(q, semantics, method=method if method in ("sync", "rk4") else "sync").as_dict()  # type: ignore[arg-type]


def _labels(qd: Mapping[str, Any], role: str) -> tuple[dict[str, str], dict[str, str], dict[str, Speaker]]:
    """(node label, hover title, speaker) per argument id."""
    arg_list = list(qd.get("arguments", []))
    args = {a["id"]: a for a in arg_list}
    ids = [a["id"] for a in arg_list]
    props = [i for i in ids if args[i].get("kind") == "proposal"]
    sid = short_ids(props, keep_word=True)
    sid.update({k: (f"#{v}" if v.isdigit() else v) for k, v in short_ids([i for i in ids if i not in set(props)]).items()})
    spk_by_raw = speaker_index(a.get("speaker") for a in arg_list if a.get("kind") != "proposal")
    count: dict[str, int] = {}
    labels: dict[str, str] = {}
    speakers: dict[str, Speaker] = {}
    for a in arg_list:
        i = a["id"]
        if a.get("kind") == "proposal":
            labels[i] = sid[i]
            continue
        spk = spk_by_raw.get(a.get("speaker") or "")
        if spk is not None:
            speakers[i] = spk
            count[spk.key] = count.get(spk.key, 0) + 1
            labels[i] = f"{spk.label}{count[spk.key]}"
        elif role == "summary" and a.get("text"):
            labels[i] = first_words(a.get("text"), 3, SUMMARY_LABEL_CHARS)
        else:
            labels[i] = sid[i]
    titles = {}
    for i in ids:
        a = args[i]
        spk = speakers.get(i)
        head = sid[i] if a.get("kind") == "proposal" else argument_label(a.get("text"), spk.name if spk else None, sid[i])
        titles[i] = "\n".join(x for x in (head, spk.also if spk else "", f"id {i}", first_words(a.get("text"), 80, 500)) if x)
    return labels, titles, speakers


def _with_sigma(titles: dict[str, str], sigma: Mapping[str, float]) -> dict[str, str]:
    out = {}
    for i, t in titles.items():
        head, _, rest = t.partition("\n")
        out[i] = f"{head}\nσ = {sigma[i]:.3f}" + (f"\n{rest}" if rest else "")
    return out


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
    labels, titles, speakers = _labels(qd, role)
    has_words = any(len(v) > 7 for i, v in labels.items() if args[i].get("kind") != "proposal")
    layout = layout_qbaf_dict(
        qd, sigma, labels=labels, titles=_with_sigma(titles, sigma), max_per_row=10 if has_words else 24,
        label_chars=SUMMARY_LABEL_CHARS if has_words else 7,
    )
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
    people: dict[str, int] = {}
    for i in q.ids:
        if i in speakers:
            people.setdefault(speakers[i].key, len(people))
    node_classes = {}
    for i in q.ids:
        cls = [f"pp{k}" for k in reach[i]] + [f"dp{k}" for k in direct[i]] + ([f"sp{people[speakers[i].key]}"] if i in speakers else [])
        node_classes[i] = " ".join(cls)
    edge_classes = []
    for e in layout.edges:
        common = sorted(set(reach[e.source]) & (set(reach[e.target]) | ({pk[e.target]} if e.target in pk else set())))
        sp = speakers.get(e.source)
        edge_classes.append(" ".join([f"pp{k}" for k in common] + ([f"dk{pk[e.target]}"] if e.target in pk else [])
                                     + ([f"sp{people[sp.key]}"] if sp is not None else [])))
    ptext = {p: args[p].get("text") for p in props}
    by_key = {s.key: s for s in speakers.values()}
    sid = short_ids(props, keep_word=True)
    return GraphView(
        role=role, uid=uid, layout=layout, node_classes=node_classes, edge_classes=tuple(edge_classes),
        proposals=tuple((k, sid.get(p, p), first_words(ptext[p], 8, 60)) for k, p in enumerate(props)),
        speakers=tuple(
            (k, f"{by_key[key].label} — {by_key[key].name}" + (f" ({by_key[key].also})" if by_key[key].also else ""),
             sum(1 for s in speakers.values() if s.key == key))
            for key, k in people.items()
        ),
        n_arguments=q.n, n_edges=len(layout.edges),
    )


def _shortest_path(start: str, goal: str, out_adj: Mapping[str, list[str]]) -> list[str] | None:
    """Nodes of one shortest directed path start → … → goal (breadth-first), or None."""
    prev: dict[str, str | None] = {start: None}
    queue = deque([start])
    while queue:
        v = queue.popleft()
        if v == goal:
            path = [v]
            while prev[path[-1]] is not None:
                path.append(prev[path[-1]])  # type: ignore[arg-type]
            return path[::-1]
        for w in out_adj.get(v, ()):
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return None


def provision_graphs(
    side: Any, influential: Mapping[str, Iterable[str]], *, proposal_order: Sequence[str], uid: str = "pg",
) -> dict[str, ProvisionGraph]:
    """Per proposal, its neighbourhood in ``side``'s embedded QBAF (module docstring):
    ``influential[p]`` lists the arguments whose path to p is drawn (most influential first)."""
    from argfaith.metrics.render.layout import layout_qbaf_dict

    qd = side.qbaf
    if qd is None:
        return {}
    sigma = all_strengths(qd, side.convergence.method, getattr(side.convergence, "semantics", "dfquad"))
    arg_list = list(qd.get("arguments", []))
    args = {a["id"]: a for a in arg_list}
    labels, titles, speakers = _labels(qd, "source")
    titles = _with_sigma(titles, sigma)
    rel: dict[tuple[str, str], str] = {}
    out_adj: dict[str, list[str]] = {}
    in_adj: dict[str, list[str]] = {}
    for kind, key in (("attack", "attacks"), ("support", "supports")):
        for s_, t_ in qd.get(key, []):
            rel[(s_, t_)] = kind
            out_adj.setdefault(s_, []).append(t_)
            in_adj.setdefault(t_, []).append(s_)
    order = {a["id"]: k for k, a in enumerate(arg_list)}
    out: dict[str, ProvisionGraph] = {}
    props = [p for p in proposal_order if p in args]
    for k, p in enumerate(props):
        reaching: set[str] = set()
        stack = [p]
        while stack:
            v = stack.pop()
            for u in in_adj.get(v, ()):
                if u not in reaching:
                    reaching.add(u)
                    stack.append(u)
        direct = sorted(set(in_adj.get(p, ())), key=lambda a: (-sigma[a], order[a]))
        drawn_direct = direct[:DIRECT_LIMIT]
        nodes = {p, *drawn_direct}
        edges = {(a, p) for a in drawn_direct}
        n_paths = 0
        for a in influential.get(p, ()):
            if a in nodes or a not in reaching:
                continue
            path = _shortest_path(a, p, out_adj)
            if path is None:
                continue
            n_paths += 1
            nodes.update(path)
            edges.update(zip(path, path[1:]))
        keep = sorted(nodes, key=lambda a: order[a])
        sub = {
            "arguments": [args[a] for a in keep],
            "attacks": [[s_, t_] for s_, t_ in sorted(edges, key=lambda e: (order[e[0]], order[e[1]])) if rel[(s_, t_)] == "attack"],
            "supports": [[s_, t_] for s_, t_ in sorted(edges, key=lambda e: (order[e[0]], order[e[1]])) if rel[(s_, t_)] == "support"],
        }
        layout = layout_qbaf_dict(sub, sigma, labels=labels, titles=titles, max_per_row=20)
        drawn_people = {speakers[a].key: speakers[a] for a in keep if a in speakers}
        out[p] = ProvisionGraph(
            proposal=p, uid=f"{uid}{k}", layout=layout, n_direct=len(direct), n_direct_drawn=len(drawn_direct),
            n_paths=n_paths, n_reaching=len(reaching), n_drawn=len(keep) - 1,
            legend=tuple(sorted(((s.label, s.name + (f" ({s.also})" if s.also else "")) for s in drawn_people.values()))),
        )
    return out
