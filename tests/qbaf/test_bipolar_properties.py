"""Differential property tests: the fast bipolar engine == the brute-force definitions of
PAPER.md §4 on every framework of up to 8 arguments that hypothesis draws (acyclic, cyclic and
debate-shaped), plus the numba kernels against plain Python / networkx."""

from __future__ import annotations

from itertools import combinations

import networkx as nx
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argfaith.qbaf import QBAF
from argfaith.qbaf._bipolar_kernels import scc_labels, transpose_csr
from argfaith.qbaf._kernels import reach_backward
from argfaith.qbaf.bipolar import (
    credulous_acceptance,
    d_preferred_extensions,
    defends,
    grounded_extension,
    is_conflict_free,
    is_d_admissible,
    set_attacks,
)
from argfaith.qbaf.reference import (
    admissible_sets_reference,
    credulous_reference,
    credulous_sat_reference,
    d_preferred_reference,
    grounded_reference,
    set_attacks_reference,
)
from argfaith.qbaf.strategies import cyclic_qbafs, debate_qbafs, qbafs

SMALL = st.one_of(
    qbafs(max_size=8),
    cyclic_qbafs(max_size=8),
    debate_qbafs(max_proposals=3, max_speech=5, acyclic=True),
    debate_qbafs(max_proposals=2, max_speech=6, acyclic=False),
)
settings.register_profile("bipolar", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
PROFILE = settings.get_profile("bipolar")


@PROFILE
@given(SMALL)
def test_set_attack_relation_equals_brute_force(q: QBAF):
    ref = set_attacks_reference(q)
    rows = []
    for algorithm in ("bitset", "search", "auto"):
        sa = set_attacks(q, algorithm=algorithm)
        assert sa == ref
        assert len(sa) == len(ref)  # rows carry no duplicates
        assert set(sa.self_attacking) == {a for a, b in ref if a == b}
        tptr, tidx = sa.target_csr
        out = {(q.ids[x], q.ids[int(y)]) for x in range(q.n) for y in tidx[tptr[x] : tptr[x + 1]]}
        assert out == ref
        for y in range(q.n):  # rows sorted
            row = sa.attacker_idx[sa.attacker_ptr[y] : sa.attacker_ptr[y + 1]]
            assert (np.diff(row) > 0).all()
        rows.append(sa.index_pairs().tolist())
    assert rows[0] == rows[1] == rows[2]  # identical arrays, not just equal sets


@PROFILE
@given(SMALL)
def test_grounded_extension_equals_fixed_point(q: QBAF):
    g = grounded_extension(q)
    assert g == grounded_reference(q)
    assert is_d_admissible(q, g)


@PROFILE
@given(SMALL, st.data())
def test_admissibility_checks_equal_brute_force(q: QBAF, data):
    rel = set_attacks_reference(q)
    adm = set(admissible_sets_reference(q))
    sa = set_attacks(q)
    subsets = [frozenset(c) for k in range(q.n + 1) for c in combinations(q.ids, k)]
    for s in data.draw(st.lists(st.sampled_from(subsets), max_size=12)) if subsets else []:
        assert is_d_admissible(sa, s) == (s in adm)
        assert is_conflict_free(sa, s) == (not any((a, b) in rel for a in s for b in s))
        for y in q.ids:
            expected = all(any((d, z) in rel for d in s) for z, yy in rel if yy == y)
            assert defends(sa, s, y) == expected


@PROFILE
@given(SMALL)
def test_credulous_acceptance_equals_brute_force(q: QBAF):
    expected = credulous_reference(q)
    sa = set_attacks(q)
    for method in ("sat", "search"):
        for shortcuts in (True, False):
            r = credulous_acceptance(sa, q.ids, method=method, shortcuts=shortcuts)
            assert r.accepted == expected, (method, shortcuts)
            for a, d in r.decisions.items():
                assert d.accepted == (a in expected)
                if d.accepted:  # the certificate is an admissible set containing a
                    assert d.witness is not None and a in d.witness and is_d_admissible(sa, d.witness)
                else:
                    assert d.witness is None


@PROFILE
@given(SMALL)
def test_d_preferred_extensions_equal_brute_force(q: QBAF):
    assert d_preferred_extensions(q) == d_preferred_reference(q)


@settings(max_examples=40, deadline=None)
@given(debate_qbafs(max_proposals=3, max_speech=5))
def test_default_queries_are_the_proposals(q: QBAF):
    r = credulous_acceptance(q)
    assert r.queried == q.proposals
    assert r.accepted == credulous_reference(q) & frozenset(q.proposals)


def _random_framework(seed: int, n: int, p_attack: float, edges_per_arg: float) -> QBAF:
    rng = np.random.default_rng(seed)
    m = int(edges_per_arg * n)
    src, tgt = rng.integers(0, n, m), rng.integers(0, n, m)
    e = sorted({(int(s), int(t)) for s, t in zip(src, tgt)})
    is_att = rng.random(len(e)) < p_attack
    return QBAF.from_arrays(
        [0.2] * n, [x for x, a in zip(e, is_att) if a], [x for x, a in zip(e, is_att) if not a]
    )


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(9, 40), st.sampled_from([0.2, 0.4, 0.6]), st.sampled_from([1.0, 1.5, 2.5]))
def test_medium_frameworks_against_naive_sat(seed, n, p_attack, density):
    """Beyond brute force: the linear encoding and the search against the textbook encoding
    over the explicit relation (reference.credulous_sat_reference)."""
    q = _random_framework(seed, n, p_attack, density)
    ref = set_attacks_reference(q)
    assert set_attacks(q, algorithm="bitset") == ref and set_attacks(q, algorithm="search") == ref
    expected = credulous_sat_reference(q, q.ids)
    sa = set_attacks(q)
    assert credulous_acceptance(sa, q.ids, method="sat").accepted == expected
    assert credulous_acceptance(sa, q.ids, method="sat", shortcuts=False).accepted == expected
    assert credulous_acceptance(sa, q.ids, method="search").accepted == expected


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(60, 300), st.sampled_from([0.1, 0.3, 0.7]), st.sampled_from([1.0, 3.0]))
def test_multi_word_bitsets(seed, n, p_attack, density):
    """n > 64: rows of R span several 64-bit words (bit positions, word boundaries)."""
    q = _random_framework(seed, n, p_attack, density)
    ref = set_attacks_reference(q)
    b, s = set_attacks(q, algorithm="bitset"), set_attacks(q, algorithm="search")
    assert b == ref
    assert np.array_equal(b.attacker_ptr, s.attacker_ptr) and np.array_equal(b.attacker_idx, s.attacker_idx)
    assert np.array_equal(b.self_attacking_mask, s.self_attacking_mask)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 30), st.integers(0, 80))
