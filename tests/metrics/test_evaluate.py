"""evaluate / evaluate_many and the report model (JSON keys, undefined counts, convergence)."""

from __future__ import annotations

import json

import pytest

from argfaith.metrics.alignment import IdAligner, LexicalAligner
from argfaith.metrics.evaluate import evaluate, evaluate_many, parse_taus
from argfaith.metrics.proposals import ProposalMismatchError
from argfaith.metrics.report import EvaluationReport, EvaluationSuite, load_report
from argfaith.errors import ConfigurationError, DataFormatError
from argfaith.qbaf import QBAF, Argument, NotConvergedError, load_qbaf


@pytest.fixture(scope="module")
def paper(paper_dir):
    return {n: load_qbaf(paper_dir / f"{n}.json") for n in ("q", "qa", "qb")}


def test_table1_through_evaluate(paper):
    for name, expected in (("qa", (0.5, 0.5, 0.5)), ("qb", (1.0, 1.0, 1.0))):
        r = evaluate(paper["q"], paper[name])
        pw = r.pairwise
        assert (pw.d_preferability_consistency, pw.balance_consistency, pw.epsilon_accuracy) == expected
    r = evaluate(paper["q"], paper["qa"])
    assert round(r.source.relevance, 2) == 0.83 and r.summary.relevance == 0.75
    assert r.source.pro_con_ratio == {"p1": 0.25, "p2": 1.0}
    assert r.summary.pro_con_ratio == {"p1": 1.0, "p2": 1.0}
    assert r.source.strengths == pytest.approx({"p1": 0.32, "p2": 0.60})
    assert r.summary.strengths == pytest.approx({"p1": 0.60, "p2": 0.68})
    assert r.source.accepted == ["p2"] and r.summary.accepted == ["p1", "p2"]
    assert (r.source.n_speech, r.summary.n_speech) == (6, 4)
    v = r.pairwise.per_proposal["p1"]
    assert v.difference == pytest.approx(0.28) and not v.balance_consistent and not v.epsilon_accurate
    assert r.pairwise.counts["balance_consistency"].numerator == 1


def test_json_keys_exactly_as_in_issue(paper):
    d = json.loads(evaluate(paper["q"], paper["qa"]).to_json())
    for side in ("source", "summary"):
        assert {"relevance", "pro_con_ratio", "pro_con_ratio_mean", "strengths"} <= set(d[side])
        assert isinstance(d[side]["pro_con_ratio"], dict)
    assert {"d_preferability_consistency", "balance_consistency", "epsilon_accuracy"} <= set(d["pairwise"])
    # No alignment: the supplementary metrics are absent (not null).
    assert "supplementary_precision" not in d["pairwise"]
    assert d["settings"]["epsilon"] == 0.1 and d["settings"]["tolerance"] == 1e-9
    assert d["source"]["convergence"]["converged"] is True
    assert d["source"]["qbaf"]["arguments"][0]["id"] == "p1"
    assert "qbaf" not in json.loads(evaluate(paper["q"], paper["qa"]).to_json(include_qbafs=False))["source"]


def test_supplementary_with_alignment(paper):
    r = evaluate(paper["q"], paper["qa"], alignment=IdAligner())
    d = json.loads(r.to_json())["pairwise"]
    assert (d["supplementary_precision"], d["supplementary_recall"], d["pro_con_consistency"]) == (0.75, 0.5, 1.0)
    assert r.alignment.method == "id" and r.alignment.n_pairs == 3 and r.settings.alignment == "id"
    assert r.pairwise.has_supplementary


def test_supplementary_null_when_undefined_but_present(paper):
    empty = QBAF.from_arguments([Argument("p1", "proposal", 0.5), Argument("p2", "proposal", 0.5)], debate=True)
    d = json.loads(evaluate(paper["q"], empty, alignment=IdAligner()).to_json())
    assert d["pairwise"]["supplementary_precision"] is None and "supplementary_precision" in d["pairwise"]
    assert d["summary"]["relevance"] is None
    assert d["summary"]["undefined"] == {"relevance": 1, "pro_con_ratio": 2, "pro_con_ratio_mean": 1}
    assert d["summary"]["pro_con_ratio"] == {"p1": None, "p2": None}


def test_report_round_trip(paper, tmp_path):
    r = evaluate(paper["q"], paper["qa"], alignment=IdAligner())
    p = tmp_path / "r.json"
    p.write_text(r.to_json())
    back = load_report(p)
    assert isinstance(back, EvaluationReport)
    assert back.to_json() == r.to_json()
    bad = tmp_path / "bad.json"
    bad.write_text('{"source": 1}')
    with pytest.raises(DataFormatError, match="bad.json"):
        load_report(bad)


def test_explanations_in_report(paper):
    r = evaluate(paper["q"], paper["qa"], explain_limit=2)
    e = {x.proposal: x for x in r.explanations}
    assert e["p1"].difference == pytest.approx(0.28)
    assert len(e["p1"].source.arguments) == 2 and e["p1"].source.n_arguments == 4
    assert evaluate(paper["q"], paper["qa"], explain=False).explanations == []


