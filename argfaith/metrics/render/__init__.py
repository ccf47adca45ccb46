"""Renderers of evaluation reports: rich terminal table, Markdown, self-contained HTML, JSON."""

from __future__ import annotations

from typing import Literal

from argfaith.metrics.render.common import Reportish

__all__ = ["Format", "FORMATS", "render"]

Format = Literal["table", "json", "markdown", "html"]
FORMATS: tuple[str, ...] = ("table", "json", "markdown", "html")


def render(
    obj: Reportish, fmt: Format = "table", *, width: int = 120, color: bool = False, include_qbafs: bool = True,
    full_graph: bool | None = None,
) -> str:
    """Render a report or suite in one of :data:`FORMATS` as a string (``full_graph``: HTML only,
    see :func:`argfaith.metrics.render.html.render_html`)."""
    if fmt == "json":
        return obj.to_json(include_qbafs=include_qbafs) + "\n"
    if fmt == "markdown":
        from argfaith.metrics.render.markdown import render_markdown

        return render_markdown(obj)
    if fmt == "html":
        from argfaith.metrics.render.html import render_html

        return render_html(obj, full_graph=full_graph)
    if fmt == "table":
        from argfaith.metrics.render.table import render_table

        return render_table(obj, width=width, color=color)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
