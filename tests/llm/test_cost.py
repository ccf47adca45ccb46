"""Price table, cost formula, token estimator and usage meter (argfaith.llm.cost)."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.errors import ConfigurationError
from argfaith.llm.cost import (
    DEFAULT_MODEL,
    PRICES,
    ModelPrice,
    TokenCounts,
    TokenEstimator,
    UsageMeter,
    cost_usd,
    known_models,
    price_for,
)


def test_default_model_is_a_current_haiku_with_a_price_card():
    assert "haiku" in DEFAULT_MODEL
    assert price_for(DEFAULT_MODEL).model == DEFAULT_MODEL
    # The paper's model stays available for reproduction.
    assert price_for("claude-haiku-4-5-20251001").model == "claude-haiku-4-5"


def test_golden_costs_haiku_4_5():
    p = price_for("claude-haiku-4-5")
    # $1 / MTok in, $5 / MTok out
    assert cost_usd(p, TokenCounts(1_000_000, 0)) == pytest.approx(1.0)
    assert cost_usd(p, TokenCounts(0, 1_000_000)) == pytest.approx(5.0)
    assert cost_usd(p, TokenCounts(1_000_000, 100_000), batch=True) == pytest.approx(0.75)
    # cache write 1.25x, cache read 0.1x of the input price
    assert cost_usd(p, TokenCounts(0, 0, 1_000_000, 0)) == pytest.approx(1.25)
    assert cost_usd(p, TokenCounts(0, 0, 0, 1_000_000)) == pytest.approx(0.10)
    assert cost_usd(p, TokenCounts(0, 0, 1_000_000, 0), cache_ttl="1h") == pytest.approx(2.0)


def test_long_context_rates_are_per_prompt():
    p = price_for("claude-haiku-5-5")
    short = cost_usd(p, TokenCounts(100_000, 1_000))
    long = cost_usd(p, TokenCounts(100_001, 1_000))
    assert short == pytest.approx((100_000 * 0.10 + 1_000 * 0.50) / 1e6)
    assert long == pytest.approx((100_001 * 0.50 + 1_000 * 2.50) / 1e6)


def test_price_lookup_aliases_and_unknown_models():
    assert price_for("claude-haiku-5-5-20261007").model == "claude-haiku-5-5"
    with pytest.raises(ConfigurationError, match="no price card"):
        price_for("gpt-9")
    assert price_for("gpt-9", strict=False) is None
    assert set(known_models()) == set(PRICES)


@given(
    st.integers(0, 10**7), st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 10**6)
)
def test_batch_halves_and_cost_is_monotone(i, o, cw, cr):
    p = price_for("claude-haiku-4-5")
    c = TokenCounts(i, o, cw, cr)
    full = cost_usd(p, c)
    assert cost_usd(p, c, batch=True) == pytest.approx(full / 2)
    assert cost_usd(p, TokenCounts(i + 1, o, cw, cr)) > full


def test_token_estimator_basics():
    e = TokenEstimator(chars_per_token=4.0, overhead=8)
    assert e.tokens("") == 0
    assert e.tokens("abcd") == 1
    assert e.tokens("abcde") == 2
    assert e.request_tokens(400) == 108
    # Newer tokenizer counts ~30% more tokens for the same text.
    old, new = TokenEstimator.for_model("claude-haiku-4-5"), TokenEstimator.for_model("claude-haiku-5-5")
    assert new.tokens(13_000) == pytest.approx(old.tokens(13_000) * 1.3, rel=0.01)


@settings(max_examples=50)
@given(st.floats(2.0, 6.0), st.lists(st.integers(500, 20_000), min_size=3, max_size=40))
def test_calibration_recovers_the_ratio(ratio, lengths):
    samples = [(n, round(n / ratio) + 8) for n in lengths]
    e = TokenEstimator.calibrate(samples)
    assert e.chars_per_token == pytest.approx(ratio, rel=0.02)


def test_calibration_needs_samples():
    with pytest.raises(ConfigurationError):
        TokenEstimator.calibrate([])


def test_usage_meter_is_thread_safe_and_prices_requests():
    m = UsageMeter("claude-haiku-4-5")

    def work():
        for _ in range(200):
            m.add_response(TokenCounts(1000, 10), batch=False)
            m.add(cache_hits=1)

    ts = [threading.Thread(target=work) for _ in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    s = m.snapshot()
    assert (s.requests, s.cache_hits, s.input_tokens, s.output_tokens) == (1600, 1600, 1_600_000, 16_000)
    assert s.cost_usd == pytest.approx(1.6 + 0.08)


def test_usage_meter_unknown_model_has_unknown_cost():
    m = UsageMeter("some-other-model")
    m.add_response(TokenCounts(10, 10))
    assert m.snapshot().cost_usd is None


def test_custom_price_card():
    p = ModelPrice("mine", 2.0, 4.0, batch_discount=0.4)
    assert cost_usd(p, TokenCounts(500_000, 250_000), batch=True) == pytest.approx((1.0 + 1.0) * 0.4)
