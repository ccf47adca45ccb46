"""One self-contained, offline HTML file: metric tables, both QBAFs drawn side by side (inline
SVG, layered layout computed in Python), a Table-4-style strengths table and the explanations.

No CDN, no fonts, no script: a Content-Security-Policy meta tag forbids every external fetch and
every script, and Jinja2 autoescaping escapes all transcript text (a second, independent line of
defence).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from argfaith.metrics.render.common import (
    Reportish,
    as_reports,
    column_labels,
    disagreeing_proposals,
    fmt,
    fmt_signed,
    metric_rows,
    sensitivity_table,
    strength_rows,
    tau_text,
)
from argfaith.metrics.render.layout import GraphLayout, layout_qbaf_dict, sigma_fill
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
    return env


def _graph(side: Any) -> GraphLayout | None:
    if side.qbaf is None:
        return None
    q = side.qbaf
    # σ of every argument is not in the side report (only proposals); recompute it cheaply for
    # colouring and hover text from the embedded QBAF.
    sig = _all_strengths(q, side.convergence.method)
    return layout_qbaf_dict(q, sig)


def _all_strengths(qdict: dict[str, Any], method: str) -> dict[str, float]:
    from argfaith.qbaf import dfquad_strengths, qbaf_from_dict

    q = qbaf_from_dict(qdict, source="report")
    return dfquad_strengths(q, method=method if method in ("sync", "rk4") else "sync").as_dict()  # type: ignore[arg-type]


def _relation(a: Any) -> str:
    if a.relation:
        return a.relation
    if a.pro and not a.con:
        return "indirect pro"
    if a.con and not a.pro:
        return "indirect con"
    return "indirect"


def render_html(obj: Reportish, *, title: str = "argfaith evaluation report") -> str:
    """Render a report or suite as one self-contained HTML document."""
    reports = as_reports(obj)
    taus, sens_rows = sensitivity_table(list(obj.sensitivity)) if isinstance(obj, EvaluationSuite) else ([], [])
    graph_cache: dict[int, GraphLayout | None] = {}

    def graph(side: Any) -> GraphLayout | None:
        key = id(side)
        if key not in graph_cache:
            graph_cache[key] = _graph(side)
        return graph_cache[key]

    sections = []
    for i, r in enumerate(reports):
        sections.append(
            {
                "index": i,
                "report": r,
                "source_graph": graph(r.source),
                "summary_graph": graph(r.summary),
                "bad": disagreeing_proposals(r),
                "explanations": {e.proposal: e for e in r.explanations},
            }
        )
    slabels, srows = strength_rows(reports)
    return _env().get_template("report.html.j2").render(
        title=title,
        csp=CSP,
        reports=reports,
        labels=column_labels(reports),
        metric_rows=metric_rows(reports),
        strength_rows=srows,
        strength_labels=slabels,
        tau_text=tau_text(reports),
        proposal_texts=reports[0].proposals.texts,
        taus=taus,
        sens_rows=sens_rows,
        sections=sections,
        relation=_relation,
        legend_fills=[sigma_fill(0.0), sigma_fill(0.5), sigma_fill(1.0)],
    )
