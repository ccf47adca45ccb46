"""Shared helpers for tests of the LLM plumbing (used by tests/llm and tests/mining/test_claude*)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from argfaith.llm.testing import FakeAnthropicAPI, answer_text, user_text

FAKE_KEY = "sk-ant-test-SECRET"

__all__ = ["FAKE_KEY", "FakeAnthropicAPI", "answer_text", "user_text", "api_key", "sleeps", "run_argfaith_llm"]


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """A fake key in the environment (never a real one)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    return FAKE_KEY


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record (instead of doing) the SDK's retry sleeps, so retry tests are instant."""
    recorded: list[float] = []
    monkeypatch.setattr(time, "sleep", lambda s: recorded.append(float(s)))
    return recorded


def run_argfaith_llm(
    command: str, args: list[str], tmp_path: Path, *, key: str | None = FAKE_KEY, base_url: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m argfaith COMMAND ARGS`` in a subprocess with a clean Anthropic environment: the
    request cache in ``tmp_path/cache``, the fake key (or none) and an optional fake-API base URL."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["ARGFAITH_CACHE"] = str(tmp_path / "cache")
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    if key:
        env["ANTHROPIC_API_KEY"] = key
    if base_url:
        env["ANTHROPIC_BASE_URL"] = base_url
    return subprocess.run(
        [sys.executable, "-m", "argfaith", command, *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
    )
