"""`argfaith extensions`: credulous d-preferred acceptance and d-preferred extensions of a QBAF file
(PAPER.md §4), with optional ICCMA / DOT exports of the framework."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from argfaith.cli._app import app
from argfaith.cli._options import COUNT, ITERATIONS
from argfaith.cli.engine import TableOrJson

__all__ = ["extensions"]


@app.command()
def extensions(
    file: Annotated[Path, typer.Argument(help="QBAF JSON file.")],
    format: Annotated[TableOrJson, typer.Option("--format", help="Output format.")] = TableOrJson.table,
    query: Annotated[
        Optional[list[str]],
        typer.Option("--query", "-q", help="Argument id to query (repeatable); default: every proposal, or every argument of a framework without proposals."),
    ] = None,
    max_arguments: Annotated[
        int, typer.Option(callback=COUNT, help="Enumerate all d-preferred extensions only up to this many arguments.")
    ] = 200,
    max_extensions: Annotated[int, typer.Option(callback=ITERATIONS, help="Stop enumerating after this many extensions (>= 1).")] = 1000,
    iccma: Annotated[
        Optional[Path], typer.Option(help="Also write the set-attack Dung AF in ICCMA format to this file.")
    ] = None,
    dot: Annotated[Optional[Path], typer.Option(help="Also write the QBAF as Graphviz DOT to this file.")] = None,
) -> None:
    """Credulously d-preferred-accepted proposals (and all d-preferred extensions when small)."""
    from argfaith.qbaf import UnknownArgumentError, load_qbaf
    from argfaith.qbaf.bipolar import (
        FrameworkTooLargeError,
        credulous_acceptance,
        d_preferred_extensions,
        grounded_extension,
        set_attacks,
    )

    q = load_qbaf(file)
    for a in query or ():
        if a not in q:
            raise UnknownArgumentError(f"--query: unknown argument {a!r} in {file}")
    sa = set_attacks(q)
    acc = credulous_acceptance(sa, query if query else None)
    exts: list[frozenset[str]] | None = None
    skipped: str | None = None
    try:
        exts = d_preferred_extensions(sa, max_arguments=max_arguments, max_extensions=max_extensions)
    except FrameworkTooLargeError as e:
        skipped = str(e)
    if iccma is not None:
        from argfaith.qbaf.convert import write_iccma

        write_iccma(sa, iccma, comments=True)
    if dot is not None:
        from argfaith.qbaf.convert import to_dot

        dot.write_text(to_dot(q), encoding="utf-8")

    proposals = set(q.proposals)
    if format is TableOrJson.json:
        out: dict[str, Any] = {
            "file": str(file),
            "n_arguments": q.n,
            "n_set_attacks": len(sa),
            "proposals": list(q.proposals),
            "queried": list(acc.queried),
            "accepted": [a for a in acc.queried if a in acc.accepted],
            "accepted_proposals": [a for a in acc.queried if a in acc.accepted and a in proposals],
            "decisions": {
                a: {"accepted": d.accepted, "reason": d.reason, "seconds": d.seconds}
                for a, d in acc.decisions.items()
            },
            "method": acc.method,
            "solver_calls": acc.solver_calls,
            "seconds": acc.seconds,
            "grounded_extension": sorted(grounded_extension(sa)),
            "d_preferred_extensions": [sorted(e) for e in exts] if exts is not None else None,
            "d_preferred_skipped": skipped,
        }
        typer.echo(json.dumps(out, indent=1, ensure_ascii=False))
        return

    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    c = Console()
    # Ids and names come from the file: Text(...) keeps rich from reading them as markup.
    title = Text(f"Credulous d-preferred acceptance — {q.name or file.name}")
    t = Table(title=title)
    t.add_column("argument")
    t.add_column("kind")
    t.add_column("accepted")
    t.add_column("decided by")
    for a, d in acc.decisions.items():
        t.add_row(
            Text(a),
            "proposal" if a in proposals else "speech",
            Text("yes", style="bold green") if d.accepted else Text("no", style="red"),
            d.reason,
        )
    if not proposals and not query:
        c.print("no proposal arguments: every argument is queried (pass --query ID to choose)")
    if acc.queried:
        c.print(t)
    c.print(
        Text(
            f"{q.n} arguments, {len(sa)} set-attacks; {acc.method}, {acc.solver_calls} solver calls, "
            f"{acc.seconds:.3f} s"
        )
    )
    if exts is None:
        c.print(Text(f"d-preferred extensions skipped: {skipped}"))
        return
    e_table = Table(title=f"d-preferred extensions ({len(exts)})")
    e_table.add_column("#", justify="right")
    e_table.add_column("size", justify="right")
    e_table.add_column("arguments")
    for i, e in enumerate(exts, start=1):
        e_table.add_row(str(i), str(len(e)), Text("{" + ", ".join(sorted(e)) + "}"))
    c.print(e_table)
