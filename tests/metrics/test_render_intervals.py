"""Error bars in the renderers (issue 23): reports evaluated with ``draws`` show every metric as
``value [low, high]``, σ whiskers, verdict probabilities and P(better); reports without error bars
render byte for byte as before issue 23 (golden files in ``tests/fixtures/metrics/render``,
rendered by the renderers before error bars existed).

After a deliberate change of the renderers, rewrite the golden files with
``ARGFAITH_UPDATE_GOLDEN=1 python -m pytest tests/metrics/test_render_intervals.py`` and read the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from argfaith.metrics.alignment import FileAligner
from argfaith.metrics.evaluate import evaluate_many
from argfaith.metrics.render import render
from argfaith.metrics.render.common import fmt_interval
from argfaith.qbaf import load_qbaf

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "fixtures" / "metrics" / "render"
PAPER = ROOT / "examples" / "paper"
DEBATE = ROOT / "examples" / "debate"


def _paper_suite():  # type: ignore[no-untyped-def]
    q, qa, qb = (load_qbaf(PAPER / f"{n}.json") for n in ("q", "qa", "qb"))
    return evaluate_many(q, [qa, qb], source_path="q.json", summary_paths=["qa.json", "qb.json"])


def _debate_suite():  # type: ignore[no-untyped-def]
    src = load_qbaf(DEBATE / "source.json")
    variants = ("faithful", "distorted")
    return evaluate_many(
        src, [load_qbaf(DEBATE / f"summary_{v}.json") for v in variants],
        alignments=[FileAligner(DEBATE / f"alignment_{v}.csv") for v in variants], taus=[0.15, 0.2],
        source_path="source.json", summary_paths=[f"summary_{v}.json" for v in variants],
    )


@pytest.mark.parametrize("name, fmt", [
    ("paper_suite.txt", "table"), ("paper_suite.md", "markdown"), ("paper_suite.html", "html"), ("paper_suite.json", "json"),
    ("debate_suite.txt", "table"), ("debate_suite.md", "markdown"), ("debate_suite.html", "html"),
])
def test_reports_without_error_bars_render_as_before(name, fmt):
    suite = _paper_suite() if name.startswith("paper") else _debate_suite()
    got = render(suite, fmt)
    path = GOLDEN / name
    if os.environ.get("ARGFAITH_UPDATE_GOLDEN"):
        path.write_text(got, encoding="utf-8")
    assert got == path.read_text(encoding="utf-8")


# ---------------------------------------------------------------------------- with error bars
DRAWS = 200


@pytest.fixture(scope="module")
def uncertain_suite(uncertain_paper_dir):  # type: ignore[no-untyped-def]
    """The paper's example with uncertain relations (tests/conftest.py), evaluated with error bars."""
    q, qa, qb = (load_qbaf(uncertain_paper_dir / f"{n}.json") for n in ("q", "qa", "qb"))
    return evaluate_many(q, [qa, qb], source_path="q.json", summary_paths=["qa.json", "qb.json"], draws=DRAWS, seed=1)


def _expected_cells(suite, sigma: bool = True) -> list[str]:  # type: ignore[no-untyped-def]
    """Every metric (and, with ``sigma``, σ) cell the renderers must show, computed from the
    report's own fields."""
    cells = []
    for r in suite.reports:
        assert r.pairwise.interval is not None and r.uncertainty is not None
        for key in ("balance_consistency", "epsilon_accuracy", "d_preferability_consistency"):
            cells.append(fmt_interval(getattr(r.pairwise, key), r.pairwise.interval[key]))
        for side in (r.source, r.summary):
            for key, attr in (("relevance", "relevance"), ("pro_con_ratio_mean", "pro_con_ratio_mean")):
                cells.append(fmt_interval(getattr(side, attr), side.interval[key]))
        for p, v in r.pairwise.per_proposal.items() if sigma else ():
            cells.append(fmt_interval(v.sigma_source, v.interval["sigma_source"]))
            cells.append(fmt_interval(v.sigma_summary, v.interval["sigma_summary"]))
    return cells


def test_the_fixture_has_wide_intervals(uncertain_suite):
    """The test data is not degenerate: some interval is wider than a point, and P(better) rows exist."""
    qa = uncertain_suite.reports[0]
    iv = qa.pairwise.interval["balance_consistency"]
    assert iv.high > iv.low
    assert qa.uncertainty.source_uncertain_pairs == 2 and qa.uncertainty.summary_uncertain_pairs == 2
    assert {r.metric for r in uncertain_suite.p_better} == {"balance_consistency", "epsilon_accuracy", "d_preferability_consistency"}


