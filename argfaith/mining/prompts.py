"""Prompts: the paper's ARC and summarisation prompts verbatim, and argfaith's multi-target prompt.

Source: Cunningham et al. (2026), reproduced in PAPER.md §7. Each template carries a version
string that is part of the request-cache key: changing a template's text MUST bump its version,
so cached answers to the old text are never reused for the new one.

Readings where the paper leaves the layout open (documented, tested):

* the paper's line breaks (``\\n``) are literal newlines; where PAPER.md wraps a line inside a
  sentence that is a space;
* few-shot: the two examples are inserted after the class definitions, each followed by a blank
  line like the definitions themselves, before ``[RELATION]: ...``;
* summarisation: without a title the ``Title:`` paragraph is left out entirely; the transcript has
  one ``[ID] Speaker: text`` line per intervention, joined by newlines.

The multi-target prompt is argfaith's (not the paper's): it keeps the paper's system-prompt wording,
class definitions and answer tags, and asks for one ``<number>: <relation>`` line per numbered
target inside a single answer block. Targets come before the source so that the (long) target list
is a prefix shared between requests and can be prompt-cached.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ARC_SYSTEM_PROMPT",
    "ARC_CLASS_DEFINITIONS",
    "ARC_FEW_SHOT_EXAMPLES",
    "ARC_RELATION_SET",
    "ARC_ZERO_SHOT_VERSION",
    "ARC_FEW_SHOT_VERSION",
    "MULTI_SYSTEM_PROMPT",
    "MULTI_ZERO_SHOT_VERSION",
    "MULTI_FEW_SHOT_VERSION",
    "SUMMARY_PROMPT_VERSION",
    "ANSWER_TAG",
    "PromptStyle",
    "ArcPrompt",
    "arc_prompt",
    "arc_template_version",
    "multi_header",
    "multi_target_line",
    "multi_source_block",
    "multi_template_version",
    "summary_prompt",
    "format_transcript",
    "one_line",
]

PromptStyle = Literal["zero", "few"]

ANSWER_TAG = "<|ANSWER|>"

#: The paper's ARC system prompt (PAPER.md §7), verbatim.
ARC_SYSTEM_PROMPT = (
    "You are an expert in argumentation. Your task is to determine the type of relation between "
    "[SOURCE] and [TARGET]. The type of relation would be in the [RELATION] set. Utilize the [TOPIC] as "
    "context to support your decision\n\nYour answer must be in the following format with only the "
    "type of the relation in the answer section:\n<|ANSWER|><answer><|ANSWER|>."
)

#: The class definitions that open the paper's ARC user prompt, verbatim.
ARC_CLASS_DEFINITIONS = (
    "Class Definitions:\nno relation: The source and target arguments "
    "address different topics or aspects without directly supporting or contradicting each other.\n\n"
    "attack: The source argument directly contradicts, refutes, or undermines the target argument.\n\n"
    "support: The source argument provides evidence, reasoning, or additional points that strengthen "
    "or agree with the target argument.\n\n"
)

#: The paper's two few-shot examples, verbatim.
ARC_FEW_SHOT_EXAMPLES = (
    "Example:\n[SOURCE]: This regulation will protect consumers.\n[TARGET]: We need stronger consumer "
    "protections.\n[RELATION]: support",
    "Example:\n[SOURCE]: This is too costly for member "
    "states.\n[TARGET]: The benefits far outweigh the costs.\n[RELATION]: attack",
)

ARC_RELATION_SET = "[RELATION]: {'no relation', 'attack', 'support'}\n"

ARC_ZERO_SHOT_VERSION = "arc-zero-v1"
ARC_FEW_SHOT_VERSION = "arc-few-v1"
MULTI_ZERO_SHOT_VERSION = "arc-multi-zero-v1"
MULTI_FEW_SHOT_VERSION = "arc-multi-few-v1"
SUMMARY_PROMPT_VERSION = "summary-v1"


def _definitions(style: PromptStyle) -> str:
    if style == "zero":
        return ARC_CLASS_DEFINITIONS
    if style == "few":
        return ARC_CLASS_DEFINITIONS + "".join(ex + "\n\n" for ex in ARC_FEW_SHOT_EXAMPLES)
    raise ValueError(f"prompt style must be 'zero' or 'few', not {style!r}")


@dataclass(frozen=True, slots=True)
class ArcPrompt:
    """A rendered prompt: system text, user text and the template version."""

    system: str
    user: str
    version: str


def arc_template_version(style: PromptStyle) -> str:
    """Version string of the single-pair template for ``style``."""
    _definitions(style)
    return ARC_ZERO_SHOT_VERSION if style == "zero" else ARC_FEW_SHOT_VERSION


def arc_prompt(source: str, target: str, topic: str | None, style: PromptStyle = "zero") -> ArcPrompt:
    """The paper's single-pair ARC prompt (one source, one target), verbatim.

    Parameters
    ----------
    source, target
        Argument texts, inserted as given.
    topic
        The debate title (empty when unknown).
    style
        ``"zero"``-shot or ``"few"``-shot.

    Examples
    --------
    >>> p = arc_prompt("A", "B", "T")
    >>> p.user.endswith("[TOPIC]: T\\n[SOURCE]: A\\n[TARGET]: B")
    True
    """
    user = f"{_definitions(style)}{ARC_RELATION_SET}[TOPIC]: {topic or ''}\n[SOURCE]: {source}\n[TARGET]: {target}"
    return ArcPrompt(ARC_SYSTEM_PROMPT, user, arc_template_version(style))


# ---------------------------------------------------------------------------------------------
# Multi-target prompt (argfaith's): one request judges one source against numbered targets.
#: System prompt of the multi-target mode (the paper's wording, extended to numbered targets).
MULTI_SYSTEM_PROMPT = (
    "You are an expert in argumentation. Your task is to determine the type of relation between "
    "[SOURCE] and each of the numbered [TARGETS], one at a time and independently. The type of each "
    "relation would be in the [RELATION] set. Utilize the [TOPIC] as context to support your decision\n\n"
    "Your answer must be in the following format, with one line per target giving the target's number "
    "and only the type of the relation, for every target, in one answer section:\n"
    "<|ANSWER|>\n1: <answer>\n2: <answer>\n...\n<|ANSWER|>."
)


def one_line(text: str) -> str:
    """Collapse all whitespace (newlines included) to single spaces.

    Multi-target prompts put one target per line; a newline inside a target text would make a
    following line look like another numbered target.
    """
    return " ".join(text.split())


def multi_template_version(style: PromptStyle) -> str:
    """Version string of the multi-target template for ``style``."""
    _definitions(style)
    return MULTI_ZERO_SHOT_VERSION if style == "zero" else MULTI_FEW_SHOT_VERSION


def multi_header(topic: str | None, style: PromptStyle = "zero") -> str:
    """Opening block of a multi-target user prompt (definitions, relation set, topic, targets label)."""
    return f"{_definitions(style)}{ARC_RELATION_SET}[TOPIC]: {one_line(topic or '')}\n[TARGETS]:\n"


def multi_target_line(number: int, text: str) -> str:
    """One numbered target line, e.g. ``"3: text\\n"``."""
    return f"{number}: {one_line(text)}\n"


def multi_source_block(source: str, n_targets: int) -> str:
    """Closing block: the source and the reminder of the expected answer lines."""
    return (
        f"[SOURCE]: {one_line(source)}\n\n"
        f"Give the relation of [SOURCE] to each of the {n_targets} targets above "
        f"(targets 1 to {n_targets}), one line per target."
    )


# ---------------------------------------------------------------------------------------------
# Summarisation prompt (the paper's, verbatim)
def format_transcript(interventions: Sequence[tuple[str, str, str]]) -> str:
    """``[ID] Speaker: text`` for each intervention, one per line.

    Parameters
    ----------
    interventions
        (id, speaker, text) triples in debate order. Newlines inside a speech become spaces so
        that each intervention stays on its line.
    """
    return "\n".join(f"[{i}] {one_line(speaker)}: {one_line(text)}" for i, speaker, text in interventions)


def summary_prompt(transcript: str, title: str | None = None) -> str:
    """The paper's summarisation prompt (PAPER.md §7), verbatim; the title paragraph is optional.

    Examples
    --------
    >>> print(summary_prompt("[1] A: x", title="T"))  # doctest: +NORMALIZE_WHITESPACE
    Please provide a comprehensive summary of the following parliamentary debate transcript.
    <BLANKLINE>
    Title: T
    <BLANKLINE>
    Transcript:
    [1] A: x
    <BLANKLINE>
    Please provide a summary of the debate. Use complete paragraphs and sentences. Do not use tables or lists. Do not use markdown formatting.
    <BLANKLINE>
    Summary:
    """
    title_par = f"Title: {one_line(title)}\n\n" if title else ""
    return (
        "Please provide a comprehensive summary of the following parliamentary debate transcript.\n\n"
        f"{title_par}Transcript:\n{transcript}\n\n"
        "Please provide a summary of the debate. Use complete paragraphs and sentences. "
        "Do not use tables or lists. Do not use markdown formatting.\n\nSummary:"
    )