def test_mismatch_error_and_intersection(paper):
    q = paper["q"]
    one = QBAF.from_arguments([Argument("p1", "proposal", 0.5), Argument("s1")], attacks=[("s1", "p1")], debate=True, name="one")
    with pytest.raises(ProposalMismatchError, match=r"'one' lacks source proposal\(s\) \['p2'\]"):
        evaluate(q, one)
    r = evaluate(q, one, on_mismatch="intersection")
    assert r.proposals.shared == ["p1"] and r.proposals.missing_in_summary == ["p2"]
    assert list(r.pairwise.per_proposal) == ["p1"]
    assert any("proposal sets differ" in w for w in r.warnings)
    assert r.settings.proposals == r.proposals.mode == "intersection"
    # The report names the policy as the CLI does (--proposals exact), not the API's "error".
    exact = evaluate(q, paper["qa"])
    assert exact.settings.proposals == exact.proposals.mode == "exact"


def _oscillating_summary():
    # Mutual attack between two speech arguments with τ = 1 oscillates under synchronous updates
    # (PAPER.md §2); both attack p1, so σ*(p1) depends on the non-converged component.
    args = [Argument("p1", "proposal", 0.5), Argument("p2", "proposal", 0.5), Argument("a", base_score=1.0), Argument("b", base_score=1.0)]
    return QBAF.from_arguments(args, attacks=[("a", "b"), ("b", "a"), ("a", "p1")], debate=True, name="cyclic")


def test_cyclic_summary_convergence_carried_into_report(paper):
    summ = _oscillating_summary()
    r = evaluate(paper["q"], summ, max_iter=50)
    c = r.summary.convergence
    assert not c.converged and c.cyclic_components == 1 and set(c.not_converged) == {"a", "b"}
    assert not r.summary.acyclic
    assert any("summary QBAF 'cyclic'" in w and "did not converge" in w for w in r.warnings)
    d = json.loads(r.to_json())
    assert d["summary"]["convergence"]["converged"] is False
    with pytest.raises(NotConvergedError, match="summary QBAF 'cyclic'"):
        evaluate(paper["q"], summ, max_iter=50, strict=True)
    # The continuous model converges to (0.5, 0.5).
    r = evaluate(paper["q"], summ, method="rk4")
    assert r.summary.convergence.converged and r.warnings == []
    assert r.summary.strengths["p1"] == pytest.approx(0.25, abs=1e-6)


def test_convergent_cycle():
    args = [Argument("p1", "proposal", 0.5), Argument("a"), Argument("b")]
    q = QBAF.from_arguments(args, attacks=[("a", "p1")], debate=True)
    summ = QBAF.from_arguments(args, attacks=[("a", "b")], supports=[("b", "a"), ("a", "p1")], debate=True)
    r = evaluate(q, summ)
    assert r.summary.convergence.converged and r.summary.convergence.iterations > 0 and r.warnings == []


def test_tau_changes_strengths(paper):
    r15 = evaluate(paper["q"], paper["qa"], tau=0.15)
    r25 = evaluate(paper["q"], paper["qa"], tau=0.25)
    assert r15.source.strengths["p1"] == pytest.approx(0.5 * (1 - 0.15) ** 2)  # two attackers of σ 0.15
    assert r25.source.strengths["p1"] == pytest.approx(0.5 * (1 - 0.25) ** 2)
    assert r15.settings.tau == 0.15 and r15.source.tau == 0.15
    assert r15.source.qbaf["tau"] == 0.15


def test_evaluate_many_table6_layout(paper):
    suite = evaluate_many(paper["q"], [paper["qa"], paper["qb"]], taus=[0.15, 0.2, 0.25], alignments=IdAligner())
    assert isinstance(suite, EvaluationSuite) and len(suite.reports) == 6
    # summary-major order: qa at three τ, then qb.
    assert [(r.summary.name.split()[0], r.settings.tau) for r in suite.reports] == [
        ("Qa*", 0.15), ("Qa*", 0.2), ("Qa*", 0.25), ("Qb*", 0.15), ("Qb*", 0.2), ("Qb*", 0.25),
    ]
    row = suite.sensitivity[1]
    assert row.tau == 0.2 and (row.balance_consistency, row.epsilon_accuracy) == (0.5, 0.5)
    # Same numbers as single evaluations.
    single = evaluate(paper["q"], paper["qb"], tau=0.25, alignment=IdAligner())
    assert suite.reports[5].pairwise == single.pairwise
    d = json.loads(suite.to_json(include_qbafs=False))
    assert set(d) == {"format_version", "reports", "sensitivity"} and "qbaf" not in d["reports"][0]["source"]
    calls = []
    evaluate_many(paper["q"], [paper["qb"]], taus=[0.1, 0.2], progress=lambda a, b: calls.append((a, b)), explain=False)
    assert calls == [(1, 2), (2, 2)]