def test_table_shows_intervals_coverage_and_p_better(uncertain_suite):
    out = render(uncertain_suite, "table", width=200)
    for cell in _expected_cells(uncertain_suite):
        assert cell in out, cell
    assert f"the central 90% of {DRAWS} sampled labellings" in out
    assert "not annotation disagreement" in out and "2 in Q, 2 in qa, 0 in qb" in out
    assert "P(A better)" in out and "P(B better)" in out
    bc = {(r.a, r.b): r.p_better for r in uncertain_suite.p_better if r.metric == "balance_consistency"}
    line = next(ln for ln in out.splitlines() if "qa" in ln and "qb" in ln and "π_bc" in ln)
    assert f"{bc[('qa', 'qb')]:.2f}" in line and f"{bc[('qb', 'qa')]:.2f}" in line
    # verdict probabilities next to the explanation of the provision qa gets wrong
    p1 = uncertain_suite.reports[0].pairwise.per_proposal["p1"].probability
    assert f"P(π_bc ✓) {p1['balance_consistent']:.2f}" in out


def test_certain_relations_with_draws_say_the_intervals_have_zero_width():
    q, qa = (load_qbaf(PAPER / f"{n}.json") for n in ("q", "qa"))
    out = render(evaluate_many(q, [qa], draws=5), "table", width=200)
    assert "every interval has zero width" in out
    assert "0.50 [0.50, 0.50]" in out  # π_bc of Qa*, exactly today's number


def test_markdown_shows_intervals_coverage_and_p_better(uncertain_suite):
    md = render(uncertain_suite, "markdown")
    for cell in _expected_cells(uncertain_suite):
        assert cell in md, cell
    assert "not annotation disagreement" in md and f"of {DRAWS} sampled labellings" in md
    head = "| summary A | summary B | metric | P(A better) | P(equal) | P(B better) |"
    assert head in md
    rows = [ln for ln in md.splitlines() if ln.startswith("| qa | qb |")]
    assert len(rows) == 3  # one line per metric for the one pair of summaries
    by = {(r.a, r.b, r.metric): r for r in uncertain_suite.p_better}
    for ln, metric in zip(rows, ("balance_consistency", "epsilon_accuracy", "d_preferability_consistency")):
        ab, ba = by[("qa", "qb", metric)], by[("qb", "qa", metric)]
        assert ln.endswith(f"| {ab.p_better:.2f} | {ab.p_tie:.2f} | {ba.p_better:.2f} |"), ln
    p1 = uncertain_suite.reports[0].pairwise.per_proposal["p1"].probability
    assert f"P(π_bc ✓) = {p1['balance_consistent']:.2f}" in md


def test_html_whiskers_probabilities_p_better_and_coverage(uncertain_suite):
    import re

    page = render(uncertain_suite, "html")
    for cell in _expected_cells(uncertain_suite, sigma=False):
        assert cell in page, cell
    for r in uncertain_suite.reports:  # the cards: σ* = 0.600 <span class="ci">[0.40, 0.68]</span>
        for v in r.pairwise.per_proposal.values():
            iv = v.interval["sigma_summary"]
            assert f'σ* = {v.sigma_summary:.3f} <span class="ci">[{iv.low:.2f}, {iv.high:.2f}]</span>' in page
    # one whisker per σ bar of every card: the source and each summary, at the interval's ends
    n_props = len(uncertain_suite.reports[0].source.strengths)
    whiskers = re.findall(r'<i class="whisker"[^>]*style="left: ([0-9.]+)%; width: ([0-9.]+)%"', page)
    assert len(whiskers) == n_props * (1 + len(uncertain_suite.reports))
    qa = uncertain_suite.reports[0].pairwise.per_proposal["p1"]
    lo, hi = qa.interval["sigma_summary"].low, qa.interval["sigma_summary"].high
    assert (f"{100 * lo:.1f}", f"{100 * (hi - lo):.1f}") in whiskers
    assert hi > lo
    # verdict probabilities beside the badges
    assert f"P(✓) = {qa.probability['balance_consistent']:.2f}" in page
    assert f"side change: P = {qa.probability['side_change']:.2f}" in page
    assert '<table class="p-better">' in page and "P(B better)" in page
    assert 'id="error-bars"' in page and "not annotation disagreement" in page
    # still one self-contained file
    assert 'http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;' in page
    assert not re.search(r'(src|href)="(?!#|data:)', page)


def test_html_without_error_bars_has_no_whisker_style_or_probability():
    page = render(_paper_suite(), "html")
    assert "whisker" not in page and "P(✓)" not in page and "p-better" not in page


def test_several_taus_with_error_bars_render_in_every_format(uncertain_paper_dir):
    q, qa, qb = (load_qbaf(uncertain_paper_dir / f"{n}.json") for n in ("q", "qa", "qb"))
    suite = evaluate_many(q, [qa, qb], taus=[0.15, 0.2], draws=40, explain=False)
    assert {r.tau for r in suite.p_better} == {0.15, 0.2}
    at02 = [r for r in suite.reports if r.settings.tau == 0.2]
    table, md, page = render(suite, "table", width=200), render(suite, "markdown"), render(suite, "html")
    for r in at02:  # the metric tables show the primary τ (0.2) with its intervals
        cell = fmt_interval(r.pairwise.balance_consistency, r.pairwise.interval["balance_consistency"])
        assert cell in table and cell in md and cell in page
    assert "| τ | summary A | summary B |" in md
    assert "<th>τ</th><th>summary A</th>" in page
