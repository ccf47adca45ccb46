"""`argfaith study` through the real entry point (subprocess) and in-process (argfaith.cli.main)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "study"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    e = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "ARGFAITH_DATA")}
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "argfaith", "study", *args], capture_output=True, text=True, env=e, timeout=300)


def main(args: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run the CLI in-process with the real exit-code handling of argfaith.cli.main."""
    from argfaith.cli import main as cli_main

    monkeypatch.setattr(sys, "argv", ["argfaith", "study", *args])
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(SystemExit) as ei:
        cli_main()
    out, err = capsys.readouterr()
    code = ei.value.code if isinstance(ei.value.code, int) else (0 if ei.value.code is None else 1)
    return code, out, err


def test_study_runs_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["--debates", str(FIX / "ep_debates"), "--summaries", str(FIX / "ep_summaries"), "--out", str(out),
            "--classifier", "lexical", "--baselines", "rouge", "--tau", "0.15,0.2"]
    r = run(*args)
    assert r.returncode == 0, r.stderr
    assert "5 evaluated, 1 skipped, 0 failed" in r.stdout
    assert 'claude_org_zero_shot: no summary text in the file ("summary": null)' in r.stdout
    rows = list(csv.DictReader(open(out / "table.csv", encoding="utf-8")))
    assert len(rows) == 6 and "pi_bc@0.15" in rows[0] and "rouge2_f" in rows[0]
    assert all(r_["rouge2_f"] for r_ in rows if r_["status"] == "ok")
    assert (out / "index.html").is_file() and (out / "plots" / "metrics_by_variant.svg").is_file()
    assert "[  6/6]" in r.stderr  # one progress line per item when stderr is not a terminal
    r2 = run(*args, "--no-plots")  # plots are not part of an item's key: everything is reused
    assert r2.returncode == 0 and "6 reused from an earlier run, 0 done now" in r2.stdout


def test_study_draws_through_the_entry_point(tmp_path: Path) -> None:
    """--draws K (issue 23): interval columns in table.csv, value [low, high] in table3.md, and a
    rerun with the same K reuses everything. The features classifier gives class probabilities."""
    out = tmp_path / "out"
    args = ["--debates", str(FIX / "ep_debates"), "--summaries", str(FIX / "ep_summaries"), "--out", str(out),
            "--classifier", "features", "--baselines", "none", "--tau", "0.2", "--no-plots", "--draws", "20"]
    r = run(*args)
    assert r.returncode == 0, r.stderr
    rows = [x for x in csv.DictReader(open(out / "table.csv", encoding="utf-8")) if x["status"] == "ok"]
    assert len(rows) == 5 and all(x["draws"] == "20" for x in rows)
    assert all(float(x["pi_bc_low@0.2"]) <= float(x["pi_bc_high@0.2"]) for x in rows)
    assert any(float(x["pi_bc_low@0.2"]) < float(x["pi_bc_high@0.2"]) for x in rows)
    x = rows[0]
    assert f"{float(x['pi_bc@0.2']):.2f} \\[{float(x['pi_bc_low@0.2']):.2f}, {float(x['pi_bc_high@0.2']):.2f}\\]" in (out / "table3.md").read_text()
    r2 = run(*args)
    assert r2.returncode == 0 and "6 reused from an earlier run, 0 done now" in r2.stdout


