"""LLM-written distortions through the real SDK against the fake Anthropic API."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from argfaith.datasets.ep import read_ep_debate
from argfaith.datasets.summaries import read_summary
from argfaith.llm.testing import FakeAnthropicAPI, user_text
from argfaith.mining.distort_llm import LLMDistorter, distortion_prompt, estimate_distortion_cost, parse_distortion_answer

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "study"
DEBATE = FIX / "ep_debates" / "debates" / "CRE-20990201-ITEM-001"
SUMMARY = FIX / "ep_summaries" / "CRE-20990201-ITEM-001" / "CRE-20990201-ITEM-001_claude_en_zero_shot.json"
KEY = "sk-ant-test-distort-0123456789"
PAR1 = "CRE-20990201-ITEM-001-P1"


def responder(body: dict) -> str:
    text = user_text(body)
    kind = re.search(r"TASK \((\w+)\)", text).group(1)  # type: ignore[union-attr]
    if kind == "omit":
        return json.dumps({"edits": [{"op": "delete", "sentence": 2}], "original_stance": "support"})
    if kind == "invert":
        return 'Here you go: {"edits": [{"op": "replace", "sentence": 2, "text": "The rapporteur argued that annual inspections of every ship are wrong."}], "original_stance": "support"}'
    if kind == "fabricate_support":
        return json.dumps({"edits": [{"op": "insert_after", "sentence": 5, "text": "Several speakers backed yearly inspections of every ship."}]})
    return "I cannot do that."  # fabricate_attack: an answer that is not edits


def test_prompt_and_parser() -> None:
    p = distortion_prompt("Ports", "1. Calls for\ninspections;", ["First one.", "Second\none."], "invert")
    assert "[S1] First one." in p and "[S2] Second one." in p and "TASK (invert)" in p and "inspections;" in p
    assert parse_distortion_answer('{"edits": [{"op": "delete", "sentence": 2}]}', 2)[0][0].sentence == 2  # type: ignore[index]
    assert parse_distortion_answer('{"edits": [{"op": "delete", "sentence": 3}]}', 2) is None  # out of range
    assert parse_distortion_answer('{"edits": []}', 2) is None
    assert parse_distortion_answer("no json here", 2) is None
    edits, stance = parse_distortion_answer('{"edits": [{"op": "insert_after", "sentence": 0, "text": "x y z"}], "original_stance": "Oppose"}', 2)  # type: ignore[misc]
    assert stance == "oppose" and edits[0].op == "insert_after"


def test_llm_distortions_cached_and_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    api = FakeAnthropicAPI(responder)
    cache = tmp_path / "llm.sqlite"
    summ, deb = read_summary(SUMMARY), read_ep_debate(DEBATE, annotations=False)
    d = LLMDistorter("claude-haiku-4-5", cache=cache, http_client=api.http_client())
    got = d.distortions(summ, deb, [PAR1], ["omit", "invert", "fabricate_support", "fabricate_attack"])
    assert [x.kind for x in got] == ["omit", "invert", "fabricate_support"]
    inv = next(x for x in got if x.kind == "invert")
    assert inv.expected == "down" and inv.method == "llm:claude-haiku-4-5"
    assert any("fabricate_attack" in p and "not valid edits" in p for p in d.problems)
    assert len(api.message_calls()) == 4
    # a rerun without a key is answered from the cache: nothing sent, the same distortions
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    again = LLMDistorter("claude-haiku-4-5", cache=cache, http_client=api.http_client()).distortions(
        summ, deb, [PAR1], ["omit", "invert", "fabricate_support", "fabricate_attack"])
    assert [x.edits for x in again] == [x.edits for x in got] and len(api.message_calls()) == 4
    assert KEY.encode() not in cache.read_bytes()
    cost = estimate_distortion_cost([p.request for p in d.plan(summ, deb, [PAR1], ["omit"])], "claude-haiku-4-5")
    assert cost["requests"] == 1 and cost["cost_low"] is not None and cost["cost_low"] <= cost["cost_high"]


def test_selftest_with_llm_distortions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from argfaith.study.selftest import SelftestConfig, run_selftest
    from tests.study.conftest import CountingClassifier

    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    api = FakeAnthropicAPI(responder)
    d = LLMDistorter("claude-haiku-4-5", cache=tmp_path / "c.sqlite", http_client=api.http_client())
    cfg = SelftestConfig(debates=FIX / "ep_debates", summaries=FIX / "ep_summaries", out=tmp_path / "o", classifier="counting",
                         distortions="llm:claude-haiku-4-5", only=("CRE-20990201-ITEM-001",), controls=False)
    agg = run_selftest(cfg, CountingClassifier(), distorter=d)
    assert agg["kinds"]["omit"]["sigma"]["n"] >= 1 and "fabricate_attack" not in agg["kinds"]
    item = json.loads(next((tmp_path / "o" / "selftest" / "items").glob("*/*.json")).read_text())
    assert any("not valid edits" in n for n in item["notes"])
