"""Option ranges, checked before a command does any work.

Every numeric option of every command gets one of these callbacks (``typer.Option(callback=...)``),
so a bad value is one line ``error: --epsilon: -1 is not in (0, 1] (ε of π_εa)`` with exit status 2
(:func:`argfaith.cli.main`), never a traceback, a usage block or a silently meaningless result.
The ranges are the project's, stated once here:

=====================  ===============  ================================================
callback               range            options
=====================  ===============  ================================================
``EPSILON``            (0, 1]           ε of π_εa (0 would demand exact equality of σ;
                                        above 1 every proposal is trivially accurate)
``TAU``                [0, 1]           speech base scores τ
``UNIT``               [0, 1]           similarity / score thresholds
``FRACTION``           (0, 1]           shares (``--top-fraction``, ``--fraction``),
                                        the RK4 step
``NONNEGATIVE``        [0, ∞), finite   tolerances, sample weights
``ITERATIONS``         integer ≥ 1      iteration budgets, worker counts, chunk sizes
``COUNT``              integer ≥ 0      "how many to show" options where 0 means none/all
``FINITE``             any finite       score thresholds on an open scale
``FOLDS``              0 or ≥ 2         cross-validation folds (0: no cross-validation)
``SEMANTICS``          known names      ``--semantics``: names, ``aggregation:influence``
                                        specs or ``all`` (:mod:`argfaith.qbaf.semantics`)
``ONE_SEMANTICS``      one known name   ``--semantics`` of commands that take exactly one
=====================  ===============  ================================================

Non-finite numbers (``nan``, ``inf``) are refused everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import typer

from argfaith.errors import ConfigurationError

__all__ = [
    "OptionRangeError",
    "option_name",
    "in_range",
    "at_least",
    "EPSILON",
    "TAU",
    "UNIT",
    "FRACTION",
    "NONNEGATIVE",
    "ITERATIONS",
    "COUNT",
    "FINITE",
    "FOLDS",
    "SEMANTICS",
    "ONE_SEMANTICS",
]


class OptionRangeError(ConfigurationError, typer.BadParameter):
    """An option's value is outside its range; the message names the option.

    Also a Click ``BadParameter``, so a Typer test runner that bypasses :func:`argfaith.cli.main`
    sees a usage error (exit status 2) as well."""

    def __init__(self, message: str) -> None:
        typer.BadParameter.__init__(self, message)

    def __str__(self) -> str:
        return self.message

    def format_message(self) -> str:
        return self.message


def option_name(param: Any) -> str:
    """The name a user typed: the longest ``--long`` form of the option (else its name)."""
    opts = [o for o in getattr(param, "opts", ()) if o.startswith("--")]
    if opts:
        return max(opts, key=len)
    name = getattr(param, "name", None) or "value"
    return name.upper() if getattr(param, "param_type_name", "") == "argument" else f"--{name.replace('_', '-')}"


def _values(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _interval(lo: float, hi: float, lo_open: bool, hi_open: bool) -> str:
    def f(x: float) -> str:
        return ("∞" if x > 0 else "−∞") if math.isinf(x) else f"{x:g}"

    left = "(" if lo_open or math.isinf(lo) else "["
    right = ")" if hi_open or math.isinf(hi) else "]"
    return f"{left}{f(lo)}, {f(hi)}{right}"


def in_range(lo: float, hi: float, *, lo_open: bool = False, hi_open: bool = False, what: str = "") -> Callable[..., Any]:
    """A Typer callback that refuses values outside the interval from ``lo`` to ``hi``
    (closed unless ``lo_open`` / ``hi_open``) and non-finite values; ``None`` passes."""
    interval = _interval(lo, hi, lo_open, hi_open)
    suffix = f" ({what})" if what else ""

    def check(param: typer.CallbackParam, value: Any) -> Any:
        for v in _values(value):
            ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
            ok = ok and (v > lo if lo_open else v >= lo) and (v < hi if hi_open else v <= hi)
            if not ok:
                raise OptionRangeError(f"{option_name(param)}: {v!r} is not in {interval}{suffix}")
        return value

    return check


def at_least(n: int, *, what: str = "") -> Callable[..., Any]:
    """A Typer callback for integer options: refuses values below ``n``; ``None`` passes."""
    suffix = f" ({what})" if what else ""

    def check(param: typer.CallbackParam, value: Any) -> Any:
        for v in _values(value):
            if not isinstance(v, int) or isinstance(v, bool) or v < n:
                raise OptionRangeError(f"{option_name(param)}: {v!r} must be an integer >= {n}{suffix}")
        return value

    return check


EPSILON = in_range(0.0, 1.0, lo_open=True, what="ε of π_εa")
TAU = in_range(0.0, 1.0, what="a base score")
UNIT = in_range(0.0, 1.0)
FRACTION = in_range(0.0, 1.0, lo_open=True)
NONNEGATIVE = in_range(0.0, math.inf)
ITERATIONS = at_least(1)
COUNT = at_least(0)
FINITE = in_range(-math.inf, math.inf)


def _folds(param: typer.CallbackParam, value: Any) -> Any:
    for v in _values(value):
        if not isinstance(v, int) or isinstance(v, bool) or v < 0 or v == 1:
            raise OptionRangeError(f"{option_name(param)}: {v!r} is not a number of folds (0 for none, else >= 2)")
    return value


FOLDS = _folds


def _semantics(param: typer.CallbackParam, value: Any, *, one: bool = False) -> Any:
    from argfaith.metrics.evaluate import parse_semantics

    name = option_name(param)
    for v in _values(value):
        try:
            sems = parse_semantics(v, option=name)
        except ConfigurationError as e:
            raise OptionRangeError(str(e)) from None
        if one and len(sems) != 1:
            raise OptionRangeError(f"{name}: give one semantics here, got {len(sems)} ({v})")
    return value


def SEMANTICS(param: typer.CallbackParam, value: Any) -> Any:
    """``--semantics``: every name must parse (:func:`argfaith.metrics.evaluate.parse_semantics`)."""
    return _semantics(param, value)


def ONE_SEMANTICS(param: typer.CallbackParam, value: Any) -> Any:
    """``--semantics`` where exactly one semantics makes sense (``strengths``)."""
    return _semantics(param, value, one=True)