def test_claude_without_key_prints_the_cost_estimate(tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = run("--debates", str(FIX / "ep_debates"), "--summaries", str(FIX / "ep_summaries"), "--out", str(out),
            "--classifier", "claude")
    assert r.returncode == 0, r.stderr
    assert "ANTHROPIC_API_KEY is not set" in r.stderr
    assert "whole study: 2 debates, 5 summaries" in r.stdout and "single" in r.stdout and "multi+cache" in r.stdout
    assert "no classifier was called" in r.stdout
    est = json.loads((out / "dry_run.json").read_text())
    assert est["pairs"] == sum(d["source_pairs"] + d["summary_pairs"] for d in est["debates"])
    assert not (out / "mined").exists()


def test_dry_run_json_and_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = main(["--data", str(FIX), "--out", str(tmp_path / "o"), "--classifier", "offline", "--dry-run",
                         "--format", "json", "--model", "claude-haiku-5-5"], monkeypatch, capsys)
    assert code == 0
    d = json.loads(out)
    assert d["model"] == "claude-haiku-5-5" and [e["strategy"] for e in d["total"]][0] == "single"
    assert d["total"][0]["requests"] == d["pairs"]


def test_data_directory_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ARGFAITH_DATA", str(FIX))
    code, out, _ = main(["--out", str(tmp_path / "o"), "--classifier", "majority", "--baselines", "none", "--no-plots",
                         "--no-html", "-q"], monkeypatch, capsys)
    assert code == 0 and "5 evaluated" in out
    assert not (tmp_path / "o" / "index.html").exists()


def test_failed_items_exit_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    shutil.copytree(FIX, data)
    (data / "ep_debates" / "debates" / "CRE-20990202-ITEM-002" / "metadata.json").write_text("[1, 2")
    code, out, _ = main(["--data", str(data), "--out", str(tmp_path / "o"), "--classifier", "majority", "--baselines",
                         "none", "--no-plots", "-q"], monkeypatch, capsys)
    assert code == 1
    assert out.count("FAILED CRE-20990202-ITEM-002/") == 3 and "metadata.json" in out


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--debates", "/nonexistent/dir", "--summaries", str(FIX)], "--debates: /nonexistent/dir is not a directory"),
        (["--data", str(FIX), "--tau", "0.2,x"], "--tau: 'x' is not a number"),
        (["--data", str(FIX), "--baselines", "rouge,bleu"], "unknown baseline(s) ['bleu']"),
        (["--data", str(FIX), "--classifier", "nope"], "unknown classifier 'nope'"),
        (["--data", str(FIX), "--units", "words"], "--units must be auto, spans or sentences"),
        (["--data", str(FIX), "--semantics", "dfquad,eulr"], "--semantics: unknown semantics 'eulr'"),
        (["--data", str(FIX), "--source-only", "--candidates", "topk:5"], "--source-only mines all pairs"),
        (["--data", str(FIX), "--source-only", "--classifier", "claude"], "needs ANTHROPIC_API_KEY"),
        ([], "no debates folder"),
        (["--data", str(FIX), "--executor", "ray"], "--executor ray is not supported yet"),
        (["--data", str(FIX), "--executor", "spark"], "--executor must be one of local, dask"),
        (["--data", str(FIX), "--scheduler", "tcp://127.0.0.1:8786"], "--scheduler needs --executor dask"),
    ],
)
def test_bad_options_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                            extra: list[str], message: str) -> None:
    monkeypatch.delenv("ARGFAITH_DATA", raising=False)
    code, _, err = main(["--out", str(tmp_path / "o"), *extra], monkeypatch, capsys)
    assert code == 2
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: ") and message in last and "Traceback" not in err


def test_source_only(tmp_path: Path) -> None:
    out = tmp_path / "src"
    r = run("--source-only", "--debates", str(FIX / "ep_debates"), "--out", str(out), "--classifier", "lexical", "--tau", "0.2")
    assert r.returncode == 0, r.stderr
    assert "Source-only statistics (2 of 2 debates)" in r.stdout
    rows = list(csv.DictReader(open(out / "source_stats.csv", encoding="utf-8")))
    assert [x["debate"] for x in rows] == ["CRE-20990201-ITEM-001", "CRE-20990202-ITEM-002"]
    assert all(x["status"] == "ok" and int(x["pairs_all"]) > 0 for x in rows)
    s = json.loads((out / "source_stats.json").read_text())
    assert s["pairs"]["all"] == sum(int(x["pairs_all"]) for x in rows)


def test_missing_dask_extra_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    code, _, err = main(["--data", str(FIX), "--out", str(tmp_path / "o"), "--classifier", "lexical", "--executor", "dask"],
                        monkeypatch, capsys)
    assert code == 2
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: ") and "pip install 'argfaith[dask]'" in last and "Traceback" not in err
    assert not (tmp_path / "o").exists()  # said before any work


