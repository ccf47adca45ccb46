"""Smoke run of benchmarks/engine.py --quick (correctness assertions inside the benchmark run too)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def test_engine_benchmark_quick(tmp_path):
    out = tmp_path / "engine.json"
    r = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "engine.py"), "--quick", "--repeat", "1", "--skip-bipolar", "--out", str(out)],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert "dfquad/dag" in r.stdout and "reference s" in r.stdout
    data = json.loads(out.read_text())
    tasks = {row["task"] for row in data["rows"]}
    assert {"dfquad/dag", "dfquad/dag-shuffled", "dfquad/cyclic-sync", "dfquad/cyclic-rk4", "procon/corpus", "relevance/corpus", "batch/dag", "batch/cyclic"} <= tasks
    for row in data["rows"]:
        assert row["seconds"] >= 0 and row["reference_seconds"] > 0 and row["n_arguments"] > 0
    assert data["meta"]["quick"] is True and data["meta"]["cpus"] >= 1


def test_generators_have_the_promised_shape():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import engine as bench
    finally:
        sys.path.pop(0)
    from argfaith.qbaf import QBAF
    from argfaith.qbaf.batch import QBAFBatch

    for shuffle in (False, True):
        tau, att, sup = bench.random_dag(2000, seed=1, shuffle=shuffle)
        q = QBAF.from_arrays(tau, att, sup)
        assert q.is_acyclic() and 4 * q.n < q.n_edges <= 5 * q.n
        e = np.concatenate([att, sup])
        assert (e[:, 0] > e[:, 1]).all() != shuffle  # debate order unless shuffled
    tau, att, sup = bench.random_digraph(2000, seed=1)
    assert not QBAF.from_arrays(tau, att, sup).is_acyclic()
    c = bench.debate_corpus(2000, seed=1)
    assert c.is_acyclic() and c.debate and len(c.proposals) == 100
    arrays = bench.batch_arrays(50, cyclic=False)
    b = QBAFBatch.from_arrays(**arrays)
    assert len(b) == 50 and all(b.qbaf(f).is_acyclic() for f in range(50))
    assert np.all(np.diff(arrays["attack_offsets"]) + np.diff(arrays["support_offsets"]) <= 40)
