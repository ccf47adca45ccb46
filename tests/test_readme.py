"""The README is true: its commands run, its Python runs and prints what its comments say, its
QBAF JSON example loads, its JSON key table matches the program's output, and its two result
tables are what the program computes."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _indented_blocks(text: str) -> list[str]:
    blocks, cur = [], []
    in_fence = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_fence = not in_fence
            continue
        if not in_fence and line.startswith("    ") and line.strip():
            cur.append(line[4:])
        elif cur:
            blocks.append("\n".join(cur))
            cur = []
    return blocks


def _fenced(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, re.S)


def _commands() -> list[list[str]]:
    """The ``argfaith ...`` commands of the README's shell blocks (after ``pip install ... &&``)."""
    out = []
    for block in _indented_blocks(README):
        for line in block.splitlines():
            for part in line.split("&&"):
                part = part.strip()
                if part.startswith("argfaith "):
                    out.append(shlex.split(part)[1:])
    return out


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "argfaith", *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


def test_the_readme_has_the_commands_we_check():
    cmds = _commands()
    assert len(cmds) >= 2 and all(c[0] == "evaluate" for c in cmds)
    assert any("examples/debate/summary_distorted.json" in c for c in cmds)


@pytest.mark.parametrize("args", _commands(), ids=lambda a: " ".join(a)[:60])
def test_readme_commands_run(args):
    r = _run(args)
    assert r.returncode == 0, r.stderr
    assert "Faithfulness metrics" in r.stdout and "error" not in r.stderr.lower()


def test_readme_python_runs_and_prints_what_it_says():
    (code,) = _fenced("python")
    env: dict[str, object] = {}
    import os

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        for line in code.splitlines():
            stmt, _, comment = line.partition("#")
            if not stmt.strip():
                continue
            m = re.match(r"\s*([-+]?\d+(?:\.\d+)?)", comment)
            if m:  # `expr  # 0.32 ...`: the expression's value
                value = eval(stmt, env)  # noqa: S307 - the README's own example
                assert value == pytest.approx(float(m.group(1)), abs=0.005), line
            else:
                exec(stmt, env)  # noqa: S102
    finally:
        os.chdir(cwd)


def test_readme_qbaf_json_example_loads():
    from argfaith.qbaf import qbaf_from_dict

    (example,) = _fenced("json")
    q = qbaf_from_dict(json.loads(example), source="README")
    assert q.proposals == ("p1",) and q.attackers("p1") == ("s1",)


@dataclass(frozen=True)
class Keys:
    """The keys a row of the README's JSON key table documents: always present, present only with
    error bars (the part after "; with `--draws` also"), and present under another condition
    ("; with an alignment also ...", "; with several `--semantics` also ...")."""

    always: frozenset[str]
    draws: frozenset[str]
    other: frozenset[str]

    @property
    def all(self) -> frozenset[str]:
        return self.always | self.draws | self.other


def _key_table() -> dict[str, Keys]:
    section = README.split("JSON (`--format json`", 1)[1]
    rows = {}
    for line in section.splitlines()[2:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] in ("object", "---"):
            continue
        parts = re.split(r";\s+with\s+", cells[1])
        draws, other = set(), set()
        for part in parts[1:]:
            (draws if part.startswith("`--draws`") else other).update(re.findall(r"`([a-z_]+)`", part))
        rows[cells[0]] = Keys(frozenset(re.findall(r"`([a-z_]+)`", parts[0])), frozenset(draws), frozenset(other))
    return rows


def _json(args: list[str]) -> dict:
    r = _run([*args, "--format", "json"])
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


DEBATE = ["evaluate", "--source", "examples/debate/source.json", "--summary", "examples/debate/summary_faithful.json"]
REPORT = "the output, one summary at one τ (a report)"
SUITE = "the output, several summaries or several τ (a suite)"
SIDES = "`source`, `summary`"
PAIRWISE = "`pairwise`"
PER_PROPOSAL = "`per_proposal` entries (one per shared proposal)"


