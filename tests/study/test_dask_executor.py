"""The Dask executor on real local clusters started by the tests (2 worker processes each):
identical outputs to the local executor, a worker killed mid-run, an interrupted run resumed,
classifiers loaded once per worker, and Claude kept in the main process (one request budget)."""

from __future__ import annotations

import json
import logging
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

distributed = pytest.importorskip("distributed")  # the 'test' extra installs it; CI never skips

from argfaith.study import StudyConfig, run_study  # noqa: E402
from argfaith.study.sources import run_source_stats  # noqa: E402

from .conftest import DEBATE_A, DEBATE_B, CountingClassifier  # noqa: E402

pytestmark = pytest.mark.slow


def _cluster(allowed_failures: int = 3) -> Any:
    import dask

    with dask.config.set({"distributed.scheduler.allowed-failures": allowed_failures}):
        return distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0",
                                        silence_logs=logging.CRITICAL)


@pytest.fixture(scope="module")
def cluster() -> Any:
    c = _cluster()
    yield c
    c.close()


def _config(data: Path, out: Path, **kw: Any) -> StudyConfig:
    kw.setdefault("baselines", "rouge")
    kw.setdefault("plots", False)
    kw.setdefault("classifier", "lexical")
    return StudyConfig(debates=data / "ep_debates", summaries=data / "ep_summaries", out=out, **kw)


def _strip(obj: Any, out: Path) -> Any:
    """``obj`` without timings and with the output folder's path replaced (what may differ)."""
    if isinstance(obj, dict):
        return {k: _strip(v, out) for k, v in obj.items() if not k.endswith("seconds") and k not in ("started", "finished", "updated")}
    if isinstance(obj, list):
        return [_strip(v, out) for v in obj]
    if isinstance(obj, str):
        return obj.replace(str(out), "OUT")
    return obj


def assert_same_outputs(a: Path, b: Path, *, checkpoints: bool = True) -> int:
    """Every output file of ``a`` is in ``b`` and equal: mined QBAFs, checkpoints and Markdown
    byte for byte; JSON up to timings and the folder's own path. Returns the files compared.

    ``checkpoints=False`` leaves out the pair checkpoints' contents (after an interruption they
    log the chunks in the order they were done, which resuming changes; the labels are in the
    QBAFs, compared byte for byte)."""
    skip = {"study.json", "table.csv"}  # manifest (runs, timings) and the CSV's timing columns; table.json covers the rows

    def listed(root: Path) -> list[Path]:
        return sorted(p.relative_to(root) for p in root.rglob("*")
                      if p.is_file() and p.name not in skip and (checkpoints or not p.name.endswith(".pairs.jsonl")))

    files = listed(a)
    assert files == listed(b)
    for rel in files:
        x, y = (a / rel).read_bytes(), (b / rel).read_bytes()
        if rel.suffix == ".json" and rel.parts[0] != "mined":
            assert _strip(json.loads(x), a) == _strip(json.loads(y), b), rel
        elif rel.suffix == ".html":
            assert x.replace(str(a).encode(), b"OUT") == y.replace(str(b).encode(), b"OUT"), rel
        else:
            assert x == y, rel
    return len(files)


def test_dask_run_equals_the_local_executor(corpus: Path, tmp_path: Path, cluster: Any) -> None:
    local = run_study(_config(corpus, tmp_path / "local", html=True))
    events: list[tuple[Any, ...]] = []
    dask_ = run_study(_config(corpus, tmp_path / "dask", html=True, executor="dask", scheduler=cluster.scheduler_address),
                      on_event=events.append)
    assert (dask_.n_ok, dask_.n_skipped, dask_.n_failed) == (local.n_ok, local.n_skipped, local.n_failed) == (5, 1, 0)
    assert assert_same_outputs(tmp_path / "local", tmp_path / "dask") > 30
    kinds = [e[0] for e in events]
    assert kinds[0] == "start" and kinds.count("item") == 6 and kinds.count("debate_done") == 2
    assert "pairs" in kinds and "phase" in kinds and "retry" not in kinds
    manifest = json.loads((tmp_path / "dask" / "study.json").read_text())
    run = manifest["runs"][-1]
    assert run["executor"] == "dask" and run["workers"] == 2 and run["retried"] == {} and run["interrupted"] is False
    # workers built the classifier from its spec once each, and kept it
    from argfaith.study import runner

    with distributed.Client(cluster) as client:
        built = client.run(lambda: sorted(str(k) for k in runner._WORKER if isinstance(k, tuple) and k[0] == "clf"))
    assert all(v in ([], ["('clf', 'lexical')"]) for v in built.values()) and any(built.values())


