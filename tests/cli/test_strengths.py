"""`argfaith strengths` through the real entry point (subprocess) and typer's CliRunner."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from argfaith.cli import app

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "examples" / "paper"
MUTUAL = {
    "arguments": [{"id": "a", "base_score": 1.0}, {"id": "b", "base_score": 1.0}],
    "attacks": [["a", "b"], ["b", "a"]],
}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "argfaith", *args], capture_output=True, text=True, timeout=300)


@pytest.fixture
def mutual(tmp_path: Path) -> Path:
    p = tmp_path / "mutual.json"
    p.write_text(json.dumps(MUTUAL), encoding="utf-8")
    return p


def test_json_output_of_the_worked_example_subprocess():
    r = run("strengths", str(PAPER / "q.json"), "--format", "json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert {"strengths", "converged", "iterations", "residual"} <= set(out)
    assert out["strengths"]["p1"] == pytest.approx(0.32, abs=1e-12) and out["strengths"]["p2"] == pytest.approx(0.6, abs=1e-12)
    assert out["converged"] is True and out["iterations"] == 0 and out["residual"] == 0.0
    assert r.stderr == ""


def test_strict_non_convergence_is_a_one_line_error_subprocess(mutual):
    r = run("strengths", str(mutual), "--strict", "--max-iter", "100")
    assert r.returncode == 2
    assert r.stderr.startswith("error: DF-QuAD (sync) did not converge") and "'a'" in r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_bad_file_is_a_one_line_error_subprocess(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"arguments": [\n  {"id": "p1",}\n]}', encoding="utf-8")
    r = run("strengths", str(bad))
    assert r.returncode == 2 and r.stderr.strip() == f"error: {bad}:2:15: invalid JSON: Expecting property name enclosed in double quotes"
    r = run("strengths", str(tmp_path / "missing.json"))
    assert r.returncode == 2 and r.stderr.strip().endswith("missing.json: no such file")


def test_non_convergence_is_reported_not_hidden(mutual):
    r = CliRunner().invoke(app, ["strengths", str(mutual), "--format", "json", "--max-iter", "11"])
    assert r.exit_code == 0
    out = json.loads(r.stdout)
    assert out["converged"] is False and out["iterations"] == 11 and out["residual"] == 1.0
    assert out["not_converged"] == ["a", "b"]
    assert "warning: DF-QuAD (sync) did not converge within 11 iterations on 'a', 'b'" in r.stderr


def test_rk4_settles_the_oscillation(mutual):
    r = CliRunner().invoke(app, ["strengths", str(mutual), "--method", "rk4", "--format", "json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["converged"] and out["method"] == "rk4"
    assert out["strengths"]["a"] == pytest.approx(0.5, abs=1e-8) and out["residual"] <= 1e-9


def test_tau_option_and_table_output(tmp_path):
    r = CliRunner().invoke(app, ["strengths", str(PAPER / "q.json"), "--tau", "0.25", "--format", "json"])
    out = json.loads(r.stdout)
    # s1 is attacked by s4 (0.25) and supported by s3 (0.25): balanced, so σ(s1) = τ = 0.25.
    assert out["strengths"]["s1"] == 0.25 and out["strengths"]["s6"] == 0.25
    r = CliRunner().invoke(app, ["strengths", str(PAPER / "q.json")])
    assert r.exit_code == 0
    assert "p1" in r.stdout and "0.3200" in r.stdout and "converged; iterations 0" in r.stdout


def test_untrusted_ids_are_not_rich_markup(tmp_path):
    p = tmp_path / "m.json"
    p.write_text(json.dumps({"arguments": [{"id": "[red]x[/red]"}]}), encoding="utf-8")
    r = CliRunner().invoke(app, ["strengths", str(p)])
    assert r.exit_code == 0 and "[red]x[/red]" in r.stdout


@pytest.mark.parametrize(
    "args, message",
    [(["--tau", "1.5"], "--tau"), (["--method", "euler"], "--method"), (["--max-iter", "-1"], "--max-iter"), (["--step", "0"], "--step")],
)
def test_bad_options_are_usage_errors(args, message):
    r = CliRunner().invoke(app, ["strengths", str(PAPER / "q.json"), *args])
    assert r.exit_code == 2 and message in r.output
