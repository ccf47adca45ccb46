"""One self-contained, offline HTML file that a person can read on a real debate.

Sections: the metric tables (summaries named so two variants never share a header; a key gives
every file), then **one card per provision** — σ in the debate and σ* in each summary with the
pairwise verdicts, the arguments that raise (pro) and lower (con) it on each side, side by side,
in aligned rows when an alignment pairs them, each labelled with its speaker and first words —
then, opt-in, the **full argument graphs** with filters by proposal, relation and speaker.

No CDN, no fonts, no script: a Content-Security-Policy meta tag forbids every external fetch and
every script; the filters and the "only disagreements" switch are plain CSS (``:has()`` on
radio buttons and checkboxes). Jinja2 autoescaping escapes all transcript text (a second,
independent line of defence).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from argfaith.metrics.render.common import (
    Reportish,
    as_reports,
    column_labels,
    fmt,
    fmt_signed,
    framework_names,
    grouped_warnings,
    interval_note,
    metric_rows,
    P_BETTER_NOTE,
    p_better_lines,
    primary_tau,
    report_label,
    semantics_name,
    semantics_sweep_table,
    sensitivity_table,
    strength_rows,
    summary_codes,
    summary_names,
    tau_text,
)
from argfaith.metrics.render.layout import sigma_fill
from argfaith.metrics.render.overview import WORST, provision_matrix, summary_verdicts
from argfaith.metrics.render.graphs import GRAPH_AUTO_LIMIT, GRAPH_HARD_LIMIT, WHOLE_DEBATE_LIMIT, graph_view, provision_graphs
from argfaith.metrics.render.views import first_words, proposal_cards
from argfaith.metrics.report import EvaluationSuite

__all__ = ["render_html", "CSP"]

#: Content-Security-Policy of the report: nothing may be fetched and no script may run.
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"


@lru_cache(maxsize=1)
def _env() -> Any:
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    env = Environment(
        loader=PackageLoader("argfaith.metrics.render", "templates"),
        autoescape=select_autoescape(enabled_extensions=("html", "j2", "html.j2"), default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["fmt"] = fmt
    env.filters["signed"] = fmt_signed
    env.filters["first_words"] = first_words
    return env


def _relation(a: Any) -> str:
    if a.relation:
        return a.relation
    if a.pro and not a.con:
        return "indirect pro"
    if a.con and not a.pro:
        return "indirect con"
    return "indirect"


def _graphs(reports: list[Any], full_graph: bool | None) -> tuple[list[Any], str, dict[str, Any]]:
    """Graph views of the source and each distinct summary, a note when some are left out, and
    the per-provision drawings of a debate too large to draw whole (:mod:`.graphs`)."""
    r0 = reports[0]
    sides = [("source", "Q", r0.source)]
    seen: set[tuple[str, str]] = set()
    codes = summary_codes(reports)
    names = summary_names(reports)
    tau0 = primary_tau(reports)
    for r in reports:
        k = (r.summary.path or "", r.summary.name or "")
        if k in seen or r.settings.tau != tau0:
            continue
        seen.add(k)
        sides.append(("summary", f"{codes[k]} {names[k]}", r.summary))
    if full_graph is False:
        return [], "The full graphs are switched off (--no-full-graph).", {}
    if any(s.qbaf is None for _, _, s in sides):
        return [], "The QBAFs are not embedded in this report (--no-qbafs): no full graph.", {}
    order = list(r0.source.strengths)
    notes = []
    pgraphs: dict[str, Any] = {}
    src_n = r0.source.n_arguments
    if full_graph is None and WHOLE_DEBATE_LIMIT < src_n <= GRAPH_HARD_LIMIT:
        shown = next(r for r in reports if r.settings.tau == tau0)
        influential = {
            e.proposal: [a.id for a in sorted(e.source.arguments, key=lambda a: -abs(a.influence))] for e in shown.explanations
        }
        pgraphs = provision_graphs(r0.source, influential, proposal_order=order)
        sides = sides[1:]
        notes.append(f"The debate's graph ({src_n:,} arguments) is too dense to read whole: each provision's card draws its "
                     "direct attackers and supporters and the paths of its most influential arguments (--full-graph draws it whole).")
    if not sides:
        return [], " ".join(notes), pgraphs
    biggest = max(s.n_arguments for _, _, s in sides)
    if biggest > GRAPH_HARD_LIMIT:
        return [], " ".join([*notes, f"The largest framework has {biggest:,} arguments: too many to draw (limit {GRAPH_HARD_LIMIT:,})."]), pgraphs
    if full_graph is None and biggest > GRAPH_AUTO_LIMIT:
        return [], " ".join([*notes, f"The largest framework has {biggest:,} arguments, more than a drawing shows legibly "
                                     f"({GRAPH_AUTO_LIMIT}); ask for it with --full-graph."]), pgraphs
    out = []
    for i, (role, label, side) in enumerate(sides):
        g = graph_view(side, role, f"g{i}", proposal_order=order)
        if g is not None:
            out.append((label, g))
    return out, " ".join(notes), pgraphs


def _title(title: str, reports: list[Any]) -> str:
    """The page title, naming the debate (its QBAF's name) when known."""
    src = reports[0].source
    if src.topic and src.name and src.topic != src.name:
        return f"{title}: {src.topic} ({src.name})"
    name = src.topic or src.name
    return f"{title}: {name}" if name else title


def _inputs(reports: list[Any]) -> list[tuple[str, str | None, str | None]]:
    """(label, document, QBAF file) of the debate and of every summary: the files a reader gave,
    not only the cache paths of the QBAFs mined from them."""
    r0 = reports[0]
    out = [("Debate Q" + (f" — {r0.source.name}" if r0.source.name else ""), r0.source.document, r0.source.path)]
    names, codes = summary_names(reports), summary_codes(reports)
    seen: set[tuple[str, str]] = set()
    for r in reports:
        k = (r.summary.path or "", r.summary.name or "")
        if k in seen:
            continue
        seen.add(k)
        out.append((f"{codes[k]} {names[k]}", r.summary.document, r.summary.path))
    return out


def render_html(obj: Reportish, *, title: str = "argfaith evaluation report", full_graph: bool | None = None) -> str:
    """Render a report or suite as one self-contained HTML document.

    ``full_graph``: None (default) embeds the filterable full graphs when every framework has at
    most :data:`~argfaith.metrics.render.views.GRAPH_AUTO_LIMIT` arguments; True draws them up to
    :data:`~argfaith.metrics.render.views.GRAPH_HARD_LIMIT`; False leaves them out.
    """
    reports = as_reports(obj)
    taus, sens_rows = sensitivity_table(list(obj.sensitivity)) if isinstance(obj, EvaluationSuite) else ([], [])
    cards = proposal_cards(reports)
    graphs, graph_note, pgraphs = _graphs(reports, full_graph)
    sweep_taus, sweep_lines = (
        semantics_sweep_table(list(obj.semantics_sweep), primary_tau(reports))
        if isinstance(obj, EvaluationSuite) and obj.semantics_sweep else ([], [])
    )
    slabels, srows = strength_rows(reports)
    tau0 = primary_tau(reports)
    shown = [r for r in reports if r.settings.tau == tau0]
    matrix = provision_matrix(reports)
    debate_w, summary_w = grouped_warnings(reports)
    note = interval_note(reports)
    return _env().get_template("report.html.j2").render(
        interval_note=note,
        interval_level=next((f"{100 * r.uncertainty.level:g}%" for r in reports if r.uncertainty is not None), ""),
        p_better=p_better_lines(list(obj.p_better)) if isinstance(obj, EvaluationSuite) else [],
        p_better_note=P_BETTER_NOTE,
        title=_title(title, reports),
        inputs=_inputs(reports),
        matrix=matrix,
        matrix_by_id={row.id: row for row in matrix},
        card_anchor={p: f"prop-{k}" for k, p in enumerate(reports[0].source.strengths, start=1)},
        verdicts=summary_verdicts(reports),
        n_worst=sum(1 for row in matrix if row.rank <= WORST and not row.ok),
        n_side=sum(1 for row in matrix if row.side_change),
        debate_warnings=debate_w,
        summary_warnings=summary_w,
        csp=CSP,
        reports=reports,
        shown=shown,
        labels=column_labels(reports),
        key=framework_names(reports),
        metric_rows=metric_rows(reports),
        strength_rows=srows,
        strength_labels=slabels,
        tau_text=tau_text(reports),
        tau0=tau0,
        proposal_texts=reports[0].proposals.texts,
        taus=taus,
        sens_rows=sens_rows,
        cards=cards,
        n_bad=sum(1 for row in matrix if not row.ok),
        graphs=graphs,
        graph_note=graph_note,
        pgraphs=pgraphs,
        sweep_taus=sweep_taus,
        sweep_lines=sweep_lines,
        sweep_tau0=tau0,
        semantics_title=semantics_name(reports[0]),
        relation=_relation,
        legend_fills=[sigma_fill(0.0), sigma_fill(0.5), sigma_fill(1.0)],
        report_label=lambda r: report_label(r, reports),
    )
