"""Terminal rendering with rich: the Table-3 metric table, the Table-4 strengths table, the
Table-6 sensitivity table, explanations of the proposals a summary gets wrong, and warnings.

Untrusted text (argument texts, speakers, QBAF names) is always wrapped in :class:`rich.text.Text`
so rich markup inside a transcript (``[bold]``, ``[link=...]``) is shown literally.
"""

from __future__ import annotations

import io

from rich import box as rich_box
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
    verdict_probabilities,
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
        vals = [r.source if i == 0 else r.values[i - 1] + (NOT_BETTER if r.flags and r.flags[i - 1] else "") for r in rows]
        cols.append(max(_width([lab]), _width(vals)))
    return sum(cols) + 3 * len(cols) + 1 > width


#: What a summary's cell says when it does not beat the empty summary (explained under the table).
NOT_BETTER = " (≤ empty)"


def _cells(row: object) -> list[Text]:
    vals, flags = row.values, row.flags or ("",) * len(row.values)  # type: ignore[attr-defined]
    return [_t(v + (NOT_BETTER if f else ""), "bold red" if f else "") for v, f in zip(vals, flags)]


def _metrics_tables(reports: list[EvaluationReport], compact: bool, width: int) -> list[Table]:
    """The Table-3 metrics: at the primary τ only when several were evaluated (π_bc and π_εa at
    every τ are in the sensitivity table; π_dpc and the single-QBAF metrics do not depend on τ),
    split into several tables of summary columns when one would be wider than ``width`` —
    a column is never cut or squeezed."""
    tau0 = primary_tau(reports)
    shown = [r for r in reports if r.settings.tau == tau0] if len({r.settings.tau for r in reports}) > 1 else reports
    rows = metric_rows(shown)
    labels = column_labels(shown, compact=compact)
    if len(shown) < len(reports):
        codes = {k: v for k, v in zip(labels[1:], [lab.split("\n")[0] if compact else lab for lab in labels[1:]])}
        labels = [labels[0]] + [codes[lab] for lab in labels[1:]]
    texts = [[r.source for r in rows]] + [[r.values[i] + (NOT_BETTER if r.flags and r.flags[i] else "") for r in rows] for i in range(len(shown))]
    col_w = [max(_width([lab]), _width(vals)) for lab, vals in zip(labels, texts)]
    first = max(len("metric"), min(30, _width([r.label for r in rows])))
    fixed = first + 3 + _width([r.symbol for r in rows]) + 3 + col_w[0] + 3 + 1
    chunks: list[list[int]] = [[]]
    used = fixed
    for i in range(len(shown)):
        w = col_w[i + 1] + 3
        if chunks[-1] and used + w > width:
            chunks.append([])
            used = fixed
        chunks[-1].append(i)
        used += w
    title = "Faithfulness metrics (PAPER.md §5; n/a = undefined)" + (f", at τ = {tau0:g}" if len(shown) < len(reports) and tau0 is not None else "")
    out = []
    for k, idx in enumerate(chunks):
        last = k == len(chunks) - 1
        t = Table(title=title if k == 0 else None, title_justify="left",
                  caption="(≤ empty): not better than the empty summary (no argument at all), whose values follow each metric" if last else None,
                  caption_justify="left")
        t.add_column("metric", overflow="fold", min_width=12)
        t.add_column("", style="dim", no_wrap=True)
        t.add_column(_t(labels[0]), justify="right", no_wrap=True)
        for i in idx:
            t.add_column(_t(labels[i + 1]), justify="right", no_wrap=True)
        for row in rows:
            cells = _cells(row)
            if row.baseline:
                t.add_row(_t("  ↳ " + row.label, "dim"), _t(""), _t(row.source, "dim"), *[_t(row.values[i], "dim") for i in idx])
                continue
            label = row.label + (f" ({row.note})" if row.note else "")
            t.add_row(_t(label), _t(row.symbol), _t(row.source), *[cells[i] for i in idx])
        out.append(t)
    return out


def _strengths_table(reports: list[EvaluationReport], width: int, compact: bool) -> Table:
    t = Table(title=f"Proposal strengths σ ({semantics_name(reports[0])}; Table 4 layout)", title_justify="left")
    t.add_column("proposal", no_wrap=True)
    labels, rows = strength_rows(reports, compact=compact)
    from argfaith.metrics.render.overview import proposal_short_ids

    sid = proposal_short_ids(reports)
    rows = [(sid.get(p, p), s, vals) for p, s, vals in rows]
    texts = {sid.get(p, p): t for p, t in reports[0].proposals.texts.items()}
    for lab in labels:
        t.add_column(_t(lab), justify="right", no_wrap=True)
    # Proposal texts only when there is room; explanations quote them anyway. (A column is at
    # least 4 wide: "0.32"; with error bars its values are wider: "0.32 [0.20, 0.45]".)
    cols = [[a for _, a, _ in rows]] + [[vals[i] for _, _, vals in rows] for i in range(len(labels) - 1)]
    used = _width([p for p, _, _ in rows] + ["proposal"]) + sum(max(_width([lab]), 4, _width(c)) + 3 for lab, c in zip(labels, cols)) + 4
    room = min(70, width - used - 3)
    show_text = room >= 30
    if show_text:
        t.add_column("text", overflow="ellipsis", no_wrap=True, max_width=room)
    for p, s, vals in rows:
        extra = [_t(_short(texts.get(p), room), "dim")] if show_text else []
        t.add_row(_t(p), _t(s), *[_t(v) for v in vals], *extra)
    return t


