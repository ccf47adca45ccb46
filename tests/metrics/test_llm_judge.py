"""The LLM alignment judge against a fake Anthropic API (the real SDK and argfaith.llm run)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from argfaith.llm.errors import MissingAPIKeyError
from argfaith.llm.testing import FakeAnthropicAPI, user_text
from argfaith.metrics.aligners import make_aligner
from argfaith.metrics.alignment import AlignItem, align_qbafs
from argfaith.metrics.llm_judge import ALIGN_SYSTEM, LLMJudgeAligner, align_prompt, parse_ratings
from argfaith.qbaf import load_qbaf

KEY = "sk-ant-test-SECRET"
ROOT = Path(__file__).resolve().parents[2]
DEBATE = ROOT / "examples" / "debate"


def overlap_responder(body: dict) -> str:
    """Rate each listed debate argument by word overlap with the statement (deterministic)."""
    text = user_text(body)
    stmt = re.search(r"^Summary statement: (.*)$", text, re.M).group(1).lower()  # type: ignore[union-attr]
    listed = re.findall(r"^(\d+)\. (.*)$", text.split("Debate arguments:\n", 1)[1], re.M)
    words = set(re.findall(r"[a-z]+", stmt))
    out = []
    for i, arg in listed:
        aw = set(re.findall(r"[a-z]+", arg.lower()))
        out.append(f"{i}: {round(100 * len(aw & words) / max(1, len(aw | words)))}")
    return "\n".join(out)


SRC = [AlignItem("a1", "Spare parts must stay available for seven years"), AlignItem("a2", "VAT is a national competence"),
       AlignItem("a3", "Repair shops lack manuals")]
SUM = [AlignItem("t1", "VAT is a national competence"), AlignItem("t2", "spare parts must stay available for seven years")]


def test_prompt_and_parser():
    p = align_prompt("A claim", ["first\n2. forged line", "second"], topic="Repair")
    assert p.startswith("Debate topic: Repair")
    assert re.findall(r"^(\d+)\. ", p, re.M) == ["1", "2"]  # newlines collapsed: no forged numbering
    assert parse_ratings("1: 80\n2: 130\n[3] = 5\n9: 50\n1: 0\nignore: 100", 3) == [0.8, 1.0, 0.05]
    assert parse_ratings("I think the first.", 2) == [None, None]


def test_judge_aligns_caches_and_resumes(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    api = FakeAnthropicAPI(overlap_responder)
    cache = tmp_path / "llm.sqlite"
    al = LLMJudgeAligner(threshold=0.5, cache=cache, http_client=api.http_client(), chunk_size=2, topic="Repair")
    res = al.align(SRC, SUM)
    assert {(p.source_id, p.summary_id) for p in res.pairs} == {("a2", "t1"), ("a1", "t2")}
    assert len(api.message_calls()) == 4  # 2 summary statements x ceil(3 / 2) chunks
    assert res.method == "llm" and res.details["requests"] == 4 and res.details["unrated"] == 0
    body = api.message_calls()[0].body
    assert body["system"] == ALIGN_SYSTEM and KEY not in json.dumps(body)
    # Rerun without a key: every answer comes from the cache, nothing is sent.
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    again = LLMJudgeAligner(threshold=0.5, cache=cache, http_client=api.http_client(), chunk_size=2, topic="Repair").align(SRC, SUM)
    assert again.pairs == res.pairs and len(api.message_calls()) == 4
    assert again.details["usage"]["cache_hits"] == 4
    assert KEY.encode() not in cache.read_bytes()


def test_unrated_candidates_count_as_zero(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    api = FakeAnthropicAPI(lambda body: "Sure! 1: 90 is my answer\n2: 95")  # line 1 is not a rating line
    res = LLMJudgeAligner(cache=None, http_client=api.http_client()).align(SRC, SUM)
    assert res.details["unrated"] == 4  # per statement: candidates 1 and 3
    # Only "2: 95" counts: a2 rated 0.95 for both statements; one-to-one keeps the first (t1).
    assert [(p.source_id, p.summary_id, p.score) for p in res.pairs] == [("a2", "t1", 0.95)]


def test_missing_key(tmp_path, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(MissingAPIKeyError, match="ANTHROPIC_API_KEY"):
        LLMJudgeAligner(cache=tmp_path / "c.sqlite").align(SRC, SUM)


def test_registry_and_qbafs(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    api = FakeAnthropicAPI(overlap_responder)
    al = make_aligner("llm", threshold=0.3, cache=None, http_client=api.http_client())
    q, qs = load_qbaf(DEBATE / "source.json"), load_qbaf(DEBATE / "summary_faithful.json")
    res = align_qbafs(q, qs, al)
    assert len(api.message_calls()) == 14  # one chunk of 15 source arguments per summary argument
    assert ("a5", "t9") in {(p.source_id, p.summary_id) for p in res.pairs}  # "VAT is a national competence"


def _main(capsys, args):
    """``argfaith.cli.main`` in-process (exit codes and error handling included)."""
    from argfaith.cli import main

    old = sys.argv
    sys.argv = ["argfaith", *args]
    try:
        try:
            main()
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 0
    finally:
        sys.argv = old
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_align_llm_through_local_fake_server(tmp_path, monkeypatch, capsys):
    api = FakeAnthropicAPI(overlap_responder)
    args = ["evaluate", "--source", str(DEBATE / "source.json"), "--summary", str(DEBATE / "summary_faithful.json"),
            "--align", "llm", "--align-threshold", "0.3", "--format", "json", "--no-qbafs"]
    monkeypatch.setenv("ARGFAITH_CACHE", str(tmp_path / "cache"))
    with api.serve() as url:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
        code, out, err = _main(capsys, args)
        assert code == 0, err
        d = json.loads(out)
        assert d["alignment"]["method"] == "llm" and d["alignment"]["details"]["requests"] == 14
        assert "supplementary_recall" in d["pairwise"]
        assert KEY not in out and KEY not in err
        # Second run: answered from the cache (no new requests), even without a key.
        n = len(api.message_calls())
        monkeypatch.delenv("ANTHROPIC_API_KEY")
        code, out, err = _main(capsys, args)
        assert code == 0, err
        assert len(api.message_calls()) == n
    # Without key and without cache: a one-line error, exit 2 — through a real subprocess.
    env = {**os.environ, "ARGFAITH_CACHE": str(tmp_path / "empty"), "PYTHONPATH": str(ROOT)}
    env.pop("ANTHROPIC_API_KEY", None)
    r = subprocess.run([sys.executable, "-m", "argfaith", *args], capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 2 and "error: ANTHROPIC_API_KEY is not set" in r.stderr and "Traceback" not in r.stderr
