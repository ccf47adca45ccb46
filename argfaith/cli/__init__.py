"""The ``argfaith`` command line. Each command lives in its own module and registers itself on
:data:`argfaith.cli._app.app`; heavy imports happen inside the commands, so start-up stays fast."""

from __future__ import annotations

import sys

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
    bench,  # bench relations | kpa
    kpa,  # kpa ...
    bench_kpa,  # bench kpa
)

__all__ = ["app", "main"]


def main() -> None:
    """Entry point of the ``argfaith`` console script: known errors become one-line messages."""
    from argfaith.errors import ArgfaithError
    from argfaith.qbaf.errors import NotConvergedError, QBAFError

    try:
        app()
    except (ArgfaithError, QBAFError, NotConvergedError) as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("interrupted; finished work is saved and a rerun resumes from it", file=sys.stderr)
        sys.exit(130)
