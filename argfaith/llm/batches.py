"""The Message Batches API route: submit, poll, collect — resumable, keyed by ``custom_id``,
never paying twice for a request.

Protocol (Anthropic Message Batches API: ``POST /v1/messages/batches``, ``GET .../{id}``,
``GET .../{id}/results`` as JSONL in any order, matched by ``custom_id``; ``GET /v1/messages/batches``
lists batches newest first):

1. Requests already answered in the request cache are not sent.
2. Requests that belong to a batch submitted earlier and not yet collected (recorded in the cache
   file) are not re-submitted: that batch is polled. A *submission intent* left by an earlier run
   that died (or lost the response) between sending a batch and recording its id is matched
   against the API's batch list (same request count, created after the intent) and adopted.
3. The rest are submitted in batches of at most ``max_batch_size`` requests and
   ``max_batch_bytes`` serialized bytes. Creation is NOT retried by the SDK (the API has no
   idempotency key): a 429 / 529 (nothing was created) is retried after the advised delay; a
   timeout, dropped connection or other 5xx (the batch may exist) is first looked up in the batch
   list, then retried only if absent; a 413 halves the batch; anything else is fatal.
4. Batches are polled every ``poll_interval`` seconds until ``ended`` (``max_poll_failures``
   consecutive failed polls end the run with a resumable error); each succeeded result is stored
   at once (a result stored by an earlier collection is not counted again); results whose stream
   breaks off are read again. A batch whose results are gone (deleted, archived, ``results_url``
   null) has its unanswered requests re-submitted.
5. ``errored`` (transient), ``expired`` and ``canceled`` results are re-submitted in a new round
   (at most :data:`MAX_ROUNDS`); invalid, too-large, billing, permission and authentication errors
   are final.

The ``custom_id`` of a request is its cache key (64 hex characters, valid for the API's
``^[a-zA-Z0-9_-]{1,64}$``).
"""

from __future__ import annotations

import datetime as dt
import json
import time
import uuid
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from argfaith.llm.cache import CachedResponse, RequestCache
from argfaith.llm.request import Completion, LLMRequest, message_text
from argfaith.llm.cost import TokenCounts
from argfaith.llm.errors import LLMRequestError, describe_api_error

if TYPE_CHECKING:  # pragma: no cover
    from argfaith.llm.complete import LLMRunner

__all__ = ["run_batches", "MAX_ROUNDS", "PERMANENT_ERRORS", "CREATE_ATTEMPTS", "RECONCILE_SKEW"]

#: Submission rounds (re-submitting errored / expired / canceled / lost requests).
MAX_ROUNDS = 3
#: Errors inside a batch that will not go away by re-sending the same request.
PERMANENT_ERRORS = frozenset(
    {"invalid_request_error", "authentication_error", "permission_error", "not_found_error", "request_too_large", "billing_error"}
)
#: Attempts to create one batch (after a definite rejection or an ambiguous failure).
CREATE_ATTEMPTS = 5
#: Seconds of clock difference allowed when matching a batch in the API's list to an intent.
RECONCILE_SKEW = 600.0
_LIST_LIMIT = 100


