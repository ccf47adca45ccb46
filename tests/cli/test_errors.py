"""Every command, fed a non-UTF-8 file or an out-of-range option, answers with one line
``error: ...`` naming the file (and line) or the option, exit status 2, and no traceback.

The matrix runs through :func:`argfaith.cli.main` (the console script's entry point) in process;
a few cases also run as real subprocesses (``python -m argfaith``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from argfaith.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
FIX = ROOT / "tests" / "fixtures"
PAPER = EX / "paper"
DEBATE = EX / "debate"


@pytest.fixture(scope="module")
def bad(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Files that are valid up to a Latin-1 byte on line 3 (and a folder of such files)."""
    d = tmp_path_factory.mktemp("bad")
    latin1 = "Caf\xe9".encode("latin-1")
    out = {}
    for name, head in {
        "json": b'{\n "arguments": [],\n "text": "',
        "csv": b"arg_id,key_point_id\na1,k1\n",
        "txt": b"[1] A: First line.\n[2] B: Second line.\n",
        "jsonl": b'{"source": "a", "target": "b", "label": "support"}\n{"source": "c", "target": "d", "label": "attack"}\n',
    }.items():
        p = d / f"bad.{name}"
        p.write_bytes(head + latin1 + (b'"}\n' if name == "json" else b"\n"))
        out[name] = p
    # A KPA data folder whose arguments file has the bad byte.
    kpa = d / "kpa"
    shutil.copytree(FIX / "kpa", kpa)
    (kpa / "arguments_dev.csv").write_bytes((kpa / "arguments_dev.csv").read_bytes().replace(b"\n", b"\n" + latin1 + b" ", 1))
    out["kpa"] = kpa
    # An EP corpus (debates + summaries) where one intervention file has the bad byte.
    corpus = d / "corpus"
    shutil.copytree(FIX / "study", corpus)
    iv = sorted((corpus / "ep_debates" / "debates").glob("*/interventions/*.json"))[0]
    iv.write_bytes(iv.read_bytes().replace(b'"english": "', b'"english": "' + latin1, 1))
    out["corpus"] = corpus
    out["debate_dir"] = iv.parent.parent
    # A written distortion set whose manifest has the bad byte.
    written = d / "written"
    written.mkdir()
    (written / "manifest.jsonl").write_bytes(b'{"id": "x"}\n' + latin1 + b"\n")
    out["written"] = written
    return out


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as ex:
        main(args)
        raise SystemExit(0)  # main returned: success
    out, err = capsys.readouterr()
    return int(ex.value.code or 0), out, err


def assert_one_line_error(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("error: ")]
    assert len(errors) == 1, err
    assert "Traceback" not in err and "Usage:" not in err
    for n in needles:
        assert n in errors[0], (n, errors[0])


SRC, SUM = str(PAPER / "q.json"), str(PAPER / "qa.json")

