"""`argfaith principles`: the principles matrix — every gradual semantics × every principle,
decided by property search, with a counterexample for each violation (docs/semantics.md)."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from argfaith.cli._app import app
from argfaith.cli._options import ITERATIONS, SEMANTICS, in_range

__all__ = ["principles"]


class MatrixFormat(str, Enum):
    table = "table"
    json = "json"
    markdown = "markdown"


@app.command()
def principles(
    semantics: Annotated[
        str,
        typer.Option(
            callback=SEMANTICS,
            help="Comma-separated semantics: names (dfquad, quad, quadratic-energy, euler-based, "
            "restricted-euler-based, mlp-based, weighted-h-categorizer), 'aggregation:influence' compositions "
            "(top:euler, sum:pmax(2,1)), or 'all'."
        ),
    ] = "all",
    principle: Annotated[
        Optional[str], typer.Option(help="Comma-separated principles (default: all thirteen).")
    ] = None,
    examples: Annotated[int, typer.Option(callback=ITERATIONS, help="Random frameworks per search (hypothesis max_examples, >= 1).")] = 100,
    max_size: Annotated[int, typer.Option(callback=in_range(1, 12, what="arguments"), help="Largest random framework (arguments, 1 to 12).")] = 6,
    format: Annotated[MatrixFormat, typer.Option("--format", help="Output format.")] = MatrixFormat.table,
    out: Annotated[Optional[Path], typer.Option(help="Write the output to this file instead of stdout.")] = None,
) -> None:
    """Which principles each gradual semantics satisfies, with a counterexample for each violation.

    Each cell tries hand-made corner cases, then a derandomized hypothesis search over random
    acyclic frameworks (shrunk to a minimal counterexample); a violation that needs a base score
    of exactly 0 or 1 is marked ✗ᵇ. Deterministic: the same options print the same matrix.
    """
    from argfaith.errors import ConfigurationError
    from argfaith.metrics.evaluate import parse_semantics
    from argfaith.qbaf.matrix import get_principle, principle_matrix

    sems = parse_semantics(semantics)
    ps = None
    if principle is not None:
        names = [p.strip() for p in principle.split(",") if p.strip()]
        if not names:
            raise ConfigurationError("--principle: no principle given")
        try:
            ps = [get_principle(n) for n in names]
        except ValueError as e:
            raise ConfigurationError(f"--principle: {e}") from None

    def progress(done: int, total: int, cell: Any) -> None:
        if sys.stderr.isatty():
            print(f"\r{done}/{total} {cell.semantics} × {cell.principle}".ljust(70), end="", file=sys.stderr, flush=True)

    m = principle_matrix(sems, ps, examples=examples, max_size=max_size, progress=progress)
    if sys.stderr.isatty():
        print("\r".ljust(71) + "\r", end="", file=sys.stderr)
    if format is MatrixFormat.json:
        text = json.dumps(m.to_dict(), indent=1, ensure_ascii=False)
    elif format is MatrixFormat.markdown:
        text = _markdown(m)
    else:
        text = None
    if text is not None:
        if out is not None:
            out.write_text(text + "\n", encoding="utf-8")
        else:
            typer.echo(text)
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    c = Console(file=out.open("w", encoding="utf-8") if out is not None else None, width=200 if out is not None else None)
    t = Table(title=f"Principles × gradual semantics ({m.examples} random acyclic frameworks of ≤ {m.max_size} arguments per cell)")
    t.add_column("principle")
    for s in m.semantics:
        t.add_column(Text(s), justify="center")
    for p in m.principles:
        t.add_row(p, *[_styled(m.cell(s, p).mark) for s in m.semantics])
    c.print(t)
    c.print("✓ satisfied on every framework tried · ✗ violated · ✗ᵇ violated only with a base score of 0 or 1 · n/a outside the semantics' domain")
    for cell in m.violations():
        ce = cell.interior_counterexample or cell.counterexample
        c.print(Text(f"\n{cell.semantics} × {cell.principle} ({cell.mark}): {ce.description}"))
        c.print(Text("  framework: " + _framework_line(ce)))
    c.print(Text(f"\n{len(m.cells)} cells in {m.seconds:.1f} s"))


def _styled(mark: str) -> Any:
    from rich.text import Text

    return Text(mark, style={"✓": "green", "✗": "bold red", "✗ᵇ": "red"}.get(mark, "dim"))


def _framework_line(ce: Any) -> str:
    """The framework the counterexample starts from (the description says what was changed)."""
    q = ce.to_dict()["qbaf"]
    tau = ", ".join(f"{k}={v:g}" for k, v in q["base_scores"].items())
    att = ", ".join(f"{s}→{t}" for s, t in q["attacks"]) or "none"
    sup = ", ".join(f"{s}→{t}" for s, t in q["supports"]) or "none"
    return f"τ: {tau}; attacks: {att}; supports: {sup}"


def _markdown(m: Any) -> str:
    lines = ["| principle | " + " | ".join(m.semantics) + " |", "|---|" + "---|" * len(m.semantics)]
    for p in m.principles:
        lines.append(f"| {p} | " + " | ".join(m.cell(s, p).mark for s in m.semantics) + " |")
    lines.append("")
    lines.append("✓ satisfied on every framework tried; ✗ violated; ✗ᵇ violated only with a base score of 0 or 1; n/a outside the semantics' domain.")
    lines.append("")
    for cell in m.violations():
        ce = cell.interior_counterexample or cell.counterexample
        lines.append(f"* **{cell.semantics} × {cell.principle}** ({cell.mark}): {ce.description}. Framework: {_framework_line(ce)}")
    return "\n".join(lines)
