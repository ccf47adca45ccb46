"""Principles of gradual semantics: DF-QuAD satisfies the first seven as properties, violates the
last three on explicit examples, and every check catches a semantics built to break it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings

from argfaith.qbaf import QBAF, dfquad_strengths
from argfaith.qbaf.principles import (
    ALL_PRINCIPLES,
    DFQUAD_SATISFIED,
    DFQUAD_VIOLATED,
    Anonymity,
    Balance,
    Directionality,
    Franklin,
    Independence,
    Monotonicity,
    Neutrality,
    Resilience,
    Stability,
    StrictCounting,
    check_principles,
    dfquad_semantics,
    dfquad_violation_examples,
    disjoint_union,
    relabelled,
)
from argfaith.qbaf.reference import aggregate_reference, combine_reference
from argfaith.qbaf.strategies import acyclic_qbafs, debate_qbafs, qbafs

SETTINGS = settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
DFQUAD = dfquad_semantics()


@pytest.mark.parametrize("principle", DFQUAD_SATISFIED, ids=lambda p: p.name)
@SETTINGS
@given(q=acyclic_qbafs(max_size=7))
def test_dfquad_satisfies_on_acyclic_frameworks(principle, q):
    r = principle().check(DFQUAD, q)
    assert r.applicable and r.satisfied, r.counterexample


@pytest.mark.parametrize("principle", DFQUAD_SATISFIED, ids=lambda p: p.name)
@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(q=debate_qbafs(max_speech=6))
def test_dfquad_satisfies_on_debate_frameworks(principle, q):
    r = principle().check(DFQUAD, q)
    assert r.satisfied, r.counterexample


@pytest.mark.parametrize("principle", [Stability, Directionality, Independence], ids=lambda p: p.name)
@SETTINGS
@given(q=qbafs(max_size=6))
def test_structural_principles_hold_for_the_cyclic_solver_too(principle, q):
    # The SCC solver computes an argument from its ancestors only, so these hold exactly even on
    # cyclic frameworks (whether or not the iteration converged).
    r = principle(acyclic_only=False).check(dfquad_semantics(max_iter=300), q)
    assert r.satisfied, r.counterexample


@SETTINGS
@given(q=qbafs(max_size=6, acyclic=False))
def test_anonymity_on_converged_cyclic_frameworks(q):
    assume(dfquad_strengths(q, method="rk4", tol=1e-12).converged)
    r = Anonymity().check(dfquad_semantics("rk4", tol=1e-12), q)
    assert r.satisfied, r.counterexample


@pytest.mark.parametrize("principle", DFQUAD_VIOLATED, ids=lambda p: p.name)
def test_dfquad_violates_on_the_documented_example(principle):
    q = dfquad_violation_examples()[principle.name]
    assert q.is_acyclic()
    r = principle().check(DFQUAD, q)
    assert r.applicable and not r.satisfied
    ce = r.counterexample
    assert ce is not None and ce.arguments[0] == "x" and "'x'" in str(ce)


def test_violation_examples_by_hand():
    ex = dfquad_violation_examples()
    assert dfquad_strengths(ex["resilience"])["x"] == 0.0  # c(0.5, 1, 0) = 0
    r = Franklin().check(DFQUAD, ex["franklin"])
    ce = r.counterexample
    assert ce.strengths["x"] == 0.25 and ce.modified_strengths["x"] == 0.375
    r = StrictCounting().check(DFQUAD, ex["strict counting"])
    ce = r.counterexample
    assert ce.strengths["x"] == 0.5 and ce.modified_strengths["x"] == 0.5 and "attacker" in ce.description


# ------------------------------------------------------------------ the checks can fail
def ignore_supports(q: QBAF) -> dict[str, float]:
    return dfquad_strengths(QBAF.from_arrays(q.base_scores, q.attack_array, ids=q.ids)).as_dict()


def position_dependent(q: QBAF) -> dict[str, float]:
    s = dfquad_strengths(q).values
    return {a: float(v) * (1 - 0.01 * i / max(q.n, 1)) for i, (a, v) in enumerate(zip(q.ids, s))}


def size_dependent(q: QBAF) -> dict[str, float]:
    return {a: v * q.n / (q.n + 1) for a, v in dfquad_strengths(q).as_dict().items()}


def outdegree_dependent(q: QBAF) -> dict[str, float]:
    optr, _, _ = q.out_csr
    return {a: v * 0.9 ** int(optr[i + 1] - optr[i]) for i, (a, v) in enumerate(dfquad_strengths(q).as_dict().items())}


def counts_attackers(q: QBAF) -> dict[str, float]:
    ptr, _, att = q.in_csr
    return {a: float(q.base_scores[i]) * 0.5 ** int(att[ptr[i] : ptr[i + 1]].sum()) for i, a in enumerate(q.ids)}


def swapped_roles(q: QBAF) -> dict[str, float]:
    return dfquad_strengths(QBAF.from_arrays(q.base_scores, q.support_array, q.attack_array, ids=q.ids)).as_dict()


def base_scores_only(q: QBAF) -> dict[str, float]:
    return dict(zip(q.ids, q.base_scores.tolist()))


CHAIN = QBAF.from_arrays([0.5, 0.4, 0.3, 0.0], attacks=[(1, 0), (3, 0)], supports=[(2, 1)], ids=["x", "a", "s", "z"])
# x and y share τ; x is attacked, y is not: monotonicity demands σ(y) ≥ σ(x) (strictly).
PAIR = QBAF.from_arrays([0.5, 0.5, 0.4], attacks=[(2, 0)], ids=["x", "y", "a"])


@pytest.mark.parametrize(
    "principle, semantics",
    [
        (Balance(), ignore_supports),
        (Balance(), swapped_roles),
        (Monotonicity(), swapped_roles),
        (Monotonicity(), base_scores_only),
        (Anonymity(), position_dependent),
        (Stability(), position_dependent),
        (Independence(), size_dependent),
        (Directionality(), outdegree_dependent),
        (Neutrality(), counts_attackers),
        (StrictCounting(), base_scores_only),
        (Balance(), base_scores_only),
    ],
    ids=lambda v: getattr(v, "name", getattr(v, "__name__", "")),
)
def test_each_check_catches_a_semantics_that_breaks_it(principle, semantics):
    r = principle.check(semantics, PAIR if isinstance(principle, Monotonicity) else CHAIN)
    assert not r.satisfied and r.counterexample is not None and r.cases >= 1
    assert any(f"'{a}'" in r.counterexample.description for a in r.counterexample.arguments)


def test_base_scores_only_semantics_satisfies_resilience_and_franklin():
    # The constant semantics σ = τ is the textbook example of a resilient, Franklin semantics.
    for p in (Resilience(), Franklin()):
        assert p.check(base_scores_only, CHAIN).satisfied


def test_applicability_and_vacuous_cases():
    cyc = QBAF.from_arrays([0.5, 0.5], attacks=[(0, 1), (1, 0)])
    r = Balance().check(DFQUAD, cyc)
    assert not r.applicable and r.satisfied and r.cases == 0
    assert Balance(acyclic_only=False).check(DFQUAD, cyc).applicable
    empty = QBAF.from_arrays([])
    results = check_principles(DFQUAD, empty)
    assert set(results) == {p.name for p in ALL_PRINCIPLES}
    assert all(r.satisfied for r in results.values())
    assert results["stability"].cases == 0 and results["independence"].cases == 2


def test_semantics_must_cover_every_argument():
    with pytest.raises(ValueError, match="'z'"):
        Stability().check(lambda q: {"x": 0.5, "a": 0.4, "s": 0.3}, CHAIN)


def test_principle_objects_describe_themselves():
    for p in ALL_PRINCIPLES:
        assert p.name and p.citation and p.__doc__
        assert repr(p()).startswith(p.__name__)


def test_edit_helpers_preserve_structure():
    q = QBAF.from_arrays([0.5, 0.2, 0.7], attacks=[(1, 0)], supports=[(2, 1)], ids=["p", "a", "b"], is_proposal=[True, False, False], debate=True)
    q2, mapping = relabelled(q, [2, 0, 1])
    assert q2.ids == ("r0", "r1", "r2") and mapping == {"b": "r0", "p": "r1", "a": "r2"}
    assert set(q2.attacks) == {("r2", "r1")} and set(q2.supports) == {("r0", "r2")} and q2.proposals == ("r1",)
    u = disjoint_union(q, q2)
    assert u.n == 6 and ("L:a", "L:p") in u.attacks and ("R:r2", "R:r1") in u.attacks and u.debate
    s = dfquad_strengths(q)
    assert s["p"] == combine_reference(0.5, aggregate_reference([s["a"]]), 0.0)
    np.testing.assert_array_equal(dfquad_strengths(u).values, np.concatenate([s.values, dfquad_strengths(q2).values]))