# (argv with {json} / {csv} / {txt} / ... placeholders, substrings the error line must contain)
NON_UTF8 = [
    (["evaluate", "--source", "{json}", "--summary", SUM], ["bad.json, line 3", "not UTF-8"]),
    (["evaluate", "--source", SRC, "--summary", "{json}"], ["bad.json, line 3"]),
    (["evaluate", "--source", str(DEBATE / "source.json"), "--summary", str(DEBATE / "summary_faithful.json"), "--alignment", "{csv}"], ["bad.csv, line 3"]),
    (["evaluate", "--source", str(DEBATE / "source.json"), "--summary", str(DEBATE / "summary_faithful.json"),
      "--source-text", "{txt}", "--summary-text", str(DEBATE / "summary_faithful.txt")], ["bad.txt, line 3"]),
    (["evaluate", "--debate", "{txt}", "--summary-doc", str(DEBATE / "summary_faithful.txt"), "--classifier", "offline"], ["bad.txt, line 3"]),
    (["strengths", "{json}"], ["bad.json, line 3"]),
    (["extensions", "{json}"], ["bad.json, line 3"]),
    (["mine", "{txt}", "--classifier", "offline", "--dry-run"], ["bad.txt, line 3"]),
    (["mine", str(DEBATE / "debate.json"), "--summary", "{txt}", "--classifier", "offline", "--dry-run"], ["bad.txt, line 3"]),
    (["mine", "{debate_dir}", "--classifier", "offline", "--dry-run"], ["1-001.json, line 3", "not UTF-8"]),
    (["mine", str(DEBATE / "debate.json"), "--classifier", "offline", "--out", "{tmp}/q.json", "--checkpoint", "{txt}"], ["bad.txt, line 3"]),
    (["summarize", "{txt}", "--dry-run"], ["bad.txt, line 3"]),
    (["selftest", "--out", "{tmp}", "--data", "{corpus}", "--classifier", "offline", "--distortions", "written:{written}"],
     ["manifest.jsonl, line 2"]),
    (["bench", "relations", "--data", "{jsonl}", "-c", "lexical"], ["bad.jsonl, line 3"]),
    (["bench", "relations", "--data", str(FIX / "relations" / "pairs.jsonl"), "--cv", "2", "--extra-train", "{jsonl}"], ["bad.jsonl, line 3"]),
    (["bench", "kpa", "--data", "{kpa}", "--matcher", "tfidf"], ["arguments_dev.csv, line 2"]),
    (["kpa", "score", "-p", "{json}", "--data", str(FIX / "kpa")], ["bad.json, line 3"]),
    (["kpa", "score", "-p", str(FIX / "kpa" / "predictions_dev.json"), "--data", "{kpa}"], ["arguments_dev.csv, line 2"]),
    (["kpa", "match", "--data", str(FIX / "kpa"), "--model", "{json}", "-o", "{tmp}/p.json"], ["bad.json, line 3"]),
    (["kpa", "soft", "-g", "{txt}", "-r", str(FIX / "kpa" / "key_points_dev.csv")], ["bad.txt, line 3"]),
    (["kpa", "soft", "-g", str(FIX / "kpa" / "key_points_dev.csv"), "-r", "{csv}"], ["bad.csv, line 3"]),
    (["kpa", "structure", "--assignments", "{csv}"], ["bad.csv, line 3"]),
    (["kpa", "structure", "-p", "{json}", "--threshold", "0.5"], ["bad.json, line 3"]),
    (["kpa", "structure", "--assignments", str(FIX / "kpa" / "labels_dev.csv"), "--match-judgements", "{csv}"], ["bad.csv, line 3"]),
    (["kpa", "structure", "--assignments", str(FIX / "kpa" / "labels_dev.csv"), "--duplicates", "{csv}"], ["bad.csv, line 3"]),
    (["kpa", "structure", "--assignments", str(FIX / "kpa" / "labels_dev.csv"), "--unmatched-judgements", "{csv}"], ["bad.csv, line 3"]),
    (["kpa", "coverage", "{json}", SUM], ["bad.json, line 3"]),
    (["kpa", "coverage", str(DEBATE / "source.json"), str(DEBATE / "summary_faithful.json"), "--alignment", "{csv}"], ["bad.csv, line 3"]),
]


def _fill(argv: list[str], bad: dict[str, Path], tmp: Path) -> list[str]:
    subs = {f"{{{k}}}": str(v) for k, v in bad.items()} | {"{tmp}": str(tmp)}
    out = []
    for a in argv:
        for k, v in subs.items():
            a = a.replace(k, v)
        out.append(a)
    return out


