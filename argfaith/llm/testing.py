"""A fake Anthropic API for tests: the real SDK runs, only the HTTP transport is replaced.

:class:`FakeAnthropicAPI` answers ``POST /v1/messages`` and the Message Batches endpoints from a
``responder`` (request body → answer text, or a :class:`Fail` to return an HTTP error), records
every HTTP request it receives (method, path, JSON body, headers) and can script failures (429 with
``retry-after``, 529 overloaded, timeouts). Use it in process with an ``httpx2.MockTransport``
(:meth:`FakeAnthropicAPI.http_client`, or :func:`argfaith.llm.client.override_http_client` for code
that builds its own client) or out of process through a local HTTP server
(:meth:`FakeAnthropicAPI.serve`, then ``ANTHROPIC_BASE_URL=<url>``) to test the CLI in a subprocess.

Example
-------
>>> api = FakeAnthropicAPI(lambda body: "<|ANSWER|>support<|ANSWER|>")
>>> import anthropic
>>> c = anthropic.Anthropic(api_key="sk-ant-test", http_client=api.http_client(), max_retries=0)
>>> m = c.messages.create(model="claude-haiku-5-5", max_tokens=20, messages=[{"role": "user", "content": "hi"}])
>>> m.content[0].text, len(api.message_calls())
('<|ANSWER|>support<|ANSWER|>', 1)
"""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FakeAnthropicAPI", "Fail", "RecordedRequest", "answer_text", "user_text"]


@dataclass(frozen=True)
class Fail:
    """An HTTP error to return instead of an answer (``timeout=True``: raise a read timeout)."""

    status: int = 529
    error_type: str = "overloaded_error"
    message: str = "Overloaded"
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: bool = False


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    body: Any
    headers: Mapping[str, str]


Responder = Callable[[dict[str, Any]], "str | Fail"]


def user_text(body: Mapping[str, Any]) -> str:
    """The text of the (last) user turn of a Messages request body (blocks joined)."""
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content)


def answer_text(label: str) -> str:
    """The paper's answer format for one label."""
    return f"<|ANSWER|>{label}<|ANSWER|>"


