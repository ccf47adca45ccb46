"""The engine as a library: construction from lists / tuples / dicts / networkx, credulous
acceptance of every argument, the set-attack relation computed once, results by position."""

from __future__ import annotations

import re
import networkx as nx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from argfaith.qbaf import QBAF, credulous_acceptance, from_networkx, set_attacks, to_networkx
from argfaith.qbaf.bipolar import d_preferred_extensions, grounded_extension
from argfaith.qbaf.errors import BaseScoreError, DuplicateArgumentError, DuplicateEdgeError, QBAFError, UnknownArgumentError
from argfaith.qbaf.reference import credulous_reference
from argfaith.qbaf.strategies import qbafs


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(q=qbafs(max_size=8))
def test_from_edges_equals_from_arrays_for_every_container(q):
    att, sup = q.attack_array.tolist(), q.support_array.tolist()
    bs = q.base_scores.tolist()
    ids = list(q.ids)
    forms = [
        QBAF.from_edges(bs, [tuple(e) for e in att], [tuple(e) for e in sup]),  # list of tuples
        QBAF.from_edges(tuple(bs), tuple(map(tuple, att)), tuple(map(tuple, sup))),  # tuples
        QBAF.from_edges(bs, iter(att), (e for e in sup)),  # iterables
        QBAF.from_edges(np.array(bs), q.attack_array, q.support_array),  # arrays
        QBAF.from_edges(dict(zip(ids, bs)), [(ids[s], ids[t]) for s, t in att], [(ids[s], ids[t]) for s, t in sup]),
        QBAF.from_edges(bs, [(ids[s], ids[t]) for s, t in att], [(ids[s], ids[t]) for s, t in sup], ids=ids),
    ]
    for f in forms:
        assert f == q and f.ids == q.ids
        assert all(np.array_equal(a, b) for a, b in zip(f.in_csr, q.in_csr))


def test_from_edges_errors_name_the_item():
    with pytest.raises(UnknownArgumentError, match=r"supports\[1\] \('s' -> 'q'\): unknown argument 'q'"):
        QBAF.from_edges({"p": 0.5, "s": 0.2}, supports=[("s", "p"), ("s", "q")])
    with pytest.raises(QBAFError, match=r"attacks\[1\]: expected a \(source, target\) pair, got \(1, 0, 2\)"):
        QBAF.from_edges([0.5, 0.2, 0.3], attacks=[(1, 0), (1, 0, 2)])
    with pytest.raises(QBAFError, match=r"attacks\[0\]: expected a pair of argument positions \(ints\) or ids \(strings\), got \(1.5, 0\)"):
        QBAF.from_edges([0.5, 0.2], attacks=[(1.5, 0)])
    with pytest.raises(QBAFError, match="no ids were given"):
        QBAF.from_edges([0.5, 0.2], attacks=[("a1", "a0")])
    with pytest.raises(UnknownArgumentError, match=r"attacks\[0\]: index pair \(0, 7\) refers to an argument outside 0..1"):
        QBAF.from_edges([0.5, 0.2], attacks=[(0, 7)])
    with pytest.raises(DuplicateEdgeError, match=r"attacks\[0\] and attacks\[1\]: edge \('a' -> 'p'\)"):
        QBAF.from_edges({"p": 0.5, "a": 0.2}, attacks=[("a", "p"), ("a", "p")])
    with pytest.raises(BaseScoreError, match="argument 'a': base score 'high' is not a number"):
        QBAF.from_edges({"p": 0.5, "a": "high"})
    with pytest.raises(BaseScoreError, match="argument 'a': base score 1.5 is not in"):
        QBAF.from_edges({"p": 0.5, "a": 1.5})
    with pytest.raises(QBAFError, match=r"ids\[1\]: an id must be a non-empty string"):
        QBAF.from_edges([0.5, 0.2], ids=["p", ""])


