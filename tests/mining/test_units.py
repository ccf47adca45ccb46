"""Argument units: ids, offsets, speaker headers, the filtering policies, summaries."""

from __future__ import annotations

from dataclasses import replace

import pytest

from argfaith.datasets.documents import Debate, Intervention, Provision, Summary
from argfaith.datasets.ep import read_ep_debate
from argfaith.datasets.summaries import read_summary
from argfaith.errors import ConfigurationError
from argfaith.mining.segment import clean_markdown
from argfaith.mining.units import (
    KEEP_ALL,
    SENTENCE_POLICY,
    SUMMARY_POLICY,
    SUMMARY_POLICY_V1,
    UnitPolicy,
    is_chair,
    proposal_units,
    speaker_header_length,
    speech_units,
    summary_name,
    summary_units,
    units_by_id,
    word_count,
)

from .conftest import EP_DEBATE, EP_SUMMARY


@pytest.mark.parametrize(
    "speaker, text, rest",
    [
        ("Edit Herczog (PSE),", "Edit Herczog (PSE), rapporteur. – (HU) Globalisation has been present.", "Globalisation has been present."),
        ("Paul Rübig (PPE-DE).", "Paul Rübig (PPE-DE). – (DE) Madam President, thank you.", "Madam President, thank you."),
        ("Joaquín Almunia,", "Joaquín Almunia, Member of the Commission . (ES) Mr President, I thank you.", "Mr President, I thank you."),
        ("Carl Schlyter", "Carl Schlyter , on behalf of the Verts/ALE Group . – (SV) Mr President, no.", "Mr President, no."),
        ("President.", "President. The debate is closed.", "The debate is closed."),
        ("President. –", "President. – The next item is the report.", "The next item is the report."),
        ("Jean-Claude Juncker,", "Jean-Claude Juncker, President of the Eurogroup − (FR) Madam President, yes.", "Madam President, yes."),
        ("Jeffrey Titford (IND/DEM). –", "Jeffrey Titford (IND/DEM). – Madam President, this proposal.", "Madam President, this proposal."),
        ("Someone", "Text that does not start with the speaker.", "Text that does not start with the speaker."),
        (None, "No speaker at all.", "No speaker at all."),
    ],
)
def test_speaker_header(speaker, text, rest):
    assert text[speaker_header_length(text, speaker) :] == rest


def test_header_never_eats_a_dash_inside_the_speech():
    t = "Anna Example, rapporteur. Children – all of them – need food."
    assert t[speaker_header_length(t, "Anna Example,") :] == "Children – all of them – need food."


@pytest.mark.parametrize(
    "speaker, chair",
    [("President.", True), ("President. –", True), ("President. −", True), ("El Presidente.", True),
     ("IN THE CHAIR: MR PÖTTERING", True), ("President", True),
     ("José Manuel Barroso,", False), ("Presidency", False), ("Anna Example (PSE),", False), ("", False), (None, False)],
)
def test_is_chair(speaker, chair):
    assert is_chair(speaker) is chair


def test_spans_units_ids_offsets():
    d = read_ep_debate(EP_DEBATE)
    ext = speech_units(d)  # auto: the fixture has spans
    assert ext.method == "spans" and ext.policy == KEEP_ALL
    ids = [u.id for u in ext.units]
    assert ids == [
        "CRE-20990101-ITEM-001-1-010-1",
        "CRE-20990101-ITEM-001-1-010-2",
        "CRE-20990101-ITEM-001-1-010-3",
        "CRE-20990101-ITEM-001-1-011-1",
        "CRE-20990101-ITEM-001-1-011-2",
        "CRE-20990101-ITEM-001-1-012-1",
    ]
    assert [u.position for u in ext.units] == list(range(6))
    by_iv = {iv.id: iv for iv in d.interventions}
    for u in ext.units:
        assert by_iv[u.document].text[u.start : u.end] == u.text
        assert u.origin == "span" and u.speaker == by_iv[u.document].speaker
    assert ext.units[1].segment_kind == "claim"