@pytest.mark.slow
def test_dask_executor_through_the_cli(tmp_path: Path) -> None:
    """`--executor dask --jobs 2`: a local Dask cluster of two workers; the same table as the
    local pool, progress lines, and a rerun that reuses everything."""
    base = ["--debates", str(FIX / "ep_debates"), "--summaries", str(FIX / "ep_summaries"), "--classifier", "lexical",
            "--baselines", "rouge", "--tau", "0.15,0.2", "--no-plots"]
    r_local = run(*base, "--out", str(tmp_path / "local"))
    r = run(*base, "--out", str(tmp_path / "dask"), "--executor", "dask", "--jobs", "2")
    assert r_local.returncode == 0 and r.returncode == 0, r.stderr
    assert "5 evaluated, 1 skipped, 0 failed" in r.stdout and "[  6/6]" in r.stderr
    drop = lambda rows: [{k: v for k, v in x.items() if not k.endswith("_seconds")} for x in rows]  # noqa: E731
    a = json.loads((tmp_path / "local" / "table.json").read_text())["rows"]
    b = json.loads((tmp_path / "dask" / "table.json").read_text())["rows"]
    assert drop(a) == drop(b)
    run_ = json.loads((tmp_path / "dask" / "study.json").read_text())["runs"][-1]
    assert run_["executor"] == "dask" and run_["workers"] == 2
    r2 = run(*base, "--out", str(tmp_path / "dask"), "--executor", "dask", "--jobs", "2")
    assert r2.returncode == 0 and "6 reused from an earlier run, 0 done now" in r2.stdout
    src = run("--source-only", "--debates", str(FIX / "ep_debates"), "--out", str(tmp_path / "src"), "--classifier", "lexical",
              "--executor", "dask", "--jobs", "2", "--no-plots")
    assert src.returncode == 0 and "Source-only statistics (2 of 2 debates)" in src.stdout, src.stderr


@pytest.mark.slow
def test_ctrl_c_of_a_dask_run_then_rerun(tmp_path: Path) -> None:
    """Ctrl-C on a terminal reaches the whole process group (main process, scheduler, workers):
    the run exits 130 with one line and no worker traceback, the local cluster it started is gone,
    and the same command resumes to the full result."""
    import signal
    import time

    out = tmp_path / "dask"
    cmd = [sys.executable, "-m", "argfaith", "study", "--debates", str(FIX / "ep_debates"), "--summaries", str(FIX / "ep_summaries"),
           "--classifier", "lexical", "--baselines", "rouge", "--tau", "0.2", "--no-plots", "--no-html", "--chunk-size", "1",
           "--executor", "dask", "--jobs", "2", "--out", str(out)]
    env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "ARGFAITH_DATA")}
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
    deadline = time.time() + 240
    sent = False
    while time.time() < deadline and p.poll() is None:
        if any(len(c.read_bytes().splitlines()) > 3 for c in (out / "mined").rglob("*.pairs.jsonl")) if (out / "mined").exists() else False:
            os.killpg(p.pid, signal.SIGINT)  # what a terminal does on Ctrl-C
            sent = True
            break
        time.sleep(0.05)
    _, err = p.communicate(timeout=240)
    if not sent or p.returncode == 0:
        pytest.skip("the run finished before it could be interrupted")
    assert p.returncode == 130, err
    assert "interrupted: finished items are saved" in err and "Traceback" not in err, err
    deadline = time.time() + 30  # the scheduler and workers of the cluster the run started are gone
    while time.time() < deadline:
        try:
            os.killpg(p.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.2)
    else:
        os.killpg(p.pid, signal.SIGKILL)
        pytest.fail("processes of the interrupted run's cluster were still alive 30 s after it exited")
    manifest = json.loads((out / "study.json").read_text())
    assert manifest["runs"][-1]["interrupted"] is True and manifest["runs"][-1]["executor"] == "dask"
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "5 evaluated, 1 skipped, 0 failed" in r.stdout, r.stdout
