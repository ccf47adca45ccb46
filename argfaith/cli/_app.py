"""The Typer application object shared by the CLI command modules."""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer

from argfaith.cli._help import OrderedGroup

#: Order of the commands in ``argfaith --help`` (the main job first); any other command follows.
COMMAND_ORDER = ("evaluate", "mine", "summarize", "study", "selftest", "strengths", "extensions", "principles", "bench", "kpa")


class _Ordered(OrderedGroup):
    def list_commands(self, ctx: Any) -> list[str]:
        names = list(self.commands)
        return sorted(names, key=lambda n: (COMMAND_ORDER.index(n) if n in COMMAND_ORDER else len(COMMAND_ORDER), names.index(n)))


app = typer.Typer(
    name="argfaith",
    help="Is a summary of a debate faithful to the debate's arguments? QBAF-based faithfulness metrics.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    cls=_Ordered,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            v = version("argfaith")
        except PackageNotFoundError:  # pragma: no cover - running from a source tree
            from argfaith import __version__ as v  # type: ignore[attr-defined,no-redef]
        typer.echo(f"argfaith {v}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[Optional[bool], typer.Option("--version", callback=_version, is_eager=True, help="Print argfaith's version and exit.")] = None,
) -> None:
    """Is a summary of a debate faithful to the debate's arguments? QBAF-based faithfulness metrics."""
