"""Document types: debates (provisions + ordered interventions) and their summaries.

Readers for the EP layout, the summary layout and hand-written formats live in
:mod:`argfaith.datasets.ep`, :mod:`argfaith.datasets.summaries` and
:mod:`argfaith.datasets.handwritten`; :func:`load_debate` / :func:`load_summary` pick the reader
from the path. Mining consumes these types.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Provision", "Intervention", "ArgumentSpan", "Debate", "Summary", "load_debate", "load_summary"]


@dataclass(frozen=True, slots=True)
class Provision:
    """One numbered paragraph of the debated resolution: becomes a proposal argument (τ = 0.5)."""

    id: str  # unique within the debate, e.g. "PAR-3"
    text: str
    number: int | None = None  # the paragraph's own number ("3." -> 3) when it has one
    report_id: str | None = None


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


def load_debate(path: str | Path) -> Debate:
    """Read a debate in any supported layout, chosen from ``path``.

    - a directory: an EP debate folder (:func:`argfaith.datasets.ep.read_ep_debate`);
    - ``*.json``: a hand-written JSON debate (:func:`argfaith.datasets.handwritten.read_debate_json`);
    - anything else: a ``[ID] Speaker: text`` transcript (:func:`argfaith.datasets.handwritten.read_transcript`).
    """
    # Readers import this module for the types: import them lazily to avoid a cycle.
    from argfaith.datasets import ep, handwritten
    from argfaith.errors import DataFormatError

    p = Path(path)
    if p.is_dir():
        return ep.read_ep_debate(p)
    if not p.exists():
        raise DataFormatError(f"{p}: no such file or directory (expected an EP debate folder, a .json debate or a transcript)")
    if p.suffix.lower() == ".json":
        return handwritten.read_debate_json(p)
    return handwritten.read_transcript(p)


def load_summary(path: str | Path, *, missing_text: str = "error") -> Summary:
    """Read a summary in any supported layout, chosen from ``path``.

    - ``*.json`` with a ``summary`` key: the EP summaries layout (:func:`argfaith.datasets.summaries.read_summary`);
    - ``*.json`` with a ``text`` key: a hand-written JSON summary;
    - anything else: plain text / markdown, the whole file.
    """
    from argfaith.datasets import handwritten, summaries
    from argfaith.datasets._jsonio import read_json
    from argfaith.errors import DataFormatError

    p = Path(path)
    if not p.is_file():
        raise DataFormatError(f"{p}: no such file (expected a summary .json or text file)")
    if p.suffix.lower() == ".json":
        data = read_json(p)
        if isinstance(data, dict) and "summary" in data:
            return summaries.read_summary(p, missing_text=missing_text)  # type: ignore[arg-type]
        if isinstance(data, dict) and "text" in data:
            return handwritten.read_summary_json(p)
        raise DataFormatError(f"{p}: a summary JSON needs a 'summary' (EP layout) or 'text' key")
    return handwritten.read_text_summary(p)
