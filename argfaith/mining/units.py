"""Argument units: the proposal and speech arguments of a debate or a summary, with offsets.

PAPER.md §1/§7: a debate QBAF has one *proposal argument* per provision (numbered paragraph of
the resolution) and *speech arguments* mined from the transcript. argfaith's speech arguments are

- ``spans``: the human argument spans when the debate has them (the paper's annotated debates);
- ``sentences``: automatic segmentation (:mod:`argfaith.mining.segment`) otherwise; the segmenter
  may be an LLM extractor (:mod:`argfaith.mining.extract`, ``segmenter="llm"``), whose units are
  still exact passages of the text with offsets.

Identifiers: ``<debate>-<provision id>`` for a provision (``<debate>-P23`` for the paragraph
printed ``23.``; :mod:`argfaith.datasets.provision_ids`, which also maps the old positional
``<debate>-PAR-<n>`` of the project's silver relation data) and ``<debate>-<intervention>-<k>``
for the k-th unit of an intervention (1-based, by start offset). For sentences, ``k`` counts every segment of the speech *before* filtering, so an
id names the same sentence whatever filter policy is used. Summary units are
``<summary name>-<k>`` (summary name = ``<debate id>-<variant>``).

Offsets: ``unit.start``/``unit.end`` index into the text the unit came from (the intervention's
``text``, the summary's ``text`` or the provision's ``text``); ``unit.text`` is the cleaned
segment (markdown markup removed, whitespace collapsed) — for spans the exact span text.

Filtering non-argumentative units is an explicit, optional :class:`UnitPolicy`:
``SENTENCE_POLICY`` (the default for automatic units) drops the chair's procedural speeches
("President. The debate is closed."), stage directions ("(Applause)"), the speaker header
("Name (Group), rapporteur. – (DE)") and fragments under three words; ``SUMMARY_POLICY`` also
drops markdown headings, bold-only lines and short ``**Field:** value`` lines of LLM summaries;
``KEEP_ALL`` (the default for human spans) keeps everything. Every dropped unit is counted by
reason in :attr:`UnitExtraction.dropped`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal

from argfaith.datasets.documents import Debate, Intervention, Summary
from argfaith.errors import ConfigurationError
from argfaith.mining.segment import Segment, Segmenter
from argfaith.mining.segmenters import make_segmenter

__all__ = [
    "ArgumentUnit",
    "UnitPolicy",
    "UnitExtraction",
    "UnitMode",
    "KEEP_ALL",
    "SENTENCE_POLICY",
    "SUMMARY_POLICY",
    "SUMMARY_POLICY_V1",
    "SUMMARY_UNITS_VERSION",
    "SUMMARY_UNIT_POLICIES",
    "summary_unit_policy",
    "EDIT_POLICY",
    "proposal_units",
    "speech_units",
    "segmenter_texts",
    "summary_units",
    "summary_name",
    "is_chair",
    "speaker_header_length",
    "word_count",
]

UnitMode = Literal["auto", "spans", "sentences"]


@dataclass(frozen=True, slots=True)
class ArgumentUnit:
    """One proposal or speech argument before relation mining.

    Attributes
    ----------
    id
        ``<debate>-P<n>`` (printed paragraph number), ``<debate>-<intervention>-<k>`` or ``<summary name>-<k>``.
    kind
        ``"proposal"`` or ``"speech"``.
    text
        The argument text given to the relation classifier.
    origin
        ``"provision"``, ``"span"`` (human annotation), ``"sentence"`` (segmentation of a speech)
        or ``"summary"`` (segmentation of a summary).
    document
        The intervention id, provision id or summary name the offsets refer to.
    start, end
        Offsets into that document's text.
    position
        0-based order among the speech units (the debate order the temporal constraint uses);
        ``None`` for proposals.
    k
        1-based index within its document (the ``<k>`` of the id).
    """

    id: str
    kind: Literal["proposal", "speech"]
    text: str
    origin: Literal["provision", "span", "sentence", "summary"]
    document: str
    start: int
    end: int
    speaker: str | None = None
    position: int | None = None
    intervention_position: int | None = None
    k: int = 1
    segment_kind: str | None = None

    def metadata(self) -> dict[str, Any]:
        """Provenance for the QBAF argument's ``metadata`` (JSON-serialisable)."""
        d: dict[str, Any] = {"origin": self.origin, "document": self.document, "start": self.start, "end": self.end}
        if self.intervention_position is not None:
            d["intervention_position"] = self.intervention_position
        if self.segment_kind and self.segment_kind != "sentence":
            d["segment_kind"] = self.segment_kind
        return d


