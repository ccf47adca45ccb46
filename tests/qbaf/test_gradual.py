"""The family of gradual semantics: numba kernels == plain-Python references written from each
paper, golden values, domains, the batch API, composition and the semantics names."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argfaith.qbaf import QBAF, dfquad_strengths
from argfaith.qbaf.batch import QBAFBatch
from argfaith.qbaf.gradual import gradual_batch, gradual_strengths
from argfaith.qbaf.reference import gradual_reference
from argfaith.qbaf.semantics import (
    NAMED,
    AGGREGATIONS,
    Euler,
    HCategorizer,
    Linear,
    Logistic,
    PMax,
    SemanticsDomainError,
    compose,
    get_semantics,
)
from argfaith.qbaf.strategies import acyclic_qbafs, cyclic_qbafs, qbafs

SETTINGS = settings(deadline=None, max_examples=80, suppress_health_check=[HealthCheck.too_slow])
NAMES = sorted(NAMED)


def _fit(q: QBAF, name: str) -> QBAF | None:
    """``q`` restricted to the semantics' domain (supports dropped for attack-only ones), or
    None when it cannot be (a cycle for a restricted semantics)."""
    sem = NAMED[name]
    if sem.attack_only:
        q = QBAF.from_arrays(q.base_scores, q.attack_array)
    return q if sem.applies_to(q) else None


def _agree(name: str, r, ref) -> None:
    """Kernel and reference agree bit for bit: values and every diagnostic."""
    vals, converged, iterations, residual = ref
    assert np.array_equal(r.values, np.array(vals, dtype=np.float64)), name
    assert (r.converged, r.iterations, r.residual) == (converged, iterations, residual), name


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(q=qbafs(max_size=9), method=st.sampled_from(["sync", "rk4"]), max_iter=st.sampled_from([0, 1, 7, 300]))
def test_kernel_equals_reference(name, q, method, max_iter):
    q = _fit(q, name)
    if q is None:
        return
    r = gradual_strengths(q, name, method=method, max_iter=max_iter)
    _agree(name, r, gradual_reference(q, name, method=method, max_iter=max_iter))
    assert r.semantics == name


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(q=acyclic_qbafs(max_size=10))
def test_acyclic_frameworks_are_one_exact_pass(name, q):
    q = _fit(q, name)
    r = gradual_strengths(q, name)
    assert (r.converged, r.iterations, r.residual, r.cyclic_components) == (True, 0, 0.0, 0)
    _agree(name, r, gradual_reference(q, name))
    assert np.all((r.values >= 0.0) & (r.values <= 1.0))


@pytest.mark.parametrize("name", [n for n in NAMES if not NAMED[n].acyclic_only])
@SETTINGS
@given(q=cyclic_qbafs(max_size=9), tol=st.sampled_from([1e-3, 1e-9, 0.0]))
def test_cyclic_components_iterated_like_the_reference(name, q, tol):
    q = _fit(q, name)
    for method in ("sync", "rk4"):
        r = gradual_strengths(q, name, method=method, max_iter=150, tol=tol)
        _agree(name, r, gradual_reference(q, name, method=method, max_iter=150, tol=tol))


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(q=qbafs(max_size=9), method=st.sampled_from(["sync", "rk4"]))
def test_generic_kernel_on_product_linear1_is_bit_identical_to_dfquad(q, method):
    """DF-QuAD = product × linear(1): the solver's modular instance, forced onto that pair,
    reproduces its DF-QuAD instance bit for bit (what makes DF-QuAD a true member of the family)."""
    from argfaith.qbaf._gradual_kernels import gradual_solve

    iptr, isrc, iatt = q.in_csr
    g = gradual_solve(q.n, q.base_scores, iptr, isrc, iatt, 1, 0, 1.0, 1.0, 0 if method == "sync" else 1, 300, 1e-9, 0.5)
    d = dfquad_strengths(q, method=method, max_iter=300)
    assert np.array_equal(g[0], d.values)
    assert bool(g[5].any()) == (not d.converged)
    r = gradual_strengths(q, "product:linear(1)", method=method, max_iter=300)
    assert np.array_equal(r.values, d.values) and r.semantics == "product:linear(1)"


COMPOSED = [
    compose(a, i)
    for a in AGGREGATIONS
    for i in (Linear(1.0), Linear(2.5), PMax(2.0, 1.0), PMax(1.0, 1.0), PMax(3.0, 0.5), Euler(), Logistic())
]


@pytest.mark.parametrize("sem", COMPOSED, ids=lambda s: s.name)
@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(q=qbafs(max_size=8), method=st.sampled_from(["sync", "rk4"]))
def test_user_compositions_equal_their_modular_definition(sem, q, method):
    r = gradual_strengths(q, sem, method=method, max_iter=200)
    vals, converged, iterations, residual = gradual_reference(q, sem, method=method, max_iter=200)
    assert np.array_equal(r.values, np.array(vals)) and (r.converged, r.iterations, r.residual) == (converged, iterations, residual)


# ------------------------------------------------------------------------------ golden values
def test_named_instances_are_the_papers_modular_pairs():
    assert NAMED["dfquad"].spec == "product:linear(1)"
    assert NAMED["quadratic-energy"].spec == "sum:pmax(2,1)"
    assert NAMED["euler-based"].spec == NAMED["restricted-euler-based"].spec == "sum:euler"
    assert NAMED["mlp-based"].spec == "sum:logistic"
    assert NAMED["weighted-h-categorizer"].spec == "sum:h-categorizer"
    assert all(s.citation and s.title for s in NAMED.values())


def test_h_categorizer_golden_values():
    # Besnard & Hunter's h-categorizer (unit weights) on a chain a -> b -> c: 1, 1/2, 2/3.
    chain = QBAF.from_arrays([1.0, 1.0, 1.0], attacks=[(0, 1), (1, 2)], ids=["a", "b", "c"])
    r = gradual_strengths(chain, "weighted-h-categorizer")
    assert r["a"] == 1.0 and r["b"] == 0.5 and r["c"] == pytest.approx(2 / 3, abs=1e-15)
    # Mutual attack with unit weights: the fixed point x = 1/(1 + x), the golden ratio conjugate.
    cyc = QBAF.from_arrays([1.0, 1.0], attacks=[(0, 1), (1, 0)])
    r = gradual_strengths(cyc, "weighted-h-categorizer", tol=1e-13)
    assert r.converged and r.cyclic_components == 1
    assert r.values == pytest.approx([(math.sqrt(5) - 1) / 2] * 2, abs=1e-12)


def test_quadratic_energy_golden_values():
    # One attacker of strength 1 on w = 0.5: E = -1, h = 1/2, σ = 0.25; a supporter: 0.75.
    q = QBAF.from_arrays([0.5, 1.0, 0.5, 1.0], attacks=[(1, 0)], supports=[(3, 2)])
    assert gradual_strengths(q, "quadratic-energy").values.tolist() == [0.25, 1.0, 0.75, 1.0]
    # Mutual attack, τ = (1, 1): symmetric fixed point x = 1/(1 + x²), the real root of x³ + x − 1.
    root = 0.6823278038280193
    for method in ("sync", "rk4"):
        r = gradual_strengths(QBAF.from_arrays([1.0, 1.0], attacks=[(0, 1), (1, 0)]), "quadratic-energy", method=method, tol=1e-13)
        assert r.converged and r.values == pytest.approx([root, root], abs=1e-11)


def test_euler_based_golden_values_and_its_floor():
    w = 0.5
    q = QBAF.from_arrays([w, 1.0], attacks=[(1, 0)])
    assert gradual_strengths(q, "euler-based")[0] == pytest.approx(1 - (1 - w * w) / (1 + w * math.exp(-1)), abs=1e-15)
    # However many strong attackers: σ stays above w² (the bound criticised by Potyka 2018).
    many = QBAF.from_arrays([w] + [1.0] * 800, attacks=[(i, 0) for i in range(1, 801)])
    s = gradual_strengths(many, "euler-based")[0]
    assert w * w <= s < w * w + 1e-12
    # w = 1 is a fixed point of the Euler influence; w = 0 stays 0 even when e^E overflows.
    big = QBAF.from_arrays([1.0, 0.0] + [1.0] * 800, supports=[(i, 1) for i in range(2, 802)], attacks=[(2, 0)])
    r = gradual_strengths(big, "euler-based")
    assert r[0] == 1.0 and r[1] == 0.0


def test_mlp_based_golden_values():
    q = QBAF.from_arrays([0.5, 1.0, 0.25, 0.0, 1.0], attacks=[(1, 0), (1, 3), (1, 4)], supports=[(1, 2)])
    r = gradual_strengths(q, "mlp-based")
    assert r[0] == pytest.approx(1 / (1 + math.e), abs=1e-15)  # logit(0.5) − 1 = −1
    assert r[2] == pytest.approx(1 / (1 + 3 * math.exp(-1)), abs=1e-15)  # logit(0.25) = −ln 3
    assert (r[3], r[4]) == (0.0, 1.0)  # the limits at w = 0 and w = 1


def test_quad_averages_and_is_discontinuous():
    # Baroni et al. 2015: attackers only → w·∏(1 − v); with a supporter of strength 0 added the
    # result jumps to the mean of that and the support value (the discontinuity DF-QuAD removes).
    only = QBAF.from_arrays([0.5, 1.0], attacks=[(1, 0)])
    both = QBAF.from_arrays([0.5, 1.0, 0.0], attacks=[(1, 0)], supports=[(2, 0)])
    assert gradual_strengths(only, "quad")[0] == 0.0
    assert gradual_strengths(both, "quad")[0] == 0.25
    assert gradual_strengths(both, "dfquad")[0] == 0.0


def test_mutual_attack_is_reported_not_converged_under_sync_for_dfquad_and_quad():
    q = QBAF.from_arrays([1.0, 1.0], attacks=[(0, 1), (1, 0)], ids=["a", "b"])
    for name in ("dfquad", "quad"):
        r = gradual_strengths(q, name, max_iter=50)
        assert not r.converged and r.residual == 1.0 and r.not_converged == ("a", "b")
        r = gradual_strengths(q, name, method="rk4", tol=1e-12)
        assert r.converged and r.values == pytest.approx([0.5, 0.5], abs=1e-9)
    with pytest.raises(Exception, match="QuAD .sync. did not converge"):
        gradual_strengths(q, "quad", max_iter=50, strict=True)


# ------------------------------------------------------------------------------ domains
def test_restricted_euler_refuses_cycles_naming_an_argument():
    q = QBAF.from_arrays([0.5, 0.5, 0.5], attacks=[(0, 1), (1, 0)], supports=[(2, 0)], ids=["x", "y", "z"])
    with pytest.raises(SemanticsDomainError, match=r"acyclic frameworks only .*argument '[xy]' lies on a cycle.*euler-based"):
        gradual_strengths(q, "restricted-euler-based")
    loop = QBAF.from_arrays([0.5], supports=[(0, 0)], ids=["s"])
    with pytest.raises(SemanticsDomainError, match="'s' lies on a cycle"):
        gradual_strengths(loop, "restricted-euler-based")
    assert gradual_strengths(q, "euler-based").converged


def test_h_categorizer_refuses_supports_naming_the_edge():
    q = QBAF.from_arrays([0.5, 0.5, 0.5], attacks=[(1, 0)], supports=[(2, 0)], ids=["x", "a", "s"])
    with pytest.raises(SemanticsDomainError, match=r"attack-only .* \(first: 's' -> 'x'\)"):
        gradual_strengths(q, "weighted-h-categorizer")


# ------------------------------------------------------------------------------ batch
def _batch_of(qs):
    return QBAFBatch.from_qbafs(qs)


@pytest.mark.parametrize("name", NAMES)
@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(qs=st.lists(qbafs(max_size=6), min_size=1, max_size=6), method=st.sampled_from(["sync", "rk4"]))
def test_batch_equals_one_call_per_framework(name, qs, method):
    qs = [_fit(q, name) for q in qs]
    qs = [q for q in qs if q is not None]
    if not qs:
        return
    r = gradual_batch(_batch_of(qs), name, method=method, max_iter=200)
    assert r.semantics == name
    for f, q in enumerate(qs):
        one = gradual_strengths(q, name, method=method, max_iter=200)
        assert np.array_equal(r.strengths(f), one.values)
        assert (bool(r.converged[f]), int(r.iterations[f]), float(r.residual[f])) == (one.converged, one.iterations, one.residual)
        assert r.result(f).semantics == name


def test_batch_domain_errors_name_the_framework():
    ok = QBAF.from_arrays([0.5, 0.5], attacks=[(0, 1)])
    cyc = QBAF.from_arrays([0.5, 0.5], attacks=[(0, 1), (1, 0)])
    sup = QBAF.from_arrays([0.5, 0.5], supports=[(0, 1)])
    with pytest.raises(SemanticsDomainError, match="framework 1 of the batch has a cycle"):
        gradual_batch(_batch_of([ok, cyc]), "restricted-euler-based")
    with pytest.raises(SemanticsDomainError, match="framework 2 of the batch has supports"):
        gradual_batch(_batch_of([ok, ok, sup]), "weighted-h-categorizer")


# ------------------------------------------------------------------------------ names
def test_get_semantics_names_specs_and_errors():
    assert get_semantics("Quadratic_Energy") is NAMED["quadratic-energy"]
    assert get_semantics(NAMED["quad"]) is NAMED["quad"]
    s = get_semantics("top:euler")
    assert (s.aggregation.name, s.influence, s.name) == ("top", Euler(), "top:euler")
    assert get_semantics("sum:pmax(3, 0.5)").influence == PMax(3.0, 0.5)
    assert get_semantics("product:linear(2)").influence == Linear(2.0)
    assert get_semantics("sum:h-categorizer").attack_only
    with pytest.raises(ValueError, match="unknown semantics 'dfqad'; use one of dfquad, quad"):
        get_semantics("dfqad")
    with pytest.raises(ValueError, match="unknown influence 'cosine'"):
        get_semantics("sum:cosine")
    with pytest.raises(ValueError, match="conservativeness k must be a finite number > 0"):
        get_semantics("sum:linear(0)")
    with pytest.raises(ValueError, match="product aggregation only"):
        compose("sum", get_semantics("quad").influence)
    assert HCategorizer()(0.5, -1.0) == 0.25


def test_semantics_objects_go_to_the_principles_and_become_callables():
    from argfaith.qbaf.gradual import strength_function
    from argfaith.qbaf.principles import Stability

    q = QBAF.from_arrays([0.5, 1.0], attacks=[(1, 0)], ids=["x", "a"])
    f = strength_function("quadratic-energy")
    assert f(q) == {"x": 0.25, "a": 1.0} and f.__name__ == "quadratic_energy_strengths"
    assert strength_function(NAMED["dfquad"])(q) == {"x": 0.0, "a": 1.0}
    # The principle checks take the semantics object itself (and agree with the callable).
    assert Stability().check(NAMED["quadratic-energy"], q) == Stability().check(f, q)


def test_results_addressable_by_position_and_id():
    q = QBAF.from_arrays([0.5, 1.0], attacks=[(1, 0)], ids=["x", "a"])
    r = gradual_strengths(q, "quadratic-energy")
    assert r[0] == r["x"] == r[-2] == 0.25 and r[np.int64(1)] == r["a"] == 1.0
    assert r.index("a") == 1
    with pytest.raises(IndexError, match="position 2 out of range for 2 arguments"):
        r[2]


def test_every_solver_instance_compiles_under_names_of_its_own():
    """The solver's instances are closures of one factory; numba names their compiled symbols
    after the qualified name (and a per-process counter), so two instances sharing names could,
    once cached by different processes, be loaded into one process under one symbol and run each
    other's rule (it happened: top and product computing sum's update). Every function of every
    instance must carry a name no other instance uses."""
    from numba.core.registry import CPUDispatcher

    from argfaith.qbaf import _gradual_kernels as K

    def functions(dispatcher, seen):
        if id(dispatcher) in seen:
            return
        seen[id(dispatcher)] = dispatcher.py_func.__qualname__
        for cell in dispatcher.py_func.__closure__ or ():
            if isinstance(cell.cell_contents, CPUDispatcher) and "_solver." in cell.cell_contents.py_func.__qualname__:
                functions(cell.cell_contents, seen)

    names = {}
    for name in ("dfquad", "sum", "product", "top", "quad"):
        seen = {}
        functions(getattr(K, f"_{name.upper()}"), seen)
        assert len(seen) == 5 and all(q.startswith(f"_{name}_solver.") for q in seen.values()), seen
        names[name] = set(seen.values())
    assert sum(len(v) for v in names.values()) == len(set().union(*names.values()))
