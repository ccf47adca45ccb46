"""`argfaith extensions` through the real entry point (subprocess) and through typer's CliRunner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from argfaith.cli import app
from argfaith.qbaf.convert import parse_iccma

ROOT = Path(__file__).resolve().parents[2]
PAPER = ROOT / "examples" / "paper"


def run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="120")
    return subprocess.run(
        [sys.executable, "-m", "argfaith", "extensions", *args], capture_output=True, text=True, env=env, timeout=300
    )


def write(tmp_path: Path, data: dict, name: str = "f.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(data), encoding="utf-8")
    return p


@pytest.mark.parametrize("name, accepted", [("q", ["p2"]), ("qa", ["p1", "p2"]), ("qb", ["p2"])])
def test_json_output_subprocess(name, accepted):
    r = run(str(PAPER / f"{name}.json"), "--format", "json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["accepted_proposals"] == accepted
    assert out["queried"] == ["p1", "p2"]
    assert out["d_preferred_skipped"] is None
    assert len(out["d_preferred_extensions"]) == 1
    assert set(accepted) <= set(out["d_preferred_extensions"][0])


def test_table_output_subprocess():
    r = run(str(PAPER / "q.json"))
    assert r.returncode == 0, r.stderr
    assert "attacked-by-grounded" in r.stdout and "grounded" in r.stdout
    assert "d-preferred extensions (1)" in r.stdout
    assert "{p2, s2, s3, s4, s5, s6}" in r.stdout
    assert "8 arguments, 4 set-attacks" in r.stdout


def test_errors_subprocess(tmp_path):
    r = run(str(tmp_path / "missing.json"))
    assert r.returncode == 2 and "error:" in r.stderr and "no such file" in r.stderr
    assert "Traceback" not in r.stderr
    r = run(str(PAPER / "q.json"), "--query", "zz")
    assert r.returncode == 2 and "--query: unknown argument 'zz'" in r.stderr
    bad = write(tmp_path, {"arguments": [{"id": "a"}], "attacks": [["a", "b"]]})
    r = run(str(bad))
    assert r.returncode == 2 and "'b'" in r.stderr and "Traceback" not in r.stderr


def test_skips_enumeration_when_too_large(tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["extensions", str(PAPER / "q.json"), "--max-arguments", "5"])
    assert res.exit_code == 0, res.output
    assert "d-preferred extensions skipped" in res.output and "8 arguments" in res.output
    res = runner.invoke(app, ["extensions", str(PAPER / "q.json"), "--max-arguments", "5", "--format", "json"])
    out = json.loads(res.stdout)
    assert out["d_preferred_extensions"] is None
    assert "max_arguments=5" in out["d_preferred_skipped"]
    assert out["accepted_proposals"] == ["p2"]  # acceptance does not need the enumeration


def test_too_many_extensions_is_reported(tmp_path):
    # Three independent mutual attacks: 8 preferred extensions.
    args = [{"id": f"a{i}"} for i in range(6)]
    att = [[f"a{2 * i}", f"a{2 * i + 1}"] for i in range(3)] + [[f"a{2 * i + 1}", f"a{2 * i}"] for i in range(3)]
    p = write(tmp_path, {"arguments": args, "attacks": att})
    res = CliRunner().invoke(app, ["extensions", str(p), "--format", "json", "--max-extensions", "4", "-q", "a0"])
    out = json.loads(res.stdout)
    assert out["d_preferred_extensions"] is None and "max_extensions=4" in out["d_preferred_skipped"]
    assert out["accepted"] == ["a0"] and out["decisions"]["a0"]["reason"] == "sat"
    res = CliRunner().invoke(app, ["extensions", str(p), "--format", "json"])
    out = json.loads(res.stdout)
    assert len(out["d_preferred_extensions"]) == 8
    # No proposals: every argument is queried (each lies in some preferred extension).
    assert out["queried"] == [f"a{i}" for i in range(6)] and out["accepted"] == out["queried"]
    assert out["accepted_proposals"] == []


def test_queries_and_exports(tmp_path):
    iccma, dot = tmp_path / "q.af", tmp_path / "q.dot"
    res = CliRunner().invoke(
        app,
        ["extensions", str(PAPER / "q.json"), "-q", "s1", "-q", "p2", "--iccma", str(iccma), "--dot", str(dot),
         "--format", "json"],
    )
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["queried"] == ["s1", "p2"]
    assert out["accepted"] == ["p2"] and out["accepted_proposals"] == ["p2"]
    assert parse_iccma(iccma.read_text()) == (8, [(3, 1), (4, 1), (5, 1), (6, 3)])
    assert dot.read_text().startswith("digraph qbaf {")


def test_untrusted_ids_are_not_rich_markup(tmp_path):
    p = write(
        tmp_path,
        {"name": "[bold red]x[/]", "arguments": [{"id": "[red]p[/red]", "kind": "proposal"}, {"id": "s"}], "supports": [["s", "[red]p[/red]"]]},
    )
    res = CliRunner().invoke(app, ["extensions", str(p)], env={"COLUMNS": "160"})
    assert res.exit_code == 0, res.output
    assert "[red]p[/red]" in res.output and "[bold red]x[/]" in res.output


def test_no_proposals_table(tmp_path):
    p = write(tmp_path, {"arguments": [{"id": "a"}, {"id": "b"}], "attacks": [["a", "b"], ["b", "a"]]})
    res = CliRunner().invoke(app, ["extensions", str(p)], env={"COLUMNS": "160"})
    assert res.exit_code == 0, res.output
    assert "no proposal arguments: every argument is queried" in res.output
    assert "│ a        │ speech │ yes" in res.output and "│ b        │ speech │ yes" in res.output
    assert "│ 1 │    1 │ {a}" in res.output and "│ 2 │    1 │ {b}" in res.output  # the title may wrap
