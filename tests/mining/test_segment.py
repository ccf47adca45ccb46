"""Sentence segmentation: golden cases for the hard spots, offset invariants, pluggable segmenters."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.errors import ConfigurationError
from argfaith.mining.segment import (  # noqa: I001
    _ITEM_RE,
    FunctionSegmenter,
    LineSegmenter,
    RuleSegmenter,
    Segmenter,
    clean_markdown,
)
from argfaith.mining.segmenters import make_segmenter, segment_sentences


def texts(t: str) -> list[str]:
    return [s.text for s in segment_sentences(t)]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("We agree. They do not.", ["We agree.", "They do not."]),
        ("Is it? Yes! Fine…  Done.", ["Is it?", "Yes!", "Fine…", "Done."]),
        # abbreviations and titles
        ("Mr. Smith and Mrs. Jones spoke. Dr. Who did not.", ["Mr. Smith and Mrs. Jones spoke.", "Dr. Who did not."]),
        ("See No. 3 of the report. Art. 5 applies.", ["See No. 3 of the report.", "Art. 5 applies."]),
        ("We want more, e.g. Greece. That is all.", ["We want more, e.g. Greece.", "That is all."]),
        ("As J. F. Kennedy said, we choose. Then we act.", ["As J. F. Kennedy said, we choose.", "Then we act."]),
        # decimals, numbers and report ids are not boundaries
        ("Growth was 3.5 % in 2005. In 2006 it fell.", ["Growth was 3.5 % in 2005.", "In 2006 it fell."]),
        ("The report ( A6-0021/2006 ) is good. We vote.", ["The report ( A6-0021/2006 ) is good.", "We vote."]),
        # lower case after a full stop: no boundary
        ("The vote is at 11 a.m. tomorrow. Thanks.", ["The vote is at 11 a.m. tomorrow.", "Thanks."]),
        # quotes stay together, and the sentence after a closing quote is split off
        (
            'He said: "Subsidies never work. Ask any farmer." He was right.',
            ['He said: "Subsidies never work. Ask any farmer."', "He was right."],
        ),
        (
            "She argued that “we cannot isolate ourselves. Not at all” [Herczog, 2006-02-13]. Her report was adopted.",
            ["She argued that “we cannot isolate ourselves. Not at all” [Herczog, 2006-02-13].", "Her report was adopted."],
        ),
        # a citation after the full stop belongs to the sentence it follows
        (
            'McCreevy said "openness pays." [McCreevy, 2006-02-13] Similarly, Herczog agreed.',
            ['McCreevy said "openness pays." [McCreevy, 2006-02-13]', "Similarly, Herczog agreed."],
        ),
        # parentheses with inner full stops
        ("The rules (see Art. 5. And more.) apply. Next.", ["The rules (see Art. 5. And more.) apply.", "Next."]),
        ("We must act. (Applause)", ["We must act.", "(Applause)"]),
        # German, Polish, Greek
        ("Am 3. Oktober war es so. Das ist z. B. wichtig. Gut.", ["Am 3. Oktober war es so.", "Das ist z. B. wichtig.", "Gut."]),
        ("Pan prof. Nowak, np. w pkt. 3, mówi. Koniec debaty.", ["Pan prof. Nowak, np. w pkt. 3, mówi.", "Koniec debaty."]),
        ("Τα παιδιά χρειάζονται φαγητό; Ναι. Ο κ. Παπαδόπουλος συμφωνεί.", ["Τα παιδιά χρειάζονται φαγητό;", "Ναι.", "Ο κ. Παπαδόπουλος συμφωνεί."]),
        # a semicolon in Latin script is not a boundary
        ("Free meals matter; the report is right. Yes.", ["Free meals matter; the report is right.", "Yes."]),
    ],
)
def test_golden_sentences(text: str, expected: list[str]):
    assert texts(text) == expected


MARKDOWN = """# Executive Summary: Meals

## 1. Debate Information

**Topic:** Healthy school meals  
**Date:** 1 January 2099

---

**Anna Example** (PSE) argued that "children learn better" [Example, 2099-01-01]. She cited study No. 3.

- Jan Kowalski opposed it. He said menus are local.
* Second item
1. **Fresh vegetables** in every canteen.
2) Free meals for all.

