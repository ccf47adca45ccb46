"""The principles matrix: every named semantics × every principle, its counterexamples checked
independently, the satisfied cells re-tested as property tests on fresh random frameworks, the
new principles shown able to fail, and the `argfaith principles` command."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings

from argfaith.qbaf import QBAF, dfquad_strengths
from argfaith.qbaf.matrix import get_principle, principle_examples, principle_matrix, principle_names
from argfaith.qbaf.principles import Duality, Equivalence, OpenMindedness
from argfaith.qbaf.semantics import NAMED
from argfaith.qbaf.strategies import acyclic_qbafs

S, X, B, NA = "satisfied", "violated", "violated-at-bounds", "not applicable"
SEMS = ("dfquad", "quad", "quadratic-energy", "euler-based", "restricted-euler-based", "mlp-based", "weighted-h-categorizer")
#: The matrix as argfaith computes it (docs/semantics.md explains every ✗ and compares with the papers).
EXPECTED: dict[str, tuple[str, ...]] = {
    #                   dfquad quad qe  euler reb  mlp  whc
    "stability":       (S, S, S, S, S, S, S),
    "neutrality":      (S, B, S, S, S, S, S),
    "directionality":  (S, S, S, S, S, S, S),
    "anonymity":       (S, S, S, S, S, S, S),
    "independence":    (S, S, S, S, S, S, S),
    "equivalence":     (S, S, S, S, S, S, S),
    "balance":         (S, X, S, B, B, B, S),
    "monotonicity":    (S, B, S, S, S, S, S),
    "resilience":      (B, B, S, S, S, S, S),
    "franklin":        (X, X, S, S, S, S, NA),
    "strict counting": (B, B, B, B, B, B, S),
    "duality":         (S, S, S, X, X, S, NA),
    "open-mindedness": (X, X, S, X, X, B, S),
}


@pytest.fixture(scope="module")
def matrix():
    return principle_matrix(examples=100)


def test_the_matrix(matrix):
    assert matrix.semantics == SEMS and matrix.principles == principle_names() == tuple(EXPECTED)
    got = {p: tuple(matrix.verdict(s, p) for s in SEMS) for p in matrix.principles}
    assert got == EXPECTED


def test_every_counterexample_fails_an_independent_recheck(matrix):
    for cell in matrix.violations():
        sem, principle = NAMED[cell.semantics], get_principle(cell.principle)()
        for ce in (cell.counterexample, cell.interior_counterexample):
            if ce is None:
                continue
            assert sem.applies_to(ce.qbaf)
            r = principle.check(sem, ce.qbaf)
            assert not r.satisfied and r.counterexample.description == ce.description
            assert any(f"'{a}'" in ce.description for a in ce.arguments)
        bs = cell.counterexample.qbaf.base_scores
        if cell.verdict == B:
            assert ((bs < 0.01) | (bs > 0.99)).any() and cell.interior_counterexample is None
        elif cell.interior_counterexample is not None:
            ibs = cell.interior_counterexample.qbaf.base_scores
            assert ((ibs >= 0.01) & (ibs <= 0.99)).all()
        json.dumps(cell.to_dict())  # JSON-ready, however large the edit was


SATISFIED = [(s, p) for p, row in EXPECTED.items() for s, v in zip(SEMS, row) if v == S]


@pytest.mark.parametrize("sem_name, principle", SATISFIED, ids=lambda v: str(v))
@settings(deadline=None, max_examples=25, suppress_health_check=list(HealthCheck))
@given(q=acyclic_qbafs(max_size=7))
def test_satisfied_cells_hold_on_fresh_random_frameworks(sem_name, principle, q):
    """A second, randomized property test of every ✓ (larger frameworks than the matrix's)."""
    sem = NAMED[sem_name]
    if sem.attack_only:
        q = QBAF.from_arrays(q.base_scores, q.attack_array)
    r = get_principle(principle)().check(sem, q)
    assert r.satisfied, r.counterexample


def test_matrix_cells_are_deterministic_and_selectable():
    a = principle_matrix(["quad", "top:euler"], ["balance", "duality"], examples=30)
    b = principle_matrix(["quad", "top:euler"], ["balance", "duality"], examples=30)
    assert a.to_dict()["matrix"] == b.to_dict()["matrix"]
    assert a.semantics == ("quad", "top:euler") and a.principles == ("balance", "duality")
    assert a.verdict("top:euler", "duality") == X
    with pytest.raises(ValueError, match="unknown principle 'balanse'"):
        get_principle("balanse")
    with pytest.raises(ValueError, match="examples must be a positive integer"):
        principle_matrix(examples=0)


# ------------------------------------------------------------------ the new checks can fail
def dfquad_dict(q):
    return dfquad_strengths(q).as_dict()


def position_dependent(q):
    return {a: v * (1 - 0.01 * i / max(q.n, 1)) for i, (a, v) in enumerate(dfquad_strengths(q).as_dict().items())}


def ignore_supports(q):
    return dfquad_strengths(QBAF.from_arrays(q.base_scores, q.attack_array, ids=q.ids)).as_dict()


def base_scores_only(q):
    return dict(zip(q.ids, q.base_scores.tolist()))


@pytest.mark.parametrize(
    "principle, semantics, q",
    [
        (Equivalence(), position_dependent, QBAF.from_arrays([0.5, 0.5], ids=["x", "y"])),
        (Duality(), ignore_supports, principle_examples()["certain argument attacked"]),
        (OpenMindedness(), base_scores_only, principle_examples()["two attackers"]),
    ],
    ids=["equivalence", "duality", "open-mindedness"],
)
def test_new_checks_catch_a_semantics_that_breaks_them(principle, semantics, q):
    r = principle.check(semantics, q)
    assert not r.satisfied and r.counterexample is not None


def test_new_checks_hold_for_dfquad_where_they_should():
    q = principle_examples()["chain"]
    assert Equivalence().check(dfquad_dict, q) and Duality().check(dfquad_dict, q)


# ------------------------------------------------------------------ CLI
def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "argfaith", *args], capture_output=True, text=True, timeout=600)


