"""Choosing a segmenter by name: the rule-based ones of :mod:`argfaith.mining.segment` and
Claude's argument units of :mod:`argfaith.mining.extract` (which builds on ``segment``; keeping
the choice here keeps the two modules out of an import cycle)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from argfaith.errors import ConfigurationError
from argfaith.mining.segment import FunctionSegmenter, LineSegmenter, RuleSegmenter, Segment, Segmenter

__all__ = ["make_segmenter", "segment_sentences"]


def make_segmenter(
    spec: str | Segmenter | Callable[[str], Sequence[str]] | None = None, *, llm_kind: str = "speech"
) -> Segmenter:
    """A segmenter from a name (``"rules"`` — the default —, ``"rules-plain"`` without markdown,
    ``"lines"``, ``"llm"`` / ``"llm:MODEL"`` for Claude's argument units, see
    :mod:`argfaith.mining.extract`; ``llm_kind`` is its prompt noun, ``speech`` or ``summary``),
    an object with ``segment`` (used as given), or a ``text -> list[str]`` function."""
    if spec is None or spec == "rules":
        return RuleSegmenter()
    if spec == "rules-plain":
        seg = RuleSegmenter(markdown=False)
        seg.name = "rules-plain"
        return seg
    if spec == "lines":
        return LineSegmenter()
    if isinstance(spec, str) and (spec == "llm" or spec.startswith("llm:")):
        from argfaith.llm.cost import DEFAULT_MODEL
        from argfaith.mining.extract import LLMExtractor

        return LLMExtractor(model=spec[4:].strip() or DEFAULT_MODEL, kind=llm_kind)
    if isinstance(spec, str):
        raise ConfigurationError(f"unknown segmenter {spec!r}; choose 'rules', 'rules-plain', 'lines' or 'llm[:MODEL]'")
    if isinstance(spec, Segmenter):
        return spec
    if callable(spec):
        return FunctionSegmenter(spec)
    raise ConfigurationError(f"not a segmenter: {spec!r}")


def segment_sentences(text: str, segmenter: str | Segmenter | None = None) -> list[Segment]:
    """Segments of ``text`` with the given (default: rule-based) segmenter."""
    return make_segmenter(segmenter).segment(text)
