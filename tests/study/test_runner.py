"""End-to-end study runs on the fixture corpus: outputs, values against an independent
recomputation, resuming after an interruption, and what a changed setting redoes."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from argfaith.metrics.evaluate import evaluate
from argfaith.mining.pipeline import plan_debate, plan_summary
from argfaith.qbaf import load_qbaf
from argfaith.study import StudyConfig, prepare_study, run_study
from argfaith.study.runner import StudyPaths

from .conftest import DEBATE_A, DEBATE_B, CountingClassifier


def _config(data: Path, out: Path, **kw) -> StudyConfig:  # type: ignore[no-untyped-def]
    kw.setdefault("baselines", "rouge")
    kw.setdefault("plots", False)
    return StudyConfig(debates=data / "ep_debates", summaries=data / "ep_summaries", out=out, classifier="counting", **kw)


def _all_pairs(data: Path) -> dict[str, int]:
    """Planned pairs per mined document, computed independently of the study."""
    from argfaith.datasets.documents import load_debate, load_summary

    out = {}
    for did in (DEBATE_A, DEBATE_B):
        deb = load_debate(data / "ep_debates" / "debates" / did)
        out[f"{did}/source"] = len(plan_debate(deb).pairs)
        for f in sorted((data / "ep_summaries" / did).glob("*.json")):
            s = load_summary(f, missing_text="empty")
            if s.text:
                out[f"{did}/{s.variant}"] = len(plan_summary(s, deb).pairs)
    return out


def test_study_end_to_end(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    clf = CountingClassifier()
    res = run_study(_config(corpus, out, html=True), classifier=clf)
    assert (res.n_ok, res.n_skipped, res.n_failed, res.n_reused) == (5, 1, 0, 0)
    # every planned pair was classified exactly once
    assert clf.pairs_seen == sum(_all_pairs(corpus).values())
    skipped = dict(res.skipped)
    assert "null" in skipped[f"{DEBATE_A}/claude_org_zero_shot"]
    rows = list(csv.DictReader(open(out / "table.csv", encoding="utf-8")))
    assert len(rows) == 6 and {r["status"] for r in rows} == {"ok", "skipped"}
    for name in ("table.json", "table3.md", "variants.md", "table4.csv", "table4.md", "sensitivity.csv", "sensitivity.md",
                 "index.html", "study.json"):
        assert (out / name).is_file(), name
    paths = StudyPaths(out)
    for r in rows:
        if r["status"] == "ok":
            assert paths.report(r["debate"], r["variant"], ".json").is_file()
            assert paths.report(r["debate"], r["variant"], ".html").is_file()
    manifest = json.loads((out / "study.json").read_text())
    assert manifest["summary"] == {"ok": 5, "skipped": 1, "failed": 0}
    assert len(manifest["items"]) == 6


def test_row_values_match_an_independent_evaluation(corpus: Path, tmp_path: Path) -> None:
    """Differential: the table's numbers equal argfaith.metrics.evaluate on the saved QBAFs."""
    out = tmp_path / "out"
    run_study(_config(corpus, out, taus=(0.15, 0.2)), classifier=CountingClassifier())
    table = json.loads((out / "table.json").read_text())
    tag = json.loads((out / "study.json").read_text())["classifier"]["tag"]
    paths = StudyPaths(out)
    checked = 0
    for row in table["rows"]:
        if row["status"] != "ok":
            continue
        q = load_qbaf(paths.source_qbaf(tag, row["debate"]))
        qs = load_qbaf(paths.summary_qbaf(tag, row["debate"], row["variant"]))
        for t in (0.15, 0.2):
            r = evaluate(q, qs, tau=t, explain=False)
            assert row[f"pi_bc@{t:g}"] == pytest.approx(r.pairwise.balance_consistency)
            assert row[f"pi_ea@{t:g}"] == pytest.approx(r.pairwise.epsilon_accuracy)
            assert row[f"pi_dpc@{t:g}"] == pytest.approx(r.pairwise.d_preferability_consistency)
        assert row["pi_ar"] == pytest.approx(r.summary.relevance)
        assert row["source_pi_ar"] == pytest.approx(r.source.relevance)
        assert row["summary_n_speech"] == len(qs.speech_arguments)
        # the labels in the QBAF are the classifier's
        for s, t2 in qs.attacks:
            assert CountingClassifier.label(_query(qs, s, t2)) == "attack"
        checked += 1
    assert checked == 5


