"""QBAF builders: temporal constraint, acyclicity by construction, summary anchoring, provenance."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.mining.build import (
    Relation,
    RelationError,
    TemporalConstraintError,
    build_source_qbaf,
    build_summary_qbaf,
)
from argfaith.mining.candidates import source_candidates, summary_candidates
from argfaith.mining.units import ArgumentUnit
from argfaith.qbaf import dfquad_strengths


def speech(n: int, prefix: str = "s") -> list[ArgumentUnit]:
    return [
        ArgumentUnit(f"{prefix}{i}", "speech", f"text {i}", "sentence", f"iv{i // 2}", 3 * i, 3 * i + 2, speaker=f"Sp{i % 3}", position=i, intervention_position=i // 2, k=i % 2 + 1)
        for i in range(n)
    ]


PROPS = [ArgumentUnit(f"p{i}", "proposal", f"{i + 1}. Provision", "provision", f"PAR-{i + 1}", 0, 12, k=i + 1) for i in range(2)]


def test_source_qbaf_structure_and_provenance():
    sp = speech(3)
    rels = [Relation("s1", "p0", "attack"), Relation("s2", "s1", "support", 0.7), Relation("s2", "p1", "no relation")]
    q = build_source_qbaf(PROPS, sp, rels, tau=0.25, name="deb", info={"classifier": "x"})
    assert q.debate and q.name == "deb" and q.info["classifier"] == "x"
    assert q.proposals == ("p0", "p1") and q.speech_arguments == ("s0", "s1", "s2")
    assert q.attacks == (("s1", "p0"),) and q.supports == (("s2", "s1"),)
    a = q.argument("s2")
    assert a.base_score == 0.25 and a.text == "text 2" and a.speaker == "Sp2" and a.position == 2
    assert dict(a.metadata) == {"origin": "sentence", "document": "iv1", "start": 6, "end": 8, "intervention_position": 1}
    assert q.argument("p1").base_score == 0.5 and q.argument("p1").text == "2. Provision"
    assert q.is_acyclic()


@pytest.mark.parametrize(
    "rel, err, msg",
    [
        (Relation("s0", "s1", "attack"), TemporalConstraintError, "breaks the temporal constraint"),
        (Relation("s1", "s1", "attack"), RelationError, "itself|temporal"),
        (Relation("p0", "s1", "support"), RelationError, "may not leave a proposal"),
        (Relation("s1", "zz", "support"), RelationError, "unknown argument 'zz'"),
        (Relation("s1", "p0", "agree"), RelationError, "unknown label 'agree'"),
    ],
)
def test_source_qbaf_rejects_bad_relations(rel, err, msg):
    with pytest.raises(err, match=msg):
        build_source_qbaf(PROPS, speech(3), [rel])


def test_conflicting_labels_are_an_error_and_duplicates_are_fine():
    sp = speech(2)
    with pytest.raises(RelationError, match="labelled both"):
        build_source_qbaf(PROPS, sp, [Relation("s1", "p0", "attack"), Relation("s1", "p0", "support")])
    q = build_source_qbaf(PROPS, sp, [Relation("s1", "p0", "attack"), Relation("s1", "p0", "attacks")])
    assert q.attacks == (("s1", "p0"),)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 12), st.data())
def test_any_labelling_of_source_candidates_is_acyclic(n, data):
    sp = speech(n)
    pairs = source_candidates(sp, PROPS)
    labels = data.draw(st.lists(st.sampled_from(["attack", "support", "no relation"]), min_size=len(pairs), max_size=len(pairs)))
    q = build_source_qbaf(PROPS, sp, [Relation(p.source_id, p.target_id, lbl) for p, lbl in zip(pairs, labels)])  # type: ignore[arg-type]
    assert q.is_acyclic()
    assert len(q.attacks) == labels.count("attack") and len(q.supports) == labels.count("support")
    assert dfquad_strengths(q).converged


def test_summary_qbaf_allows_cycles_and_keeps_proposal_ids():
    sp = speech(2, prefix="sum-")
    rels = [Relation("sum-0", "sum-1", "attack"), Relation("sum-1", "sum-0", "attack"), Relation("sum-0", "p0", "support")]
    q = build_summary_qbaf(PROPS, sp, rels, tau=0.2, name="summary")
    assert not q.is_acyclic()
    assert q.proposals == ("p0", "p1")
    src = build_source_qbaf(PROPS, speech(1), [])
    assert [q.argument(p).text for p in q.proposals] == [src.argument(p).text for p in src.proposals]


def test_summary_candidates_build():
    sp = speech(4, prefix="x")
    pairs = summary_candidates(sp, PROPS)
    q = build_summary_qbaf(PROPS, sp, [Relation(p.source_id, p.target_id, "support") for p in pairs])
    assert len(q.supports) == len(pairs)
