"""Dry-run cost estimates (argfaith.mining.cost): consistent with what the classifier sends."""

from __future__ import annotations

import pytest

from argfaith.llm import ModelPrice, RequestCache, TokenEstimator
from argfaith.llm.testing import FakeAnthropicAPI
from argfaith.mining.classifiers.base import PairQuery
from argfaith.mining.classifiers.claude import ClaudeRelationClassifier, plan_requests
from argfaith.mining.cost import STRATEGIES, estimate_cost, estimate_strategies, format_cost_table
from tests.llm.helpers import api_key  # noqa: F401
from tests.mining.test_claude_classifier import TOPIC, debate_pairs, oracle


@pytest.mark.parametrize(
    "mode, caching, max_targets", [("single", False, 100), ("multi", False, 100), ("multi", True, 100), ("multi", True, 4)]
)
def test_estimated_requests_equal_requests_actually_sent(api_key, tmp_path, mode, caching, max_targets):
    pairs = debate_pairs(3, 7)
    est = estimate_cost(pairs, mode=mode, cache=caching, max_targets=max_targets, model="claude-haiku-4-5")
    api = FakeAnthropicAPI(oracle)
    c = ClaudeRelationClassifier(
        "claude-haiku-4-5", mode=mode, prompt_caching=caching, max_targets=max_targets,
        cache=RequestCache(tmp_path / "c.sqlite"), http_client=api.http_client(), max_concurrency=1,
    )
    c.classify(pairs)
    assert est.requests == len(api.message_calls()) == c.usage.calls
    assert est.pairs == len(pairs)
    sent_max_tokens = sum(r.body["max_tokens"] for r in api.message_calls())
    assert est.max_output_tokens == sent_max_tokens
    # Prompt characters the estimate is based on are those of the requests sent.
    plan = plan_requests(pairs, mode=mode, model="claude-haiku-4-5", prompt_caching=caching, max_targets=max_targets)
    for pr in plan:
        assert sum(pr.block_chars) == pr.request.input_chars
    # Answered requests are free on a rerun.
    again = estimate_cost(pairs, mode=mode, cache=caching, max_targets=max_targets, model="claude-haiku-4-5", request_cache=c.cache)
    assert again.requests == 0 and again.cached_requests == est.requests and again.usd == 0


def test_prompt_cache_simulation_golden():
    pairs = [PairQuery("s1", "p", TOPIC), PairQuery("s2", "p", TOPIC), PairQuery("s2", "s1", TOPIC),
             PairQuery("s3", "p", TOPIC), PairQuery("s3", "s1", TOPIC), PairQuery("s3", "s2", TOPIC)]
    card = ModelPrice("toy", 1.0, 1.0, min_cache_tokens=1)
    one = TokenEstimator(chars_per_token=1.0, overhead=0)  # tokens = characters
    plan = plan_requests(pairs, mode="multi", model="toy", prompt_caching=True)
    (sys1, h1, a1, t1), (sys2, h2, a2, b2, t2), (sys3, h3, a3, b3, c3, t3) = (pr.block_chars for pr in plan)
    est = estimate_cost(pairs, mode="multi", cache=True, model="toy", price=card, estimator=one)
    # r1 writes sys+header+line1; r2 reads that and writes line2; r3 reads r2's prefix, writes line3.
    assert est.cache_write_tokens == (sys1 + h1 + a1) + b2 + c3
    assert est.cache_read_tokens == (sys2 + h2 + a2) + (sys3 + h3 + a3 + b3)
    assert est.input_tokens == t1 + t2 + t3
    # Below the model's minimum cacheable length nothing is cached.
    big = ModelPrice("toy", 1.0, 1.0, min_cache_tokens=10**6)
    none = estimate_cost(pairs, mode="multi", cache=True, model="toy", price=big, estimator=one)
    assert none.cache_read_tokens == none.cache_write_tokens == 0
    assert none.input_tokens == sum(sum(pr.block_chars) for pr in plan)
    b = estimate_cost(pairs, mode="multi", cache=True, batch=True, model="toy", price=card, estimator=one)
    # Batch halves the price of the same tokens, and writes the cache with the 1-hour TTL (2x, not 1.25x).
    assert b.cache_write_tokens == est.cache_write_tokens
    assert b.usd == pytest.approx((est.usd + est.cache_write_tokens * (2.0 - 1.25) / 1e6) / 2) and b.optimistic


def _synthetic_debate(n_prop: int, n_speech: int) -> list[PairQuery]:
    # Lengths like the EP debates with human spans: provisions ~350 chars, spans ~200 chars.
    props = [f"{k}.   Calls on the Commission " + "to take measures on the matter " * 10 for k in range(n_prop)]
    speech = [f"Argument {i}: " + "we believe that the report goes in the right direction " * 4 for i in range(n_speech)]
    return [PairQuery(s, t, TOPIC) for i, s in enumerate(speech) for t in props + speech[:i]]


def test_a_mode_judges_every_all_pairs_candidate_at_most_10_percent_of_the_papers_cost():
    """The issue's goal, on a 200-argument debate (26 provisions, 174 speech arguments)."""
    pairs = _synthetic_debate(26, 174)
    table = {e.strategy: e for e in estimate_strategies(pairs, model="claude-haiku-4-5")}
    paper = table["single"]
    assert [name for name, *_ in STRATEGIES] == list(table)
    assert paper.requests == paper.pairs == len(pairs)
    assert table["single+batch"].usd == pytest.approx(paper.usd / 2)
    assert table["multi"].requests < len(pairs) / 50
    assert table["multi+cache"].usd <= 0.10 * paper.usd
    assert not table["multi+cache"].optimistic
    assert table["multi+batch+cache"].usd < table["multi+cache"].usd
    text = format_cost_table(list(table.values()))
    assert "single" in text and "100.0%" in text and "optimistic" in text


def test_unknown_model_has_no_dollar_figure():
    e = estimate_cost(debate_pairs(2, 2), model="not-a-claude-model")
    assert e.usd is None and e.requests > 0
    assert "n/a" in format_cost_table([e])