@dataclass(frozen=True, slots=True)
class UnitPolicy:
    """Which automatically found units are not arguments (each rule can be switched off).

    Attributes
    ----------
    drop_chair
        Drop every unit of the chair's interventions (speaker "President.", "IN THE CHAIR: …"):
        procedural lines such as "The debate is closed." (The paper's annotators marked no spans
        in them either.)
    strip_speaker_header
        Skip the speaker header at the start of an EP speech ("Name (Group), rapporteur. – (DE) ").
    drop_stage_directions
        Drop units that are only a parenthesis: "(Applause)", "(The sitting was suspended)".
    drop_headings
        Drop markdown headings and lines that are only bold text ("**End of Summary**").
    drop_fields
        Drop short ``**Field:** value`` lines (fewer than ``field_max_words`` words after the
        label), e.g. "**Date:** 13 February 2006".
    min_words
        Drop units with fewer words (``\\w+`` tokens); 0 keeps everything.
    drop_metadata
        Drop ``Label: value`` lines whose label is a metadata field ("Date:", "Topic:", "Number of
        Contributions:", …; :data:`argfaith.mining.argumentative.METADATA_LABELS`), bold or not, of any
        length (issue 21; unlike ``drop_fields`` it keeps "**Innovation Focus:** Strong support emerged …").
    argumentative
        After the rules, drop summary segments the argumentativeness classifier
        (:class:`argfaith.mining.argumentative.ArgumentativenessModel`) gives P(argument) below its
        shipped threshold (reason ``not_argument``).
    """

    drop_chair: bool = True
    strip_speaker_header: bool = True
    drop_stage_directions: bool = True
    drop_headings: bool = True
    drop_fields: bool = True
    field_max_words: int = 12
    min_words: int = 3
    drop_metadata: bool = False
    argumentative: bool = False


#: Keep every unit (the default for human spans).
KEEP_ALL = UnitPolicy(
    drop_chair=False,
    strip_speaker_header=False,
    drop_stage_directions=False,
    drop_headings=False,
    drop_fields=False,
    min_words=0,
)
#: Default for sentence units of a debate.
SENTENCE_POLICY = UnitPolicy(drop_headings=False, drop_fields=False)
#: The summary policy before issue 21: short ``**Field:** value`` lines dropped (which also dropped
#: argument lines opening with a bold phrase). Frozen: it numbers the sentences of stored summary
#: edits (:data:`EDIT_POLICY`) and the units of the v1 relation corpus' summary packets.
SUMMARY_POLICY_V1 = UnitPolicy(drop_chair=False, strip_speaker_header=False)
#: The sentence numbering ``S1..Sn`` of summary edits (``data/distortions``, written and LLM
#: distortions, :func:`argfaith.mining.distort.apply_edits`): never changes, so stored edits keep applying.
EDIT_POLICY = SUMMARY_POLICY_V1
#: Version of the default summary units (part of the study's and self-test's cache keys): 1 = the
#: v1 policy, 2 = metadata rule + argumentativeness classifier.
SUMMARY_UNITS_VERSION = 2
#: Default for sentence units of a summary (issue 21): headings, bold-only lines, metadata lines and
#: fragments dropped by rule, then segments the argumentativeness classifier rejects.
SUMMARY_POLICY = UnitPolicy(drop_chair=False, strip_speaker_header=False, drop_fields=False, drop_metadata=True,
                            argumentative=True)


@dataclass(frozen=True)
class UnitExtraction:
    """The units of one document plus what was dropped and why."""

    units: tuple[ArgumentUnit, ...]
    method: str  # "spans" | "sentences:<segmenter>"
    policy: UnitPolicy
    dropped: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def n_dropped(self) -> int:
        return sum(self.dropped.values())


