"""Explanations: removal influence of each argument on a proposal's strength."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from argfaith.metrics.alignment import IdAligner, align_qbafs
from argfaith.metrics.explain import argument_influences, explain_proposals
from argfaith.qbaf import QBAF, load_qbaf
from argfaith.qbaf.reference import dfquad_reference
from argfaith.qbaf.strategies import debate_qbafs


@pytest.fixture(scope="module")
def paper(paper_dir):
    return {n: load_qbaf(paper_dir / f"{n}.json") for n in ("q", "qa", "qb")}


def test_golden_influences_in_q(paper):
    # Hand computation (τ_s = 0.2): σ(p1) = 0.32. Without s1 or s2: 0.4 -> -0.08 each.
    # Without s3: σ(s1) = 0.16, σ(p1) = 0.336 -> -0.016. Without s4: σ(s1) = 0.36, σ(p1) = 0.256 -> +0.064.
    side = argument_influences(paper["q"], "p1")
    got = {a.id: a.influence for a in side.arguments}
    assert got == pytest.approx({"s1": -0.08, "s2": -0.08, "s4": 0.064, "s3": -0.016}, abs=1e-12)
    assert [a.id for a in side.arguments] == ["s1", "s2", "s4", "s3"]  # |influence| desc, ties by order
    s1 = side.arguments[0]
    assert s1.relation == "attack" and s1.con and not s1.pro and s1.strength == pytest.approx(0.2)
    s4 = side.arguments[2]
    assert s4.relation is None and s4.pro and not s4.con
    assert side.sigma == pytest.approx(0.32) and side.n_arguments == 4
    assert (side.n_attackers, side.n_supporters) == (2, 0)
    assert len(argument_influences(paper["q"], "p1", limit=2).arguments) == 2


def test_explain_proposals_pairs_sides(paper):
    q, qa = paper["q"], paper["qa"]
    al = align_qbafs(q, qa, IdAligner())
    ex = {e.proposal: e for e in explain_proposals(q, qa, alignment=al)}
    e1 = ex["p1"]
    assert e1.sigma_source == pytest.approx(0.32) and e1.sigma_summary == pytest.approx(0.60)
    assert e1.difference == pytest.approx(0.28)
    assert [a.id for a in e1.summary.arguments] == ["s4"] and e1.summary.arguments[0].relation == "support"
    assert e1.summary.arguments[0].aligned == ("s4",)
    src_s1 = next(a for a in e1.source.arguments if a.id == "s1")
    assert src_s1.aligned == ()  # s1 was dropped by summary a
    assert e1.text == "Provision 1 of the resolution."
    e2 = ex["p2"]
    assert {a.id for a in e2.summary.arguments} == {"s5", "s7"}


def test_unconnected_proposal():
    q = QBAF.from_arrays([0.5, 0.2], is_proposal=[True, False], ids=["p1", "s1"], debate=True)
    side = argument_influences(q, "p1")
    assert side.arguments == () and side.sigma == 0.5 and side.n_arguments == 0


def _full_removal(q: QBAF, x: str, y: str) -> float:
    """Brute force on the WHOLE framework: σ(x) − σ_{Q−y}(x) with the reference solver."""
    keep = [a for a in q.arguments if a.id != y]
    att = [e for e in q.attacks if y not in e]
    sup = [e for e in q.supports if y not in e]
    qy = QBAF.from_arguments(keep, att, sup, debate=q.debate)
    full, *_ = dfquad_reference(q)
    without, *_ = dfquad_reference(qy)
    return full[q.idx(x)] - without[qy.idx(x)]


@settings(max_examples=60, deadline=None)
@given(debate_qbafs(max_proposals=2, max_speech=6, acyclic=True))
def test_restricted_computation_equals_whole_framework_removal(q):
    for p in q.proposals:
        side = argument_influences(q, p)
        got = {a.id: a.influence for a in side.arguments}
        for y in q.ids:
            if y == p:
                continue
            expected = _full_removal(q, p, y)
            assert got.get(y, 0.0) == pytest.approx(expected, abs=1e-12)
        infl = [abs(a.influence) for a in side.arguments]
        assert infl == sorted(infl, reverse=True)


@settings(max_examples=40, deadline=None)
@given(debate_qbafs(max_proposals=2, max_speech=5, acyclic=False))
def test_cyclic_restriction_matches_whole_framework(q):
    # Summary-like frameworks with cycles: the sub-framework of ancestors gives the same σ(x).
    full, conv, *_ = dfquad_reference(q)
    if not conv:
        return
    for p in q.proposals:
        side = argument_influences(q, p)
        assert side.sigma == pytest.approx(full[q.idx(p)], abs=1e-7)


# ------------------------------------------------------------- propagation kernel vs reference
@settings(max_examples=80, deadline=None)
@given(debate_qbafs(max_proposals=3, max_speech=9, acyclic=True, speech_tau=None))
def test_propagation_equals_reference_on_every_proposal(q):
    """The kernel (acyclic: push each removal through the descendants) against the plain-Python
    re-solve of every ancestor sub-framework, with base scores drawn in [0, 1] (0 and 1 included:
    zero factors in the products)."""
    from argfaith.metrics.explain import argument_influences_reference, removal_influence_table, side_explanation

    table = removal_influence_table(q)
    assert table.method == "propagation"
    for p in q.proposals:
        fast = side_explanation(table, p)
        ref = argument_influences_reference(q, p)
        assert fast.n_arguments == ref.n_arguments and fast.sigma == ref.sigma
        got = {a.id: a.influence for a in fast.arguments}
        want = {a.id: a.influence for a in ref.arguments}
        assert got.keys() == want.keys()
        for k in want:
            assert got[k] == pytest.approx(want[k], abs=1e-12)
        assert [(a.pro, a.con, a.relation) for a in sorted(fast.arguments, key=lambda a: a.id)] == [
            (a.pro, a.con, a.relation) for a in sorted(ref.arguments, key=lambda a: a.id)
        ]


def test_propagation_on_a_chain_with_saturated_arguments():
    """τ = 1 attackers make zero factors; removing one of two must leave the other's zero."""
    from argfaith.metrics.explain import argument_influences_reference, removal_influence_table, side_explanation

    q = QBAF.from_arrays(
        [0.5, 1.0, 1.0, 0.3, 0.0],
        ids=["p", "a", "b", "c", "z"],
        is_proposal=[True, False, False, False, False],
        attacks=[(1, 0), (2, 0), (3, 1)],
        supports=[(4, 3)],
        debate=True,
    )
    t = removal_influence_table(q)
    fast = {a.id: a.influence for a in side_explanation(t, "p").arguments}
    ref = {a.id: a.influence for a in argument_influences_reference(q, "p").arguments}
    assert fast.keys() == ref.keys() == {"a", "b", "c", "z"}
    assert fast == pytest.approx(ref, abs=1e-15)
    assert fast["z"] == 0.0  # σ(z) = 0: removing it changes nothing


def test_cyclic_frameworks_use_the_reference(paper):
    from argfaith.metrics.explain import removal_influence_table

    q = QBAF.from_arguments([*paper["qa"].arguments], attacks=[("s7", "s5"), ("s5", "s7")], supports=[("s4", "p1")], debate=True)
    t = removal_influence_table(q)
    assert t.method == "re-solve" and set(t.by_target) == {q.idx("p1"), q.idx("p2")}
