"""A fake Anthropic API as strict as the documented one, for tests: the real SDK runs, only the
HTTP transport is replaced.

:class:`FakeAnthropicAPI` answers ``POST /v1/messages`` (plain and streamed) and the Message Batches
endpoints (create, retrieve, list, cancel, results). It validates every request per model
(:mod:`argfaith.llm.testing.rules`: parameters, thinking types, sampling parameters, prefill,
output limits, custom ids, batch count and byte limits), simulates thinking blocks that count
toward ``max_tokens``, ``max_tokens`` stops, refusals and prompt-cache usage fields, scripts
failures (429 with ``retry-after``, 529, timeouts, responses lost after the work was done,
mid-stream disconnects, canceled / expired / errored batch results, archived batches), and counts
every billed generation (:meth:`FakeAnthropicAPI.paid_count`, :meth:`~FakeAnthropicAPI.repaid_count`).
Use it in process (:meth:`FakeAnthropicAPI.http_client`, or
:func:`argfaith.llm.client.override_http_client` for code that builds its own client) or over a
local HTTP server (:meth:`FakeAnthropicAPI.serve`, then ``ANTHROPIC_BASE_URL=<url>``) to test the
CLI in a subprocess.

Example
-------
>>> api = FakeAnthropicAPI(lambda body: "<|ANSWER|>support<|ANSWER|>")
>>> import anthropic
>>> c = anthropic.Anthropic(api_key="sk-ant-test", http_client=api.http_client(), max_retries=0)
>>> m = c.messages.create(model="claude-haiku-4-5", max_tokens=20, messages=[{"role": "user", "content": "hi"}])
>>> m.content[0].text, m.stop_reason, api.paid_count()
('<|ANSWER|>support<|ANSWER|>', 'end_turn', 1)
>>> m = c.messages.create(model="claude-haiku-5-5", max_tokens=20, messages=[{"role": "user", "content": "hi"}])
>>> [b.type for b in m.content], m.stop_reason   # thinks by default: 48 thinking tokens > 20
(['thinking'], 'max_tokens')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from argfaith.llm.testing.fake import Fail, FakeAnthropicAPI, FakeResponse, Paid, RecordedRequest, Reply, request_fingerprint
from argfaith.llm.testing.model import ArgfaithModel, gold_label
from argfaith.llm.testing.rules import MODEL_RULES, ModelRules

__all__ = [
    "FakeAnthropicAPI",
    "ArgfaithModel",
    "gold_label",
    "Fail",
    "Reply",
    "Paid",
    "RecordedRequest",
    "FakeResponse",
    "ModelRules",
    "MODEL_RULES",
    "request_fingerprint",
    "answer_text",
    "user_text",
]


def user_text(body: Mapping[str, Any]) -> str:
    """The text of the (last) user turn of a Messages request body (blocks joined)."""
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content)


def answer_text(label: str) -> str:
    """The paper's answer format for one label."""
    return f"<|ANSWER|>{label}<|ANSWER|>"
