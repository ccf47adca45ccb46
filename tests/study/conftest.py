"""Fixtures of the study tests: the tiny EP-layout corpus in tests/fixtures/study and a
deterministic classifier that counts (and can interrupt) its calls."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from argfaith.mining.classifiers.base import PairQuery, Prediction, Usage

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "study"
DEBATE_A = "CRE-20990201-ITEM-001"
DEBATE_B = "CRE-20990202-ITEM-002"


class CountingClassifier:
    """Labels a pair from a hash of its texts (deterministic, about 1/3 relations), counts every
    pair it is asked about, and raises ``KeyboardInterrupt`` once ``interrupt_after`` pairs have
    been classified (simulating Ctrl-C in the middle of a run)."""

    def __init__(self, fingerprint: str = "counting-v1", interrupt_after: int | None = None, name: str = "counting") -> None:
        self.name = name
        self.fingerprint = fingerprint
        # Private: what the study fingerprints is the classifier's labelling, not these knobs.
        self._interrupt_after = interrupt_after
        self._pairs_seen = 0
        self._usage = Usage()

    @property
    def pairs_seen(self) -> int:
        return self._pairs_seen

    @staticmethod
    def label(q: PairQuery) -> str:
        h = hashlib.sha256(f"{q.source}\x00{q.target}".encode()).digest()[0]
        return "support" if h < 60 else "attack" if h < 90 else "no relation"

    def classify(self, pairs: Sequence[PairQuery], *, progress=None) -> list[Prediction]:  # type: ignore[no-untyped-def]
        out = []
        for q in pairs:
            if self._interrupt_after is not None and self._pairs_seen >= self._interrupt_after:
                raise KeyboardInterrupt
            self._pairs_seen += 1
            out.append(Prediction(self.label(q), confidence=0.9))  # type: ignore[arg-type]
        return out

    @property
    def usage(self) -> Usage:
        return self._usage


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    """A private copy of the fixture corpus (tests may add or break files)."""
    dst = tmp_path / "data"
    shutil.copytree(FIXTURE, dst)
    return dst
