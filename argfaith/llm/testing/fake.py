"""The fake Anthropic API: Messages (plain and streamed) and Message Batches, strict and scriptable.

:class:`FakeAnthropicAPI` answers HTTP requests (method, path, headers, body) with
:class:`FakeResponse` objects that the transports of :mod:`argfaith.llm.testing.transport` turn
into real HTTP: every request is validated by :mod:`argfaith.llm.testing.rules`; answers come from
a ``responder`` (request body → text, a :class:`Reply` or a :class:`Fail`); thinking blocks, token
budgets (thinking counts toward ``max_tokens``, answers that do not fit stop at ``max_tokens``),
refusals and prompt-cache usage are simulated; failures are scripted per endpoint; and every
generation the API would bill is counted in :attr:`FakeAnthropicAPI.paid`, so tests can assert
that a run — interrupted, faulted, resumed — paid for each request exactly once.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from argfaith.llm.testing.rules import (
    MAX_BATCH_BYTES,
    MAX_BATCH_REQUESTS,
    MODEL_RULES,
    ModelRules,
    ParamError,
    fake_tokens,
    prompt_blocks,
    validate_batch_create,
    validate_message_params,
)

__all__ = ["FakeAnthropicAPI", "Fail", "Reply", "Paid", "RecordedRequest", "FakeResponse", "request_fingerprint"]


@dataclass(frozen=True)
class Fail:
    """A scripted failure.

    ``status`` / ``error_type`` / ``message`` / ``headers``: the HTTP error returned (e.g.
    ``Fail(429, "rate_limit_error", headers={"retry-after": "3"})``, ``Fail(529)``).
    ``timeout=True``: no answer within the client's read timeout (nothing is done).
    ``lost=True``: the work IS done (a message generated and billed, a batch created), then the
    connection drops before the response arrives — the client cannot know it happened.
    """

    status: int = 529
    error_type: str = "overloaded_error"
    message: str = "Overloaded"
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: bool = False
    lost: bool = False


@dataclass(frozen=True)
class Reply:
    """What the model "writes": ``text``, optionally a refusal, a forced stop reason, or the thinking
    tokens it spends first (default: the API's ``thinking_tokens`` when thinking is on)."""

    text: str = ""
    refusal: bool = False
    stop_reason: str | None = None
    thinking_tokens: int | None = None


@dataclass(frozen=True)
class Paid:
    """One billed generation: where (``direct`` / ``batch``), the request's fingerprint, tokens."""

    route: str
    fingerprint: str
    model: str
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    body: Any
    headers: Mapping[str, str]


@dataclass
class FakeResponse:
    """An HTTP answer: ``chunks`` of body; ``cut_after`` chunks are sent before the connection
    drops (None: all); ``lost``: the connection drops before any response; ``timeout``: nothing
    arrives in time."""

    status: int
    headers: dict[str, str]
    chunks: list[bytes]
    cut_after: int | None = None
    lost: bool = False
    timeout: bool = False

    @property
    def body(self) -> bytes:
        return b"".join(self.chunks)


Responder = Callable[[dict[str, Any]], "str | Reply | Fail"]


def request_fingerprint(params: Mapping[str, Any]) -> str:
    """Identity of a generation request (``stream`` aside): equal fingerprints = the same paid work."""
    p = {k: v for k, v in params.items() if k != "stream"}
    return hashlib.sha256(json.dumps(p, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]


def _rfc3339(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).isoformat().replace("+00:00", "Z")


def _error_body(f: Fail | ParamError) -> dict[str, Any]:
    if isinstance(f, ParamError):
        return {"type": "error", "error": {"type": f.error_type, "message": str(f)}}
    return {"type": "error", "error": {"type": f.error_type, "message": f.message}}


class FakeAnthropicAPI:
    """A strict, scriptable stand-in for api.anthropic.com (thread-safe).

    Parameters
    ----------
    responder
        Messages request body → answer text, :class:`Reply` or :class:`Fail` (an HTTP error on the
        direct route, an ``errored`` result in a batch).
    usage
        Optional ``(body, text) → (input_tokens, output_tokens)`` overriding the simulated counts
        (then no prompt-cache fields are simulated).
    batch_polls_before_end
        ``GET /v1/messages/batches/{id}`` calls answered ``in_progress`` before the batch ends.
    thinking_tokens
        Thinking tokens a thinking model spends before answering (int or ``body → int``).
    max_batch_requests, max_batch_bytes
        Batch limits (default: the documented 100,000 requests / 256 MB; tests lower them).
    min_cache_tokens
        Override of the models' minimum cacheable prefix for the prompt-cache simulation.

    Scripts (lists are consumed front first, one item per matching HTTP request):
    ``failures`` (``POST /v1/messages``), ``stream_faults`` (streamed messages: ``"disconnect"`` cuts
    the stream half-way, ``"error"`` sends an ``overloaded_error`` event half-way; the message is
    billed either way), ``batch_create_failures`` (``POST /v1/messages/batches``), ``poll_failures``
    (``GET .../{id}``), ``results_cuts`` (``GET .../{id}/results``: result lines sent before the
    connection drops), ``batch_fates`` (per created batch: ``"normal"``, ``"canceled"``,
    ``"expired"``, ``"archived"`` — ended, results gone —, ``"no_results_url"``, ``"deleted"``);
    ``batch_failures`` maps a ``custom_id`` to a one-shot outcome in its next batch:
    ``"errored"`` (overloaded), ``"api_error"``, ``"invalid"``, ``"too_large"``, ``"billing"``,
    ``"expired"``, ``"canceled"``.
    """

    def __init__(
        self,
        responder: Responder,
        *,
        usage: Callable[[dict[str, Any], str], tuple[int, int]] | None = None,
        batch_polls_before_end: int = 1,
        thinking_tokens: int | Callable[[dict[str, Any]], int] = 48,
        max_batch_requests: int = MAX_BATCH_REQUESTS,
        max_batch_bytes: int = MAX_BATCH_BYTES,
        min_cache_tokens: int | None = None,
    ) -> None:
        self.responder = responder
        self.usage = usage
        self.batch_polls_before_end = batch_polls_before_end
        self.thinking_tokens = thinking_tokens
        self.max_batch_requests = max_batch_requests
        self.max_batch_bytes = max_batch_bytes
        self.min_cache_tokens = min_cache_tokens
        self.requests: list[RecordedRequest] = []
        self.paid: list[Paid] = []
        self.failures: list[Fail] = []
        self.stream_faults: list[str] = []
        self.batch_create_failures: list[Fail] = []
        self.poll_failures: list[Fail] = []
        self.results_cuts: list[int] = []
        self.batch_fates: list[str] = []
        self.batch_failures: dict[str, str] = {}
        self.clock_offset = 0.0  # seconds added to the wall clock (prompt-cache TTL tests)
        self.base_url = "https://api.anthropic.com"  # where results_url points (serve() changes it)
        self._lock = threading.RLock()
        self._batches: dict[str, dict[str, Any]] = {}
        self._prompt_cache: dict[str, float] = {}  # prefix hash -> expiry time
        self._msg_no = 0

    # -- inspection ----------------------------------------------------------------------------------
    def now(self) -> float:
        return time.time() + self.clock_offset

    def message_calls(self) -> list[RecordedRequest]:
        """Recorded ``POST /v1/messages`` requests (each attempt, retries included)."""
        with self._lock:
            return [r for r in self.requests if r.method == "POST" and r.path == "/v1/messages"]

    def batch_creates(self) -> list[RecordedRequest]:
        """Recorded ``POST /v1/messages/batches`` requests (each attempt)."""
        with self._lock:
            return [r for r in self.requests if r.method == "POST" and r.path == "/v1/messages/batches"]

    def batches_created(self) -> int:
        """Batches that exist on the fake (created, whether or not the client learnt their id)."""
        with self._lock:
            return len(self._batches)

    def settle(self) -> None:
        """Run every batch that has not ended yet, as the real API does whether or not anyone
        polls it (so a batch whose id the client never learnt is billed too)."""
        with self._lock:
            for bid, b in self._batches.items():
                if b["results"] is None and b["fate"] != "deleted":
                    self._end_batch(bid)

    def paid_count(self) -> int:
        """Billed generations (direct messages generated, batch requests that succeeded), after
        :meth:`settle`."""
        self.settle()
        with self._lock:
            return len(self.paid)

    def repaid_count(self) -> int:
        """Billed generations of a request already billed before (paid twice or more), after
        :meth:`settle`."""
        self.settle()
        with self._lock:
            c = Counter(p.fingerprint for p in self.paid)
        return sum(n - 1 for n in c.values())

    # -- HTTP entry point ------------------------------------------------------------------------------
    def handle(self, method: str, path: str, headers: Mapping[str, str], raw: bytes, query: str = "") -> FakeResponse:
        """Answer one HTTP request."""
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw.decode("utf-8", "replace")
        hdr = {k.lower(): v for k, v in headers.items()}
        with self._lock:
            self.requests.append(RecordedRequest(method, path, body, dict(headers)))
        if not (hdr.get("x-api-key") or hdr.get("authorization")):
            return self._error(Fail(401, "authentication_error", "x-api-key header is required"))
        if not hdr.get("anthropic-version"):
            return self._error(Fail(400, "invalid_request_error", "anthropic-version: header is required"))
        parts = path.rstrip("/").split("/")
        if method == "POST" and path == "/v1/messages":
            return self._messages(body)
        if path == "/v1/messages/batches" and method == "POST":
            return self._create_batch(body, len(raw))
        if path == "/v1/messages/batches" and method == "GET":
            return self._list_batches(parse_qs(query))
        if len(parts) == 6 and parts[:4] == ["", "v1", "messages", "batches"] and parts[5] == "results" and method == "GET":
            return self._results(parts[4])
        if len(parts) == 6 and parts[:4] == ["", "v1", "messages", "batches"] and parts[5] == "cancel" and method == "POST":
            return self._cancel(parts[4])
        if len(parts) == 5 and parts[:4] == ["", "v1", "messages", "batches"] and method == "GET":
            return self._retrieve(parts[4])
        return self._error(Fail(404, "not_found_error", f"no route {method} {path}"))

    # -- Messages ----------------------------------------------------------------------------------------
    def _messages(self, body: Any) -> FakeResponse:
        try:
            rules = validate_message_params(body)
        except ParamError as e:
            return self._error(e)
        with self._lock:
            fail = self.failures.pop(0) if self.failures else None
        if fail is not None and not fail.lost:
            return FakeResponse(408, dict(fail.headers), [], timeout=True) if fail.timeout else self._error(fail)
        msg = self._generate(body, rules, "direct")
        if isinstance(msg, Fail):
            return self._error(msg)
        if fail is not None:  # lost: generated and billed, but the answer never arrives
            return FakeResponse(200, {}, [], lost=True)
        if not body.get("stream"):
            return self._json(200, msg)
        chunks = self._sse(msg)
        with self._lock:
            fault = self.stream_faults.pop(0) if self.stream_faults else None
        if fault == "disconnect":
            return FakeResponse(200, {"content-type": "text/event-stream"}, chunks, cut_after=max(1, len(chunks) // 2))
        if fault == "error":
            half = max(1, len(chunks) // 2)
            err = _error_body(Fail(529, "overloaded_error", "Overloaded"))
            chunks = chunks[:half] + [f"event: error\ndata: {json.dumps(err)}\n\n".encode()]
        return FakeResponse(200, {"content-type": "text/event-stream"}, chunks)

    def _thinking_on(self, body: Mapping[str, Any], rules: ModelRules) -> bool:
        t = (body.get("thinking") or {}).get("type")
        if t is None:
            return rules.thinking_default == "adaptive"
        return t in ("adaptive", "enabled")  # "between_tools" without tools: no thinking

    def _generate(self, body: dict[str, Any], rules: ModelRules, route: str) -> dict[str, Any] | Fail:
        """Run the "model" on a valid request: a Messages API message (billed), or a Fail."""
        ans = self.responder(body)
        if isinstance(ans, Fail):
            return ans
        reply = ans if isinstance(ans, Reply) else Reply(str(ans))
        mt = int(body["max_tokens"])
        thinking = self._thinking_on(body, rules)
        tt = 0
        if thinking:
            tt = reply.thinking_tokens if reply.thinking_tokens is not None else (
                self.thinking_tokens(body) if callable(self.thinking_tokens) else int(self.thinking_tokens)
            )
        content: list[dict[str, Any]] = []
        if thinking:
            content.append({"type": "thinking", "thinking": "", "signature": "fake-signature"})
        text = reply.text
        budget = mt - tt
        if budget <= 0:
            text, stop, out = "", "max_tokens", mt
        elif fake_tokens(text) > budget:
            text, stop, out = text[: budget * 4], "max_tokens", mt
        else:
            out = tt + fake_tokens(text)
            stop = "refusal" if reply.refusal else (reply.stop_reason or "end_turn")
        if text:
            content.append({"type": "text", "text": text})
        usage = self._usage(body, rules, text, out)
        with self._lock:
            self._msg_no += 1
            mid = f"msg_fake_{self._msg_no:06d}"
            self.paid.append(Paid(route, request_fingerprint(body), rules.model,
                                  usage["input_tokens"] + usage["cache_creation_input_tokens"] + usage["cache_read_input_tokens"],
                                  usage["output_tokens"]))
        return {
            "id": mid,
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage,
        }

    def _usage(self, body: Mapping[str, Any], rules: ModelRules, text: str, out: int) -> dict[str, Any]:
        w5 = w1 = read = 0
        if self.usage is not None:
            itok, out = self.usage(dict(body), text)
        else:
            blocks = prompt_blocks(body)
            total = sum(fake_tokens(str(b.get("text", ""))) for _, b in blocks)
            read, w5, w1 = self._prompt_cache_use(body, blocks, rules)
            itok = max(0, total - read - w5 - w1)
        return {
            "input_tokens": itok,
            "output_tokens": out,
            "cache_creation_input_tokens": w5 + w1,
            "cache_read_input_tokens": read,
            "cache_creation": {"ephemeral_5m_input_tokens": w5, "ephemeral_1h_input_tokens": w1},
        }

    def _prompt_cache_use(self, body: Mapping[str, Any], blocks: list[tuple[str, Mapping[str, Any]]], rules: ModelRules) -> tuple[int, int, int]:
        """(read, 5-minute writes, 1-hour writes) of the prompt-cache simulation: a prefix ending at a
        ``cache_control`` block is cached if at least ``min_cache_tokens`` long, for its TTL."""
        minimum = self.min_cache_tokens if self.min_cache_tokens is not None else rules.min_cache_tokens
        now = self.now()
        acc, h = 0, hashlib.sha256(str(body.get("model")).encode())
        points: list[tuple[str, int, str]] = []  # (hash, tokens, ttl)
        for _, b in blocks:
            acc += fake_tokens(str(b.get("text", "")))
            h.update(json.dumps({k: v for k, v in b.items() if k != "cache_control"}, sort_keys=True).encode())
            cc = b.get("cache_control")
            if cc is not None and acc >= minimum:
                points.append((h.hexdigest(), acc, cc.get("ttl", "5m")))
        read = w5 = w1 = 0
        with self._lock:
            for key, tokens, _ttl in points:
                if self._prompt_cache.get(key, -1.0) >= now:
                    read = max(read, tokens)
            prev = read
            for key, tokens, ttl in points:  # in prompt order, so tokens increase
                if tokens > prev:
                    if ttl == "1h":
                        w1 += tokens - prev
                    else:
                        w5 += tokens - prev
                    prev = tokens
                life = 3600.0 if ttl == "1h" else 300.0
                self._prompt_cache[key] = max(self._prompt_cache.get(key, -1.0), now + life)
        return read, w5, w1

    @staticmethod
    def _sse(msg: Mapping[str, Any]) -> list[bytes]:
        def ev(kind: str, data: Mapping[str, Any]) -> bytes:
            return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()

        start = {**msg, "content": [], "stop_reason": None, "usage": {**msg["usage"], "output_tokens": 1}}
        out = [ev("message_start", {"message": start})]
        for i, b in enumerate(msg["content"]):
            if b["type"] == "thinking":
                out.append(ev("content_block_start", {"index": i, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}))
                out.append(ev("content_block_delta", {"index": i, "delta": {"type": "signature_delta", "signature": b["signature"]}}))
            else:
                out.append(ev("content_block_start", {"index": i, "content_block": {"type": "text", "text": ""}}))
                text = b["text"]
                for j in range(0, len(text), 40):
                    out.append(ev("content_block_delta", {"index": i, "delta": {"type": "text_delta", "text": text[j : j + 40]}}))
            out.append(ev("content_block_stop", {"index": i}))
        out.append(ev("message_delta", {"delta": {"stop_reason": msg["stop_reason"], "stop_sequence": None},
                                        "usage": {"output_tokens": msg["usage"]["output_tokens"]}}))
        out.append(ev("message_stop", {}))
        return out

    # -- Message Batches ----------------------------------------------------------------------------------
    def _create_batch(self, body: Any, size: int) -> FakeResponse:
        with self._lock:
            fail = self.batch_create_failures.pop(0) if self.batch_create_failures else None
        if fail is not None and not fail.lost:
            return FakeResponse(408, dict(fail.headers), [], timeout=True) if fail.timeout else self._error(fail)
        try:
            reqs = validate_batch_create(body, size, max_requests=self.max_batch_requests, max_bytes=self.max_batch_bytes)
        except ParamError as e:
            return self._error(e)
        with self._lock:
            bid = f"msgbatch_{len(self._batches) + 1:04d}"
            fate = self.batch_fates.pop(0) if self.batch_fates else "normal"
            self._batches[bid] = {"requests": reqs, "polls": 0, "created": self.now(), "fate": fate, "results": None, "ended": None}
            obj = self._batch_obj(bid)
        if fail is not None:  # lost: the batch exists (and will run) but the client never hears of it
            return FakeResponse(200, {}, [], lost=True)
        return self._json(200, obj)

    def _retrieve(self, bid: str) -> FakeResponse:
        with self._lock:
            fail = self.poll_failures.pop(0) if self.poll_failures else None
            if fail is not None:
                return FakeResponse(408, dict(fail.headers), [], timeout=True) if fail.timeout else self._error(fail)
            b = self._batches.get(bid)
            if b is None or b["fate"] == "deleted":
                return self._error(Fail(404, "not_found_error", f"message batch {bid} not found"))
            b["polls"] += 1
            if b["results"] is None and b["polls"] > self.batch_polls_before_end:
                self._end_batch(bid)
            return self._json(200, self._batch_obj(bid))

    def _list_batches(self, q: Mapping[str, list[str]]) -> FakeResponse:
        limit = int((q.get("limit") or ["20"])[0])
        after = (q.get("after_id") or [None])[0]
        with self._lock:
            ids = [b for b in sorted(self._batches, reverse=True) if self._batches[b]["fate"] != "deleted"]  # newest first
            if after in ids:
                ids = ids[ids.index(after) + 1 :]
            page = ids[:limit]
            data = [self._batch_obj(b) for b in page]
        return self._json(200, {"data": data, "has_more": len(ids) > limit,
                                "first_id": page[0] if page else None, "last_id": page[-1] if page else None})

    def _cancel(self, bid: str) -> FakeResponse:
        with self._lock:
            b = self._batches.get(bid)
            if b is None:
                return self._error(Fail(404, "not_found_error", f"message batch {bid} not found"))
            if b["results"] is None:
                b["fate"] = "canceled"
                self._end_batch(bid)
            return self._json(200, self._batch_obj(bid))

    def _end_batch(self, bid: str) -> None:
        """Process (and bill) every request of a batch; called with the lock held."""
        b = self._batches[bid]
        results = []
        for req in b["requests"]:
            cid = req["custom_id"]
            mode = self.batch_failures.pop(cid, None)
            if b["fate"] in ("canceled", "expired") and mode is None:
                mode = b["fate"]
            if mode in ("expired", "canceled"):
                results.append({"custom_id": cid, "result": {"type": mode}})
                continue
            errors = {"errored": "overloaded_error", "api_error": "api_error", "invalid": "invalid_request_error",
                      "too_large": "request_too_large", "billing": "billing_error"}
            if mode in errors:
                results.append(self._errored(cid, errors[mode], "scripted"))
                continue
            try:
                rules = validate_message_params(req["params"], in_batch=True)
            except ParamError as e:
                results.append(self._errored(cid, e.error_type, str(e)))
                continue
            msg = self._generate(dict(req["params"]), rules, "batch")
            if isinstance(msg, Fail):
                results.append(self._errored(cid, msg.error_type, msg.message))
                continue
            results.append({"custom_id": cid, "result": {"type": "succeeded", "message": msg}})
        b["results"] = results
        b["ended"] = self.now()

    @staticmethod
    def _errored(cid: str, etype: str, msg: str) -> dict[str, Any]:
        return {"custom_id": cid, "result": {"type": "errored", "error": {"type": "error", "error": {"type": etype, "message": msg}}}}

    def _batch_obj(self, bid: str) -> dict[str, Any]:
        b = self._batches[bid]
        ended = b["results"] is not None
        counts = {"processing": 0 if ended else len(b["requests"]), "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        for r in b["results"] or []:
            counts[r["result"]["type"]] += 1
        gone = b["fate"] in ("archived", "no_results_url")
        return {
            "id": bid,
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": counts,
            "created_at": _rfc3339(b["created"]),
            "expires_at": _rfc3339(b["created"] + 86400),
            "ended_at": _rfc3339(b["ended"]) if ended else None,
            "archived_at": _rfc3339(b["ended"]) if ended and b["fate"] == "archived" else None,
            "cancel_initiated_at": _rfc3339(b["ended"]) if ended and b["fate"] == "canceled" else None,
            "results_url": f"{self.base_url}/v1/messages/batches/{bid}/results" if ended and not gone else None,
        }

    def _results(self, bid: str) -> FakeResponse:
        with self._lock:
            b = self._batches.get(bid)
            if b is None or b["fate"] in ("deleted", "archived", "no_results_url") or b["results"] is None:
                return self._error(Fail(404, "not_found_error", f"no results for message batch {bid}"))
            lines = [json.dumps(r).encode() + b"\n" for r in b["results"]]
            cut = self.results_cuts.pop(0) if self.results_cuts else None
        return FakeResponse(200, {"content-type": "application/binary"}, lines, cut_after=cut)

    # -- helpers --------------------------------------------------------------------------------------------
    @staticmethod
    def _json(status: int, obj: Any) -> FakeResponse:
        return FakeResponse(status, {"content-type": "application/json"}, [json.dumps(obj).encode()])

    @staticmethod
    def _error(f: Fail | ParamError) -> FakeResponse:
        headers = {"content-type": "application/json", **(dict(f.headers) if isinstance(f, Fail) else {})}
        status = f.status
        return FakeResponse(status, headers, [json.dumps(_error_body(f)).encode()])

    # -- transports (see argfaith.llm.testing.transport) -----------------------------------------------------
    def http_client(self) -> Any:
        """An ``httpx2.Client`` whose transport is this fake (no network)."""
        from argfaith.llm.testing.transport import mock_http_client

        return mock_http_client(self)

    def serve(self) -> Any:
        """Context manager: serve this fake on ``http://127.0.0.1:<port>``; yields the base URL."""
        from argfaith.llm.testing.transport import serve

        return serve(self)


def known_models() -> list[str]:
    """Models the fake knows (others get a 404 ``not_found_error``)."""
    return sorted(MODEL_RULES)
