"""Bipolar set-attacks, d-admissibility, credulous acceptance and d-preferred extensions:
golden values (PAPER.md §6), the edge cases of PAPER.md §4, and the error cases."""

from __future__ import annotations

import numpy as np
import pytest

from argfaith.qbaf import QBAF, UnknownArgumentError, load_qbaf
from argfaith.qbaf.bipolar import (
    FrameworkTooLargeError,
    SetAttacks,
    credulous_acceptance,
    d_preferred_extensions,
    defends,
    grounded_extension,
    is_conflict_free,
    is_d_admissible,
    set_attacks,
)
from argfaith.qbaf.errors import QBAFError
from argfaith.qbaf.reference import credulous_sat_reference, grounded_reference, set_attacks_reference


def bipolar(n: int, attacks=(), supports=()) -> QBAF:
    """Speech-only framework a0..a{n-1}; edges given as index pairs."""
    return QBAF.from_arrays([0.2] * n, list(attacks), list(supports))


def ids(*names: str) -> frozenset[str]:
    return frozenset(names)


# ------------------------------------------------------------------ golden: PAPER.md §6
ACCEPTED = {"q": {"p2"}, "qa": {"p1", "p2"}, "qb": {"p2"}}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
@pytest.mark.parametrize("method", ["sat", "search"])
def test_worked_example_acceptance(paper_dir, name, method):
    q = load_qbaf(paper_dir / f"{name}.json")
    r = credulous_acceptance(q, method=method)
    assert set(r.accepted) == ACCEPTED[name]
    assert r.queried == ("p1", "p2")
    assert set(r.rejected) == {"p1", "p2"} - ACCEPTED[name]
    # Without shortcuts the SAT solver / search must reach the same verdicts on its own.
    r2 = credulous_acceptance(q, method=method, shortcuts=False)
    assert r2.accepted == r.accepted
    assert set(r2.reason_counts()) == {method}


def test_worked_example_q_relation_and_extension(paper_dir):
    q = load_qbaf(paper_dir / "q.json")
    sa = set_attacks(q)
    # direct s1→p1, s2→p1, s4→s1; supported s3 S s1 A p1 → (s3, p1); nothing indirect
    # (supports s3→s1 and s5→p2 do not follow an attack).
    assert sa == {("s1", "p1"), ("s2", "p1"), ("s4", "s1"), ("s3", "p1")}
    assert grounded_extension(q) == ids("p2", "s2", "s3", "s4", "s5", "s6")
    assert d_preferred_extensions(q) == [ids("p2", "s2", "s3", "s4", "s5", "s6")]
    r = credulous_acceptance(q)
    assert r.decisions["p1"].reason == "attacked-by-grounded"
    assert r.decisions["p2"].reason == "grounded" and r.decisions["p2"].witness == grounded_extension(q)


def test_worked_example_qa_has_no_attacks(paper_dir):
    qa = load_qbaf(paper_dir / "qa.json")
    assert len(set_attacks(qa)) == 0
    assert d_preferred_extensions(qa) == [frozenset(qa.ids)]


# ------------------------------------------------------------------ PAPER.md §4 edge cases
def test_derived_self_attack_gives_empty_preferred():
    # a supports b, b attacks a: a S b A a is a supported self-attack of a; b A a S b an
    # indirect self-attack of b (strict definition, PAPER.md §4).
    q = bipolar(2, attacks=[(1, 0)], supports=[(0, 1)])
    sa = set_attacks(q)
    assert sa == {("a1", "a0"), ("a0", "a0"), ("a1", "a1")}
    assert set(sa.self_attacking) == {"a0", "a1"}
    assert d_preferred_extensions(q) == [frozenset()]
    r = credulous_acceptance(q, ["a0", "a1"])
    assert r.accepted == frozenset()
    assert {d.reason for d in r.decisions.values()} == {"self-attacking"}


def test_supported_attack():
    # a0 S a1 S a2 A a3: a0, a1 set-attack a3 by supported attacks.
    q = bipolar(4, attacks=[(2, 3)], supports=[(0, 1), (1, 2)])
    assert set_attacks(q) == {("a2", "a3"), ("a1", "a3"), ("a0", "a3")}


def test_indirect_attack():
    # a0 A a1 S a2 S a3: a0 indirectly attacks a2 and a3.
    q = bipolar(4, attacks=[(0, 1)], supports=[(1, 2), (2, 3)])
    assert set_attacks(q) == {("a0", "a1"), ("a0", "a2"), ("a0", "a3")}


