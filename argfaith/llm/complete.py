"""Cached "prompt → text" calls: the one code path every LLM feature of argfaith goes through.

A :class:`LLMRequest` is a Messages API request plus its cache key; :class:`LLMRunner` answers a
list of them, in order of preference: from the request cache (free), else through the Messages
API with bounded concurrency (threads), or through the Message Batches API (half price, resumable;
see :mod:`argfaith.llm.batches`). Every answer is stored in the cache the moment it arrives, so an
interrupted run loses nothing and a rerun sends only the missing requests. Nothing here knows about
arguments or debates: the relation classifier (mining) and an LLM alignment judge (metrics) both
build requests with :func:`build_request` and read :class:`Completion` objects.
"""

from __future__ import annotations

import concurrent.futures as cf
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from argfaith.llm.cache import CachedResponse, RequestCache, request_key
from argfaith.llm.cost import ModelPrice, TokenCounts, UsageMeter, price_for
from argfaith.llm.errors import LLMRequestError, MissingAPIKeyError, describe_api_error
from argfaith.llm.request import Completion, LLMRequest, message_text

if TYPE_CHECKING:  # pragma: no cover
    import anthropic

__all__ = [
    "LLMRequest",
    "Completion",
    "LLMRunner",
    "build_request",
    "message_text",
    "RequestProgress",
]

#: Called after each answered request: (requests done, requests total, the request's key).
RequestProgress = Callable[[int, int, str], None]


def build_request(
    *,
    model: str,
    system: str | None,
    user: str | Sequence[Mapping[str, Any]],
    max_tokens: int,
    template_version: str,
    inputs: Mapping[str, Any],
    price: ModelPrice | None = None,
    extra_params: Mapping[str, Any] | None = None,
) -> LLMRequest:
    """A request with its cache key; thinking is switched off where the model allows it.

    Parameters
    ----------
    model
        Model id.
    system
        System prompt (None: none).
    user
        The single user turn: a string, or a list of content blocks (``{"type": "text", "text":
        ..., "cache_control": ...}``) when parts of the prompt should be prompt-cached.
    max_tokens
        Output budget (thinking headroom is added for models that cannot switch thinking off).
    template_version
        Version of the prompt template; part of the cache key.
    inputs
        The template's inputs; part of the cache key (the rendered prompt is not).
    price
        The model's card (default: looked up; unknown models get no thinking parameter).
    extra_params
        More ``messages.create`` parameters; part of the cache key.
    """
    card = price if price is not None else price_for(model, strict=False)
    params: dict[str, Any] = {"model": model, "max_tokens": int(max_tokens)}
    if system:
        params["system"] = system
    if isinstance(user, str):
        params["messages"] = [{"role": "user", "content": user}]
        chars = len(user)
    else:
        blocks = [dict(b) for b in user]
        params["messages"] = [{"role": "user", "content": blocks}]
        chars = sum(len(b.get("text", "")) for b in blocks)
    if card is not None and card.thinking == "disable":
        params["thinking"] = {"type": "disabled"}
    elif card is not None and card.thinking == "always-on":
        params["max_tokens"] = int(max_tokens) + card.thinking_headroom
    if extra_params:
        params.update(extra_params)
    settings = {k: v for k, v in params.items() if k not in ("model", "system", "messages")}
    key = request_key(model=model, template_version=template_version, inputs=inputs, settings=settings)
    return LLMRequest(key, params, template_version, chars + len(system or ""))


