"""Faithfulness with error bars (argfaith.metrics.uncertainty): certain relations give zero-width
intervals equal to the point metrics; sampled metrics agree with an exhaustive enumeration of all
labellings weighted by their probability."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from argfaith.metrics import evaluate
from argfaith.metrics.uncertainty import (
    DISTRIBUTION_KEY,
    RelationDistribution,
    faithfulness_intervals,
    probability_better,
    relation_distribution,
    sample_side,
)
from argfaith.qbaf import QBAF, Argument, dfquad_strengths, load_qbaf

PAPER = Path(__file__).resolve().parents[2] / "examples" / "paper"


def test_certain_relations_give_zero_width_intervals_equal_to_the_point_metrics():
    q, qa, qb = (load_qbaf(PAPER / f) for f in ("q.json", "qa.json", "qb.json"))
    r = faithfulness_intervals(q, {"qa": qa, "qb": qb}, draws=7, slow_draws=3)
    for name, s in (("qa", qa), ("qb", qb)):
        rep = evaluate(q, s)
        m = r.summaries[name].metrics
        for key, point in (("pi_bc", rep.pairwise.balance_consistency), ("pi_ea", rep.pairwise.epsilon_accuracy),
                           ("pi_dpc", rep.pairwise.d_preferability_consistency), ("pi_ar", rep.summary.relevance),
                           ("pi_pcr", rep.summary.pro_con_ratio_mean)):
            assert m[key].low == m[key].high == m[key].mean == pytest.approx(point), (name, key)
        for p, sig in rep.summary.strengths.items():
            iv = r.summaries[name].sigma_summary[p]
            assert iv.low == iv.high == pytest.approx(sig)
    assert r.source_uncertain_pairs == 0 and r.summaries["qa"].uncertain_pairs == 0


def _tiny() -> tuple[QBAF, RelationDistribution, list[tuple[str, str]], np.ndarray]:
    args = [Argument("p1", "proposal", 0.5), Argument("p2", "proposal", 0.5), Argument("s1"), Argument("s2"), Argument("s3")]
    q = QBAF.from_arguments(args, attacks=[("s1", "p1")], supports=[("s2", "p2")], debate=True)
    pairs = [("s3", "p1"), ("s2", "s1"), ("s3", "p2")]
    probs = np.array([[0.3, 0.5], [0.1, 0.6], [0.45, 0.15]])  # (p_attack, p_support)
    ix = q.index
    dist = RelationDistribution(np.array([ix[s] for s, _ in pairs]), np.array([ix[t] for _, t in pairs]), probs[:, 0], probs[:, 1])
    return q, dist, pairs, probs


def _enumerate(q: QBAF, pairs, probs):  # type: ignore[no-untyped-def]
    """Every labelling of the uncertain pairs with its probability and DF-QuAD strengths."""
    out = []
    for labs in itertools.product((0, 1, 2), repeat=len(pairs)):
        w = float(np.prod([probs[i, l] if l < 2 else 1 - probs[i].sum() for i, l in enumerate(labs)]))
        att = [("s1", "p1")] + [pairs[i] for i, l in enumerate(labs) if l == 0]
        sup = [("s2", "p2")] + [pairs[i] for i, l in enumerate(labs) if l == 1]
        qq = QBAF.from_arguments([Argument(a, q.argument(a).kind, q.argument(a).base_score) for a in q.ids], attacks=att,
                                 supports=sup, debate=True)
        out.append((w, dfquad_strengths(qq)))
    return out


def test_sampled_strengths_match_exhaustive_enumeration():
    q, dist, pairs, probs = _tiny()
    exact = _enumerate(q, pairs, probs)
    assert sum(w for w, _ in exact) == pytest.approx(1.0)
    k = 40_000
    side = sample_side(q, dist, k, np.random.default_rng(1))
    from argfaith.qbaf.gradual import gradual_batch

    vals = np.asarray(gradual_batch(side.batch, "dfquad").values).reshape(k, q.n)
    for p in ("p1", "p2"):
        col = vals[:, q.index[p]]
        mean = sum(w * s[p] for w, s in exact)
        var = sum(w * (s[p] - mean) ** 2 for w, s in exact)
        assert abs(col.mean() - mean) < 5 * np.sqrt(var / k) + 1e-12, p
        # the probability of each side of 0.5, exactly vs sampled
        for side_of in (lambda x: x > 0.5, lambda x: x < 0.5):
            pe = sum(w for w, s in exact if side_of(s[p]))
            assert abs(np.mean(side_of(col)) - pe) < 5 * np.sqrt(pe * (1 - pe) / k) + 1e-12


def test_pairwise_metric_distribution_matches_enumeration():
    """π_bc of an uncertain summary against a certain source: E[π_bc] by enumeration."""
    q, dist, pairs, probs = _tiny()
    src = QBAF.from_arguments([Argument(a, q.argument(a).kind, q.argument(a).base_score) for a in q.ids],
                              attacks=[("s1", "p1")], supports=[("s2", "p2"), ("s3", "p2")], debate=True)
    sig = dfquad_strengths(src)
    info = {DISTRIBUTION_KEY: {"pairs": [[s, t, float(a), float(b)] for (s, t), (a, b) in zip(pairs, probs)]}}
    summ = QBAF.from_arguments([Argument(a, q.argument(a).kind, q.argument(a).base_score) for a in q.ids],
                               attacks=[("s1", "p1")], supports=[("s2", "p2")], debate=True, info=info)
    assert len(relation_distribution(summ)) == 3
    r = faithfulness_intervals(src, {"s": summ}, draws=20_000, slow_draws=0, seed=3)

    def side(x: float) -> int:
        return 1 if x > 0.5 + 1e-9 else -1 if x < 0.5 - 1e-9 else 0

    exact = _enumerate(q, pairs, probs)
    e_bc = sum(w * np.mean([side(s[p]) == side(sig[p]) for p in ("p1", "p2")]) for w, s in exact)
    got = r.summaries["s"].metrics["pi_bc"].mean
    assert abs(got - e_bc) < 0.01
    for p in ("p1", "p2"):
        pe = sum(w for w, s in exact if side(s[p]) == side(sig[p]))
        assert abs(r.summaries["s"].verdict_probability[p]["balance_consistent"] - pe) < 0.015


def test_probability_better_counts_ties_apart():
    assert probability_better(np.array([1.0, 0.5, 0.2]), np.array([0.5, 0.5, 0.4])) == (pytest.approx(1 / 3), pytest.approx(1 / 3))


def test_vectorised_draw_stacking_equals_the_loop_over_draws():
    from argfaith.metrics.uncertainty import _stack_draws

    rng = np.random.default_rng(3)
    for f in (0, 1, 4):
        fixed = rng.integers(0, 9, size=(f, 2))
        pair = rng.integers(0, 9, size=(6, 2))
        chosen = rng.random((5, 6)) < 0.4
        chosen[2] = False  # a draw with no sampled edge
        out, off = _stack_draws(fixed, pair, chosen)
        ref = [np.vstack([fixed, pair[chosen[k]]]) for k in range(5)]
        assert off.tolist() == np.concatenate([[0], np.cumsum([len(r) for r in ref])]).tolist()
        np.testing.assert_array_equal(out, np.vstack(ref).reshape(-1, 2))
