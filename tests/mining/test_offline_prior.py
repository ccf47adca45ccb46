"""Deployment priors: resolution, Saerens prior shift, EM estimate, the match rule, and how the
offline classifiers and mining use them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.datasets.labels import LABELS
from argfaith.errors import ConfigurationError
from argfaith.mining.classifiers._linear import LinearModel
from argfaith.mining.classifiers.base import PairQuery
from argfaith.mining.classifiers.offline import OfflineRelationClassifier, default_weights_path
from argfaith.mining.classifiers.prior import (
    ALL_PAIRS,
    BALANCED,
    MINING_PRIOR,
    SAMPLED,
    ClassPrior,
    em_prior,
    match_offsets,
    mining_classifier,
    resolve_prior,
    shift_prior,
)
from argfaith.mining.classifiers.registry import make_classifier

CLASSES = LABELS  # attack, support, no relation


def test_named_priors_are_the_documented_counts():
    assert ALL_PAIRS.probabilities["attack"] == pytest.approx(54 / 943)
    assert ALL_PAIRS.probabilities["support"] == pytest.approx(64 / 943)
    assert ALL_PAIRS.related == pytest.approx(118 / 943)
    assert SAMPLED.vector(CLASSES) == pytest.approx([19 / 300, 107 / 300, 174 / 300])
    assert BALANCED.vector(CLASSES) == pytest.approx([1 / 3] * 3)
    assert ALL_PAIRS.decision == "match" and SAMPLED.decision == "bayes" and MINING_PRIOR is ALL_PAIRS
    for p in (ALL_PAIRS, SAMPLED, BALANCED):
        assert sum(p.probabilities.values()) == pytest.approx(1.0)


def test_resolve_prior_names_strings_and_mappings():
    assert resolve_prior(None) is None
    assert resolve_prior("all-pairs") is ALL_PAIRS and resolve_prior("ALL_PAIRS") is ALL_PAIRS
    assert resolve_prior(SAMPLED) is SAMPLED
    p = resolve_prior("attack=1, support=1; no relation=2")
    assert p.vector(CLASSES) == pytest.approx([0.25, 0.25, 0.5]) and p.decision == "bayes"
    q = resolve_prior({"attacks": 0.2, "Support": 0.2, "no_relation": 0.6}, decision="match")
    assert q.vector(CLASSES) == pytest.approx([0.2, 0.2, 0.6]) and q.decision == "match"
    assert resolve_prior("all-pairs", decision="bayes").decision == "bayes"
    assert ALL_PAIRS.decision == "match"  # the named prior itself is untouched


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("flat", "unknown prior 'flat'"),
        ("attack=0.1,support=0.2", "missing class(es) no relation"),
        ("attack=0.1,support=x,no relation=0.2", "'x' is not a number"),
        ("attack=-0.1,support=0.2,no relation=0.9", "must be a finite number >= 0"),
        ("attack=0,support=0,no relation=0", "sum to 0"),
        ("rebuttal=0.1,support=0.2,no relation=0.7", "unknown class 'rebuttal'"),
        ("attack=nan,support=0.2,no relation=0.7", "finite"),
    ],
)
def test_resolve_prior_errors_name_the_problem(spec, message):
    with pytest.raises(ConfigurationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        resolve_prior(spec)


def test_resolve_prior_rejects_unknown_decision():
    with pytest.raises(ConfigurationError, match="unknown decision rule 'vote'"):
        resolve_prior("sampled", decision="vote")


def test_shift_prior_golden():
    # One pair with balanced posteriors (0.2, 0.3, 0.5), deployed under (0.1, 0.1, 0.8):
    # weights p·π/(1/3) ∝ (0.02, 0.03, 0.40) → (0.02, 0.03, 0.40) / 0.45.
    P = np.array([[0.2, 0.3, 0.5]])
    out = shift_prior(P, CLASSES, BALANCED, resolve_prior("attack=0.1,support=0.1,no relation=0.8"))
    assert out[0] == pytest.approx([0.02 / 0.45, 0.03 / 0.45, 0.40 / 0.45])


def _simplex_rows(n: int) -> st.SearchStrategy[np.ndarray]:
    row = st.lists(st.floats(0.01, 1.0), min_size=3, max_size=3).map(lambda v: np.array(v) / sum(v))
    return st.lists(row, min_size=1, max_size=n).map(np.vstack)


_prior = st.lists(st.floats(0.02, 1.0), min_size=3, max_size=3).map(
    lambda v: ClassPrior("h", {c: x / sum(v) for c, x in zip(CLASSES, v, strict=True)})
)


@settings(max_examples=60, deadline=None)
@given(_simplex_rows(8), _prior, _prior)
def test_shift_prior_properties(P, a, b):
    Q = shift_prior(P, CLASSES, a, b)
    assert np.allclose(Q.sum(axis=1), 1.0) and (Q >= 0).all()
    assert np.allclose(shift_prior(Q, CLASSES, b, a), P)  # shifting back restores the posteriors
    assert np.allclose(shift_prior(P, CLASSES, a, a), P)  # no shift, no change


@settings(max_examples=40, deadline=None)
@given(_simplex_rows(6), _prior, _prior)
def test_bayes_rule_in_the_classifier_equals_shift_prior(P, train, deploy):
    # The classifier adds log π_deploy − log π_train to the log-scores (softmax): the same posteriors
    # as Saerens' formula on softmax(scores).
    S = np.log(P)
    Z = S + np.log(deploy.vector(CLASSES)) - np.log(train.vector(CLASSES))
    Z = np.exp(Z - Z.max(axis=1, keepdims=True))
    assert np.allclose(Z / Z.sum(axis=1, keepdims=True), shift_prior(P, CLASSES, train, deploy))


def test_em_prior_recovers_a_known_prior_with_exact_posteriors():
    # Three 1-D Gaussian classes (means -2, 0, 2; sd 1); posteriors under a uniform training prior
    # are exact, so EM on data drawn with prior (0.1, 0.2, 0.7) must recover it (up to sampling noise).
    rng = np.random.default_rng(0)
    true = np.array([0.1, 0.2, 0.7])
    y = rng.choice(3, size=20_000, p=true)
    x = rng.normal(np.array([-2.0, 0.0, 2.0])[y], 1.0)
    lik = np.exp(-0.5 * (x[:, None] - np.array([-2.0, 0.0, 2.0])) ** 2)
    P = lik / lik.sum(axis=1, keepdims=True)
    res = em_prior(P, CLASSES, BALANCED)
    assert res.converged and res.iterations < 200
    assert res.prior.vector(CLASSES) == pytest.approx(true, abs=0.015)
    assert sum(res.prior.probabilities.values()) == pytest.approx(1.0)


def test_em_prior_rejects_empty_input():
    with pytest.raises(ConfigurationError):
        em_prior(np.zeros((0, 3)), CLASSES, BALANCED)


def test_match_offsets_reach_the_target_shares_deterministically():
    rng = np.random.default_rng(1)
    S = rng.normal(size=(5000, 3))
    target = np.array([0.05, 0.10, 0.85])
    res = match_offsets(S, target)
    shares = np.bincount((S + np.array(res.offsets)).argmax(axis=1), minlength=3) / len(S)
    assert shares == pytest.approx(res.shares) and res.max_error < 2e-3
    assert res.offsets[-1] == 0.0
    assert match_offsets(S, target) == res
    with pytest.raises(ConfigurationError):
        match_offsets(S[:, :2], target)


def test_shipped_offline_model_matches_the_all_pairs_prior_on_its_reference_sample():
    ref = LinearModel.load_arrays(default_weights_path())["reference_scores"]
    assert ref.ndim == 2 and ref.shape[1] == 3 and len(ref) >= 1000
    clf = OfflineRelationClassifier(prior="all-pairs")
    assert clf.match is not None and clf.match.max_error < 0.005
    shares = np.bincount((ref.astype(np.float64) + clf._offsets).argmax(axis=1), minlength=3) / len(ref)
    assert shares == pytest.approx(ALL_PAIRS.vector(clf.model.classes), abs=0.005)
    # Its training prior is recorded (balanced weights: about one third each).
    assert clf.train_prior.vector(clf.model.classes) == pytest.approx([1 / 3] * 3, abs=0.05)


def _pairs() -> list[PairQuery]:
    srcs = ["I welcome this excellent report and will vote for it.", "This proposal is wrong and we reject it.",
            "Fisheries need long-term management plans.", "The weather was nice in Strasbourg."]
    tgts = ["1. Welcomes the Commission's communication on fisheries;", "We need long-term plans for fish stocks.",
            "The report is a good basis for our work."]
    return [PairQuery(s, t, "Fisheries", target_kind="proposal" if t[0].isdigit() else "speech") for s in srcs for t in tgts]


def test_priors_change_decisions_in_the_expected_direction():
    pairs = _pairs()
    raw = OfflineRelationClassifier()
    bal = OfflineRelationClassifier(prior="balanced")
    allp = raw.with_prior("all-pairs")
    bayes = raw.with_prior("all-pairs", decision="bayes")
    p_raw = raw.predict_proba(pairs)
    # A prior that favours "no relation" more raises P(no relation) for every pair (Bayes rule).
    k = raw.model.classes.index("no relation")
    assert (bayes.predict_proba(pairs)[:, k] >= p_raw[:, k] - 1e-12).all()
    assert np.allclose(bal.predict_proba(pairs).sum(axis=1), 1.0)
    for clf in (raw, bal, allp, bayes):
        preds = clf.classify(pairs)
        assert len(preds) == len(pairs)
        for p in preds:
            assert p.label in LABELS and math.isclose(sum(p.probabilities.values()), 1.0, rel_tol=1e-9)
            assert p.label == max(p.probabilities, key=p.probabilities.get)


def test_with_prior_shares_model_cache_and_usage_and_changes_fingerprint():
    raw = OfflineRelationClassifier()
    twin = raw.with_prior("sampled")
    assert twin is not raw and twin.model is raw.model and twin.featurizer is raw.featurizer
    assert twin._usage is raw._usage
    assert raw.prior is None and not raw.prior_explicit and twin.prior is SAMPLED and twin.prior_explicit
    assert len({raw.fingerprint, twin.fingerprint, raw.with_prior("all-pairs").fingerprint}) == 3
    twin.classify(_pairs())
    assert raw.usage.extra["pairs"] == len(_pairs())


def test_mining_classifier_only_replaces_a_prior_nobody_chose():
    raw = OfflineRelationClassifier()
    mined = mining_classifier(raw)
    assert mined.prior is ALL_PAIRS and mined is not raw
    chosen = OfflineRelationClassifier(prior="balanced")
    assert mining_classifier(chosen) is chosen
    other = make_classifier("majority")
    assert mining_classifier(other) is other  # classifiers without priors are left alone


def test_match_rule_needs_reference_scores():
    model = OfflineRelationClassifier().model
    with pytest.raises(ConfigurationError, match="reference scores"):
        OfflineRelationClassifier(model, prior="all-pairs")
    clf = OfflineRelationClassifier(model, prior="all-pairs", decision="bayes")  # bayes needs none
    assert clf.prior.decision == "bayes"


def test_registry_prior_options():
    assert make_classifier("features?prior=sampled").prior is SAMPLED
    c = make_classifier("features?prior=attack=0.1;support=0.2;no relation=0.7&decision=match")
    assert c.prior.vector(c.model.classes) == pytest.approx([0.1, 0.2, 0.7]) and c.match is not None
    assert make_classifier("offline").prior is None
    with pytest.raises(ConfigurationError, match="unknown prior"):
        make_classifier("features?prior=flat")
    with pytest.raises(ConfigurationError, match="decision= needs a prior="):
        make_classifier("features?decision=bayes")
    with pytest.raises(ConfigurationError, match="takes no options"):
        make_classifier("features?temperature=2")
