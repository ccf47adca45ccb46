"""The overview that answers "which provisions does this summary misrepresent?": the provisions ×
summaries matrix, its severity ranking and filters, the plain-language verdicts, the empty-summary
flags, the cards' explained empty cells and the debate-level warnings shown once."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from argfaith.metrics.evaluate import evaluate, evaluate_many
from argfaith.metrics.render import render
from argfaith.metrics.render.overview import WORST, provision_matrix, severity, summary_verdicts
from argfaith.qbaf import QBAF, Argument, load_qbaf

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "debate"


@pytest.fixture(scope="module")
def suite():
    q = load_qbaf(EXAMPLE / "source.json")
    paths = [EXAMPLE / "summary_faithful.json", EXAMPLE / "summary_distorted.json"]
    return evaluate_many(q, [load_qbaf(p) for p in paths], summary_paths=[str(p) for p in paths])


def test_severity_rule():
    assert severity(0.3, True) == pytest.approx(0.3)
    assert severity(-0.15, False) == pytest.approx(1.15)  # a side change by ε or more outranks any same-side move
    assert severity(0.1, False) > severity(0.9, True)
    assert severity(0.05, False) == pytest.approx(0.55)  # half of ε: half the bonus
    # σ = 0.5004 in the debate, an untouched 0.5 in the summary: a "side change" of no weight
    assert severity(-0.0004, False) < severity(0.05, True)


def test_matrix_ranks_provisions_by_their_worst_summary(suite):
    rows = provision_matrix(list(suite.reports))
    # The distorted summary: PAR-3 and PAR-4 change side (+0.26, −0.12), PAR-1 moves +0.42 on its side.
    assert [r.short_id for r in rows] == ["PAR-3", "PAR-4", "PAR-1", "PAR-2"]
    assert [r.rank for r in rows] == [1, 2, 3, 4]
    assert [r.side_change for r in rows] == [True, True, False, False]
    assert [c.code for c in rows[0].cells] == ["Q*1", "Q*2"]
    assert rows[0].cells[0].ok and rows[0].cells[1].status == "side" and rows[2].cells[1].status == "far"
    assert rows[3].ok


def test_one_plain_verdict_per_summary(suite):
    v = {x.code: x for x in summary_verdicts(list(suite.reports))}
    assert v["Q*1"].n_wrong == 0 and v["Q*1"].sentence.startswith("agrees with the debate on all 4 provisions")
    assert v["Q*2"].side == ("PAR-3", "PAR-4") and v["Q*2"].far == ("PAR-1",)
    assert "gets 3 of 4 provisions wrong: 2 change side of 0.5 (PAR-3, PAR-4)" in v["Q*2"].sentence
    assert "Worst: PAR-3 (σ 0.42 → σ* 0.68)" in v["Q*2"].sentence
    # Every σ of this debate is within 0.1 of 0.5: the empty summary is ε-accurate everywhere.
    assert "Not better than the empty summary on π_εa (0.25 vs 1.00)" in v["Q*2"].sentence


def test_html_opens_with_the_matrix_and_meaningful_filters(suite):
    html = render(suite, "html")
    top = html.split('<h2 id="metrics">')[0]
    assert '<table class="matrix">' in top and "Which provisions does each summary get wrong?" in top
    for f in ('id="pf-all"', 'id="pf-worst"', 'id="pf-side"', 'id="pf-bad"'):
        assert f in top
    assert "the 3 worst" in top and "side changes only (2)" in top and "some metric fails (3)" in top
    rows = re.findall(r'<tr class="pv([^"]*)">', top)
    assert rows == [" f-worst f-side f-bad", " f-worst f-side f-bad", " f-worst f-bad", ""]  # PAR-2 is right everywhere
    # colour is never alone: each verdict is a symbol and a name
    assert top.count("✗ bc") == 2 and top.count("✓ bc") == 6
    # the cards carry the same filter classes
    assert len(re.findall(r'<section class="card pv [^"]*f-side', html)) == 2
    # input files named in the header
    assert "examples/debate/summary_distorted.json" in top
    # acceptance explained where it is shown
    assert "credulously accepted under d-preferred semantics" in top and "not σ &gt; 0.5" in top


def test_metric_tables_flag_values_that_do_not_beat_the_empty_summary(suite):
    html = render(suite, "html")
    assert html.count("↳ the empty summary") == 3  # π_dpc, π_bc, π_εa
    assert "not better than the empty summary (1.00)" in html
    out = render(suite, "table", width=100)
    assert "↳ the empty summary" in out and "0.25 (≤ empty)" in out
    md = render(suite, "markdown")
    assert "the empty summary" in md and "not better than the empty summary" in md


def _saturated() -> tuple[QBAF, QBAF]:
    src = QBAF.from_arguments(
        [Argument("p1", "proposal", 0.5, text="1. Provision"), Argument("a", text="For it", speaker="A"),
         Argument("b", base_score=1e-4, text="Barely against", speaker="B")],
        supports=[("a", "p1")], attacks=[("b", "p1")], debate=True, name="D",
    )
    summ = QBAF.from_arguments(
        [Argument("p1", "proposal", 0.5)] + [Argument(f"s{i}", base_score=1.0, text=f"Strong support {i}") for i in range(3)],
        supports=[(f"s{i}", "p1") for i in range(3)], debate=True, name="S",
    )
    return src, summ


def test_cards_explain_empty_cells_and_keep_zero_influence_under_no_effect():
    from argfaith.metrics.render.views import proposal_cards

    card = proposal_cards([evaluate(*_saturated())])[0]
    groups = dict(card.groups)
    # b's influence is about −5e-5: shown as −0.000, so it is "no effect", not "con"
    assert all(row[0] is None or row[0].id != "b" for row in groups["con"])
    assert any(row[0] is not None and row[0].id == "b" for row in groups["none"])
    assert card.notes["con"][0] == "no debate argument lowers it"
    assert card.notes["pro"][1].startswith("σ* is saturated at 1.000: 3 argument(s) bear on it")
    html = render(evaluate(*_saturated()), "html")
    assert "σ* is saturated at 1.000" in html


def test_debate_warnings_once_per_debate(paper_dir):
    # A source whose QBAF accepts no proposal (five attacked proposals): the source-acceptance
    # warning is about the debate and must appear once, not once per summary.
    args = [Argument(f"p{i}", "proposal", 0.5, text=f"{i}. P") for i in range(5)] + [Argument("s", base_score=0.9, text="No")]
    q = QBAF.from_arguments(args, attacks=[("s", f"p{i}") for i in range(5)], debate=True, name="D")
    summs = [QBAF.from_arguments([Argument(f"p{i}", "proposal", 0.5) for i in range(5)], debate=True, name=n) for n in ("A", "B", "C")]
    suite = evaluate_many(q, summs, explain=False)
    assert all(any(w.startswith("source acceptance") for w in r.warnings) for r in suite.reports)  # JSON keeps them per report
    html = render(suite, "html")
    assert html.count("source acceptance:") == 1 and "the debate (all summaries)" in html
    assert render(suite, "table", width=120).count("source acceptance:") == 1
    assert render(suite, "markdown").count("source acceptance:") == 1


def test_terminal_overview_fits_80_columns(suite):
    out = render(suite, "table", width=80)
    assert max(len(ln) for ln in out.splitlines()) <= 80
    head = out.split("Faithfulness metrics")[0]
    assert "Which provisions do the summaries get wrong?" in head and "PAR-3" in head and "✗✗✗" in head
    assert WORST >= 3
