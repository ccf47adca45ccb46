"""The request and answer types every LLM feature shares: :class:`LLMRequest` (a Messages API
request plus its cache key), :class:`Completion` (its answer) and :func:`message_text`.

They sit below both routes that answer requests — :mod:`argfaith.llm.complete` (cache, direct
calls) and :mod:`argfaith.llm.batches` (the Message Batches API) — so neither imports the other's
types through a cycle. :mod:`argfaith.llm.complete` re-exports them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from argfaith.llm.cost import TokenCounts

__all__ = ["LLMRequest", "Completion", "message_text"]


@dataclass(frozen=True, slots=True)
class LLMRequest:
    """One Messages API request.

    Attributes
    ----------
    key
        Cache key (:func:`argfaith.llm.cache.request_key`); also the batch ``custom_id``.
    params
        Keyword arguments of ``client.messages.create`` (model, system, messages, max_tokens, ...).
    template_version
        Version of the prompt template that produced ``params``.
    input_chars
        Prompt length in characters (system + user text), for token estimates.
    """

    key: str
    params: Mapping[str, Any]
    template_version: str
    input_chars: int

    @property
    def model(self) -> str:
        return str(self.params["model"])

    @property
    def max_tokens(self) -> int:
        return int(self.params["max_tokens"])

    def with_max_tokens(self, max_tokens: int) -> LLMRequest:
        """The same request with another output budget (its own cache key, derived from this one)."""
        key = hashlib.sha256(f"{self.key}:max_tokens={int(max_tokens)}".encode()).hexdigest()
        return LLMRequest(key, {**self.params, "max_tokens": int(max_tokens)}, self.template_version, self.input_chars)


@dataclass(frozen=True, slots=True)
class Completion:
    """The answer to one :class:`LLMRequest`.

    ``route`` is ``"cache"`` (answered earlier, free), ``"direct"`` or ``"batch"``; ``error`` is set
    (and ``text`` empty) when the request failed after retries and the runner was told not to raise.
    ``refused``: the model declined (``stop_reason: "refusal"``; not an answer, not cached);
    ``truncated``: still stopped at ``max_tokens`` after ``escalations`` larger budgets.
    """

    key: str
    text: str
    stop_reason: str | None = None
    usage: TokenCounts = TokenCounts()
    route: Literal["cache", "direct", "batch"] = "direct"
    error: str | None = None
    escalations: int = 0

    @property
    def refused(self) -> bool:
        return self.stop_reason == "refusal"

    @property
    def truncated(self) -> bool:
        return self.stop_reason == "max_tokens"

    @property
    def ok(self) -> bool:
        """An answer to use: no error and not a refusal (a truncated answer is ok, and flagged)."""
        return self.error is None and not self.refused


def message_text(message: object) -> str:
    """The text of a response: its ``text`` blocks joined (thinking blocks are skipped)."""
    parts: list[str] = []
    for block in getattr(message, "content", None) or []:
        if getattr(block, "type", None) == "text":
            parts.append(str(getattr(block, "text", "")))
    return "".join(parts)
