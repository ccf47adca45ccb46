"""The document types every reader produces and mining consumes: a debate (provisions + ordered
interventions, optional human argument spans) and a summary. Loading by path is
:mod:`argfaith.datasets.documents`, which re-exports these types."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Provision", "Intervention", "ArgumentSpan", "Debate", "Summary"]


@dataclass(frozen=True, slots=True)
class Provision:
    """One numbered paragraph of the debated resolution: becomes a proposal argument (τ = 0.5)."""

    id: str  # unique within the debate, e.g. "P3" (argfaith.datasets.provision_ids)
    text: str
    number: int | None = None  # the paragraph's own number ("3." -> 3) when it has one
    report_id: str | None = None
    legacy_id: str | None = None  # the old positional id ("PAR-3" = the 3rd paragraph), still accepted


@dataclass(frozen=True, slots=True)
class Intervention:
    """One speech, in debate order (``position`` is 0-based)."""

    id: str
    speaker: str
    text: str  # English text (translated where needed)
    position: int
    lang: str | None = None
    original: str | None = None


@dataclass(frozen=True, slots=True)
class ArgumentSpan:
    """A human-annotated (or automatically segmented) argument: ``text == intervention.text[start:end]``."""

    intervention_id: str
    start: int
    end: int
    text: str
    type: str | None = None


@dataclass(frozen=True)
class Debate:
    """A debate: id, title, provisions and ordered interventions (+ human spans when available)."""

    id: str
    title: str
    provisions: tuple[Provision, ...]
    interventions: tuple[Intervention, ...]
    spans: tuple[ArgumentSpan, ...] | None = None  # None = no human annotation
    url: str | None = None
    source_path: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def topic(self) -> str:
        """The title without the EP suffix " (debate)": the [TOPIC] of the relation prompts."""
        t = self.title.strip()
        return t[: -len("(debate)")].rstrip() if t.lower().endswith("(debate)") else t


@dataclass(frozen=True)
class Summary:
    """A summary of one debate, with what produced it."""

    debate_id: str | None
    text: str
    model: str | None = None  # e.g. "claude-sonnet-4-20250514"
    variant: str | None = None  # e.g. "claude_structured_en"
    structured: bool | None = None
    lang: str | None = None  # "en" (from the English translation) | "org" (original languages)
    source_path: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
