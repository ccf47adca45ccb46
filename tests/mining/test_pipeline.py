"""The mining pipeline end to end on the fixture debate: plans, QBAFs, checkpoints and resumption."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from argfaith.datasets.documents import Summary
from argfaith.datasets.ep import read_ep_debate
from argfaith.datasets.summaries import read_summary
from argfaith.errors import ConfigurationError, DataFormatError
from argfaith.mining.classifiers.recorded import RecordedClassifier
from argfaith.mining.pipeline import (
    PairCheckpoint,
    _chunks_by_source,
    mine_debate,
    mine_summary,
    plan_debate,
    plan_summary,
    run_fingerprint,
    run_plan,
)
from argfaith.qbaf import load_qbaf, save_qbaf

from .conftest import EP_DEBATE, EP_SUMMARY, KeywordClassifier


@pytest.fixture(scope="module")
def debate():
    return read_ep_debate(EP_DEBATE)


def test_plan_debate_counts(debate):
    plan = plan_debate(debate)
    assert plan.kind == "debate" and plan.unit_method == "spans"
    n, p = len(plan.speech), len(plan.proposals)
    assert (n, p) == (6, 3)
    assert plan.n_all_candidates == len(plan.pairs) == n * (n - 1) // 2 + n * p
    assert plan.strategy == "all"
    qs = plan.queries()
    assert qs[0].topic == "Healthy school meals" and qs[0].target_kind == "proposal"
    assert plan.describe()["n_candidates"] == len(qs)
    pruned = plan_debate(debate, units="sentences", candidates="topk:2")
    assert len(pruned.pairs) <= 2 * len(pruned.speech) and pruned.strategy == "topk:2"


def test_mine_debate_builds_the_expected_qbaf(debate, keyword_classifier):
    res = mine_debate(debate, keyword_classifier, tau=0.15)
    q = res.qbaf
    assert q.is_acyclic() and q.debate and q.name == debate.id
    # Each edge is exactly the classifier's non-"no relation" answer.
    expected_att = {(r.source_id, r.target_id) for r in res.relations if r.label == "attack"}
    expected_sup = {(r.source_id, r.target_id) for r in res.relations if r.label == "support"}
    assert set(q.attacks) == expected_att and set(q.supports) == expected_sup
    assert expected_att and expected_sup
    # "I disagree with the rapporteur." attacks everything before it, including the proposals.
    assert ("CRE-20990101-ITEM-001-1-011-1", "CRE-20990101-ITEM-001-P1") in expected_att
    assert res.stats.n_classified == res.stats.n_pairs == len(keyword_classifier.asked)
    meta = q.info
    assert meta["classifier"] == "keyword-test" and meta["tau"] == 0.15 and meta["candidates"] == "all"
    assert meta["counts"]["attacks"] == len(expected_att) and meta["counts"]["speech_arguments"] == 6
    assert q.argument("CRE-20990101-ITEM-001-1-011-1").base_score == 0.15


def test_qbaf_json_round_trip(debate, keyword_classifier, tmp_path: Path):
    q = mine_debate(debate, keyword_classifier).qbaf
    save_qbaf(q, tmp_path / "q.json")
    back = load_qbaf(tmp_path / "q.json")
    assert back == q
    a = back.argument("CRE-20990101-ITEM-001-1-010-2")
    assert a.speaker == "Anna Example (PSE)," and a.position == 1 and a.metadata["document"] == "1-010"


def test_interrupted_run_resumes_without_repeating_pairs(debate, tmp_path: Path):
    ck = tmp_path / "run.pairs.jsonl"
    plan = plan_debate(debate, units="sentences")
    total = len(plan.pairs)
    crashing = KeywordClassifier(fail_after=total // 2)
    with pytest.raises(KeyboardInterrupt):
        run_plan(plan, crashing, checkpoint=ck, chunk_size=10)
    saved = len(ck.read_text().splitlines()) - 1  # minus the header
    assert 0 < saved <= total // 2  # whole chunks only
    fresh = KeywordClassifier()
    fresh.name = crashing.name  # same classifier identity → same fingerprint
    res = run_plan(plan, fresh, checkpoint=ck, chunk_size=10)
    assert len(fresh.asked) == total - saved  # only the missing pairs are asked
    assert res.stats.n_resumed == saved and res.stats.n_classified == total - saved
    assert not set(fresh.asked) & set(crashing.asked[:saved])
    # The result equals an uninterrupted run.
    assert res.qbaf == run_plan(plan, KeywordClassifier()).qbaf
    # A third run asks nothing.
    third = KeywordClassifier()
    run_plan(plan, third, checkpoint=ck)
    assert third.asked == []


def test_torn_checkpoint_line_is_dropped(debate, tmp_path: Path):
    ck = tmp_path / "c.jsonl"
    plan = plan_debate(debate)
    run_plan(plan, KeywordClassifier(), checkpoint=ck)
    data = ck.read_bytes()
    ck.write_bytes(data[:-25])  # simulate kill -9 in the middle of the last row
    clf = KeywordClassifier()
    run_plan(plan, clf, checkpoint=ck)
    assert len(clf.asked) == 1
    assert ck.read_bytes().endswith(b"\n")
    assert len(ck.read_text().splitlines()) == len(plan.pairs) + 1


def test_checkpoint_of_another_run_is_refused(debate, tmp_path: Path):
    ck = tmp_path / "c.jsonl"
    plan = plan_debate(debate)
    run_plan(plan, KeywordClassifier(), checkpoint=ck)
    other = KeywordClassifier()
    other.name = "another-model"
    with pytest.raises(ConfigurationError, match="belongs to a different run"):
        run_plan(plan, other, checkpoint=ck)
    res = run_plan(plan, other, checkpoint=ck, restart=True)
    assert res.stats.n_resumed == 0 and len(other.asked) == len(plan.pairs)
    ck.write_text("not a checkpoint\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match="not an argfaith mining checkpoint"):
        run_plan(plan, other, checkpoint=ck)


def test_fingerprint_depends_on_texts_not_on_pruning(debate):
    clf = KeywordClassifier()
    a = run_fingerprint(plan_debate(debate), clf)
    assert a == run_fingerprint(plan_debate(debate, candidates="random:2"), clf)
    assert a != run_fingerprint(plan_debate(debate, units="sentences"), clf)


def test_checkpoint_is_replayable_by_the_recorded_classifier(debate, tmp_path: Path):
    ck = tmp_path / "c.jsonl"
    first = mine_debate(debate, KeywordClassifier(), checkpoint=ck)
    replay = mine_debate(debate, RecordedClassifier(ck))
    assert replay.qbaf.attacks == first.qbaf.attacks and replay.qbaf.supports == first.qbaf.supports


def test_progress_reports_done_over_total(debate):
    seen: list[tuple[int, int]] = []
    plan = plan_debate(debate)
    run_plan(plan, KeywordClassifier(), progress=lambda d, t: seen.append((d, t)), chunk_size=7)
    assert seen[0] == (0, len(plan.pairs)) and seen[-1] == (len(plan.pairs), len(plan.pairs))
    assert all(b[0] >= a[0] for a, b in zip(seen, seen[1:]))


def test_chunks_keep_sources_together(debate):
    plan = plan_debate(debate)
    chunks = _chunks_by_source(plan.pairs, 5)
    assert sum(len(c) for c in chunks) == len(plan.pairs)
    for a, b in zip(chunks, chunks[1:]):
        assert a[-1].source_id != b[0].source_id
    assert _chunks_by_source(plan.pairs, None) == [list(plan.pairs)]
    assert _chunks_by_source([], 5) == []


def test_wrong_prediction_count_is_an_error(debate):
    class Short(KeywordClassifier):
        def classify(self, pairs, *, progress=None):
            return super().classify(pairs)[:-1]

    with pytest.raises(ConfigurationError, match="returned"):
        run_plan(plan_debate(debate), Short())
    with pytest.raises(ConfigurationError, match="tau"):
        run_plan(plan_debate(debate), KeywordClassifier(), tau=1.5)


def test_mine_summary_is_anchored_on_the_debate_proposals(debate, keyword_classifier):
    s = read_summary(EP_SUMMARY)
    res = mine_summary(s, debate, keyword_classifier)
    q = res.qbaf
    src = mine_debate(debate, KeywordClassifier()).qbaf
    assert q.proposals == src.proposals
    n = len(res.plan.speech)
    assert res.stats.n_pairs == n * (n - 1) // 2 + n * len(q.proposals)  # the default policy: ordered
    assert q.info["summary_variant"] == "claude_structured_en" and q.info["kind"] == "summary"
    assert q.name == "CRE-20990101-ITEM-001-claude_structured_en"


def test_summary_of_another_debate_is_refused(debate):
    s = Summary(debate_id="CRE-19990101-ITEM-001", text="Something.", variant="v")
    with pytest.raises(ConfigurationError, match="is of debate 'CRE-19990101-ITEM-001'"):
        plan_summary(s, debate)


def test_empty_summary_gives_a_proposals_only_qbaf(debate):
    s = Summary(debate_id=debate.id, text="", variant="v", metadata={"missing_text": True})
    res = mine_summary(s, debate, KeywordClassifier())
    assert res.qbaf.speech_arguments == () and len(res.qbaf.proposals) == 3
    assert res.qbaf.info["missing_text"] is True


def test_checkpoint_rows_are_json(debate, tmp_path: Path):
    ck = tmp_path / "c.jsonl"
    run_plan(plan_debate(debate), KeywordClassifier(), checkpoint=ck)
    lines = ck.read_text().splitlines()
    assert json.loads(lines[0])["argfaith_checkpoint"] == PairCheckpoint.VERSION
    row = json.loads(lines[1])
    assert set(row) >= {"source_id", "target_id", "label"}
