"""Shared helpers of the mining tests: tiny deterministic classifiers and fixture paths."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from argfaith.mining.classifiers.base import PairQuery, Prediction, ProgressCallback, Usage

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "mining"
EP_DEBATE = FIX / "ep_debates" / "debates" / "CRE-20990101-ITEM-001"
EP_SUMMARY = FIX / "ep_summaries" / "CRE-20990101-ITEM-001" / "CRE-20990101-ITEM-001_claude_structured_en.json"


class KeywordClassifier:
    """A transparent stand-in for a real model: "attack" when the source contains a negation cue,
    "support" when source and target share a content word of 5+ letters, else "no relation".
    Counts every pair it is asked (to check resumption) and can be told to fail after N pairs."""

    name = "keyword-test"

    def __init__(self, fail_after: int | None = None, exc: type[BaseException] = KeyboardInterrupt) -> None:
        self.asked: list[tuple[str | None, str | None]] = []
        self.fail_after = fail_after
        self.exc = exc
        self._usage = Usage()

    def classify(self, pairs: Sequence[PairQuery], *, progress: ProgressCallback | None = None) -> list[Prediction]:
        out = []
        for i, q in enumerate(pairs):
            if self.fail_after is not None and len(self.asked) >= self.fail_after:
                raise self.exc()
            self.asked.append((q.source_id, q.target_id))
            self._usage.calls += 1
            src = q.source.lower()
            if any(w in src.split() for w in ("not", "never", "disagree", "no")):
                out.append(Prediction("attack", confidence=0.8, probabilities={"attack": 0.8, "support": 0.1, "no relation": 0.1}))
            elif {w for w in src.split() if len(w) >= 5} & {w for w in q.target.lower().split() if len(w) >= 5}:
                out.append(Prediction("support", confidence=0.7, probabilities={"attack": 0.1, "support": 0.7, "no relation": 0.2}))
            else:
                out.append(Prediction("no relation", confidence=0.9, probabilities={"attack": 0.05, "support": 0.05, "no relation": 0.9}))
            if progress is not None:
                progress(i + 1, len(pairs))
        return out

    @property
    def usage(self) -> Usage:
        return self._usage


@pytest.fixture
def keyword_classifier() -> KeywordClassifier:
    return KeywordClassifier()
