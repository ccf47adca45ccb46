"""Transports for the fake API: in process (an ``httpx2.MockTransport``) or a local HTTP server.

Both turn a :class:`~argfaith.llm.testing.fake.FakeResponse` into what a client would see on the
wire: a response; a dropped connection before any response (``lost`` — the SDK sees a connection
error); a body cut after some chunks (``cut_after`` — the reader sees an incomplete body); or no
answer in time (``timeout`` — a read timeout in process, an HTTP 408 from the server, which the SDK
retries alike).
"""

from __future__ import annotations

import contextlib
import http.server
import socket
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from argfaith.llm.testing.fake import FakeAnthropicAPI

__all__ = ["mock_http_client", "serve"]


def mock_http_client(api: FakeAnthropicAPI) -> Any:
    """An ``httpx2.Client`` whose transport is ``api`` (no network)."""
    import httpx2

    def handler(request: httpx2.Request) -> httpx2.Response:
        query = request.url.query.decode() if isinstance(request.url.query, bytes) else str(request.url.query)
        r = api.handle(request.method, request.url.path, dict(request.headers), request.read(), query)
        if r.timeout:
            raise httpx2.ReadTimeout("scripted timeout", request=request)
        if r.lost:
            raise httpx2.RemoteProtocolError("Server disconnected without sending a response.", request=request)
        if r.cut_after is not None:
            chunks, cut = list(r.chunks), r.cut_after

            def body() -> Iterator[bytes]:
                yield from chunks[:cut]
                raise httpx2.RemoteProtocolError("peer closed connection without sending complete message body (incomplete chunked read)")

            return httpx2.Response(r.status, headers=r.headers, content=body())
        return httpx2.Response(r.status, headers=r.headers, content=r.body)

    return httpx2.Client(transport=httpx2.MockTransport(handler))


@contextlib.contextmanager
def serve(api: FakeAnthropicAPI) -> Iterator[str]:
    """Serve ``api`` on ``http://127.0.0.1:<port>`` in a thread; yields the base URL (for
    ``ANTHROPIC_BASE_URL`` in a subprocess)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def _do(self) -> None:
            n = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(n) if n else b""
            path, _, query = self.path.partition("?")
            r = api.handle(self.command, path, dict(self.headers), raw, query)
            if r.lost:
                self.close_connection = True
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)
                return
            if r.timeout:
                r.status, r.headers = 408, {**r.headers, "content-type": "application/json"}
                r.chunks = [b'{"type":"error","error":{"type":"timeout_error","message":"scripted"}}']
            body = r.body
            self.send_response(r.status)
            for k, v in r.headers.items():
                self.send_header(k, v)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            chunks = r.chunks if r.cut_after is None else r.chunks[: r.cut_after]
            for c in chunks:
                self.wfile.write(c)
                self.wfile.flush()
            if r.cut_after is not None:
                self.close_connection = True
                with contextlib.suppress(OSError):
                    self.connection.shutdown(socket.SHUT_RDWR)

        do_GET = do_POST = do_DELETE = _do  # noqa: N815

        def log_message(self, *args: object) -> None:  # keep test output quiet
            return

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    previous, api.base_url = api.base_url, f"http://127.0.0.1:{srv.server_address[1]}"
    try:
        yield api.base_url
    finally:
        api.base_url = previous
        srv.shutdown()
        srv.server_close()
