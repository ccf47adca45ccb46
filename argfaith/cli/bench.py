"""`argfaith bench ...`: benchmark commands (relation classifiers, KPA matchers)."""

from __future__ import annotations

import typer

from argfaith.cli._app import app

bench_app = typer.Typer(help="Benchmarks: relation classifiers, key point matching.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")
