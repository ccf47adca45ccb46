"""Terminal rendering with rich: the Table-3 metric table, the Table-4 strengths table, the
Table-6 sensitivity table, explanations of the proposals a summary gets wrong, and warnings.

Untrusted text (argument texts, speakers, QBAF names) is always wrapped in :class:`rich.text.Text`
so rich markup inside a transcript (``[bold]``, ``[link=...]``) is shown literally.
"""

from __future__ import annotations

import io

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from argfaith.metrics.render.common import (
    Reportish,
    as_reports,
    column_labels,
    disagreeing_proposals,
    fmt,
    fmt_signed,
    framework_names,
    metric_rows,
    primary_tau,
    report_label,
    semantics_name,
    semantics_sweep_table,
    sensitivity_table,
    strength_rows,
)
from argfaith.metrics.report import EvaluationReport, EvaluationSuite

__all__ = ["table_renderables", "render_table", "print_table"]

_TOP = 3  # arguments per side shown in terminal explanations


def _t(s: object, style: str = "") -> Text:
    return Text("" if s is None else str(s), style=style)


def _short(s: str | None, n: int = 90) -> str:
    if not s:
        return ""
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def _width(lines: list[str]) -> int:
    return max((len(ln) for s in lines for ln in s.split("\n")), default=0)


def _needs_compact(reports: list[EvaluationReport], width: int) -> bool:
    """True when the tables with the summaries' names as headers would not fit ``width``
    columns: then headers are the codes Q, Q*1, Q*2 ... (explained by the key below them),
    never names broken in the middle of a word."""
    rows = metric_rows(reports)
    first = max(len("metric"), min(30, _width([r.label for r in rows])))  # the metric column may wrap
    cols = [first, _width([r.symbol for r in rows])]
    for i, lab in enumerate(column_labels(reports)):
        vals = [r.source if i == 0 else r.values[i - 1] for r in rows]
        cols.append(max(_width([lab]), _width(vals)))
    return sum(cols) + 3 * len(cols) + 1 > width


def _metrics_table(reports: list[EvaluationReport], compact: bool) -> Table:
    t = Table(title="Faithfulness metrics (PAPER.md §5; n/a = undefined)", title_justify="left")
    t.add_column("metric", overflow="fold", min_width=12)
    t.add_column("", style="dim", no_wrap=True)
    for lab in column_labels(reports, compact=compact):
        t.add_column(_t(lab), justify="right", no_wrap=True)
    for row in metric_rows(reports):
        label = row.label + (f" ({row.note})" if row.note else "")
        t.add_row(_t(label), _t(row.symbol), _t(row.source), *[_t(v) for v in row.values])
    return t


def _strengths_table(reports: list[EvaluationReport], width: int, compact: bool) -> Table:
    t = Table(title=f"Proposal strengths σ ({semantics_name(reports[0])}; Table 4 layout)", title_justify="left")
    t.add_column("proposal", no_wrap=True)
    labels, rows = strength_rows(reports, compact=compact)
    for lab in labels:
        t.add_column(_t(lab), justify="right", no_wrap=True)
    # Proposal texts only when there is room; explanations quote them anyway.
    used = _width([p for p, _, _ in rows] + ["proposal"]) + sum(max(_width([lab]), 4) + 3 for lab in labels) + 4
    room = min(70, width - used - 3)
    show_text = room >= 30
    if show_text:
        t.add_column("text", overflow="ellipsis", no_wrap=True, max_width=room)
    texts = reports[0].proposals.texts
    for p, s, vals in rows:
        extra = [_t(_short(texts.get(p), room), "dim")] if show_text else []
        t.add_row(_t(p), _t(s), *[_t(v) for v in vals], *extra)
    return t


def _sensitivity(obj: EvaluationSuite) -> Table | None:
    taus, rows = sensitivity_table(list(obj.sensitivity))
    if len(taus) < 2:
        return None
    t = Table(title="Sensitivity to the speech base score τ (Table 6 layout)", title_justify="left")
    t.add_column("summary", overflow="fold", min_width=12)
    for tau in taus:
        lab = "file" if tau is None else f"τ={tau:g}"
        t.add_column(f"π_bc {lab}", justify="right")
        t.add_column(f"π_εa {lab}", justify="right")
    for name, by_tau in rows:
        cells = []
        for tau in taus:
            r = by_tau.get(tau)
            cells += [_t(fmt(r.balance_consistency if r else None)), _t(fmt(r.epsilon_accuracy if r else None))]
        t.add_row(_t(name), *cells)
    return t


