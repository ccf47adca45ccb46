"""The client factory: key from the environment only, retries configured, key never logged."""

from __future__ import annotations

import logging

import pytest

from argfaith.errors import ConfigurationError
from argfaith.llm.client import DEFAULT_MAX_RETRIES, api_key_available, make_client, override_http_client
from argfaith.llm.testing import FakeAnthropicAPI, answer_text
from tests.llm.helpers import FAKE_KEY


def test_missing_key_is_a_configuration_error(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert not api_key_available()
    with pytest.raises(ConfigurationError, match="ANTHROPIC_API_KEY is not set"):
        make_client()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "   ")
    with pytest.raises(ConfigurationError):
        make_client()


def test_key_only_from_environment(api_key):
    with pytest.raises(TypeError, match="only"):
        make_client(api_key="sk-other")
    c = make_client()
    assert c.max_retries == DEFAULT_MAX_RETRIES
    assert api_key_available()


def test_requests_carry_the_key_header_and_nothing_leaks_to_logs(api_key, caplog):
    api = FakeAnthropicAPI(lambda body: answer_text("support"))
    caplog.set_level(logging.DEBUG)
    # An innocent log line that happens to contain the key is masked by the filter.
    with override_http_client(api.http_client()):
        c = make_client()
        c.messages.create(model="claude-haiku-5-5", max_tokens=8, messages=[{"role": "user", "content": "x"}])
    logging.getLogger("anthropic").debug("debugging %s", FAKE_KEY)
    (call,) = api.message_calls()
    auth = {k.lower(): v for k, v in call.headers.items()}
    assert FAKE_KEY in auth.get("authorization", "") + auth.get("x-api-key", "")
    assert caplog.records, "debug logging was on"
    assert FAKE_KEY not in caplog.text
    assert "[REDACTED]" in caplog.text