def test_sentence_units_default_policy():
    d = read_ep_debate(EP_DEBATE)
    ext = speech_units(d, units="sentences")
    assert ext.method == "sentences:rules" and ext.policy == SENTENCE_POLICY
    texts = [u.text for u in ext.units]
    assert texts[0] == "Mr President, children who eat well learn better."  # header "Anna Example (PSE), rapporteur. – (DE)" skipped
    assert "The Commission's own study, No. 3 of 2098, shows that obesity has doubled." in texts
    assert 'Mr. Smith said: "Subsidies never work. Ask any farmer."' in texts
    assert "Τα παιδιά χρειάζονται υγιεινό φαγητό;" in texts
    # The chair's interventions, the stage direction and short fragments are dropped, and counted.
    assert not any(u.document in ("1-009", "1-013") for u in ext.units)
    assert ext.dropped["chair"] == 3
    assert ext.dropped["stage_direction"] == 1
    assert ext.dropped["too_short"] >= 2  # "Ναι.", "Thank you."
    by_iv = {iv.id: iv for iv in d.interventions}
    for u in ext.units:
        assert clean_markdown(by_iv[u.document].text[u.start : u.end]) == u.text
        assert u.origin == "sentence"
    units_by_id(ext.units)  # unique ids


def test_sentence_ids_do_not_depend_on_the_policy():
    d = read_ep_debate(EP_DEBATE)
    filtered = {u.id: u.text for u in speech_units(d, units="sentences").units}
    everything = {u.id: u.text for u in speech_units(d, units="sentences", policy=replace(KEEP_ALL, strip_speaker_header=True)).units}
    assert len(everything) > len(filtered)
    for k, v in filtered.items():
        assert everything[k] == v


def test_keep_all_keeps_headers_and_chair():
    d = read_ep_debate(EP_DEBATE)
    ext = speech_units(d, units="sentences", policy=KEEP_ALL)
    assert ext.n_dropped == 0
    assert any(u.text.startswith("President.") for u in ext.units)
    assert any(u.text.startswith("Anna Example (PSE), rapporteur.") for u in ext.units)


def test_spans_mode_without_spans_is_an_error():
    d = read_ep_debate(EP_DEBATE, annotations=False)
    with pytest.raises(ConfigurationError, match="has no human argument spans; use units='sentences'"):
        speech_units(d, units="spans")
    assert speech_units(d).method.startswith("sentences")  # auto falls back
    with pytest.raises(ConfigurationError):
        speech_units(d, units="paragraphs")  # type: ignore[arg-type]


def test_policy_applies_to_spans_when_asked():
    d = read_ep_debate(EP_DEBATE)
    ext = speech_units(d, policy=UnitPolicy(min_words=7))
    assert all(word_count(u.text) >= 7 for u in ext.units)
    assert ext.dropped.get("too_short", 0) >= 1
    # ids keep the k of the full span list
    assert "CRE-20990101-ITEM-001-1-011-2" in {u.id for u in ext.units}


def test_proposal_units():
    d = read_ep_debate(EP_DEBATE)
    props = proposal_units(d)
    assert [p.id for p in props] == ["CRE-20990101-ITEM-001-P1", "CRE-20990101-ITEM-001-P2", "CRE-20990101-ITEM-001-P4"]
    assert props[2].text.startswith("4.   Instructs") and props[2].kind == "proposal" and props[2].position is None


