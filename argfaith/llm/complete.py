"""Cached "prompt → text" calls: the one code path every LLM feature of argfaith goes through.

A :class:`LLMRequest` is a Messages API request plus its cache key; :class:`LLMRunner` answers a
list of them, in order of preference: from the request cache (free), else through the Messages
API with bounded concurrency (threads), or through the Message Batches API (half price, resumable;
see :mod:`argfaith.llm.batches`). Every answer is stored in the cache the moment it arrives, so an
interrupted run loses nothing and a rerun sends only the missing requests. Nothing here knows about
arguments or debates: the relation classifier (mining) and an LLM alignment judge (metrics) both
build requests with :func:`build_request` and read :class:`Completion` objects.

What is an answer (docs/llm.md has the table per stop reason and error class):

* ``end_turn`` / ``stop_sequence`` (and anything else the API ends with) — final, cached;
* ``max_tokens`` — the answer (or the model's thinking) did not fit: it is cached as what the API
  returned for that budget, and the runner asks again with twice the budget (a new request with
  its own cache key), up to ``max_escalations`` times and the model's output limit; what is still
  truncated then is returned with ``truncated`` set and counted in ``usage.truncated``;
* ``refusal`` — the model declined: billed, returned with ``refused`` set (``ok`` is False),
  counted in ``usage.refusals`` and NOT cached, so a rerun asks again;
* HTTP errors after the SDK's retries — see :func:`argfaith.llm.errors.describe_api_error`.

Requests whose answers may take long (``max_tokens`` above ``stream_above_tokens``) are streamed,
so the read timeout bounds the gap between chunks, not the whole answer; a stream that breaks off
is sent again (at most ``stream_retries`` times; the broken answer was billed).
"""

from __future__ import annotations

import concurrent.futures as cf
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
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

#: Seconds between polls of a message batch, unless ``$ARGFAITH_BATCH_POLL_SECONDS`` says otherwise.
DEFAULT_POLL_INTERVAL = 30.0