def test_from_edges_matches_ids_by_identity_and_by_value():
    """Endpoints that are the id objects themselves, equal but distinct strings, and a mix, all
    give the same framework; the caller's containers are copied, never shared."""
    ids = [f"x{i}" for i in range(50)]
    rng = np.random.default_rng(3)
    pairs = [(int(s), int(t)) for s, t in rng.integers(0, 50, (120, 2)) if s != t]
    pairs = list(dict.fromkeys(pairs))
    att, sup = pairs[::2], pairs[1::2]
    want = QBAF.from_arrays(rng.random(50), att, sup, ids=ids)
    bs = dict(zip(ids, want.base_scores.tolist()))
    same = lambda e: [(ids[s], ids[t]) for s, t in e]  # noqa: E731
    fresh = lambda e: [("".join(("x", str(s))), "".join(("x", str(t)))) for s, t in e]  # noqa: E731
    mixed = lambda e: [(ids[s], "".join(("x", str(t)))) for s, t in e]  # noqa: E731
    for make in (same, fresh, mixed):
        q = QBAF.from_edges(bs, make(att), make(sup))
        assert q == want and all(np.array_equal(a, b) for a, b in zip(q.in_csr, want.in_csr))
    with pytest.raises(UnknownArgumentError, match=r"attacks\[1\] \('x0' -> 'y'\): unknown argument 'y'"):
        QBAF.from_edges(bs, [("x0", "x1"), ("x0", "y")])
    with pytest.raises(DuplicateArgumentError, match="duplicate argument id 'x1'"):
        QBAF.from_edges([0.5, 0.5, 0.5], attacks=[("x0", "x1")], ids=["x0", "x1", "x1"])
    base, edges = np.array([0.5, 0.2]), np.array([[1, 0]])
    q = QBAF.from_edges(base, edges)
    base[0], edges[0, 0] = 0.9, 0  # the framework keeps its own copies
    assert q.base_scores.tolist() == [0.5, 0.2] and q.attack_array.tolist() == [[1, 0]]


def test_from_edges_debate_frameworks():
    q = QBAF.from_edges({"p": 0.5, "s": 0.2}, attacks=[("s", "p")], is_proposal=[True, False], debate=True)
    assert q.proposals == ("p",) and q.debate


def test_networkx_round_trip_keeps_everything():
    q = QBAF.from_arguments(
        [{"id": "p", "kind": "proposal", "text": "P"}, {"id": "s", "speaker": "A", "position": 3, "base_score": 0.3},
         {"id": "t", "metadata": {"k": 1}}],
        attacks=[("s", "p")], supports=[("t", "s")], debate=True, name="g",
    )
    back = from_networkx(to_networkx(q))
    assert back == q and back.arguments == q.arguments and back.name == "g" and back.debate


def test_credulous_acceptance_of_every_argument():
    # No proposals: the default asks about every argument instead of answering for none.
    q = QBAF.from_edges([0.5, 0.5, 0.5], attacks=[(0, 1), (1, 0), (2, 1)], ids=["a", "b", "c"])
    r = credulous_acceptance(q)
    assert r.queried == ("a", "b", "c") and r.accepted == credulous_reference(q) == {"a", "c"}
    assert credulous_acceptance(q, "all").accepted == r.accepted
    assert credulous_acceptance(q, "proposals").queried == ()
    # Results by position, aligned with the framework's arguments.
    assert [r.is_accepted(i) for i in range(3)] == [True, False, True] and r.is_accepted(-1)
    assert r.accepted_mask().tolist() == [True, False, True]
    with pytest.raises(IndexError, match="position 3 out of range for 3 arguments"):
        r.is_accepted(3)
    d = QBAF.from_edges([0.5, 0.2, 0.2], attacks=[(1, 0)], supports=[(2, 1)], is_proposal=[True, False, False], debate=True)
    assert credulous_acceptance(d).queried == ("a0",)  # proposals by default when there are some
    assert credulous_acceptance(d, "all").queried == d.ids
    with pytest.raises(UnknownArgumentError, match="unknown argument 'zz'"):
        credulous_acceptance(d, ["zz"])


def test_set_attack_relation_is_computed_once_and_reused(monkeypatch):
    from argfaith.qbaf import _bipolar_kernels as K

    calls = {"n": 0}
    real = K.set_attack_csr_bitset

    def counting(*a):
        calls["n"] += 1
        return real(*a)

    monkeypatch.setattr(K, "set_attack_csr_bitset", counting)
    q = QBAF.from_edges([0.5, 0.5, 0.5, 0.2], attacks=[(0, 1), (1, 0)], supports=[(3, 0)])
    sa = set_attacks(q)
    assert set_attacks(q) is sa and set_attacks(q, algorithm="search") is sa
    credulous_acceptance(q, "all")
    d_preferred_extensions(q)
    grounded_extension(q)
    assert calls["n"] == 1
    # A derived framework is a new framework: its relation is computed afresh.
    q2 = q.with_speech_base_score(0.3)
    set_attacks(q2)
    assert calls["n"] == 2


