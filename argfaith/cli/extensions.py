"""`argfaith extensions`: credulous d-preferred acceptance and d-preferred extensions of a QBAF file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from argfaith.cli._app import app
from argfaith.cli.engine import TableOrJson


@app.command()
def extensions(
    file: Annotated[Path, typer.Argument(help="QBAF JSON file.")],
    format: Annotated[TableOrJson, typer.Option("--format", help="Output format.")] = TableOrJson.table,
) -> None:
    """Credulously d-preferred-accepted proposals (and all d-preferred extensions when small)."""
    from argfaith.qbaf import credulous_acceptance, d_preferred_extensions, load_qbaf

    q = load_qbaf(file)
    acc = credulous_acceptance(q)
    exts = d_preferred_extensions(q) if q.n <= 20 else None
    if format is TableOrJson.json:
        typer.echo(
            json.dumps(
                {
                    "accepted_proposals": sorted(acc.accepted),
                    "proposals": list(acc.queried),
                    "d_preferred_extensions": [sorted(e) for e in exts] if exts is not None else None,
                },
                indent=1,
            )
        )
        return
    typer.echo("accepted proposals: " + (", ".join(sorted(acc.accepted)) or "(none)"))
    if exts is not None:
        for e in exts:
            typer.echo("d-preferred: {" + ", ".join(sorted(e)) + "}")