def test_parse_taus():
    assert parse_taus("0.15, 0.2,0.25") == [0.15, 0.2, 0.25]
    assert parse_taus("0.2,0.2") == [0.2]
    with pytest.raises(ConfigurationError, match="'x' is not a number"):
        parse_taus("0.1,x")
    with pytest.raises(ConfigurationError, match="not in"):
        parse_taus("1.5")
    with pytest.raises(ConfigurationError, match="no value"):
        parse_taus(" , ")


def test_invalid_settings(paper):
    with pytest.raises(ValueError, match="epsilon"):
        evaluate(paper["q"], paper["qa"], epsilon=float("nan"))
    with pytest.raises(ValueError, match="tau"):
        evaluate(paper["q"], paper["qa"], tau=2.0)


def test_text_alignment_needs_text(paper):
    with pytest.raises(DataFormatError, match="no text"):
        evaluate(paper["q"], paper["qa"], alignment=LexicalAligner())


def test_argument_coverage_in_report_by_hand(paper):
    # Every speech argument of Q has σ = 0.2; strength ties break by degree (s1: 3), then order:
    # S_3(Q) = (s1, s2, s3), none of which Qa* keeps (it keeps s4, s5, s6).
    r = evaluate(paper["q"], paper["qa"], alignment=IdAligner(), coverage_k=3)
    assert r.pairwise.argument_coverage == 0.0 and r.pairwise.uncovered_salient == ["s1", "s2", "s3"]
    assert r.pairwise.counts["argument_coverage"].denominator == 3
    assert (r.settings.coverage_k, r.settings.coverage_salience) == (3, "strength")
    # Influence salience: S_3 = (s5, s1, s2); Qa* covers s5 only.
    r = evaluate(paper["q"], paper["qa"], alignment=IdAligner(), coverage_k=3, coverage_salience="influence")
    assert r.pairwise.argument_coverage == pytest.approx(1 / 3) and r.pairwise.uncovered_salient == ["s1", "s2"]
    # Default k = 10 > |X_s| = 6: the whole set, so π_cov equals π_sar (3 of 6).
    r = evaluate(paper["q"], paper["qa"], alignment=IdAligner())
    assert r.pairwise.argument_coverage == r.pairwise.supplementary_recall == 0.5
    assert r.pairwise.counts["argument_coverage"].denominator == 6


def test_argument_coverage_matches_the_coverage_module(paper):
    """The report's π_cov (σ reused from the source analysis at τ) equals argument_coverage()
    computed from scratch on the τ-applied QBAFs, for every salience and several τ."""
    from argfaith.metrics.coverage import argument_coverage

    for tau in (None, 0.15, 0.4):
        for sal in ("strength", "influence", "degree", "replies"):
            for k in (1, 2, 4):
                r = evaluate(paper["q"], paper["qb"], tau=tau, alignment=IdAligner(), coverage_k=k, coverage_salience=sal, explain=False)
                q = paper["q"].with_speech_base_score(tau) if tau is not None else paper["q"]
                qb = paper["qb"].with_speech_base_score(tau) if tau is not None else paper["qb"]
                ref = argument_coverage(q, qb, IdAligner(), k=k, salience=sal)
                assert r.pairwise.argument_coverage == pytest.approx(ref.value), (tau, sal, k)
                assert r.pairwise.uncovered_salient == list(ref.uncovered)


def test_argument_coverage_absent_without_alignment_or_when_disabled(paper, tmp_path):
    d = json.loads(evaluate(paper["q"], paper["qa"]).to_json())
    assert "argument_coverage" not in d["pairwise"] and "uncovered_salient" not in d["pairwise"]
    assert d["settings"]["coverage_k"] is None
    r = evaluate(paper["q"], paper["qa"], alignment=IdAligner(), coverage_k=None)
    d = json.loads(r.to_json())
    assert "argument_coverage" not in d["pairwise"] and d["pairwise"]["supplementary_recall"] == 0.5
    assert r.pairwise.has_supplementary and not r.pairwise.has_coverage
    # Round trip keeps π_cov.
    r = evaluate(paper["q"], paper["qa"], alignment=IdAligner(), coverage_k=3)
    p = tmp_path / "r.json"
    p.write_text(r.to_json())
    back = load_report(p)
    assert back.pairwise.argument_coverage == 0.0 and back.pairwise.has_coverage
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="coverage_k"):
            evaluate(paper["q"], paper["qa"], alignment=IdAligner(), coverage_k=bad)
    with pytest.raises(ValueError, match="coverage_salience"):
        evaluate_many(paper["q"], [paper["qa"]], coverage_salience="loudness")


def test_argument_coverage_undefined_without_source_speech(paper):
    props = [Argument("p1", "proposal", 0.5), Argument("p2", "proposal", 0.5)]
    q0 = QBAF.from_arguments(props, debate=True)
    r = evaluate(q0, paper["qa"], alignment=IdAligner())
    assert r.pairwise.argument_coverage is None and r.pairwise.has_coverage
    assert r.pairwise.counts["argument_coverage"].denominator == 0