def test_no_mixing_of_supports_on_both_sides():
    # a0 S a1 A a2 S a3: supported attack (a0, a2), indirect (a1, a3), but NOT (a0, a3).
    q = bipolar(4, attacks=[(1, 2)], supports=[(0, 1), (2, 3)])
    sa = set_attacks(q)
    assert sa == {("a1", "a2"), ("a0", "a2"), ("a1", "a3")}
    assert ("a0", "a3") not in sa


def test_support_only_and_support_cycles_give_no_attacks():
    q = bipolar(3, supports=[(0, 1), (1, 2), (2, 0)])
    assert len(set_attacks(q)) == 0
    assert d_preferred_extensions(q) == [ids("a0", "a1", "a2")]


def test_support_cycle_feeding_an_attack():
    # {a0, a1} support each other, a1 attacks a2, a2 supports a3.
    q = bipolar(4, attacks=[(1, 2)], supports=[(0, 1), (1, 0), (2, 3)])
    assert set_attacks(q) == {("a1", "a2"), ("a0", "a2"), ("a1", "a3")}
    assert set_attacks(q) == set_attacks_reference(q)


def test_direct_self_attack_loop():
    q = bipolar(2, attacks=[(0, 0)], supports=[(1, 0)])
    sa = set_attacks(q)
    # a1 S a0 A a0 is a supported attack of a1 on a0; no support leaves a0, so nothing indirect.
    assert sa == {("a0", "a0"), ("a1", "a0")}
    assert d_preferred_extensions(q) == [ids("a1")]


def test_mutual_attack_two_preferred_extensions():
    # a2 S a0 A a1 makes a2 a (supported) set-attacker of a1; a2 is unattacked, so the
    # grounded extension {a2, a0} settles the mutual attack.
    q = bipolar(3, attacks=[(0, 1), (1, 0)], supports=[(2, 0)])
    assert set_attacks(q) == {("a0", "a1"), ("a1", "a0"), ("a2", "a1")}
    assert d_preferred_extensions(q) == [ids("a0", "a2")]
    q2 = bipolar(2, attacks=[(0, 1), (1, 0)])
    assert d_preferred_extensions(q2) == [ids("a0"), ids("a1")]
    r = credulous_acceptance(q2, ["a0", "a1"])
    assert r.accepted == ids("a0", "a1")
    assert r.reason_counts() == {"sat": 2}
    for a in ("a0", "a1"):
        w = r.decisions[a].witness
        assert w is not None and a in w and is_d_admissible(q2, w)
    assert grounded_extension(q2) == frozenset()


def test_odd_cycle_rejects_everything():
    q = bipolar(3, attacks=[(0, 1), (1, 2), (2, 0)])
    assert d_preferred_extensions(q) == [frozenset()]
    for method in ("sat", "search"):
        assert credulous_acceptance(q, q.ids, method=method).accepted == frozenset()


def test_empty_framework():
    q = bipolar(0)
    sa = set_attacks(q)
    assert len(sa) == 0 and list(sa) == [] and sa.index_pairs().shape == (0, 2)
    assert grounded_extension(q) == frozenset()
    assert d_preferred_extensions(q) == [frozenset()]
    r = credulous_acceptance(q)
    assert r.accepted == frozenset() and r.queried == () and r.solver_calls == 0
    assert is_conflict_free(q, []) and is_d_admissible(q, [])


# ------------------------------------------------------------------ Dung checks
def test_dung_checks_on_a_chain():
    # a0 A a1 A a2: grounded {a0, a2}.
    q = bipolar(3, attacks=[(0, 1), (1, 2)])
    assert is_conflict_free(q, ["a0", "a2"])
    assert not is_conflict_free(q, ["a0", "a1"])
    assert defends(q, ["a0"], "a2")
    assert not defends(q, [], "a2")
    assert defends(q, [], "a0")
    assert is_d_admissible(q, ["a0"]) and is_d_admissible(q, ["a0", "a2"])
    assert not is_d_admissible(q, ["a2"])
    assert grounded_extension(q) == ids("a0", "a2") == grounded_reference(q)


def test_checks_accept_precomputed_relation():
    q = bipolar(3, attacks=[(0, 1), (1, 2)])
    sa = set_attacks(q)
    assert is_d_admissible(sa, ["a0", "a2"]) and grounded_extension(sa) == ids("a0", "a2")
    assert credulous_acceptance(sa, ["a2"]).accepted == ids("a2")


