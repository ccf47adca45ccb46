"""The paper's prompts, verbatim (PAPER.md §7), and argfaith's multi-target prompt."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from argfaith.mining import prompts as P

ROOT = Path(__file__).resolve().parents[2]
PAPER_MD = Path(os.environ.get("ARGFAITH_PAPER_MD", ROOT.parent / "shared" / "docs" / "PAPER.md"))

# An independent transcription of PAPER.md §7 (so this test does not depend on that file).
SYSTEM = (
    "You are an expert in argumentation. Your task is to determine the type of relation between [SOURCE] and "
    "[TARGET]. The type of relation would be in the [RELATION] set. Utilize the [TOPIC] as context to support "
    "your decision\n\nYour answer must be in the following format with only the type of the relation in the "
    "answer section:\n<|ANSWER|><answer><|ANSWER|>."
)
DEFS = (
    "Class Definitions:\nno relation: The source and target arguments address different topics or aspects "
    "without directly supporting or contradicting each other.\n\nattack: The source argument directly "
    "contradicts, refutes, or undermines the target argument.\n\nsupport: The source argument provides "
    "evidence, reasoning, or additional points that strengthen or agree with the target argument.\n\n"
)
REL = "[RELATION]: {'no relation', 'attack', 'support'}\n"
EX1 = "Example:\n[SOURCE]: This regulation will protect consumers.\n[TARGET]: We need stronger consumer protections.\n[RELATION]: support"
EX2 = "Example:\n[SOURCE]: This is too costly for member states.\n[TARGET]: The benefits far outweigh the costs.\n[RELATION]: attack"


def test_system_prompt_verbatim():
    assert P.ARC_SYSTEM_PROMPT == SYSTEM


def test_zero_shot_user_prompt_verbatim():
    p = P.arc_prompt("The source.", "The target.", "Globalisation", "zero")
    assert p.system == SYSTEM
    assert p.user == DEFS + REL + "[TOPIC]: Globalisation\n[SOURCE]: The source.\n[TARGET]: The target."
    assert p.version == P.ARC_ZERO_SHOT_VERSION


def test_few_shot_inserts_both_examples_after_the_definitions():
    p = P.arc_prompt("S", "T", "X", "few")
    assert p.user == DEFS + EX1 + "\n\n" + EX2 + "\n\n" + REL + "[TOPIC]: X\n[SOURCE]: S\n[TARGET]: T"
    assert p.version == P.ARC_FEW_SHOT_VERSION != P.ARC_ZERO_SHOT_VERSION


def test_argument_text_is_inserted_unchanged_in_single_prompts():
    src = "Line one.\nLine two with <|ANSWER|>support<|ANSWER|> inside."
    assert P.arc_prompt(src, "t", None).user.endswith(f"[TOPIC]: \n[SOURCE]: {src}\n[TARGET]: t")


def test_bad_style_is_rejected():
    with pytest.raises(ValueError):
        P.arc_prompt("a", "b", "c", "two")  # type: ignore[arg-type]


def test_summary_prompt_verbatim_with_and_without_title():
    tr = P.format_transcript([("1-001", "President", "The debate\nis open."), ("1-002", "Ms Smith", "I agree.")])
    assert tr == "[1-001] President: The debate is open.\n[1-002] Ms Smith: I agree."
    head = "Please provide a comprehensive summary of the following parliamentary debate transcript.\n\n"
    tail = (
        "\n\nPlease provide a summary of the debate. Use complete paragraphs and sentences. Do not use tables "
        "or lists. Do not use markdown formatting.\n\nSummary:"
    )
    assert P.summary_prompt(tr, "Globalisation") == head + "Title: Globalisation\n\nTranscript:\n" + tr + tail
    assert P.summary_prompt(tr) == head + "Transcript:\n" + tr + tail


def test_multi_target_prompt_layout():
    header = P.multi_header("Topic\nwith newline", "zero")
    assert header == DEFS + REL + "[TOPIC]: Topic with newline\n[TARGETS]:\n"
    assert P.multi_target_line(3, "a\n4: support\nb") == "3: a 4: support b\n"  # newlines cannot fake a line
    tail = P.multi_source_block("the  source", 7)
    assert tail.startswith("[SOURCE]: the source\n\n") and "targets 1 to 7" in tail
    assert "<|ANSWER|>\n1: <answer>\n2: <answer>" in P.MULTI_SYSTEM_PROMPT
    assert P.multi_header("t", "few").startswith(DEFS + EX1)
    assert P.multi_template_version("few") != P.multi_template_version("zero")


def _unwrap(md: str) -> str:
    """Undo PAPER.md's line wrapping: a wrapped line continues with a space, except after a
    literal ``\\n`` escape; then turn the escapes into newlines."""
    out = ""
    for line in md.split("\n"):
        if out and not out.endswith("\\n"):
            out += " "
        out += line
    return out.replace("\\n", "\n")


@pytest.mark.skipif(not PAPER_MD.exists(), reason="PAPER.md (shared docs) not available")
def test_prompts_match_paper_md():
    text = PAPER_MD.read_text(encoding="utf-8")
    sec = text[text.index("### Prompts") : text.index("## 8.")]
    quoted = [_unwrap(q) for q in re.findall(r'"(.*?)"', sec, flags=re.DOTALL)]
    system, user, ex1, ex2, summary = quoted[0], quoted[1], quoted[2], quoted[3], quoted[4]
    assert P.ARC_SYSTEM_PROMPT == system
    rendered = P.arc_prompt("<source argument>", "<target argument>", "<debate title>").user
    assert rendered == user
    assert P.ARC_FEW_SHOT_EXAMPLES == (ex1, ex2)
    rendered_summary = P.summary_prompt("<formatted transcript with [ID] Speaker: text for each intervention>", "<debate title>")
    assert rendered_summary == summary.replace("[Optional: Title: <debate title>]", "Title: <debate title>")
