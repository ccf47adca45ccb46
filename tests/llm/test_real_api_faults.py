"""Issue 16: what a first real run would meet, one test per item, against the strict fake API.

1 refusals / truncation are not final answers; 2 a lost batch-creation response submits no second
batch; 3 batches are split by bytes (and on a 413); 4 result-stream disconnects, vanished results,
persistent poll errors and permanent batch errors; 5 key redaction on child loggers; 6 long answers
are streamed; 7 corrected model cards; 8 the usage meter counts each result once.
"""

from __future__ import annotations

import logging

import pytest

from argfaith.llm import LLMRequestError, LLMRunner, RequestCache, build_request
from argfaith.llm.client import make_client
from argfaith.llm.cost import PRICES
from argfaith.llm.testing import Fail, FakeAnthropicAPI, Reply, user_text
from tests.llm.helpers import FAKE_KEY


def req(i: int, model: str = "claude-haiku-4-5", *, max_tokens: int = 16, text: str | None = None):
    return build_request(model=model, system="sys", user=text or f"q{i}", max_tokens=max_tokens, template_version="t1", inputs={"i": i, "t": text})


def runner(api: FakeAnthropicAPI, cache, *, batch: bool = False, model: str = "claude-haiku-4-5", **kw) -> LLMRunner:
    kw.setdefault("max_concurrency", 1)
    return LLMRunner(model, client_factory=lambda: make_client(http_client=api.http_client()), cache=cache,
                     use_batches=batch, poll_interval=1.0, sleep=kw.pop("sleep", lambda s: None), **kw)


def answer(body) -> str:
    return "ok " + user_text(body)[:12]


# -- 1. refusals and max_tokens stops --------------------------------------------------------------------
@pytest.mark.parametrize("batch", [False, True])
def test_refusals_are_not_cached_and_a_rerun_asks_again(api_key, tmp_path, batch):
    refuse = {"q1"}
    api = FakeAnthropicAPI(lambda b: Reply(refusal=True) if user_text(b) in refuse else answer(b))
    cache = RequestCache(tmp_path / "c.sqlite")
    out = runner(api, cache, batch=batch).run([req(0), req(1)])
    c = out[req(1).key]
    assert c.refused and not c.ok and c.stop_reason == "refusal"
    assert out[req(0).key].ok and len(cache) == 1 and req(1).key not in cache
    refuse.clear()
    r2 = runner(api, cache, batch=batch)
    again = r2.run([req(0), req(1)])
    assert again[req(1).key].text == "ok q1" and again[req(0).key].route == "cache"
    assert r2.usage.snapshot().requests == 1


def test_a_refusal_stored_by_an_older_version_is_asked_again(api_key, tmp_path):
    from argfaith.llm.cache import CachedResponse

    cache = RequestCache(tmp_path / "c.sqlite")
    cache.put(req(1).key, CachedResponse("", "claude-haiku-4-5", "t1", "refusal"))
    api = FakeAnthropicAPI(answer)
    assert runner(api, cache).run([req(1)])[req(1).key].text == "ok q1"


@pytest.mark.parametrize("batch", [False, True])
def test_thinking_that_eats_the_headroom_is_escalated_not_cached_as_final(api_key, tmp_path, batch):
    # Opus 5.5 always thinks; 3,000 thinking tokens exceed the 2,048 headroom + 16.
    api = FakeAnthropicAPI(answer, thinking_tokens=3000)
    cache = RequestCache(tmp_path / "c.sqlite")
    r = runner(api, cache, batch=batch, model="claude-opus-5-5")
    c = r.run([req(1, "claude-opus-5-5")])[req(1, "claude-opus-5-5").key]
    assert c.text == "ok q1" and c.stop_reason == "end_turn" and not c.truncated
    sent = [x.body["max_tokens"] for x in api.message_calls()] or [
        x["params"]["max_tokens"] for cr in api.batch_creates() for x in cr.body["requests"]]
    assert sent == [2064, 4128]
    # A rerun is free: both answers (the truncated one and its escalation) are in the cache.
    before = api.paid_count()
    again = runner(api, cache, batch=batch, model="claude-opus-5-5").run([req(1, "claude-opus-5-5")])
    assert again[req(1, "claude-opus-5-5").key].text == "ok q1" and api.paid_count() == before


def test_an_answer_still_truncated_at_the_cap_is_returned_flagged(api_key, tmp_path):
    api = FakeAnthropicAPI(lambda b: "x" * 100_000)
    r = runner(api, RequestCache(tmp_path / "c.sqlite"), max_escalations=1)
    c = r.run([req(1)])[req(1).key]
    assert c.truncated and c.ok and len(c.text) == 32 * 4  # 16 → 32 tokens, then given up
    assert r.usage.snapshot().truncated == 1


# -- 2. a lost response to batch creation --------------------------------------------------------------------
def test_lost_batch_creation_response_does_not_submit_a_second_batch(api_key, tmp_path):
    api = FakeAnthropicAPI(answer)
    api.batch_create_failures = [Fail(lost=True)]
    out = runner(api, RequestCache(tmp_path / "c.sqlite"), batch=True).run([req(i) for i in range(5)])
    assert all(c.ok for c in out.values())
    assert api.batches_created() == 1 and api.repaid_count() == 0 and api.paid_count() == 5