def _table_width(header: list[str], cells: list[list[str]]) -> int:
    """Width rich needs for a table with these header and cell texts (box and padding included)."""
    cols = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(header)]
    return sum(cols) + 3 * len(cols) + 1


def _sensitivity(obj: EvaluationSuite, width: int = 120, codes: dict[str, str] | None = None) -> Table | None:
    """Table 6: one line per summary with (π_bc, π_εa) per τ — or, when that is wider than the
    terminal, one line per (summary, τ), which always fits; never a column cut in the middle."""
    taus, rows = sensitivity_table(list(obj.sensitivity))
    if len(taus) < 2:
        return None
    codes = codes or {}
    names = [codes.get(name, name) for name, _ in rows]
    head = ["summary"] + [f"π_bc {'file' if tau is None else f'τ={tau:g}'}" for tau in taus for _ in (0, 1)]
    if _table_width(head, [[n] + ["0.00"] * (2 * len(taus)) for n in names]) > width:
        t = Table(title="Sensitivity to the speech base score τ (Table 6, one line per τ)", title_justify="left")
        t.add_column("summary", overflow="fold")
        t.add_column("τ", justify="right", no_wrap=True)
        t.add_column("π_bc", justify="right", no_wrap=True)
        t.add_column("π_εa", justify="right", no_wrap=True)
        t.add_column("π_dpc", justify="right", no_wrap=True)
        for (name, by_tau), shown in zip(rows, names):
            for k, tau in enumerate(taus):
                r = by_tau.get(tau)
                t.add_row(_t(shown if k == 0 else ""), _t("file" if tau is None else f"{tau:g}"),
                          _t(fmt(r.balance_consistency if r else None)), _t(fmt(r.epsilon_accuracy if r else None)),
                          _t(fmt(r.d_preferability_consistency if r else None)))
        return t
    t = Table(title="Sensitivity to the speech base score τ (Table 6 layout)", title_justify="left")
    t.add_column("summary", overflow="fold", min_width=12)
    for tau in taus:
        lab = "file" if tau is None else f"τ={tau:g}"
        t.add_column(f"π_bc {lab}", justify="right", no_wrap=True)
        t.add_column(f"π_εa {lab}", justify="right", no_wrap=True)
    for name, by_tau in rows:
        cells = []
        for tau in taus:
            r = by_tau.get(tau)
            cells += [_t(fmt(r.balance_consistency if r else None)), _t(fmt(r.epsilon_accuracy if r else None))]
        t.add_row(_t(codes.get(name, name)), *cells)
    return t