def test_kernels_against_python(seed, n, m):
    rng = np.random.default_rng(seed)
    edges = np.stack([rng.integers(0, max(n, 1), m), rng.integers(0, max(n, 1), m)], 1) if n else np.zeros((0, 2), int)
    edges = np.unique(edges, axis=0) if len(edges) else edges
    # CSR by source
    order = np.argsort(edges[:, 0], kind="stable") if len(edges) else np.zeros(0, int)
    ptr = np.zeros(n + 1, dtype=np.int64)
    if len(edges):
        np.cumsum(np.bincount(edges[:, 0], minlength=n), out=ptr[1:])
    dst = np.ascontiguousarray(edges[order, 1], dtype=np.int64) if len(edges) else np.zeros(0, np.int64)
    # transpose
    tptr, tidx = transpose_csr(n, ptr, dst)
    back = {(int(tidx[j]), v) for v in range(n) for j in range(tptr[v], tptr[v + 1])}
    assert back == {(int(s), int(t)) for s, t in edges}
    # SCCs against networkx, on a random mask
    g = nx.DiGraph()
    mask = rng.random(n) < 0.8
    g.add_nodes_from(np.flatnonzero(mask).tolist())
    g.add_edges_from((int(s), int(t)) for s, t in edges if mask[s] and mask[t])
    comp, nc = scc_labels(n, ptr, dst, mask)
    assert nc == nx.number_strongly_connected_components(g)
    ours = {frozenset(np.flatnonzero(comp == c).tolist()) for c in range(nc)}
    assert ours == {frozenset(c) for c in nx.strongly_connected_components(g)}
    assert (comp[~mask] == -1).all()
    # reverse-topological numbering: an edge between components goes to a smaller number
    for s, t in g.edges:
        assert comp[s] >= comp[t]
    # backward reachability (rows of the transposed CSR are predecessors)
    if n:
        seeds = rng.integers(0, n, 2)
        seen = reach_backward(n, tptr, tidx, seeds.astype(np.int64))
        h = nx.DiGraph()
        h.add_nodes_from(range(n))
        h.add_edges_from((int(s), int(t)) for s, t in edges)
        expected = set(seeds.tolist())
        for s0 in seeds.tolist():
            expected |= nx.ancestors(h, s0)
        assert set(np.flatnonzero(seen).tolist()) == expected


@PROFILE
@given(SMALL)
def test_forcing_half_of_the_encoding_is_redundant(q: QBAF):
    """The module docstring claims only the justification half of the completions is needed;
    both variants must decide every argument like brute force, with and without units."""
    from argfaith.qbaf.bipolar import _AdmissibleEncoding, _new_solver

    expected = credulous_reference(q)
    sa = set_attacks(q)
    mask = np.ones(q.n, dtype=np.bool_)
    for forcing in (True, False):
        for units in (True, False):
            enc = _AdmissibleEncoding(sa, mask, units=units, forcing=forcing)
            s = _new_solver("minisat22", enc.clauses)
            try:
                got = {a for i, a in enumerate(q.ids) if s.solve(assumptions=[i + 1])}
            finally:
                s.delete()
            assert got == expected, (forcing, units)