@pytest.mark.parametrize(("argv", "needles"), NON_UTF8, ids=[" ".join(a[:2]) + f"-{i}" for i, (a, _) in enumerate(NON_UTF8)])
def test_non_utf8_file_is_one_line_error(argv, needles, bad, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ARGFAITH_CACHE", str(tmp_path / "cache"))
    code, _, err = run_main(_fill(argv, bad, tmp_path), capsys)
    assert_one_line_error(code, err, *needles)


EVAL = ["evaluate", "--source", SRC, "--summary", SUM]
OUT_OF_RANGE = [
    (EVAL + ["--epsilon", "-1"], "--epsilon: -1.0 is not in (0, 1]"),
    (EVAL + ["--epsilon", "nan"], "--epsilon: nan"),
    (EVAL + ["--epsilon", "5"], "--epsilon: 5.0 is not in (0, 1]"),
    (EVAL + ["--epsilon", "0"], "--epsilon: 0.0"),
    (EVAL + ["--epsilon", "abc"], "--epsilon"),
    (EVAL + ["--tolerance", "-1"], "--tolerance: -1.0 is not in [0, ∞)"),
    (EVAL + ["--tol", "inf"], "--tol: inf"),
    (EVAL + ["--max-iter", "-5"], "--max-iter: -5 must be an integer >= 1"),
    (EVAL + ["--max-iter", "0"], "--max-iter: 0"),
    (EVAL + ["--tau", "-0.2"], "--tau"),
    (EVAL + ["--tau", "0.2,1.5"], "--tau: 1.5 is not in [0, 1]"),
    (EVAL + ["--explain-top", "-1"], "--explain-top"),
    (EVAL + ["--coverage-k", "-1"], "--coverage-k"),
    (EVAL + ["--pcr-reading", "simple", "--path-budget", "0"], "--path-budget: 0 must be an integer >= 1"),
    (EVAL + ["--align", "lexical", "--align-threshold", "2"], "--align-threshold: 2.0"),
    (["strengths", SRC, "--tau", "-0.2"], "--tau: -0.2 is not in [0, 1]"),
    (["strengths", SRC, "--semantics", "dfquad,quad"], "--semantics: give one semantics here, got 2"),
    (["strengths", SRC, "--semantics", "euler"], "--semantics: unknown semantics 'euler'"),
    (EVAL + ["--semantics", "dfquad,sum:cosine"], "--semantics: semantics 'sum:cosine': unknown influence 'cosine'"),
    (["study", "--out", "{tmp}", "--data", str(FIX / "study"), "--semantics", "nope"], "--semantics: unknown semantics 'nope'"),
    (["principles", "--examples", "0"], "--examples: 0 must be an integer >= 1"),
    (["principles", "--max-size", "13"], "--max-size: 13 is not in [1, 12]"),
    (["principles", "--semantics", "nope"], "--semantics: unknown semantics 'nope'"),
    (["strengths", SRC, "--max-iter", "0"], "--max-iter: 0"),
    (["strengths", SRC, "--tol", "-1"], "--tol"),
    (["strengths", SRC, "--step", "0"], "--step: 0.0 is not in (0, 1]"),
    (["strengths", SRC, "--step", "1.5"], "--step"),
    (["extensions", SRC, "--max-extensions", "0"], "--max-extensions"),
    (["extensions", SRC, "--max-arguments", "-1"], "--max-arguments"),
    (["mine", str(DEBATE / "debate.json"), "--dry-run", "--tau", "1.2"], "--tau: 1.2"),
    (["mine", str(DEBATE / "debate.json"), "--dry-run", "--chunk-size", "0"], "--chunk-size"),
    (["summarize", str(DEBATE / "debate.json"), "--dry-run", "--max-tokens", "3"], "--max-tokens"),
    (["study", "--out", "{tmp}", "--data", str(FIX / "study"), "--epsilon", "0"], "--epsilon"),
    (["study", "--out", "{tmp}", "--data", str(FIX / "study"), "--tau", "0.2,-1"], "--tau"),
    (["study", "--out", "{tmp}", "--data", str(FIX / "study"), "--jobs", "0"], "--jobs"),
    (["study", "--out", "{tmp}", "--data", str(FIX / "study"), "--explain-top", "-1"], "--explain-top"),
    (["study", "--out", "{tmp}", "--data", str(FIX / "study"), "--retries", "-1"], "--retries: -1"),
    (["study", "--out", "{tmp}", "--data", str(FIX / "study"), "--executor", "ray"], "--executor ray is not supported yet"),
    (["selftest", "--out", "{tmp}", "--data", str(FIX / "study"), "--epsilon", "2"], "--epsilon: 2.0"),
    (["selftest", "--out", "{tmp}", "--data", str(FIX / "study"), "--tau", "-0.1"], "--tau"),
    (["selftest", "--out", "{tmp}", "--data", str(FIX / "study"), "--provisions", "-1"], "--provisions"),
    (["bench", "relations", "--data", str(FIX / "relations" / "pairs.jsonl"), "--limit", "0"], "--limit"),
    (["bench", "relations", "--data", str(FIX / "relations" / "pairs.jsonl"), "--cv", "1"], "--cv"),
    (["bench", "relations", "--data", str(FIX / "relations" / "pairs.jsonl"), "--extra-weight", "-1"], "--extra-weight"),
    (["kpa", "score", "-p", str(FIX / "kpa" / "predictions_dev.json"), "--data", str(FIX / "kpa"), "--top-fraction", "0"], "--top-fraction"),
    (["kpa", "score", "-p", str(FIX / "kpa" / "predictions_dev.json"), "--data", str(FIX / "kpa"), "--top-fraction", "1.5"], "--top-fraction"),
    (["kpa", "structure", "-p", str(FIX / "kpa" / "predictions_dev.json"), "--threshold", "nan"], "--threshold"),
    (["kpa", "coverage", SRC, SUM, "--k", "0"], "--k"),
    (["kpa", "coverage", SRC, SUM, "--fraction", "0"], "--fraction"),
    (["kpa", "coverage", SRC, SUM, "--align", "lexical", "--align-threshold", "-0.5"], "--align-threshold"),
    (["bench", "kpa", "--data", str(FIX / "kpa"), "--matcher", "nope"], "--matcher"),
    (["evaluate", "--source", SRC, "--summary", SUM, "--no-such-option"], "no such option"),
]


@pytest.mark.parametrize(("argv", "needle"), OUT_OF_RANGE, ids=[" ".join(a[:2]) + f"-{i}" for i, (a, _) in enumerate(OUT_OF_RANGE)])
def test_out_of_range_option_is_one_line_error(argv, needle, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("ARGFAITH_CACHE", str(tmp_path / "cache"))
    code, out, err = run_main([a.replace("{tmp}", str(tmp_path / "out")) for a in argv], capsys)
    assert_one_line_error(code, err, needle)
    assert not (tmp_path / "out").exists() or argv[0] in ("study", "selftest") and not any((tmp_path / "out").rglob("*.json"))


def test_every_command_is_covered():
    """Each command of the CLI appears in both matrices (a new command must add its cases)."""
    from argfaith.cli import command

    def leaves(cmd, prefix=()):
        subs = getattr(cmd, "commands", None)
        if subs:
            for n, c in subs.items():
                yield from leaves(c, (*prefix, n))
        else:
            yield prefix

    names = {" ".join(p) for p in leaves(command())}
    assert {"evaluate", "selftest", "kpa coverage", "bench kpa"} <= names

    def covered(matrix):
        return {" ".join(a[:2]) if a[0] in ("kpa", "bench") else a[0] for a, _ in matrix}

    # principles reads no input file (it generates its frameworks).
    assert names - covered(NON_UTF8) <= {"study", "principles"}, names - covered(NON_UTF8)
    assert names - covered(OUT_OF_RANGE) <= {"kpa match", "kpa soft"}, names - covered(OUT_OF_RANGE)


def test_study_counts_an_unreadable_debate_as_failed_not_a_traceback(bad, tmp_path, capsys, monkeypatch):
    """The study goes on past a debate it cannot read: that item is listed FAILED with the file and
    line, and the exit status is 1 (some items failed), as docs/study.md says."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    code, out, err = run_main(["study", "--out", str(tmp_path / "o"), "--data", str(bad["corpus"]), "--classifier", "offline",
                               "--no-html", "--no-plots", "--tau", "0.2", "--baselines", "none", "-q"], capsys)
    assert code == 1 and "Traceback" not in err
    assert "FAILED" in out and "not UTF-8" in out and "1-001.json, line 3" in out


@pytest.mark.parametrize(
    "args",
    [
        ["evaluate", "--source", SRC, "--summary", SUM, "--epsilon", "-1"],
        ["strengths", SRC, "--tau", "-0.2"],
        ["kpa", "score", "-p", "{json}", "--data", str(FIX / "kpa")],
    ],
)
def test_through_a_real_subprocess(args, bad, tmp_path):
    r = subprocess.run([sys.executable, "-m", "argfaith", *_fill(args, bad, tmp_path)], capture_output=True, text=True, timeout=300)
    assert_one_line_error(r.returncode, r.stderr)
    assert r.stdout == ""


def test_help_shows_readable_metavars(capsys):
    code, out, _ = run_main(["evaluate", "--help"], capsys)
    assert code == 0
    assert "<list[" not in out and "range>" not in out and "<str>" not in out
    assert "--summary PATH" in out and "--epsilon NUMBER" in out and "--max-iter N" in out


def test_internal_errors_are_one_line_with_status_1(monkeypatch, capsys):
    import argfaith.cli.engine as engine

    def boom(*a, **k):
        raise RuntimeError("something broke")

    monkeypatch.setattr("argfaith.qbaf.gradual.gradual_strengths", boom)  # what strengths calls
    code, _, err = run_main(["strengths", SRC], capsys)
    assert code == 1 and err.startswith("error: internal error: RuntimeError: something broke") and "Traceback" not in err
    assert engine  # the command module is the one patched through argfaith.qbaf
