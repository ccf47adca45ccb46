"""Document types: debates (provisions + ordered interventions) and their summaries.

The types are defined in :mod:`argfaith.datasets.doctypes` (one floor down, so that the readers
can use them without importing this module) and re-exported here. Readers for the EP layout, the
summary layout and hand-written formats live in :mod:`argfaith.datasets.ep`,
:mod:`argfaith.datasets.summaries` and :mod:`argfaith.datasets.handwritten`; :func:`load_debate` /
:func:`load_summary` pick the reader from the path. Mining consumes these types.
"""

from __future__ import annotations

from pathlib import Path

from argfaith.datasets import ep, handwritten, summaries
from argfaith.datasets._jsonio import read_json
from argfaith.datasets.doctypes import ArgumentSpan, Debate, Intervention, Provision, Summary
from argfaith.errors import DataFormatError

__all__ = ["Provision", "Intervention", "ArgumentSpan", "Debate", "Summary", "load_debate", "load_summary"]


def load_debate(path: str | Path) -> Debate:
    """Read a debate in any supported layout, chosen from ``path``.

    - a directory: an EP debate folder (:func:`argfaith.datasets.ep.read_ep_debate`);
    - ``*.json``: a hand-written JSON debate (:func:`argfaith.datasets.handwritten.read_debate_json`);
    - anything else: a ``[ID] Speaker: text`` transcript (:func:`argfaith.datasets.handwritten.read_transcript`).
    """
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
