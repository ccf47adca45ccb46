"""Candidate pairs (temporal constraint, all ordered pairs) and pruning strategies."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.errors import ConfigurationError
from argfaith.mining.candidates import (
    AllPairs,
    CandidatePair,
    Cascade,
    RandomK,
    TopKLexical,
    count_source_candidates,
    count_summary_candidates,
    p_no_relation,
    parse_candidates,
    source_candidates,
    summary_candidates,
    tfidf_vectors,
)
from argfaith.mining.classifiers.base import Prediction
from argfaith.mining.units import ArgumentUnit

from .conftest import KeywordClassifier


def speech(n: int, texts: list[str] | None = None) -> list[ArgumentUnit]:
    return [
        ArgumentUnit(f"s{i}", "speech", (texts[i] if texts else f"speech argument number {i}"), "sentence", "iv", 0, 1, position=i)
        for i in range(n)
    ]


def props(p: int) -> list[ArgumentUnit]:
    return [ArgumentUnit(f"p{i}", "proposal", f"proposal {i}", "provision", f"PAR-{i}", 0, 1) for i in range(p)]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 25), st.integers(0, 6))
def test_source_candidates_respect_the_temporal_constraint(n, p):
    sp, pr = speech(n), props(p)
    pairs = source_candidates(sp, pr)
    assert len(pairs) == count_source_candidates(n, p) == n * (n - 1) // 2 + n * p
    pos = {u.id: u.position for u in sp}
    for c in pairs:
        assert c.source_id in pos
        if c.target_kind == "speech":
            assert pos[c.target_id] < pos[c.source_id]
        else:
            assert c.target_id.startswith("p")
    assert len(set(pairs)) == len(pairs)
    # Every allowed pair is there.
    expected = {(s.id, t.id) for s in sp for t in [*pr, *sp] if t.kind == "proposal" or t.position < s.position}
    assert {(c.source_id, c.target_id) for c in pairs} == expected


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 20), st.integers(0, 6))
def test_summary_candidates_are_all_ordered_pairs(n, p):
    pairs = summary_candidates(speech(n), props(p), pairs="all")
    assert len(pairs) == count_summary_candidates(n, p, "all") == n * (n - 1) + n * p
    assert all(c.source_id != c.target_id for c in pairs)
    assert len({(c.source_id, c.target_id) for c in pairs}) == len(pairs)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 20), st.integers(0, 6))
def test_summary_pair_policies(n, p):
    """``ordered`` = provisions + earlier sentences (acyclic); ``proposals`` = provisions only;
    both are subsets of ``all`` and their counts match count_summary_candidates."""
    sp, pr = speech(n), props(p)
    every = {(c.source_id, c.target_id) for c in summary_candidates(sp, pr, "all")}
    ordered = summary_candidates(sp, pr, "ordered")
    only = summary_candidates(sp, pr, "proposals")
    assert len(ordered) == count_summary_candidates(n, p, "ordered") == n * (n - 1) // 2 + n * p
    assert len(only) == count_summary_candidates(n, p, "proposals") == n * p
    pos = {u.id: u.position for u in sp}
    assert {(c.source_id, c.target_id) for c in ordered} == {
        (s, t) for s, t in every if t not in pos or pos[t] < pos[s]}
    assert {(c.source_id, c.target_id) for c in only} == {(s, t) for s, t in every if t not in pos}
    assert all(c.target_kind == "proposal" for c in only)


def test_unknown_summary_pair_policy_is_named():
    with pytest.raises(ConfigurationError, match="sometimes"):
        summary_candidates(speech(2), props(1), "sometimes")  # type: ignore[arg-type]


def test_paper_counts():
    # FINDINGS.md §5: the three debates with human spans need 45,188 pairs.
    assert sum(count_source_candidates(n, p) for n, p in ((107, 26), (127, 15), (198, 37))) == 45_188


def test_out_of_order_speech_is_rejected():
    sp = speech(3)
    with pytest.raises(ConfigurationError, match="debate order"):
        source_candidates([sp[1], sp[0]], [])


def _brute_cosine(a: str, b: str, corpus: list[str]) -> float:
    vs = tfidf_vectors(corpus)
    va, vb = vs[corpus.index(a)], vs[corpus.index(b)]
    return sum(x * vb.get(j, 0.0) for j, x in va.items())


def test_tfidf_vectors_are_unit_length_and_ignore_stopwords():
    vs = tfidf_vectors(["the fish stocks", "fish quotas and fish stocks", "the the the"])
    assert math.isclose(sum(x * x for x in vs[0].values()), 1.0)
    assert vs[2] == {}


def test_topk_keeps_the_most_similar_targets():
    texts = [
        "fishing quotas protect fish stocks",
        "school meals are healthy",
        "fish stocks collapse without quotas",
        "healthy school meals cost little",
        "quotas protect fish stocks in the Baltic",
    ]
    sp = speech(5, texts)
    pairs = source_candidates(sp, [])
    res = TopKLexical(1).prune(pairs, {u.id: u for u in sp})
    kept = {(c.source_id, c.target_id) for c in res.kept}
    assert ("s2", "s0") in kept  # fish ← fish, not school meals
    assert ("s3", "s1") in kept
    assert ("s4", "s0") in kept
    assert all(sum(1 for c in res.kept if c.source_id == s) <= 1 for s in ("s1", "s2", "s3", "s4"))
    assert res.n_input == len(pairs) and res.strategy == "topk:1"
    # Differential check of the ranking against a brute-force cosine.
    corpus = texts
    for c in res.kept:
        best = max((t for t in pairs if t.source_id == c.source_id), key=lambda t: _brute_cosine(texts[int(t.source_id[1])], texts[int(t.target_id[1])], corpus))
        assert math.isclose(
            _brute_cosine(texts[int(c.source_id[1])], texts[int(c.target_id[1])], corpus),
            _brute_cosine(texts[int(best.source_id[1])], texts[int(best.target_id[1])], corpus),
        )


def test_topk_larger_than_candidates_keeps_all():
    sp = speech(4)
    pairs = source_candidates(sp, props(2))
    assert TopKLexical(100).prune(pairs, {u.id: u for u in [*sp, *props(2)]}).kept == tuple(pairs)


def test_random_k_is_reproducible_and_per_source():
    sp = speech(30)
    pairs = source_candidates(sp, props(3))
    units = {u.id: u for u in [*sp, *props(3)]}
    a = RandomK(5, seed=1).prune(pairs, units).kept
    b = RandomK(5, seed=1).prune(list(reversed(pairs)), units).kept
    assert set(a) == set(b)  # order of input does not change the draw
    c = RandomK(5, seed=2).prune(pairs, units).kept
    assert set(a) != set(c)
    for s in sp:
        n_cand = sum(1 for p in pairs if p.source_id == s.id)
        assert sum(1 for p in a if p.source_id == s.id) == min(5, n_cand)


def test_cascade_drops_only_confident_no_relation():
    texts = ["we do not want quotas", "fish quotas matter", "school lunches", "quotas matter for fish"]
    sp = speech(4, texts)
    pairs = source_candidates(sp, [])
    units = {u.id: u for u in sp}
    clf = KeywordClassifier()
    res = Cascade(clf, threshold=0.85).prune(pairs, units, topic="fish")
    # The keyword classifier gives P(no relation) 0.9 to unrelated pairs: those are dropped.
    kept = {(c.source_id, c.target_id) for c in res.kept}
    assert ("s3", "s1") in kept  # shares "quotas"/"matter": support, kept
    assert ("s2", "s1") not in kept
    assert len(clf.asked) == len(pairs)
    assert len(res.predictions) == len(pairs)
    # With threshold 0.95 nothing is confident enough to drop.
    assert Cascade(KeywordClassifier(), threshold=0.95).prune(pairs, units).n_kept == len(pairs)


def test_cascade_needs_scores():
    class NoScores(KeywordClassifier):
        def classify(self, pairs, *, progress=None):
            return [Prediction("no relation") for _ in pairs]

    sp = speech(3)
    with pytest.raises(ConfigurationError, match="reports probabilities or confidence"):
        Cascade(NoScores()).prune(source_candidates(sp, []), {u.id: u for u in sp})


def test_p_no_relation():
    assert p_no_relation(Prediction("support", probabilities={"no relation": 0.3})) == 0.3
    assert p_no_relation(Prediction("no relation", confidence=0.8)) == 0.8
    assert math.isclose(p_no_relation(Prediction("attack", confidence=0.8)), 0.2)
    assert p_no_relation(Prediction("attack")) is None


def test_parse_candidates():
    assert isinstance(parse_candidates("all"), AllPairs)
    assert isinstance(parse_candidates(None), AllPairs)
    assert parse_candidates("topk:10").spec == "topk:10"
    assert parse_candidates("RANDOM:3", seed=4).seed == 4  # type: ignore[attr-defined]
    c = parse_candidates("cascade:0.95", cheap_classifier=KeywordClassifier)
    assert isinstance(c, Cascade) and c.threshold == 0.95
    assert isinstance(c.classifier, KeywordClassifier)  # built lazily from the factory
    for bad, msg in [("topk:x", "bad candidate strategy"), ("topk:0", "K >= 1"), ("nearest:3", "unknown candidate strategy"),
                     ("cascade:0.9", "needs a cheap classifier"), ("cascade:1.5", "threshold must be in")]:
        with pytest.raises(ConfigurationError, match=msg):
            parse_candidates(bad, cheap_classifier=KeywordClassifier if bad == "cascade:1.5" else None)


def test_candidate_pair_is_hashable_value():
    assert CandidatePair("a", "b", "speech") == CandidatePair("a", "b", "speech")
