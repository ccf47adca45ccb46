"""The Typer application object shared by the CLI command modules."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="argfaith",
    help="Is a summary of a debate faithful to the debate's arguments? QBAF-based faithfulness metrics.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