def test_readme_json_keys_match_the_output():
    table = _key_table()
    assert len(table) == 13, list(table)
    one = _json([*DEBATE, "--alignment", "examples/debate/alignment_faithful.csv"])
    suite = _json([*DEBATE, "--summary", "examples/debate/summary_distorted.json"])
    assert set(one) == table[REPORT].always  # without --draws: no error-bar key
    assert set(suite) == table[SUITE].always
    assert all(set(r) == table[REPORT].always for r in suite["reports"])
    for side in ("source", "summary"):
        assert table[SIDES].always <= set(one[side]), table[SIDES].always - set(one[side])
        assert not table[SIDES].draws & set(one[side])
    assert table[PAIRWISE].always | table[PAIRWISE].other <= set(one["pairwise"])
    assert not table[PAIRWISE].draws & set(one["pairwise"])
    assert all(set(v) == table[PER_PROPOSAL].always for v in one["pairwise"]["per_proposal"].values())
    assert set(suite["sensitivity"][0]) == table["`sensitivity` rows"].all


def test_readme_error_bar_keys_match_the_output(uncertain_paper_dir):
    """With --draws (issue 23): every key the table marks "with `--draws`" is in the output, and
    the keys of the intervals, probabilities, uncertainty block and P(better) rows are those documented."""
    table = _key_table()
    d = uncertain_paper_dir
    suite = _json(["evaluate", "--source", str(d / "q.json"), "--summary", str(d / "qa.json"), "--summary", str(d / "qb.json"),
                   "--draws", "20", "--no-qbafs"])
    assert set(suite) == table[SUITE].always | table[SUITE].draws
    for rep in suite["reports"]:
        assert set(rep) == table[REPORT].always | table[REPORT].draws
        assert set(rep["uncertainty"]) == table["`uncertainty`"].all
        intervals = []
        for side in ("source", "summary"):
            assert table[SIDES].draws <= set(rep[side])
            assert set(rep[side]["interval"]) == table["`interval` in `source`, `summary`"].all
            intervals += rep[side]["interval"].values()
        assert table[PAIRWISE].draws <= set(rep["pairwise"])
        assert set(rep["pairwise"]["interval"]) == table["`interval` in `pairwise`"].all
        intervals += rep["pairwise"]["interval"].values()
        for v in rep["pairwise"]["per_proposal"].values():
            assert set(v) == table[PER_PROPOSAL].always | table[PER_PROPOSAL].draws
            assert set(v["interval"]) == table["`interval` in a `per_proposal` entry"].all
            assert set(v["probability"]) == table["`probability` in a `per_proposal` entry"].all
            intervals += v["interval"].values()
        assert all(set(iv) == table["an interval"].all for iv in intervals)
    assert suite["p_better"] and all(set(row) == table["`p_better` rows"].all for row in suite["p_better"])


def test_readme_key_table_matches_the_report_models():
    """A key documented in the table is a field of its model, and — for the objects the table lists
    in full — every field of the model is documented: a renamed or new field fails here."""
    from argfaith.metrics import report as m

    table = _key_table()
    full = {
        REPORT: m.EvaluationReport, SUITE: m.EvaluationSuite, PER_PROPOSAL: m.ProposalVerdict,
        "`sensitivity` rows": m.SensitivityRow, "an interval": m.Interval, "`uncertainty`": m.UncertaintyInfo,
        "`p_better` rows": m.PBetterRow,
    }
    for row, model in full.items():
        assert table[row].all == set(model.model_fields), (row, table[row].all ^ set(model.model_fields))
    for row, model in ((SIDES, m.SideReport), (PAIRWISE, m.PairwiseReport)):
        assert table[row].all <= set(model.model_fields), (row, table[row].all - set(model.model_fields))
    # the error-bar keys are documented where the models have them
    assert "uncertainty" in table[REPORT].draws and "p_better" in table[SUITE].draws
    assert "interval" in table[SIDES].draws and "interval" in table[PAIRWISE].draws
    assert table[PER_PROPOSAL].draws == {"interval", "probability"}


