"""LLMRunner against the real SDK with a mock transport: bodies, retries, errors, cache, resume."""

from __future__ import annotations

import threading
import time

import pytest

from argfaith.llm import LLMRequestError, LLMRunner, MissingAPIKeyError, RequestCache, build_request
from argfaith.llm.client import make_client
from argfaith.llm.testing import Fail, FakeAnthropicAPI, user_text
from tests.llm.helpers import FAKE_KEY


def _req(i: int, model: str = "claude-haiku-4-5"):
    return build_request(
        model=model, system="sys", user=f"question {i}", max_tokens=16, template_version="t1", inputs={"i": i}
    )


def _runner(api: FakeAnthropicAPI, cache=None, **kw) -> LLMRunner:
    kw.setdefault("max_concurrency", 1)
    return LLMRunner(kw.pop("model", "claude-haiku-4-5"), client_factory=lambda: make_client(http_client=api.http_client()), cache=cache, **kw)


def test_request_body_is_exactly_the_built_request(api_key):
    api = FakeAnthropicAPI(lambda body: "hello")
    r = _runner(api)
    comp = r.complete(_req(1))
    (call,) = api.message_calls()
    assert call.body == {
        "model": "claude-haiku-4-5",
        "max_tokens": 16,
        "system": "sys",
        "messages": [{"role": "user", "content": "question 1"}],
    }
    assert comp.text == "hello" and comp.route == "direct" and comp.ok


def test_thinking_is_disabled_for_models_that_think_by_default():
    assert _req(1, "claude-haiku-5-5").params["thinking"] == {"type": "disabled"}
    assert "thinking" not in _req(1, "claude-haiku-4-5").params
    assert "thinking" not in _req(1, "some-unknown-model").params


def test_429_with_retry_after_is_retried_after_the_advised_delay(api_key, sleeps):
    api = FakeAnthropicAPI(lambda body: "ok")
    api.failures = [Fail(429, "rate_limit_error", "slow down", headers={"retry-after": "7"})]
    assert _runner(api).complete(_req(1)).text == "ok"
    assert len(api.message_calls()) == 2
    assert 7.0 in sleeps


def test_529_overloaded_is_retried_with_backoff(api_key, sleeps):
    api = FakeAnthropicAPI(lambda body: "ok")
    api.failures = [Fail(529, "overloaded_error", "Overloaded")] * 3
    assert _runner(api).complete(_req(1)).text == "ok"
    assert len(api.message_calls()) == 4
    assert len(sleeps) == 3 and all(0 < s <= 8.0 for s in sleeps)
    assert sleeps[2] > sleeps[0]  # exponential backoff


def test_timeouts_are_retried(api_key, sleeps):
    api = FakeAnthropicAPI(lambda body: "ok")
    api.failures = [Fail(timeout=True), Fail(timeout=True)]
    assert _runner(api).complete(_req(1)).text == "ok"
    assert len(api.message_calls()) == 3


def test_persistent_overload_fails_with_a_clear_error_after_retries(api_key, sleeps, tmp_path):
    cache = RequestCache(tmp_path / "c.sqlite")
    api = FakeAnthropicAPI(lambda body: Fail(529) if "question 2" in user_text(body) else "ok")
    r = _runner(api, cache)
    with pytest.raises(LLMRequestError, match=r"1 of 3 request\(s\) failed .*529.*2 answered .*cached") as ei:
        r.run([_req(i) for i in range(3)])
    assert FAKE_KEY not in str(ei.value)
    assert len(cache) == 2
    assert r.usage.snapshot().errors == 1
    # on_error="return": the failure comes back as a completion.
    r2 = _runner(api, cache, on_error="return")
    out = r2.run([_req(i) for i in range(3)])
    assert [out[_req(i).key].ok for i in range(3)] == [True, True, False]
    assert out[_req(0).key].route == "cache"


def test_bad_key_is_fatal_and_stops_the_run(api_key):
    api = FakeAnthropicAPI(lambda body: Fail(401, "authentication_error", "invalid x-api-key"))
    r = _runner(api, max_concurrency=1)
    with pytest.raises(LLMRequestError, match="rejected the API key") as ei:
        r.run([_req(i) for i in range(5)])
    assert ei.value.fatal
    assert len(api.message_calls()) == 1  # not retried, and the rest were not sent
    assert FAKE_KEY not in str(ei.value)