def test_local_cluster_started_by_the_run(corpus: Path, tmp_path: Path) -> None:
    """Without --scheduler the run starts (and shuts down) a local cluster of ``jobs`` workers."""
    local = run_study(_config(corpus, tmp_path / "local"))
    res = run_study(_config(corpus, tmp_path / "dask", executor="dask", jobs=1))
    strip = lambda rows: [{k: v for k, v in r.items() if not k.endswith("_seconds")} for r in rows]  # noqa: E731
    assert strip(res.rows) == strip(local.rows) and res.n_ok == 5
    assert json.loads((tmp_path / "dask" / "study.json").read_text())["runs"][-1]["workers"] == 1


# ---------------------------------------------------------------------------- classifiers sent to workers
LOADS = 0
SEEN = 0


class LoadCountingClassifier(CountingClassifier):
    """Counts, per process, how often it was unpickled (= loaded by a worker) and the pairs its
    copies classified (module globals: they outlive the copy, which the run releases)."""

    def __setstate__(self, state: dict[str, Any]) -> None:
        global LOADS
        LOADS += 1
        self.__dict__.update(state)

    def classify(self, pairs, *, progress=None):  # type: ignore[no-untyped-def]
        global SEEN
        SEEN += len(pairs)
        return super().classify(pairs, progress=progress)


def _loads() -> int:
    return LOADS


def _seen_here() -> int:
    return SEEN


def test_a_classifier_object_is_loaded_once_per_worker(corpus: Path, tmp_path: Path) -> None:
    cl = _cluster()
    try:
        res = run_study(_config(corpus, tmp_path / "dask", executor="dask", scheduler=cl.scheduler_address,
                                chunk_size=7), classifier=LoadCountingClassifier())
        assert res.n_ok == 5
        with distributed.Client(cl) as client:
            loads = client.run(_loads)
            seen = client.run(_seen_here)
        assert sorted(loads.values()) == [1, 1]  # scattered to both workers, unpickled once each
        from .test_runner import _all_pairs

        assert sum(seen.values()) == sum(_all_pairs(corpus).values())  # each pair once, cluster-wide
    finally:
        cl.close()