def run_batches(runner: LLMRunner, pending: list[LLMRequest], *, on_done: Callable[[str], None]) -> dict[str, Completion]:
    """Answer ``pending`` (none of them cached) through the Message Batches API.

    Parameters
    ----------
    runner
        Supplies the client, the cache (required: it holds the batch state), the usage meter,
        ``poll_interval``, ``max_batch_size``, ``max_batch_bytes``, ``max_poll_failures`` and ``sleep``.
    pending
        Requests to answer.
    on_done
        Called with the key of each answered (or finally failed) request.
    """
    cache = runner.cache
    if cache is None:
        raise LLMRequestError("the Batches API route needs a request cache (it keeps the batch state)", fatal=True)
    by_key = {r.key: r for r in pending}
    out: dict[str, Completion] = {}
    client = runner.get_client(len(pending))
    last_error: dict[str, str] = {}
    _reconcile_intents(runner, cache, client)

    def fail(key: str, err: str) -> None:
        out[key] = Completion(key, "", route="batch", error=f"batch request failed: {err}")
        runner.usage.add(errors=1)
        on_done(key)

    for _round in range(MAX_ROUNDS):
        todo = [k for k in by_key if k not in out and k not in cache]
        if not todo:
            break
        open_batches = cache.open_batches(todo)
        in_flight = {cid for ids in open_batches.values() for cid in ids}
        fresh = [k for k in todo if k not in in_flight]
        for chunk in _chunks(fresh, by_key, runner.max_batch_size, runner.max_batch_bytes):
            for batch_id, ids in _submit(runner, cache, client, chunk, by_key, fail):
                open_batches[batch_id] = ids
        for batch_id in open_batches:
            state = _wait_until_ended(runner, batch_id)
            if state == "ended":
                state = _collect(runner, cache, batch_id, by_key, out, last_error, on_done, fail)
            if state == "gone":
                for k in cache.batch_custom_ids(batch_id):
                    last_error.setdefault(k, f"the results of batch {batch_id} are no longer available")
            cache.set_batch_status(batch_id, "collected" if state == "collected" else "lost")

    for k in by_key:
        if k not in out:
            hit = cache.get(k)
            if hit is not None:  # answered by a concurrent run sharing the cache
                out[k] = Completion(k, hit.text, hit.stop_reason, hit.usage, route="cache")
            else:
                fail(k, last_error.get(k, "no result returned for this request"))
    return out


# -- submission ------------------------------------------------------------------------------------
def _entry_bytes(key: str, req: LLMRequest) -> int:
    # json.dumps defaults (", " / ": " separators, ASCII escapes) over-estimate the SDK's body.
    return len(json.dumps({"custom_id": key, "params": dict(req.params)}).encode()) + 2


def _chunks(keys: list[str], by_key: dict[str, LLMRequest], max_n: int, max_bytes: int) -> Iterator[list[str]]:
    """Consecutive runs of ``keys`` with at most ``max_n`` requests and ``max_bytes`` bytes each."""
    chunk: list[str] = []
    size = 32  # {"requests": [...]}
    for k in keys:
        b = _entry_bytes(k, by_key[k])
        if chunk and (len(chunk) >= max_n or size + b > max_bytes):
            yield chunk
            chunk, size = [], 32
        chunk.append(k)
        size += b
    if chunk:
        yield chunk


def _classify(exc: BaseException) -> str:
    """``too_large`` | ``rejected`` (nothing created, retry later) | ``unknown`` (may exist) | ``fatal``."""
    import anthropic

    if isinstance(exc, (anthropic.APITimeoutError, anthropic.APIConnectionError)):
        return "unknown"
    if isinstance(exc, anthropic.APIStatusError):
        etype = _error_type(exc)
        if exc.status_code == 413 or etype == "request_too_large":
            return "too_large"
        if exc.status_code in (429, 529) or etype in ("rate_limit_error", "overloaded_error"):
            return "rejected"
        if exc.status_code >= 500 or exc.status_code in (408, 409):
            return "unknown"
    return "fatal"


def _error_type(exc: Any) -> str | None:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("type"):
            return str(err["type"])
    return None


def _retry_after(exc: Any) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    for h, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        v = headers.get(h)
        if v:
            try:
                return max(0.0, float(v) * scale)
            except ValueError:
                return None
    return None


