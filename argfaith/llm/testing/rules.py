"""What the Anthropic API accepts, per model: the rules the fake API enforces.

Each rule cites the page it comes from (read through the project's docs search on 2026-12-01;
``unverified`` marks facts only third-party pages state). The fake rejects exactly what these
rules reject, with the API's error shape, so a request argfaith builds wrongly fails in the tests
as it would against api.anthropic.com.

Messages API (``POST /v1/messages``):

* unknown top-level parameters, a missing ``model`` / ``max_tokens`` / ``messages``, an empty
  text block, more than 4 ``cache_control`` breakpoints, a ``cache_control`` ``ttl`` other than
  ``5m`` / ``1h`` or a 1-hour entry after a 5-minute one → 400 ``invalid_request_error``;
* an unknown model → 404 ``not_found_error``;
* ``max_tokens`` above the model's output limit, or prompt + ``max_tokens`` above its context
  window → 400;
* ``thinking.type`` the model does not accept (:attr:`ModelRules.thinking_types`), ``enabled``
  with ``budget_tokens`` < 1,024 or ≥ ``max_tokens``, ``disabled`` at an effort the model does not
  allow it with → 400;
* ``temperature`` ≠ 1, ``top_p`` or ``top_k`` on models without sampling parameters, or a final
  assistant turn (prefill) on models without prefill → 400.

Message Batches API (``POST /v1/messages/batches``): 1–100,000 requests, each ``custom_id``
matching ``^[a-zA-Z0-9_-]{1,64}$`` and unique in the batch (else 400), body at most 256 MB (else
413 ``request_too_large``); a request whose ``params`` break a rule above ends ``errored`` with
``invalid_request_error``; ``max_tokens: 0`` is not allowed inside a batch.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ModelRules",
    "MODEL_RULES",
    "ParamError",
    "validate_message_params",
    "validate_batch_create",
    "fake_tokens",
    "CUSTOM_ID_RE",
    "MAX_BATCH_REQUESTS",
    "MAX_BATCH_BYTES",
]

#: ``custom_id`` of a batch request (API reference, "Create a Message Batch":
#: https://platform.claude.com/docs/en/api/go/messages/batches/create).
CUSTOM_ID_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
#: Requests per batch (same page: ``maxItems: 100000``).
MAX_BATCH_REQUESTS = 100_000
#: Body size of one batch, bytes ("limited to either 100,000 Message requests or 256 MB in size,
#: whichever is reached first": https://docs.anthropic.com/de/docs/build-with-claude/message-batches).
MAX_BATCH_BYTES = 256_000_000

_EFFORTS = ("low", "medium", "high", "xhigh", "max")
_TOP_LEVEL = frozenset(
    {
        "model", "max_tokens", "messages", "system", "thinking", "temperature", "top_p", "top_k",
        "stop_sequences", "stream", "metadata", "output_config", "cache_control", "service_tier",
        "tools", "tool_choice", "container", "inference_geo", "speed", "diagnostics",
    }
)

_HAIKU55 = "https://platform.claude.com/docs/en/models/haiku-5-5/whats-new-haiku-5-5"
_HAIKU55_PROMPTING = "https://platform.claude.com/docs/en/build-with-claude/prompt-engineering/prompting-claude-haiku-5-5"
_SONNET55 = "https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5"
_OPUS55 = "https://platform.claude.com/docs/en/models/opus-5-5/whats-new-opus-5-5"


@dataclass(frozen=True)
class ModelRules:
    """What one model accepts.

    Attributes
    ----------
    thinking_default
        ``"off"``: no thinking unless asked; ``"adaptive"``: thinks when ``thinking`` is omitted.
    thinking_types
        Accepted ``thinking.type`` values (anything else is a 400).
    disabled_up_to_effort
        ``thinking: disabled`` is accepted only at this ``output_config.effort`` or lower.
    sampling_params
        Whether ``temperature`` (≠ 1), ``top_p`` and ``top_k`` are accepted.
    prefill
        Whether a final assistant turn is accepted.
    min_cache_tokens
        Minimum cacheable prefix of the fake's prompt-cache simulation (not a validation rule:
        shorter prefixes are silently not cached, as documented).
    """

    model: str
    max_output: int
    context_window: int
    thinking_default: str
    thinking_types: frozenset[str]
    disabled_up_to_effort: str | None = None
    sampling_params: bool = False
    prefill: bool = False
    min_cache_tokens: int = 1024
    source: str = ""


MODEL_RULES: dict[str, ModelRules] = {
    r.model: r
    for r in (
        ModelRules(
            "claude-haiku-5-5", 128_000, 1_000_000, "adaptive", frozenset({"adaptive", "disabled"}),
            disabled_up_to_effort="high", min_cache_tokens=4096,
            source=f"{_HAIKU55} (sampling parameters, budget_tokens and prefill return 400); "
            f"{_HAIKU55_PROMPTING} (thinking on by default, disabled only at low/medium/high)",
        ),
        ModelRules(
            "claude-haiku-4-5", 64_000, 200_000, "off", frozenset({"enabled", "disabled"}),
            sampling_params=True, prefill=True, min_cache_tokens=4096,
            source="https://platform.claude.com/docs/en/models/sonnet-5-5/overview (comparison row: 200K / 64K, Extended)",
        ),
        ModelRules(
            "claude-sonnet-5-5", 128_000, 1_000_000, "adaptive", frozenset({"adaptive", "between_tools"}),
            min_cache_tokens=1024,
            source=f"{_SONNET55} (adaptive on by default; up-front thinking off with between_tools; "
            "'disabled' rejected: unverified, third-party)",
        ),
        ModelRules(
            "claude-sonnet-4-5", 64_000, 200_000, "off", frozenset({"enabled", "disabled"}),
            sampling_params=True, prefill=True, min_cache_tokens=1024,
        ),
        ModelRules(
            "claude-opus-5-5", 128_000, 1_000_000, "adaptive", frozenset({"adaptive"}), min_cache_tokens=1024,
            source=f"{_OPUS55}#thinking-cant-be-disabled",
        ),
        ModelRules(
            "claude-fable-5-1", 128_000, 1_000_000, "adaptive", frozenset({"adaptive"}), min_cache_tokens=1024,
            source=f"{_OPUS55} ('the first three also apply on Claude Fable 5.1')",
        ),
    )
}


class ParamError(Exception):
    """A request the API rejects: HTTP ``status`` with error ``error_type``."""

    def __init__(self, message: str, status: int = 400, error_type: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.status = status
        self.error_type = error_type


def fake_tokens(text: str) -> int:
    """The fake's tokenizer: 4 characters per token, rounded up."""
    return math.ceil(len(text) / 4) if text else 0


