"""Choosing an aligner by name: the aligners of :mod:`argfaith.metrics.alignment` and the LLM
judge of :mod:`argfaith.metrics.llm_judge` (which builds on ``alignment``; keeping the choice
here keeps the two modules out of an import cycle)."""

from __future__ import annotations

from typing import Any

from argfaith.errors import ConfigurationError
from argfaith.metrics.alignment import Aligner, EmbeddingAligner, ExactTextAligner, FileAligner, IdAligner, LexicalAligner

__all__ = ["ALIGNMENT_METHODS", "make_aligner"]

#: Method names accepted by :func:`make_aligner` (and the CLI's ``--align``).
ALIGNMENT_METHODS = ("id", "exact", "lexical", "embedding", "llm")


def make_aligner(method: str, **options: Any) -> Aligner:
    """Build an aligner by name: ``id``, ``exact``, ``lexical`` (``threshold``, ``measure``),
    ``embedding`` (``threshold``, ``model``), ``llm`` (see :mod:`argfaith.metrics.llm_judge`),
    or ``file`` (``path``)."""
    # None means "the default" for these settings (the CLI passes unset options as None); for
    # others, such as the LLM judge's cache, None is a meaningful value and is passed through.
    opts = {k: v for k, v in options.items() if not (v is None and k in ("threshold", "measure", "model"))}
    if method == "id":
        return IdAligner()
    if method == "exact":
        return ExactTextAligner()
    if method == "lexical":
        return LexicalAligner(**opts)
    if method == "embedding":
        return EmbeddingAligner(**opts)
    if method == "file":
        return FileAligner(opts["path"])
    if method == "llm":
        from argfaith.metrics.llm_judge import LLMJudgeAligner

        return LLMJudgeAligner(**opts)
    raise ConfigurationError(f"unknown alignment method {method!r}; choose one of {', '.join(ALIGNMENT_METHODS)} or give an alignment file")