_WORDS_RE = re.compile(r"\w+")
_CHAIR_RE = re.compile(r"^(?:the\s+|el\s+|la\s+|der\s+|die\s+)?(?:president|presidente|präsident(?:in)?|présidente?|voorzitter|przewodnicz\w*)\b[\s.:–−-]*$", re.IGNORECASE)
_STAGE_RE = re.compile(r"^\(\s*[^()]*\)[\s.]*$")
_FIELD_RE = re.compile(r"^\s*(?:[-*+]\s+)?(\*\*|__)[^*_\n]{1,60}?:?\s*\1\s*:?\s*(?P<value>.*)$", re.DOTALL)
_BOLD_ONLY_RE = re.compile(r"^\s*(\*\*|__)[^\n]+?\1[\s.:]*$")
_LANG_TAG_RE = re.compile(r"\s*\([A-Z]{2}\)\s*")
_DASH_SEP_RE = re.compile(r"\s?\.?\s*[–−-]\s")
_DOT_SEP_RE = re.compile(r"\s?\.\s")


#: The summary unit policies by name (``--summary-units``): ``default`` (:data:`SUMMARY_POLICY`),
#: ``rules`` (its structural rules without the argumentativeness classifier), ``v1``
#: (:data:`SUMMARY_POLICY_V1`, the units before issue 21).
SUMMARY_UNIT_POLICIES = {
    "default": SUMMARY_POLICY,
    "rules": replace(SUMMARY_POLICY, argumentative=False),
    "v1": SUMMARY_POLICY_V1,
}


def summary_unit_policy(name: str) -> UnitPolicy:
    """The named summary unit policy (:data:`SUMMARY_UNIT_POLICIES`); an unknown name is an error naming the choices."""
    try:
        return SUMMARY_UNIT_POLICIES[name]
    except KeyError:
        raise ConfigurationError(f"--summary-units must be one of {', '.join(SUMMARY_UNIT_POLICIES)}, got {name!r}") from None


def word_count(text: str) -> int:
    """Number of ``\\w+`` tokens (Unicode-aware)."""
    return len(_WORDS_RE.findall(text))


def is_chair(speaker: str | None) -> bool:
    """Is this the sitting's chair (EP "President.", "IN THE CHAIR: MR X"), not a Member?

    ("José Manuel Barroso, President of the Commission" is a speaker, not the chair: his speaker
    field is his name.)
    """
    if not speaker:
        return False
    s = speaker.strip()
    return bool(_CHAIR_RE.match(s)) or s.upper().startswith("IN THE CHAIR")


def speaker_header_length(text: str, speaker: str | None, *, max_header: int = 250) -> int:
    """Length of the speaker header that opens an EP speech (0 if there is none).

    EP speeches start with their speaker field, then optionally a role and a separator, then
    optionally the original language: ``"Edit Herczog (PSE), rapporteur. – (HU) Globalisation…"``,
    ``"Joaquín Almunia, Member of the Commission . (ES) Mr President…"``, ``"President. The debate…"``.
    A role is only looked for when the speaker field does not itself end the header (ends with a
    comma or a letter), and only within ``max_header`` characters on the first line.
    """
    if not speaker:
        return 0
    sp = speaker.strip()
    if not sp or not text.startswith(sp):
        return 0
    pos = len(sp)
    line_end = text.find("\n", pos)
    window_end = min(len(text), pos + max_header, line_end if line_end >= 0 else len(text))
    if sp[-1] in ".–−-":
        m = re.compile(r"\s*(?:[–−-]\s)?").match(text, pos)
        pos = m.end() if m else pos
    else:
        # Role text up to the first dash separator, else the first " . "/". " separator.
        found = [x for x in (_DASH_SEP_RE.search(text, pos, window_end), _DOT_SEP_RE.search(text, pos, window_end)) if x]
        # The earliest separator ends the role; at a tie the longer one (". – ") wins.
        m = min(found, key=lambda x: (x.start(), -x.end())) if found else None
        if m is None:
            return pos if pos == len(text) or text[pos].isspace() or text[pos] in ",." else 0
        pos = m.end()
    m = _LANG_TAG_RE.match(text, pos)
    if m:
        pos = m.end()
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def _drop_reason(seg: Segment, raw: str, policy: UnitPolicy) -> str | None:
    text = seg.text
    if policy.drop_headings and (seg.kind == "heading" or _BOLD_ONLY_RE.match(raw)):
        return "heading"
    if policy.drop_stage_directions and _STAGE_RE.match(text):
        return "stage_direction"
    if policy.drop_fields:
        m = _FIELD_RE.match(raw)
        if m and word_count(m.group("value")) < policy.field_max_words:
            return "field"
    if policy.drop_metadata:
        from argfaith.mining.argumentative import structural_reason

        why = structural_reason(seg.kind, raw, text)
        if why == "metadata":
            return "metadata"
    if policy.min_words and word_count(text) < policy.min_words:
        return "too_short"
    return None