def test_set_attacks_object_api():
    q = bipolar(4, attacks=[(1, 2)], supports=[(0, 1), (2, 3)])
    sa = set_attacks(q)
    assert isinstance(sa, SetAttacks)
    assert sa.attackers("a2") == ("a0", "a1")
    assert sa.targets("a1") == ("a2", "a3")
    assert sa.targets("a3") == ()
    assert ("a1", "a3") in sa and ("a3", "a1") not in sa
    assert ("nope", "a1") not in sa and "a1" not in sa
    assert sorted(map(tuple, sa.index_pairs().tolist())) == [(0, 2), (1, 2), (1, 3)]
    assert sa.pairs == frozenset(sa)
    assert sa.n_arguments == 4 and "3 set-attacks" in repr(sa)
    assert sa.self_attacking == ()


# ------------------------------------------------------------------ errors
def test_unknown_ids_are_named():
    q = bipolar(2, attacks=[(0, 1)])
    with pytest.raises(UnknownArgumentError, match="'zz'"):
        is_conflict_free(q, ["a0", "zz"])
    with pytest.raises(UnknownArgumentError, match="'zz'"):
        defends(q, ["a0"], "zz")
    with pytest.raises(UnknownArgumentError, match="'qq'"):
        is_d_admissible(q, ["qq"])
    with pytest.raises(UnknownArgumentError, match="'p9'"):
        credulous_acceptance(q, ["a0", "p9"])
    with pytest.raises(UnknownArgumentError, match="'zz'"):
        set_attacks(q).attackers("zz")


def test_a_string_is_not_a_set_of_ids():
    q = bipolar(2)
    with pytest.raises(TypeError, match="'a0'"):
        is_d_admissible(q, "a0")
    with pytest.raises(TypeError, match="'a1'"):
        credulous_acceptance(q, "a1")


def test_bad_method_and_solver():
    q = bipolar(2, attacks=[(0, 1), (1, 0)])
    with pytest.raises(ValueError, match="'magic'"):
        credulous_acceptance(q, ["a0"], method="magic")
    with pytest.raises(ValueError, match="'nosuchsolver'"):
        credulous_acceptance(q, ["a0"], solver="nosuchsolver")
    with pytest.raises(TypeError, match="QBAF"):
        grounded_extension({"a": 1})
    with pytest.raises(ValueError, match="'magic'"):
        set_attacks(q, algorithm="magic")


def test_enumeration_limits():
    q = bipolar(12, attacks=[(2 * i, 2 * i + 1) for i in range(6)] + [(2 * i + 1, 2 * i) for i in range(6)])
    with pytest.raises(FrameworkTooLargeError, match="12 arguments.*max_arguments=10"):
        d_preferred_extensions(q, max_arguments=10)
    # 6 independent mutual attacks: 2^6 = 64 preferred extensions.
    assert len(d_preferred_extensions(q)) == 64
    with pytest.raises(FrameworkTooLargeError, match="max_extensions=50"):
        d_preferred_extensions(q, max_extensions=50)
    assert issubclass(FrameworkTooLargeError, QBAFError)


def test_duplicate_queries_are_answered_once():
    q = bipolar(2, attacks=[(0, 1), (1, 0)])
    r = credulous_acceptance(q, ["a0", "a0", "a1"])
    assert r.queried == ("a0", "a1") and r.solver_calls == 2


def test_proposals_are_the_default_queries():
    q = QBAF.from_arrays(
        [0.5, 0.5, 0.2, 0.2], attacks=[(2, 0), (3, 2), (2, 3)], is_proposal=[True, True, False, False], debate=True
    )
    r = credulous_acceptance(q)
    assert r.queried == ("a0", "a1")
    assert r.accepted == ids("a0", "a1")  # a0 defended by {a3}
    assert r.decisions["a1"].reason == "grounded"
    assert r.decisions["a0"].reason == "sat"
    assert r.n_encoded == 3  # ancestors of a0 in the graph: a0, a2, a3 (not a1)
    assert r.n_clauses > 0 and r.seconds >= r.decisions["a0"].seconds >= 0.0


def test_medium_framework_against_naive_sat():
    # 30 arguments with local mutual attacks and support chains: beyond brute force, checked
    # against the textbook encoding over the explicit relation.
    rng = np.random.default_rng(7)
    n = 30
    e = {(int(s), int(t)) for s, t in zip(rng.integers(0, n, 70), rng.integers(0, n, 70)) if s != t}
    e = sorted(e)
    is_att = rng.random(len(e)) < 0.45
    q = bipolar(n, [x for x, a in zip(e, is_att) if a], [x for x, a in zip(e, is_att) if not a])
    expected = credulous_sat_reference(q, q.ids)
    for method in ("sat", "search"):
        for sc in (True, False):
            assert credulous_acceptance(q, q.ids, method=method, shortcuts=sc).accepted == expected
