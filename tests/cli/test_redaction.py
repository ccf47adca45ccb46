"""Secrets never reach the terminal: an API error body that echoes the key is printed redacted,
whatever the key looks like, through the real SDK and the real entry point."""

from __future__ import annotations

from pathlib import Path

import pytest

from argfaith.errors import redact
from tests.llm.helpers import FakeAnthropicAPI, run_argfaith_llm
from argfaith.llm.testing import Fail

DEBATE = Path(__file__).resolve().parents[2] / "examples" / "debate" / "debate.json"


def test_redact_env_value_and_key_shapes(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "plain-looking-token-42")
    assert redact("bad key plain-looking-token-42 here") == "bad key [REDACTED] here"
    assert redact("x sk-ant-api03-Zz_9-abcdefgh y") == "x [REDACTED] y"
    assert redact("Authorization: Bearer abcdefghijklmnopqrstuvwxyz") == "Authorization: [REDACTED]"
    assert redact("nothing secret, sk-ant is a prefix") == "nothing secret, sk-ant is a prefix"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "short")  # too short to redact without mangling text
    assert redact("a short word") == "a short word"


@pytest.mark.parametrize("key", ["sk-ant-test-SECRET", "k3y-that-only-the-env-knows-7"])
def test_server_error_echoing_the_key_prints_redacted(key, tmp_path):
    api = FakeAnthropicAPI(lambda body: Fail(401, "authentication_error", f"invalid x-api-key: {key} (echoed by a proxy)"))
    with api.serve() as url:
        r = run_argfaith_llm("summarize", [str(DEBATE)], tmp_path, key=key, base_url=url)
    assert r.returncode == 2, r.stderr
    assert key not in r.stderr and key not in r.stdout
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: the Anthropic API rejected the API key (HTTP 401")
    assert "[REDACTED]" in lines[0] and "Traceback" not in r.stderr
