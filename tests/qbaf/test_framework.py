"""The QBAF model: validation errors name the item, CSR arrays, derived frameworks, doctests."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from argfaith.qbaf import (
    QBAF,
    Argument,
    BaseScoreError,
    ConflictingEdgeError,
    DuplicateArgumentError,
    DuplicateEdgeError,
    ProposalEdgeError,
    QBAFError,
    UnknownArgumentError,
)
from argfaith.qbaf.strategies import qbafs

ARGS = [Argument("p1", "proposal", 0.5), Argument("s1"), Argument("s2")]


# --------------------------------------------------------------------------- validation errors
@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"attacks": [("s1", "p9")]}, UnknownArgumentError, r"attacks\[0\] \('s1' -> 'p9'\): unknown argument 'p9'"),
        ({"supports": [("s1", "p1"), ("zz", "s1")]}, UnknownArgumentError, r"supports\[1\] .*unknown argument 'zz'"),
        ({"attacks": [("s1", "p1"), ("s2", "p1"), ("s1", "p1")]}, DuplicateEdgeError, r"attacks\[0\] and attacks\[2\]: edge \('s1' -> 'p1'\)"),
        ({"supports": [("s2", "s1"), ("s2", "s1")]}, DuplicateEdgeError, r"supports\[0\] and supports\[1\]: edge \('s2' -> 's1'\)"),
        (
            {"attacks": [("s2", "p1"), ("s1", "p1")], "supports": [("s1", "p1")]},
            ConflictingEdgeError,
            r"attacks\[1\] and supports\[0\]: edge \('s1' -> 'p1'\) is both an attack and a support",
        ),
        ({"attacks": [("p1", "s1")], "debate": True}, ProposalEdgeError, r"attacks\[0\]: edge \('p1' -> 's1'\) leaves proposal argument 'p1'"),
        ({"supports": [("s1", "p1"), ("p1", "s2")], "debate": True}, ProposalEdgeError, r"supports\[1\].*'p1'"),
        ({"attacks": [("s1",)]}, QBAFError, r"attacks\[0\]: expected a \[source, target\] pair"),
    ],
)
def test_edge_errors_name_the_edge(kwargs, error, message):
    with pytest.raises(error, match=message):
        QBAF.from_arguments(ARGS, **kwargs)


def test_proposal_edges_are_fine_outside_debate_qbafs():
    assert QBAF.from_arguments(ARGS, attacks=[("p1", "s1")]).attackers("s1") == ("p1",)


@pytest.mark.parametrize("bad", [1.5, -0.1, float("nan"), float("inf")])
def test_base_score_errors_name_the_argument(bad):
    with pytest.raises(BaseScoreError, match=r"argument 's2': base score .* is not in \[0, 1\]"):
        QBAF.from_arguments([Argument("p1", "proposal", 0.5), Argument("s1"), Argument("s2", base_score=bad)])
    with pytest.raises(BaseScoreError, match=r"argument 'b'"):
        QBAF.from_arrays([0.2, bad], ids=["a", "b"])
    with pytest.raises(BaseScoreError, match=r"argument 'a1'.*\(2 arguments in all\)"):
        QBAF.from_arrays([0.2, bad, bad])


def test_non_numeric_base_score_and_bad_ids():
    with pytest.raises(BaseScoreError, match="'s1': base score 'high' is not a number"):
        QBAF.from_arguments([{"id": "s1", "base_score": "high"}])
    with pytest.raises(DuplicateArgumentError, match=r"duplicate argument id 's1' \(arguments\[1\] and arguments\[2\]\)"):
        QBAF.from_arguments([Argument("p1", "proposal"), Argument("s1"), Argument("s1")])
    with pytest.raises(DuplicateArgumentError, match="duplicate argument id 'x'"):
        QBAF.from_arrays([0.1, 0.2], ids=["x", "x"])
    with pytest.raises(QBAFError, match=r"arguments\[0\]: id must be a non-empty string"):
        QBAF.from_arguments([{"id": ""}])
    with pytest.raises(QBAFError, match="argument 'a': kind must be 'proposal' or 'speech'"):
        QBAF.from_arguments([{"id": "a", "kind": "claim"}])
    with pytest.raises(QBAFError, match=r"arguments\[0\]: expected an Argument or a mapping"):
        QBAF.from_arguments(["a"])


def test_array_constructor_errors():
    with pytest.raises(UnknownArgumentError, match=r"attacks\[1\]: index pair \(2, 0\) refers to an argument outside 0\.\.1"):
        QBAF.from_arrays([0.5, 0.5], attacks=[(1, 0), (2, 0)])
    with pytest.raises(UnknownArgumentError, match=r"supports\[0\]: index pair \(-1, 0\)"):
        QBAF.from_arrays([0.5, 0.5], supports=[(-1, 0)])
    with pytest.raises(UnknownArgumentError, match=r"outside 0\.\.-1"):
        QBAF.from_arrays([], attacks=[(0, 0)])
    with pytest.raises(DuplicateEdgeError, match=r"attacks\[0\] and attacks\[1\]: edge \('a1' -> 'a0'\)"):
        QBAF.from_arrays([0.5, 0.5], attacks=[(1, 0), (1, 0)])
    with pytest.raises(ConflictingEdgeError, match=r"attacks\[0\] and supports\[0\]: edge \('a1' -> 'a0'\)"):
        QBAF.from_arrays([0.5, 0.5], attacks=[(1, 0)], supports=[(1, 0)])
    with pytest.raises(QBAFError, match=r"attacks: expected an \(m, 2\) array"):
        QBAF.from_arrays([0.5, 0.5], attacks=[1, 0])
    with pytest.raises(QBAFError, match="ids has 1 entries but base_scores has 2"):
        QBAF.from_arrays([0.5, 0.5], ids=["x"])
    with pytest.raises(QBAFError, match=r"is_proposal has shape \(1,\), expected \(2,\)"):
        QBAF.from_arrays([0.5, 0.5], is_proposal=[True])
    with pytest.raises(QBAFError, match="1-d"):
        QBAF.from_arrays([[0.5, 0.5]])
    with pytest.raises(ProposalEdgeError, match=r"attacks\[0\]: edge \('p' -> 's'\)"):
        QBAF.from_arrays([0.5, 0.2], attacks=[(0, 1)], ids=["p", "s"], is_proposal=[True, False], debate=True)


# ---------------------------------------------------------------------------------- CSR arrays
def csr_reference(q: QBAF, by_target: bool):
    """The documented CSR order, by a stable argsort over attacks-then-supports."""
    e = np.concatenate([q.attack_array, q.support_array]).reshape(-1, 2)
    att = np.concatenate([np.ones(len(q.attack_array), bool), np.zeros(len(q.support_array), bool)])
    key, val = (1, 0) if by_target else (0, 1)
    order = np.argsort(e[:, key], kind="stable")
    ptr = np.concatenate([[0], np.cumsum(np.bincount(e[:, key], minlength=q.n))]) if len(e) else np.zeros(q.n + 1, int)
    return ptr, e[order, val], att[order]


@settings(deadline=None, max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(qbafs(max_size=10))
def test_csr_matches_stable_sort_reference(q):
    for by_target, csr in ((True, q.in_csr), (False, q.out_csr)):
        for got, want in zip(csr, csr_reference(q, by_target)):
            assert np.array_equal(got, want)
        assert not any(a.flags.writeable for a in csr)
    for x in q.ids:
        assert set(q.attackers(x)) == {s for s, t in q.attacks if t == x}
        assert set(q.supporters(x)) == {s for s, t in q.supports if t == x}


def test_attackers_and_supporters_keep_input_order():
    q = QBAF.from_arrays([0.5] * 4, attacks=[(3, 0), (1, 0)], supports=[(2, 0)], ids=list("xabc"))
    assert q.attackers("x") == ("c", "a") and q.supporters("x") == ("b",)
    assert q.in_csr[2].tolist() == [True, True, False]


# --------------------------------------------------------------------------- model behaviour
def test_default_ids_are_lazy_and_stable():
    q = QBAF.from_arrays([0.5, 0.2], attacks=[(1, 0)])
    assert q._ids is None  # not materialised by construction (10^6 ids cost more than DF-QuAD)
    from argfaith.qbaf import dfquad_strengths

    dfquad_strengths(q)
    assert q._ids is None
    assert q.ids == ("a0", "a1") and q.idx("a1") == 1 and "a1" in q and "a2" not in q
    assert q == QBAF.from_arrays([0.5, 0.2], attacks=[(1, 0)], ids=["a0", "a1"])


def test_derived_frameworks_and_equality():
    q = QBAF.from_arguments(ARGS, attacks=[("s1", "p1")], supports=[("s2", "s1")], debate=True, name="n")
    assert q.proposals == ("p1",) and q.speech_arguments == ("s1", "s2") and q.n_edges == 2 and len(q) == 3
    q2 = q.with_speech_base_score(0.25)
    assert q2.base_scores.tolist() == [0.5, 0.25, 0.25] and q2.tau == 0.25 and q2.debate
    assert q.with_base_scores({"s2": 0.9}).base_score("s2") == 0.9
    assert q.with_base_scores(np.array([0.1, 0.2, 0.3])).base_scores.tolist() == [0.1, 0.2, 0.3]
    assert q != q2 and q == QBAF.from_arguments(ARGS, attacks=[("s1", "p1")], supports=[("s2", "s1")])
    assert q.argument("p1").is_proposal and q.argument("s1").base_score == 0.2
    with pytest.raises(UnknownArgumentError, match="'nope'"):
        q.idx("nope")
    with pytest.raises(BaseScoreError):
        q.with_base_scores({"s1": 2.0})
    assert "debate QBAF 'n': 3 arguments (1 proposals), 1 attacks, 1 supports" in repr(q)
    with pytest.raises(ValueError):
        q.base_scores[0] = 0.3  # read-only


def test_empty_framework():
    q = QBAF.from_arrays([])
    assert q.n == 0 and q.ids == () and q.proposals == () and q.is_acyclic()
    assert [a.tolist() for a in q.in_csr] == [[0], [], []]
    assert QBAF.from_arguments([]) == q


@pytest.mark.parametrize(
    "module", ["framework", "dfquad", "batch", "graph", "paths", "principles", "strategies", "io"]
)
def test_doctests(module):
    mod = importlib.import_module(f"argfaith.qbaf.{module}")
    failures, _ = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert failures == 0
