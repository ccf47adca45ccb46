"""`argfaith strengths`: DF-QuAD strengths of one QBAF file."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from argfaith.cli._app import app


class TableOrJson(str, Enum):
    table = "table"
    json = "json"


class SolverMethod(str, Enum):
    sync = "sync"
    rk4 = "rk4"


@app.command()
def strengths(
    file: Annotated[Path, typer.Argument(help="QBAF JSON file.")],
    tau: Annotated[Optional[float], typer.Option(help="Base score of speech arguments that omit one (default: the file's, else 0.2).")] = None,
    method: Annotated[SolverMethod, typer.Option(help="Solver for cyclic components: synchronous iteration or continuous RK4.")] = SolverMethod.sync,
    max_iter: Annotated[int, typer.Option(help="Iteration budget per cyclic component.")] = 10_000,
    tol: Annotated[float, typer.Option(help="Convergence tolerance on ‖f(σ) − σ‖∞.")] = 1e-9,
    strict: Annotated[bool, typer.Option(help="Fail (exit 2) if a cyclic component does not converge.")] = False,
    format: Annotated[TableOrJson, typer.Option("--format", help="Output format.")] = TableOrJson.table,
) -> None:
    """DF-QuAD strengths of every argument, with convergence diagnostics."""
    from argfaith.qbaf import dfquad_strengths, load_qbaf

    q = load_qbaf(file, tau=tau)
    r = dfquad_strengths(q, method=method.value, max_iter=max_iter, tol=tol, strict=strict)
    if format is TableOrJson.json:
        typer.echo(
            json.dumps(
                {
                    "strengths": r.as_dict(),
                    "converged": r.converged,
                    "iterations": r.iterations,
                    "residual": r.residual,
                    "method": r.method,
                },
                indent=1,
            )
        )
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"DF-QuAD strengths — {q.name or file.name}")
    t.add_column("argument")
    t.add_column("kind")
    t.add_column("τ", justify="right")
    t.add_column("σ", justify="right")
    for a, v in zip(q.arguments, r.values.tolist()):
        t.add_row(a.id, a.kind, f"{a.base_score:.4f}", f"{v:.4f}")
    c = Console()
    c.print(t)
    status = "converged" if r.converged else "[bold red]NOT converged[/]"
    c.print(f"{status}; iterations {r.iterations}; residual {r.residual:.3g} ({r.method})")
