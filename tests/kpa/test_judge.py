"""The Claude key point judge against a fake Anthropic API (the real SDK and argfaith.llm run)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from argfaith.datasets.kpa import load_kpa
from argfaith.llm.errors import MissingAPIKeyError
from argfaith.llm.testing import FakeAnthropicAPI, user_text
from argfaith.kpa.track1 import kpa_track1_score
from argfaith.kpa.matchers import (
    ClaudeKeyPointJudge,
    judge_prompt,
    make_matcher,
    parse_judge_answer,
)

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "kpa"
KEY = "sk-ant-test-SECRET"


def _overlap_responder(body: dict) -> str:
    """Rate each listed key point by word overlap with the argument (deterministic)."""
    text = user_text(body)
    arg = re.search(r"^Argument: (.*)$", text, re.M).group(1).lower()  # type: ignore[union-attr]
    kps = re.findall(r"^(\d+)\. (.*)$", text.split("Key points:\n", 1)[1], re.M)
    words = set(re.findall(r"[a-z]+", arg))
    lines = []
    for i, kp in kps:
        kw = set(re.findall(r"[a-z]+", kp.lower()))
        lines.append(f"{i}: {round(100 * len(kw & words) / max(1, len(kw)))}")
    return "\n".join(lines)


def test_prompt_and_parser() -> None:
    p = judge_prompt("Topic A", 1, "Uniforms stop bullying", ["Uniforms reduce bullying", "Uniforms save money"])
    assert "The argument below supports the topic" in p
    assert "1. Uniforms reduce bullying\n2. Uniforms save money" in p
    assert parse_judge_answer("1: 80\n2: 130\n[3] = 5\n9: 50\n1: 0", 3) == [0.8, 1.0, 0.05]
    assert parse_judge_answer("I think the first one.", 2) == [None, None]


def test_judge_predicts_caches_and_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    data = load_kpa(FIX, "dev")
    api = FakeAnthropicAPI(_overlap_responder)
    cache = tmp_path / "llm.sqlite"
    judge = make_matcher("claude", cache=cache, http_client=api.http_client(), max_concurrency=2)
    assert isinstance(judge, ClaudeKeyPointJudge)
    seen: list[tuple[int, int]] = []
    p = judge.predict(data, progress=lambda d, n: seen.append((d, n)))
    assert len(api.message_calls()) == 15  # one request per argument with candidates
    assert seen[-1] == (15, 15)
    assert {(a, k) for a, ks in p.items() for k in ks} == set(data.candidate_pairs())
    assert p["a2"]["k1"] == 1.0  # "Uniforms reduce bullying" fully inside a2's words
    assert judge.describe()["unrated_pairs"] == 0
    body = api.message_calls()[0].body
    assert body["system"].startswith("You are an expert in argumentation and key point analysis")
    assert KEY not in json.dumps(body)
    s = kpa_track1_score(p, data)
    assert 0.0 <= s.map_strict <= 1.0
    # rerun without a key: everything comes from the cache, nothing is sent
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    again = ClaudeKeyPointJudge(cache=cache, http_client=api.http_client()).predict(data)
    assert again == p and len(api.message_calls()) == 15


def test_unrated_key_points_score_zero_and_are_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    data = load_kpa(FIX, "dev")
    api = FakeAnthropicAPI(lambda body: "1: 70")  # never rates key point 2
    judge = ClaudeKeyPointJudge(cache=None, http_client=api.http_client())
    p = judge.predict(data)
    assert p["a1"] == {"k1": 0.7, "k2": 0.0}
    assert judge.describe()["unrated_pairs"] == 12  # the 12 arguments of two-key-point groups


def test_missing_key_is_a_configuration_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(MissingAPIKeyError, match="ANTHROPIC_API_KEY"):
        ClaudeKeyPointJudge(cache=tmp_path / "c.sqlite").predict(load_kpa(FIX, "dev"))


def test_cli_match_with_claude_through_local_fake_server(tmp_path: Path) -> None:
    api = FakeAnthropicAPI(_overlap_responder)
    with api.serve() as url:
        env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": url, "ARGFAITH_CACHE": str(tmp_path / "cache")}
        r = subprocess.run(
            [sys.executable, "-m", "argfaith", "kpa", "match", "--data", str(FIX), "--matcher", "claude", "-o", str(tmp_path / "p.json"), "--score"],
            capture_output=True, text=True, timeout=300, env=env,
        )
    assert r.returncode == 0, r.stderr
    assert len(json.loads((tmp_path / "p.json").read_text())) == 15
    assert "mAP" in r.stdout and KEY not in r.stdout + r.stderr
    assert (tmp_path / "cache" / "llm-requests.sqlite").is_file()