The text continues
on a wrapped line. And a new sentence.
"""


def test_markdown_structure():
    segs = segment_sentences(MARKDOWN)
    got = [(s.kind, s.text) for s in segs]
    assert got == [
        ("heading", "Executive Summary: Meals"),
        ("heading", "1. Debate Information"),
        ("sentence", "Topic: Healthy school meals"),
        ("sentence", "Date: 1 January 2099"),
        ("sentence", 'Anna Example (PSE) argued that "children learn better" [Example, 2099-01-01].'),
        ("sentence", "She cited study No. 3."),
        ("item", "Jan Kowalski opposed it."),
        ("sentence", "He said menus are local."),
        ("item", "Second item"),
        ("item", "Fresh vegetables in every canteen."),
        ("item", "Free meals for all."),
        ("sentence", "The text continues on a wrapped line."),
        ("sentence", "And a new sentence."),
    ]
    # Offsets point at the raw markdown.
    assert MARKDOWN[segs[4].start : segs[4].end].startswith("**Anna Example**")
    # Items of one list are separate blocks; the two sentences of an item share one.
    assert segs[6].block == segs[7].block != segs[8].block


def test_line_breaks_end_sentences_in_speeches():
    t = "The present system may continue until 2008\nThere are those who reject it.\nwhile others accept it."
    # An unpunctuated line followed by an upper-case line is a new unit; a lower-case line continues.
    assert texts(t) == ["The present system may continue until 2008", "There are those who reject it.", "while others accept it."]


def test_clean_markdown():
    assert clean_markdown("## **Bold** and *it* and `code` [link](http://x.y)") == "Bold and it and code link"
    assert clean_markdown("- item  with   spaces") == "item with spaces"
    assert clean_markdown("snake_case_name stays") == "snake_case_name stays"
    assert clean_markdown("[Herczog, 2006-02-13] stays") == "[Herczog, 2006-02-13] stays"


def test_long_quote_does_not_glue_everything():
    t = 'He said "' + "This is long. " * 80 + "End."
    assert len(texts(t)) > 50


_alphabet = st.sampled_from(list("ab Z.?!\n\"()[]*#-1;:,Σσ ") + ["Mr.", "No. 3", " e.g. ", "\n\n", "**", "- ", "## ", "[X, 2006-01-01]"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_alphabet, max_size=60).map("".join))
def test_offsets_invariants(text: str):
    segs = RuleSegmenter().segment(text)
    prev_end = 0
    covered = set()
    for s in segs:
        assert 0 <= s.start < s.end <= len(text)
        assert s.start >= prev_end  # in order, no overlap
        raw = text[s.start : s.end]
        assert raw == raw.strip()
        assert s.text == clean_markdown(raw, block_start=s.kind != "sentence")
        assert s.text and any(c.isalnum() for c in s.text)
        covered.update(range(s.start, s.end))
        prev_end = s.end
    # Nothing with letters or digits is lost: every alphanumeric character is in some segment,
    # except list markers ("a) ", "1. ") in front of an item with no content of its own.
    markers: set[int] = set()
    pos = 0
    for line in text.splitlines(keepends=True):
        m = _ITEM_RE.match(line)
        if m:
            markers.update(range(pos, pos + m.end()))
        pos += len(line)
    lost = [i for i, c in enumerate(text) if c.isalnum() and i not in covered and i not in markers]
    assert not lost, (text, lost)


def test_function_segmenter_maps_offsets():
    text = "One  sentence here.\nTwo follows. Three."
    seg = FunctionSegmenter(lambda t: ["One sentence here.", "Two follows.", "Three."], name="fake")
    got = seg.segment(text)
    assert [(s.start, s.end) for s in got] == [(0, 19), (20, 32), (33, 39)]
    assert [s.text for s in got] == ["One sentence here.", "Two follows.", "Three."]
    bad = FunctionSegmenter(lambda t: ["Not in the text."], name="bad")
    with pytest.raises(ConfigurationError, match="segmenter 'bad': sentence 0"):
        bad.segment(text)


def test_line_segmenter_and_factory():
    segs = LineSegmenter().segment("  a b \n\nc\n")
    assert [(s.start, s.end, s.text) for s in segs] == [(2, 5, "a b"), (8, 9, "c")]
    assert isinstance(make_segmenter(), RuleSegmenter)
    assert make_segmenter("lines").name == "lines"
    assert make_segmenter("rules-plain").markdown is False  # type: ignore[attr-defined]
    assert isinstance(make_segmenter(lambda t: [t]), Segmenter)
    with pytest.raises(ConfigurationError, match="unknown segmenter 'punkt'"):
        make_segmenter("punkt")


def test_plain_mode_keeps_markdown_characters():
    segs = RuleSegmenter(markdown=False).segment("# not a heading. **x** y.")
    assert [s.text for s in segs] == ["# not a heading.", "**x** y."]
    assert not any(re.match(r"heading", s.kind) for s in segs)