@dataclass
class LLMRunner:
    """Answers :class:`LLMRequest` lists through the cache, the Messages API or the Batches API.

    Parameters
    ----------
    model
        The model all requests use (for usage accounting).
    client
        An ``anthropic.Anthropic`` client; default: built lazily by :func:`argfaith.llm.client.make_client`
        the first time a request is not in the cache (so a fully cached rerun needs no key).
    client_factory
        Builds the client when ``client`` is None.
    cache
        The request cache (None: no persistence — not recommended).
    max_concurrency
        Parallel requests on the direct route.
    use_batches
        Send uncached requests through the Message Batches API instead (50% cheaper, slower).
    poll_interval
        Seconds between batch status polls.
    on_error
        ``"raise"``: after the run, raise :class:`LLMRequestError` if any request failed after the
        SDK's retries; ``"return"``: return failed completions with ``error`` set. Fatal errors
        (bad key, unknown model, invalid request) always raise at once.
    sleep
        Sleep function for batch polling (tests pass a no-op).
    """

    model: str
    client: anthropic.Anthropic | None = None
    client_factory: Callable[[], anthropic.Anthropic] | None = None
    cache: RequestCache | None = None
    max_concurrency: int = 4
    use_batches: bool = False
    poll_interval: float = 30.0
    max_batch_size: int = 10_000
    on_error: Literal["raise", "return"] = "raise"
    sleep: Callable[[float], None] = time.sleep
    usage: UsageMeter = field(init=False)
    _client_lock: threading.Lock = field(init=False, default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if self.max_concurrency < 1:
            raise ValueError("max_concurrency must be >= 1")
        self.usage = UsageMeter(self.model)

    # -- client ---------------------------------------------------------------------------------
    def get_client(self, pending: int = 1) -> anthropic.Anthropic:
        """The client, built on first use; a missing key names how many requests needed it."""
        with self._client_lock:
            if self.client is None:
                factory = self.client_factory
                if factory is None:
                    from argfaith.llm.client import make_client

                    factory = make_client
                try:
                    self.client = factory()
                except MissingAPIKeyError as e:
                    raise MissingAPIKeyError(f"{e} ({pending} request(s) are not in the cache)") from None
            return self.client

    # -- public API -----------------------------------------------------------------------------
    def complete(self, request: LLMRequest) -> Completion:
        """Answer one request (cache first)."""
        return self.run([request])[request.key]

    def run(self, requests: Sequence[LLMRequest], *, progress: RequestProgress | None = None) -> dict[str, Completion]:
        """Answer every request; returns key → completion (duplicates answered once).

        Raises
        ------
        MissingAPIKeyError
            Some requests are not cached and no key is set.
        LLMRequestError
            A fatal API error, or (``on_error="raise"``) requests that failed after retries.
        """
        unique: dict[str, LLMRequest] = {}
        for r in requests:
            unique.setdefault(r.key, r)
        total = len(unique)
        out: dict[str, Completion] = {}
        done = 0
        cached = self.cache.get_many(unique) if self.cache is not None else {}
        for key, hit in cached.items():
            out[key] = Completion(key, hit.text, hit.stop_reason, hit.usage, route="cache")
            done += 1
            if progress:
                progress(done, total, key)
        if cached:
            self.usage.add(cache_hits=len(cached))
        pending = [r for k, r in unique.items() if k not in out]
        if not pending:
            return out

        def tick(key: str) -> None:
            nonlocal done
            done += 1
            if progress:
                progress(done, total, key)

        if self.use_batches:
            from argfaith.llm.batches import run_batches

            got = run_batches(self, pending, on_done=tick)
        else:
            got = self._run_direct(pending, on_done=tick)
        out.update(got)
        failed = [c for c in got.values() if not c.ok]
        if failed and self.on_error == "raise":
            finished = len(got) - len(failed)
            raise LLMRequestError(
                f"{len(failed)} of {len(pending)} request(s) failed ({failed[-1].error}); "
                f"{finished} answered request(s) are cached, rerun to send only the missing ones",
                failed=len(failed),
                finished=finished,
            )
        return out

    # -- direct route ---------------------------------------------------------------------------
    def _run_direct(self, pending: list[LLMRequest], *, on_done: Callable[[str], None]) -> dict[str, Completion]:
        client = self.get_client(len(pending))
        out: dict[str, Completion] = {}
        lock = threading.Lock()
        stop = threading.Event()
        fatal: list[LLMRequestError] = []

        def one(req: LLMRequest) -> None:
            if stop.is_set():
                return
            comp = self._send(client, req)
            with lock:
                out[req.key] = comp
            on_done(req.key)

        def guarded(req: LLMRequest) -> None:
            try:
                one(req)
            except LLMRequestError as e:
                stop.set()
                with lock:
                    fatal.append(e)

        if self.max_concurrency == 1:
            for r in pending:  # keep submission order exactly (prompt-cache friendly, simpler traces)
                guarded(r)
                if fatal:
                    break
        else:
            ex = cf.ThreadPoolExecutor(max_workers=self.max_concurrency, thread_name_prefix="argfaith-llm")
            try:
                futures = [ex.submit(guarded, r) for r in pending]
                for f in cf.as_completed(futures):
                    f.result()
            except BaseException:
                # Ctrl-C or a bug: send nothing more and return at once; the (at most
                # max_concurrency) requests in flight still finish and are cached before exit.
                stop.set()
                ex.shutdown(wait=False, cancel_futures=True)
                raise
            ex.shutdown(wait=True)
        if fatal:
            e = fatal[0]
            e.finished = sum(1 for c in out.values() if c.ok)
            raise e
        return out

    def _send(self, client: anthropic.Anthropic, req: LLMRequest) -> Completion:
        import anthropic as _anthropic

        try:
            msg = client.messages.create(**req.params)
        except (_anthropic.APIError, _anthropic.APIConnectionError) as e:
            what, is_fatal = describe_api_error(e)
            self.usage.add(errors=1)
            if is_fatal:
                raise LLMRequestError(what, fatal=True) from None
            return Completion(req.key, "", None, TokenCounts(), route="direct", error=what)
        counts = TokenCounts.from_api(getattr(msg, "usage", None))
        text = message_text(msg)
        stop_reason = getattr(msg, "stop_reason", None)
        if self.cache is not None:
            self.cache.put(
                req.key,
                CachedResponse(text, req.model, req.template_version, stop_reason, counts, req.input_chars, "direct"),
            )
        self.usage.add_response(counts, batch=False)
        return Completion(req.key, text, stop_reason, counts, route="direct")
