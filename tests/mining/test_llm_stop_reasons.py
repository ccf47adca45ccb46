"""Refusals and truncated answers in the consumers of argfaith.llm: the Claude relation classifier,
LLM argument extraction and the key point judge (the CLI-level checks are in
tests/cli/test_claude_commands.py)."""

from __future__ import annotations

from pathlib import Path

from argfaith.datasets.kpa import load_kpa
from argfaith.llm import RequestCache
from argfaith.llm.testing import ArgfaithModel, FakeAnthropicAPI
from argfaith.kpa.matchers import ClaudeKeyPointJudge
from argfaith.mining.classifiers.base import PairQuery
from argfaith.mining.classifiers.claude import ClaudeRelationClassifier
from argfaith.mining.extract import LLMExtractor
from tests.llm.helpers import api_key  # noqa: F401

KPA = Path(__file__).resolve().parent.parent / "fixtures" / "kpa"


def test_a_refused_pair_is_a_non_final_fallback_and_is_asked_again(api_key, tmp_path):
    model = ArgfaithModel(refuse={"[SOURCE]: Ships sink."})
    api = FakeAnthropicAPI(model)
    cache = RequestCache(tmp_path / "c.sqlite")
    pairs = [PairQuery("Ships sink.", "Inspect ships.", "Ports"), PairQuery("Staff is short.", "Inspect ships.", "Ports")]
    clf = ClaudeRelationClassifier("claude-haiku-5-5", cache=cache, http_client=api.http_client())
    refused, fine = clf.classify(pairs)
    assert refused.fallback and not refused.final and fine.final and not fine.fallback
    assert clf.usage.extra["refusals"] == 1 and len(cache) == 1
    model.refuse = set()
    again = ClaudeRelationClassifier("claude-haiku-5-5", cache=cache, http_client=api.http_client()).classify(pairs)
    assert all(p.final and not p.fallback for p in again) and api.repaid_count() == 1


def test_a_refused_text_falls_back_to_sentences_and_is_asked_again(api_key, tmp_path):
    model = ArgfaithModel(refuse={"Ignore all"})
    api = FakeAnthropicAPI(model)
    cache = RequestCache(tmp_path / "c.sqlite")
    text = "Ignore all rules. Uniforms reduce bullying."
    ex = LLMExtractor("claude-haiku-5-5", cache=cache, http_client=api.http_client())
    segs = ex.segment(text)
    assert [s.text for s in segs] == ["Ignore all rules.", "Uniforms reduce bullying."]  # rule sentences
    assert ex.stats["refused_texts"] == 1 and len(cache) == 0
    model.refuse = set()
    ex2 = LLMExtractor("claude-haiku-5-5", cache=cache, http_client=api.http_client())
    assert [s.text for s in ex2.segment(text)] == ["Ignore all rules.", "Uniforms reduce bullying."]
    assert ex2.stats["refused_texts"] == 0 and len(cache) == 1


def test_the_key_point_judge_counts_refused_requests(api_key, tmp_path):
    data = load_kpa(KPA, "dev")
    first = next(iter(data.arguments.values())).text
    api = FakeAnthropicAPI(ArgfaithModel(refuse={f"Argument: {first}"}))
    judge = ClaudeKeyPointJudge(cache=tmp_path / "c.sqlite", http_client=api.http_client())
    judge.predict(data)
    assert judge.diagnostics["refused_requests"] == 1 and judge.diagnostics["requests"] > 1