def _sensitivity_codes(reports: list[EvaluationReport], width: int) -> dict[str, str]:
    """Summary names → their codes (Q*1, ...) for the Table-6 view when names would not fit."""
    from argfaith.metrics.render.common import _summary_key, summary_codes, summary_names

    names, codes = summary_names(reports), summary_codes(reports)
    if max((len(n) for n in names.values()), default=0) <= max(12, width // 4):
        return {}
    return {names[k]: codes[k] for k in names}


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


def _p_better(obj: EvaluationSuite) -> list[object]:
    """P(one summary beats another) over paired draws (issue 23), one line per pair and metric."""
    lines = p_better_lines(list(obj.p_better))
    if not lines:
        return []
    several = len({ln.tau for ln in lines}) > 1
    t = Table(title="Which summary is better? P over paired draws of the relations", title_justify="left")
    if several:
        t.add_column("τ", justify="right", no_wrap=True)
    for head in ("summary A", "summary B"):
        t.add_column(head, overflow="fold")
    t.add_column("metric", no_wrap=True)
    for head in ("P(A better)", "P(equal)", "P(B better)"):
        t.add_column(head, justify="right", no_wrap=True)
    for ln in lines:
        tau = [_t("file" if ln.tau is None else f"{ln.tau:g}")] if several else []
        t.add_row(*tau, _t(ln.a), _t(ln.b), _t(ln.symbol), _t(fmt(ln.p_a)), _t(fmt(ln.p_tie)), _t(fmt(ln.p_b)))
    return [t, _t(P_BETTER_NOTE, "dim")]


def _probabilities(v: object) -> str:
    """``  P(π_bc ✓) 0.35, P(π_εa ✓) 0.20`` after a verdict line when the report has error bars."""
    pr = verdict_probabilities(v)
    if not pr:
        return ""
    return f"  P(π_bc ✓) {pr['balance_consistent']:.2f}, P(π_εa ✓) {pr['epsilon_accurate']:.2f}"


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
            (" ".join(flags), "red"), (_probabilities(v), "dim"),
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


_SYM = {True: ("✓", "green"), False: ("✗", "bold red")}
_STATUS_STYLE = {"side": "red", "far": "yellow", "acceptance": "yellow", "ok": ""}


def _matrix_cell(c: object) -> Text:
    out = Text(f"{c.sigma:.2f} ", style=_STATUS_STYLE[c.status])  # type: ignore[attr-defined]
    for ok in (c.balance, c.epsilon, c.dpc):  # type: ignore[attr-defined]
        sym, style = _SYM[ok]
        out.append(sym, style=style)
    return out


def _overview(reports: list[EvaluationReport], width: int) -> list[object]:
    """Which provisions does each summary get wrong? One verdict line per summary, then the
    provisions × summaries matrix of verdicts, most severe first (:mod:`.overview`)."""
    from argfaith.metrics.render.overview import WORST, provision_matrix, summary_verdicts

    rows = provision_matrix(reports)
    if not rows or not rows[0].cells:
        return []
    out: list[object] = [Text("Which provisions do the summaries get wrong?", style="bold")]
    for v in summary_verdicts(reports):
        out.append(Text.assemble(("  " + v.code, "bold"), f" {v.name}: ", (v.sentence, "red" if v.n_wrong or v.not_better else "green")))
    bad = [r for r in rows if not r.ok]
    if not bad:
        return out
    limit = max(WORST, 10)
    shown = bad[:limit]
    codes = [c.code for c in rows[0].cells]
    # As many summary columns per table as the width allows (never a cut column): 12 per summary.
    fixed = 4 + 3 + max(len(r.short_id) for r in shown) + 3 + 4 + 3 + 1
    per = max(1, (width - fixed) // 12)
    for k in range(0, len(codes), per):
        chunk = codes[k: k + per]
        t = Table(title=None, box=None if width < 60 else rich_box.SIMPLE_HEAD, pad_edge=False)
        t.add_column("#", justify="right", no_wrap=True)
        t.add_column("provision", no_wrap=True)
        t.add_column("σ", justify="right", no_wrap=True)
        for code in chunk:
            t.add_column(code, justify="left", no_wrap=True)
        used = fixed + 12 * len(chunk)
        room = width - used - 3
        if room >= 20:
            t.add_column("text", no_wrap=True, overflow="ellipsis", max_width=min(room, 60), style="dim")
        for r in shown:
            cells = {c.code: c for c in r.cells}
            extra = [_t(_short(r.text, min(room, 60)))] if room >= 20 else []
            t.add_row(_t(str(r.rank)), _t(r.short_id, "bold"), _t(f"{r.sigma:.2f}"),
                      *[_matrix_cell(cells[c]) if c in cells else _t("—") for c in chunk], *extra)
        out.append(t)
    more = len(bad) - len(shown)
    legend = ("cells: σ* in the summary, then ✓/✗ for π_bc (same side of 0.5), π_εa (within ε), π_dpc (same "
              "acceptance); rows ranked by severity = |σ* − σ|, + up to 1 for a side change (1 from ε on)"
              + (f"; {more} more provision(s) with a failed metric are in --format html/json" if more else "")
              + f"; {len(rows) - len(bad)} provision(s) every summary gets right are not listed")
    out.append(_t(legend, "dim"))
    return out


def table_renderables(obj: Reportish, width: int = 120) -> list[object]:
    """The rich renderables of a report or suite, in display order, for a ``width``-column
    terminal: the overview (verdicts and the provisions × summaries matrix) first."""
    reports = as_reports(obj)
    compact = _needs_compact(reports, width)
    parts: list[object] = [*_overview(reports, width), *_metrics_tables(reports, compact, width)]
    note = interval_note(reports)
    if note is not None:  # error bars (issue 23): what [low, high] is and what it covers
        parts.append(_t(note, "dim"))
    parts.append(_strengths_table(reports, width, compact))
    if isinstance(obj, EvaluationSuite):
        parts.extend(_p_better(obj))
        s = _sensitivity(obj, width, _sensitivity_codes(reports, width))
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
    debate_w, per = grouped_warnings(reports)
    for w in debate_w:
        notes.append(Text.assemble(("warning: ", "bold yellow"), ("[debate] ", "yellow"), w))
    for r, ws in per:
        for w in ws:
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
