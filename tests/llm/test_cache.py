"""The persistent request cache: keys, round trips, concurrency, kill -9 safety."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argfaith.errors import ConfigurationError
from argfaith.llm.cache import CachedResponse, RequestCache, request_key
from argfaith.llm.cost import TokenCounts

texts = st.text(max_size=30)


@given(st.dictionaries(texts, texts, max_size=5), st.dictionaries(texts, texts, max_size=5))
def test_key_depends_on_inputs_only_through_their_content(a, b):
    ka = request_key(model="m", template_version="v1", inputs=a)
    kb = request_key(model="m", template_version="v1", inputs=b)
    assert (ka == kb) == (a == b)
    assert ka == request_key(model="m", template_version="v1", inputs=dict(reversed(list(a.items()))))


def test_key_changes_with_model_template_and_settings():
    base = dict(model="m", template_version="v1", inputs={"s": "x"}, settings={"max_tokens": 64})
    k = request_key(**base)
    assert len(k) == 64 and all(c in "0123456789abcdef" for c in k)  # valid batch custom_id
    for change in ({"model": "m2"}, {"template_version": "v2"}, {"inputs": {"s": "y"}}, {"settings": {"max_tokens": 65}}):
        assert request_key(**{**base, **change}) != k


def test_round_trip_and_first_answer_wins(tmp_path):
    c = RequestCache(tmp_path / "c.sqlite")
    r = CachedResponse("<|ANSWER|>support<|ANSWER|>", "m", "v1", "end_turn", TokenCounts(10, 5, 2, 3), 40, "batch")
    c.put("k", r)
    c.put("k", CachedResponse("other", "m", "v1"))
    got = c.get("k")
    assert got.text == r.text and got.usage == r.usage and got.route == "batch" and got.input_chars == 40
    assert "k" in c and "z" not in c and len(c) == 1
    assert c.get_many(["k", "z"]).keys() == {"k"}
    assert list(c.token_samples()) == [(40, 15)]
    c.close()
    # Persisted across processes/objects.
    assert RequestCache(tmp_path / "c.sqlite").get("k").text == r.text


def test_concurrent_writers_threads(tmp_path):
    c = RequestCache(tmp_path / "c.sqlite")

    def work(t):
        for i in range(100):
            c.put(f"{t}-{i}", CachedResponse(str(i), "m", "v"))

    ts = [threading.Thread(target=work, args=(t,)) for t in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len(c) == 600


def test_not_a_cache_file_is_a_clear_error(tmp_path):
    p = tmp_path / "junk.sqlite"
    p.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(ConfigurationError, match="cannot open the request cache"):
        RequestCache(p)


def test_kill_9_mid_run_keeps_every_committed_answer(tmp_path):
    """A writer killed with SIGKILL loses nothing it reported as stored; the file stays valid."""
    db = tmp_path / "c.sqlite"
    script = textwrap.dedent(
        f"""
        import sys
        from argfaith.llm.cache import RequestCache, CachedResponse
        c = RequestCache({str(db)!r})
        i = 0
        while True:
            c.put(f"k{{i}}", CachedResponse("x" * 200, "m", "v"))
            print(i, flush=True)
            i += 1
        """
    )
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    last = -1
    deadline = time.time() + 60
    while last < 300 and time.time() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        last = int(line)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    assert last >= 300, "writer did not get going"
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    c = RequestCache(db)
    assert all(f"k{i}" in c for i in range(last + 1))


# ---------------------------------------------------------------------------- network filesystems
MOUNTINFO = (
    "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
    "90 22 0:51 / /mnt/shared rw,relatime - nfs4 server:/export rw,vers=4.2\n"
    "91 22 0:52 / /mnt/with\\040space rw - cifs //srv/x rw\n"
    "92 90 0:53 / /mnt/shared/local rw - xfs /dev/sdb1 rw\n"
)


@pytest.mark.parametrize("path, fs", [
    ("/mnt/shared/study-out/llm-requests.sqlite", "nfs4"),
    ("/mnt/shared", "nfs4"),
    ("/mnt/sharedother/x", "ext4"),          # a prefix of the name is not the mount point
    ("/mnt/shared/local/cache.sqlite", "xfs"),  # the longest mount point wins
    ("/mnt/with space/c.sqlite", "cifs"),     # mountinfo escapes spaces as \040
    ("/home/user/c.sqlite", "ext4"),
])
def test_filesystem_type_from_mountinfo(path: str, fs: str) -> None:
    from argfaith.llm.cache import filesystem_type

    assert filesystem_type(path, mountinfo=MOUNTINFO) == fs


def test_cache_on_a_network_filesystem_keeps_no_shared_memory_file(tmp_path, monkeypatch) -> None:
    """WAL's -shm index does not work across hosts: on a network filesystem the cache is opened
    in exclusive locking mode (the index lives in the process) and still stores and finds answers."""
    import argfaith.llm.cache as cache_mod

    monkeypatch.setattr(cache_mod, "on_network_filesystem", lambda path: True)
    path = tmp_path / "shared" / "llm-requests.sqlite"
    with RequestCache(path) as c:
        assert c.exclusive
        c.put("k1", CachedResponse("<|ANSWER|>support<|ANSWER|>", "m", "v1"))
        assert c.get("k1").text.startswith("<|ANSWER|>support")
        assert not os.path.exists(str(path) + "-shm")
        assert c._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert c._conn.execute("PRAGMA locking_mode").fetchone()[0] == "exclusive"
    with RequestCache(path) as c:  # reopened: the answer is there
        assert c.get("k1") is not None


def test_cache_on_a_local_filesystem_is_shared_between_processes(tmp_path) -> None:
    from argfaith.llm.cache import on_network_filesystem

    assert not on_network_filesystem(tmp_path)
    with RequestCache(tmp_path / "c.sqlite") as a, RequestCache(tmp_path / "c.sqlite") as b:
        assert not a.exclusive
        a.put("k", CachedResponse("x", "m", "v1"))
        assert b.get("k") is not None  # a second connection reads it at once (normal WAL mode)


def test_doctests() -> None:
    import doctest

    import argfaith.llm.cache as cache_mod

    failures, tried = doctest.testmod(cache_mod)
    assert failures == 0 and tried >= 3
