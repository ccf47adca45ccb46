"""DF-QuAD engine: numba kernel == plain-Python reference, solver diagnostics, known cases."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argfaith.qbaf import QBAF, NotConvergedError, UnknownArgumentError, dfquad_strengths
from argfaith.qbaf.graph import strongly_connected_components, topological_order
from argfaith.qbaf.reference import aggregate_reference, combine_reference, dfquad_reference
from argfaith.qbaf.strategies import acyclic_qbafs, cyclic_qbafs, debate_qbafs, qbafs

# The first example of a fresh process may load compiled kernels from the numba cache.
SETTINGS = settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])


def f_reference(q: QBAF, sigma: np.ndarray) -> np.ndarray:
    """One synchronous application of the DF-QuAD update f to every argument (plain Python)."""
    att = [[] for _ in range(q.n)]
    sup = [[] for _ in range(q.n)]
    for s, t in q.attack_array.tolist():
        att[t].append(s)
    for s, t in q.support_array.tolist():
        sup[t].append(s)
    tau = q.base_scores.tolist()
    sig = sigma.tolist()
    return np.array(
        [
            combine_reference(tau[v], aggregate_reference([sig[u] for u in att[v]]), aggregate_reference([sig[u] for u in sup[v]]))
            for v in range(q.n)
        ],
        dtype=np.float64,
    )


@SETTINGS
@given(qbafs(max_size=9), st.sampled_from(["sync", "rk4"]), st.sampled_from([0, 1, 7, 300]))
def test_kernel_equals_reference_bit_for_bit(q, method, max_iter):
    r = dfquad_strengths(q, method=method, max_iter=max_iter)
    vals, converged, iterations, residual = dfquad_reference(q, method=method, max_iter=max_iter)
    assert np.array_equal(r.values, np.array(vals, dtype=np.float64))
    assert (r.converged, r.iterations, r.residual) == (converged, iterations, residual)


@SETTINGS
@given(cyclic_qbafs(max_size=9), st.sampled_from([1e-3, 1e-9, 0.0]))
def test_kernel_equals_reference_on_cyclic_graphs_with_tolerances(q, tol):
    for method in ("sync", "rk4"):
        r = dfquad_strengths(q, method=method, max_iter=200, tol=tol)
        vals, converged, iterations, residual = dfquad_reference(q, method=method, max_iter=200, tol=tol)
        assert np.array_equal(r.values, np.array(vals))
        assert (r.converged, r.iterations, r.residual) == (converged, iterations, residual)
        assert r.cyclic_components >= 1


@SETTINGS
@given(debate_qbafs(max_speech=10), st.booleans())
def test_index_ordered_dags_match_reference(q, reverse):
    """Source QBAFs are numbered in debate order (edges point to earlier arguments), which takes
    the sequential one-pass path; the mirrored numbering takes it in the other direction."""
    if reverse:
        n = q.n
        q = QBAF.from_arrays(q.base_scores[::-1], n - 1 - q.attack_array, n - 1 - q.support_array)
    r = dfquad_strengths(q)
    vals, converged, iterations, residual = dfquad_reference(q)
    assert np.array_equal(r.values, np.array(vals)) and (r.converged, r.iterations, r.residual) == (True, 0, 0.0)


@SETTINGS
@given(acyclic_qbafs(max_size=10), st.sampled_from(["sync", "rk4"]))
def test_one_pass_equals_limit_of_iteration_on_dags(q, method):
    """On a DAG, global synchronous iteration from τ is stationary after depth + 1 sweeps; the
    one-pass result must be that limit, and no iteration must be reported."""
    r = dfquad_strengths(q, method=method)
    assert (r.converged, r.iterations, r.residual, r.cyclic_components) == (True, 0, 0.0, 0)
    sigma = q.base_scores.copy()
    for _ in range(q.n + 1):
        sigma = f_reference(q, sigma)
    assert np.array_equal(f_reference(q, sigma), sigma)  # really the limit
    np.testing.assert_allclose(r.values, sigma, rtol=0, atol=1e-15)


@SETTINGS
@given(qbafs(max_size=9), st.sampled_from(["sync", "rk4"]), st.sampled_from([3, 50, 2000]))
def test_strengths_in_unit_interval_and_residual_is_honest(q, method, max_iter):
    tol = 1e-9
    r = dfquad_strengths(q, method=method, max_iter=max_iter, tol=tol)
    assert ((r.values >= 0.0) & (r.values <= 1.0)).all()
    # The reported residual is ‖f(σ) − σ‖∞ of the returned σ, recomputed independently over
    # every argument (acyclic parts are exact, so they contribute exactly 0).
    assert np.max(np.abs(f_reference(q, r.values) - r.values), initial=0.0) == r.residual
    if r.converged:
        assert r.residual <= tol and r.not_converged == ()
    else:
        assert r.residual > tol and r.iterations == max_iter and r.not_converged
        assert set(r.not_converged) <= set(q.ids)


def test_mutual_attack_oscillates_under_sync_and_settles_under_rk4():
    q = QBAF.from_arrays([1.0, 1.0], attacks=[(0, 1), (1, 0)], ids=["a", "b"])
    sync = dfquad_strengths(q, max_iter=101)
    assert not sync.converged
    assert sync.iterations == 101 and sync.residual == 1.0 and sync.not_converged == ("a", "b")
    assert sync.values.tolist() in ([0.0, 0.0], [1.0, 1.0])
    rk4 = dfquad_strengths(q, method="rk4")
    assert rk4.converged and rk4.residual <= 1e-9 and rk4.iterations > 0
    np.testing.assert_allclose(rk4.values, [0.5, 0.5], atol=1e-9)


def test_strict_mode_raises_naming_the_arguments():
    q = QBAF.from_arrays([1.0, 1.0, 0.3], attacks=[(0, 1), (1, 0)], supports=[(2, 2)], ids=["a", "b", "c"])
    with pytest.raises(NotConvergedError, match=r"'a'.*residual 1 > tol"):
        dfquad_strengths(q, strict=True, max_iter=50)
    assert dfquad_strengths(q, strict=True, method="rk4").converged  # no raise when it converges


def test_self_attack_converges_to_its_fixed_point():
    # σ = τ − τ·σ with τ = 0.5 → σ = 1/3; Jacobi contracts by 1/2 per sweep.
    q = QBAF.from_arrays([0.5], attacks=[(0, 0)])
    r = dfquad_strengths(q, tol=1e-12)
    assert r.converged and r.cyclic_components == 1 and 30 < r.iterations < 50
    assert r.values[0] == pytest.approx(1 / 3, abs=1e-12)


def test_components_downstream_of_a_cycle_are_exact():
    # a ↔ b (support cycle), b attacks c, c supports d: c and d are computed from the final σ(b).
    q = QBAF.from_arrays([0.4, 0.6, 0.5, 0.2], attacks=[(1, 2)], supports=[(0, 1), (1, 0), (2, 3)])
    r = dfquad_strengths(q, tol=1e-13)
    assert r.cyclic_components == 1
    assert r.values[1] == pytest.approx(1.0, abs=1e-12)  # mutual support saturates
    sb, sc = float(r.values[1]), float(r.values[2])
    assert sc == combine_reference(0.5, aggregate_reference([sb]), 0.0)
    assert r.values[3] == combine_reference(0.2, 0.0, aggregate_reference([sc]))


def test_hand_computed_aggregation():
    # p (τ .5) attacked by a (.2), b (.4), supported by s (.7): F_att = 1 − .8·.6 = .52 < .7
    q = QBAF.from_arrays([0.5, 0.2, 0.4, 0.7], attacks=[(1, 0), (2, 0)], supports=[(3, 0)], ids=["p", "a", "b", "s"])
    assert dfquad_strengths(q)["p"] == pytest.approx(0.5 + 0.5 * (0.7 - 0.52), abs=1e-15)


def test_empty_framework():
    r = dfquad_strengths(QBAF.from_arrays([]))
    assert len(r) == 0 and r.converged and r.iterations == 0 and r.residual == 0.0 and r.as_dict() == {}
    assert dfquad_reference(QBAF.from_arrays([])) == ([], True, 0, 0.0)


def test_result_api():
    q = QBAF.from_arrays([0.5, 0.2], attacks=[(1, 0)], ids=["p", "s"])
    r = dfquad_strengths(q)
    assert r.ids == ("p", "s") and r.as_dict() == {"p": 0.4, "s": 0.2} and r["s"] == 0.2
    with pytest.raises(UnknownArgumentError, match="'nope'"):
        r["nope"]
    with pytest.raises(ValueError):
        r.values[0] = 1.0  # read-only
    default = dfquad_strengths(QBAF.from_arrays([0.3, 0.3]))
    assert default.ids == ("a0", "a1") and default["a1"] == 0.3


@pytest.mark.parametrize(
    "kw, msg",
    [
        ({"method": "euler"}, "unknown DF-QuAD method 'euler'"),
        ({"max_iter": -1}, "max_iter"),
        ({"tol": float("nan")}, "tol"),
        ({"tol": -1.0}, "tol"),
        ({"step": 0.0}, "step"),
    ],
)
def test_bad_options_are_rejected(kw, msg):
    with pytest.raises(ValueError, match=msg):
        dfquad_strengths(QBAF.from_arrays([0.5]), **kw)


def test_larger_random_graphs_match_reference():
    rng = np.random.default_rng(7)
    for n, acyclic, shuffle in ((3000, True, True), (3000, True, False), (3000, False, True), (400, False, True)):
        m = 3 * n
        e = rng.integers(0, n, size=(4 * m, 2))
        if acyclic:
            e = e[e[:, 0] > e[:, 1]]
            if shuffle:
                e = rng.permutation(n)[e]  # random labels: the depth-first path
        e = np.unique(e, axis=0)[:m]
        rng.shuffle(e)
        is_att = rng.random(len(e)) < 0.5
        q = QBAF.from_arrays(rng.random(n), e[is_att], e[~is_att])
        for method in ("sync", "rk4"):
            r = dfquad_strengths(q, method=method, max_iter=300)
            vals, conv, it, res = dfquad_reference(q, method=method, max_iter=300)
            assert np.array_equal(r.values, np.array(vals))
            assert (r.converged, r.iterations, r.residual) == (conv, it, res)
            assert (r.cyclic_components == 0) == acyclic


@pytest.mark.parametrize("method", ["sync", "rk4"])
@pytest.mark.parametrize("tau_cycle", [1.0, 0.7])
def test_large_component_path_matches_reference(method, tau_cycle):
    """Components of >= 256 arguments are iterated on a compact copy; it must be bit-identical,
    including external predecessors, downstream arguments and non-convergence."""
    n_cyc = 300
    att = [(i, (i + 1) % n_cyc) for i in range(n_cyc)]  # an even attack cycle: oscillates under sync at τ = 1
    sup = [(n_cyc, 0), (n_cyc, 150), (299, n_cyc + 1), (n_cyc + 1, n_cyc + 2)]  # in from outside, out downstream
    att += [(n_cyc + 3, 7)]
    q = QBAF.from_arrays([tau_cycle] * n_cyc + [0.4, 0.5, 0.6, 0.9], att, sup)
    r = dfquad_strengths(q, method=method, max_iter=400)
    vals, conv, it, res = dfquad_reference(q, method=method, max_iter=400)
    assert np.array_equal(r.values, np.array(vals)) and (r.converged, r.iterations, r.residual) == (conv, it, res)
    assert r.cyclic_components == 1
    if not r.converged:
        assert len(r.not_converged) == n_cyc


# ------------------------------------------------------------------------------ graph helpers
@SETTINGS
@given(qbafs(max_size=9))
def test_graph_helpers_agree_with_networkx(q):
    g = nx.DiGraph()
    g.add_nodes_from(range(q.n))
    g.add_edges_from(map(tuple, q.attack_array.tolist()))
    g.add_edges_from(map(tuple, q.support_array.tolist()))
    order = topological_order(q)
    assert (order is not None) == nx.is_directed_acyclic_graph(g) == q.is_acyclic()
    if order is not None:
        pos = {v: i for i, v in enumerate(order.tolist())}
        assert sorted(pos) == list(range(q.n))
        assert all(pos[s] < pos[t] for s, t in g.edges)
    comps = strongly_connected_components(q)
    assert sorted(map(tuple, (c.tolist() for c in comps))) == sorted(tuple(sorted(c)) for c in nx.strongly_connected_components(g))
    where = {v: i for i, c in enumerate(comps) for v in c.tolist()}
    assert all(where[s] <= where[t] for s, t in g.edges)  # topological order of the condensation
    assert all(math.isfinite(v) for v in dfquad_strengths(q).values)