def _query(q, s, t):  # type: ignore[no-untyped-def]
    from argfaith.mining.classifiers.base import PairQuery

    return PairQuery(source=q.argument(s).text, target=q.argument(t).text)


def test_rerun_reuses_everything(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_study(_config(corpus, out), classifier=CountingClassifier())
    first = (out / "table.csv").read_text()
    clf = CountingClassifier()
    res = run_study(_config(corpus, out), classifier=clf)
    assert clf.pairs_seen == 0 and res.n_reused == 6 and res.n_done_now == 0
    assert (out / "table.csv").read_text() == first


def test_interrupted_run_resumes_without_redoing_work(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    total = sum(_all_pairs(corpus).values())
    # Let the first debate's source and first summary finish, then interrupt inside the next
    # summary.
    pairs = _all_pairs(corpus)
    first = prepare_study(_config(corpus, out), classifier=CountingClassifier()).tasks[0].debate.debate_id
    cut = pairs[f"{first}/source"] + pairs[f"{first}/claude_en_zero_shot"] + 5
    with pytest.raises(KeyboardInterrupt):
        run_study(_config(corpus, out, chunk_size=1), classifier=CountingClassifier(interrupt_after=cut))
    manifest = json.loads((out / "study.json").read_text())
    assert manifest["runs"][-1]["interrupted"] is True
    done_items = {k for k, v in manifest["items"].items() if v.get("status") == "ok"}
    assert done_items == {f"{first}/claude_en_zero_shot"}
    clf = CountingClassifier()
    res = run_study(_config(corpus, out, chunk_size=1), classifier=clf)
    # chunk_size=1 checkpoints every source argument's targets: only the pairs of the summary in
    # flight that were not yet saved, plus everything not started, are classified again
    assert clf.pairs_seen <= total - cut + 5
    assert clf.pairs_seen >= total - cut
    assert res.n_ok == 5 and res.n_reused == 2  # the finished summary + the text-less one (skipped)
    # and the result equals an uninterrupted run
    ref = tmp_path / "ref"
    run_study(_config(corpus, ref, chunk_size=1), classifier=CountingClassifier())
    a = json.loads((out / "table.json").read_text())["rows"]
    b = json.loads((ref / "table.json").read_text())["rows"]
    strip = lambda rows: [{k: v for k, v in r.items() if not k.endswith("_seconds")} for r in rows]  # noqa: E731
    assert strip(a) == strip(b)


def test_changed_tau_reevaluates_without_classifying(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_study(_config(corpus, out, taus=(0.2,)), classifier=CountingClassifier())
    clf = CountingClassifier()
    res = run_study(_config(corpus, out, taus=(0.1, 0.2)), classifier=clf)
    assert clf.pairs_seen == 0  # mined QBAFs reused
    assert res.n_done_now == 6 and res.n_reused == 0
    assert "pi_bc@0.1" in (out / "table.csv").read_text().splitlines()[0]


def test_changed_classifier_remines_into_a_fresh_folder(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_study(_config(corpus, out), classifier=CountingClassifier(fingerprint="v1"))
    clf = CountingClassifier(fingerprint="v2")  # e.g. retrained weights
    res = run_study(_config(corpus, out), classifier=clf)
    assert clf.pairs_seen == sum(_all_pairs(corpus).values())
    assert res.n_reused == 0
    tags = sorted(p.name for p in (out / "mined").iterdir())
    assert len(tags) == 2 and all(t.startswith("counting-") for t in tags)


def test_edited_summary_is_redone_alone(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run_study(_config(corpus, out), classifier=CountingClassifier())
    f = corpus / "ep_summaries" / DEBATE_B / f"{DEBATE_B}_claude_en_zero_shot.json"
    d = json.loads(f.read_text())
    d["summary"] += " A new closing sentence about roaming caps."
    f.write_text(json.dumps(d))
    clf = CountingClassifier()
    res = run_study(_config(corpus, out), classifier=clf)
    assert res.n_done_now == 1 and res.n_reused == 5
    assert 0 < clf.pairs_seen < 60


def test_bad_files_are_reported_not_fatal(corpus: Path, tmp_path: Path) -> None:
    # a summary of a debate that is not in the corpus, a malformed summary file, and a summary
    # whose debate folder is broken
    orphan = corpus / "ep_summaries" / "CRE-20990303-ITEM-003"
    orphan.mkdir()
    (orphan / "CRE-20990303-ITEM-003_claude_en_zero_shot.json").write_text(json.dumps({"summary": "Text.", "lang": "english"}))
    (corpus / "ep_summaries" / DEBATE_A / f"{DEBATE_A}_gpt_structured_en.json").write_text("{not json")
    broken = corpus / "ep_debates" / "debates" / DEBATE_B / "report_statements" / "A-9-2099-0201.json"
    broken.write_text(json.dumps({"report_id": "A-9-2099-0201", "paragraphs": "not a list"}))
    out = tmp_path / "out"
    res = run_study(_config(corpus, out), classifier=CountingClassifier())
    status = {r["debate"] + "/" + r["variant"]: (r["status"], r["note"]) for r in res.rows}
    assert status["CRE-20990303-ITEM-003/claude_en_zero_shot"][0] == "skipped"
    assert "no debate folder" in status["CRE-20990303-ITEM-003/claude_en_zero_shot"][1]
    st, note = status[f"{DEBATE_A}/gpt_structured_en"]
    assert st == "error" and "gpt_structured_en.json" in note and "invalid JSON" in note
    for v in ("claude_en_zero_shot", "claude_structured_org", "gpt_structured_en"):
        st, note = status[f"{DEBATE_B}/{v}"]
        assert st == "failed" and "A-9-2099-0201.json" in note and "paragraphs" in note
    assert status[f"{DEBATE_A}/claude_en_zero_shot"][0] == "ok"
    assert res.n_failed == 4  # three failed + one unreadable


def test_prepare_lists_pending_work_without_mining(corpus: Path, tmp_path: Path) -> None:
    clf = CountingClassifier()
    prep = prepare_study(_config(corpus, tmp_path / "out"), classifier=clf)
    assert clf.pairs_seen == 0
    assert sorted(t.debate.debate_id for t in prep.tasks) == [DEBATE_A, DEBATE_B]
    assert sum(len(t.pending) for t in prep.tasks) == 6


def test_object_classifier_needs_one_job(corpus: Path, tmp_path: Path) -> None:
    from argfaith.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="jobs=1"):
        run_study(_config(corpus, tmp_path / "out", jobs=2), classifier=CountingClassifier())


@pytest.mark.slow
def test_parallel_run_equals_serial(corpus: Path, tmp_path: Path) -> None:
    """jobs=2 (spawned worker processes, classifier built from its spec) gives the same table."""
    def cfg(out: Path, jobs: int) -> StudyConfig:
        return StudyConfig(debates=corpus / "ep_debates", summaries=corpus / "ep_summaries", out=out,
                           classifier="lexical", baselines="rouge", plots=False, html=False, jobs=jobs)

    a = run_study(cfg(tmp_path / "serial", 1))
    events: list[tuple] = []
    b = run_study(cfg(tmp_path / "parallel", 2), on_event=events.append)
    strip = lambda rows: [{k: v for k, v in r.items() if not k.endswith("_seconds")} for r in rows]  # noqa: E731
    assert strip(a.rows) == strip(b.rows)
    assert {e[0] for e in events} >= {"start", "debate", "pairs", "item"}


def test_semantics_sweep_reevaluates_without_classifying(corpus: Path, tmp_path: Path) -> None:
    """--semantics with several semantics: the mined QBAFs are reused (no classifier call), every
    evaluated summary gets sweep rows, semantics.md / semantics.csv are written, and the rows
    equal an independent recomputation from the saved QBAFs."""
    from argfaith.metrics.faithfulness import balance_side
    from argfaith.qbaf import load_qbaf
    from argfaith.qbaf.gradual import gradual_strengths

    out = tmp_path / "out"
    run_study(_config(corpus, out, taus=(0.2,)), classifier=CountingClassifier())
    assert not (out / "semantics.md").exists()
    clf = CountingClassifier()
    sems = ("dfquad", "quadratic-energy", "weighted-h-categorizer")
    res = run_study(_config(corpus, out, taus=(0.2,), semantics=sems), classifier=clf)
    assert clf.pairs_seen == 0 and res.n_done_now == 6
    rows = list(csv.DictReader(open(out / "semantics.csv", encoding="utf-8")))
    assert len(rows) == 5 * len(sems) and {r["semantics"] for r in rows} == set(sems)
    md = (out / "semantics.md").read_text(encoding="utf-8")
    assert "Semantics sweep at τ = 0.2" in md and "| quadratic-energy |" in md
    paths = StudyPaths(out)
    tag = json.loads((out / "study.json").read_text())["classifier"]["tag"]
    checked = 0
    for r in rows:
        if r["semantics"] != "quadratic-energy":
            continue
        src = load_qbaf(paths.source_qbaf(tag, r["debate"])).with_speech_base_score(0.2)
        qs = load_qbaf(paths.summary_qbaf(tag, r["debate"], r["variant"])).with_speech_base_score(0.2)
        a, b = gradual_strengths(src, "quadratic-energy"), gradual_strengths(qs, "quadratic-energy")
        a0 = gradual_strengths(src, "dfquad")
        ps = [p for p in src.proposals if p in qs]
        assert float(r["pi_bc"]) == pytest.approx(sum(balance_side(a[p]) == balance_side(b[p]) for p in ps) / len(ps), abs=1e-6)
        assert r["source_side_changes"].split() == [p for p in ps if balance_side(a[p]) != balance_side(a0[p])]
        checked += 1
    assert checked == 5
    assert {r["skipped"] for r in rows if r["semantics"] == "weighted-h-categorizer"} <= {"the source QBAF has supports (attack-only semantics)", ""}
    assert "semantics.md" in (out / "index.html").read_text(encoding="utf-8")


def _thread_env_at_start(_: object) -> dict[str, str | None]:
    """A pool worker's thread variables as they were when its interpreter started (Linux), and now."""
    from argfaith.study import runner

    start = dict(x.split("=", 1) for x in Path("/proc/self/environ").read_bytes().decode(errors="replace").split("\0") if "=" in x)
    return {**{f"start:{v}": start.get(v) for v in runner.WORKER_THREAD_ENV}, **{f"now:{v}": os.environ.get(v) for v in runner.WORKER_THREAD_ENV}}


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads a process's initial environment from /proc")
def test_pool_workers_start_with_one_blas_thread(monkeypatch) -> None:
    """The thread variables must be in a worker's environment when it starts: numpy loads
    OpenBLAS (which reads them once) while the worker imports the runner, before any initializer.
    A variable the caller set is kept; the caller's own environment is left as it was."""
    from argfaith.study.runner import WORKER_THREAD_ENV, run_in_workers

    for var in WORKER_THREAD_ENV:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("MKL_NUM_THREADS", "3")
    got: list[dict[str, str | None]] = []
    run_in_workers(_thread_env_at_start, [0, 1], 2, lambda ev: None, got.append)
    assert len(got) == 2
    for env in got:
        assert env["start:OMP_NUM_THREADS"] == env["start:OPENBLAS_NUM_THREADS"] == "1"
        assert env["start:MKL_NUM_THREADS"] == "3"
    assert "OMP_NUM_THREADS" not in os.environ and "OPENBLAS_NUM_THREADS" not in os.environ
    assert os.environ["MKL_NUM_THREADS"] == "3"
