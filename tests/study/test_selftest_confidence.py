"""Confident detection in the self-test (issue 23): P(σ*(p) moved the expected way) over sampled
labellings, drawn with common random numbers keyed by pair text."""

from __future__ import annotations

import numpy as np
import pytest

from argfaith.metrics.uncertainty import DISTRIBUTION_KEY, pair_uniforms, relation_distribution
from argfaith.qbaf import QBAF, Argument
from argfaith.study.selftest import sigma_detection_probability


def _summary(extra: list[tuple[str, str, float, float]], texts: dict[str, str], supports=(), attacks=()) -> QBAF:  # type: ignore[no-untyped-def]
    args = [Argument("p1", "proposal", 0.5, text="Provision one.")] + [Argument(a, text=t) for a, t in texts.items()]
    info = {DISTRIBUTION_KEY: {"pairs": [list(x) for x in extra]}} if extra else None
    return QBAF.from_arguments(args, attacks=list(attacks), supports=list(supports), info=info)


def test_certain_relations_give_the_point_outcome():
    before = _summary([], {"s1": "A."})
    after = _summary([], {"s1": "A.", "s2": "B."}, supports=[("s2", "p1")])
    assert sigma_detection_probability(before, after, "p1", "up", tau=0.2, draws=20) == 1.0
    assert sigma_detection_probability(before, after, "p1", "down", tau=0.2, draws=20) == 0.0


def test_a_shared_uncertain_pair_does_not_move_sigma_on_its_own():
    # The same uncertain pair (same texts) in both: with common random numbers σ*(p) is equal in
    # every draw, so nothing is "detected" even though the pair flips between draws.
    pair = [("s1", "p1", 0.3, 0.4)]
    before = _summary(pair, {"s1": "A."})
    after = _summary(pair, {"s1": "A.", "s2": "Unrelated."})
    assert sigma_detection_probability(before, after, "p1", "up", tau=0.2, draws=200) == 0.0
    assert sigma_detection_probability(before, after, "p1", "down", tau=0.2, draws=200) == 0.0


def test_an_uncertain_fabricated_support_is_detected_with_its_probability():
    before = _summary([], {"s1": "A."})
    after = _summary([("s2", "p1", 0.1, 0.7)], {"s1": "A.", "s2": "B supports it."})
    p = sigma_detection_probability(before, after, "p1", "up", tau=0.2, draws=2000)
    assert p == pytest.approx(0.7, abs=0.04)


def test_pair_uniforms_depend_on_texts_not_on_ids_or_order():
    a = _summary([("s1", "p1", 0.3, 0.4), ("s2", "p1", 0.2, 0.2)], {"s1": "A.", "s2": "B."})
    b = _summary([("x2", "p1", 0.2, 0.2), ("x1", "p1", 0.3, 0.4)], {"x1": "A.", "x2": "B."})
    ua = pair_uniforms(a, relation_distribution(a), 5)  # type: ignore[arg-type]
    ub = pair_uniforms(b, relation_distribution(b), 5)  # type: ignore[arg-type]
    np.testing.assert_array_equal(ua[:, 0], ub[:, 1])
    np.testing.assert_array_equal(ua[:, 1], ub[:, 0])
    assert not np.array_equal(ua[:, 0], ua[:, 1])
    assert not np.array_equal(ua, pair_uniforms(a, relation_distribution(a), 5, seed=1))  # type: ignore[arg-type]


def test_the_pair_cache_keeps_class_probabilities(tmp_path):
    from argfaith.mining.classifiers.base import PairQuery, Prediction
    from argfaith.study.selftest import CachedPairClassifier

    class Inner:
        name = "fake"
        usage = None

        def classify(self, pairs, *, progress=None):  # type: ignore[no-untyped-def]
            return [Prediction("support", 0.6, probabilities={"attack": 0.1, "support": 0.6, "no relation": 0.3}) for _ in pairs]

    f = tmp_path / "c.jsonl"
    q = [PairQuery(source="A.", target="B.")]
    first = CachedPairClassifier(Inner(), f).classify(q)[0]  # type: ignore[arg-type]
    again = CachedPairClassifier(Inner(), f)  # type: ignore[arg-type]
    second = again.classify(q)[0]
    assert again.hits == 1 and again.misses == 0
    assert first.probabilities == second.probabilities == {"attack": 0.1, "support": 0.6, "no relation": 0.3}


def test_aggregate_counts_only_the_runs_own_items(tmp_path):
    import json

    from argfaith.study.selftest import SELFTEST_FORMAT_VERSION, aggregate_selftest

    d = tmp_path / "selftest" / "items" / "D"
    d.mkdir(parents=True)
    base = {"debate": "D", "metrics": {}, "distortions": [{"kind": "omit", "sigma": "detected",
            **{m: {"outcome": "detected"} for m in ("pi_bc", "pi_ea", "pi_dpc")}}]}
    (d / "mine.json").write_text(json.dumps({**base, "variant": "mine", "argfaith_selftest_item": SELFTEST_FORMAT_VERSION}))
    (d / "stale.json").write_text(json.dumps({**base, "variant": "stale", "argfaith_selftest_item": SELFTEST_FORMAT_VERSION}))
    (d / "old.json").write_text(json.dumps({**base, "variant": "old", "argfaith_selftest_item": SELFTEST_FORMAT_VERSION - 1}))
    assert aggregate_selftest(tmp_path, items={("D", "mine"), ("D", "old")})["summaries"] == 1
    assert aggregate_selftest(tmp_path)["summaries"] == 2
