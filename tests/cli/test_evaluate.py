"""`argfaith evaluate` through the real entry point (subprocess) and typer's CliRunner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from argfaith.cli import app
from argfaith.errors import ConfigurationError, DataFormatError

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "examples" / "paper"
DEBATE = ROOT / "examples" / "debate"
runner = CliRunner()


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="160")
    return subprocess.run([sys.executable, "-m", "argfaith", "evaluate", *args], capture_output=True, text=True, env=env, timeout=300, cwd=cwd)


def invoke(*args: str):
    return runner.invoke(app, ["evaluate", *args], env={"COLUMNS": "160"})


def main_inprocess(capsys, *args: str) -> tuple[int, str, str]:
    """The console-script entry point ``argfaith.cli.main`` in this process (error handling and
    exit codes included, without the cost of a fresh interpreter): (status, stdout, stderr)."""
    from argfaith.cli import main

    old = sys.argv
    sys.argv = ["argfaith", "evaluate", *args]
    try:
        try:
            main()
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.argv = old
    out = capsys.readouterr()
    return code, out.out, out.err


# ---------------------------------------------------------------------------- Table 1 via the CLI
def test_table1_via_cli_subprocess():
    r = run("--source", str(PAPER / "q.json"), "--summary", str(PAPER / "qa.json"), "--summary", str(PAPER / "qb.json"), "--format", "json", "--no-qbafs")
    assert r.returncode == 0, r.stderr
    suite = json.loads(r.stdout)
    got = {}
    for rep in suite["reports"]:
        s, pw = rep["summary"], rep["pairwise"]
        got[Path(s["path"]).stem] = (
            s["n_speech"], round(s["relevance"], 2), s["pro_con_ratio"]["p1"], s["pro_con_ratio"]["p2"],
            pw["d_preferability_consistency"], pw["balance_consistency"], pw["epsilon_accuracy"],
        )
        src = rep["source"]
        assert (src["n_speech"], round(src["relevance"], 2), src["pro_con_ratio"]) == (6, 0.83, {"p1": 0.25, "p2": 1.0})
    assert got == {"qa": (4, 0.75, 1.0, 1.0, 0.5, 0.5, 0.5), "qb": (3, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0)}


def test_single_summary_json_has_issue_keys():
    r = invoke("--source", str(PAPER / "q.json"), "--summary", str(PAPER / "qa.json"), "--format", "json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert {"source", "summary", "pairwise"} <= set(d)
    assert d["source"]["strengths"] == pytest.approx({"p1": 0.32, "p2": 0.60})
    assert d["summary"]["pro_con_ratio_mean"] == 1.0
    assert "qbaf" in d["source"]


def test_table_output_subprocess():
    r = run("--source", str(PAPER / "q.json"), "--summary", str(PAPER / "qa.json"))
    assert r.returncode == 0, r.stderr
    for s in ("π_ar", "0.83", "π_bc", "0.50", "Proposal strengths", "Explanations"):
        assert s in r.stdout


# ---------------------------------------------------------------------------- the bundled example
def test_bundled_example_main_job(capsys):
    code, out, err = main_inprocess(capsys, 
        "--source", "examples/debate/source.json",
        "--summary", "examples/debate/summary_faithful.json",
        "--summary", "examples/debate/summary_distorted.json",
        "--alignment", "examples/debate/alignment_faithful.csv",
        "--alignment", "examples/debate/alignment_distorted.csv",
        "--format", "json", "--no-qbafs",
    )
    assert code == 0, err
    faithful, distorted = (rep["pairwise"] for rep in json.loads(out)["reports"])
    for k in ("d_preferability_consistency", "balance_consistency", "epsilon_accuracy"):
        assert faithful[k] == 1.0
    assert distorted["balance_consistency"] == 0.5 and distorted["epsilon_accuracy"] == 0.25
    assert distorted["d_preferability_consistency"] < 1.0
    assert faithful["supplementary_recall"] == pytest.approx(14 / 15)
    assert distorted["supplementary_recall"] == pytest.approx(6 / 15)
    assert distorted["pro_con_consistency"] == pytest.approx(5 / 6)
    assert distorted["pro_con_inconsistent"] == [["a5", "u5"]]  # the Commission's stance flipped


def test_example_lexical_alignment_and_rouge():
    r = invoke(
        "--source", str(DEBATE / "source.json"), "--summary", str(DEBATE / "summary_faithful.json"),
        "--align", "lexical", "--align-threshold", "0.3",
        "--source-text", str(DEBATE / "debate.json"), "--summary-text", str(DEBATE / "summary_faithful.txt"),
        "--format", "json", "--no-qbafs",
    )
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["alignment"]["method"] == "lexical" and d["alignment"]["n_pairs"] >= 8
    assert 0 < d["text_baselines"]["rouge1"]["fmeasure"] < 1
    assert d["text_baselines"]["rouge2"]["fmeasure"] > 0


def test_example_is_up_to_date():
    r = subprocess.run([sys.executable, str(DEBATE / "build.py"), "--check"], capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.returncode == 0, r.stderr


def test_example_debate_reads_with_the_datasets_loader():
    from argfaith.datasets.documents import load_debate

    d = load_debate(DEBATE / "debate.json")
    assert [p.id for p in d.provisions] == ["PAR-1", "PAR-2", "PAR-3", "PAR-4"]
    assert len(d.spans) == 15 and len(d.interventions) == 6


# ---------------------------------------------------------------------------- formats and files
def test_tau_sweep_table6(tmp_path):
    out = tmp_path / "sweep.md"
    r = invoke("--source", str(PAPER / "q.json"), "--summary", str(PAPER / "qa.json"), "--summary", str(PAPER / "qb.json"), "--tau", "0.15,0.2,0.25", "--out", str(out))
    assert r.exit_code == 0, r.output
    md = out.read_text()
    assert "Sensitivity to τ (Table 6 layout)" in md and "π_bc τ=0.15" in md and "π_εa τ=0.25" in md


def test_html_out(tmp_path, capsys):
    out = tmp_path / "report.html"
    code, _, err = main_inprocess(capsys, "--source", str(DEBATE / "source.json"), "--summary", str(DEBATE / "summary_distorted.json"), "--out", str(out))
    assert code == 0, err
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>") and html.count('class="qbaf-graph"') == 2
    assert "wrote html report" in err


# ---------------------------------------------------------------------------- error bars (issue 23)
def test_draws_error_bars_through_the_entry_point(uncertain_paper_dir):
    """`--draws K` on QBAFs whose relations carry probabilities: the terminal table shows value
    [low, high] and says what the intervals cover; the JSON has the documented keys; the same
    command without --draws prints the table it printed before error bars existed."""
    args = ["--source", str(uncertain_paper_dir / "q.json"), "--summary", str(uncertain_paper_dir / "qa.json"),
            "--summary", str(uncertain_paper_dir / "qb.json")]
    r = run(*args, "--draws", "50", "--format", "table")
    assert r.returncode == 0, r.stderr
    j = run(*args, "--draws", "50", "--format", "json", "--no-qbafs")
    assert j.returncode == 0, j.stderr
    suite = json.loads(j.stdout)
    qa = suite["reports"][0]
    assert qa["uncertainty"]["draws"] == 50 and qa["uncertainty"]["summary_uncertain_pairs"] == 2
    bc, iv = qa["pairwise"]["balance_consistency"], qa["pairwise"]["interval"]["balance_consistency"]
    assert set(iv) == {"mean", "low", "high", "draws"} and iv["low"] <= iv["mean"] <= iv["high"]
    assert f"{bc:.2f} [{iv['low']:.2f}, {iv['high']:.2f}]" in r.stdout
    words = " ".join(r.stdout.split())  # the note under the table wraps at the terminal's width
    assert "central 90% of 50 sampled labellings" in words and "not annotation disagreement" in words
    assert set(qa["pairwise"]["per_proposal"]["p1"]["probability"]) == {"balance_consistent", "epsilon_accurate", "side_change"}
    assert {(row["a"], row["b"]) for row in suite["p_better"]} == {("qa", "qb"), ("qb", "qa")}
    assert "P(A better)" in r.stdout
    # --interval-level changes the interval and says so
    r80 = run(*args, "--draws", "50", "--interval-level", "0.8", "--format", "table")
    assert r80.returncode == 0 and "central 80% of 50" in " ".join(r80.stdout.split())
    # no --draws: no error bars, and the table of the files without probabilities is unchanged
    plain = run(*args, "--format", "table")
    before = run("--source", str(PAPER / "q.json"), "--summary", str(PAPER / "qa.json"), "--summary", str(PAPER / "qb.json"),
                 "--format", "table")
    assert plain.returncode == 0 and "[" not in plain.stdout.split("Faithfulness metrics")[1].split("Proposal strengths")[0]
    assert "sampled labellings" not in plain.stdout and "P(A better)" not in plain.stdout
    assert plain.stdout.replace(str(uncertain_paper_dir), "DIR") == before.stdout.replace(str(PAPER), "DIR")


def test_cyclic_summary_warning_and_strict(tmp_path, capsys):
    q = {"arguments": [{"id": "p1", "kind": "proposal"}, {"id": "s1"}], "attacks": [["s1", "p1"]]}
    cyc = {"name": "cyc", "arguments": [{"id": "p1", "kind": "proposal"}, {"id": "a", "base_score": 1.0}, {"id": "b", "base_score": 1.0}],
           "attacks": [["a", "b"], ["b", "a"], ["a", "p1"]]}
    (tmp_path / "q.json").write_text(json.dumps(q))
    (tmp_path / "c.json").write_text(json.dumps(cyc))
    r = invoke("--source", str(tmp_path / "q.json"), "--summary", str(tmp_path / "c.json"), "--max-iter", "40", "--format", "json")
    d = json.loads(r.stdout)
    assert d["summary"]["convergence"]["converged"] is False and any("did not converge" in w for w in d["warnings"])
    code, _, err = main_inprocess(capsys, "--source", str(tmp_path / "q.json"), "--summary", str(tmp_path / "c.json"), "--max-iter", "40", "--strict")
    assert code == 2 and err.startswith("error: summary QBAF 'cyc'") and "Traceback" not in err


# ---------------------------------------------------------------------------- errors
def test_mismatched_proposals_exit_2_names_ids(tmp_path):
    one = {"name": "short", "arguments": [{"id": "p1", "kind": "proposal"}, {"id": "x"}], "supports": [["x", "p1"]]}
    (tmp_path / "one.json").write_text(json.dumps(one))
    r = run("--source", str(PAPER / "q.json"), "--summary", str(tmp_path / "one.json"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "error: proposal sets differ" in r.stderr and "['p2']" in r.stderr and "--proposals intersection" in r.stderr
    r = invoke("--source", str(PAPER / "q.json"), "--summary", str(tmp_path / "one.json"), "--proposals", "intersection", "--format", "json")
    assert r.exit_code == 0
    d = json.loads(r.stdout)
    assert d["proposals"]["missing_in_summary"] == ["p2"] and d["settings"]["proposals"] == "intersection"


@pytest.mark.parametrize(
    "args, exc, msg",
    [
        (["--tau", "0.2,abc"], ConfigurationError, "'abc' is not a number"),
        (["--alignment", "nope.csv"], DataFormatError, "nope.csv: no such alignment file"),
        (["--align", "id", "--align-threshold", "0.3"], ConfigurationError, "does not apply"),
        (["--align-threshold", "0.3"], ConfigurationError, "need --align"),
        (["--baselines", "rouge"], ConfigurationError, "--source-text"),
        (["--baselines", "bleu", "--source-text", "x", "--summary-text", "y"], ConfigurationError, "unknown baseline"),
    ],
)
def test_option_errors(args, exc, msg):
    r = invoke("--source", str(PAPER / "q.json"), "--summary", str(PAPER / "qa.json"), *args)
    assert r.exit_code != 0 and isinstance(r.exception, exc) and msg in str(r.exception)


def test_missing_file_and_bad_json_exit_2(tmp_path, capsys):
    code, _, err = main_inprocess(capsys, "--source", str(tmp_path / "missing.json"), "--summary", str(PAPER / "qa.json"))
    assert code == 2 and "missing.json: no such file" in err
    bad = tmp_path / "bad.json"
    bad.write_text('{"arguments": [\n  {"id": "p1", "kind": "proposal"},\n  {"id": }\n]}')
    code, _, err = main_inprocess(capsys, "--source", str(PAPER / "q.json"), "--summary", str(bad))
    assert code == 2 and "bad.json:3:" in err and "Traceback" not in err


def test_alignment_file_count_must_match():
    r = invoke("--source", str(DEBATE / "source.json"), "--summary", str(DEBATE / "summary_faithful.json"), "--summary", str(DEBATE / "summary_distorted.json"),
               "--alignment", str(DEBATE / "alignment_faithful.csv"))
    assert isinstance(r.exception, ConfigurationError) and "one alignment file per --summary" in str(r.exception)


def test_alignment_file_errors_name_line(tmp_path, capsys):
    p = tmp_path / "al.csv"
    p.write_text("source,summary\na1,t1\na99,t2\n")
    code, _, err = main_inprocess(capsys, "--source", str(DEBATE / "source.json"), "--summary", str(DEBATE / "summary_faithful.json"), "--alignment", str(p))
    assert code == 2 and f"{p}:3: source id 'a99'" in err


# ---------------------------------------------------------------------------- documents → mining → evaluate
MINING = ROOT / "tests" / "fixtures" / "metrics" / "mining"
RECORDED = f"recorded:{MINING / 'labels.jsonl'}?unknown=no-relation&key=texts"


def test_text_path_mines_then_evaluates(tmp_path, capsys):
    mined = tmp_path / "mined"
    args = ("--debate", str(MINING / "debate.json"), "--summary-doc", str(MINING / "summary.txt"), "--classifier", RECORDED,
            "--mined-dir", str(mined), "--baselines", "rouge", "--format", "json")
    code, out, err = main_inprocess(capsys, *args)
    assert code == 0, err
    d = json.loads(out)
    # The mined QBAFs are saved and embedded in the report.
    assert (mined / "source.json").exists() and (mined / "summary.json").exists()
    src, summ = d["source"], d["summary"]
    assert src["path"].endswith("source.json") and summ["path"].endswith("summary.json")
    assert src["qbaf"]["metadata"]["classifier_spec"] == RECORDED
    assert {a["kind"] for a in summ["qbaf"]["arguments"]} == {"proposal", "speech"}
    assert (src["n_speech"], src["n_attacks"], src["n_supports"]) == (4, 3, 2)
    assert (summ["n_speech"], summ["n_attacks"], summ["n_supports"]) == (2, 1, 1)
    # Hand computation: σ(PAR-1) = 0.5 + 0.5·(0.2 − 0.16) with the learning argument attacked.
    assert src["strengths"]["tiny-PAR-1"] == pytest.approx(0.48) and summ["strengths"]["tiny-PAR-1"] == pytest.approx(0.5)
    assert d["text_baselines"]["rouge1"]["fmeasure"] > 0
    # Rerun resumes from the checkpoints: nothing is classified again, same report.
    ckpt = mined / "source.pairs.jsonl"
    before = ckpt.read_bytes()
    code, out, err = main_inprocess(capsys, *args)
    assert code == 0 and ckpt.read_bytes() == before
    assert json.loads(out)["pairwise"] == d["pairwise"]


@pytest.mark.parametrize(
    "args, msg",
    [
        (["--source", "q.json", "--debate", "d.json", "--summary", "x.json"], "exactly one"),
        (["--source", "q.json", "--summary-doc", "s.txt"], "--summary-doc needs --debate"),
        (["--source", "q.json", "--summary", "x.json", "--classifier", "offline"], "only when mining"),
        (["--source", "q.json"], "at least one --summary"),
    ],
)
def test_input_combination_errors(args, msg):
    r = invoke(*args)
    assert isinstance(r.exception, ConfigurationError) and msg in str(r.exception)


def test_argument_coverage_options_subprocess():
    """π_cov next to π_sar through the real entry point: same value as the coverage module with
    the same alignment file; --coverage-k 0 leaves it out."""
    from argfaith.metrics.alignment import FileAligner
    from argfaith.metrics.coverage import argument_coverage
    from argfaith.qbaf import load_qbaf

    base = ["--source", str(DEBATE / "source.json"), "--summary", str(DEBATE / "summary_distorted.json"),
            "--alignment", str(DEBATE / "alignment_distorted.csv"), "--no-qbafs", "--no-explain"]
    res = run(*base, "--coverage-k", "5", "--coverage-salience", "degree", "--format", "json")
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout)
    ref = argument_coverage(load_qbaf(DEBATE / "source.json"), load_qbaf(DEBATE / "summary_distorted.json"),
                            FileAligner(DEBATE / "alignment_distorted.csv"), k=5, salience="degree")
    assert d["pairwise"]["argument_coverage"] == pytest.approx(ref.value)
    assert d["pairwise"]["uncovered_salient"] == list(ref.uncovered)
    assert d["settings"]["coverage_k"] == 5 and d["settings"]["coverage_salience"] == "degree"
    res = run(*base, "--coverage-k", "0", "--format", "json")
    assert res.returncode == 0 and "argument_coverage" not in json.loads(res.stdout)["pairwise"]
    res = run(*base)
    assert res.returncode == 0 and "π_cov" in res.stdout and "top 10 by strength" in res.stdout
    res = run(*base, "--coverage-salience", "loudness")
    assert res.returncode == 2 and "loudness" in res.stderr
