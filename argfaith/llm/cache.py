"""A persistent request cache (sqlite): answered requests are never paid for twice.

Entries are keyed by :func:`request_key`, a SHA-256 of the model id, the prompt template version,
the template's inputs and the generation settings. An entry stores the model's answer text, its
stop reason and token counts, the prompt length in characters (to calibrate token estimates) and
how it was obtained (``direct`` or ``batch``). It never stores the API key, request headers or
the rendered prompt.

Safety:

* each :meth:`RequestCache.put` is its own committed transaction in WAL mode, so a run killed with
  SIGKILL keeps every answer stored before the kill and the file stays consistent;
* one connection per cache object guarded by a lock (thread-safe); several processes may share a
  file (sqlite locking, 30 s busy timeout);
* the first answer stored for a key wins (``INSERT OR IGNORE``), so concurrent writers agree —
  except over a refusal stored by argfaith before issue 16 (refusals are no longer stored, and
  such rows are neither returned nor counted: the request is asked again).
* on a network filesystem (NFS, SMB, Lustre, GPFS, CephFS, ...: an output or cache folder shared
  by a cluster) WAL's shared-memory index does not work, so the file is opened in exclusive
  locking mode (no ``-shm`` file; the WAL index lives in the process's heap). One process then
  holds the file for as long as it is open: in a distributed study that is the process that owns
  the request budget (:mod:`argfaith.study.broker`); workers never open the cache.

Batch bookkeeping (:mod:`argfaith.llm.batches`): a *submission intent* (the custom ids about to be
sent) is committed before each ``POST /v1/messages/batches`` and replaced by the batch id, in one
transaction, when the API answers; an intent left behind by a crash or a lost response is matched
against the API's batch list on the next run, so no batch is submitted twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from argfaith.errors import ConfigurationError
from argfaith.llm.cost import TokenCounts

__all__ = ["CachedResponse", "RequestCache", "request_key", "default_cache_path", "CACHE_FILENAME", "NETWORK_FILESYSTEMS",
           "filesystem_type", "on_network_filesystem"]

CACHE_FILENAME = "llm-requests.sqlite"
_SCHEMA_VERSION = "1"


def request_key(*, model: str, template_version: str, inputs: Mapping[str, Any], settings: Mapping[str, Any] | None = None) -> str:
    """The cache key (64 hex characters) of one request.

    Parameters
    ----------
    model
        Model id as sent to the API.
    template_version
        Version string of the prompt template (changing a template's text must bump it).
    inputs
        The template's inputs (e.g. source, target, topic); JSON-serialisable.
    settings
        Generation settings that can change the answer (max_tokens, thinking, ...).

    The key doubles as the Message Batches ``custom_id`` (allowed: 1-64 of ``[A-Za-z0-9_-]``).

    Examples
    --------
    >>> k = request_key(model="m", template_version="v1", inputs={"a": 1})
    >>> len(k), k == request_key(model="m", template_version="v1", inputs={"a": 1})
    (64, True)
    """
    blob = json.dumps(
        {"model": model, "template": template_version, "inputs": inputs, "settings": dict(settings or {})},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def default_cache_path() -> Path:
    """``$ARGFAITH_CACHE/llm-requests.sqlite`` (the user cache directory when unset)."""
    from argfaith.datasets.paths import cache_dir

    return cache_dir() / CACHE_FILENAME


#: Filesystem types (``/proc/self/mountinfo``) on which sqlite's WAL shared memory is unsafe.
NETWORK_FILESYSTEMS = frozenset({
    "nfs", "nfs4", "cifs", "smb3", "smbfs", "afs", "lustre", "gpfs", "beegfs", "ceph", "glusterfs", "fuse.glusterfs",
    "fuse.sshfs", "fuse.s3fs", "fuse.gcsfuse", "fuse.cephfs", "9p", "panfs", "ocfs2", "gfs2", "orangefs", "wekafs",
})


def filesystem_type(path: str | os.PathLike[str], *, mountinfo: str | None = None) -> str | None:
    """The type of the filesystem holding ``path``: that of the longest mount point above it in
    ``mountinfo`` (default: ``/proc/self/mountinfo``), or None where there is none (not Linux).

    Examples
    --------
    >>> info = "22 1 8:1 / / rw - ext4 /dev/sda1 rw" + chr(10) + "90 22 0:51 / /mnt/shared rw - nfs4 srv:/x rw"
    >>> filesystem_type("/mnt/shared/out/cache.sqlite", mountinfo=info), filesystem_type("/mnt/sharedx", mountinfo=info)
    ('nfs4', 'ext4')
    """
    if mountinfo is None:
        try:
            mountinfo = Path("/proc/self/mountinfo").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    lines = mountinfo.splitlines()
    target = os.path.realpath(path)
    best, best_type = "", None
    for line in lines:
        left, sep, right = line.partition(" - ")
        fields = left.split()
        if not sep or len(fields) < 5:
            continue
        mount = fields[4].replace("\\040", " ")
        inside = target == mount or target.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best):
            best, best_type = mount, (right.split() or [None])[0]
    return best_type


def on_network_filesystem(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` (or its nearest existing parent) is on a network filesystem."""
    p = Path(path).expanduser().absolute()
    while not p.exists() and p.parent != p:
        p = p.parent
    return filesystem_type(p) in NETWORK_FILESYSTEMS


@dataclass(frozen=True, slots=True)
class CachedResponse:
    """A stored answer."""

    text: str
    model: str
    template_version: str
    stop_reason: str | None = None
    usage: TokenCounts = TokenCounts()
    input_chars: int = 0
    route: str = "direct"  # "direct" | "batch"
    created_at: float = 0.0


_DDL = """
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    template_version TEXT NOT NULL,
    text TEXT NOT NULL,
    stop_reason TEXT,
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cache_creation_input_tokens INTEGER NOT NULL DEFAULT 0,
    cache_read_input_tokens INTEGER NOT NULL DEFAULT 0,
    input_chars INTEGER NOT NULL DEFAULT 0,
    route TEXT NOT NULL DEFAULT 'direct',
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS batches (
    batch_id TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS batch_requests (
    custom_id TEXT NOT NULL,
    batch_id TEXT NOT NULL,
    PRIMARY KEY (custom_id, batch_id)
);
CREATE INDEX IF NOT EXISTS batch_requests_by_batch ON batch_requests (batch_id);
CREATE TABLE IF NOT EXISTS batch_intents (
    intent_id TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    custom_ids TEXT NOT NULL,
    created_at REAL NOT NULL
);
"""

# Rows that are answers (a refusal stored by an older argfaith is not one).
_ANSWER = "(stop_reason IS NULL OR stop_reason != 'refusal')"


class RequestCache:
    """A sqlite file of answered requests (and of submitted Message Batches, see
    :mod:`argfaith.llm.batches`).

    Parameters
    ----------
    path
        The sqlite file (created with its parent directory if missing); ``":memory:"`` for a
        throw-away cache.
    exclusive
        Open in exclusive locking mode (no shared-memory WAL index; other processes wait until
        this one closes the file). Default: when the file is on a network filesystem
        (:func:`on_network_filesystem`).

    Raises
    ------
    ConfigurationError
        The file cannot be opened or is not an argfaith request cache.
    """

    def __init__(self, path: str | os.PathLike[str], *, exclusive: bool | None = None) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        if exclusive is None:
            exclusive = self.path != ":memory:" and on_network_filesystem(Path(self.path).expanduser().parent)
        self.exclusive = bool(exclusive)
        self._lock = threading.RLock()
        try:
            # isolation_level=None: autocommit, every statement is its own durable transaction.
            self._conn = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False, isolation_level=None)
            if self.path != ":memory:":
                if self.exclusive:
                    # Before WAL is entered: sqlite then keeps the WAL index in heap memory.
                    self._conn.execute("PRAGMA locking_mode=EXCLUSIVE")
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.executescript(_DDL)
            row = self._conn.execute("SELECT v FROM meta WHERE k='schema'").fetchone()
            if row is None:
                self._conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (_SCHEMA_VERSION,))
            elif row[0] != _SCHEMA_VERSION:
                raise ConfigurationError(f"{self.path}: request cache schema {row[0]!r}, expected {_SCHEMA_VERSION!r}")
        except sqlite3.DatabaseError as e:
            raise ConfigurationError(f"{self.path}: cannot open the request cache ({e})") from e

    # -- answers -------------------------------------------------------------------------------
    def get(self, key: str) -> CachedResponse | None:
        """The stored answer for ``key``, or None."""
        with self._lock:
            row = self._conn.execute(
                "SELECT text, model, template_version, stop_reason, input_tokens, output_tokens, "
                "cache_creation_input_tokens, cache_read_input_tokens, input_chars, route, created_at "
                f"FROM responses WHERE key=? AND {_ANSWER}",
                (key,),
            ).fetchone()
        return None if row is None else _row_to_response(row)

    def get_many(self, keys: Iterable[str]) -> dict[str, CachedResponse]:
        """Stored answers for the keys that have one."""
        out: dict[str, CachedResponse] = {}
        ks = list(dict.fromkeys(keys))
        for i in range(0, len(ks), 500):  # sqlite's parameter limit
            chunk = ks[i : i + 500]
            q = (
                "SELECT key, text, model, template_version, stop_reason, input_tokens, output_tokens, "
                "cache_creation_input_tokens, cache_read_input_tokens, input_chars, route, created_at "
                f"FROM responses WHERE key IN ({','.join('?' * len(chunk))}) AND {_ANSWER}"
            )
            with self._lock:
                rows = self._conn.execute(q, chunk).fetchall()
            for r in rows:
                out[r[0]] = _row_to_response(r[1:])
        return out

    def put(self, key: str, response: CachedResponse) -> bool:
        """Store an answer (committed immediately); True if stored, False if ``key`` already had one.

        A refusal is never stored (it is not an answer: a rerun asks again).
        """
        if response.stop_reason == "refusal":
            return False
        u = response.usage
        with self._lock:
            cur = self._conn.execute(
                "INSERT INTO responses VALUES (?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(key) DO UPDATE SET "
                "model=excluded.model, template_version=excluded.template_version, text=excluded.text, "
                "stop_reason=excluded.stop_reason, input_tokens=excluded.input_tokens, output_tokens=excluded.output_tokens, "
                "cache_creation_input_tokens=excluded.cache_creation_input_tokens, "
                "cache_read_input_tokens=excluded.cache_read_input_tokens, input_chars=excluded.input_chars, "
                "route=excluded.route, created_at=excluded.created_at WHERE responses.stop_reason = 'refusal'",
                (
                    key,
                    response.model,
                    response.template_version,
                    response.text,
                    response.stop_reason,
                    u.input_tokens,
                    u.output_tokens,
                    u.cache_creation_input_tokens,
                    u.cache_read_input_tokens,
                    response.input_chars,
                    response.route,
                    response.created_at or time.time(),
                ),
            )
            return cur.rowcount > 0

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return self._conn.execute(f"SELECT 1 FROM responses WHERE key=? AND {_ANSWER}", (key,)).fetchone() is not None

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute(f"SELECT COUNT(*) FROM responses WHERE {_ANSWER}").fetchone()[0])

    def token_samples(self, model: str | None = None) -> Iterator[tuple[int, int]]:
        """(prompt characters, billed prompt tokens) of stored answers, for
        :meth:`argfaith.llm.cost.TokenEstimator.calibrate`."""
        q = (
            "SELECT input_chars, input_tokens + cache_creation_input_tokens + cache_read_input_tokens "
            "FROM responses WHERE input_chars > 0"
        )
        args: tuple[str, ...] = ()
        if model is not None:
            q += " AND model=?"
            args = (model,)
        with self._lock:
            rows = self._conn.execute(q, args).fetchall()
        yield from ((int(a), int(b)) for a, b in rows)

    # -- batch bookkeeping (used by argfaith.llm.batches) -----------------------------------------
    def record_batch(self, batch_id: str, model: str, custom_ids: Iterable[str], *, intent_id: str | None = None) -> None:
        """Persist a submitted batch and its custom ids (and drop its submission intent) in one
        transaction."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(
                    "INSERT OR REPLACE INTO batches VALUES (?,?,?,?)", (batch_id, model, "submitted", time.time())
                )
                self._conn.executemany(
                    "INSERT OR IGNORE INTO batch_requests VALUES (?,?)", ((c, batch_id) for c in custom_ids)
                )
                if intent_id is not None:
                    self._conn.execute("DELETE FROM batch_intents WHERE intent_id=?", (intent_id,))
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    def record_intent(self, intent_id: str, model: str, custom_ids: Iterable[str], created_at: float | None = None) -> None:
        """Persist the custom ids of a batch about to be submitted (before the HTTP request)."""
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO batch_intents VALUES (?,?,?,?)",
                (intent_id, model, json.dumps(list(custom_ids)), time.time() if created_at is None else created_at),
            )

    def drop_intent(self, intent_id: str) -> None:
        """Forget a submission intent (the batch was certainly not created)."""
        with self._lock:
            self._conn.execute("DELETE FROM batch_intents WHERE intent_id=?", (intent_id,))

    def open_intents(self) -> list[tuple[str, str, list[str], float]]:
        """Submission intents whose outcome is unknown: (intent id, model, custom ids, time)."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT intent_id, model, custom_ids, created_at FROM batch_intents ORDER BY created_at"
            ).fetchall()
        return [(r[0], r[1], list(json.loads(r[2])), float(r[3])) for r in rows]

    def known_batch_ids(self) -> set[str]:
        """Every batch id recorded in this cache (any status)."""
        with self._lock:
            return {r[0] for r in self._conn.execute("SELECT batch_id FROM batches").fetchall()}

    def batch_custom_ids(self, batch_id: str) -> set[str]:
        """The custom ids recorded for ``batch_id``."""
        with self._lock:
            rows = self._conn.execute("SELECT custom_id FROM batch_requests WHERE batch_id=?", (batch_id,)).fetchall()
        return {r[0] for r in rows}

    def set_batch_status(self, batch_id: str, status: str) -> None:
        with self._lock:
            self._conn.execute("UPDATE batches SET status=? WHERE batch_id=?", (status, batch_id))

    def open_batches(self, custom_ids: Iterable[str]) -> dict[str, list[str]]:
        """Uncollected batches that contain any of ``custom_ids``: batch id → those custom ids."""
        wanted = set(custom_ids)
        with self._lock:
            rows = self._conn.execute(
                "SELECT r.batch_id, r.custom_id FROM batch_requests r JOIN batches b ON b.batch_id = r.batch_id "
                "WHERE b.status = 'submitted' ORDER BY b.created_at"
            ).fetchall()
        out: dict[str, list[str]] = {}
        for bid, cid in rows:
            if cid in wanted:
                out.setdefault(bid, []).append(cid)
        return out

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> RequestCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RequestCache({self.path!r})"


def _row_to_response(r: tuple[Any, ...]) -> CachedResponse:
    return CachedResponse(
        text=r[0],
        model=r[1],
        template_version=r[2],
        stop_reason=r[3],
        usage=TokenCounts(int(r[4]), int(r[5]), int(r[6]), int(r[7])),
        input_chars=int(r[8]),
        route=r[9],
        created_at=float(r[10]),
    )
