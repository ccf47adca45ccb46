"""Semantics everywhere a strength is used: evaluate under another semantics, the semantics sweep
(π_bc / π_εa per semantics, proposals changing side), its renderings and the CLI options."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from argfaith.errors import ConfigurationError
from argfaith.metrics.evaluate import evaluate, evaluate_many, parse_semantics
from argfaith.metrics.faithfulness import balance_side
from argfaith.metrics.render import render
from argfaith.qbaf import QBAF, load_qbaf
from argfaith.qbaf.gradual import gradual_strengths
from argfaith.qbaf.semantics import NAMED

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def paper(paper_dir):
    return {n: load_qbaf(paper_dir / f"{n}.json") for n in ("q", "qa", "qb")}


@pytest.fixture(scope="module")
def debate():
    d = ROOT / "examples" / "debate"
    return load_qbaf(d / "source.json"), load_qbaf(d / "summary_faithful.json"), load_qbaf(d / "summary_distorted.json")


def test_influence_tables_in_each_semantics(debate):
    """DF-QuAD on an acyclic QBAF uses the propagation kernel; every other semantics re-solves
    (the propagation kernel is DF-QuAD's) — and both equal the re-solve reference."""
    from argfaith.metrics.explain import argument_influences_reference, removal_influence_table

    src = debate[0]
    assert src.is_acyclic()
    for name, how in (("dfquad", "propagation"), ("quadratic-energy", "re-solve"), ("top:euler", "re-solve")):
        t = removal_influence_table(src, semantics=name)
        assert t.method == how and t.semantics == name
        assert t.sigma.tolist() == gradual_strengths(src, name).values.tolist()
        for p in src.proposals:
            ref = argument_influences_reference(src, p, semantics=name)
            idx, val = t.by_target[src.idx(p)]
            got = {src.ids[i]: v for i, v in zip(idx.tolist(), val.tolist()) if v != 0.0}
            want = {a.id: a.influence for a in ref.arguments if a.influence != 0.0}
            assert got.keys() == want.keys()
            assert all(got[k] == pytest.approx(want[k], abs=1e-12) for k in want)


def test_evaluate_under_another_semantics_uses_its_strengths(paper):
    r = evaluate(paper["q"], paper["qa"], semantics="quadratic-energy")
    qe = gradual_strengths(paper["q"], "quadratic-energy")
    assert r.settings.semantics == "quadratic-energy" and r.source.convergence.semantics == "quadratic-energy"
    assert r.source.strengths == {p: qe[p] for p in ("p1", "p2")}
    # Explanations measure influence in the same semantics: removing s1 from Q moves σ(p1) by
    # exactly the difference of the two quadratic-energy strengths.
    e = next(x for x in r.explanations if x.proposal == "p1")
    s1 = next(a for a in e.source.arguments if a.id == "s1")
    without = QBAF.from_arrays([0.5, 0.2], attacks=[(1, 0)], ids=["p1", "s2"])
    assert s1.influence == pytest.approx(qe["p1"] - gradual_strengths(without, "quadratic-energy")["p1"], abs=1e-12)
    # Outside its domain the report fails with the domain error (one semantics, no sweep).
    with pytest.raises(Exception, match="attack-only"):
        evaluate(paper["q"], paper["qa"], semantics="weighted-h-categorizer")


def test_sweep_rows_against_strengths_computed_directly(debate):
    src, faithful, distorted = debate
    sems = ["dfquad", "quadratic-energy", "euler-based", "restricted-euler-based", "weighted-h-categorizer"]
    suite = evaluate_many(src, [faithful, distorted], taus=[0.15, 0.2], semantics=sems, explain=False)
    # The reports are those of the first semantics; one sweep row per summary × τ × semantics.
    assert {r.settings.semantics for r in suite.reports} == {"dfquad"}
    assert len(suite.semantics_sweep) == 2 * 2 * len(sems)
    by = {(r.summary, r.tau, r.semantics): r for r in suite.semantics_sweep}
    names = list(dict.fromkeys(r.summary for r in suite.semantics_sweep))
    assert len(names) == 2
    for (name, q_star) in zip(names, (faithful, distorted)):
        for tau in (0.15, 0.2):
            a0 = gradual_strengths(src.with_speech_base_score(tau), "dfquad")
            b0 = gradual_strengths(q_star.with_speech_base_score(tau), "dfquad")
            for sem in ("dfquad", "quadratic-energy", "euler-based"):
                a = gradual_strengths(src.with_speech_base_score(tau), sem)
                b = gradual_strengths(q_star.with_speech_base_score(tau), sem)
                ps = src.proposals
                row = by[(name, tau, sem)]
                bc = [balance_side(a[p]) == balance_side(b[p]) for p in ps]
                ea = [abs(b[p] - a[p]) <= 0.1 + 1e-9 for p in ps]
                assert row.balance_consistency == sum(bc) / len(bc) and row.epsilon_accuracy == sum(ea) / len(ea)
                assert row.source_side_changes == [p for p in ps if balance_side(a[p]) != balance_side(a0[p])]
                assert row.summary_side_changes == [p for p in ps if balance_side(b[p]) != balance_side(b0[p])]
                ref_bc = {p: balance_side(a0[p]) == balance_side(b0[p]) for p in ps}
                assert row.balance_verdict_changes == [p for p in ps if bc[ps.index(p)] != ref_bc[p]]
            assert by[(name, tau, "weighted-h-categorizer")].skipped == "the source QBAF has supports (attack-only semantics)"
            assert by[(name, tau, "weighted-h-categorizer")].balance_consistency is None
    # The distorted summary has a cycle: the restricted Euler-based semantics is skipped for it only.
    assert by[(names[1], 0.2, "restricted-euler-based")].skipped == "the summary QBAF has a cycle (acyclic frameworks only)"
    assert by[(names[0], 0.2, "restricted-euler-based")].skipped is None
    d = json.loads(suite.to_json(include_qbafs=False))
    assert len(d["semantics_sweep"]) == len(suite.semantics_sweep)


def test_sweep_side_changes_on_a_hand_made_case():
    # p attacked by a (τ 0.5) and supported by s, t (τ 0.3 each): DF-QuAD: F_att 0.5 < F_sup 0.51
    # → σ(p) > 0.5; quadratic energy: E = 0.6 − 0.5 > 0 → also above; a semantics on "top"
    # aggregation compares max 0.3 < 0.5 → below. A summary keeping only a keeps p below.
    q = QBAF.from_arrays([0.5, 0.5, 0.3, 0.3], attacks=[(1, 0)], supports=[(2, 0), (3, 0)],
                         is_proposal=[True, False, False, False], ids=["p", "a", "s", "t"], debate=True)
    qs = QBAF.from_arrays([0.5, 0.5], attacks=[(1, 0)], is_proposal=[True, False], ids=["p", "a"], debate=True)
    suite = evaluate_many(q, [qs], semantics=["dfquad", "quadratic-energy", "top:linear(1)"], explain=False)
    rows = {r.semantics: r for r in suite.semantics_sweep}
    assert rows["dfquad"].balance_consistency == 0.0 and rows["dfquad"].source_side_changes == []
    assert rows["quadratic-energy"].source_side_changes == [] and rows["quadratic-energy"].balance_consistency == 0.0
    assert rows["top:linear(1)"].source_side_changes == ["p"] and rows["top:linear(1)"].summary_side_changes == []
    assert rows["top:linear(1)"].balance_consistency == 1.0 and rows["top:linear(1)"].balance_verdict_changes == ["p"]
    md = render(suite, "markdown")
    assert "## Semantics sweep" in md and "| top:linear\\(1\\) |" in md and "π\\_bc verdict: p" in md
    assert "semantics = DF-QuAD" in md
    html = render(suite, "html")
    assert 'id="semantics-sweep"' in html


def test_single_semantics_reports_keep_their_layout(paper):
    suite = evaluate_many(paper["q"], [paper["qa"]], explain=False)
    assert suite.semantics_sweep == [] and "semantics_sweep" not in json.loads(suite.to_json())
    assert "Semantics sweep" not in render(suite, "markdown")


def test_parse_semantics():
    assert [s.name for s in parse_semantics("dfquad, quadratic_energy,dfquad")] == ["dfquad", "quadratic-energy"]
    assert [s.name for s in parse_semantics("all")] == list(NAMED)
    with pytest.raises(ConfigurationError, match="--semantics: unknown semantics 'nope'"):
        parse_semantics("dfquad,nope")
    with pytest.raises(ConfigurationError, match="no semantics given"):
        parse_semantics(" , ")


# ------------------------------------------------------------------ CLI
def run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "argfaith", *args], capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)