# ---------------------------------------------------------------------------- a worker dies
class KillingClassifier(CountingClassifier):
    """Kills its own worker process (SIGKILL) after ``kill_after`` pairs whose source text contains
    ``match`` — once (a marker file decides which process does it), or on every attempt."""

    def __init__(self, marker: Path, kill_after: int, match: str = "", every_time: bool = False) -> None:
        super().__init__(fingerprint="counting-v1")
        self._marker = str(marker)
        self._kill_after = kill_after
        self._match = match
        self._every_time = every_time
        self._hits = 0

    def classify(self, pairs, *, progress=None):  # type: ignore[no-untyped-def]
        for q in pairs:
            if self._match in q.source:
                self._hits += 1
                if self._hits >= self._kill_after and self._claim():
                    os.kill(os.getpid(), signal.SIGKILL)
        return super().classify(pairs, progress=progress)

    def _claim(self) -> bool:
        if self._every_time:
            return True
        try:
            os.close(os.open(self._marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return False
        return True


def test_killed_worker_is_retried_and_nothing_is_lost(corpus: Path, tmp_path: Path) -> None:
    ref = tmp_path / "local"
    run_study(_config(corpus, ref, chunk_size=1), classifier=KillingClassifier(tmp_path / "never", kill_after=10**9))
    cl = _cluster()
    try:
        events: list[tuple[Any, ...]] = []
        marker = tmp_path / "killed"
        # The 40th source-side pair of the first (largest) debate: mid-way through its source mining.
        res = run_study(_config(corpus, tmp_path / "dask", executor="dask", scheduler=cl.scheduler_address, chunk_size=1),
                        classifier=KillingClassifier(marker, kill_after=40), on_event=events.append)
    finally:
        cl.close()
    assert marker.exists()  # a worker really died
    assert (res.n_ok, res.n_failed) == (5, 0)
    # the task that was running is re-run (and a finished source result that lived only on the
    # dead worker is recomputed — from its saved QBAF — if summaries still needed it)
    retries = [e for e in events if e[0] == "retry"]
    assert retries and all(e[3] == 2 for e in retries)
    items = {f"{e[1]}/{e[2]}" for e in retries}
    for item in items:
        assert f"retried after a lost worker: {item} (2 attempts)" in res.notes
    run = json.loads((tmp_path / "dask" / "study.json").read_text())["runs"][-1]
    assert set(run["retried"]) == items and all(len(w) == 2 for w in run["retried"].values())
    assert_same_outputs(ref, tmp_path / "dask")


def test_a_worker_lost_on_every_attempt_fails_its_items_by_name(corpus: Path, tmp_path: Path) -> None:
    from argfaith.datasets.documents import load_debate

    deb = load_debate(corpus / "ep_debates" / "debates" / DEBATE_B)
    text_a = " ".join(p.read_text() for p in corpus.rglob("*.json") if DEBATE_A in str(p))
    # a word of debate B's speeches that debate A and its summaries never use: only B's pairs match
    word = max((w for i in deb.interventions for w in i.text.split() if w.isalpha() and w not in text_a), key=len)
    cl = _cluster(allowed_failures=1)
    try:
        res = run_study(_config(corpus, tmp_path / "dask", executor="dask", scheduler=cl.scheduler_address, retries=0),
                        classifier=KillingClassifier(tmp_path / "m", kill_after=1, match=word, every_time=True))
    finally:
        cl.close()
    failed = dict(res.failed)
    assert set(failed) == {f"{DEBATE_B}/{v}" for v in ("claude_en_zero_shot", "claude_structured_org", "gpt_structured_en")}
    for item, note in failed.items():
        assert item in note and "worker was lost" in note
    assert res.n_ok == 2  # debate A is done
    # and a rerun on a healthy cluster finishes the failed items only
    res2 = run_study(_config(corpus, tmp_path / "dask", executor="dask", jobs=2),
                     classifier=KillingClassifier(tmp_path / "m", kill_after=10**9))
    assert (res2.n_ok, res2.n_failed, res2.n_reused) == (5, 0, 3)


# ---------------------------------------------------------------------------- interrupted, resumed
class SlowClassifier(CountingClassifier):
    """Takes ``delay`` seconds per pair (private: not part of its fingerprint)."""

    def __init__(self, delay: float = 0.03) -> None:
        super().__init__()
        self._delay = delay

    def classify(self, pairs, *, progress=None):  # type: ignore[no-untyped-def]
        time.sleep(self._delay * len(pairs))
        return super().classify(pairs, progress=progress)


def test_interrupted_distributed_run_resumes(corpus: Path, tmp_path: Path, cluster: Any) -> None:
    out = tmp_path / "dask"

    def stop_at_first_item(ev: tuple[Any, ...]) -> None:
        if ev[0] == "item":
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_study(_config(corpus, out, executor="dask", scheduler=cluster.scheduler_address, chunk_size=1),
                  classifier=SlowClassifier(), on_event=stop_at_first_item)
    manifest = json.loads((out / "study.json").read_text())
    assert manifest["runs"][-1]["interrupted"] is True
    done = {k for k, v in manifest["items"].items() if v.get("status") in ("ok", "skipped")}
    assert 1 <= len(done) < 6
    # the running tasks noticed the stop (at a chunk boundary) and the cluster is idle again
    with distributed.Client(cluster) as client:
        deadline = time.monotonic() + 20
        while any(client.processing().values()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(client.processing().values())
    rows_before = {p: p.stat().st_mtime_ns for p in (out / "rows").rglob("*.json")}
    res = run_study(_config(corpus, out, executor="dask", scheduler=cluster.scheduler_address, chunk_size=1),
                    classifier=SlowClassifier(0.0))
    assert res.n_reused == len(done) and res.n_done_now == 6 - len(done) and res.n_ok == 5
    for p, t in rows_before.items():  # finished items were not redone
        assert p.stat().st_mtime_ns == t, p
    ref = tmp_path / "local"
    run_study(_config(corpus, ref, chunk_size=1), classifier=SlowClassifier(0.0))
    assert_same_outputs(ref, out, checkpoints=False)
    assert sorted(p.name for p in (ref / "mined").rglob("*.pairs.jsonl")) == sorted(p.name for p in (out / "mined").rglob("*.pairs.jsonl"))


# ---------------------------------------------------------------------------- source-only statistics
def test_source_only_statistics_on_dask_equal_local(corpus: Path, tmp_path: Path, cluster: Any) -> None:
    deb = corpus / "ep_debates"
    a = run_source_stats(deb, tmp_path / "local", classifier="lexical", plots=False)
    b = run_source_stats(deb, tmp_path / "dask", classifier="lexical", plots=False, executor="dask", scheduler=cluster.scheduler_address)
    assert a["debates_ok"] == b["debates_ok"] == 2
    for did in (DEBATE_A, DEBATE_B):
        x = json.loads((tmp_path / "local" / "sources" / f"{did}.json").read_text())
        y = json.loads((tmp_path / "dask" / "sources" / f"{did}.json").read_text())
        assert _strip(x, tmp_path / "local") == _strip(y, tmp_path / "dask")
    assert (tmp_path / "local" / "source_stats.md").read_text() != ""
    strip = lambda s: {k: v for k, v in s.items() if k not in ("seconds", "us_per_pair", "wall_seconds_this_run")}  # noqa: E731
    assert strip(a) == strip(b)


# ---------------------------------------------------------------------------- Claude: one budget owner
def test_claude_requests_are_sent_by_the_main_process_only(corpus: Path, tmp_path: Path, cluster: Any,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers get a stand-in: every request goes through the main process's client (the fake API
    lives there, workers have no key), no more requests than a single-process run, one cache."""
    from argfaith.llm import RequestCache
    from argfaith.llm.testing import FakeAnthropicAPI
    from argfaith.mining.classifiers.claude import ClaudeRelationClassifier
    from tests.mining.test_claude_classifier import oracle

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-SECRET")

    def claude(api: FakeAnthropicAPI, cache: Path) -> ClaudeRelationClassifier:
        return ClaudeRelationClassifier("claude-haiku-4-5", http_client=api.http_client(), cache=RequestCache(cache), max_concurrency=2)

    api_local, api_dask = FakeAnthropicAPI(oracle), FakeAnthropicAPI(oracle)
    run_study(_config(corpus, tmp_path / "local"), classifier=claude(api_local, tmp_path / "c1.sqlite"))
    res = run_study(_config(corpus, tmp_path / "dask", executor="dask", scheduler=cluster.scheduler_address),
                    classifier=claude(api_dask, tmp_path / "c2.sqlite"))
    assert res.n_ok == 5 and res.n_failed == 0
    assert_same_outputs(tmp_path / "local", tmp_path / "dask")
    bodies = lambda api: sorted(json.dumps(r.body, sort_keys=True) for r in api.message_calls())  # noqa: E731
    assert len(api_dask.message_calls()) == len(api_local.message_calls()) > 0
    assert bodies(api_dask) == bodies(api_local)  # the same requests, each sent once
    owner = json.loads((tmp_path / "dask" / "study.json").read_text())["runs"][-1]["budget_owner"]
    assert owner["pairs"] == sum(json.loads(p.read_text())["row"]["summary_pairs"] or 0
                                 for p in (tmp_path / "dask" / "rows").rglob("*.json")) + 165 + 63
    assert owner["classify_calls"] <= owner["requests"]
    # the cache is the main process's: a rerun into a fresh folder sends nothing
    api_again = FakeAnthropicAPI(oracle)
    res2 = run_study(_config(corpus, tmp_path / "again", executor="dask", scheduler=cluster.scheduler_address),
                     classifier=claude(api_again, tmp_path / "c2.sqlite"))
    assert res2.n_ok == 5 and api_again.message_calls() == []


def test_budget_owner_failure_fails_the_items_with_its_message(corpus: Path, tmp_path: Path, cluster: Any,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from argfaith.mining.classifiers.claude import ClaudeRelationClassifier

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    res = run_study(_config(corpus, tmp_path / "dask", executor="dask", scheduler=cluster.scheduler_address),
                    classifier=ClaudeRelationClassifier("claude-haiku-4-5", cache=None))
    assert res.n_ok == 0 and res.n_failed == 6  # the source step fails first, so all six items
    for item, note in res.failed:
        assert "ANTHROPIC_API_KEY" in note and "main process" in note, (item, note)
