"""Project-wide exception base classes (outside :mod:`argfaith.qbaf`, which stays self-contained)
and :func:`redact`, which every message argfaith prints goes through.

The CLI turns any :class:`ArgfaithError` (and :class:`argfaith.qbaf.QBAFError`) into a one-line
``error: ...`` message and exit status 2, never a traceback.
"""

from __future__ import annotations

import os
import re

__all__ = ["ArgfaithError", "DataFormatError", "MissingExtraError", "ConfigurationError", "redact", "SECRET_ENV_VARS"]

#: Environment variables whose values are secrets: never printed, logged or cached.
SECRET_ENV_VARS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")

# Anthropic keys (sk-ant-api03-..., sk-ant-admin01-...) and bearer tokens, wherever they come from
# (an API error body that echoes the key, a proxy's message, a pasted file).
_KEY_RE = re.compile(r"sk-ant-[A-Za-z0-9_\-]{6,}|(?i:bearer)\s+[A-Za-z0-9._\-]{16,}")
REDACTED = "[REDACTED]"


def redact(text: str) -> str:
    """``text`` with secrets replaced by ``[REDACTED]``: the values of :data:`SECRET_ENV_VARS`
    (8 characters or longer) and anything shaped like an Anthropic key or a bearer token.

    >>> redact("HTTP 401: invalid x-api-key sk-ant-api03-AbC_dEf-123456")
    'HTTP 401: invalid x-api-key [REDACTED]'
    """
    for name in SECRET_ENV_VARS:
        v = os.environ.get(name, "").strip()
        if len(v) >= 8 and v in text:
            text = text.replace(v, REDACTED)
    return _KEY_RE.sub(REDACTED, text)


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
