"""Every solver output equals the snapshot taken before the kernels were merged, bit for bit
(issue 24; the cases and how the snapshot was made: ``tests/qbaf/solver_snapshot.py``)."""

from __future__ import annotations

import numpy as np

from tests.qbaf.solver_snapshot import SNAPSHOT, cases, same, unpack


def test_every_case_equals_the_snapshot_bit_for_bit():
    expected = unpack(np.load(SNAPSHOT))
    got = dict(cases())
    assert got.keys() == expected.keys()
    differ = {k: same(got[k], expected[k]) for k in expected}
    differ = {k: v for k, v in differ.items() if v}
    assert not differ, f"{len(differ)} of {len(expected)} cases differ, e.g. " + "; ".join(
        f"{k}: {v}" for k, v in list(differ.items())[:5]
    )


def test_the_snapshot_covers_the_solver_paths():
    expected = unpack(np.load(SNAPSHOT))
    outcomes = list(expected.values())
    assert len(outcomes) > 3000
    # iterated components that converged and that did not, large components, domain errors
    assert any(c.get("converged") is True and c.get("iterations", 0) > 50 for c in outcomes)
    assert any(c.get("converged") is False for c in outcomes)
    assert any(k.startswith("strengths|large-scc|") and "values" in c for k, c in expected.items())
    assert any(c.get("error", "").startswith("SemanticsDomainError") for c in outcomes)
    assert {c["how"] for k, c in expected.items() if k.startswith("influence")} == {"propagation", "re-solve"}
