"""Project-wide exception base classes (outside :mod:`argfaith.qbaf`, which stays self-contained).

The CLI turns any :class:`ArgfaithError` (and :class:`argfaith.qbaf.QBAFError`) into a one-line
``error: ...`` message and exit status 2, never a traceback.
"""

from __future__ import annotations

__all__ = ["ArgfaithError", "DataFormatError", "MissingExtraError", "ConfigurationError"]


class ArgfaithError(Exception):
    """Base class of argfaith's user-facing errors."""


class DataFormatError(ArgfaithError, ValueError):
    """An input file is malformed; the message names the file and line/item."""


class MissingExtraError(ArgfaithError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""

    def __init__(self, feature: str, extra: str, package: str | None = None) -> None:
        pkg = f" ({package})" if package else ""
        super().__init__(
            f"{feature} needs the optional dependency{pkg}: install it with  pip install 'argfaith[{extra}]'"
        )
        self.extra = extra


class ConfigurationError(ArgfaithError, ValueError):
    """Inconsistent options or environment (e.g. a classifier that needs a key without one)."""