def proposal_units(debate: Debate) -> tuple[ArgumentUnit, ...]:
    """One proposal argument per provision: id ``<debate>-<provision id>``, the provision's text."""
    return tuple(
        ArgumentUnit(
            id=f"{debate.id}-{p.id}",
            kind="proposal",
            text=p.text,
            origin="provision",
            document=p.id,
            start=0,
            end=len(p.text),
            k=i + 1,
        )
        for i, p in enumerate(debate.provisions)
    )


def _sentence_units(
    iv: Intervention, debate_id: str, segmenter: Segmenter, policy: UnitPolicy, dropped: Counter[str]
) -> list[ArgumentUnit]:
    offset = speaker_header_length(iv.text, iv.speaker) if policy.strip_speaker_header else 0
    if policy.drop_chair and is_chair(iv.speaker):
        # An LLM extractor is not paid to split text that is dropped anyway: the speech counts once.
        dropped["chair"] += 1 if hasattr(segmenter, "prefetch") else len(segmenter.segment(iv.text[offset:]))
        return []
    segs = segmenter.segment(iv.text[offset:])
    out = []
    for k, seg in enumerate(segs, start=1):
        s, e = seg.start + offset, seg.end + offset
        reason = _drop_reason(seg, iv.text[s:e], policy)
        if reason:
            dropped[reason] += 1
            continue
        out.append(
            ArgumentUnit(
                id=f"{debate_id}-{iv.id}-{k}",
                kind="speech",
                text=seg.text,
                origin="sentence",
                document=iv.id,
                start=s,
                end=e,
                speaker=iv.speaker or None,
                intervention_position=iv.position,
                k=k,
                segment_kind=seg.kind,
            )
        )
    return out


def segmenter_texts(debate: Debate, policy: UnitPolicy | None = None) -> list[str]:
    """The texts a segmenter sees for ``debate`` under ``policy`` (default :data:`SENTENCE_POLICY`):
    each intervention after its speaker header, the chair's skipped when the policy drops them."""
    pol = policy or SENTENCE_POLICY
    return [
        iv.text[speaker_header_length(iv.text, iv.speaker) if pol.strip_speaker_header else 0 :]
        for iv in debate.interventions
        if not (pol.drop_chair and is_chair(iv.speaker))
    ]


