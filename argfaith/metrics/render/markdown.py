"""Markdown rendering (GitHub-flavoured tables). Untrusted text is escaped so that a transcript
cannot inject raw HTML, links, emphasis or table structure into the rendered page."""

from __future__ import annotations

import re

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
    tau_text,
    verdict_probabilities,
)
from argfaith.metrics.report import EvaluationReport, EvaluationSuite

__all__ = ["md_escape", "render_markdown"]

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#!|~])")


def md_escape(text: object) -> str:
    """Escape Markdown punctuation and HTML; collapse white space (cells are one line)."""
    s = " ".join(str(text).split())
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", s)


def _short(s: str | None, n: int = 160) -> str:
    if not s:
        return ""
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def _table(header: list[str], rows: list[list[str]], align: list[str] | None = None) -> list[str]:
    al = align or ["---"] * len(header)
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(al) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def _probabilities(v: object) -> str:
    """The verdicts' probabilities over the draws (error bars, issue 23), or nothing."""
    pr = verdict_probabilities(v)
    if not pr:
        return ""
    return (f" Over the sampled labellings: P(π_bc ✓) = {pr['balance_consistent']:.2f}, "
            f"P(π_εa ✓) = {pr['epsilon_accurate']:.2f}, P(side change) = {pr['side_change']:.2f}.")


def _p_better(obj: EvaluationSuite) -> list[str]:
    """P(one summary beats another) over paired draws, one line per pair and metric."""
    lines = p_better_lines(list(obj.p_better))
    if not lines:
        return []
    several = len({ln.tau for ln in lines}) > 1
    head = (["τ"] if several else []) + ["summary A", "summary B", "metric", "P(A better)", "P(equal)", "P(B better)"]
    body = [
        ([("file" if ln.tau is None else f"{ln.tau:g}")] if several else [])
        + [md_escape(ln.a), md_escape(ln.b), ln.symbol, fmt(ln.p_a), fmt(ln.p_tie), fmt(ln.p_b)]
        for ln in lines
    ]
    align = (["---:"] if several else []) + ["---", "---", "---", "---:", "---:", "---:"]
    return ["## Which summary is better? (paired draws of the relations)", "", *_table(head, body, align), "",
            md_escape(P_BETTER_NOTE), ""]


def _explanations(r: EvaluationReport, reports: list[EvaluationReport]) -> list[str]:
    if not r.explanations:
        return []
    out = [f"### Explanations — {md_escape(report_label(r, reports))}", ""]
    bad = disagreeing_proposals(r)
    if not bad:
        out += ["The summary agrees with the source on every proposal (π_dpc, π_bc and π_εa).", ""]
    ex = {e.proposal: e for e in r.explanations}
    for p in bad:
        v = r.pairwise.per_proposal[p]
        flags = [n for n, ok in (("π_bc", v.balance_consistent), ("π_εa", v.epsilon_accurate), ("π_dpc", v.d_preferability_consistent)) if not ok]
        out.append(
            f"**{md_escape(p)}**: σ = {v.sigma_source:.3f} in the source, σ\\* = {v.sigma_summary:.3f} in the summary "
            f"(difference {v.difference:+.3f}); fails {', '.join(flags)}."
            + _probabilities(v)
        )
        text = r.proposals.texts.get(p)
        if text:
            out.append(f"> {md_escape(_short(text, 300))}")
        out.append("")
        e = ex.get(p)
        if e is None:
            continue
        rows = []
        for side_name, side in (("source", e.source), ("summary", e.summary)):
            for a in side.arguments:
                rel = a.relation or ("indirect pro" if a.pro and not a.con else "indirect con" if a.con and not a.pro else "indirect")
                rows.append([
                    side_name, md_escape(a.id), fmt_signed(a.influence), rel,
                    md_escape(", ".join(a.aligned)) if a.aligned else "", md_escape(a.speaker or ""), md_escape(_short(a.text)),
                ])
        if rows:
            out += _table(["side", "argument", "influence", "relation", "aligned", "speaker", "text"], rows,
                          ["---", "---", "---:", "---", "---", "---", "---"])
            out.append("")
    return out


def _overview(reports: list[EvaluationReport]) -> list[str]:
    """The verdict per summary and the provisions × summaries matrix, most severe first."""
    from argfaith.metrics.render.overview import provision_matrix, summary_verdicts

    rows = provision_matrix(reports)
    if not rows or not rows[0].cells:
        return []
    out = ["## Which provisions does each summary get wrong?", ""]
    out += [f"- **{md_escape(v.code)}** {md_escape(v.name)}: {md_escape(v.sentence)}" for v in summary_verdicts(reports)]
    out += ["", "Cells: σ\\* (σ\\* − σ), then ✓/✗ for π_bc (same side of 0.5), π_εa (within ε) and π_dpc (same credulous "
            "d-preferred acceptance). Rows ranked by severity = \\|σ\\* − σ\\|, plus up to 1 for a side change (a full 1 from ε on).", ""]
    codes = [c.code for c in rows[0].cells]
    body = []
    for r in rows:
        cells = {c.code: c for c in r.cells}
        body.append([str(r.rank), md_escape(r.short_id), fmt(r.sigma)] + [
            f"{c.sigma:.2f} ({c.difference:+.2f}) " + " ".join(f"{'✓' if ok else '✗'} {n}" for ok, n in ((c.balance, "bc"), (c.epsilon, "εa"), (c.dpc, "dpc")))
            if (c := cells.get(code)) is not None else "—" for code in codes
        ] + [md_escape(_short(r.text, 80))])
    out += _table(["#", "provision", "σ", *[md_escape(c) for c in codes], "text"], body, ["---:", "---", "---:"] + ["---"] * (len(codes) + 1))
    return out + [""]


