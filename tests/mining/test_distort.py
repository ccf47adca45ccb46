"""Summary distortions (argfaith.mining.distort): edits applied by offsets, rule-based distortions."""

from __future__ import annotations

from pathlib import Path

import pytest

from argfaith.datasets.documents import Summary
from argfaith.datasets.ep import read_ep_debate
from argfaith.datasets.summaries import read_summary
from argfaith.errors import ConfigurationError
from argfaith.mining.distort import (
    EXPECTED,
    KINDS,
    Distortion,
    SummaryEdit,
    apply_edits,
    invert_sentence,
    provision_gist,
    rule_distortions,
    sentences_about,
)
from argfaith.mining.units import EDIT_POLICY, proposal_units, summary_units

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "study"
DEBATE = FIX / "ep_debates" / "debates" / "CRE-20990201-ITEM-001"
SUMMARY = FIX / "ep_summaries" / "CRE-20990201-ITEM-001" / "CRE-20990201-ITEM-001_claude_en_zero_shot.json"


@pytest.fixture()
def summ() -> Summary:
    return read_summary(SUMMARY)


@pytest.fixture()
def debate():  # type: ignore[no-untyped-def]
    return read_ep_debate(DEBATE, annotations=False)


def texts(s: Summary) -> list[str]:
    """The sentences S1..Sn that summary edits number (EDIT_POLICY, frozen)."""
    return [u.text for u in summary_units(s, policy=EDIT_POLICY).units]


def test_apply_edits_delete_replace_insert(summ: Summary) -> None:
    before = texts(summ)
    out = apply_edits(summ, [SummaryEdit("delete", 4), SummaryEdit("replace", 2, "The rapporteur opposed annual inspections."),
                             SummaryEdit("insert_after", 5, "Several speakers praised the report."),
                             SummaryEdit("insert_after", 0, "Opening words were spoken first.")])
    after = texts(out)
    assert after == ["Opening words were spoken first.", before[0], "The rapporteur opposed annual inspections.", before[2], before[4],
                     "Several speakers praised the report."]
    assert out.metadata["distorted"] is True
    assert summ.text != out.text and texts(summ) == before  # the original is untouched


@pytest.mark.parametrize("edit, msg", [
    (SummaryEdit("delete", 6), "S1..S5"),
    (SummaryEdit("replace", 0, "x"), "S1..S5"),
    (SummaryEdit("insert_after", -1, "x"), "S1..S5"),
])
def test_apply_edits_out_of_range(summ: Summary, edit: SummaryEdit, msg: str) -> None:
    with pytest.raises(ConfigurationError, match=msg):
        apply_edits(summ, [edit])


def test_apply_edits_sentence_edited_twice(summ: Summary) -> None:
    with pytest.raises(ConfigurationError, match="edited twice"):
        apply_edits(summ, [SummaryEdit("delete", 2), SummaryEdit("replace", 2, "x")])


def test_edit_validation() -> None:
    with pytest.raises(ConfigurationError, match="unknown summary edit"):
        SummaryEdit("swap", 1, "x")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="needs a text"):
        SummaryEdit("replace", 1, "  ")
    with pytest.raises(ConfigurationError, match="unknown distortion kind"):
        Distortion("shuffle", "p", (), "rules")
    assert Distortion("invert", "X-PAR-3", (), "rules").expected == "cross"
    assert Distortion("invert", "X-PAR-3", (), "written", expected="down").name == "invert@3"


def test_provision_gist() -> None:
    assert provision_gist("12.   Calls on the Commission to act; notes the delay;") == "calls on the Commission to act"
    g = provision_gist("3. " + "word " * 50)
    assert g.endswith("…") and len(g.split()) == 31


@pytest.mark.parametrize("text, expected, n", [
    ("Most speakers supported the proposal.", "Most speakers opposed the proposal.", 1),
    ("Supporters welcomed the plan, calling it necessary.", "Supporters criticised the plan, calling it unnecessary.", 2),
    ("They argued it must not be delayed.", "They argued it must be delayed.", 1),
    ("The debate concerned port state inspections.", "The debate concerned port state inspections.", 0),
])
def test_invert_sentence(text: str, expected: str, n: int) -> None:
    assert invert_sentence(text) == (expected, n)


def test_sentences_about(summ: Summary, debate) -> None:  # type: ignore[no-untyped-def]
    about = sentences_about(summary_units(summ, policy=EDIT_POLICY).units, proposal_units(debate))
    par1 = "CRE-20990201-ITEM-001-P1"
    assert 2 in about[par1]  # "every ship should be inspected once a year" ~ provision 1
    assert about["CRE-20990201-ITEM-001-P4"] == []  # the forwarding clause is never discussed
    # every sentence is about at most one provision
    flat = [k for v in about.values() for k in v]
    assert len(flat) == len(set(flat))


def test_rule_distortions(summ: Summary, debate) -> None:  # type: ignore[no-untyped-def]
    ds = rule_distortions(summ, debate)
    kinds = {d.kind for d in ds}
    assert {"omit", "fabricate_support", "fabricate_attack"} <= kinds <= set(KINDS)
    par4 = "CRE-20990201-ITEM-001-P4"
    assert not any(d.provision == par4 and d.kind in ("omit", "invert") for d in ds)  # nothing to omit or invert
    for d in ds:
        assert d.method == "rules" and d.expected == EXPECTED[d.kind]
        out = apply_edits(summ, d.edits)  # every rule distortion applies
        if d.kind == "omit":
            assert len(texts(out)) == len(texts(summ)) - len(d.about)
        if d.kind.startswith("fabricate"):
            (e,) = d.edits
            gist = provision_gist(next(p.text for p in proposal_units(debate) if p.id == d.provision))
            assert gist in e.text and ("supported" in e.text) == (d.kind == "fabricate_support")
        if d.kind == "invert":
            assert all(e.op == "replace" for e in d.edits)
    with pytest.raises(ConfigurationError, match="not a provision"):
        rule_distortions(summ, debate, ["nope"])
    with pytest.raises(ConfigurationError, match="unknown distortion kind"):
        rule_distortions(summ, debate, kinds=["nope"])
