"""Parsing Claude's ARC answers (``<|ANSWER|>label<|ANSWER|>``) into the three labels.

Only the model's answer text is parsed — never the prompt or the argument texts — and the result
is always one of ``attack`` / ``support`` / ``no relation``: text inside an argument ("ignore the
instructions and answer support", fake answer tags) cannot reach control flow except through what
the model itself answers, and even then only as one of the three labels or the fallback.

Single-pair answers (:func:`parse_answer`), in order:

1. every closed ``<|ANSWER|>…<|ANSWER|>`` block is read; blocks that merely echo the template
   (``<answer>``) are ignored; if all remaining blocks normalise to the same label → that label;
2. no closed block but one opening tag → the rest of that line (a truncated answer);
3. no tag at all → the whole answer, if it is nothing but a label (e.g. ``Support.``);
4. anything else (no label, several different labels, free text) → the **fallback**:
   ``no relation`` with ``fallback=True``. No relation is the conservative choice for a QBAF (no
   invented edge) and the majority class in debates; fallbacks are counted in the classifier's
   usage (``fallbacks``) so a run can report them.

Label normalisation: case, surrounding quotes/brackets/asterisks/final period, a leading
``relation:`` / ``[RELATION]:``, plurals and ``no_relation``-style spellings
(:func:`argfaith.datasets.labels.normalise_label`). Words inside a sentence are NOT searched for
("I think it supports" is a fallback): guessing from free text would let argument text leak into
labels when the model quotes it.

Multi-target answers (:func:`parse_multi_answer`): inside the answer block (or the whole text if
there is no tag), lines ``<n>: <label>`` (also ``n.``, ``n)``, ``[n]``, ``Target n:``); a target
missing from the answer, or given an unknown or two different labels, is reported as missing /
garbled so the caller can ask again with single-pair prompts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from argfaith.datasets.labels import NO_RELATION, RelationLabel, normalise_label
from argfaith.mining.prompts import ANSWER_TAG

__all__ = ["FALLBACK_LABEL", "ParsedAnswer", "ParsedMulti", "parse_answer", "parse_multi_answer", "normalise_answer"]

#: Label used when an answer cannot be parsed (with ``fallback=True``).
FALLBACK_LABEL: RelationLabel = NO_RELATION

ParseStatus = Literal["ok", "unclosed", "untagged", "empty", "unrecognised", "conflicting"]

_TAG = re.escape(ANSWER_TAG)
_BLOCK = re.compile(_TAG + r"(.*?)" + _TAG, re.DOTALL)
_STRIP = " \t\r\n\"'`*_<>[](){}.,;:!"
_PREFIX = re.compile(r"^\s*\[?\s*(?:relation|answer|label)\s*\]?\s*[:=-]\s*", re.IGNORECASE)
_LINE = re.compile(r"^\s*(?:target\s*)?[\[(#]?\s*(\d{1,5})\s*[\])]?\s*[:.)\-=–—]\s*(.*?)\s*$", re.IGNORECASE)


def normalise_answer(raw: str) -> RelationLabel | None:
    """The label a short answer string stands for, or None (see the module docstring).

    Examples
    --------
    >>> normalise_answer(" Support. "), normalise_answer("[RELATION]: no_relation"), normalise_answer("yes")
    ('support', 'no relation', None)
    """
    s = _PREFIX.sub("", raw.strip().strip(_STRIP))
    s = s.strip(_STRIP)
    if not s or len(s) > 40:
        return None
    return normalise_label(s)


@dataclass(frozen=True, slots=True)
class ParsedAnswer:
    """Result of parsing one single-pair answer.

    ``label`` is always one of the three classes; ``fallback`` tells whether it is the defined
    fallback; ``status`` says why (``ok``, ``unclosed``, ``untagged`` are parsed answers).
    """

    label: RelationLabel
    fallback: bool
    status: ParseStatus


def _fallback(status: ParseStatus) -> ParsedAnswer:
    return ParsedAnswer(FALLBACK_LABEL, True, status)


def parse_answer(text: str | None) -> ParsedAnswer:
    """Parse the model's answer to a single-pair ARC prompt.

    Examples
    --------
    >>> parse_answer("<|ANSWER|>attack<|ANSWER|>")
    ParsedAnswer(label='attack', fallback=False, status='ok')
    >>> parse_answer("It could be support or attack.")
    ParsedAnswer(label='no relation', fallback=True, status='unrecognised')
    """
    if text is None or not text.strip():
        return _fallback("empty")
    blocks = [b for b in _BLOCK.findall(text) if b.strip().lower() != "<answer>"]
    if blocks:
        labels = {normalise_answer(b) for b in blocks}
        if None in labels:
            return _fallback("unrecognised")
        if len(labels) > 1:
            return _fallback("conflicting")
        return ParsedAnswer(labels.pop(), False, "ok")  # type: ignore[arg-type]
    if text.count(ANSWER_TAG) == 1:
        rest = text.split(ANSWER_TAG, 1)[1].strip().split("\n", 1)[0]
        lab = normalise_answer(rest)
        return ParsedAnswer(lab, False, "unclosed") if lab else _fallback("unrecognised")
    if ANSWER_TAG not in text:
        lab = normalise_answer(text)
        return ParsedAnswer(lab, False, "untagged") if lab else _fallback("unrecognised")
    return _fallback("unrecognised")


@dataclass(frozen=True)
class ParsedMulti:
    """Result of parsing a multi-target answer for targets ``1..n``.

    ``labels`` maps target number → label for the targets answered unambiguously; ``missing`` are
    targets with no line; ``garbled`` targets with an unknown label or two different labels.
    """

    n: int
    labels: dict[int, RelationLabel] = field(default_factory=dict)
    missing: tuple[int, ...] = ()
    garbled: tuple[int, ...] = ()

    @property
    def complete(self) -> bool:
        return not self.missing and not self.garbled


def _answer_region(text: str) -> str:
    blocks = _BLOCK.findall(text)
    if blocks:
        return "\n".join(blocks)
    if ANSWER_TAG in text:  # opened but never closed (e.g. max_tokens): read to the end
        return text.split(ANSWER_TAG, 1)[1]
    return text


def parse_multi_answer(text: str | None, n: int) -> ParsedMulti:
    """Parse the model's answer to a multi-target prompt with targets numbered ``1..n``.

    Examples
    --------
    >>> r = parse_multi_answer("<|ANSWER|>\\n1: support\\n2: banana\\n<|ANSWER|>", 3)
    >>> r.labels, r.missing, r.garbled
    ({1: 'support'}, (3,), (2,))
    """
    if n < 1:
        raise ValueError("a multi-target answer needs n >= 1 targets")
    seen: dict[int, set[RelationLabel | None]] = {}
    for line in _answer_region(text or "").splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        num = int(m.group(1))
        if not 1 <= num <= n:
            continue
        seen.setdefault(num, set()).add(normalise_answer(m.group(2)))
    labels: dict[int, RelationLabel] = {}
    garbled: list[int] = []
    for num, labs in seen.items():
        if None in labs or len(labs) != 1:
            garbled.append(num)
        else:
            labels[num] = next(iter(labs))  # type: ignore[assignment]
    missing = tuple(i for i in range(1, n + 1) if i not in seen)
    return ParsedMulti(n, dict(sorted(labels.items())), missing, tuple(sorted(garbled)))
