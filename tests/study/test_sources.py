"""Source-only statistics: pair counts per strategy, streamed mining against the pipeline, and
per-debate resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from argfaith.datasets.documents import load_debate
from argfaith.mining.classifiers.prior import mining_classifier
from argfaith.mining.classifiers.registry import make_classifier
from argfaith.mining.pipeline import plan_debate, run_plan
from argfaith.qbaf import dfquad_strengths
from argfaith.study.sources import CASCADES, TOPK, pairs_kept_per_source, run_source_stats, source_statistics

from .conftest import DEBATE_A, DEBATE_B, CountingClassifier


def _debate(corpus: Path, did: str = DEBATE_A):  # type: ignore[no-untyped-def]
    return load_debate(corpus / "ep_debates" / "debates" / did)


@pytest.mark.parametrize("k", [1, 3, 5, 50])
def test_topk_and_random_counts_match_the_pruners(corpus: Path, k: int) -> None:
    d = _debate(corpus)
    n_topk = len(plan_debate(d, units="sentences", candidates=f"topk:{k}").pairs)
    n_random = len(plan_debate(d, units="sentences", candidates=f"random:{k}").pairs)
    plan = plan_debate(d, units="sentences")
    assert pairs_kept_per_source(len(plan.speech), len(plan.proposals), k) == n_topk == n_random


def test_streamed_mining_equals_the_pipeline(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Differential: the streamed path (small chunks here) gives the pipeline's edges and σ, and
    cascade counts equal to thresholding one unchunked classification of the planned queries."""
    import argfaith.study.sources as sources
    from argfaith.mining.candidates import p_no_relation

    monkeypatch.setattr(sources, "_CHUNK", 7)
    d = _debate(corpus)
    clf = make_classifier("features")
    stats = source_statistics(d, clf, units="sentences", taus=(0.2, 0.25))
    plan = plan_debate(d, units="sentences")
    q = run_plan(plan, clf).qbaf
    assert (stats["attacks"], stats["supports"]) == (len(q.attacks), len(q.supports))
    assert stats["speech_arguments"] == len(q.speech_arguments) and stats["provisions"] == len(q.proposals)
    for t in (0.2, 0.25):
        s = dfquad_strengths(q.with_speech_base_score(t))
        assert stats["sigma"][f"{t:g}"] == pytest.approx([s[p] for p in q.proposals])
    pn = [p_no_relation(x) for x in mining_classifier(clf).classify(plan.queries())]
    for p in CASCADES:
        assert stats["pairs"][f"cascade{p:g}"] == sum(1 for v in pn if v < p)
    assert stats["pairs"]["all"] == len(plan.pairs)
    assert set(stats["pairs"]) == {"all", *(f"topk{k}" for k in TOPK), *(f"cascade{p:g}" for p in CASCADES)}


@pytest.mark.parametrize("did", [DEBATE_A, DEBATE_B])
def test_streamed_edges_are_the_pipelines(corpus: Path, monkeypatch: pytest.MonkeyPatch, did: str) -> None:
    """The same edge sets, not just the same counts."""
    import argfaith.study.sources as sources
    from argfaith.study.sources import stream_source_qbaf

    monkeypatch.setattr(sources, "_CHUNK", 5)
    plan = plan_debate(_debate(corpus, did), units="sentences")
    for clf in (CountingClassifier(), make_classifier("features")):
        q = run_plan(plan, clf).qbaf
        qs, codes, _ = stream_source_qbaf(plan, clf)
        assert set(qs.attacks) == set(q.attacks) and set(qs.supports) == set(q.supports)
        assert qs.ids == q.ids and list(qs.base_scores) == list(q.base_scores)
        assert int((codes != 0).sum()) == len(q.attacks) + len(q.supports)


def test_cascade_counts_unknown_without_probabilities(corpus: Path) -> None:
    # the counting classifier reports confidence only for its label, which still gives P(no relation)
    stats = source_statistics(_debate(corpus), CountingClassifier(), units="sentences", taus=(0.2,))
    assert all(v is not None for k, v in stats["pairs"].items())


def test_run_resumes_per_debate(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "src"
    plan_a = plan_debate(_debate(corpus, DEBATE_A), units="sentences")
    plan_b = plan_debate(_debate(corpus, DEBATE_B), units="sentences")
    first = plan_a if len(plan_a.pairs) >= len(plan_b.pairs) else plan_b  # larger debates run first
    with pytest.raises(KeyboardInterrupt):
        run_source_stats(corpus, out, classifier_object=CountingClassifier(interrupt_after=len(first.pairs) + 3), plots=False)
    assert [p.name for p in (out / "sources").iterdir()] == [f"{first.name}.json"]
    clf = CountingClassifier()
    s = run_source_stats(corpus, out, classifier_object=clf, plots=False)
    second = plan_b if first is plan_a else plan_a
    assert clf.pairs_seen == len(second.pairs)
    assert s["debates_ok"] == 2 and s["debates_reused"] == 1
    assert s["pairs"]["all"] == len(plan_a.pairs) + len(plan_b.pairs)
    rows = (out / "source_stats.csv").read_text().splitlines()
    assert len(rows) == 3 and rows[0].startswith("debate,status")
    again = CountingClassifier()
    run_source_stats(corpus, out, classifier_object=again, plots=False)
    assert again.pairs_seen == 0


def test_broken_debate_is_reported(corpus: Path, tmp_path: Path) -> None:
    f = corpus / "ep_debates" / "debates" / DEBATE_B / "interventions" / "2-011.json"
    f.write_text("{")
    out = tmp_path / "src"
    s = run_source_stats(corpus, out, classifier_object=CountingClassifier(), plots=True)
    assert s["debates_failed"] == [DEBATE_B]
    manifest = json.loads((out / "study.json").read_text())
    assert "2-011.json" in manifest["items"][DEBATE_B]["note"]
    assert (out / "plots" / "source_stats.png").is_file()
