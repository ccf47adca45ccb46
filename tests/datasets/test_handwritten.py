"""Hand-written formats: JSON debates, [ID] Speaker: text transcripts, plain-text summaries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.datasets.documents import Debate, Intervention, Provision, load_debate
from argfaith.datasets.ep import read_ep_debate
from argfaith.datasets.handwritten import (
    debate_from_dict,
    debate_to_dict,
    format_transcript,
    parse_transcript,
    read_debate_json,
    read_text_summary,
    read_transcript,
)
from argfaith.errors import DataFormatError

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "mining"

TRANSCRIPT = """# title: School uniforms (debate)
# id: uniforms
[PAR-1] Provision: 1. Requires uniforms in all public schools;
[PAR-2] resolution: 2. Calls for subsidies to low-income families;

[1] Alice (Greens): Uniforms reduce bullying.
They also save time in the morning.
[2] Bob: They cost families money: about 200 euros a year.
"""


def test_parse_transcript():
    d = parse_transcript(TRANSCRIPT, source="t.txt")
    assert d.id == "uniforms" and d.title == "School uniforms (debate)" and d.topic == "School uniforms"
    assert [(p.id, p.number) for p in d.provisions] == [("PAR-1", 1), ("PAR-2", 2)]
    assert [(iv.id, iv.speaker, iv.position) for iv in d.interventions] == [("1", "Alice (Greens)", 0), ("2", "Bob", 1)]
    assert d.interventions[0].text == "Uniforms reduce bullying.\nThey also save time in the morning."
    # Only the first colon separates the speaker.
    assert d.interventions[1].text == "They cost families money: about 200 euros a year."
    assert d.spans is None


@pytest.mark.parametrize(
    "text, message",
    [
        ("hello\n[1] A: x", r"t\.txt:1: expected an '\[ID\] Speaker: text' line"),
        ("", "no '\\[ID\\] Speaker: text' lines"),
        ("[1] A: x\n[1] B: y", r"t\.txt:2: duplicate id \[1\] \(first on line 1\)"),
        ("[1] A:   \n[2] B: y", r"t\.txt:1: \[1\] has no text"),
        ("[P] Provision: 1. x", "has provisions but no interventions"),
    ],
)
def test_transcript_errors(text: str, message: str):
    with pytest.raises(DataFormatError, match=message):
        parse_transcript(text, source="t.txt")


def test_transcript_round_trip_with_lookalike_lines():
    d = Debate(
        id="d",
        title="T",
        provisions=(Provision("PAR-1", "1. A provision", number=1),),
        interventions=(
            Intervention("1", "Ann", "First line.\n[2] Bob: not a header, a quote\n\\ backslash line", 0),
            Intervention("x-2", "Bob Smith (NI)", "Only line.", 1),
        ),
    )
    back = parse_transcript(format_transcript(d))
    assert back.provisions == d.provisions
    assert back.interventions == d.interventions


_line = st.text(st.characters(blacklist_categories=("Cs", "Zl", "Zp"), blacklist_characters="\r\n\x0b\x0c\x1c\x1d\x1e\x85"), max_size=30)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(_line, min_size=1, max_size=4).filter(lambda ls: any(x.strip() for x in ls) and ls[-1].strip()), min_size=1, max_size=4))
def test_transcript_round_trip_property(bodies):
    ivs = tuple(Intervention(str(i + 1), f"S{i}", "\n".join(b), i) for i, b in enumerate(bodies))
    d = Debate(id="d", title="T", provisions=(), interventions=ivs)
    assert parse_transcript(format_transcript(d)).interventions == ivs


def test_format_transcript_rejects_unwritable():
    d = Debate(id="d", title="T", provisions=(), interventions=(Intervention("1", "A: B", "x", 0),))
    with pytest.raises(DataFormatError, match="cannot contain ':'"):
        format_transcript(d)


def test_json_debate(tmp_path: Path):
    data = {
        "title": "Uniforms (debate)",
        "provisions": ["1. Requires uniforms;", {"id": "P9", "text": "9. Subsidies;"}],
        "interventions": [
            {"speaker": "Alice", "text": "Uniforms reduce bullying. They save time."},
            {"id": "b", "speaker": "Bob", "text": "They cost money. Uniforms reduce bullying? No."},
        ],
        "spans": [
            {"intervention": "b", "text": "Uniforms reduce bullying? No."},
            {"intervention": "1", "start": 0, "end": 26},
        ],
    }
    f = tmp_path / "uniforms.json"
    f.write_text(json.dumps(data), encoding="utf-8")
    d = read_debate_json(f)
    assert d.id == "uniforms" and d.title == "Uniforms (debate)"
    assert [p.id for p in d.provisions] == ["PAR-1", "P9"]
    assert [iv.id for iv in d.interventions] == ["1", "b"]
    assert d.spans is not None
    assert [(s.intervention_id, s.text) for s in d.spans] == [
        ("1", "Uniforms reduce bullying."),  # trailing space of [0, 26) trimmed
        ("b", "Uniforms reduce bullying? No."),
    ]
    assert load_debate(f) == d
    # debate_to_dict is the inverse
    assert debate_from_dict(debate_to_dict(d), source=str(f)).interventions == d.interventions


@pytest.mark.parametrize(
    "patch, message",
    [
        ({"interventions": []}, "interventions: List should have at least 1 item"),
        ({"interventions": [{"speaker": "A"}]}, r"interventions\[0\]\.text: Field required"),
        ({"interventions": [{"text": "x", "colour": "red"}]}, r"interventions\[0\]\.colour: Extra inputs"),
        ({"interventions": [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]}, r"interventions\[1\]: duplicate id 'a'"),
        ({"spans": [{"intervention": "zz", "start": 0, "end": 1}]}, r"spans\[0\]: unknown intervention 'zz'"),
        ({"spans": [{"intervention": "1", "start": 0, "end": 999}]}, r"spans\[0\]: offsets \[0, 999\) outside"),
        ({"spans": [{"intervention": "1", "text": "not there"}]}, r"spans\[0\]: text 'not there' not found"),
        ({"spans": [{"intervention": "1", "start": 3}]}, r"spans\[0\]: give both"),
        ({"provisions": ["  "]}, r"provisions\[0\]: empty text"),
    ],
)
def test_json_debate_errors(patch, message):
    base = {"interventions": [{"text": "Uniforms reduce bullying."}]}
    base.update(patch)
    with pytest.raises(DataFormatError, match=message):
        debate_from_dict(base, source="d.json")


def test_read_text_summary(tmp_path: Path):
    f = tmp_path / "s.txt"
    f.write_text("Die Debatte war kurz. Alle stimmten zu.", encoding="utf-8")
    s = read_text_summary(f, debate_id="d")
    assert s.text.startswith("Die") and s.debate_id == "d" and s.variant == "s"
    (tmp_path / "e.txt").write_text("  \n", encoding="utf-8")
    with pytest.raises(DataFormatError, match="empty"):
        read_text_summary(tmp_path / "e.txt")


def test_ep_fixture_round_trips_through_transcript(tmp_path: Path):
    d = read_ep_debate(FIX / "ep_debates" / "debates" / "CRE-20990101-ITEM-001")
    f = tmp_path / "t.txt"
    f.write_text(format_transcript(d), encoding="utf-8")
    back = read_transcript(f)
    assert back.id == d.id and back.title == d.title
    assert [(p.id, p.text) for p in back.provisions] == [(p.id, p.text) for p in d.provisions]
    assert [(iv.id, iv.speaker, iv.text) for iv in back.interventions] == [
        (iv.id, iv.speaker, iv.text) for iv in d.interventions
    ]