def render_markdown(obj: Reportish) -> str:
    """The report as a Markdown document."""
    reports = as_reports(obj)
    r0 = reports[0]
    out = ["# argfaith evaluation report", ""]
    s = r0.settings
    out.append(
        f"Settings: τ = {tau_text(reports)}, ε = {s.epsilon:g}, "
        f"tolerance = {s.tolerance:g}, semantics = {md_escape(semantics_name(r0))}, solver = {s.solver_method}, proposals = {s.proposals}"
        + (f", alignment = {md_escape(s.alignment)}" if s.alignment else "") + "."
    )
    out.append("")
    labels = [md_escape(c) for c in column_labels(reports)]
    out += ["Frameworks:", ""] + [f"- {md_escape(lab)}: {md_escape(desc)}" for lab, desc in framework_names(reports)] + [""]
    out += _overview(reports)
    out += ["## Faithfulness metrics", ""]
    rows = []
    for m in metric_rows(reports):
        if m.baseline:
            rows.append([f"↳ {m.label}", "", m.source, *m.values])
            continue
        flags = m.flags or ("",) * len(m.values)
        rows.append([m.label + (f" ({m.note})" if m.note else ""), m.symbol.replace("|", "\\|"), m.source,
                     *[v + (f" — {f}" if f else "") for v, f in zip(m.values, flags)]])
    out += _table(["metric", "", *labels], rows, ["---", "---"] + ["---:"] * len(labels))
    out += ["", "n/a = undefined (denominator 0); — = not applicable to the source; ↳ the empty summary: a summary "
            "with no argument at all (σ* = 0.5 everywhere), which a real summary must beat.", ""]
    note = interval_note(reports)
    if note is not None:
        out += [md_escape(note), ""]
    out += [f"## Proposal strengths σ ({md_escape(semantics_name(r0))}; Table 4 layout)", ""]
    slabels, srows = strength_rows(reports)
    slabels = [md_escape(c) for c in slabels]
    texts = r0.proposals.texts
    out += _table(
        ["proposal", *slabels, "text"],
        [[md_escape(p), a, *vals, md_escape(_short(texts.get(p), 100))] for p, a, vals in srows],
        ["---"] + ["---:"] * len(slabels) + ["---"],
    )
    out.append("")
    if isinstance(obj, EvaluationSuite):
        out += _p_better(obj)
        taus, trows = sensitivity_table(list(obj.sensitivity))
        if len(taus) > 1:
            out += ["## Sensitivity to τ (Table 6 layout)", ""]
            head = ["summary"]
            for t in taus:
                lab = "file" if t is None else f"τ={t:g}"
                head += [f"π_bc {lab}", f"π_εa {lab}"]
            body = []
            for name, by_tau in trows:
                cells = [md_escape(name)]
                for t in taus:
                    r = by_tau.get(t)
                    cells += [fmt(r.balance_consistency if r else None), fmt(r.epsilon_accuracy if r else None)]
                body.append(cells)
            out += _table(head, body, ["---"] + ["---:"] * (len(head) - 1))
            out.append("")
        if obj.semantics_sweep:
            tau0 = primary_tau(reports)
            staus, lines = semantics_sweep_table(list(obj.semantics_sweep), tau0)
            out += ["## Semantics sweep (π_bc, π_εa under each gradual semantics)", ""]
            head = ["summary", "semantics"]
            for t in staus:
                lab = "file" if t is None else f"τ={t:g}"
                head += [f"π_bc {lab}", f"π_εa {lab}"]
            head.append(f"side changes Q / Q* vs {lines[0].semantics}" + ("" if tau0 is None else f" (τ={tau0:g})"))
            body = []
            for ln in lines:
                cells = [md_escape(ln.summary), md_escape(ln.semantics)]
                for t in staus:
                    r = ln.by_tau.get(t)
                    cells += [fmt(r.balance_consistency if r else None), fmt(r.epsilon_accuracy if r else None)]
                cells.append(md_escape(ln.changes if ln.skipped is None else "skipped: " + ln.skipped))
                body.append(cells)
            out += _table(head, body, ["---", "---"] + ["---:"] * (len(head) - 3) + ["---"])
            out.append("")
    conv = []
    for r in reports:
        for role, side in (("source", r.source), ("summary", r.summary)):
            c = side.convergence
            if not side.acyclic:
                conv.append(
                    f"- {md_escape(report_label(r, reports))} — {role}: cyclic, {'converged' if c.converged else '**not converged**'} "
                    f"({c.method}, {c.iterations} iterations, residual {c.residual:.2g})"
                )
    if conv:
        out += ["## Convergence", "", *conv, ""]
    tau0 = primary_tau(reports)
    for r in reports:
        if r.settings.tau == tau0:
            out += _explanations(r, reports)
    debate_w, per = grouped_warnings(reports)
    warns = [f"- the debate (all summaries): {md_escape(w)}" for w in debate_w]
    warns += [f"- {md_escape(report_label(r, reports))}: {md_escape(w)}" for r, ws in per for w in ws]
    if warns:
        out += ["## Warnings", "", *warns, ""]
    return "\n".join(out).rstrip() + "\n"