def _blocks(content: Any, where: str) -> list[Mapping[str, Any]]:
    if isinstance(content, str):
        if not content:
            raise ParamError(f"{where}: content must be non-empty")
        return [{"type": "text", "text": content}]
    if not isinstance(content, list) or not content:
        raise ParamError(f"{where}: content must be a string or a non-empty list of content blocks")
    for i, b in enumerate(content):
        if not isinstance(b, Mapping) or b.get("type") not in ("text", "thinking", "redacted_thinking"):
            raise ParamError(f"{where}.{i}: unsupported content block")
        if b.get("type") == "text" and not (isinstance(b.get("text"), str) and b["text"]):
            raise ParamError(f"{where}.{i}: text content blocks must be non-empty")
    return list(content)


def _check_cache_control(blocks: list[tuple[str, Mapping[str, Any]]]) -> None:
    marks = [(w, b["cache_control"]) for w, b in blocks if b.get("cache_control") is not None]
    if len(marks) > 4:
        raise ParamError(f"A maximum of 4 blocks with cache_control may be provided. Found {len(marks)}.")
    seen_5m = False
    for where, cc in marks:
        if not isinstance(cc, Mapping) or cc.get("type") != "ephemeral":
            raise ParamError(f"{where}.cache_control.type: Input should be 'ephemeral'")
        ttl = cc.get("ttl", "5m")
        if ttl not in ("5m", "1h"):
            raise ParamError(f"{where}.cache_control.ttl: Input should be '5m' or '1h'")
        if ttl == "1h" and seen_5m:
            raise ParamError("a ttl='1h' cache_control block must not come after a ttl='5m' one")
        seen_5m = seen_5m or ttl == "5m"