def default_poll_interval() -> float:
    """``$ARGFAITH_BATCH_POLL_SECONDS`` if set to a positive number, else :data:`DEFAULT_POLL_INTERVAL`."""
    import os

    try:
        v = float(os.environ.get("ARGFAITH_BATCH_POLL_SECONDS", ""))
    except ValueError:
        return DEFAULT_POLL_INTERVAL
    return v if v > 0 else DEFAULT_POLL_INTERVAL


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
    elif card is not None and card.thinking == "between_tools":
        params["thinking"] = {"type": "between_tools"}
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
        Seconds between batch status polls (default :func:`default_poll_interval`).
    max_batch_size, max_batch_bytes
        Requests and serialized bytes per submitted batch (the API allows 100,000 and 256 MB;
        the byte default keeps a 10% margin for the SDK's serialization).
    max_poll_failures
        Consecutive failed polls (after the SDK's retries) of one batch before the run stops with
        a resumable error; also the number of attempts to read one batch's results.
    on_error
        ``"raise"``: after the run, raise :class:`LLMRequestError` if any request failed after the
        SDK's retries; ``"return"``: return failed completions with ``error`` set. Fatal errors
        (bad key, unknown model, invalid request) always raise at once.
    max_escalations
        How many times a ``max_tokens`` stop is asked again with twice the budget.
    stream_above_tokens
        Direct requests with a larger ``max_tokens`` are streamed.
    stream_retries
        How many times a stream that broke off is sent again.
    sleep
        Sleep function for batch polling and stream retries (tests pass a no-op).
    """

    model: str
    client: anthropic.Anthropic | None = None
    client_factory: Callable[[], anthropic.Anthropic] | None = None
    cache: RequestCache | None = None
    max_concurrency: int = 4
    use_batches: bool = False
    poll_interval: float = field(default_factory=default_poll_interval)
    max_batch_size: int = 10_000
    max_batch_bytes: int = 230_000_000
    max_poll_failures: int = 10
    on_error: Literal["raise", "return"] = "raise"
    max_escalations: int = 2
    stream_above_tokens: int = 4096
    stream_retries: int = 2
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

        A ``max_tokens`` stop is asked again with larger budgets (module docstring); the
        completion keeps the key of the request as given.

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
        out = self._answer(list(unique.values()), progress)
        current = dict(unique)
        for level in range(1, self.max_escalations + 1):
            todo: dict[str, LLMRequest] = {}
            for k, c in out.items():
                if c.truncated and c.error is None:
                    bigger = self._larger_budget(current[k])
                    if bigger is not None:
                        todo[k] = bigger
            if not todo:
                break
            got = self._answer(list(todo.values()), None)
            for k, r in todo.items():
                out[k] = replace(got[r.key], key=k, escalations=level)
                current[k] = r
        truncated = sum(1 for c in out.values() if c.truncated and c.error is None)
        if truncated:
            self.usage.add(truncated=truncated)
        failed = [c for c in out.values() if c.error is not None]
        if failed and self.on_error == "raise":
            sent = sum(1 for c in out.values() if c.route != "cache")
            finished = sent - len(failed)
            raise LLMRequestError(
                f"{len(failed)} of {sent} request(s) failed ({failed[-1].error}); "
                f"{finished} answered request(s) are cached, rerun to send only the missing ones",
                failed=len(failed),
                finished=finished,
            )
        return out

    def _larger_budget(self, req: LLMRequest) -> LLMRequest | None:
        """``req`` with twice the output budget, capped at the model's output limit (None: at the cap)."""
        card = price_for(req.model, strict=False)
        cap = card.max_output if card is not None else 4 * req.max_tokens
        if req.max_tokens >= cap:
            return None
        return req.with_max_tokens(min(cap, 2 * req.max_tokens))

    def _answer(self, requests: list[LLMRequest], progress: RequestProgress | None) -> dict[str, Completion]:
        """Completions of ``requests`` (unique keys): from the cache, else from the chosen route."""
        total = len(requests)
        out: dict[str, Completion] = {}
        done = 0
        cached = self.cache.get_many(r.key for r in requests) if self.cache is not None else {}
        for key, hit in cached.items():
            out[key] = Completion(key, hit.text, hit.stop_reason, hit.usage, route="cache")
            done += 1
            if progress:
                progress(done, total, key)
        if cached:
            self.usage.add(cache_hits=len(cached))
        pending = [r for r in requests if r.key not in out]
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

    def _create(self, client: anthropic.Anthropic, req: LLMRequest) -> object:
        """One Messages API call: streamed for long answers (retried if the stream breaks off)."""
        import anthropic as _anthropic
        import httpx2

        if req.max_tokens <= self.stream_above_tokens:
            return client.messages.create(**req.params)
        for attempt in range(self.stream_retries + 1):
            try:
                with client.messages.stream(**req.params) as stream:
                    return stream.get_final_message()
            except httpx2.HTTPError as e:  # raw transport error: the stream broke off mid-answer
                broken: BaseException = e
            except _anthropic.APIStatusError as e:
                if e.status_code != 200:  # an HTTP error before the stream began (SDK-retried)
                    raise
                broken = e  # an error event in the middle of the stream
            if attempt == self.stream_retries:
                raise _anthropic.APIConnectionError(
                    message=f"the answer stream broke off {attempt + 1} time(s) ({type(broken).__name__})",
                    request=httpx2.Request("POST", "https://api.anthropic.com/v1/messages"),
                ) from None
            self.sleep(min(8.0, 0.5 * 2**attempt))
        raise AssertionError("unreachable")  # pragma: no cover

    def _send(self, client: anthropic.Anthropic, req: LLMRequest) -> Completion:
        import anthropic as _anthropic

        try:
            msg = self._create(client, req)
        except (_anthropic.APIError, _anthropic.APIConnectionError) as e:
            what, is_fatal = describe_api_error(e)
            self.usage.add(errors=1)
            if is_fatal:
                raise LLMRequestError(what, fatal=True) from None
            return Completion(req.key, "", None, TokenCounts(), route="direct", error=what)
        counts = TokenCounts.from_api(getattr(msg, "usage", None))
        text = message_text(msg)
        stop_reason = getattr(msg, "stop_reason", None)
        self.usage.add_response(counts, batch=False)
        if stop_reason == "refusal":
            self.usage.add(refusals=1)  # billed, but not an answer: not cached, a rerun asks again
        elif self.cache is not None:
            self.cache.put(
                req.key,
                CachedResponse(text, req.model, req.template_version, stop_reason, counts, req.input_chars, "direct"),
            )
        return Completion(req.key, text, stop_reason, counts, route="direct")
