"""The bipolar benchmark script keeps working and generates the frameworks it promises."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("engine_bipolar", ROOT / "benchmarks" / "engine_bipolar.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


@pytest.mark.parametrize("n", [50, 400])
def test_generated_frameworks_have_the_documented_shape(bench, n):
    d = bench.bipolar_framework(n, cyclic=False, seed=n)
    assert d.is_acyclic() and d.debate
    assert len(d.proposals) == round(0.05 * n)
    edges = np.concatenate([d.attack_array, d.support_array])
    assert not d.is_proposal[edges[:, 0]].any()  # edges only leave speech arguments
    assert 2.0 * n <= d.n_edges <= 3.0 * n  # ~3 per argument before de-duplication
    s = bench.bipolar_framework(n, cyclic=True, seed=n)
    assert not s.is_acyclic()
    assert not s.is_proposal[np.concatenate([s.attack_array, s.support_array])[:, 0]].any()


def test_quick_run_rows(bench, tmp_path):
    out = tmp_path / "r.json"
    bench.main(["--quick", "--out", str(out)])
    data = json.loads(out.read_text())
    rows = data["rows"]
    assert {r["task"] for r in rows} >= {
        "set-attacks/debate", "credulous/summary", "credulous-sat-only/summary", "d-preferred/summary"
    }
    for r in rows:
        assert set(r) == {"task", "n_arguments", "n_edges", "seconds", "reference_seconds", "speedup", "notes"}
        assert r["seconds"] > 0
        if r["reference_seconds"] is not None:
            assert r["speedup"] == pytest.approx(r["reference_seconds"] / r["seconds"])
