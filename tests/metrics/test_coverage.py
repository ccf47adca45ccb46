"""Argument coverage on the paper's worked example (hand-computed), and its relation to π_sar."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.errors import ConfigurationError, DataFormatError
from argfaith.metrics.alignment import AlignedPair, Alignment, IdAligner, LexicalAligner
from argfaith.metrics.coverage import argument_coverage, salience_scores, salient_arguments
from argfaith.metrics.supplementary import supplementary_recall
from argfaith.qbaf import Argument, QBAF, load_qbaf
from argfaith.qbaf.strategies import debate_qbafs

PAPER = Path(__file__).resolve().parent.parent.parent / "examples" / "paper"


@pytest.fixture(scope="module")
def q() -> QBAF:
    return load_qbaf(PAPER / "q.json")


@pytest.fixture(scope="module")
def qa() -> QBAF:
    return load_qbaf(PAPER / "qa.json")


@pytest.fixture(scope="module")
def qb() -> QBAF:
    return load_qbaf(PAPER / "qb.json")


def test_salience_scores_by_hand(q: QBAF) -> None:
    # every speech argument of Q has σ = 0.2 (s1: one attacker and one supporter of equal strength)
    assert salience_scores(q, "strength") == pytest.approx({f"s{i}": 0.2 for i in range(1, 7)})
    assert salience_scores(q, "degree") == {"s1": 3, "s2": 1, "s3": 1, "s4": 1, "s5": 1, "s6": 0}
    assert salience_scores(q, "replies") == {"s1": 2, "s2": 0, "s3": 0, "s4": 0, "s5": 0, "s6": 0}
    # removal influence: σ(p1) = 0.32 with s1, s2 attacking; σ(p2) = 0.6 with s5 supporting
    infl = salience_scores(q, "influence")
    assert infl == pytest.approx({"s1": 0.08, "s2": 0.08, "s3": 0.016, "s4": 0.064, "s5": 0.1, "s6": 0.0})


def test_salient_sets_and_tie_breaks(q: QBAF) -> None:
    assert salient_arguments(q, k=3, salience="influence") == ("s5", "s1", "s2")  # s1/s2 tie: s1 has degree 3
    assert salient_arguments(q, k=3, salience="strength") == ("s1", "s2", "s3")  # all tied: degree, then order
    assert salient_arguments(q, k=2, salience="degree") == ("s1", "s2")
    assert salient_arguments(q, fraction=0.5, salience="replies") == ("s1", "s2", "s3")
    assert len(salient_arguments(q, k=100)) == 6
    with pytest.raises(ConfigurationError, match="k must be"):
        salient_arguments(q, k=0)
    with pytest.raises(ConfigurationError, match="fraction"):
        salient_arguments(q, fraction=1.5)
    with pytest.raises(ConfigurationError, match="unknown salience"):
        salience_scores(q, "loudness")  # type: ignore[arg-type]


def test_coverage_of_the_worked_example(q: QBAF, qa: QBAF, qb: QBAF) -> None:
    a = argument_coverage(q, qa, IdAligner(), k=3, salience="influence")
    assert (a.value, a.covered, a.uncovered) == (pytest.approx(1 / 3), ("s5",), ("s1", "s2"))
    assert a.supplementary_recall == pytest.approx(3 / 6)  # s4, s5, s6 of six
    b = argument_coverage(q, qb, IdAligner(), k=3, salience="influence")
    assert b.value == 1.0 and b.supplementary_recall == pytest.approx(3 / 6)
    # Qa* keeps half of the arguments but misses the ones that move p1: coverage separates them
    assert argument_coverage(q, qa, IdAligner(), k=2, salience="degree").value == 0.0
    d = b.to_dict()
    assert d["symbol"] == "π_cov" and d["alignment_method"] == "id" and d["k"] == 3


def test_precomputed_alignment_is_checked(q: QBAF, qa: QBAF) -> None:
    al = Alignment((AlignedPair("s4", "s4"), AlignedPair("p1", "s5")), "file")
    with pytest.raises(DataFormatError, match="'p1' is not a speech argument"):
        argument_coverage(q, qa, al)


def test_text_aligner_through_the_same_interface() -> None:
    src = QBAF.from_arguments(
        [Argument("p1", "proposal", 0.5, text="Ban cars"), Argument("s1", text="Cars pollute the city air"),
         Argument("s2", text="Cars are convenient"), Argument("s3", text="Pollution kills thousands every year")],
        attacks=[("s2", "p1")], supports=[("s1", "p1"), ("s3", "s1")], debate=True)
    summ = QBAF.from_arguments(
        [Argument("p1", "proposal", 0.5, text="Ban cars"), Argument("t1", text="Cars pollute the city air a lot")],
        attacks=[], supports=[("t1", "p1")], debate=True)
    r = argument_coverage(src, summ, LexicalAligner(threshold=0.5), k=1, salience="strength")
    assert r.salient == ("s1",) and r.value == 1.0  # s1: supported, σ = 0.36 > 0.2
    assert r.supplementary_recall == pytest.approx(1 / 3)


def test_no_speech_arguments() -> None:
    src = QBAF.from_arguments([Argument("p1", "proposal", 0.5)], attacks=[], supports=[], debate=True)
    r = argument_coverage(src, src, IdAligner())
    assert r.value is None and r.k == 0


@settings(max_examples=60, deadline=None)
@given(debate_qbafs(max_speech=7), st.data())
def test_full_salient_set_equals_pi_sar_and_coverage_is_monotone(q: QBAF, data: st.DataObject) -> None:
    speech = list(q.speech_arguments)
    kept = data.draw(st.lists(st.sampled_from(speech), unique=True) if speech else st.just([]))
    al = Alignment(tuple(AlignedPair(a, a) for a in kept), "id")
    summary = QBAF.from_arguments([Argument(p, "proposal", 0.5) for p in q.proposals] + [Argument(a) for a in kept],
                                  attacks=[], supports=[], debate=True)
    if not speech:
        assert argument_coverage(q, summary, al).value is None
        return
    full = argument_coverage(q, summary, al, k=len(speech), salience="degree")
    assert full.value == pytest.approx(supplementary_recall(summary, q, al).value)
    # the covered count grows with k and never exceeds it
    covered = [len(argument_coverage(q, summary, al, k=k, salience="strength").covered) for k in range(1, len(speech) + 1)]
    assert all(b - a in (0, 1) for a, b in zip(covered, covered[1:]))