def test_summary_units():
    s = read_summary(EP_SUMMARY)
    ext = summary_units(s, policy=replace(SUMMARY_POLICY, argumentative=False))  # the structural rules alone
    texts = [u.text for u in ext.units]
    assert summary_name(s) == "CRE-20990101-ITEM-001-claude_structured_en"
    assert ext.units[0].id.startswith("CRE-20990101-ITEM-001-claude_structured_en-")
    assert texts[0] == 'Anna Example (PSE), the rapporteur, argued that "children who eat well learn better. Fresh vegetables cost little" [Example, 2099-01-01].'
    assert "She cited study No. 3 of 2098." in texts
    assert "Jan Kowalski opposed EU-level menus." in texts
    assert 'Eleni Papadopoulou supported free meals: "Τα παιδιά χρειάζονται υγιεινό φαγητό."' in texts
    assert "Fresh vegetables in every canteen." in texts
    assert ext.dropped == {"heading": 4, "metadata": 2}  # 3 headings + the bold-only end line; Topic, Date
    assert [u.position for u in ext.units] == list(range(len(ext.units)))
    for u in ext.units:
        assert u.text in clean_markdown(s.text[u.start : u.end], block_start=True) or u.text == clean_markdown(
            s.text[u.start : u.end], block_start=False
        )


def test_v1_summary_policy_dropped_bold_openings():
    """The pre-issue-21 rule dropped '**Label:** value' lines under 12 words whatever the label; the
    metadata rule keeps an argument that opens with a bold phrase and drops metadata of any length."""
    text = ("**Date:** 13 February 2006, in Strasbourg, during the sitting of the European Parliament that week\n\n"
            "**Innovation Focus:** Strong support emerged for redirecting aid toward research.\n\n"
            "**Greek MEPs mounted a strong defense** of their country's position.\n")
    s = Summary(debate_id="d", text=text, variant="v")
    v1 = [u.text for u in summary_units(s, policy=SUMMARY_POLICY_V1).units]
    rules = summary_units(s, policy=replace(SUMMARY_POLICY, argumentative=False))
    assert not any("Strong support" in t for t in v1) and not any("defense" in t for t in v1)
    assert [u.k for u in rules.units] == [2, 3] and rules.dropped == {"metadata": 1}


def test_argumentativeness_filter_drops_framing_keeps_arguments():
    """The default summary policy runs the shipped classifier after the rules (issue 21)."""
    text = ("The debate centered on the reform of State aid. "
            "Several speakers called for a moratorium on deep-sea trawling because it destroys coral reefs. "
            "This report is based on the comprehensive analysis of contributions from the debate.")
    ext = summary_units(Summary(debate_id="d", text=text, variant="v"))
    assert [u.text for u in ext.units] == ["Several speakers called for a moratorium on deep-sea trawling because it destroys coral reefs."]
    assert ext.dropped == {"not_argument": 2}
    assert [u.k for u in ext.units] == [2]  # ids keep counting every segment


def test_empty_summary_has_no_units():
    s = Summary(debate_id="d", text="", variant="v")
    assert summary_units(s).units == ()


def test_hand_built_debate_ids():
    d = Debate(
        id="deb",
        title="T",
        provisions=(Provision("PAR-1", "1. Do it."),),
        interventions=(Intervention("a", "Ann", "We must do it now. Really we must.", 0),),
    )
    ext = speech_units(d)
    assert [u.id for u in ext.units] == ["deb-a-1", "deb-a-2"]


def test_every_real_summary_file_plans_against_its_debate():
    """Data-dependent (ARGFAITH_DATA): every summary file of ep_summaries segments and plans."""
    import os
    from pathlib import Path

    from argfaith.datasets.ep import find_ep_debate
    from argfaith.datasets.summaries import iter_summaries
    from argfaith.mining.pipeline import plan_summary

    raw = os.environ.get("ARGFAITH_DATA")
    if not raw or not (Path(raw) / "ep_summaries").is_dir():
        pytest.skip("set ARGFAITH_DATA to the shared data folder to run the corpus test")
    debates: dict[str, object] = {}
    n = 0
    for s in iter_summaries(raw):
        d = debates.get(s.debate_id) or read_ep_debate(find_ep_debate(raw, s.debate_id))
        debates[s.debate_id] = d
        plan = plan_summary(s, d)  # type: ignore[arg-type]
        assert plan.proposals and (plan.speech or s.metadata.get("missing_text"))
        for u in plan.speech:
            assert u.text and 0 <= u.start < u.end <= len(s.text)
        n += 1
    assert n == 56