class FakeAnthropicAPI:
    """A scripted stand-in for api.anthropic.com (thread-safe).

    Parameters
    ----------
    responder
        Body of a Messages request (dict) → answer text, or a :class:`Fail`.
    usage
        Body → (input_tokens, output_tokens); default: characters / 4 and answer characters / 4.
    batch_polls_before_end
        How many ``GET /v1/messages/batches/{id}`` return ``in_progress`` before ``ended``.
    batch_results
        Optional override per custom id in batches: ``"errored"``, ``"expired"`` or a Fail.
    """

    def __init__(
        self,
        responder: Responder,
        *,
        usage: Callable[[dict[str, Any], str], tuple[int, int]] | None = None,
        batch_polls_before_end: int = 1,
    ) -> None:
        self.responder = responder
        self.usage = usage or (lambda body, text: (max(1, len(json.dumps(body)) // 4), max(1, len(text) // 4)))
        self.batch_polls_before_end = batch_polls_before_end
        self.requests: list[RecordedRequest] = []
        self.failures: list[Fail] = []  # consumed one per Messages request, before the responder
        self.batch_failures: dict[str, str] = {}  # custom_id -> "errored" | "expired" | "invalid" (one-shot)
        self._lock = threading.Lock()
        self._batches: dict[str, dict[str, Any]] = {}
        self.base_url = "https://api.anthropic.com"  # where results_url points (serve() changes it)

    # -- inspection --------------------------------------------------------------------------------
    def message_calls(self) -> list[RecordedRequest]:
        """Recorded ``POST /v1/messages`` requests (each attempt, retries included)."""
        with self._lock:
            return [r for r in self.requests if r.method == "POST" and r.path == "/v1/messages"]

    def batch_creates(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.method == "POST" and r.path == "/v1/messages/batches"]

    # -- core logic ----------------------------------------------------------------------------------
    def handle(self, method: str, path: str, headers: Mapping[str, str], raw: bytes) -> tuple[int, dict[str, str], bytes]:
        """Answer one HTTP request: (status, headers, body)."""
        body: Any = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = raw.decode("utf-8", "replace")
        with self._lock:
            self.requests.append(RecordedRequest(method, path, body, dict(headers)))
        if method == "POST" and path == "/v1/messages":
            with self._lock:
                fail = self.failures.pop(0) if self.failures else None
            if fail is None:
                ans = self.responder(body)
                if isinstance(ans, Fail):
                    fail = ans
            if fail is not None:
                if fail.timeout:
                    raise TimeoutError("scripted timeout")
                return self._error(fail)
            return self._json(200, self._message(body, ans))
        if path == "/v1/messages/batches" and method == "POST":
            return self._json(200, self._create_batch(body))
        if path.startswith("/v1/messages/batches/") and path.endswith("/results"):
            bid = path.split("/")[4]
            lines = self._batch_results(bid)
            return 200, {"content-type": "application/binary"}, "\n".join(json.dumps(x) for x in lines).encode()
        if path.startswith("/v1/messages/batches/") and method == "GET":
            bid = path.split("/")[4]
            return self._json(200, self._poll_batch(bid))
        return self._error(Fail(404, "not_found_error", f"no route {method} {path}"))

    def _message(self, body: dict[str, Any], text: str) -> dict[str, Any]:
        itok, otok = self.usage(body, text)
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "?"),
            "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": itok, "output_tokens": otok},
        }

    def _create_batch(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            bid = f"msgbatch_{len(self._batches) + 1:04d}"
            self._batches[bid] = {"requests": body["requests"], "polls": 0}
        return self._batch_obj(bid, "in_progress")

    def _poll_batch(self, bid: str) -> dict[str, Any]:
        with self._lock:
            b = self._batches[bid]
            b["polls"] += 1
            ended = b["polls"] > self.batch_polls_before_end
        return self._batch_obj(bid, "ended" if ended else "in_progress")

    def _batch_obj(self, bid: str, status: str) -> dict[str, Any]:
        n = len(self._batches[bid]["requests"])
        return {
            "id": bid,
            "type": "message_batch",
            "processing_status": status,
            "request_counts": {"processing": n if status != "ended" else 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0},
            "created_at": "2026-11-29T00:00:00Z",
            "expires_at": "2026-11-30T00:00:00Z",
            "results_url": f"{self.base_url}/v1/messages/batches/{bid}/results" if status == "ended" else None,
        }

    def _batch_results(self, bid: str) -> list[dict[str, Any]]:
        out = []
        for req in self._batches[bid]["requests"]:
            cid = req["custom_id"]
            with self._lock:
                mode = self.batch_failures.pop(cid, None)
            if mode == "expired":
                out.append({"custom_id": cid, "result": {"type": "expired"}})
                continue
            if mode in ("errored", "invalid"):
                et = "invalid_request_error" if mode == "invalid" else "overloaded_error"
                out.append(
                    {"custom_id": cid, "result": {"type": "errored", "error": {"type": "error", "error": {"type": et, "message": "scripted"}}}}
                )
                continue
            ans = self.responder(req["params"])
            if isinstance(ans, Fail):
                out.append(
                    {"custom_id": cid, "result": {"type": "errored", "error": {"type": "error", "error": {"type": ans.error_type, "message": ans.message}}}}
                )
                continue
            out.append({"custom_id": cid, "result": {"type": "succeeded", "message": self._message(req["params"], ans)}})
        return out

    @staticmethod
    def _json(status: int, obj: Any) -> tuple[int, dict[str, str], bytes]:
        return status, {"content-type": "application/json"}, json.dumps(obj).encode()

    @staticmethod
    def _error(f: Fail) -> tuple[int, dict[str, str], bytes]:
        body = {"type": "error", "error": {"type": f.error_type, "message": f.message}}
        return f.status, {"content-type": "application/json", **dict(f.headers)}, json.dumps(body).encode()

    # -- transports ----------------------------------------------------------------------------------
    def http_client(self) -> Any:
        """An ``httpx2.Client`` whose transport is this fake (no network)."""
        import httpx2

        def handler(request: httpx2.Request) -> httpx2.Response:
            try:
                status, headers, content = self.handle(
                    request.method, request.url.path, dict(request.headers), request.read()
                )
            except TimeoutError:
                raise httpx2.ReadTimeout("scripted timeout", request=request) from None
            return httpx2.Response(status, headers=headers, content=content)

        return httpx2.Client(transport=httpx2.MockTransport(handler))

    @contextlib.contextmanager
    def serve(self) -> Iterator[str]:
        """Serve this fake on ``http://127.0.0.1:<port>`` in a thread; yields the base URL."""
        fake = self

        class H(http.server.BaseHTTPRequestHandler):
            def _do(self) -> None:
                n = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(n) if n else b""
                try:
                    status, headers, content = fake.handle(self.command, self.path.split("?")[0], dict(self.headers), raw)
                except TimeoutError:
                    status, headers, content = 408, {"content-type": "application/json"}, b'{"type":"error","error":{"type":"timeout_error","message":"scripted"}}'
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            do_GET = do_POST = _do  # noqa: N815

            def log_message(self, *args: object) -> None:  # keep test output quiet
                return

        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        t = threading.Thread(target=srv.serve_forever, daemon=True)
        t.start()
        previous, self.base_url = self.base_url, f"http://127.0.0.1:{srv.server_address[1]}"
        try:
            yield self.base_url
        finally:
            self.base_url = previous
            srv.shutdown()
            srv.server_close()
