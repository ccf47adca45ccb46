"""ARGFAITH_DATA / ARGFAITH_CACHE conventions."""

from __future__ import annotations

import sys

import pytest

from argfaith.datasets.paths import CACHE_ENV, DATA_ENV, cache_dir, data_dir, resolve_data_path
from argfaith.errors import ConfigurationError


def test_data_dir_explicit_wins_over_env(tmp_path, monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    monkeypatch.setenv(DATA_ENV, str(a))
    assert data_dir() == a
    assert data_dir(b) == b


def test_data_dir_unset_or_missing(tmp_path, monkeypatch):
    monkeypatch.delenv(DATA_ENV, raising=False)
    assert data_dir(required=False) is None
    with pytest.raises(ConfigurationError, match=DATA_ENV):
        data_dir()
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "nope"))
    with pytest.raises(ConfigurationError, match="nope"):
        data_dir()


def test_cache_dir_env_default_and_create(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c" and not (tmp_path / "c").exists()  # nothing created implicitly
    assert cache_dir(create=True).is_dir()
    monkeypatch.delenv(CACHE_ENV)
    if sys.platform.startswith("linux"):
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
        assert cache_dir() == tmp_path / "xdg" / "argfaith"
    assert cache_dir(tmp_path / "x") == tmp_path / "x"


def test_resolve_data_path(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    f = tmp_path / "sub" / "pairs.jsonl"
    f.write_text("", encoding="utf-8")
    monkeypatch.chdir(tmp_path / "sub")
    assert resolve_data_path("pairs.jsonl").resolve() == f  # found as given
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    assert resolve_data_path("sub/pairs.jsonl").resolve() == f
    monkeypatch.chdir("/")
    assert resolve_data_path("sub/pairs.jsonl") == tmp_path / "sub" / "pairs.jsonl"  # under $ARGFAITH_DATA
    with pytest.raises(ConfigurationError, match="missing.jsonl"):
        resolve_data_path("missing.jsonl")
    monkeypatch.delenv(DATA_ENV)
    with pytest.raises(ConfigurationError, match="not set"):
        resolve_data_path("missing.jsonl")