def test_crash_between_submission_and_record_resumes_without_resubmitting(api_key, tmp_path):
    api = FakeAnthropicAPI(answer)
    cache = RequestCache(tmp_path / "c.sqlite")

    def killed(*a, **k):
        raise KeyboardInterrupt  # the process dies right after the API accepted the batch

    with pytest.MonkeyPatch.context() as mp, pytest.raises(KeyboardInterrupt):
        mp.setattr(RequestCache, "record_batch", killed)
        runner(api, cache, batch=True).run([req(i) for i in range(4)])
    out = runner(api, RequestCache(tmp_path / "c.sqlite"), batch=True).run([req(i) for i in range(4)])
    assert all(c.ok for c in out.values()) and api.batches_created() == 1 and api.repaid_count() == 0


def test_overloaded_batch_creation_is_retried_and_definite_rejections_are_not(api_key, tmp_path, sleeps):
    api = FakeAnthropicAPI(answer)
    api.batch_create_failures = [Fail(529), Fail(429, "rate_limit_error", headers={"retry-after": "4"})]
    out = runner(api, RequestCache(tmp_path / "c.sqlite"), batch=True).run([req(1)])
    assert out[req(1).key].ok and api.batches_created() == 1 and len(api.batch_creates()) == 3
    api.batch_create_failures = [Fail(401, "authentication_error", "bad key")]
    with pytest.raises(LLMRequestError, match="API key") as ei:
        runner(api, RequestCache(tmp_path / "d.sqlite"), batch=True).run([req(2)])
    assert ei.value.fatal and FAKE_KEY not in str(ei.value)


# -- 3. batch size in bytes ------------------------------------------------------------------------------------
def test_batches_are_split_by_bytes_as_well_as_by_count(api_key, tmp_path):
    api = FakeAnthropicAPI(answer, max_batch_bytes=6_000)
    reqs = [req(i, text=f"{i} " + "w" * 1_000) for i in range(12)]
    out = runner(api, RequestCache(tmp_path / "c.sqlite"), batch=True, max_batch_bytes=5_000).run(reqs)
    assert all(c.ok for c in out.values())
    sizes = [len(__import__("json").dumps(c.body)) for c in api.batch_creates()]
    assert len(sizes) >= 3 and max(sizes) <= 6_000 and api.repaid_count() == 0


def test_a_413_from_the_api_halves_the_batch_instead_of_failing(api_key, tmp_path):
    api = FakeAnthropicAPI(answer, max_batch_bytes=6_000)  # the API's limit is below the runner's
    reqs = [req(i, text=f"{i} " + "w" * 1_000) for i in range(12)]
    out = runner(api, RequestCache(tmp_path / "c.sqlite"), batch=True).run(reqs)
    assert all(c.ok for c in out.values()) and api.paid_count() == 12 and api.repaid_count() == 0


# -- 4. results stream, vanished results, polling, permanent errors -----------------------------------------------
def test_a_disconnect_while_streaming_results_is_resumed_not_a_traceback(api_key, tmp_path):
    api = FakeAnthropicAPI(answer)
    api.results_cuts = [2]
    out = runner(api, RequestCache(tmp_path / "c.sqlite"), batch=True).run([req(i) for i in range(5)])
    assert all(c.ok for c in out.values()) and api.batches_created() == 1 and api.repaid_count() == 0


@pytest.mark.parametrize("fate", ["archived", "no_results_url", "deleted"])
def test_a_batch_whose_results_are_gone_is_resubmitted(api_key, tmp_path, fate):
    api = FakeAnthropicAPI(answer)
    api.batch_fates = [fate]
    out = runner(api, RequestCache(tmp_path / "c.sqlite"), batch=True).run([req(i) for i in range(3)])
    assert all(c.ok for c in out.values()) and api.batches_created() == 2


def test_persistent_poll_errors_end_in_a_clean_resumable_error(api_key, tmp_path, sleeps):
    api = FakeAnthropicAPI(answer)
    api.poll_failures = [Fail(500, "api_error", "boom")] * 10_000
    polls = []

    def sleep(s):
        polls.append(s)
        if len(polls) > 500:
            raise RuntimeError("still polling after 500 sleeps")

    cache = RequestCache(tmp_path / "c.sqlite")
    with pytest.raises(LLMRequestError, match="rerun") as ei:
        runner(api, cache, batch=True, sleep=sleep).run([req(1)])
    assert not ei.value.fatal
    api.poll_failures = []
    out = runner(api, cache, batch=True).run([req(1)])
    assert out[req(1).key].ok and api.batches_created() == 1  # the rerun polled the same batch