def test_from_edges_identity_and_value_paths_agree():
    """Endpoints that are the very id objects are matched by identity, equal-but-distinct strings
    by value (the two paths of the lookup must agree)."""
    rng = np.random.default_rng(3)
    n = 300
    ids = [f"arg-{i}" for i in range(n)]
    e = rng.integers(0, n, (900, 2))
    e = e[e[:, 0] != e[:, 1]]
    e = np.unique(e, axis=0)
    same = [(ids[s], ids[t]) for s, t in e.tolist()]
    fresh = [("".join(["arg-", str(s)]), "".join(["arg-", str(t)])) for s, t in e.tolist()]  # new objects
    mixed = [a if k % 2 else b for k, (a, b) in enumerate(zip(same, fresh))]
    ref = QBAF.from_arrays(rng.random(n), e, ids=ids)
    for pairs in (same, fresh, mixed):
        q = QBAF.from_edges(dict(zip(ids, ref.base_scores.tolist())), pairs)
        assert np.array_equal(q.attack_array, ref.attack_array)


@pytest.mark.parametrize("order", ["fresh-first", "same-first", "alternating"])
def test_from_edges_matches_strings_by_characters_as_a_dictionary_would(order):
    """Beyond the first edges the matcher picks identity or characters from a probe; both give the
    positions a dictionary gives — for ids of any length and script, astral code points, and ids
    that differ only by trailing NUL characters (which numpy's fixed-width strings drop)."""
    rng = np.random.default_rng(11)
    alphabet = ["a", "Z", "7", "é", "ß", "Ω", "中", "🙂", "\x00", " ", "-"]
    ids = list(dict.fromkeys("".join(rng.choice(alphabet, size=int(rng.integers(1, 9)))) for _ in range(900)))
    ids += [ids[0] + "\x00", ids[1] + "\x00\x00", "x", "x\x00"]
    ids = [i for i in dict.fromkeys(ids) if i]
    n = len(ids)
    e = rng.integers(0, n, (3000, 2))
    e = np.unique(e[e[:, 0] != e[:, 1]], axis=0)
    rng.shuffle(e)
    e = np.vstack([e, [[n - 1, n - 2], [n - 2, n - 1], [n - 3, 0], [1, n - 4]]])  # the NUL-suffixed ids
    same = [(ids[s], ids[t]) for s, t in e.tolist()]
    fresh = [("".join(list(ids[s])), "".join(list(ids[t]))) for s, t in e.tolist()]
    assert all(a == b and a is not b for p, r in zip(same, fresh) for a, b in zip(p, r) if len(a) > 1)
    half = len(e) // 2
    pairs = {
        "fresh-first": fresh[:half] + same[half:],
        "same-first": same[:half] + fresh[half:],
        "alternating": [a if k % 2 else b for k, (a, b) in enumerate(zip(same, fresh))],
    }[order]
    ref = QBAF.from_arrays(rng.random(n), e, ids=ids)
    q = QBAF.from_edges(dict(zip(ids, ref.base_scores.tolist())), pairs)
    assert q.ids == ref.ids and np.array_equal(q.attack_array, ref.attack_array)


def test_from_edges_by_characters_still_names_a_bad_endpoint():
    ids = [f"n{i}" for i in range(400)]
    bs = dict.fromkeys(ids, 0.5)
    fresh = [("".join(["n", str(i)]), "".join(["n", str(i + 1)])) for i in range(399)]
    for bad, shown in (("n7\x00", "'n7\\x00'"), ("n1000", "'n1000'"), (7, "7")):
        edges = fresh[:300] + [("n0", bad)] + fresh[300:]
        with pytest.raises(UnknownArgumentError, match=rf"attacks\[300\] \('n0' -> {re.escape(shown)}\): unknown argument {re.escape(shown)}"):
            QBAF.from_edges(bs, edges)