def _submit(
    runner: LLMRunner,
    cache: RequestCache,
    client: Any,
    chunk: list[str],
    by_key: dict[str, LLMRequest],
    fail: Callable[[str, str], None],
) -> Iterator[tuple[str, list[str]]]:
    """Create batches for ``chunk`` (halving it on a 413); yields (batch id, custom ids)."""
    creator = client.with_options(max_retries=0)  # no blind retries: a retry could pay twice
    stack = [chunk]
    while stack:
        part = stack.pop()
        intent = uuid.uuid4().hex
        since = time.time()
        cache.record_intent(intent, runner.model, part, since)
        for attempt in range(1, CREATE_ATTEMPTS + 1):
            try:
                batch = creator.messages.batches.create(
                    requests=[{"custom_id": k, "params": dict(by_key[k].params)} for k in part]
                )
            except Exception as e:  # noqa: BLE001 - classified below, re-raised when not an API error
                kind = _classify(e)
                what, _ = describe_api_error(e)
                if kind == "too_large":
                    cache.drop_intent(intent)
                    if len(part) == 1:
                        fail(part[0], f"request_too_large: the request alone exceeds the batch size limit ({what})")
                    else:
                        stack += [part[len(part) // 2 :], part[: len(part) // 2]]
                    break
                if kind == "fatal":
                    cache.drop_intent(intent)
                    raise LLMRequestError(f"could not submit a message batch: {what}", failed=len(part), fatal=True) from None
                if kind == "unknown":
                    found = _find_submitted(runner, client, len(part), since)
                    if found is not None:
                        cache.record_batch(found, runner.model, part, intent_id=intent)
                        yield found, part
                        break
                if attempt == CREATE_ATTEMPTS:
                    if kind == "rejected":
                        cache.drop_intent(intent)
                    raise LLMRequestError(
                        f"could not submit a message batch of {len(part)} request(s) after {attempt} attempts ({what}); "
                        "rerun to resume (a batch that was in fact created is found and used, not paid twice)",
                        failed=len(part),
                    ) from None
                delay = _retry_after(e) if kind == "rejected" else None
                runner.sleep(delay if delay is not None else min(60.0, runner.poll_interval * attempt))
                continue
            cache.record_batch(batch.id, runner.model, part, intent_id=intent)
            yield batch.id, part
            break


def _created_at(b: Any) -> float | None:
    c = getattr(b, "created_at", None)
    if isinstance(c, dt.datetime):
        return c.timestamp()
    if isinstance(c, str):
        try:
            return dt.datetime.fromisoformat(c.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def _find_submitted(runner: LLMRunner, client: Any, n: int, since: float, *, attempts: int = 3) -> str | None:
    """The id of a batch of ``n`` requests created since ``since`` that this cache does not know
    (the batch of a lost creation response), or None. The list is read ``attempts`` times,
    ``poll_interval`` apart, as a new batch may take a moment to be listed."""
    import anthropic

    cache = runner.cache
    known = cache.known_batch_ids() if cache is not None else set()
    for attempt in range(attempts):
        try:
            for b in client.messages.batches.list(limit=_LIST_LIMIT):
                created = _created_at(b)
                if created is None or created < since - RECONCILE_SKEW:
                    break  # newest first: everything further is older
                counts = getattr(b, "request_counts", None)
                total = sum(int(getattr(counts, f, 0) or 0) for f in ("processing", "succeeded", "errored", "canceled", "expired"))
                if total == n and b.id not in known:
                    return str(b.id)
        except (anthropic.APIError, anthropic.APIConnectionError):
            pass
        if attempt + 1 < attempts:
            runner.sleep(runner.poll_interval)
    return None


def _reconcile_intents(runner: LLMRunner, cache: RequestCache, client: Any) -> None:
    """Adopt the batches of submission intents an earlier run left behind (or forget them)."""
    for intent, _model, ids, since in cache.open_intents():
        found = _find_submitted(runner, client, len(ids), since, attempts=1)
        if found is not None:
            cache.record_batch(found, runner.model, ids, intent_id=intent)
        else:
            cache.drop_intent(intent)


# -- polling and collection ----------------------------------------------------------------------------
def _wait_until_ended(runner: LLMRunner, batch_id: str) -> str:
    """``"ended"`` or ``"gone"`` (deleted, archived, or ended without results)."""
    import anthropic

    client = runner.get_client()
    failures = 0
    while True:
        try:
            b = client.messages.batches.retrieve(batch_id)
        except anthropic.NotFoundError:
            return "gone"
        except (anthropic.APIError, anthropic.APIConnectionError) as e:
            what, fatal = describe_api_error(e)
            if fatal:
                raise LLMRequestError(f"could not poll batch {batch_id}: {what}", fatal=True) from None
            failures += 1
            if failures >= runner.max_poll_failures:
                raise LLMRequestError(
                    f"could not poll batch {batch_id} ({what}; {failures} times in a row); the batch is recorded "
                    "in the request cache: rerun to resume without submitting it again"
                ) from None
            runner.sleep(runner.poll_interval)
            continue
        failures = 0
        if b.processing_status == "ended":
            if getattr(b, "archived_at", None) is not None or not getattr(b, "results_url", None):
                return "gone"
            return "ended"
        runner.sleep(runner.poll_interval)


def _collect(
    runner: LLMRunner,
    cache: RequestCache,
    batch_id: str,
    by_key: dict[str, LLMRequest],
    out: dict[str, Completion],
    last_error: dict[str, str],
    on_done: Callable[[str], None],
    fail: Callable[[str, str], None],
) -> str:
    """Read a batch's results into the cache: ``"collected"`` or ``"gone"``."""
    import anthropic
    import httpx2

    client = runner.get_client()
    ours = cache.batch_custom_ids(batch_id)
    for attempt in range(1, runner.max_poll_failures + 1):
        try:
            for item in client.messages.batches.results(batch_id):
                _store(runner, cache, item, by_key, ours, out, last_error, on_done, fail)
            return "collected"
        except anthropic.NotFoundError:
            return "gone"
        except (httpx2.HTTPError, anthropic.APIConnectionError, anthropic.APIStatusError) as e:
            what = describe_api_error(e)[0] if isinstance(e, anthropic.APIError) else f"connection lost ({type(e).__name__})"
            if isinstance(e, anthropic.APIStatusError) and describe_api_error(e)[1]:
                raise LLMRequestError(f"could not read the results of batch {batch_id}: {what}", fatal=True) from None
        except anthropic.AnthropicError:
            return "gone"  # the SDK found no results_url
        if attempt == runner.max_poll_failures:
            raise LLMRequestError(
                f"could not read the results of batch {batch_id} ({what}); the results read so far are cached: "
                "rerun to collect the rest"
            )
        runner.sleep(runner.poll_interval)
    return "collected"  # pragma: no cover


def _store(
    runner: LLMRunner,
    cache: RequestCache,
    item: Any,
    by_key: dict[str, LLMRequest],
    ours: set[str],
    out: dict[str, Completion],
    last_error: dict[str, str],
    on_done: Callable[[str], None],
    fail: Callable[[str, str], None],
) -> None:
    key = item.custom_id
    req = by_key.get(key)
    if req is None and key not in ours:
        return  # not a request of ours (a batch adopted by mistake answers nothing else)
    result = item.result
    if result.type == "succeeded":
        msg = result.message
        counts = TokenCounts.from_api(msg.usage)
        text = message_text(msg)
        if msg.stop_reason == "refusal":
            if req is not None and key not in out:  # billed, not an answer: not cached
                runner.usage.add_response(counts, batch=True)
                runner.usage.add(refusals=1)
                out[key] = Completion(key, text, msg.stop_reason, counts, route="batch")
                on_done(key)
            return
        model = req.model if req is not None else runner.model
        tv = req.template_version if req is not None else "?"
        chars = req.input_chars if req is not None else 0
        if cache.put(key, CachedResponse(text, model, tv, msg.stop_reason, counts, chars, "batch")):
            runner.usage.add_response(counts, batch=True)  # counted once, however often collected
        if req is not None and key not in out:
            out[key] = Completion(key, text, msg.stop_reason, counts, route="batch")
            on_done(key)
    elif req is not None and key not in out:
        err = _result_error(result)
        last_error[key] = err
        if err.split(":")[0] in PERMANENT_ERRORS:
            fail(key, err)


def _result_error(result: object) -> str:
    rtype = getattr(result, "type", "?")
    if rtype != "errored":
        return str(rtype)  # "expired" | "canceled"
    err = getattr(getattr(result, "error", None), "error", None)
    etype = getattr(err, "type", None) or "error"
    emsg = getattr(err, "message", None) or ""
    return f"{etype}: {emsg}"[:300]