def speech_units(
    debate: Debate,
    *,
    units: UnitMode = "auto",
    segmenter: str | Segmenter | None = None,
    policy: UnitPolicy | None = None,
) -> UnitExtraction:
    """The speech arguments of a debate, in debate order.

    Parameters
    ----------
    debate
        The debate.
    units
        ``"spans"`` (human spans; an error if the debate has none), ``"sentences"`` (automatic
        segmentation) or ``"auto"`` (spans when available, else sentences).
    segmenter
        For sentences: a :class:`~argfaith.mining.segment.Segmenter` or a name (default rules).
    policy
        Filtering policy; default :data:`KEEP_ALL` for spans, :data:`SENTENCE_POLICY` for sentences.

    Returns
    -------
    UnitExtraction
        Units with ``position`` 0..n-1 in debate order (intervention order, then start offset).
    """
    if units not in ("auto", "spans", "sentences"):
        raise ConfigurationError(f"units must be 'auto', 'spans' or 'sentences', got {units!r}")
    use_spans = units == "spans" or (units == "auto" and debate.spans is not None)
    if units == "spans" and debate.spans is None:
        raise ConfigurationError(
            f"debate {debate.id!r} has no human argument spans; use units='sentences' (--units sentences)"
        )
    dropped: Counter[str] = Counter()
    out: list[ArgumentUnit] = []
    if use_spans:
        pol = policy or KEEP_ALL
        by_iv: dict[str, list] = {}
        for sp in debate.spans or ():
            by_iv.setdefault(sp.intervention_id, []).append(sp)
        for iv in debate.interventions:
            spans = sorted(by_iv.get(iv.id, ()), key=lambda s: (s.start, s.end))
            if pol.drop_chair and is_chair(iv.speaker) and spans:
                dropped["chair"] += len(spans)
                continue
            for k, sp in enumerate(spans, start=1):
                seg = Segment(sp.start, sp.end, sp.text)
                reason = _drop_reason(seg, sp.text, replace(pol, drop_headings=False, drop_fields=False))
                if reason:
                    dropped[reason] += 1
                    continue
                out.append(
                    ArgumentUnit(
                        id=f"{debate.id}-{iv.id}-{k}",
                        kind="speech",
                        text=sp.text,
                        origin="span",
                        document=iv.id,
                        start=sp.start,
                        end=sp.end,
                        speaker=iv.speaker or None,
                        intervention_position=iv.position,
                        k=k,
                        segment_kind=sp.type,
                    )
                )
        method = "spans"
    else:
        pol = policy or SENTENCE_POLICY
        seg = make_segmenter(segmenter)
        prefetch = getattr(seg, "prefetch", None)
        if prefetch is not None:  # an LLM extractor: one concurrent (or batched) run for the debate
            prefetch(segmenter_texts(debate, pol))
        for iv in debate.interventions:
            out.extend(_sentence_units(iv, debate.id, seg, pol, dropped))
        method = f"sentences:{seg.name}"
    out = [replace(u, position=i) for i, u in enumerate(out)]
    return UnitExtraction(tuple(out), method, pol, MappingProxyType(dict(dropped)))


def summary_name(summary: Summary) -> str:
    """``<debate id>-<variant>`` (or whichever of them is known; ``"summary"`` if neither)."""
    parts = [p for p in (summary.debate_id, summary.variant) if p]
    return "-".join(parts) or "summary"


def summary_units(
    summary: Summary,
    *,
    segmenter: str | Segmenter | None = None,
    policy: UnitPolicy | None = None,
    name: str | None = None,
) -> UnitExtraction:
    """The speech arguments of a summary: its sentences (ids ``<name>-<k>``), in text order.

    A summary has no temporal order (PAPER.md §7); ``position`` is still the text order, for
    display. Default policy: :data:`SUMMARY_POLICY`.
    """
    pol = policy or SUMMARY_POLICY
    seg = make_segmenter(segmenter, llm_kind="summary")
    prefix = name or summary_name(summary)
    dropped: Counter[str] = Counter()
    kept: list[tuple[int, Segment]] = []
    for k, s in enumerate(seg.segment(summary.text), start=1):
        reason = _drop_reason(s, summary.text[s.start : s.end], pol)
        if reason:
            dropped[reason] += 1
            continue
        kept.append((k, s))
    if pol.argumentative and kept:
        from argfaith.mining.argumentative import default_argumentativeness_model

        model = default_argumentativeness_model()
        p = model.probabilities([(s.kind, summary.text[s.start : s.end], s.text) for _, s in kept])
        n_rejected = int((p < model.threshold).sum())
        if n_rejected:
            dropped["not_argument"] += n_rejected
        kept = [ks for ks, pk in zip(kept, p) if pk >= model.threshold]
    out: list[ArgumentUnit] = []
    for k, s in kept:
        out.append(
            ArgumentUnit(
                id=f"{prefix}-{k}",
                kind="speech",
                text=s.text,
                origin="summary",
                document=prefix,
                start=s.start,
                end=s.end,
                speaker=None,
                position=len(out),
                k=k,
                segment_kind=s.kind,
            )
        )
    return UnitExtraction(tuple(out), f"sentences:{seg.name}", pol, MappingProxyType(dict(dropped)))


def units_by_id(units: Sequence[ArgumentUnit]) -> dict[str, ArgumentUnit]:
    """Index units by id (an error names a duplicate)."""
    out: dict[str, ArgumentUnit] = {}
    for u in units:
        if u.id in out:
            raise ConfigurationError(f"duplicate argument unit id {u.id!r}")
        out[u.id] = u
    return out


__all__ += ["units_by_id"]
