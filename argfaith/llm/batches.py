"""The Message Batches API route: submit, poll, collect — resumable, keyed by ``custom_id``.

Protocol (Anthropic Message Batches API: ``POST /v1/messages/batches``, ``GET .../{id}``,
``GET .../{id}/results`` as JSONL in any order, matched by ``custom_id``):

1. Requests already answered in the request cache are not sent.
2. Requests that belong to a batch submitted earlier and not yet collected (recorded in the cache
   file's ``batches`` / ``batch_requests`` tables) are not re-submitted: that batch is polled.
3. The rest are submitted in batches of at most ``max_batch_size`` requests; each batch id and its
   custom ids are committed to disk as soon as the API returns it.
4. Batches are polled every ``poll_interval`` seconds until ``processing_status == "ended"``; each
   succeeded result is stored in the request cache at once; errored / expired / canceled results
   are re-submitted in a new round (at most ``max_rounds`` rounds), except invalid requests.

The ``custom_id`` of a request is its cache key. A run killed at any point resumes without paying
twice; the only window for a duplicate submission is between the API accepting a batch and the
id reaching the disk (one HTTP response).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from argfaith.llm.cache import CachedResponse, RequestCache
from argfaith.llm.request import Completion, LLMRequest, message_text
from argfaith.llm.cost import TokenCounts
from argfaith.llm.errors import LLMRequestError, describe_api_error

if TYPE_CHECKING:  # pragma: no cover
    from argfaith.llm.complete import LLMRunner

__all__ = ["run_batches", "MAX_ROUNDS"]

#: Re-submission rounds for requests that errored or expired inside a batch.
MAX_ROUNDS = 3
# Errors inside a batch that will not go away by re-sending the same request.
_PERMANENT = {"invalid_request_error", "authentication_error", "permission_error", "not_found_error"}


def run_batches(runner: LLMRunner, pending: list[LLMRequest], *, on_done: Callable[[str], None]) -> dict[str, Completion]:
    """Answer ``pending`` (none of them cached) through the Message Batches API.

    Parameters
    ----------
    runner
        Supplies the client, the cache (required: it holds the batch state), the usage meter,
        ``poll_interval``, ``max_batch_size`` and ``sleep``.
    pending
        Requests to answer.
    on_done
        Called with the key of each answered (or finally failed) request.
    """
    import anthropic

    cache = runner.cache
    if cache is None:
        raise LLMRequestError("the Batches API route needs a request cache (it keeps the batch state)", fatal=True)
    by_key = {r.key: r for r in pending}
    out: dict[str, Completion] = {}
    client = runner.get_client(len(pending))
    last_error: dict[str, str] = {}

    for _round in range(MAX_ROUNDS):
        todo = [k for k in by_key if k not in out and k not in cache]
        if not todo:
            break
        # Resume: batches submitted by an earlier (interrupted) run that still hold some of ours.
        open_batches = cache.open_batches(todo)
        in_flight = {cid for ids in open_batches.values() for cid in ids}
        fresh = [k for k in todo if k not in in_flight]
        for i in range(0, len(fresh), runner.max_batch_size):
            chunk = fresh[i : i + runner.max_batch_size]
            try:
                batch = client.messages.batches.create(
                    requests=[{"custom_id": k, "params": dict(by_key[k].params)} for k in chunk]
                )
            except (anthropic.APIError, anthropic.APIConnectionError) as e:
                what, _ = describe_api_error(e)
                raise LLMRequestError(f"could not submit a message batch: {what}", failed=len(chunk), fatal=True) from None
            cache.record_batch(batch.id, runner.model, chunk)
            open_batches[batch.id] = list(chunk)
        for batch_id in open_batches:
            _wait_until_ended(runner, batch_id)
            _collect(runner, cache, batch_id, by_key, out, last_error, on_done)
            cache.set_batch_status(batch_id, "collected")

    for k in by_key:
        if k not in out:
            hit = cache.get(k)
            if hit is not None:  # answered by a concurrent run sharing the cache
                out[k] = Completion(k, hit.text, hit.stop_reason, hit.usage, route="cache")
            else:
                err = last_error.get(k, "no result returned for this request")
                out[k] = Completion(k, "", route="batch", error=f"batch request failed: {err}")
                runner.usage.add(errors=1)
                on_done(k)
    return out


def _wait_until_ended(runner: LLMRunner, batch_id: str) -> None:
    import anthropic

    client = runner.get_client()
    while True:
        try:
            b = client.messages.batches.retrieve(batch_id)
        except anthropic.NotFoundError:
            return  # gone (e.g. archived): its requests count as failed and are re-submitted
        except (anthropic.APIError, anthropic.APIConnectionError) as e:
            what, fatal = describe_api_error(e)
            if fatal:
                raise LLMRequestError(f"could not poll batch {batch_id}: {what}", fatal=True) from None
            runner.sleep(runner.poll_interval)
            continue
        if b.processing_status == "ended":
            return
        runner.sleep(runner.poll_interval)


def _collect(
    runner: LLMRunner,
    cache: RequestCache,
    batch_id: str,
    by_key: dict[str, LLMRequest],
    out: dict[str, Completion],
    last_error: dict[str, str],
    on_done: Callable[[str], None],
) -> None:
    import anthropic

    client = runner.get_client()
    try:
        results = client.messages.batches.results(batch_id)
        for item in results:
            key = item.custom_id
            req = by_key.get(key)
            result = item.result
            if result.type == "succeeded":
                msg = result.message
                counts = TokenCounts.from_api(msg.usage)
                text = message_text(msg)
                model = req.model if req is not None else runner.model
                tv = req.template_version if req is not None else "?"
                chars = req.input_chars if req is not None else 0
                cache.put(key, CachedResponse(text, model, tv, msg.stop_reason, counts, chars, "batch"))
                runner.usage.add_response(counts, batch=True)
                if req is not None and key not in out:
                    out[key] = Completion(key, text, msg.stop_reason, counts, route="batch")
                    on_done(key)
            elif req is not None and key not in out:
                err = _result_error(result)
                last_error[key] = err
                if err.split(":")[0] in _PERMANENT:
                    out[key] = Completion(key, "", route="batch", error=f"batch request failed: {err}")
                    runner.usage.add(errors=1)
                    on_done(key)
    except anthropic.NotFoundError:
        return
    except (anthropic.APIError, anthropic.APIConnectionError) as e:
        what, _ = describe_api_error(e)
        raise LLMRequestError(f"could not read the results of batch {batch_id}: {what}") from None


def _result_error(result: object) -> str:
    rtype = getattr(result, "type", "?")
    if rtype != "errored":
        return str(rtype)  # "expired" | "canceled"
    err = getattr(getattr(result, "error", None), "error", None)
    etype = getattr(err, "type", None) or "error"
    emsg = getattr(err, "message", None) or ""
    return f"{etype}: {emsg}"[:300]
