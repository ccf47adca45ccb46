"""The ``argfaith`` command line. Each command lives in its own module and registers itself on
:data:`argfaith.cli._app.app`; heavy imports happen inside the commands, so start-up stays fast.

:func:`main` is the one place where failures become messages: every known error (bad input, bad
option values, usage mistakes) is printed as one line ``error: ...`` with exit status 2, an
unexpected one as one line with exit status 1 (``ARGFAITH_DEBUG=1`` shows its traceback), and
everything argfaith writes to stdout / stderr passes through :func:`argfaith.errors.redact`.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from argfaith.cli._app import app

# Command modules (import order = order in --help).
from argfaith.cli import (  # noqa: E402,F401
    evaluate,  # evaluate (the main job)
    mine,  # mine
    summarize,  # summarize
    study,  # study (case study over a corpus)
    selftest,  # selftest (distortions, controls)
    engine,  # strengths
    extensions,  # extensions
    principles,  # principles (the principles matrix)
    bench,  # bench relations | kpa
    kpa,  # kpa ...
    bench_kpa,  # bench kpa
)

__all__ = ["app", "main", "command"]

try:  # typer >= 0.20 vendors click
    from typer._click import exceptions as _cx
except ImportError:  # pragma: no cover - older typer: click itself
    from click import exceptions as _cx  # type: ignore[no-redef]


def _metavar(param: Any) -> str | None:
    """A short metavar (FILE, TEXT, NUMBER, N) instead of a Python type name (``<list[Path]>``,
    ``<int range>``); choices keep their list."""
    desc = getattr(param, "type_descriptor", None)
    if desc is not None:
        if desc.is_choice:
            return None
        if desc.is_path or desc.is_file:
            return "PATH"
        ann = desc.annotation
    else:  # older typer: the click type
        name = type(getattr(param, "type", None)).__name__
        if name in ("Choice",):
            return None
        ann = {"Path": "PATH", "FloatParamType": float, "FloatRange": float, "IntParamType": int, "IntRange": int}.get(name, str)
        if ann == "PATH":
            return "PATH"
    args = getattr(ann, "__args__", None)
    if args:  # list[X] / Optional[X]
        ann = next((a for a in args if a is not type(None)), ann)
    if ann is float:
        return "NUMBER"
    if ann is int:
        return "N"
    if getattr(ann, "__name__", "") in ("Path", "PurePath"):
        return "PATH"
    return "TEXT"


def _tidy(cmd: Any) -> Any:
    for sub in getattr(cmd, "commands", {}).values():
        _tidy(sub)
    for p in getattr(cmd, "params", ()):
        if getattr(p, "metavar", None) is None and not getattr(p, "is_flag", False):
            mv = _metavar(p)
            if mv is not None:
                p.metavar = mv
    return cmd


_COMMAND: Any = None


def command() -> Any:
    """The Click command tree of :data:`app` with readable metavars (built once)."""
    global _COMMAND
    if _COMMAND is None:
        import typer

        _COMMAND = _tidy(typer.main.get_command(app))
    return _COMMAND


class _Redacting:
    """A text stream that redacts secrets (:func:`argfaith.errors.redact`) from everything written
    to it; everything else is the wrapped stream's."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, s: str) -> int:
        from argfaith.errors import redact

        self._stream.write(redact(s))
        return len(s)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _usage_message(e: Any) -> str:
    msg = e.format_message()
    if msg[:1].isupper() and not msg[:2].isupper():
        msg = msg[0].lower() + msg[1:]
    ctx = getattr(e, "ctx", None)
    hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    return _one_line(msg) + hint


def _fail(message: str, code: int) -> None:
    from argfaith.errors import redact

    print(f"error: {redact(_one_line(message))}", file=sys.stderr)
    sys.exit(code)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``argfaith`` console script: every failure becomes one ``error:`` line.

    ``argv`` defaults to ``sys.argv[1:]``; like Click's standalone mode, the function always ends
    with ``SystemExit`` carrying the exit status."""
    streams = sys.stdout, sys.stderr
    if not isinstance(sys.stdout, _Redacting):
        sys.stdout, sys.stderr = _Redacting(sys.stdout), _Redacting(sys.stderr)
    try:
        _run(argv)
    finally:
        sys.stdout, sys.stderr = streams


def _run(argv: list[str] | None) -> None:
    import errno

    import typer

    from argfaith.errors import ArgfaithError
    from argfaith.qbaf.errors import NotConvergedError, QBAFError

    try:
        rv = command().main(args=argv, prog_name="argfaith", standalone_mode=False)
    except _cx.NoArgsIsHelpError as e:  # `argfaith` / `argfaith kpa` alone: the help, as Click shows it
        e.show()
        sys.exit(e.exit_code)
    except (ArgfaithError, QBAFError, NotConvergedError) as e:
        _fail(str(e), 2)
    except _cx.UsageError as e:  # unknown option, missing value, '--epsilon abc', ...
        _fail(_usage_message(e), 2)
    except _cx.ClickException as e:
        _fail(e.format_message(), 2)
    except typer.Abort:
        _fail("aborted", 1)
    except KeyboardInterrupt:
        print("interrupted; finished work is saved and a rerun resumes from it", file=sys.stderr)
        sys.exit(130)
    except OSError as e:
        if e.errno == errno.EPIPE:  # `argfaith ... | head`
            sys.exit(1)
        where = f"{e.filename}: " if e.filename else ""
        _fail(f"{where}{e.strerror or e}", 2)
    except ValueError as e:
        # A value no check caught before the work began (also undecodable text a reader did not
        # route through argfaith.textio): bad input more often than not.
        if os.environ.get("ARGFAITH_DEBUG"):
            raise
        _fail(f"{e} (rerun with ARGFAITH_DEBUG=1 for details)", 2)
    except Exception as e:  # noqa: BLE001 - the last line of defence: a bug, reported in one line
        if os.environ.get("ARGFAITH_DEBUG"):
            raise
        _fail(f"internal error: {type(e).__name__}: {e} (please report it; ARGFAITH_DEBUG=1 shows the traceback)", 1)
    sys.exit(rv if isinstance(rv, int) else 0)
