"""Debate-context features: speaker roles, speech stance, pair layout, neutral defaults, mean
imputation, and the context that mining and the benchmark give the classifiers."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from argfaith.bench.relations import DebateContexts, pair_query
from argfaith.datasets.ep import read_ep_debate
from argfaith.datasets.relations import RelationPair
from argfaith.mining.classifiers._linear import fit_logistic_regression
from argfaith.mining.classifiers.base import PairQuery
from argfaith.mining.classifiers.context import CONTEXT_FEATURE_NAMES, ContextFeaturizer, speaker_role, speech_profile
from argfaith.mining.classifiers.offline import BASE_FEATURE_NAMES, FEATURE_NAMES, OfflineRelationClassifier
from argfaith.mining.pipeline import plan_debate, plan_summary, run_plan

ROOT = Path(__file__).resolve().parents[2]
EP = ROOT / "tests" / "fixtures" / "mining" / "ep_debates"
DEBATE = EP / "debates" / "CRE-20990101-ITEM-001"
IX = {n: i for i, n in enumerate(CONTEXT_FEATURE_NAMES)}


@pytest.mark.parametrize(
    ("header", "role"),
    [
        ("Edit Herczog (PSE), rapporteur. – (HU) Globalisation has been present ...", "committee"),
        ("Helmuth Markov (GUE/NGL), draftsman of the opinion of the Committee on International Trade . – (DE) Thanks", "committee"),
        ("Charlie McCreevy, Member of the Commission . Mr President, the Commission welcomes ...", "executive"),
        ("Zuzana Roithová, on behalf of the PPE-DE Group . – (CS) This report ...", "group"),
        ("Othmar Karas (PPE-DE). – (DE) Mr President, the rapporteur is right ...", "member"),  # 'rapporteur' after the header
        (None, None),
        ("", None),
    ],
)
def test_speaker_role_from_the_header(header, role):
    assert speaker_role(header) == role


def test_speech_stance_counts_evaluations_of_the_report():
    pos = speech_profile("X (PSE). – I welcome this excellent report. The rapporteur did good work. Fish are wet.")
    neg = speech_profile("Y (NI). – The report is wrong. We reject this resolution and will vote against it.")
    neutral = speech_profile("Z (NI). – Fish stocks are declining. Boats are old.")
    assert pos.stance > 0 and neg.stance < 0 and neutral.stance == 0
    assert neg.vote_against == 1.0 and pos.vote_against == 0.0
    assert neg.neg_share > 0 and pos.neg_share == 0
    assert pos.role == "member" and pos.n_sentences == 4  # the header "X (PSE)." splits off as a sentence


def test_no_context_gives_neutral_nan_features_and_known_zero():
    f = ContextFeaturizer().features(PairQuery("a b c", "d e f"), is_proposal=False)
    assert len(f) == len(CONTEXT_FEATURE_NAMES)
    assert f[IX["ctx_known"]] == 0.0
    assert all(math.isnan(v) for n, v in zip(CONTEXT_FEATURE_NAMES, f, strict=True) if n not in ("ctx_known",)
               and not n.startswith("ctx_tgt_") and n != "ctx_src_stance_x_proposal" and n != "ctx_src_vote_against_x_proposal")


def test_pair_layout_features():
    speech_a = "A (PSE), rapporteur. – We need plans. Plans protect fish. I welcome the report."
    speech_b = "B, Member of the Commission . The Commission agrees. Plans are coming."
    cf = ContextFeaturizer()
    same = cf.features(PairQuery("Plans protect fish.", "We need plans.", source_context=speech_a, target_context=speech_a,
                                 source_speaker="A (PSE),", target_speaker="A (PSE),", source_position=1, target_position=1), False)
    assert same[IX["ctx_same_speech"]] == 1.0 and same[IX["ctx_distance_log"]] == 0.0
    assert 0 < same[IX["ctx_within_speech_gap"]] < 1 and 0 < same[IX["ctx_src_rel_offset"]] < 1
    assert same[IX["ctx_src_committee"]] == 1.0 and same[IX["ctx_tgt_committee"]] == 1.0
    other = cf.features(PairQuery("Plans are coming.", "We need plans.", source_context=speech_b, target_context=speech_a,
                                  source_speaker="B,", target_speaker="A (PSE),", source_position=4, target_position=1), False)
    assert other[IX["ctx_same_speech"]] == 0.0 and other[IX["ctx_same_speaker"]] == 0.0
    assert other[IX["ctx_distance_log"]] == pytest.approx(math.log1p(3))
    assert other[IX["ctx_src_executive"]] == 1.0 and other[IX["ctx_tgt_committee"]] == 1.0
    prop = cf.features(PairQuery("Plans are coming.", "1. Calls for plans;", source_context=speech_b, source_position=4), True)
    assert prop[IX["ctx_same_speech"]] == 0.0 and prop[IX["ctx_tgt_committee"]] == 0.0
    assert prop[IX["ctx_distance_log"]] == pytest.approx(math.log1p(4))


def test_missing_features_are_imputed_with_training_means():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = ["attack", "support", "no relation"] * 20
    X[::4, 2] = np.nan
    m = fit_logistic_regression(X, y, ("attack", "support", "no relation"), l2=0.1)
    mean = np.nanmean(X[:, 2])
    assert m.impute[2] == pytest.approx(mean) and m.impute[0] == pytest.approx(X[:, 0].mean())
    row = np.array([[0.3, -0.2, np.nan]])
    assert m.predict_proba(row) == pytest.approx(m.predict_proba(np.array([[0.3, -0.2, mean]])))
    # Balanced class weights: the recorded training prior is uniform.
    assert m.train_prior == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    w = np.r_[np.full(20, 2.0), np.ones(40)]  # rows 0..19 weigh double (classes cycle every 3 rows)
    m2 = fit_logistic_regression(X, y, ("attack", "support", "no relation"), l2=0.1, sample_weight=w, class_weight=None)
    shares = [w[[i for i in range(60) if y[i] == c]].sum() / w.sum() for c in ("attack", "support", "no relation")]
    assert m2.train_prior == pytest.approx(tuple(shares))


def test_offline_classifier_works_with_and_without_context():
    assert FEATURE_NAMES == (*BASE_FEATURE_NAMES, *CONTEXT_FEATURE_NAMES)
    clf = OfflineRelationClassifier()
    speech = "Anna (PSE), rapporteur. – Children who eat well learn better. I welcome the report."
    bare = PairQuery("Children who eat well learn better.", "1. Calls for healthy meals;", "Meals", target_kind="proposal")
    rich = PairQuery(bare.source, bare.target, "Meals", target_kind="proposal", source_context=speech, source_speaker="Anna (PSE),",
                     source_position=1)
    pb, pr = clf.predict_proba([bare, rich])
    assert np.isfinite(pb).all() and np.isfinite(pr).all() and pb.sum() == pytest.approx(1) and pr.sum() == pytest.approx(1)
    assert not np.allclose(pb, pr)  # the context is used


def test_mining_plans_carry_speech_context():
    debate = read_ep_debate(DEBATE)
    plan = plan_debate(debate)
    by_id = {iv.id: iv for iv in debate.interventions}
    qs = plan.queries()
    assert qs and all(q.source_context is not None for q in qs)
    for q, c in zip(qs, plan.pairs, strict=True):
        src = plan.units[c.source_id]
        iv = by_id[src.document]
        assert q.source_context == iv.text and q.source_speaker == iv.speaker and q.source_position == iv.position
        if c.target_kind == "proposal":
            assert q.target_context is None and q.target_position is None
        else:
            tgt = plan.units[c.target_id]
            assert q.target_context == by_id[tgt.document].text and q.target_position <= q.source_position


def test_summary_plans_have_no_speech_context():
    from argfaith.datasets.documents import Summary

    debate = read_ep_debate(DEBATE)
    s = Summary(debate.id, "Members discussed school meals. The rapporteur wants fresh food. Others disagreed strongly.")
    qs = plan_summary(s, debate).queries()
    assert qs and all(q.source_context is None and q.target_context is None for q in qs)


def test_mining_uses_the_all_pairs_prior_unless_one_is_chosen():
    debate = read_ep_debate(DEBATE)
    plan = plan_debate(debate)
    default = run_plan(plan, OfflineRelationClassifier())
    chosen = run_plan(plan, OfflineRelationClassifier(prior="balanced"))
    assert "all-pairs" in default.qbaf.info["classifier_prior"]
    assert "balanced" in chosen.qbaf.info["classifier_prior"]
    # The all-pairs prior never marks more pairs as related than the balanced model does here.
    related = lambda r: len(r.qbaf.attacks) + len(r.qbaf.supports)  # noqa: E731
    assert related(default) <= related(chosen)


def test_debate_contexts_recover_speeches_from_ids():
    ctx = DebateContexts(EP)
    hit = ctx.lookup("CRE-20990101-ITEM-001-1-011-2")
    assert hit is not None and hit[0].startswith("Jan Kowalski, on behalf of") and hit[1] == "Jan Kowalski," and hit[2] == 2
    assert ctx.lookup("CRE-20990101-ITEM-001-1-011-s7") == hit  # sentence ids of data/ep_pairs_llm
    assert ctx.lookup("CRE-20990101-ITEM-001-PAR-1") is None  # proposals have no speech
    assert ctx.lookup("CRE-20990101-ITEM-001-9-999-1") is None  # unknown intervention
    assert ctx.lookup("CRE-20000101-ITEM-001-1-011-1") is None  # unknown debate
    assert ctx.lookup("s1") is None and ctx.lookup(None) is None
    assert ctx.found == 2 and ctx.missing == 3
    pair = RelationPair("x", "y", "support", source_id="CRE-20990101-ITEM-001-1-012-1",
                        target_id="CRE-20990101-ITEM-001-1-010-1", target_kind="speech")
    q = pair_query(pair, ctx)
    assert q.source_position == 3 and q.target_position == 1 and q.target_speaker == "Anna Example (PSE),"
    assert pair_query(pair).source_context is None
