"""The Anthropic client factory: key from the environment only, SDK retries, timeouts.

Retries are the SDK's own (``anthropic`` 2.x): 408, 409, 429, every 5xx (including 529
``overloaded_error``), timeouts and connection errors are retried with exponential backoff
(0.5 s doubling, capped at 8 s, with jitter), and a ``retry-after`` / ``retry-after-ms`` header
from the API is obeyed. argfaith raises the retry budget from the SDK's default 2 to
:data:`DEFAULT_MAX_RETRIES`, because a mining run sends thousands of requests and must ride out
rate-limit and overload bursts rather than fail half-way.

The key is read from ``ANTHROPIC_API_KEY`` and handed to the SDK only; it is never logged,
cached, written or put in an error message. :func:`make_client` also installs a logging filter
that masks the key should any library log it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
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


class _RedactKey(logging.Filter):
    """Replaces the API key in log records by ``[REDACTED]`` (defence in depth)."""

    def __init__(self, secret: str) -> None:
        super().__init__("argfaith-redact")
        self._secret = secret

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            msg = record.getMessage()
        except Exception:  # a broken record is not ours to fix
            return True
        if self._secret in msg:
            record.msg, record.args = msg.replace(self._secret, "[REDACTED]"), None
        if record.exc_text and self._secret in record.exc_text:
            record.exc_text = record.exc_text.replace(self._secret, "[REDACTED]")
        return True


_redacted: set[int] = set()


def _install_redaction(secret: str) -> None:
    # One filter per distinct key, on the loggers of the SDK and its HTTP stack.
    h = hash(secret)
    if h in _redacted:
        return
    _redacted.add(h)
    f = _RedactKey(secret)
    for name in ("anthropic", "httpx2", "httpcore2", "httpx", "httpcore", "argfaith"):
        logging.getLogger(name).addFilter(f)


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