def _readme_table(after: str) -> dict[str, list[str]]:
    """The markdown table following ``after`` in the README: first cell → the other cells."""
    section = README.split(after, 1)[1]
    out = {}
    for line in section.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip()[1:-1])]
            if set(cells[0]) <= {"-", " "} or cells[0] in ("metric", ""):
                continue
            out[cells[0].replace("\\|", "|")] = cells[1:]
        elif out:
            break
    return out


def f2(v: float | None) -> str:
    return "—" if v is None else f"{v:.2f}"


def test_readme_main_job_table_is_what_the_program_computes():
    from argfaith.metrics import evaluate
    from argfaith.metrics.alignment import FileAligner
    from argfaith.qbaf import load_qbaf

    table = _readme_table("gets wrong, ranked by each argument's exact influence on the proposal's strength:")
    ex = ROOT / "examples" / "debate"
    q = load_qbaf(ex / "source.json")
    reps = {v: evaluate(q, load_qbaf(ex / f"summary_{v}.json"), alignment=FileAligner(ex / f"alignment_{v}.csv"))
            for v in ("faithful", "distorted")}
    f, d = reps["faithful"], reps["distorted"]
    assert table["|X_s|"] == [str(f.source.n_speech), str(f.summary.n_speech), str(d.summary.n_speech)]
    assert table["π_ar"] == [f2(f.source.relevance), f2(f.summary.relevance), f2(d.summary.relevance)]
    assert table["mean π_pcr"] == [f2(f.source.pro_con_ratio_mean), f2(f.summary.pro_con_ratio_mean), f2(d.summary.pro_con_ratio_mean)]
    for row, attr in (("π_dpc", "d_preferability_consistency"), ("π_bc", "balance_consistency"), ("π_εa", "epsilon_accuracy")):
        assert table[row] == ["—", f2(getattr(f.pairwise, attr)), f2(getattr(d.pairwise, attr))], row
    sup = next(k for k in table if k.startswith("π_sap / π_sar / π_pcc"))
    assert table[sup][1:] == [" / ".join(f2(getattr(r.pairwise, a)) for a in ("supplementary_precision", "supplementary_recall", "pro_con_consistency"))
                              for r in (f, d)]
    cov = next(k for k in table if k.startswith("π_cov"))
    assert table[cov][1:] == [f2(f.pairwise.argument_coverage), f2(d.pairwise.argument_coverage)]


def test_readme_paper_table_is_what_the_program_computes():
    from argfaith.metrics import evaluate
    from argfaith.qbaf import load_qbaf

    table = _readme_table("argfaith evaluate --source examples/paper/q.json --summary examples/paper/qa.json --summary examples/paper/qb.json")
    p = ROOT / "examples" / "paper"
    q = load_qbaf(p / "q.json")
    a, b = (evaluate(q, load_qbaf(p / f"{n}.json")) for n in ("qa", "qb"))
    sides = [a.source, a.summary, b.summary]
    assert table["|X_s|"] == [str(s.n_speech) for s in sides]
    assert table["π_ar"] == [f2(s.relevance) for s in sides]
    assert table["π_pcr(p1) / π_pcr(p2)"] == [f"{f2(s.pro_con_ratio['p1'])} / {f2(s.pro_con_ratio['p2'])}" for s in sides]
    for r, cell in ((a, table["π_dpc, π_bc, π_εa vs Q"][1]), (b, table["π_dpc, π_bc, π_εa vs Q"][2])):
        assert {f2(r.pairwise.d_preferability_consistency), f2(r.pairwise.balance_consistency), f2(r.pairwise.epsilon_accuracy)} == {cell}
    assert table["σ(p1), σ(p2)"] == [f"{f2(s.strengths['p1'])}, {f2(s.strengths['p2'])}" for s in sides]
    assert table["accepted proposals"] == ["{" + ", ".join(s.accepted) + "}" for s in sides]
