"""Errors raised by the LLM plumbing.

They derive from :class:`argfaith.errors.ArgfaithError`, so the CLI prints them as one line
(``error: ...``, exit 2). Messages never contain the API key or request headers: they are built
from the HTTP status, the API's error type and message (passed through
:func:`argfaith.errors.redact`: a server or proxy may echo the key), and counts.
"""

from __future__ import annotations

from argfaith.errors import ArgfaithError, ConfigurationError, redact

__all__ = ["LLMRequestError", "MissingAPIKeyError", "describe_api_error"]


class MissingAPIKeyError(ConfigurationError):
    """``ANTHROPIC_API_KEY`` is not set but a request had to be sent."""


class LLMRequestError(ArgfaithError):
    """Requests failed after the SDK's retries (or were rejected outright).

    ``failed`` counts the failed requests, ``finished`` those answered (and cached) in the same run;
    a rerun sends only the missing ones.
    """

    def __init__(self, message: str, *, failed: int = 1, finished: int = 0, fatal: bool = False) -> None:
        super().__init__(message)
        self.failed = failed
        self.finished = finished
        self.fatal = fatal


def describe_api_error(exc: BaseException) -> tuple[str, bool]:
    """A one-line, secret-free description of an SDK exception and whether it is fatal.

    Fatal errors (authentication, billing, permission, unknown model, invalid or too large
    request) would fail again on every request, so a run stops at the first one; transient ones
    (429, 5xx incl. 529, timeouts, connection errors) have already been retried by the SDK and are
    reported per request.
    """
    import anthropic

    if isinstance(exc, anthropic.APITimeoutError):
        return "request timed out (after the SDK's retries)", False
    if isinstance(exc, anthropic.APIConnectionError):
        return "could not connect to the Anthropic API (after the SDK's retries)", False
    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        etype, emsg = _error_body(exc)
        what = f"HTTP {status}" + (f" {etype}" if etype else "") + (f": {emsg}" if emsg else "")
        if status == 401:
            return f"the Anthropic API rejected the API key ({what}); check ANTHROPIC_API_KEY", True
        if status == 402 or etype == "billing_error":
            return f"the Anthropic API refused the request for billing reasons ({what}); check the account's credit", True
        if status == 413 or etype == "request_too_large":
            return f"the request is larger than the Anthropic API accepts ({what})", True
        if status == 403:
            return f"permission denied by the Anthropic API ({what})", True
        if status == 404:
            return f"not found ({what}); is the model id right and not retired? (--model)", True
        if status in (400, 413, 422):
            return f"the Anthropic API rejected the request ({what})", True
        return f"{what} (after the SDK's retries)", False
    return redact(f"{type(exc).__name__}: {exc}"), True


def _error_body(exc: object) -> tuple[str | None, str | None]:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            etype = err.get("type")
            emsg = err.get("message")
            return (redact(str(etype)) if etype else None, redact(str(emsg))[:300] if emsg else None)
    return None, None
