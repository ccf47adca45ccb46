"""The fake Anthropic API itself: as strict as the documented API, through the real SDK."""

from __future__ import annotations

import anthropic
import pytest

from argfaith.llm.testing import Fail, FakeAnthropicAPI, Reply
from argfaith.llm.testing.rules import MODEL_RULES


def client(api: FakeAnthropicAPI, retries: int = 0) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="sk-ant-test", http_client=api.http_client(), max_retries=retries, timeout=30.0)


def msg(model: str = "claude-haiku-4-5", **kw):
    kw.setdefault("max_tokens", 64)
    kw.setdefault("messages", [{"role": "user", "content": "hello"}])
    # SDK 2.x has no sampling parameters any more: send them as raw body fields.
    extra = {k: kw.pop(k) for k in ("temperature", "top_p", "top_k") if k in kw}
    return dict(model=model, **kw, **({"extra_body": extra} if extra else {}))


@pytest.mark.parametrize(
    "model, params, what",
    [
        ("claude-haiku-5-5", {"temperature": 0.0}, "temperature"),
        ("claude-haiku-5-5", {"top_k": 5}, "top_k"),
        ("claude-haiku-5-5", {"thinking": {"type": "enabled", "budget_tokens": 2048}, "max_tokens": 4096}, "thinking.type.enabled"),
        ("claude-haiku-5-5", {"thinking": {"type": "disabled"}, "output_config": {"effort": "xhigh"}}, "effort"),
        ("claude-haiku-5-5", {"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}, "prefill"),
        ("claude-sonnet-5-5", {"thinking": {"type": "disabled"}}, "thinking.type.disabled"),
        ("claude-opus-5-5", {"thinking": {"type": "disabled"}}, "thinking.type.disabled"),
        ("claude-fable-5-1", {"thinking": {"type": "between_tools"}}, "between_tools"),
        ("claude-haiku-4-5", {"thinking": {"type": "adaptive"}}, "adaptive"),
        ("claude-haiku-4-5", {"thinking": {"type": "enabled", "budget_tokens": 100}, "max_tokens": 4096}, "budget_tokens"),
        ("claude-haiku-4-5", {"max_tokens": 64_001}, "maximum allowed"),
        ("claude-haiku-4-5", {"temperature": 1.5}, "between 0 and 1"),
        ("claude-haiku-4-5", {"messages": [{"role": "user", "content": ""}]}, "non-empty"),
        ("claude-haiku-4-5", {"messages": [{"role": "user", "content": [
            {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}] * 5}]}, "maximum of 4"),
        ("claude-haiku-4-5", {"messages": [{"role": "user", "content": [
            {"type": "text", "text": "x", "cache_control": {"type": "ephemeral", "ttl": "2h"}}]}]}, "ttl"),
        ("claude-haiku-4-5", {"messages": [{"role": "user", "content": [
            {"type": "text", "text": "x", "cache_control": {"type": "ephemeral", "ttl": "5m"}},
            {"type": "text", "text": "y", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]}]}, "must not come after"),
    ],
)
def test_invalid_parameters_are_400_per_model(model, params, what):
    api = FakeAnthropicAPI(lambda body: "ok")
    with pytest.raises(anthropic.BadRequestError, match=what):
        client(api).messages.create(**msg(model, **params))
    assert api.paid_count() == 0


def test_valid_shapes_pass_and_unknown_models_are_404():
    api = FakeAnthropicAPI(lambda body: "ok")
    c = client(api)
    c.messages.create(**msg("claude-haiku-5-5", thinking={"type": "disabled"}))
    c.messages.create(**msg("claude-sonnet-5-5", thinking={"type": "between_tools"}))
    c.messages.create(**msg("claude-haiku-4-5", temperature=0.0))
    with pytest.raises(anthropic.NotFoundError, match="claude-nope"):
        c.messages.create(**msg("claude-nope"))
    with pytest.raises(anthropic.BadRequestError, match="Extra inputs"):
        c.messages.create(**msg(), extra_body={"frobnicate": 1})
    assert c.messages.create(**msg("claude-haiku-4-5", temperature=1.0)).content[0].text == "ok"
    assert api.paid_count() == 4


def test_thinking_counts_toward_max_tokens_and_long_answers_stop_at_max_tokens():
    api = FakeAnthropicAPI(lambda body: "x" * 400, thinking_tokens=30)  # 100 answer tokens
    c = client(api)
    m = c.messages.create(**msg("claude-opus-5-5", max_tokens=20))  # thinking alone exceeds it
    assert [b.type for b in m.content] == ["thinking"] and m.stop_reason == "max_tokens" and m.usage.output_tokens == 20
    m = c.messages.create(**msg("claude-opus-5-5", max_tokens=80))
    assert [b.type for b in m.content] == ["thinking", "text"] and m.stop_reason == "max_tokens"
    assert len(m.content[1].text) == 50 * 4
    m = c.messages.create(**msg("claude-opus-5-5", max_tokens=200))
    assert m.stop_reason == "end_turn" and m.usage.output_tokens == 130
    m = c.messages.create(**msg("claude-haiku-5-5", max_tokens=200, thinking={"type": "disabled"}))
    assert [b.type for b in m.content] == ["text"] and m.usage.output_tokens == 100


def test_refusal_is_a_normal_200_with_stop_reason_refusal():
    api = FakeAnthropicAPI(lambda body: Reply("", refusal=True))
    m = client(api).messages.create(**msg())
    assert m.stop_reason == "refusal" and m.content == [] and api.paid_count() == 1


def test_prompt_cache_usage_fields_follow_min_length_and_ttl():
    api = FakeAnthropicAPI(lambda body: "ok", min_cache_tokens=100)
    prefix = {"type": "text", "text": "p" * 800, "cache_control": {"type": "ephemeral"}}  # 200 tokens

    def ask(tail: str, ttl: str | None = None):
        p = dict(prefix, cache_control={"type": "ephemeral", **({"ttl": ttl} if ttl else {})})
        return client(api).messages.create(**msg(messages=[{"role": "user", "content": [p, {"type": "text", "text": tail}]}])).usage

    u = ask("a" * 40)
    assert (u.cache_creation_input_tokens, u.cache_read_input_tokens, u.input_tokens) == (200, 0, 10)
    u = ask("b" * 40)
    assert (u.cache_creation_input_tokens, u.cache_read_input_tokens) == (0, 200)
    api.clock_offset += 301  # the 5-minute entry has expired
    u = ask("c" * 40, "1h")
    assert (u.cache_creation_input_tokens, u.cache_read_input_tokens, u.cache_creation.ephemeral_1h_input_tokens) == (200, 0, 200)
    api.clock_offset += 3000
    assert ask("d" * 40, "1h").cache_read_input_tokens == 200
    short = FakeAnthropicAPI(lambda body: "ok")  # default minimum of Haiku 4.5: 4,096 tokens
    api = short
    assert ask("e").cache_creation_input_tokens == 0


def test_retryable_errors_and_lost_responses_through_the_sdk(monkeypatch):
    import time

    monkeypatch.setattr(time, "sleep", lambda s: None)
    api = FakeAnthropicAPI(lambda body: "ok")
    api.failures = [Fail(429, "rate_limit_error", headers={"retry-after": "1"}), Fail(529), Fail(timeout=True)]
    assert client(api, retries=3).messages.create(**msg()).content[0].text == "ok"
    assert len(api.message_calls()) == 4 and api.paid_count() == 1
    api.failures = [Fail(lost=True)]  # the answer is generated and billed, then the connection drops
    client(api, retries=2).messages.create(**msg())
    assert api.paid_count() == 3 and api.repaid_count() == 2  # the SDK's retry paid for it again


def test_streams_and_mid_stream_disconnects():
    import httpx2

    api = FakeAnthropicAPI(lambda body: "y" * 300)
    with client(api).messages.stream(**msg(max_tokens=200)) as s:
        m = s.get_final_message()
    assert m.content[0].text == "y" * 300 and m.stop_reason == "end_turn"
    api.stream_faults = ["disconnect"]
    with pytest.raises((httpx2.HTTPError, anthropic.APIConnectionError)):
        with client(api).messages.stream(**msg(max_tokens=200)) as s:
            s.get_final_message()
    api.stream_faults = ["error"]
    with pytest.raises(anthropic.APIStatusError, match="overloaded"):
        with client(api).messages.stream(**msg(max_tokens=200)) as s:
            s.get_final_message()
    assert api.paid_count() == 3  # billed although two answers never arrived whole


def _breq(i: int, **params):
    return {"custom_id": f"r{i}", "params": msg(**params)}


def test_batch_custom_ids_limits_and_per_request_validation():
    api = FakeAnthropicAPI(lambda body: "ok", max_batch_requests=3, max_batch_bytes=2000)
    b = client(api).messages.batches
    with pytest.raises(anthropic.BadRequestError, match="pattern"):
        b.create(requests=[{"custom_id": "bad id!", "params": msg()}])
    with pytest.raises(anthropic.BadRequestError, match="unique"):
        b.create(requests=[_breq(1), _breq(1)])
    with pytest.raises(anthropic.BadRequestError, match="at most 3"):
        b.create(requests=[_breq(i) for i in range(4)])
    with pytest.raises(anthropic.APIStatusError, match="request_too_large") as ei:
        b.create(requests=[_breq(1, messages=[{"role": "user", "content": "z" * 3000}])])
    assert ei.value.status_code == 413
    batch = b.create(requests=[_breq(1), _breq(2, temperature=0.5, model="claude-haiku-5-5"), _breq(3, max_tokens=0)])
    assert b.retrieve(batch.id).processing_status == "in_progress"
    done = b.retrieve(batch.id)
    assert done.processing_status == "ended" and done.request_counts.succeeded == 1 and done.request_counts.errored == 2
    res = {r.custom_id: r.result for r in b.results(batch.id)}
    assert res["r1"].type == "succeeded" and res["r2"].error.error.type == "invalid_request_error"
    assert api.paid_count() == 1  # errored requests are not billed


def test_batch_fates_lists_and_results_cuts():
    import httpx2

    api = FakeAnthropicAPI(lambda body: "ok", batch_polls_before_end=0)
    api.batch_fates = ["archived", "canceled", "normal"]
    b = client(api).messages.batches
    ids = [b.create(requests=[_breq(i), _breq(i + 10)]).id for i in range(3)]
    arch = b.retrieve(ids[0])
    assert arch.processing_status == "ended" and arch.archived_at is not None and arch.results_url is None
    with pytest.raises(anthropic.AnthropicError, match="results_url"):
        list(b.results(ids[0]))
    assert {r.result.type for r in b.results(ids[1])} == {"canceled"}
    assert [x.id for x in b.list(limit=2)][:2] == [ids[2], ids[1]]  # newest first
    api.results_cuts = [1]
    b.retrieve(ids[2])
    with pytest.raises((httpx2.HTTPError, anthropic.APIConnectionError)):
        list(b.results(ids[2]))
    assert len(list(b.results(ids[2]))) == 2  # the results are still there
    api.batch_create_failures = [Fail(lost=True)]
    with pytest.raises(anthropic.APIConnectionError):
        b.create(requests=[_breq(7)])
    assert api.batches_created() == 4  # created although the client never got its id


def test_every_documented_model_has_rules_with_a_source():
    for name, r in MODEL_RULES.items():
        assert r.max_output >= 64_000 and r.thinking_types, name


def test_through_a_local_server_disconnects_look_the_same(monkeypatch):
    import time

    import httpx2

    monkeypatch.setattr(time, "sleep", lambda s: None)
    api = FakeAnthropicAPI(lambda body: "ok", batch_polls_before_end=0)
    with api.serve() as url:
        c = anthropic.Anthropic(api_key="sk-ant-test", base_url=url, max_retries=1)
        api.failures = [Fail(lost=True)]
        assert c.messages.create(**msg()).content[0].text == "ok"
        assert api.repaid_count() == 1
        bid = c.messages.batches.create(requests=[_breq(1), _breq(2)]).id
        c.messages.batches.retrieve(bid)
        api.results_cuts = [1]
        with pytest.raises((httpx2.HTTPError, anthropic.APIConnectionError)):
            list(c.messages.batches.results(bid))