def _semantics_sweep(obj: EvaluationSuite, tau0: float | None) -> Table | None:
    if not obj.semantics_sweep:
        return None
    taus, lines = semantics_sweep_table(list(obj.semantics_sweep), tau0)
    t = Table(title="Semantics sweep: π_bc, π_εa under each gradual semantics", title_justify="left")
    t.add_column("summary", overflow="fold")
    t.add_column("semantics")
    for tau in taus:
        lab = "file" if tau is None else f"τ={tau:g}"
        t.add_column(f"π_bc {lab}", justify="right")
        t.add_column(f"π_εa {lab}", justify="right")
    t.add_column(f"side changes Q / Q* vs {lines[0].semantics}" + ("" if tau0 is None else f" (τ={tau0:g})"), overflow="fold")
    for ln in lines:
        cells = []
        for tau in taus:
            r = ln.by_tau.get(tau)
            cells += [_t(fmt(r.balance_consistency if r else None)), _t(fmt(r.epsilon_accuracy if r else None))]
        t.add_row(_t(ln.summary), _t(ln.semantics), *cells, _t(ln.changes if ln.skipped is None else "skipped: " + _short(ln.skipped, 80), "dim" if ln.skipped else ""))
    return t


def _explanations(r: EvaluationReport, reports: list[EvaluationReport]) -> list[object]:
    out: list[object] = []
    if not r.explanations:
        return out
    bad = disagreeing_proposals(r)
    ex = {e.proposal: e for e in r.explanations}
    head = Text.assemble(("Explanations — ", "bold"), (report_label(r, reports), "bold"))
    n_ok = len(r.pairwise.per_proposal) - len(bad)
    if not bad:
        head.append(f": the summary agrees with the source on all {n_ok} proposal(s)", style="green")
        return [head]
    head.append(f"  ({len(bad)} proposal(s) the summary gets wrong; {n_ok} agree on π_dpc, π_bc and π_εa)", style="dim")
    out.append(head)
    for p in bad:
        e = ex.get(p)
        v = r.pairwise.per_proposal[p]
        flags = []
        if not v.balance_consistent:
            flags.append("π_bc ✗")
        if not v.epsilon_accurate:
            flags.append("π_εa ✗")
        if not v.d_preferability_consistent:
            flags.append("π_dpc ✗")
        line = Text.assemble(
            (f"  {p}", "bold"), f"  σ {v.sigma_source:.3f} → σ* {v.sigma_summary:.3f} ({v.difference:+.3f})  ",
            (" ".join(flags), "red"),
        )
        out.append(line)
        if e is None:
            continue
        for side_name, side in (("source", e.source), ("summary", e.summary)):
            if not side.arguments:
                out.append(_t(f"    {side_name}: no argument bears on {p}", "dim"))
                continue
            out.append(_t(f"    {side_name}: {side.n_arguments} argument(s) bear on {p}; most influential:", "dim"))
            for a in side.arguments[:_TOP]:
                rel = a.relation or ("indirect pro" if a.pro and not a.con else "indirect con" if a.con and not a.pro else "indirect")
                who = f" — {a.speaker}" if a.speaker else ""
                al = f" ≈ {', '.join(a.aligned)}" if a.aligned else ""
                out.append(
                    Text.assemble(
                        "      ", (fmt_signed(a.influence), "green" if a.influence > 0 else "red" if a.influence < 0 else ""),
                        "  ", (a.id, "bold"), f" ({rel}{al})", (who, "cyan"), "  ", (_short(a.text), "dim"),
                    )
                )
    return out


def table_renderables(obj: Reportish, width: int = 120) -> list[object]:
    """The rich renderables of a report or suite, in display order, for a ``width``-column
    terminal."""
    reports = as_reports(obj)
    compact = _needs_compact(reports, width)
    parts: list[object] = [_metrics_table(reports, compact), _strengths_table(reports, width, compact)]
    if isinstance(obj, EvaluationSuite):
        s = _sensitivity(obj)
        if s is not None:
            parts.append(s)
        sw = _semantics_sweep(obj, primary_tau(reports))
        if sw is not None:
            parts.append(sw)
    key = Text("", style="dim")
    for lab, desc in framework_names(reports, compact=compact):
        key.append(f"{lab}: ")
        key.append(desc)
        key.append("\n")
    parts.append(key)
    tau0 = primary_tau(reports)
    for r in reports:
        if r.settings.tau == tau0:
            parts.extend(_explanations(r, reports))
    notes = []
    for r in reports:
        for w in r.warnings:
            notes.append(Text.assemble(("warning: ", "bold yellow"), (f"[{report_label(r, reports)}] ", "yellow"), w))
    c = [
        f"{report_label(r, reports)}: {'converged' if r.summary.convergence.converged else 'NOT converged'} "
        f"({r.summary.convergence.method}, {r.summary.convergence.iterations} iterations, residual {r.summary.convergence.residual:.2g})"
        for r in reports
        if not r.summary.acyclic
    ]
    if c:
        notes.append(_t("cyclic summary QBAF(s): " + "; ".join(c), "dim"))
    parts.extend(notes)
    return parts


def print_table(obj: Reportish, console: Console | None = None) -> None:
    """Print the report to ``console`` (default: stdout)."""
    con = console or Console()
    for p in table_renderables(obj, con.width):
        con.print(p)


def render_table(obj: Reportish, *, width: int = 120, color: bool = False) -> str:
    """The terminal rendering as a string (plain text unless ``color``)."""
    buf = io.StringIO()
    con = Console(file=buf, width=width, force_terminal=color, color_system="standard" if color else None, highlight=False)
    con.print(Group(*table_renderables(obj, width)))  # type: ignore[arg-type]
    return buf.getvalue()