def test_unknown_model_404_is_fatal(api_key):
    api = FakeAnthropicAPI(lambda body: Fail(404, "not_found_error", "model: claude-nope"))
    with pytest.raises(LLMRequestError, match="model id"):
        _runner(api).complete(_req(1))


def test_cache_makes_reruns_free_and_needs_no_key(api_key, tmp_path, monkeypatch):
    cache = RequestCache(tmp_path / "c.sqlite")
    api = FakeAnthropicAPI(lambda body: "a:" + user_text(body))
    r1 = _runner(api, cache)
    first = r1.run([_req(i) for i in range(4)])
    assert len(api.message_calls()) == 4
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    r2 = _runner(api, cache)
    second = r2.run([_req(i) for i in range(4)])
    assert len(api.message_calls()) == 4
    assert {k: c.text for k, c in first.items()} == {k: c.text for k, c in second.items()}
    assert r2.usage.snapshot().cache_hits == 4 and r2.usage.snapshot().requests == 0
    with pytest.raises(MissingAPIKeyError, match=r"1 request\(s\) are not in the cache"):
        r2.run([_req(i) for i in range(5)])


def test_crash_half_way_then_rerun_sends_only_the_missing_requests(api_key, tmp_path):
    cache = RequestCache(tmp_path / "c.sqlite")
    served = 0

    def crashy(body):
        nonlocal served
        served += 1
        if served == 6:
            raise KeyboardInterrupt  # the process is interrupted while request 6 is in flight
        return "ok " + user_text(body)

    api = FakeAnthropicAPI(crashy)
    with pytest.raises(KeyboardInterrupt):
        _runner(api, cache).run([_req(i) for i in range(10)])
    assert len(cache) == 5
    api2 = FakeAnthropicAPI(lambda body: "ok " + user_text(body))
    out = _runner(api2, cache).run([_req(i) for i in range(10)])
    assert len(api2.message_calls()) == 5
    assert sorted(user_text(c.body) for c in api2.message_calls()) == [f"question {i}" for i in range(5, 10)]
    assert all(c.ok for c in out.values()) and len(out) == 10


def test_concurrency_is_bounded(api_key):
    lock = threading.Lock()
    active = peak = 0

    def slow(body):
        nonlocal active, peak
        with lock:
            active += 1
            peak = max(peak, active)
        time.sleep(0.02)
        with lock:
            active -= 1
        return "ok"

    api = FakeAnthropicAPI(slow)
    r = _runner(api, max_concurrency=3)
    r.run([_req(i) for i in range(24)])
    assert len(api.message_calls()) == 24
    assert 1 < peak <= 3


def test_duplicates_are_sent_once_and_progress_reaches_total(api_key):
    api = FakeAnthropicAPI(lambda body: "ok")
    seen = []
    out = _runner(api).run([_req(1), _req(1), _req(2)], progress=lambda d, t, k: seen.append((d, t)))
    assert len(out) == 2 and len(api.message_calls()) == 2
    assert seen[-1] == (2, 2)


def test_usage_accounts_tokens_and_cost(api_key):
    api = FakeAnthropicAPI(lambda body: "ok", usage=lambda body, text: (1000, 10))
    r = _runner(api)
    r.run([_req(i) for i in range(3)])
    s = r.usage.snapshot()
    assert (s.requests, s.input_tokens, s.output_tokens) == (3, 3000, 30)
    assert s.cost_usd == pytest.approx(3 * (1000 * 1.0 + 10 * 5.0) / 1e6)


def test_interrupt_with_threads_then_rerun_sends_exactly_the_missing(api_key, tmp_path):
    cache = RequestCache(tmp_path / "c.sqlite")
    lock = threading.Lock()
    served = 0

    def crashy(body):
        nonlocal served
        with lock:
            served += 1
            n = served
        if n == 8:
            raise KeyboardInterrupt
        return "ok"

    api = FakeAnthropicAPI(crashy)
    with pytest.raises(KeyboardInterrupt):
        _runner(api, cache, max_concurrency=3).run([_req(i) for i in range(30)])
    # In-flight requests finish in the background: wait until the cache stops growing.
    done, stable = len(cache), 0
    while stable < 5:
        time.sleep(0.1)
        now = len(cache)
        stable, done = (stable + 1, done) if now == done else (0, now)
    assert 7 <= done < 30
    api2 = FakeAnthropicAPI(lambda body: "ok")
    _runner(api2, cache, max_concurrency=3).run([_req(i) for i in range(30)])
    assert len(api2.message_calls()) == 30 - done
