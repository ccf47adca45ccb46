"""Pro/con sets and relevance: numba multi-target search == plain-Python reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argfaith.qbaf import QBAF, UnknownArgumentError, con_arguments, pro_arguments, pro_con, pro_con_sets, relevant_arguments
from argfaith.qbaf.paths import pro_con_index, relevance_mask
from argfaith.qbaf.reference import pro_con_reference, pro_con_sets_reference
from argfaith.qbaf.strategies import debate_qbafs, qbafs

SETTINGS = settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])


def walks_bruteforce(q: QBAF, target: str, max_len: int) -> tuple[set[str], set[str]]:
    """Definition-level oracle: enumerate every walk of length <= max_len ending at target."""
    edges = [(s, t, 1) for s, t in q.attacks] + [(s, t, 0) for s, t in q.supports]
    pro, con = set(), set()
    frontier = {(target, 0)}  # (walk start, parity of attacks on the walk so far)
    for _ in range(max_len):
        nxt = {(s, p ^ a) for (x, p) in frontier for s, t, a in edges if t == x}
        for s, p in nxt:
            (con if p else pro).add(s)
        frontier = nxt
    return pro, con


@SETTINGS
@given(qbafs(max_size=9))
def test_all_targets_match_reference(q):
    index = pro_con_index(q, q.ids)
    shared = pro_con_sets_reference(q, q.ids)
    for k, x in enumerate(q.ids):
        pro, con = pro_con_reference(q, x)
        assert shared[x] == (pro, con)
        got = index.procon(x)
        assert (got.pro, got.con) == (pro, con)
        assert index.pro(k).tolist() == sorted(q.idx(a) for a in pro)  # ascending indices


@settings(deadline=None, max_examples=60)
@given(qbafs(max_size=5, max_edges=7))
def test_reference_matches_walk_enumeration(q):
    # Walks longer than 2n add no new (start, parity) state, so 2n + 1 steps are exhaustive.
    for x in q.ids:
        assert pro_con_reference(q, x) == tuple(map(frozenset, walks_bruteforce(q, x, 2 * q.n + 1)))


@SETTINGS
@given(debate_qbafs(max_proposals=4, max_speech=10, acyclic=None))
def test_relevance_is_membership_in_some_pro_or_con_set(q):
    expected = set()
    for p in q.proposals:
        pro, con = pro_con_reference(q, p)
        expected |= (pro | con) - set(q.proposals)
    assert relevant_arguments(q) == expected
    assert relevance_mask(q).tolist() == [a in expected for a in q.ids]


def test_many_targets_span_several_words():
    # A chain of 150 arguments alternating attack/support: 150 targets need 3 kernel words.
    n = 150
    att = [(i + 1, i) for i in range(0, n - 1, 2)]
    sup = [(i + 1, i) for i in range(1, n - 1, 2)]
    q = QBAF.from_arrays([0.5] * n, att, sup)
    index = pro_con_index(q, q.ids)
    for x in ("a0", "a63", "a64", "a65", "a128", "a149"):
        pro, con = pro_con_reference(q, x)
        assert (index.procon(x).pro, index.procon(x).con) == (pro, con)
    assert len(index.pro("a149")) == 0 and len(index.con("a149")) == 0


def test_parity_through_a_cycle_puts_an_argument_in_both_sets():
    # b attacks a, a supports b, b supports x: b reaches x with parity 0 (b→x) and, via the
    # cycle b→a→b, with parity 1 (b→a→b→x has one attack).
    q = QBAF.from_arrays([0.5] * 3, attacks=[(1, 0)], supports=[(0, 1), (1, 2)], ids=["a", "b", "x"])
    pc = pro_con(q, "x")
    assert pc.pro == {"a", "b"} and pc.con == {"a", "b"}
    assert pro_arguments(q, "x") == pc.pro and con_arguments(q, "x") == pc.con
    # a→b→a has one attack (a ∈ con(a)); going round twice has two (a ∈ pro(a)).
    assert pro_con(q, "a") == pro_con(q, "a").__class__("a", frozenset({"a", "b"}), frozenset({"a", "b"}))
    q2 = QBAF.from_arrays([0.5] * 2, attacks=[(1, 0)], ids=["a", "b"])
    assert pro_con(q2, "a").con == {"b"} and pro_con(q2, "a").pro == frozenset()


def test_speech_counts_give_the_pro_con_ratio_ingredients():
    q = QBAF.from_arguments(
        [{"id": "p1", "kind": "proposal"}, {"id": "p2", "kind": "proposal"}] + [{"id": f"s{i}"} for i in range(1, 6)],
        attacks=[("s1", "p1"), ("s2", "p1"), ("s4", "s1"), ("s4", "s3")],
        supports=[("s3", "s1"), ("s5", "p2")],
        debate=True,
    )
    index = pro_con_index(q)
    n_pro, n_con, n_any = index.speech_counts()
    assert index.targets == ("p1", "p2")
    # p1: pro {s4} (s4→s1→p1 and s4→s3→s1→p1 both have two attacks); con {s1, s2, s3}
    assert n_pro.tolist() == [1, 1] and n_con.tolist() == [3, 0] and n_any.tolist() == [4, 1]
    q2 = QBAF.from_arguments(
        [{"id": "p", "kind": "proposal"}, {"id": "s1"}, {"id": "s2"}, {"id": "s3"}],
        attacks=[("s1", "p"), ("s3", "s2")],
        supports=[("s2", "p"), ("s3", "s1")],
        debate=True,
    )
    # s3 reaches p by s3→s1→p (one attack) and s3→s2→p (one attack): con only; pro {s2}
    assert [c.tolist() for c in pro_con_index(q2).speech_counts()] == [[1], [2], [3]]
    q3 = QBAF.from_arguments(
        [{"id": "p", "kind": "proposal"}, {"id": "s1"}, {"id": "s2"}, {"id": "s3"}],
        attacks=[("s1", "p")],
        supports=[("s2", "p"), ("s3", "s1"), ("s3", "s2")],
        debate=True,
    )
    # s3 is in both pro(p) (via s2) and con(p) (via s1): counted once in the union
    assert [c.tolist() for c in pro_con_index(q3).speech_counts()] == [[2], [2], [3]]


def test_defaults_empty_and_errors():
    q = QBAF.from_arrays([])
    assert pro_con_sets(q) == {} and relevant_arguments(q) == frozenset() and len(pro_con_index(q)) == 0
    assert pro_con_index(q).speech_counts()[0].shape == (0,)
    q = QBAF.from_arrays([0.5, 0.2], attacks=[(1, 0)], ids=["p", "s"], is_proposal=[True, False], debate=True)
    assert set(pro_con_sets(q)) == {"p"}
    with pytest.raises(UnknownArgumentError, match="'zz'"):
        pro_con(q, "zz")
    with pytest.raises(KeyError, match="'s'"):
        pro_con_index(q).pro("s")


@pytest.mark.parametrize("acyclic", [True, False])
def test_larger_random_graph_against_reference(acyclic):
    rng = np.random.default_rng(11)
    n, m = 2000, 6000
    e = rng.integers(0, n, size=(2 * m, 2))
    if acyclic:
        e = e[e[:, 0] > e[:, 1]]
    e = np.unique(e, axis=0)[:m]
    is_att = rng.random(len(e)) < 0.4
    q = QBAF.from_arrays(rng.random(n), e[is_att], e[~is_att])
    targets = [f"a{i}" for i in rng.choice(n, 70, replace=False)]
    index = pro_con_index(q, targets)
    for x in targets[::7]:
        assert (index.procon(x).pro, index.procon(x).con) == pro_con_reference(q, x)


@SETTINGS
@given(st.data())
def test_targets_order_and_duplicates_do_not_matter(data):
    q = data.draw(qbafs(min_size=1, max_size=8))
    ts = data.draw(st.lists(st.sampled_from(q.ids), min_size=1, max_size=10))
    index = pro_con_index(q, ts)
    for k, t in enumerate(ts):
        assert index.procon(k) == pro_con(q, t)
