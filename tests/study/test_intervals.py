"""`argfaith study --draws K` (issue 23): error bars in the study's per-summary tables and reports,
computed from the mined QBAFs without another classifier call; resumable like every setting."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest

from argfaith.mining.classifiers.base import Prediction
from argfaith.study import StudyConfig, run_study
from argfaith.study.rows import interval_columns, row_columns
from argfaith.study.runner import StudyPaths

from .conftest import CountingClassifier

DRAWS = 30


class UnsureClassifier(CountingClassifier):
    """:class:`CountingClassifier`'s labels, with class probabilities: a third of the pairs are
    uncertain (top class 0.6), the others sure (0.995), so the mined QBAFs carry a
    ``relation_distribution``."""

    def classify(self, pairs, *, progress=None):  # type: ignore[no-untyped-def]
        out = []
        for pred, q in zip(super().classify(pairs, progress=progress), pairs):
            top = 0.6 if hashlib.sha256(f"{q.target}\x00{q.source}".encode()).digest()[0] < 85 else 0.995
            rest = (1.0 - top) / 2
            probs = {k: (top if k == pred.label else rest) for k in ("attack", "support", "no relation")}
            out.append(Prediction(pred.label, confidence=top, probabilities=probs))
        return out


def _config(data: Path, out: Path, **kw) -> StudyConfig:  # type: ignore[no-untyped-def]
    return StudyConfig(debates=data / "ep_debates", summaries=data / "ep_summaries", out=out, classifier="unsure",
                       baselines="none", plots=False, taus=(0.15, 0.2), **kw)


def _rows(out: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(open(out / "table.csv", encoding="utf-8")))


def test_study_draws_add_intervals_without_mining_again(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = UnsureClassifier(fingerprint="unsure-v1", name="unsure")
    run_study(_config(corpus, out), classifier=first)
    assert first.pairs_seen > 0
    assert list(_rows(out)[0]) == row_columns((0.15, 0.2))  # no draws: the columns of earlier studies
    assert "[" not in (out / "table3.md").read_text(encoding="utf-8").split("## ", 1)[1].replace("\\[", "")

    again = UnsureClassifier(fingerprint="unsure-v1", name="unsure")
    res = run_study(_config(corpus, out, draws=DRAWS), classifier=again)
    assert again.pairs_seen == 0  # the mined QBAFs are reused
    assert res.n_reused == 0 and res.n_done_now == 6  # but every summary is evaluated again
    rows = _rows(out)
    assert list(rows[0]) == row_columns((0.15, 0.2), intervals=True)
    ok = [r for r in rows if r["status"] == "ok"]
    assert len(ok) == 5 and all(r["draws"] == str(DRAWS) for r in ok)
    paths = StudyPaths(out)
    wide = 0
    for r in ok:
        rep = json.loads(paths.report(r["debate"], r["variant"], ".json").read_text(encoding="utf-8"))
        at = {x["settings"]["tau"]: x for x in rep["reports"]}
        for t in ("0.15", "0.2"):
            iv = at[float(t)]["pairwise"]["interval"]["balance_consistency"]
            lo, hi = interval_columns(f"pi_bc@{t}")
            assert float(r[lo]) == pytest.approx(iv["low"], abs=1e-5) and float(r[hi]) == pytest.approx(iv["high"], abs=1e-5)
            wide += iv["high"] > iv["low"]
        assert float(r["pi_ar_low"]) <= float(r["pi_ar_high"])
        assert at[0.2]["uncertainty"]["draws"] == DRAWS
        html = paths.report(r["debate"], r["variant"], ".html").read_text(encoding="utf-8")
        assert 'class="whisker"' in html and "not annotation disagreement" in html
    assert wide > 0  # the test data has real uncertainty
    t3 = (out / "table3.md").read_text(encoding="utf-8")
    v = ok[0]
    lo, hi = interval_columns("pi_bc@0.2")
    assert f"{float(v['pi_bc@0.2']):.2f} \\[{float(v[lo]):.2f}, {float(v[hi]):.2f}\\]" in t3
    assert f"{DRAWS} labellings sampled" in t3 and "not annotation disagreement" in t3
    index = (out / "index.html").read_text(encoding="utf-8")
    assert f"{float(v['pi_bc@0.2']):.2f} [{float(v[lo]):.2f}, {float(v[hi]):.2f}]" in index
    assert "not annotation disagreement" in index
    assert "per-summary intervals" in (out / "variants.md").read_text(encoding="utf-8")

    # resuming with the same --draws redoes nothing
    third = UnsureClassifier(fingerprint="unsure-v1", name="unsure")
    res = run_study(_config(corpus, out, draws=DRAWS), classifier=third)
    assert third.pairs_seen == 0 and res.n_reused == 6 and res.n_done_now == 0


def test_draws_enter_the_evaluation_key_only_when_set(tmp_path: Path) -> None:
    base = StudyConfig(debates=tmp_path, summaries=tmp_path, out=tmp_path)
    assert base.evaluation_key(["rouge"]) == StudyConfig(debates=tmp_path, summaries=tmp_path, out=tmp_path, draws=0).evaluation_key(["rouge"])
    k50 = StudyConfig(debates=tmp_path, summaries=tmp_path, out=tmp_path, draws=50).evaluation_key(["rouge"])
    assert k50 != base.evaluation_key(["rouge"])
    assert k50 != StudyConfig(debates=tmp_path, summaries=tmp_path, out=tmp_path, draws=100).evaluation_key(["rouge"])
