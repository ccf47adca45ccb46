"""A CLI that guards its user, through the real entry point: the pair budget before mining, the
language of what is mined, unknown --only ids, honest progress, binary files named as such, and
the CLI's manners (--version, whole command summaries, grouped evaluate --help)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MINING_DEBATE = ROOT / "tests" / "fixtures" / "mining" / "ep_debates" / "debates" / "CRE-20990101-ITEM-001"
STUDY = ROOT / "tests" / "fixtures" / "study"

GREEK = ("Η συζήτηση αφορούσε την έκθεση για τα σχολικά γεύματα. Ο εισηγητής υποστήριξε ότι τα σχολεία πρέπει να "
         "προσφέρουν υγιεινά γεύματα. Πολλοί ομιλητές επέκριναν το κόστος για τα κράτη μέλη. Άλλοι ζήτησαν "
         "περισσότερη ευελιξία για τις τοπικές αρχές.")


def argfaith(*args: str, cwd: Path = ROOT, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update(PYTHONPATH=str(ROOT), **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "argfaith", *args], capture_output=True, text=True, env=env, timeout=600, cwd=cwd)


def one_error_line(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 2, (r.returncode, r.stderr[-2000:])
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert lines[-1].startswith("error: ") and "Traceback" not in r.stderr
    return lines[-1]


def test_the_pair_budget_refuses_before_mining(tmp_path):
    big = tmp_path / "unrelated.txt"
    big.write_text(" ".join(f"Sentence number {i} says something about fisheries and quotas." for i in range(400)), encoding="utf-8")
    t0 = time.monotonic()
    r = argfaith("evaluate", "--debate", str(MINING_DEBATE), "--summary-doc", str(big), "--classifier", "lexical",
                 "--mined-dir", str(tmp_path / "mined"), "--max-pairs", "1000")
    line = one_error_line(r)
    assert time.monotonic() - t0 < 60
    # 400 sentences under the default summary policy (ordered): each → the 3 provisions and every
    # earlier sentence, 400·399/2 + 400·3 pairs, counted before any is built
    assert f"summary {big}: 81,000 candidate pairs" in line and "exceed --max-pairs 1,000" in line
    assert "raise the limit with --max-pairs 81000" in line
    assert not (tmp_path / "mined" / "source.pairs.jsonl").exists()  # nothing was classified
    bad = argfaith("evaluate", "--debate", str(MINING_DEBATE), "--summary-doc", str(big), "--max-pairs", "0")
    assert "--max-pairs" in one_error_line(bad)


def test_a_summary_in_another_language_is_warned_about_or_refused(tmp_path):
    el = tmp_path / "greek.txt"
    el.write_text(GREEK, encoding="utf-8")
    common = ("evaluate", "--debate", str(MINING_DEBATE), "--summary-doc", str(el), "--classifier", "lexical", "--format", "json")
    r = argfaith(*common, "--mined-dir", str(tmp_path / "m1"))
    assert r.returncode == 0, r.stderr
    assert f"warning: summary {el} is in Greek (el" in r.stderr and "reads English" in r.stderr
    strict = argfaith(*common, "--mined-dir", str(tmp_path / "m2"), "--strict")
    line = one_error_line(strict)
    assert f"summary {el} is in Greek" in line and "--classifier claude" in line


def test_unknown_only_ids_are_an_error(tmp_path):
    for cmd in ("selftest", "study"):
        r = argfaith(cmd, "--data", str(STUDY), "--out", str(tmp_path / cmd), "--classifier", "lexical", "--only", "NOSUCH",
                     "--only", "CRE-20990201-ITEM-001")
        line = one_error_line(r)
        assert "--only" in line and "NOSUCH" in line and "CRE-20990202-ITEM-002" in line  # names the ids that exist
        assert not (tmp_path / cmd / "selftest" / "selftest.json").exists()


def test_selftest_progress_says_what_is_true(tmp_path):
    out = tmp_path / "st"
    args = ("selftest", "--data", str(STUDY), "--out", str(out), "--classifier", "lexical", "--only", "CRE-20990201-ITEM-001",
            "--kinds", "omit", "--no-controls")
    first = argfaith(*args)
    assert first.returncode == 0, first.stderr
    assert "selftest: 2 summaries, 0 already done" in first.stderr
    assert "CRE-20990201-ITEM-001: mining the source" in first.stderr  # the long step is announced in a log
    assert "[  2/2] CRE-20990201-ITEM-001/" in first.stderr and "(0.0 s)" not in first.stderr  # no invented timings
    again = argfaith(*args)
    assert "selftest: 2 summaries, 2 already done" in again.stderr and "[  3/2]" not in again.stderr


def test_a_pdf_is_named_as_such(tmp_path):
    pdf = tmp_path / "summary.json"
    pdf.write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n")
    r = argfaith("evaluate", "--debate", str(MINING_DEBATE), "--summary-doc", str(pdf), "--classifier", "lexical")
    line = one_error_line(r)
    assert f"{pdf}: is a PDF document" in line and "encoding" not in line
    r = argfaith("evaluate", "--source", str(pdf), "--summary", str(ROOT / "examples" / "paper" / "qa.json"))
    assert f"{pdf}: is a PDF document" in one_error_line(r)
    latin = tmp_path / "latin1.txt"
    latin.write_bytes("Le débat.".encode("latin-1"))
    line = one_error_line(argfaith("evaluate", "--debate", str(MINING_DEBATE), "--summary-doc", str(latin), "--classifier", "lexical"))
    assert "not UTF-8 text" in line and "re-save the file as UTF-8" in line and "--encoding" not in line  # no option promised


def test_version_and_help():
    from argfaith import __version__

    r = argfaith("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"argfaith {__version__}"
    h = argfaith("--help", env_extra={"COLUMNS": "80"}).stdout
    commands = h.split("Commands:")[1]
    assert commands.strip().startswith("evaluate")
    assert "..." not in commands  # whole one-line summaries, never cut
    assert "which provisions does each summary misrepresent?" in " ".join(commands.split())
    e = argfaith("evaluate", "--help", env_extra={"COLUMNS": "100"}).stdout
    heads = [ln for ln in e.splitlines() if ln and not ln.startswith(" ") and ln.endswith(":")]
    assert heads[:4] == ["Inputs:", "Mining (documents given with --debate):", "Metrics:",
                         "Alignment (supplementary metrics π_sap, π_sar, π_pcc, π_cov):"]
    assert "Output:" in heads and e.index("--max-pairs") < e.index("Metrics:")


def test_mine_has_the_same_guards(tmp_path):
    big = tmp_path / "unrelated.txt"
    big.write_text(" ".join(f"Sentence number {i} says something about fisheries." for i in range(100)), encoding="utf-8")
    r = argfaith("mine", str(MINING_DEBATE), "--summary", str(big), "--out", str(tmp_path / "q.json"), "--classifier", "lexical",
                 "--max-pairs", "500")
    assert "exceed --max-pairs 500" in one_error_line(r) and not (tmp_path / "q.json").exists()
    el = tmp_path / "greek.txt"
    el.write_text(GREEK, encoding="utf-8")
    r = argfaith("mine", str(MINING_DEBATE), "--summary", str(el), "--out", str(tmp_path / "g.json"), "--classifier", "lexical", "--strict")
    assert "is in Greek" in one_error_line(r)
