"""`argfaith summarize` through the real entry point (subprocess) against a local fake API."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from argfaith.llm.testing import FakeAnthropicAPI, user_text
from tests.llm.helpers import run_argfaith_llm
from argfaith.mining.prompts import summary_prompt

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-ant-test-SECRET"

TRANSCRIPT = """# title: School uniforms (debate)
# id: uniforms
[PAR-1] Provision: 1. Requires pupils to wear uniforms.
[1] President: The debate is open.
[2] Alice: Uniforms reduce bullying.
They also save time in the morning.
[3] Bob: They cost families money.
"""
SUMMARY = "Alice argued that uniforms reduce bullying, while Bob objected to their cost."


@pytest.fixture
def debate_file(tmp_path: Path) -> Path:
    p = tmp_path / "uniforms.txt"
    p.write_text(TRANSCRIPT, encoding="utf-8")
    return p


def run(args: list[str], tmp_path: Path, *, key: str | None = KEY, base_url: str | None = None) -> subprocess.CompletedProcess:
    return run_argfaith_llm("summarize", args, tmp_path, key=key, base_url=base_url)


def test_without_a_key_is_a_clear_error(debate_file, tmp_path):
    r = run([str(debate_file)], tmp_path, key=None)
    assert r.returncode == 2
    assert "error: ANTHROPIC_API_KEY is not set" in r.stderr and "--dry-run" in r.stderr
    assert "Traceback" not in r.stderr


def test_dry_run_needs_no_key_and_sends_nothing(debate_file, tmp_path):
    r = run([str(debate_file), "--dry-run", "--model", "claude-haiku-4-5"], tmp_path, key=None)
    assert r.returncode == 0, r.stderr
    assert "dry run: nothing sent" in r.stdout and "3 interventions" in r.stdout
    assert "claude-haiku-4-5" in r.stdout and "$" in r.stdout


def test_bad_debate_path_names_the_file(tmp_path):
    r = run([str(tmp_path / "nope.txt")], tmp_path)
    assert r.returncode == 2 and "nope.txt" in r.stderr and "Traceback" not in r.stderr


def test_summarize_end_to_end_then_cached_rerun(debate_file, tmp_path):
    api = FakeAnthropicAPI(lambda body: SUMMARY)
    out = tmp_path / "summary.json"
    with api.serve() as url:
        r = run([str(debate_file), "--out", str(out)], tmp_path, base_url=url)
        assert r.returncode == 0, r.stderr
        (call,) = api.message_calls()
        transcript = (
            "[1] President: The debate is open.\n"
            "[2] Alice: Uniforms reduce bullying. They also save time in the morning.\n"
            "[3] Bob: They cost families money."
        )
        assert call.body["messages"] == [{"role": "user", "content": summary_prompt(transcript, "School uniforms (debate)")}]
        assert "system" not in call.body and call.body["max_tokens"] == 4096
        assert call.body["model"] == "claude-haiku-5-5"
        data = json.loads(out.read_text(encoding="utf-8"))
        assert data["text"] == SUMMARY and data["debate_id"] == "uniforms" and data["prompt"] == "summary-v1"
        # The written file is a summary argfaith can read back (e.g. for `mine --summary`).
        from argfaith.datasets.documents import load_summary

        assert load_summary(out).text == SUMMARY
        # Rerun: answered from the request cache, no request, no key needed.
        r2 = run([str(debate_file)], tmp_path, key=None, base_url=url)
        assert r2.returncode == 0, r2.stderr
        assert r2.stdout.strip() == SUMMARY and "free (cached)" in r2.stderr
        assert len(api.message_calls()) == 1
    for blob in (r.stdout, r.stderr, r2.stdout, r2.stderr, out.read_text(), *(
        f.read_bytes().decode("latin-1") for f in (tmp_path / "cache").glob("*")
    )):
        assert KEY not in blob


def test_no_title_drops_the_title_line(debate_file, tmp_path):
    api = FakeAnthropicAPI(lambda body: SUMMARY)
    with api.serve() as url:
        r = run([str(debate_file), "--no-title", "--no-cache", "--model", "claude-haiku-4-5"], tmp_path, base_url=url)
    assert r.returncode == 0, r.stderr
    prompt = user_text(api.message_calls()[0].body)
    assert "Title:" not in prompt and prompt.startswith("Please provide a comprehensive summary")
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())
