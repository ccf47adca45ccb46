"""pro/con under the simple-path reading (argfaith.qbaf.simple_paths) against brute force."""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import given, settings

from argfaith.qbaf import QBAF, pro_con
from argfaith.qbaf.simple_paths import simple_pro_con, simple_pro_con_brute_force, simple_pro_con_sets


@st.composite
def small_qbafs(draw):  # type: ignore[no-untyped-def]
    n = draw(st.integers(2, 7))
    pairs = [(u, v) for u in range(1, n) for v in range(n) if u != v]  # nothing leaves argument 0
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=14)) if pairs else []
    kinds = draw(st.lists(st.booleans(), min_size=len(chosen), max_size=len(chosen)))
    att = [e for e, k in zip(chosen, kinds) if k]
    sup = [e for e, k in zip(chosen, kinds) if not k]
    return QBAF.from_arrays([0.5] + [0.2] * (n - 1), attacks=att, supports=sup, ids=[f"a{i}" for i in range(n)])


@settings(max_examples=300, deadline=None)
@given(small_qbafs())
def test_simple_paths_match_brute_force(q: QBAF) -> None:
    r = simple_pro_con(q, "a0")
    assert r.complete
    assert (r.pro, r.con) == simple_pro_con_brute_force(q, "a0")
    w = pro_con(q, "a0")
    assert r.pro <= w.pro and r.con <= w.con  # simple paths are walks


def test_odd_attack_cycle_walks_vs_simple() -> None:
    # a attacks b, b supports a (a cycle with ONE attack), a supports p, s supports a:
    # walks a -> b -> a -> p make s and a both pro and con; simple paths do not
    q = QBAF.from_arrays([0.5, 0.2, 0.2, 0.2], attacks=[(1, 2)], supports=[(2, 1), (1, 0), (3, 1)], ids=["p", "a", "b", "s"])
    w = pro_con(q, "p")
    assert {"a", "s"} <= (w.pro & w.con)
    r = simple_pro_con(q, "p")
    assert r.pro == {"a", "b", "s"} and r.con == set() and r.complete


def test_acyclic_is_walk_result_without_search() -> None:
    q = QBAF.from_arrays([0.5, 0.2, 0.2], attacks=[(1, 0)], supports=[(2, 1)], ids=["p", "a", "b"])
    r = simple_pro_con(q, "p")
    assert r.steps == 0 and r.complete and r.con == {"a", "b"} and not r.pro


def test_budget_exhaustion_is_reported() -> None:
    # a dense tournament-like cyclic graph: a tiny budget cannot finish
    n = 9
    att = [(u, v) for u in range(1, n) for v in range(1, n) if u != v and (u + v) % 2]
    sup = [(u, v) for u in range(1, n) for v in range(1, n) if u != v and not (u + v) % 2] + [(1, 0)]
    q = QBAF.from_arrays([0.5] + [0.2] * (n - 1), attacks=att, supports=sup, ids=[f"a{i}" for i in range(n)])
    small = simple_pro_con_sets(q, ["a0"], budget=3)["a0"]
    big = simple_pro_con_sets(q, ["a0"])["a0"]
    assert big.complete
    assert not small.complete and small.unresolved > 0
    assert small.pro <= big.pro and small.con <= big.con
