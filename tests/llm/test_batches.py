"""The Message Batches route: custom ids, errored/expired requests, resume without re-submission."""

from __future__ import annotations

import pytest

from argfaith.llm import LLMRequestError, LLMRunner, RequestCache, build_request
from argfaith.llm.client import make_client
from argfaith.llm.testing import FakeAnthropicAPI, user_text


def _req(i: int):
    return build_request(
        model="claude-haiku-4-5", system="sys", user=f"q{i}", max_tokens=16, template_version="t1", inputs={"i": i}
    )


def _runner(api, cache, **kw) -> LLMRunner:
    return LLMRunner(
        "claude-haiku-4-5",
        client_factory=lambda: make_client(http_client=api.http_client()),
        cache=cache,
        use_batches=True,
        poll_interval=5.0,
        sleep=kw.pop("sleep", lambda s: None),
        **kw,
    )


def test_batch_round_trip_keyed_by_custom_id(api_key, tmp_path):
    api = FakeAnthropicAPI(lambda body: "ans " + user_text(body), usage=lambda b, t: (100, 10), batch_polls_before_end=2)
    cache = RequestCache(tmp_path / "c.sqlite")
    polls = []
    r = _runner(api, cache, sleep=polls.append)
    reqs = [_req(i) for i in range(5)]
    out = r.run(reqs)
    (create,) = api.batch_creates()
    sent = create.body["requests"]
    assert [s["custom_id"] for s in sent] == [q.key for q in reqs]
    assert sent[0]["params"] == dict(reqs[0].params)
    assert {k: c.text for k, c in out.items()} == {q.key: f"ans q{i}" for i, q in enumerate(reqs)}
    assert all(c.route == "batch" for c in out.values())
    assert polls == [5.0, 5.0]  # two "in_progress" polls, then ended
    assert not api.message_calls()  # nothing went through the direct route
    s = r.usage.snapshot()
    assert s.batch_requests == 5 and s.requests == 5
    assert s.cost_usd == pytest.approx(5 * (100 * 1.0 + 10 * 5.0) / 1e6 * 0.5)  # batch discount
    assert all(cache.get(q.key).route == "batch" for q in reqs)


def test_errored_and_expired_requests_are_resubmitted_invalid_ones_fail(api_key, tmp_path):
    api = FakeAnthropicAPI(lambda body: "ok " + user_text(body))
    reqs = [_req(i) for i in range(6)]
    api.batch_failures = {reqs[1].key: "errored", reqs[2].key: "expired", reqs[3].key: "invalid"}
    cache = RequestCache(tmp_path / "c.sqlite")
    r = _runner(api, cache, on_error="return")
    out = r.run(reqs)
    creates = api.batch_creates()
    assert len(creates) == 2
    assert sorted(x["custom_id"] for x in creates[1].body["requests"]) == sorted([reqs[1].key, reqs[2].key])
    assert out[reqs[1].key].text == "ok q1" and out[reqs[2].key].text == "ok q2"
    assert not out[reqs[3].key].ok and "invalid_request_error" in out[reqs[3].key].error
    assert r.usage.snapshot().errors == 1
    # Default on_error="raise": the permanent failure is reported (and not cached).
    api.batch_failures = {reqs[3].key: "invalid"}
    with pytest.raises(LLMRequestError, match=r"1 of 1 request\(s\) failed .*invalid_request_error"):
        _runner(api, cache).run(reqs)


def test_interrupted_while_polling_resumes_without_resubmitting(api_key, tmp_path):
    api = FakeAnthropicAPI(lambda body: "ok " + user_text(body), batch_polls_before_end=3)
    cache = RequestCache(tmp_path / "c.sqlite")
    reqs = [_req(i) for i in range(4)]

    def interrupt(_s):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _runner(api, cache, sleep=interrupt).run(reqs)
    assert len(api.batch_creates()) == 1 and len(cache) == 0
    # A new process (new runner, same cache file) polls the same batch instead of submitting again.
    out = _runner(api, RequestCache(tmp_path / "c.sqlite")).run(reqs + [_req(10)])
    creates = api.batch_creates()
    assert len(creates) == 2
    assert [x["custom_id"] for x in creates[1].body["requests"]] == [_req(10).key]  # only the new one
    assert all(c.ok for c in out.values()) and len(out) == 5
    # Everything is cached now: a third run sends nothing.
    before = len(api.requests)
    _runner(api, RequestCache(tmp_path / "c.sqlite")).run(reqs)
    assert len(api.requests) == before


def test_batch_route_needs_a_cache(api_key):
    api = FakeAnthropicAPI(lambda body: "ok")
    with pytest.raises(LLMRequestError, match="needs a request cache"):
        _runner(api, None).run([_req(1)])