def test_cli_principles_json_subprocess():
    r = run("principles", "--semantics", "dfquad,euler-based", "--principle", "resilience,duality", "--examples", "30", "--format", "json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["matrix"] == {"dfquad": {"resilience": B, "duality": S}, "euler-based": {"resilience": S, "duality": X}}
    cells = {(c["semantics"], c["principle"]): c for c in out["cells"]}
    ce = cells[("euler-based", "duality")]["counterexample"]
    assert "dual" in ce["description"] and ce["qbaf"]["base_scores"]
    assert "counterexample" not in cells[("dfquad", "duality")]


def test_cli_principles_table_and_markdown_subprocess(tmp_path):
    r = run("principles", "--semantics", "quadratic-energy,top:euler", "--principle", "franklin,open-mindedness", "--examples", "20")
    assert r.returncode == 0, r.stderr
    assert "top:euler × franklin (✗)" in r.stdout and "framework: τ:" in r.stdout
    out = tmp_path / "m.md"
    r = run("principles", "--semantics", "weighted-h-categorizer", "--principle", "franklin,stability", "--format", "markdown", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "| franklin | n/a |" in out.read_text(encoding="utf-8")


def test_cli_principles_bad_names_are_one_line_errors_subprocess():
    r = run("principles", "--semantics", "dfquad,nope")
    assert r.returncode == 2 and r.stderr.startswith("error: --semantics: unknown semantics 'nope'") and "Traceback" not in r.stderr
    r = run("principles", "--principle", "stability,fairness")
    assert r.returncode == 2 and r.stderr.startswith("error: --principle: unknown principle 'fairness'")
    r = run("principles", "--max-size", "13")
    assert r.returncode == 2 and r.stderr == "error: --max-size: 13 is not in [1, 12] (arguments)\n"
    r = run("principles", "--examples", "0")
    assert r.returncode == 2 and r.stderr.startswith("error: --examples: 0 must be an integer >= 1")