@pytest.mark.parametrize("mode, etype", [("too_large", "request_too_large"), ("billing", "billing_error"), ("invalid", "invalid_request_error")])
def test_permanent_batch_errors_are_not_resubmitted(api_key, tmp_path, mode, etype):
    api = FakeAnthropicAPI(answer)
    api.batch_failures = {req(1).key: mode}
    out = runner(api, RequestCache(tmp_path / "c.sqlite"), batch=True, on_error="return").run([req(0), req(1)])
    assert out[req(0).key].ok and not out[req(1).key].ok and etype in out[req(1).key].error
    assert len(api.batch_creates()) == 1


def test_errored_expired_and_canceled_results_are_resubmitted(api_key, tmp_path):
    api = FakeAnthropicAPI(answer)
    api.batch_failures = {req(0).key: "errored", req(1).key: "expired", req(2).key: "canceled", req(3).key: "api_error"}
    out = runner(api, RequestCache(tmp_path / "c.sqlite"), batch=True).run([req(i) for i in range(5)])
    assert all(c.ok for c in out.values()) and len(api.batch_creates()) == 2 and api.repaid_count() == 0


# -- 5. key redaction on child loggers ------------------------------------------------------------------------------
def test_the_key_is_redacted_on_child_loggers_too(api_key, caplog):
    make_client()
    caplog.set_level(logging.DEBUG)
    for name in ("anthropic._base_client", "httpx2._client", "argfaith.llm.batches", "anthropic"):
        logging.getLogger(name).debug("headers: x-api-key=%s", FAKE_KEY)
    try:
        raise ValueError(f"boom {FAKE_KEY}")
    except ValueError:
        logging.getLogger("anthropic._base_client").exception("failed")
    assert caplog.text.count("[REDACTED]") >= 5
    assert FAKE_KEY not in caplog.text


# -- 6. long answers are streamed ---------------------------------------------------------------------------------------
def test_long_answers_are_streamed_and_a_dropped_stream_is_retried(api_key, tmp_path):
    api = FakeAnthropicAPI(lambda b: "z" * 40_000)  # 10,000 tokens
    api.stream_faults = ["disconnect"]
    cache = RequestCache(tmp_path / "c.sqlite")
    r = runner(api, cache)
    c = r.run([req(1, max_tokens=16_000)])[req(1, max_tokens=16_000).key]
    assert c.text == "z" * 40_000 and c.stop_reason == "end_turn"
    calls = api.message_calls()
    assert all(x.body.get("stream") is True for x in calls) and len(calls) == 2
    assert api.repaid_count() == 1  # the dropped stream had been billed: documented, unavoidable
    short = runner(api, cache).run([req(2)])
    assert short[req(2).key].ok and "stream" not in api.message_calls()[-1].body


# -- 7. model cards ----------------------------------------------------------------------------------------------------
def test_corrected_model_cards():
    from argfaith.mining.classifiers.claude import plan_requests
    from argfaith.mining.classifiers.base import PairQuery

    assert PRICES["claude-sonnet-5-5"].cache_read == pytest.approx(0.10)  # $0.20 / $2 on the Sonnet 5.5 page
    assert req(1, "claude-sonnet-5-5").params["thinking"] == {"type": "between_tools"}
    assert "thinking" not in req(1, "claude-opus-5-5").params  # cannot be disabled
    pairs = [PairQuery("s1", "t1", "topic"), PairQuery("s1", "t2", "topic")]
    multi_batch = plan_requests(pairs, mode="multi", prompt_caching=True, cache_ttl="1h")[0].request
    marks = [b["cache_control"] for b in multi_batch.params["messages"][0]["content"] if "cache_control" in b]
    assert marks == [{"type": "ephemeral", "ttl": "1h"}]


@pytest.mark.parametrize("model", ["claude-haiku-5-5", "claude-haiku-4-5", "claude-sonnet-5-5", "claude-sonnet-4-5", "claude-opus-5-5", "claude-fable-5-1"])
def test_every_model_card_builds_requests_the_strict_api_accepts(api_key, model):
    api = FakeAnthropicAPI(answer)
    out = runner(api, None, model=model).run([req(1, model)])
    assert out[req(1, model).key].text == "ok q1"


# -- 8. the usage meter counts each result once ----------------------------------------------------------------------------
def test_collecting_a_batch_a_second_time_does_not_count_its_results_again(api_key, tmp_path):
    api = FakeAnthropicAPI(answer, usage=lambda b, t: (100, 10))
    cache = RequestCache(tmp_path / "c.sqlite")
    real_put, n = RequestCache.put, [0]

    def put_then_die(self, key, resp):
        n[0] += 1
        if n[0] == 3:
            raise KeyboardInterrupt  # killed after storing two of four results
        return real_put(self, key, resp)

    with pytest.MonkeyPatch.context() as mp, pytest.raises(KeyboardInterrupt):
        mp.setattr(RequestCache, "put", put_then_die)
        runner(api, cache, batch=True).run([req(i) for i in range(4)])
    r2 = runner(api, RequestCache(tmp_path / "c.sqlite"), batch=True)
    out = r2.run([req(i) for i in range(4)])
    assert all(c.ok for c in out.values()) and api.batches_created() == 1
    s = r2.usage.snapshot()
    assert (s.requests, s.batch_requests, s.input_tokens) == (2, 2, 200)
