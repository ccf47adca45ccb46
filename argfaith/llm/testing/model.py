"""A deterministic stand-in for Claude that answers every prompt argfaith sends, for end-to-end
tests and the fault benchmark (``benchmarks/llm_faults.py``).

:class:`ArgfaithModel` recognises the prompt by its visible layout only (it imports nothing of
argfaith's prompt code, so a changed prompt shows up as a failing test, not a silently adapted
fake):

=====================  ================================  ===========================================
prompt                 recognised by                     answer
=====================  ================================  ===========================================
relation, one pair     ``[SOURCE]:`` … ``[TARGET]:``     ``<|ANSWER|>label<|ANSWER|>``
relation, multi        ``[TARGETS]:``                    one ``n: label`` line per target
summary                "comprehensive summary"           a fixed two-sentence summary
argument extraction    ``<|UNITS|>`` and ``<text>``      the text's sentences as a JSON array
alignment judge        "Summary statement:"              ``n: rating`` (word overlap × 100)
key point judge        "Key points:"                     ``n: rating`` (word overlap × 100)
summary distortion     "SUMMARY, sentence by sentence:"  JSON edits: omit deletes the last sentence,
                       and ``TASK (kind)``               invert rewrites S1, fabricate_* insert one
                                                         sentence before S1
=====================  ================================  ===========================================

Labels are a fixed function of the two texts (:func:`gold_label`). ``refuse`` (a set of substrings)
makes the model decline any prompt containing one of them; ``truncate`` makes it run out of budget
on such prompts: at the first (smallest) ``max_tokens`` it sees for a prompt, and any budget no
larger, it returns half its answer with ``stop_reason: "max_tokens"``; a larger budget gets the
whole answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from argfaith.llm.testing.fake import Reply

__all__ = ["ArgfaithModel", "gold_label", "SUMMARY_TEXT"]

_LABELS = ("support", "attack", "no relation")
_A = "<|ANSWER|>"
SUMMARY_TEXT = (
    "The speakers debated the proposal at length. Supporters argued that it protects citizens, "
    "while opponents warned about its cost."
)
_WORD = re.compile(r"[a-z0-9]+")


def gold_label(source: str, target: str) -> str:
    """The relation the fake model answers for (source, target): a fixed function of the texts."""
    return _LABELS[(len(source) * 7 + len(target)) % 3]


def _words(t: str) -> set[str]:
    return {w for w in _WORD.findall(t.lower()) if len(w) > 3}


def _overlap(a: str, b: str) -> int:
    wa, wb = _words(a), _words(b)
    return round(100 * len(wa & wb) / max(1, min(len(wa), len(wb)))) if wa and wb else 0


def _user_text(body: Mapping[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


class ArgfaithModel:
    """Callable responder for :class:`~argfaith.llm.testing.FakeAnthropicAPI` (module docstring).

    ``refuse``: substrings whose prompts are refused; ``calls`` counts answers by prompt kind.
    """

    def __init__(self, refuse: set[str] | None = None, truncate: set[str] | None = None) -> None:
        self.refuse = set(refuse or ())
        self.truncate = set(truncate or ())
        self.calls: dict[str, int] = {}
        self._budgets: dict[str, int] = {}

    def kind(self, body: Mapping[str, Any]) -> str:
        u = _user_text(body)
        if "SUMMARY, sentence by sentence:" in u and "TASK (" in u:
            return "distortion"
        if "[TARGETS]:" in u:
            return "relation-multi"
        if "\n[SOURCE]: " in u and "\n[TARGET]: " in u:
            return "relation"
        if "comprehensive summary" in u:
            return "summary"
        if "<|UNITS|>" in u and "<text>" in u:
            return "extraction"
        if "Summary statement:" in u:
            return "align"
        if "Key points:" in u:
            return "kpa"
        return "other"

    def __call__(self, body: dict[str, Any]) -> str | Reply:
        u = _user_text(body)
        kind = self.kind(body)
        self.calls[kind] = self.calls.get(kind, 0) + 1
        if any(s in u for s in self.refuse):
            return Reply("", refusal=True)
        text = self._answer(kind, u)
        if any(s in u for s in self.truncate):
            first = self._budgets.setdefault(u, int(body["max_tokens"]))
            if int(body["max_tokens"]) <= first:
                return Reply(text[: len(text) // 2], stop_reason="max_tokens")
        return text

    def _answer(self, kind: str, u: str) -> str:
        if kind == "relation-multi":
            targets_part = u.split("[TARGETS]:\n", 1)[1].split("[SOURCE]: ", 1)[0]
            targets = [re.sub(r"^\d+: ", "", ln) for ln in targets_part.strip("\n").split("\n")]
            source = u.rsplit("[SOURCE]: ", 1)[1].split("\n", 1)[0]
            lines = "\n".join(f"{i}: {gold_label(source, t)}" for i, t in enumerate(targets, 1))
            return f"{_A}\n{lines}\n{_A}"
        if kind == "relation":
            m = re.search(r"\n\[SOURCE\]: (.*)\n\[TARGET\]: (.*)\Z", u, re.S)
            return f"{_A}{gold_label(m.group(1), m.group(2)) if m else 'no relation'}{_A}"
        if kind == "summary":
            return SUMMARY_TEXT
        if kind == "extraction":
            text = u.rsplit("<text>\n", 1)[1].rsplit("\n</text>", 1)[0]
            sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if len(s.strip()) > 3]
            return "<|UNITS|>" + json.dumps(sentences, ensure_ascii=False) + "<|UNITS|>"
        if kind == "align":
            statement = u.split("Summary statement: ", 1)[1].split("\n", 1)[0]
            args = re.findall(r"^(\d+)\. (.*)$", u.split("Debate arguments:", 1)[1], re.M)
            return "\n".join(f"{i}: {_overlap(statement, t)}" for i, t in args)
        if kind == "kpa":
            argument = u.split("Argument: ", 1)[1].split("\n", 1)[0]
            kps = re.findall(r"^(\d+)\. (.*)$", u.split("Key points:", 1)[1], re.M)
            return "\n".join(f"{i}: {_overlap(argument, t)}" for i, t in kps)
        if kind == "distortion":
            task = re.search(r"^TASK \((\w+)\)", u, re.M)
            n = len(re.findall(r"^\[S\d+\] ", u, re.M))
            what = task.group(1) if task else ""
            if what == "omit" and n >= 2:
                edits = [{"op": "delete", "sentence": n}]
            elif what == "invert" or what == "omit":
                edits = [{"op": "replace", "sentence": 1, "text": "Speakers opposed the provision, arguing that it harms citizens."}]
            else:
                verb = "opposed" if what == "fabricate_attack" else "backed"
                edits = [{"op": "insert_after", "sentence": 0, "text": f"Several speakers {verb} the provision for its effect on citizens."}]
            return json.dumps({"edits": edits, "original_stance": "support"})
        return "ok"
