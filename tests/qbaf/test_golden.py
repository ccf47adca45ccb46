"""Golden values: the worked example of PAPER.md §6 (Figure 1 / Table 1 of the paper)."""

from __future__ import annotations

import pytest

from argfaith.qbaf import credulous_acceptance, dfquad_strengths, load_qbaf, pro_con_sets, relevant_arguments

EXPECTED = {
    # name: (|X_s|, π_ar, σ(p1), σ(p2), pro/con of p1, pro/con of p2, accepted proposals)
    "q": (6, 5 / 6, 0.32, 0.60, ({"s4"}, {"s1", "s2", "s3"}), ({"s5"}, set()), {"p2"}),
    "qa": (4, 3 / 4, 0.60, 0.68, ({"s4"}, set()), ({"s5", "s7"}, set()), {"p1", "p2"}),
    "qb": (3, 1.0, 0.32, 0.60, (set(), {"s1", "s2"}), ({"s5"}, set()), {"p2"}),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_worked_example(paper_dir, name):
    n_speech, rel, s1, s2, pc1, pc2, accepted = EXPECTED[name]
    q = load_qbaf(paper_dir / f"{name}.json")
    assert len(q.speech_arguments) == n_speech
    assert len(relevant_arguments(q)) / n_speech == pytest.approx(rel)
    r = dfquad_strengths(q)
    assert r.converged and r.iterations == 0 and r.residual == 0.0
    assert r["p1"] == pytest.approx(s1, abs=1e-12)
    assert r["p2"] == pytest.approx(s2, abs=1e-12)
    pc = pro_con_sets(q)
    assert (set(pc["p1"].pro), set(pc["p1"].con)) == pc1
    assert (set(pc["p2"].pro), set(pc["p2"].con)) == pc2
    assert set(credulous_acceptance(q).accepted) == accepted