def prompt_blocks(body: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """(location, block) of every prompt block in order: system blocks, then message blocks."""
    out: list[tuple[str, Mapping[str, Any]]] = []
    system = body.get("system")
    if isinstance(system, str) and system:
        out.append(("system", {"type": "text", "text": system}))
    elif isinstance(system, list):
        out += [(f"system.{i}", b) for i, b in enumerate(system)]
    for i, m in enumerate(body.get("messages") or []):
        out += [(f"messages.{i}.content.{j}", b) for j, b in enumerate(_blocks(m.get("content"), f"messages.{i}"))]
    return out


def validate_message_params(body: Any, *, in_batch: bool = False) -> ModelRules:
    """Check a Messages request body like the API does; returns the model's rules.

    Raises
    ------
    ParamError
        What the API would answer (400 / 404 with the error type).
    """
    if not isinstance(body, Mapping):
        raise ParamError("request body must be a JSON object")
    extra = sorted(set(body) - _TOP_LEVEL)
    if extra:
        raise ParamError(f"{extra[0]}: Extra inputs are not permitted")
    for k in ("model", "max_tokens", "messages"):
        if k not in body:
            raise ParamError(f"{k}: Field required")
    rules = MODEL_RULES.get(str(body["model"]))
    if rules is None:
        raise ParamError(f"model: {body['model']}", status=404, error_type="not_found_error")
    mt = body["max_tokens"]
    if not isinstance(mt, int) or isinstance(mt, bool) or mt < (1 if in_batch else 0):
        raise ParamError(f"max_tokens: must be an integer >= {1 if in_batch else 0}" + (" inside a batch" if in_batch else ""))
    if mt > rules.max_output:
        raise ParamError(f"max_tokens: {mt} > {rules.max_output}, which is the maximum allowed number of output tokens for {rules.model}")
    msgs = body["messages"]
    if not isinstance(msgs, list) or not msgs:
        raise ParamError("messages: at least one message is required")
    for i, m in enumerate(msgs):
        if not isinstance(m, Mapping) or m.get("role") not in ("user", "assistant"):
            raise ParamError(f"messages.{i}.role: Input should be 'user' or 'assistant'")
    if msgs[0]["role"] != "user":
        raise ParamError("messages: first message must use the 'user' role")
    if msgs[-1]["role"] == "assistant" and not rules.prefill:
        raise ParamError(f"assistant message prefill is not supported for {rules.model}; the conversation must end with a user turn")
    system = body.get("system")
    if system is not None and not isinstance(system, (str, list)):
        raise ParamError("system: Input should be a string or a list of text blocks")
    if isinstance(system, list):
        _blocks(system, "system")
    blocks = prompt_blocks(body)
    _check_cache_control(blocks)
    effort = (body.get("output_config") or {}).get("effort") if isinstance(body.get("output_config"), Mapping) else None
    if effort is not None and effort not in _EFFORTS:
        raise ParamError(f"output_config.effort: Input should be one of {', '.join(_EFFORTS)}")
    thinking = body.get("thinking")
    if thinking is not None:
        t = thinking.get("type") if isinstance(thinking, Mapping) else None
        if t not in rules.thinking_types:
            raise ParamError(
                f'"thinking.type.{t}" is not supported for this model. '
                + ('Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.' if "adaptive" in rules.thinking_types else "")
            )
        if t == "enabled":
            bt = thinking.get("budget_tokens")
            if not isinstance(bt, int) or bt < 1024 or bt >= mt:
                raise ParamError("thinking.budget_tokens: must be >= 1024 and less than max_tokens")
        if t == "disabled" and rules.disabled_up_to_effort and effort is not None:
            if _EFFORTS.index(effort) > _EFFORTS.index(rules.disabled_up_to_effort):
                raise ParamError(f"thinking cannot be disabled at effort {effort!r} on {rules.model}")
    if not rules.sampling_params:
        if body.get("temperature") not in (None, 1, 1.0):
            raise ParamError(f"temperature: non-default sampling parameters are not supported for {rules.model}")
        for k in ("top_p", "top_k"):
            if body.get(k) is not None:
                raise ParamError(f"{k}: non-default sampling parameters are not supported for {rules.model}")
    elif body.get("temperature") is not None and not 0 <= float(body["temperature"]) <= 1:
        raise ParamError("temperature: Input should be between 0 and 1")
    prompt = sum(fake_tokens(str(b.get("text", ""))) for _, b in blocks)
    if prompt + mt > rules.context_window:
        raise ParamError(f"prompt is too long: {prompt} tokens + max_tokens {mt} > {rules.context_window}")
    return rules


def validate_batch_create(body: Any, raw_size: int, *, max_requests: int = MAX_BATCH_REQUESTS, max_bytes: int = MAX_BATCH_BYTES) -> list[Mapping[str, Any]]:
    """Check a batch creation body (structure, custom ids, size); returns its requests.

    Per-request ``params`` are not checked here: the API reports them per request as ``errored``.
    """
    if raw_size > max_bytes:
        raise ParamError(f"Request exceeds the maximum allowed number of bytes ({raw_size} > {max_bytes})", 413, "request_too_large")
    reqs = body.get("requests") if isinstance(body, Mapping) else None
    if not isinstance(reqs, list) or not reqs:
        raise ParamError("requests: List should have at least 1 item")
    if len(reqs) > max_requests:
        raise ParamError(f"requests: List should have at most {max_requests} items, not {len(reqs)}")
    seen: set[str] = set()
    for i, r in enumerate(reqs):
        cid = r.get("custom_id") if isinstance(r, Mapping) else None
        if not isinstance(cid, str) or not CUSTOM_ID_RE.match(cid):
            raise ParamError(f"requests.{i}.custom_id: String should match pattern '^[a-zA-Z0-9_-]{{1,64}}$'")
        if cid in seen:
            raise ParamError(f"requests.{i}.custom_id: duplicate custom_id {cid!r}; custom_id must be unique within a batch")
        seen.add(cid)
        if not isinstance(r.get("params"), Mapping):
            raise ParamError(f"requests.{i}.params: Field required")
        if r["params"].get("stream"):
            raise ParamError(f"requests.{i}.params.stream: streaming is not supported in batches")
    return reqs
