"""Tables, views, index and plots: formats, escaping of transcript text, and the dry run."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from argfaith.mining.candidates import count_source_candidates, count_summary_candidates
from argfaith.study import StudyConfig, run_study
from argfaith.study.corpus import SummaryFile, discover_study
from argfaith.study.dryrun import estimate_study_cost, format_study_cost, sum_estimates
from argfaith.study.outputs import variant_means
from argfaith.study.rows import markdown_table, row_columns, rows_to_csv, strength_moves

from .conftest import DEBATE_A, DEBATE_B, CountingClassifier

EVIL = '<script>alert("x")</script> **bold** | pipe [link](http://example.org)'


def _poison(corpus: Path) -> None:
    """Put markup in what ends up in the outputs: a provision's text and a summary's text."""
    f = corpus / "ep_debates" / "debates" / DEBATE_B / "report_statements" / "A-9-2099-0201.json"
    d = json.loads(f.read_text())
    d["paragraphs"][0] = "1.   Welcomes the proposal " + EVIL + ";\n"
    f.write_text(json.dumps(d))
    f = corpus / "ep_summaries" / DEBATE_B / f"{DEBATE_B}_claude_en_zero_shot.json"
    d = json.loads(f.read_text())
    d["summary"] += " " + EVIL
    f.write_text(json.dumps(d))


def test_outputs_escape_transcript_text(corpus: Path, tmp_path: Path) -> None:
    _poison(corpus)
    out = tmp_path / "out"
    run_study(StudyConfig(debates=corpus, summaries=corpus, out=out, classifier="counting", baselines="rouge",
                          top_moves=10, plots=False), classifier=CountingClassifier())
    index = (out / "index.html").read_text()
    assert "<script" not in index and "&lt;script&gt;" in index
    assert 'http-equiv="Content-Security-Policy"' in index and "default-src 'none'" in index
    assert "http://" not in index.replace("http://example.org", "")  # nothing fetched; the only URL is escaped text
    for v in ("claude_en_zero_shot", "gpt_structured_en"):
        assert f'href="reports/{DEBATE_B}/{v}.html"' in index
    report = (out / "reports" / DEBATE_B / "claude_en_zero_shot.html").read_text()
    assert "<script>alert" not in report
    md = (out / "table4.md").read_text()
    assert "<script>" not in md and "\\<script\\>" in md and "\\| pipe" in md
    # every Markdown table row has the header's number of cells
    for name in ("table3.md", "table4.md", "variants.md", "sensitivity.md"):
        for block in (out / name).read_text().split("\n\n"):
            lines = [ln for ln in block.splitlines() if ln.startswith("|")]
            if lines:
                n = lines[0].replace("\\|", "").count("|")
                assert all(ln.replace("\\|", "").count("|") == n for ln in lines), name


def test_plots_are_written_as_png_and_valid_svg(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = run_study(StudyConfig(debates=corpus, summaries=corpus, out=out, classifier="counting", baselines="rouge"),
                    classifier=CountingClassifier())
    for name in ("metrics_by_variant", "tau_sensitivity", "strength_shift"):
        png = out / "plots" / f"{name}.png"
        svg = out / "plots" / f"{name}.svg"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        ET.fromstring(svg.read_bytes())  # well-formed XML
        assert f"plots/{name}.png" in res.outputs
    assert (out / "index.html").read_text().count("data:image/png;base64,") == 3
    # reruns write the same SVG (no timestamps)
    before = (out / "plots" / "strength_shift.svg").read_bytes()
    run_study(StudyConfig(debates=corpus, summaries=corpus, out=out, classifier="counting", baselines="rouge"),
              classifier=CountingClassifier())
    assert (out / "plots" / "strength_shift.svg").read_bytes() == before


def test_csv_and_markdown_cells() -> None:
    cols = ["a", "b", "c", "d"]
    text = rows_to_csv([{"a": None, "b": True, "c": 0.123456789, "d": 'x,"y"'}], cols)
    assert list(csv.reader(io.StringIO(text))) == [cols, ["", "true", "0.123457", 'x,"y"']]
    md = markdown_table([{"a": None, "b": False, "c": 0.5, "d": "claude_en_zero_shot"}], cols)
    assert md.splitlines()[2] == "| n/a | no | 0.50 | claude_en_zero_shot |"


def test_row_columns_per_tau() -> None:
    cols = row_columns([0.15, 0.2])
    assert cols[:8] == ["debate", "variant", "family", "model", "style", "lang", "status", "note"]
    assert "pi_bc@0.15" in cols and "pi_ea@0.2" in cols and "pi_bc@0.25" not in cols
    assert len(cols) == len(set(cols))


def test_strength_moves_order() -> None:
    from argfaith.metrics.evaluate import evaluate
    from argfaith.qbaf import QBAF, Argument

    args = [Argument("p1", "proposal", 0.5), Argument("p2", "proposal", 0.5), Argument("p3", "proposal", 0.5),
            Argument("s1"), Argument("s2")]
    q = QBAF.from_arguments(args, attacks=[("s1", "p1")], supports=[("s2", "p2")], debate=True)
    qs = QBAF.from_arguments(args, attacks=[("s1", "p2")], supports=[("s2", "p1")], debate=True)
    r = evaluate(q, qs, tau=0.2, explain=False)
    sf = SummaryFile(Path("x.json"), "D", "v")
    moves = strength_moves(sf, r, 2)
    assert [m["rank"] for m in moves] == [1, 2]
    diffs = [abs(v.difference) for v in r.pairwise.per_proposal.values()]
    assert abs(moves[0]["difference"]) == max(diffs)
    assert {m["proposal"] for m in moves} == {"p1", "p2"}  # p3 did not move
    assert moves[0]["sigma_summary"] - moves[0]["sigma_source"] == pytest.approx(moves[0]["difference"])


def test_variant_means_skip_undefined_and_failed() -> None:
    rows = [{"variant": "a", "status": "ok", "x": 0.2}, {"variant": "a", "status": "ok", "x": None},
            {"variant": "a", "status": "failed", "x": 1.0}, {"variant": "b", "status": "ok", "x": 1.0}]
    assert variant_means(rows, ["x"]) == [{"variant": "a", "n": 2, "x": 0.2}, {"variant": "b", "n": 1, "x": 1.0}]


def test_dry_run_counts_every_planned_pair(corpus: Path, tmp_path: Path) -> None:
    from argfaith.datasets.documents import load_debate, load_summary
    from argfaith.mining.units import speech_units, summary_units

    c = discover_study(corpus, corpus)
    cfg = StudyConfig(debates=corpus, summaries=corpus, out=tmp_path)
    cost = estimate_study_cost(c, cfg)
    expected = 0
    for d in c.debates:
        deb = load_debate(d.path)
        n = len(speech_units(deb).units)
        expected += count_source_candidates(n, len(deb.provisions))
        for s in d.summaries:
            if not s.missing_text:
                expected += count_summary_candidates(len(summary_units(load_summary(s.path)).units), len(deb.provisions))
    assert sum(dc.pairs for dc in cost.debates) == expected
    single = cost.total[0]
    assert single.strategy == "single" and single.requests == expected  # one request per pair
    assert single.usd == pytest.approx(sum(dc.estimates[0].usd for dc in cost.debates))
    text = format_study_cost(cost)
    assert DEBATE_A in text and "no classifier was called" in text and f"{expected:,} pairs" in text
    assert any("no summary text" in s for s in cost.skipped)


def test_sum_estimates_rejects_mismatched_strategies() -> None:
    from argfaith.mining.cost import CostEstimate

    def est(name: str, usd: float | None) -> CostEstimate:
        return CostEstimate(name, "m", "single", "zero", False, False, 1, 1, 0, 10, 0, 0, 1, 5, usd)

    assert sum_estimates([[est("single", 1.0)], [est("single", 2.0)]])[0].usd == 3.0
    assert sum_estimates([[est("single", 1.0)], [est("single", None)]])[0].usd is None
    with pytest.raises(ValueError):
        sum_estimates([[est("single", 1.0)], [est("multi", 1.0)]])


def test_atomic_writes_leave_ordinary_permissions_and_no_temporaries(tmp_path: Path) -> None:
    import os
    import stat

    from argfaith.study.store import atomic_write_text

    f = tmp_path / "a" / "x.json"
    atomic_write_text(f, "1")
    atomic_write_text(f, "2")
    assert f.read_text() == "2"
    um = os.umask(0)
    os.umask(um)
    assert stat.S_IMODE(f.stat().st_mode) == 0o666 & ~um
    assert [p.name for p in f.parent.iterdir()] == ["x.json"]
