"""Smoke run of benchmarks/semantics.py (the peers are skipped; the benchmark itself asserts that
the from-lists path equals the kernel path and records whether the reference agrees bit for bit)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from argfaith.qbaf.semantics import NAMED

ROOT = Path(__file__).resolve().parents[2]


def test_semantics_benchmark_quick(tmp_path):
    out = tmp_path / "semantics.json"
    r = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "semantics.py"), "--quick", "--repeat", "1", "--skip-peers",
         "--sizes", "300", "--construction-n", "2000", "--out", str(out)],
        capture_output=True, text=True, timeout=900, cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    data = json.loads(out.read_text())
    rows = data["semantics_rows"]
    seen = {(row["semantics"], row["workload"]) for row in rows}
    for name, sem in NAMED.items():
        for w in ("dag", "dag-shuffled", "cyclic-sync", "cyclic-rk4"):
            assert ((name, w) in seen) == (not (sem.acyclic_only and w.startswith("cyclic"))), (name, w)
    assert all(row["reference_bit_identical"] for row in rows)
    assert all(row["vs_dfquad"] > 0 for row in rows)
    assert {c["task"] for c in data["construction_rows"]} == {
        "from_arrays (numpy arrays)", "from_edges (lists of int pairs)", "from_edges (tuples of int pairs)",
        "from_edges (dict {id: τ}, id pairs)", "from_edges (dict {id: τ}, id pairs, distinct strings)", "from_networkx (DiGraph)",
    }
    assert data["peer_notes"] == ["peers not measured (--skip-peers)"]
