"""The Anthropic client factory: key from the environment only, SDK retries, timeouts.

Retries are the SDK's own (``anthropic`` 2.x): 408, 409, 429, every 5xx (including 529
``overloaded_error``), timeouts and connection errors are retried with exponential backoff
(0.5 s doubling, capped at 8 s, with jitter), and a ``retry-after`` / ``retry-after-ms`` header
from the API is obeyed. argfaith raises the retry budget from the SDK's default 2 to
:data:`DEFAULT_MAX_RETRIES`, because a mining run sends thousands of requests and must ride out
rate-limit and overload bursts rather than fail half-way.

The key is read from ``ANTHROPIC_API_KEY`` and handed to the SDK only; it is never logged,
cached, written or put in an error message. :func:`make_client` also installs a log-record
factory that masks the key in every log record of the process — message, arguments and exception
text — whichever logger (``anthropic._base_client``, ``httpx2``, ...) created it. (A filter on the
parent loggers would not do: Python applies a logger's filters only to records logged on that
logger itself, not to those propagated from its children.)
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import traceback
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from argfaith.llm.errors import MissingAPIKeyError

if TYPE_CHECKING:  # pragma: no cover
    import anthropic
    import httpx2

__all__ = [
    "API_KEY_ENV",
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_TIMEOUT",
    "api_key_available",
    "make_client",
    "override_http_client",
]

API_KEY_ENV = "ANTHROPIC_API_KEY"
DEFAULT_MAX_RETRIES = 6
#: Read timeout per attempt, seconds (classification answers take ~1 s; summaries up to a minute).
DEFAULT_TIMEOUT = 120.0
_CONNECT_TIMEOUT = 10.0

_override_lock = threading.Lock()
_http_client_override: httpx2.Client | None = None


def api_key_available() -> bool:
    """True when ``ANTHROPIC_API_KEY`` is set to a non-empty value."""
    return bool(os.environ.get(API_KEY_ENV, "").strip())


@contextlib.contextmanager
def override_http_client(http_client: httpx2.Client) -> Iterator[httpx2.Client]:
    """Make every :func:`make_client` call without an explicit ``http_client`` use this one.

    For tests that drive argfaith through layers which build their own client (the CLI, the
    classifier registry): pass an ``httpx2.Client(transport=httpx2.MockTransport(handler))``.
    """
    global _http_client_override
    with _override_lock:
        previous, _http_client_override = _http_client_override, http_client
    try:
        yield http_client
    finally:
        with _override_lock:
            _http_client_override = previous


_secrets: set[str] = set()
_factory_lock = threading.Lock()
_factory_installed = False


def _redact(text: str) -> str:
    for secret in _secrets:
        if secret in text:
            text = text.replace(secret, "[REDACTED]")
    return text


def _install_redaction(secret: str) -> None:
    """Mask ``secret`` in every log record created from now on (see the module docstring)."""
    global _factory_installed
    with _factory_lock:
        _secrets.add(secret)
        if _factory_installed:
            return
        previous = logging.getLogRecordFactory()

        def factory(*args: object, **kwargs: object) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            try:
                msg = record.getMessage()
            except Exception:  # a broken record is not ours to fix
                return record
            clean = _redact(msg)
            if clean != msg:
                record.msg, record.args = clean, None
            if record.exc_info and record.exc_info[0] is not None:
                text = "".join(traceback.format_exception(*record.exc_info))
                if _redact(text) != text:
                    record.exc_text, record.exc_info = _redact(text).rstrip("\n"), None
            return record

        logging.setLogRecordFactory(factory)
        _factory_installed = True


def make_client(
    *,
    http_client: httpx2.Client | None = None,
    max_retries: int = DEFAULT_MAX_RETRIES,
    timeout: float = DEFAULT_TIMEOUT,
    base_url: str | None = None,
    **kwargs: Any,
) -> anthropic.Anthropic:
    """An ``anthropic.Anthropic`` client authenticated with ``$ANTHROPIC_API_KEY``.

    Parameters
    ----------
    http_client
        An ``httpx2.Client`` to send requests through (tests pass one with a
        ``httpx2.MockTransport``). Default: the override set by :func:`override_http_client`,
        else the SDK's own client.
    max_retries
        Retry budget per request for retryable failures (429, 5xx incl. 529, timeouts).
    timeout
        Read timeout per attempt in seconds (connect timeout 10 s).
    base_url
        API base URL; default the SDK's (which honours ``ANTHROPIC_BASE_URL``).
    **kwargs
        Passed to ``anthropic.Anthropic`` (e.g. ``default_headers``); never credentials.

    Raises
    ------
    MissingAPIKeyError
        ``ANTHROPIC_API_KEY`` is unset or empty (a :class:`ConfigurationError`: exit 2 in the CLI).
    """
    key = os.environ.get(API_KEY_ENV, "").strip()
    if not key:
        raise MissingAPIKeyError(
            f"{API_KEY_ENV} is not set: export your Anthropic API key to call Claude "
            "(or use --dry-run to see the estimated cost, or an offline classifier)"
        )
    for banned in ("api_key", "auth_token", "credentials", "config", "profile"):
        if banned in kwargs:
            raise TypeError(f"make_client() does not take {banned!r}: the key comes from ${API_KEY_ENV} only")
    import anthropic
    import httpx2

    _install_redaction(key)
    if http_client is None:
        http_client = _http_client_override
    return anthropic.Anthropic(
        api_key=key,
        base_url=base_url,
        max_retries=max_retries,
        timeout=httpx2.Timeout(timeout, connect=_CONNECT_TIMEOUT),
        http_client=http_client,
        **kwargs,
    )
