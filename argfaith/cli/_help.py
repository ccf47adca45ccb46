"""Help that a person can scan: options grouped under headings, commands with whole summaries.

* :class:`GroupedCommand` — a command whose ``--help`` lists its options in groups (the
  ``rich_help_panel`` each option names: "Inputs", "Mining", "Metrics", "Output", ...), in the
  order the groups first appear, instead of one list of forty options.
* :class:`OrderedGroup` — the top-level group: commands in the order they were registered
  (``evaluate`` first) and each with its whole one-line summary, never cut at 45 characters.
"""

from __future__ import annotations

from typing import Any

import typer.core

try:  # typer >= 0.20 vendors click
    from typer import _click as click  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover
    import click  # type: ignore[no-redef]

__all__ = ["GroupedCommand", "OrderedGroup"]


class GroupedCommand(typer.core.TyperCommand):
    """Options listed under their ``rich_help_panel`` headings (plain-text help)."""

    def format_options(self, ctx: Any, formatter: Any) -> None:
        groups: dict[str, list[tuple[str, str]]] = {}
        for p in self.get_params(ctx):
            rec = p.get_help_record(ctx)
            if rec is None:
                continue
            panel = getattr(p, "rich_help_panel", None) or ("Other" if p.name != "help" else "Help")
            groups.setdefault(panel, []).append(rec)
        for panel, rows in groups.items():
            with formatter.section(panel):
                formatter.write_dl(rows)


class OrderedGroup(typer.core.TyperGroup):
    """Commands in registration order, each with its full first help line."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is None or cmd.hidden:
                continue
            text = (cmd.help or cmd.short_help or "").strip().split("\n\n")[0]
            rows.append((name, " ".join(text.split())))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
