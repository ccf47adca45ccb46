"""The empty summary's metric values (argfaith.metrics.baselines) against the full evaluation of a
real empty QBAF — the closed form must be what evaluate() computes on Q*_∅."""

from __future__ import annotations

from pathlib import Path

import pytest

from argfaith.metrics.alignment import IdAligner
from argfaith.metrics.baselines import EMPTY_SUMMARY, beats
from argfaith.metrics.evaluate import evaluate
from argfaith.qbaf import QBAF, Argument, load_qbaf

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "debate"


def _empty_like(q: QBAF) -> QBAF:
    return QBAF.from_arguments([Argument(p, "proposal", q.argument(p).base_score) for p in q.proposals], debate=True, name="empty")


@pytest.mark.parametrize("source, summary", [
    ("paper/q.json", "paper/qa.json"),
    ("paper/q.json", "paper/qb.json"),
    ("debate/source.json", "debate/summary_distorted.json"),
])
@pytest.mark.parametrize("tau", [None, 0.15, 0.25])
def test_closed_form_equals_evaluating_the_empty_qbaf(source, summary, tau):
    root = EXAMPLE.parent
    q, qs = load_qbaf(root / source), load_qbaf(root / summary)
    rep = evaluate(q, qs, tau=tau, explain=False)
    direct = evaluate(q, _empty_like(qs), tau=tau, explain=False).pairwise
    base = rep.pairwise.baselines[EMPTY_SUMMARY]
    for m in ("d_preferability_consistency", "balance_consistency", "epsilon_accuracy"):
        assert base[m] == pytest.approx(getattr(direct, m)), m


def test_with_an_alignment_the_supplementary_metrics_have_empty_values(paper_dir):
    q, qa = load_qbaf(paper_dir / "q.json"), load_qbaf(paper_dir / "qa.json")
    base = evaluate(q, qa, alignment=IdAligner(), explain=False).pairwise.baselines[EMPTY_SUMMARY]
    assert base["supplementary_precision"] is None and base["pro_con_consistency"] is None  # nothing to divide by
    assert base["supplementary_recall"] == 0.0 and base["argument_coverage"] == 0.0
    assert "supplementary_recall" not in evaluate(q, qa, explain=False).pairwise.baselines[EMPTY_SUMMARY]


def test_paper_example_values_and_the_beats_rule(paper_dir):
    q, qa, qb = (load_qbaf(paper_dir / f"{n}.json") for n in ("q", "qa", "qb"))
    # Q: σ(p1) = 0.32, σ(p2) = 0.60, accepted {p2}; the empty summary has 0.5, 0.5 and accepts both.
    base = evaluate(q, qa, explain=False).pairwise.baselines[EMPTY_SUMMARY]
    assert base == {"d_preferability_consistency": 0.5, "balance_consistency": 0.0, "epsilon_accuracy": 0.5}
    rb = evaluate(q, qb, explain=False).pairwise
    assert beats(rb.balance_consistency, base["balance_consistency"]) is True
    assert beats(rb.d_preferability_consistency, base["d_preferability_consistency"]) is True
    ra = evaluate(q, qa, explain=False).pairwise
    assert beats(ra.epsilon_accuracy, base["epsilon_accuracy"]) is False  # 0.5 vs 0.5: not better
    assert beats(None, 0.5) is None and beats(0.5, None) is None
