"""`argfaith strengths`: strengths of one QBAF file under a gradual semantics (DF-QuAD by default)."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from argfaith.cli._app import app
from argfaith.cli._options import FRACTION, ITERATIONS, NONNEGATIVE, ONE_SEMANTICS, TAU

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
    semantics: Annotated[
        str,
        typer.Option(
            callback=ONE_SEMANTICS,
            help="Gradual semantics: dfquad, quad, quadratic-energy, euler-based, restricted-euler-based, mlp-based, "
            "weighted-h-categorizer, or an 'aggregation:influence' composition such as top:euler (docs/semantics.md)."
        ),
    ] = "dfquad",
    method: Annotated[
        SolverMethod, typer.Option(help="Solver for cyclic components: synchronous iteration or continuous RK4.")
    ] = SolverMethod.sync,
    max_iter: Annotated[int, typer.Option(callback=ITERATIONS, help="Iteration budget per cyclic component (>= 1).")] = 10_000,
    tol: Annotated[float, typer.Option(callback=NONNEGATIVE, help="Convergence tolerance on the residual ‖f(σ) − σ‖∞ (>= 0).")] = 1e-9,
    step: Annotated[float, typer.Option(callback=FRACTION, help="RK4 step size in (0, 1] (--method rk4).")] = 0.5,
    strict: Annotated[bool, typer.Option(help="Fail (exit 2) if a cyclic component does not converge.")] = False,
    format: Annotated[TableOrJson, typer.Option("--format", help="Output format.")] = TableOrJson.table,
) -> None:
    """Strengths of every argument (DF-QuAD unless --semantics says otherwise), with convergence
    diagnostics.

    Acyclic parts are exact; cyclic components are iterated (see docs/engine.md). A result that
    did not converge is printed with a warning (exit 0) unless --strict is given (exit 2).
    """
    from argfaith.errors import ConfigurationError
    from argfaith.metrics.evaluate import parse_semantics
    from argfaith.qbaf import load_qbaf
    from argfaith.qbaf.gradual import gradual_strengths

    sems = parse_semantics(semantics)
    if len(sems) != 1:
        raise ConfigurationError(f"--semantics: give one semantics for strengths, got {len(sems)} ({semantics})")
    sem = sems[0]
    q = load_qbaf(file, tau=tau)
    r = gradual_strengths(q, sem, method=method.value, max_iter=max_iter, tol=tol, strict=strict, step=step)
    title = sem.title or sem.name
    if not r.converged:
        shown = ", ".join(repr(a) for a in r.not_converged[:5]) + (", ..." if len(r.not_converged) > 5 else "")
        print(
            f"warning: {title} ({r.method}) did not converge within {max_iter} iterations on {shown}; "
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
                    "semantics": r.semantics,
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

    t = Table(title=f"{escape(title)} strengths — {escape(q.name or file.name)}")
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
