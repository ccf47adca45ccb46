"""The relation-classifier protocol: a batch of (source, target, topic) → label (+ confidence).

Every classifier (Claude, offline, recorded labels, baselines) implements
:class:`RelationClassifier`; mining, benchmarks and the case study only talk to this protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from argfaith.datasets.labels import RelationLabel

__all__ = ["PairQuery", "Prediction", "Usage", "RelationClassifier", "ProgressCallback"]


@dataclass(frozen=True, slots=True)
class PairQuery:
    """One candidate relation: does ``source`` attack / support ``target``?"""

    source: str
    target: str
    topic: str | None = None
    source_id: str | None = None
    target_id: str | None = None
    target_kind: str | None = None  # "proposal" | "speech" when known
    # Optional debate context (all default to None = unknown; classifiers then use neutral values).
    # ``*_context``: the full text of the speech (intervention) the argument comes from, speaker
    # header included (None for proposals and summary sentences); ``*_speaker``: the speaker field;
    # ``*_position``: the 0-based debate position of that speech.
    source_context: str | None = None
    target_context: str | None = None
    source_speaker: str | None = None
    target_speaker: str | None = None
    source_position: int | None = None
    target_position: int | None = None
    #: ``"debate"`` (speech arguments of a transcript) or ``"summary"`` (sentences of a summary);
    #: ``None`` when unknown. Summaries report speech ("Critics argued that ..."), a genre of its own.
    genre: str | None = None
    #: The unit just before the source in its speech (or summary): the context a stance is often
    #: carried in ("Some say X. That is wrong."); ``None`` when the source opens its document or unknown.
    source_prev: str | None = None


@dataclass(frozen=True, slots=True)
class Prediction:
    """A classifier's answer for one pair.

    ``label`` is always one of the three classes; ``fallback`` is True when the raw answer could
    not be parsed and the defined fallback label was used; ``raw`` keeps the model's text.
    ``final`` is False when the label stands in for an answer that did not come (the model
    refused, or the request failed): such a prediction is used for this run but not checkpointed,
    so a rerun asks again.
    """

    label: RelationLabel
    confidence: float | None = None
    fallback: bool = False
    raw: str | None = None
    probabilities: dict[str, float] | None = None
    final: bool = True


@dataclass
class Usage:
    """Cost accounting of a classifier run (cumulative)."""

    calls: int = 0  # API requests actually sent (cache hits excluded)
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    errors: int = 0
    extra: dict[str, float] = field(default_factory=dict)


ProgressCallback = Callable[[int, int], None]  # (done, total)


@runtime_checkable
class RelationClassifier(Protocol):
    """Classifies argument pairs as attack / support / no relation."""

    name: str

    def classify(self, pairs: Sequence[PairQuery], *, progress: ProgressCallback | None = None) -> list[Prediction]:
        """One prediction per pair, in order."""
        ...

    @property
    def usage(self) -> Usage:
        """Cumulative cost accounting since construction."""
        ...