def test_cli_strengths_semantics_subprocess():
    r = run("strengths", "examples/paper/q.json", "--semantics", "quadratic-energy", "--format", "json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["semantics"] == "quadratic-energy"
    assert out["strengths"]["p1"] == pytest.approx(0.5 - 0.5 * 0.16 / 1.16, abs=1e-12)
    r = run("strengths", "examples/paper/q.json", "--semantics", "weighted-h-categorizer")
    assert r.returncode == 2 and r.stderr.startswith("error: the Weighted h-categorizer semantics is defined for attack-only")
    r = run("strengths", "examples/paper/q.json", "--semantics", "euler")
    assert r.returncode == 2 and r.stderr.startswith("error: --semantics: unknown semantics 'euler'")
    # Checked up front with the other option ranges (cli/_options.py): one line, before reading the file.
    r = run("strengths", "no-such-file.json", "--semantics", "dfquad,quad")
    assert r.returncode == 2 and r.stderr == "error: --semantics: give one semantics here, got 2 (dfquad,quad)\n"
    r = run("evaluate", "--source", "no-such-file.json", "--summary", "x.json", "--semantics", "dfquad,nope")
    assert r.returncode == 2 and r.stderr.startswith("error: --semantics: unknown semantics 'nope'")


def test_cli_evaluate_semantics_sweep_subprocess(tmp_path):
    out = tmp_path / "r.json"
    r = run("evaluate", "--source", "examples/debate/source.json", "--summary", "examples/debate/summary_distorted.json",
            "--semantics", "dfquad,quadratic-energy,mlp-based", "--tau", "0.15,0.2", "--no-explain", "--out", str(out))
    assert r.returncode == 0, r.stderr
    d = json.loads(out.read_text(encoding="utf-8"))
    assert [(x["semantics"], x["tau"]) for x in d["semantics_sweep"]] == [
        (s, t) for t in (0.15, 0.2) for s in ("dfquad", "quadratic-energy", "mlp-based")
    ]
    assert all(rep["settings"]["semantics"] == "dfquad" for rep in d["reports"])
    r = run("evaluate", "--source", "examples/paper/q.json", "--summary", "examples/paper/qa.json", "--semantics", "quad", "--no-explain")
    assert r.returncode == 0 and "Proposal strengths σ (QuAD" in r.stdout


def test_html_colours_nodes_with_the_reports_semantics(paper):
    """The HTML drawing recomputes σ of every argument from the embedded QBAF: in the report's
    semantics, not DF-QuAD's."""
    from argfaith.metrics.render.views import all_strengths as _all_strengths
    from argfaith.qbaf import qbaf_to_dict

    r = evaluate(paper["q"], paper["qa"], semantics="top:euler", explain=False)
    assert r.source.convergence.semantics == "top:euler"
    sig = _all_strengths(r.source.qbaf, r.source.convergence.method, r.source.convergence.semantics)
    assert sig == gradual_strengths(paper["q"], "top:euler").as_dict() != gradual_strengths(paper["q"], "dfquad").as_dict()
    assert _all_strengths(qbaf_to_dict(paper["q"]), "sync") == gradual_strengths(paper["q"], "dfquad").as_dict()
