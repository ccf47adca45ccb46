"""`argfaith strengths`: DF-QuAD strengths of one QBAF file."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from argfaith.cli._app import app
from argfaith.cli._options import FRACTION, ITERATIONS, NONNEGATIVE, TAU

__all__ = ["strengths", "TableOrJson", "SolverMethod"]


class TableOrJson(str, Enum):
    table = "table"
    json = "json"


class SolverMethod(str, Enum):
    sync = "sync"
    rk4 = "rk4"


@app.command()
def strengths(
    file: Annotated[Path, typer.Argument(help="QBAF JSON file (format: docs/qbaf.schema.json).")],
    tau: Annotated[
        Optional[float],
        typer.Option(callback=TAU, help="Base score of speech arguments that omit one, in [0, 1] (default: the file's, else 0.2)."),
    ] = None,
    method: Annotated[
        SolverMethod, typer.Option(help="Solver for cyclic components: synchronous iteration or continuous RK4.")
    ] = SolverMethod.sync,
    max_iter: Annotated[int, typer.Option(callback=ITERATIONS, help="Iteration budget per cyclic component (>= 1).")] = 10_000,
    tol: Annotated[float, typer.Option(callback=NONNEGATIVE, help="Convergence tolerance on the residual ‖f(σ) − σ‖∞ (>= 0).")] = 1e-9,
    step: Annotated[float, typer.Option(callback=FRACTION, help="RK4 step size in (0, 1] (--method rk4).")] = 0.5,
    strict: Annotated[bool, typer.Option(help="Fail (exit 2) if a cyclic component does not converge.")] = False,
    format: Annotated[TableOrJson, typer.Option("--format", help="Output format.")] = TableOrJson.table,
) -> None:
    """DF-QuAD strengths of every argument, with convergence diagnostics.

    Acyclic parts are exact; cyclic components are iterated (see docs/engine.md). A result that
    did not converge is printed with a warning (exit 0) unless --strict is given (exit 2).
    """
    from argfaith.qbaf import dfquad_strengths, load_qbaf

    q = load_qbaf(file, tau=tau)
    r = dfquad_strengths(q, method=method.value, max_iter=max_iter, tol=tol, strict=strict, step=step)
    if not r.converged:
        shown = ", ".join(repr(a) for a in r.not_converged[:5]) + (", ..." if len(r.not_converged) > 5 else "")
        print(
            f"warning: DF-QuAD ({r.method}) did not converge within {max_iter} iterations on {shown}; "
            f"residual {r.residual:.3g} > tol {tol:g} (try --method rk4)",
            file=sys.stderr,
        )
    if format is TableOrJson.json:
        typer.echo(
            json.dumps(
                {
                    "strengths": r.as_dict(),
                    "converged": r.converged,
                    "iterations": r.iterations,
                    "residual": r.residual,
                    "method": r.method,
                    "cyclic_components": r.cyclic_components,
                    "not_converged": list(r.not_converged),
                },
                indent=1,
                ensure_ascii=False,
            )
        )
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    t = Table(title=f"DF-QuAD strengths — {escape(q.name or file.name)}")
    t.add_column("argument")
    t.add_column("kind")
    t.add_column("τ", justify="right")
    t.add_column("σ", justify="right")
    for a, kind, base, v in zip(q.ids, (q.is_proposal).tolist(), q.base_scores.tolist(), r.values.tolist()):
        t.add_row(escape(a), "proposal" if kind else "speech", f"{base:.4f}", f"{v:.4f}")
    c = Console()
    c.print(t)
    status = "converged" if r.converged else "[bold red]NOT converged[/]"
    c.print(
        f"{status}; iterations {r.iterations}; residual {r.residual:.3g} ({r.method}; "
        f"{r.cyclic_components} cyclic component{'s' if r.cyclic_components != 1 else ''})"
    )
