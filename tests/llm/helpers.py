"""Shared helpers for tests of the LLM plumbing (used by tests/llm and tests/mining/test_claude*)."""

from __future__ import annotations

import time

import pytest

from argfaith.llm.testing import FakeAnthropicAPI, answer_text, user_text

FAKE_KEY = "sk-ant-test-SECRET"

__all__ = ["FAKE_KEY", "FakeAnthropicAPI", "answer_text", "user_text", "api_key", "sleeps"]


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
