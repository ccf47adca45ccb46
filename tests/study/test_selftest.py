"""The evaluator self-test (argfaith.study.selftest, `argfaith selftest`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from argfaith.errors import ConfigurationError, DataFormatError
from argfaith.mining.classifiers.base import PairQuery
from argfaith.study.selftest import (
    CachedPairClassifier,
    SelftestConfig,
    choose_provisions,
    control_outcome,
    load_written_distortions,
    metric_outcome,
    render_selftest_markdown,
    run_selftest,
    sigma_outcome,
)
from tests.study.conftest import DEBATE_A, DEBATE_B, CountingClassifier


@pytest.mark.parametrize("expected, before, after, outcome", [
    ("up", 0.5, 0.6, "detected"), ("up", 0.5, 0.4, "wrong"), ("up", 0.5, 0.5, "unchanged"),
    ("down", 0.7, 0.6, "detected"), ("down", 0.7, 0.8, "wrong"),
    ("toward_base", 0.8, 0.6, "detected"), ("toward_base", 0.3, 0.45, "detected"), ("toward_base", 0.6, 0.3, "wrong"),
    ("toward_base", 0.6, 0.4, "wrong"),  # same distance, other side: not closer
    ("toward_base", 0.5, 0.5, "unchanged"),
    ("cross", 0.7, 0.4, "detected"), ("cross", 0.7, 0.65, "detected"), ("cross", 0.3, 0.2, "wrong"),
    ("cross", 0.5, 0.6, "unknown"), ("cross", 0.5, 0.5, "unchanged"),
    ("up", 0.5, 0.5 + 1e-12, "unchanged"),  # rounding noise is not a movement
])
def test_sigma_outcome(expected: str, before: float, after: float, outcome: str) -> None:
    assert sigma_outcome(expected, before, after) == outcome


def test_sigma_outcome_unknown_direction() -> None:
    with pytest.raises(ConfigurationError):
        sigma_outcome("sideways", 0.5, 0.6)


def test_metric_and_control_outcomes() -> None:
    assert metric_outcome(0.8, 0.7) == "detected"
    assert metric_outcome(0.7, 0.8) == "wrong"
    assert metric_outcome(0.7, 0.7) == "unchanged"
    assert metric_outcome(None, 0.7) == "undefined"
    assert control_outcome(0.8, 0.5) == "win"
    assert control_outcome(0.5, 0.8) == "loss"
    assert control_outcome(0.5, 0.5) == "tie"


def test_choose_provisions_deterministic() -> None:
    about = {"p1": [1, 2], "p2": [], "p3": [4], "p4": [], "p5": [3, 5, 6]}
    disc, und = choose_provisions(about, 2, 1, "seed")
    assert disc == ["p5", "p1"]
    assert und[0] in ("p2", "p4") and choose_provisions(about, 2, 1, "seed") == (disc, und)
    assert choose_provisions(about, 5, 5, "x")[0] == ["p5", "p1", "p3"]


def test_cached_pair_classifier(tmp_path: Path) -> None:
    inner = CountingClassifier()
    path = tmp_path / "cache.jsonl"
    c = CachedPairClassifier(inner, path)
    qs = [PairQuery("a b c", "d e f", "t"), PairQuery("g h", "i j", "t")]
    first = c.classify(qs)
    again = c.classify(qs[::-1])
    assert [p.label for p in again] == [p.label for p in first][::-1]
    assert inner.pairs_seen == 2 and c.hits == 2 and c.misses == 2
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"k": "torn')  # an interrupted write
    c2 = CachedPairClassifier(CountingClassifier(), path)
    c2.classify(qs)
    assert c2.misses == 0  # everything answered from the file
    # a different genre or target kind is a different pair
    c2.classify([PairQuery("a b c", "d e f", "t", genre="summary")])
    assert c2.misses == 1


def _cfg(corpus: Path, out: Path, **kw) -> SelftestConfig:  # type: ignore[no-untyped-def]
    return SelftestConfig(debates=corpus / "ep_debates", summaries=corpus / "ep_summaries", out=out, classifier="counting", **kw)


def test_run_selftest_and_resume(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    clf = CountingClassifier()
    events: list[tuple] = []
    agg = run_selftest(_cfg(corpus, out), clf, emit=events.append)
    assert agg["summaries"] == 5  # 6 files, the text-less one skipped
    root = out / "selftest"
    items = sorted(p.relative_to(root / "items").as_posix() for p in (root / "items").glob("*/*.json"))
    assert len(items) == 5 and all(i.startswith((DEBATE_A, DEBATE_B)) for i in items)
    rec = json.loads((root / "items" / DEBATE_A / "claude_en_zero_shot.json").read_text())
    assert rec["distortions"], "rules found something to distort"
    for d in rec["distortions"]:
        assert d["sigma"] in ("detected", "unchanged", "wrong", "unknown")
        assert set(d["pi_bc"]) == {"before", "after", "outcome"}
    ctrl = json.loads((root / "controls" / f"{DEBATE_A}.json").read_text())
    assert set(ctrl["empty"]) == {"pi_bc", "pi_ea", "pi_dpc", "pcr"}
    assert ctrl["wrong_debate"]["from_debate"] == DEBATE_B  # the next debate, wrapping around
    assert (root / "selftest.json").exists() and "| omit |" in (root / "selftest.md").read_text()
    # the debate QBAF is where `argfaith study` keeps it (shared cache)
    assert list((out / "mined").glob(f"*/{DEBATE_A}/source.json"))
    seen = clf.pairs_seen
    clf2 = CountingClassifier()
    agg2 = run_selftest(_cfg(corpus, out), clf2)
    assert clf2.pairs_seen == 0, "a finished self-test is not redone"
    assert agg2["kinds"] == agg["kinds"] and seen > 0


def test_interrupted_selftest_resumes(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    full = CountingClassifier()
    run_selftest(_cfg(corpus, tmp_path / "ref"), full)
    with pytest.raises(KeyboardInterrupt):
        run_selftest(_cfg(corpus, out), CountingClassifier(interrupt_after=full.pairs_seen // 2))
    resumed = CountingClassifier()
    agg = run_selftest(_cfg(corpus, out), resumed)
    assert 0 < resumed.pairs_seen < full.pairs_seen  # finished pairs are not classified again
    ref = json.loads((tmp_path / "ref" / "selftest" / "selftest.json").read_text())
    assert agg["kinds"] == ref["kinds"] and agg["controls"] == ref["controls"]


def test_written_distortions(corpus: Path, tmp_path: Path) -> None:
    wd = tmp_path / "written"
    wd.mkdir()
    line = {"summary_file": f"{DEBATE_A}_claude_en_zero_shot.json", "kind": "invert", "provision": f"{DEBATE_A}-PAR-1",
            "expected": "down", "edits": [{"op": "replace", "sentence": 2, "text": "The rapporteur argued that annual inspections of every ship are wrong."}]}
    (wd / "manifest.jsonl").write_text(json.dumps(line) + "\n")
    got = load_written_distortions(wd)
    (d,) = got[f"{DEBATE_A}_claude_en_zero_shot.json"]
    assert d.expected == "down" and d.method == "written"
    agg = run_selftest(_cfg(corpus, tmp_path / "o", distortions=f"written:{wd}", controls=False), CountingClassifier())
    assert agg["kinds"]["invert"]["sigma"]["n"] == 1 and "omit" not in agg["kinds"]
    (wd / "manifest.jsonl").write_text(json.dumps(line) + "\n" + '{"kind": "invert"}\n')
    with pytest.raises(DataFormatError, match=r"manifest.jsonl:2"):
        load_written_distortions(wd)


def test_config_validation(corpus: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="--kinds"):
        _cfg(corpus, tmp_path, kinds=("omit", "nope"))
    with pytest.raises(ConfigurationError, match="--epsilon"):
        _cfg(corpus, tmp_path, epsilon=0.0)
    with pytest.raises(ConfigurationError, match="--distortions"):
        _cfg(corpus, tmp_path, distortions="gpt")


def test_render_markdown_handles_missing_rates() -> None:
    agg = {"classifier": "x", "classifier_fingerprint": "abc", "summaries": 0, "kinds": {}, "controls": {}, "warnings": {}}
    assert "0 summaries" in render_selftest_markdown(agg)


def _argfaith(*args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    env = {**os.environ, "ANTHROPIC_API_KEY": "", **(env_extra or {})}
    env.pop("ANTHROPIC_API_KEY")
    return subprocess.run([sys.executable, "-m", "argfaith", *args], capture_output=True, text=True, env=env, timeout=600)


def test_cli_selftest(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "cli"
    r = _argfaith("selftest", "--debates", str(corpus / "ep_debates"), "--summaries", str(corpus / "ep_summaries"),
                  "--out", str(out), "--classifier", "lexical", "--format", "json", "-q")
    assert r.returncode == 0, r.stderr
    agg = json.loads(r.stdout)
    assert agg["classifier"] == "lexical" and agg["summaries"] == 5
    bad = _argfaith("selftest", "--data", str(corpus), "--out", str(out), "--classifier", "lexical", "--kinds", "omit,nope")
    assert bad.returncode == 2 and bad.stderr.startswith("error:") and "nope" in bad.stderr and "Traceback" not in bad.stderr
    nod = _argfaith("selftest", "--data", str(corpus), "--out", str(out), "--classifier", "lexical", "--distortions", f"written:{tmp_path / 'missing'}")
    assert nod.returncode == 2 and "not a directory" in nod.stderr


def test_study_index_shows_the_selftest(corpus: Path, tmp_path: Path) -> None:
    from argfaith.study.config import StudyConfig
    from argfaith.study.runner import run_study

    out = tmp_path / "study"
    cfg = StudyConfig(debates=corpus / "ep_debates", summaries=corpus / "ep_summaries", out=out, classifier="counting",
                      taus=(0.2,), baselines="none", plots=False, explain_top=0)
    import argfaith.study.runner as runner

    orig = runner._make_classifier
    runner._make_classifier = lambda spec: CountingClassifier()  # type: ignore[assignment]
    try:
        run_study(cfg)
        assert "Not run on this folder" in (out / "index.html").read_text()
        run_selftest(_cfg(corpus, out), CountingClassifier())
        run_study(cfg)  # reuses every item; rewrites the index
    finally:
        runner._make_classifier = orig  # type: ignore[assignment]
    page = (out / "index.html").read_text()
    assert "Evaluator self-test" in page and "the empty summary" in page and "Not run" not in page
    assert (out / "selftest" / "selftest.html").read_text().startswith("<!DOCTYPE html>")
    # Every pairwise metric of the study's tables comes with the empty summary's value and, from the
    # self-test's controls (same classifier, same τ), a summary of another debate.
    rows = {(r["debate"], r["variant"]): r for r in json.loads((out / "table.json").read_text())["rows"] if r["status"] == "ok"}
    r = rows[(DEBATE_A, "claude_en_zero_shot")]
    assert r["empty_pi_bc@0.2"] is not None and r["wrong_pi_bc"] is not None and r["wrong_from"] == DEBATE_B
    t3 = (out / "table3.md").read_text()
    assert t3.count("↳ the empty summary") == 3 * 2 and t3.count("↳ a summary of another debate") == 3 * 2


def test_cached_pair_classifier_never_keeps_stand_in_labels(tmp_path: Path) -> None:
    """A label standing in for a refused or failed request (Prediction.final False) is returned but
    not cached, so the next run asks for that pair again (issue 16)."""
    from argfaith.mining.classifiers.base import Prediction

    class Refusing:
        name = "refusing"
        fingerprint = "refusing-1"

        def __init__(self, refuse: set[str]) -> None:
            self.refuse, self.seen = refuse, 0

        def classify(self, pairs, *, progress=None):  # type: ignore[no-untyped-def]
            self.seen += len(pairs)
            return [Prediction("no relation", None, fallback=True, final=False) if q.source in self.refuse
                    else Prediction("support", 0.9) for q in pairs]

    path = tmp_path / "cache.jsonl"
    qs = [PairQuery("a b c", "d e f", "t"), PairQuery("g h", "i j", "t")]
    c = CachedPairClassifier(Refusing({"g h"}), path)
    got = c.classify(qs)
    assert [p.label for p in got] == ["support", "no relation"] and not got[1].final
    assert c.unanswered == 1
    inner = Refusing(set())
    c2 = CachedPairClassifier(inner, path)
    assert [p.label for p in c2.classify(qs)] == ["support", "support"]
    assert inner.seen == 1 and c2.unanswered == 0  # only the refused pair is asked again
