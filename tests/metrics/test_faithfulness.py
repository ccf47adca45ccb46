"""The paper's metrics: golden values (PAPER.md §6, Table 1), edge cases, properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.metrics.faithfulness import (
    argument_relevance,
    balance_consistency,
    balance_side,
    d_preferability_consistency,
    epsilon_accuracy,
    mean_pro_con_ratio,
    pro_con_ratio,
    pro_con_ratios,
)
from argfaith.metrics.proposals import ProposalMismatchError, match_proposals
from argfaith.qbaf import QBAF, Argument, UnknownArgumentError, load_qbaf
from argfaith.qbaf.reference import pro_con_reference
from argfaith.qbaf.strategies import debate_qbafs

# Table 1 of the paper (PAPER.md §6), two decimals as printed there.
TABLE1 = {
    # name: |X_s|, π_ar, π_pcr(p1), π_pcr(p2), (π_dpc, π_bc, π_εa) vs Q or None for Q itself
    "q": (6, 0.83, 0.25, 1.00, None),
    "qa": (4, 0.75, 1.00, 1.00, (0.50, 0.50, 0.50)),
    "qb": (3, 1.00, 0.00, 1.00, (1.00, 1.00, 1.00)),
}


@pytest.fixture(scope="module")
def paper(paper_dir):
    return {n: load_qbaf(paper_dir / f"{n}.json") for n in TABLE1}


@pytest.mark.parametrize("name", sorted(TABLE1))
def test_table1(paper, name):
    n_s, ar, pcr1, pcr2, pairwise = TABLE1[name]
    q = paper[name]
    rel = argument_relevance(q)
    assert rel.n_speech == n_s
    assert round(rel.value, 2) == ar
    assert round(pro_con_ratio(q, "p1").value, 2) == pcr1
    assert round(pro_con_ratio(q, "p2").value, 2) == pcr2
    if pairwise is not None:
        got = (
            d_preferability_consistency(q, paper["q"]).value,
            balance_consistency(q, paper["q"]).value,
            epsilon_accuracy(q, paper["q"]).value,
        )
        assert got == pairwise  # exact: 1/2 and 2/2 are exact binary fractions


def test_table1_details(paper):
    # Exact fractions behind the rounded table entries, and the per-proposal verdicts.
    q, qa, qb = paper["q"], paper["qa"], paper["qb"]
    assert argument_relevance(q).value == pytest.approx(5 / 6)
    assert argument_relevance(q).irrelevant == ("s6",)
    r = pro_con_ratio(q, "p1")
    assert (r.n_pro, r.n_con, r.n_both, r.n_total) == (1, 3, 0, 4)
    bc = balance_consistency(qa, q)
    assert dict(bc.agree) == {"p1": False, "p2": True}
    assert bc.disagreeing == ("p1",) and bc.n_agree == 1 and bc.n_proposals == 2
    assert dict(epsilon_accuracy(qa, q).agree) == {"p1": False, "p2": True}  # 0.28 and 0.08 apart
    assert dict(d_preferability_consistency(qa, q).agree) == {"p1": False, "p2": True}
    assert d_preferability_consistency(qa, q).symbol == "π_dpc"
    # Qb* agrees with Q on both proposals under all three metrics (Table 1: 1.00 / 1.00 / 1.00).
    assert balance_consistency(qb, q).disagreeing == () and balance_consistency(qb, q).n_agree == 2
    assert dict(epsilon_accuracy(qb, q).agree) == {"p1": True, "p2": True}


def _debate(n_speech=0, attacks=(), supports=(), proposals=("p1",), tau=0.2, name=None):
    args = [Argument(p, "proposal", 0.5) for p in proposals] + [Argument(f"s{i + 1}", base_score=tau) for i in range(n_speech)]
    return QBAF.from_arguments(args, attacks, supports, debate=True, name=name)


def test_no_speech_arguments():
    q = _debate(0, proposals=("p1", "p2"))
    rel = argument_relevance(q)
    assert rel.value is None and rel.n_speech == 0 and rel.relevant == 0
    m = mean_pro_con_ratio(q)
    assert m.value is None and m.undefined == ("p1", "p2") and m.n_defined == 0
    # Q compared with itself: every pairwise metric is still defined (there are proposals).
    assert balance_consistency(q, q).value == 1.0
    assert epsilon_accuracy(q, q).value == 1.0
    assert d_preferability_consistency(q, q).value == 1.0


def test_no_proposals_pairwise_undefined():
    q = QBAF.from_arguments([Argument("s1")], debate=True)
    assert balance_consistency(q, q).value is None
    assert epsilon_accuracy(q, q).n_proposals == 0
    assert mean_pro_con_ratio(q).value is None
    assert argument_relevance(q).value == 0.0


def test_proposal_without_pro_or_con():
    # p2 has no argument at all: undefined, excluded from the mean and counted.
    q = _debate(2, attacks=[("s1", "p1")], supports=[("s2", "p1")], proposals=("p1", "p2"))
    m = mean_pro_con_ratio(q)
    assert m.ratios["p1"].value == 0.5
    assert m.ratios["p2"].value is None and m.ratios["p2"].n_total == 0
    assert m.value == 0.5 and m.undefined == ("p2",) and m.n_defined == 1


def test_only_con_gives_zero_not_undefined():
    q = _debate(1, attacks=[("s1", "p1")])
    assert pro_con_ratio(q, "p1").value == 0.0


def test_argument_in_both_pro_and_con():
    # s2 reaches p1 via s1 (attack, attack: pro) and directly (attack: con).
    q = _debate(2, attacks=[("s1", "p1"), ("s2", "s1"), ("s2", "p1")])
    r = pro_con_ratio(q, "p1")
    assert (r.n_pro, r.n_con, r.n_both, r.n_total) == (1, 2, 1, 2)
    assert r.value == 0.5


def test_proposals_excluded_from_counts():
    # A path between proposals cannot exist in a debate QBAF; but in a plain QBAF a "proposal"
    # could be a source: only speech arguments are counted in π_pcr.
    args = [Argument("p1", "proposal", 0.5), Argument("p2", "proposal", 0.5), Argument("s1")]
    q = QBAF.from_arguments(args, attacks=[("p2", "p1")], supports=[("s1", "p1")], debate=False)
    r = pro_con_ratio(q, "p1")
    assert (r.n_pro, r.n_con, r.n_total, r.value) == (1, 0, 1, 1.0)


def test_strength_exactly_half():
    # p1 without arguments has σ = 0.5 exactly; a summary where it is balanced agrees, one where
    # it is supported does not.
    q = _debate(0)
    same = _debate(0, name="same")
    supported = _debate(1, supports=[("s1", "p1")], name="supported")
    attacked = _debate(1, attacks=[("s1", "p1")])
    assert balance_consistency(same, q).value == 1.0
    assert balance_consistency(supported, q).value == 0.0
    assert balance_consistency(attacked, q).value == 0.0
    # A support and an attack of equal strength cancel: σ = 0.5 exactly, agrees with balanced.
    cancel = _debate(2, attacks=[("s1", "p1")], supports=[("s2", "p1")])
    assert balance_consistency(cancel, q).value == 1.0


def test_balance_tolerance():
    assert balance_side(0.5) == 0
    assert balance_side(0.5 + 1e-12) == 0
    assert balance_side(0.5 - 1e-12) == 0
    assert balance_side(0.5 + 1e-6) == 1
    assert balance_side(0.4) == -1
    assert balance_side(0.5 + 1e-12, tolerance=0.0) == 1
    q = _debate(0)
    noisy = {"p1": 0.5 + 1e-12}
    assert balance_consistency(q, q, summary_strengths=noisy).value == 1.0
    assert balance_consistency(q, q, summary_strengths=noisy, tolerance=0.0).value == 0.0
    with pytest.raises(ValueError, match="tolerance"):
        balance_consistency(q, q, tolerance=-1)


def test_epsilon_boundary():
    q = _debate(0)
    # 0.4 - 0.3 is 0.10000000000000003 in floating point: within ε = 0.1 up to the tolerance.
    assert epsilon_accuracy(q, q, summary_strengths={"p1": 0.4}, source_strengths={"p1": 0.3}).value == 1.0
    assert epsilon_accuracy(q, q, summary_strengths={"p1": 0.41}, source_strengths={"p1": 0.3}).value == 0.0
    assert epsilon_accuracy(q, q, epsilon=0.2, summary_strengths={"p1": 0.41}, source_strengths={"p1": 0.3}).value == 1.0
    r = epsilon_accuracy(q, q, epsilon=0.05)
    assert r.parameters["epsilon"] == 0.05
    with pytest.raises(ValueError, match="epsilon"):
        epsilon_accuracy(q, q, epsilon=-0.1)


def test_mismatched_proposals_error_names_ids():
    q = _debate(1, proposals=("p1", "p2", "p3"), name="debate")
    q_star = _debate(1, proposals=("p1", "p9"), name="summary")
    for f in (balance_consistency, epsilon_accuracy, d_preferability_consistency):
        with pytest.raises(ProposalMismatchError) as e:
            f(q_star, q)
        msg = str(e.value)
        assert "'p2'" in msg and "'p3'" in msg and "'p9'" in msg and "intersection" in msg
        assert "lacks source proposal(s) ['p2', 'p3']" in msg and "proposal(s) ['p9']" in msg
    r = balance_consistency(q_star, q, on_mismatch="intersection")
    assert tuple(r.agree) == ("p1",)
    m = match_proposals(q, q_star, on_mismatch="intersection")
    assert m.shared == ("p1",) and m.missing_in_summary == ("p2", "p3") and m.extra_in_summary == ("p9",)
    assert not m.exact


def test_summary_missing_a_proposal():
    q = _debate(0, proposals=("p1", "p2"))
    q_star = _debate(0, proposals=("p1",))
    with pytest.raises(ProposalMismatchError, match=r"lacks source proposal\(s\) \['p2'\]"):
        epsilon_accuracy(q_star, q)
    assert epsilon_accuracy(q_star, q, on_mismatch="intersection").value == 1.0


def test_proposal_as_speech_on_other_side_is_named():
    q = _debate(0, proposals=("p1", "p2"))
    q_star = QBAF.from_arguments([Argument("p1", "proposal", 0.5), Argument("p2")], debate=True)
    with pytest.raises(ProposalMismatchError, match="speech arguments"):
        balance_consistency(q_star, q)


def test_unknown_proposal_id():
    q = _debate(0)
    with pytest.raises(UnknownArgumentError, match="'nope'"):
        pro_con_ratio(q, "nope")
    with pytest.raises(UnknownArgumentError, match="'nope'"):
        balance_consistency(q, q, proposals=["nope"])


# ---------------------------------------------------------------------------- properties
@settings(max_examples=60, deadline=None)
@given(debate_qbafs(max_proposals=3, max_speech=7, acyclic=None))
def test_pro_con_ratio_matches_reference(q):
    for p, r in pro_con_ratios(q).items():
        pro, con = pro_con_reference(q, p)
        speech = set(q.speech_arguments)
        pro, con = pro & speech, con & speech
        total = len(pro | con)
        assert r.n_total == total and r.n_pro == len(pro) and r.n_con == len(con)
        assert r.value == (len(pro) / total if total else None)


@settings(max_examples=60, deadline=None)
@given(debate_qbafs(max_proposals=3, max_speech=7, acyclic=None))
def test_relevance_brute_force(q):
    # Brute force: s is relevant iff s is in pro(p) ∪ con(p) of some proposal p.
    rel = set()
    for p in q.proposals:
        pro, con = pro_con_reference(q, p)
        rel |= (pro | con) & set(q.speech_arguments)
    r = argument_relevance(q)
    assert r.relevant == len(rel)
    assert set(r.irrelevant) == set(q.speech_arguments) - rel


@settings(max_examples=40, deadline=None)
@given(debate_qbafs(max_proposals=3, max_speech=6, acyclic=True))
def test_self_comparison_is_perfect(q):
    assert balance_consistency(q, q).value == 1.0
    assert epsilon_accuracy(q, q, epsilon=0.0).value == 1.0
    assert d_preferability_consistency(q, q).value == 1.0


@settings(max_examples=40, deadline=None)
@given(
    debate_qbafs(max_proposals=3, max_speech=5, acyclic=True),
    st.floats(0, 1),
    st.floats(0, 0.5),
)
def test_pairwise_in_unit_interval_and_monotone_in_epsilon(q, shift, eps):
    # Shift the summary strengths arbitrarily: π_εa is monotone in ε and everything is in [0, 1].
    s_star = {p: shift for p in q.proposals}
    a = epsilon_accuracy(q, q, epsilon=eps, summary_strengths=s_star).value
    b = epsilon_accuracy(q, q, epsilon=eps + 0.1, summary_strengths=s_star).value
    c = balance_consistency(q, q, summary_strengths=s_star).value
    assert 0.0 <= a <= b <= 1.0 and 0.0 <= c <= 1.0
