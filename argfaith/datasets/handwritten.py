"""Plain formats a user can write by hand: a JSON debate, a ``[ID] Speaker: text`` transcript, and
plain-text (or small JSON) summaries.

JSON debate (``read_debate_json``)::

    {
      "id": "school-uniforms",                       # optional, default: file stem
      "title": "School uniforms (debate)",           # optional, default: id
      "provisions": ["1. Requires uniforms ...",     # strings, or {"id", "text"} objects;
                     {"id": "PAR-2", "text": "..."}],  # ids default to PAR-1, PAR-2, ...
      "interventions": [                             # in debate order
        {"id": "1", "speaker": "Alice", "text": "..."},   # id defaults to 1, 2, ...
        ...
      ],
      "spans": [                                     # optional human argument spans
        {"intervention": "1", "start": 0, "end": 42},     # offsets into that speech's text
        {"intervention": "2", "text": "an exact quote"}   # or the span's text, located in order
      ]
    }

Transcript (``read_transcript``), the paper's formatted transcript (PAPER.md §7) plus a few
conventions::

    # title: School uniforms (debate)               optional header comments: title, id
    # id: school-uniforms
    [PAR-1] Provision: 1. Requires uniforms ...      speaker "Provision" / "Resolution" = a provision
    [1] Alice: Uniforms reduce bullying.            one intervention per [ID] line
    Second paragraph of Alice's speech.             lines without [ID] continue the previous one
    [2] Bob: They cost families money.

A continuation line that would itself look like ``[ID] Speaker:`` is written with a leading
backslash by :func:`format_transcript` (and one leading backslash is removed on reading), so
writing and reading round-trip exactly.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from argfaith.datasets._jsonio import read_json, read_text
from argfaith.datasets.doctypes import ArgumentSpan, Debate, Intervention, Provision, Summary
from argfaith.datasets.ep import provision_number
from argfaith.errors import DataFormatError

__all__ = [
    "read_debate_json",
    "debate_from_dict",
    "debate_to_dict",
    "read_transcript",
    "parse_transcript",
    "format_transcript",
    "read_text_summary",
    "read_summary_json",
    "PROVISION_SPEAKERS",
]

#: Speaker labels that mark a provision line in a transcript (compared case-insensitively).
PROVISION_SPEAKERS = frozenset({"provision", "resolution"})

_LINE_RE = re.compile(r"^\[(?P<id>[^\]\s][^\]]*)\]\s*(?P<speaker>[^:\n]{0,200}?)\s*:(?: |\t)?(?P<text>.*)$")
_HEADER_RE = re.compile(r"^#\s*(?P<key>title|id)\s*:\s*(?P<value>.*?)\s*$", re.IGNORECASE)


class _ProvisionModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str | None = Field(None, min_length=1)
    text: str = Field(min_length=1)


class _InterventionModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str | None = Field(None, min_length=1)
    speaker: str = ""
    text: str = Field(min_length=1)
    lang: str | None = None
    original: str | None = None


class _SpanModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    intervention: str = Field(min_length=1)
    start: int | None = Field(None, ge=0)
    end: int | None = Field(None, ge=0)
    text: str | None = Field(None, min_length=1)
    type: str | None = None


class _DebateModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str | None = Field(None, min_length=1)
    title: str | None = None
    url: str | None = None
    provisions: list[str | _ProvisionModel] = Field(default_factory=list)
    interventions: list[_InterventionModel] = Field(min_length=1)
    spans: list[_SpanModel] | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for p in loc:
        if isinstance(p, int):
            out += f"[{p}]"
        elif p in ("str", "_ProvisionModel"):
            continue  # pydantic's union-branch names are noise for the user
        else:
            out += ("." if out else "") + str(p)
    return out or "<root>"


def debate_from_dict(data: Any, *, source: str = "<data>", default_id: str = "debate") -> Debate:
    """Build a :class:`Debate` from the hand-written JSON structure (see module docstring).

    Raises
    ------
    DataFormatError
        Naming ``source`` and the offending key path, e.g. ``interventions[2].text``.
    """
    try:
        m = _DebateModel.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        more = f" (and {e.error_count() - 1} more problems)" if e.error_count() > 1 else ""
        raise DataFormatError(f"{source}: {_loc(tuple(first['loc']))}: {first['msg']}{more}") from None
    provisions: list[Provision] = []
    for i, p in enumerate(m.provisions):
        pid, text = (None, p) if isinstance(p, str) else (p.id, p.text)
        text = text.strip()
        if not text:
            raise DataFormatError(f"{source}: provisions[{i}]: empty text")
        provisions.append(Provision(id=pid or f"PAR-{i + 1}", text=text, number=provision_number(text)))
    _unique([p.id for p in provisions], "provisions", source)
    interventions = [
        Intervention(
            id=iv.id or str(i + 1), speaker=iv.speaker.strip(), text=iv.text, position=i, lang=iv.lang, original=iv.original
        )
        for i, iv in enumerate(m.interventions)
    ]
    _unique([iv.id for iv in interventions], "interventions", source)
    spans = None if m.spans is None else _resolve_spans(m.spans, interventions, source)
    return Debate(
        id=m.id or default_id,
        title=m.title or m.id or default_id,
        provisions=tuple(provisions),
        interventions=tuple(interventions),
        spans=spans,
        url=m.url,
        source_path=source,
        metadata={"format": "json", **m.metadata},
    )


def _unique(ids: list[str], what: str, source: str) -> None:
    seen: dict[str, int] = {}
    for i, x in enumerate(ids):
        if x in seen:
            raise DataFormatError(f"{source}: {what}[{i}]: duplicate id {x!r} (also {what}[{seen[x]}])")
        seen[x] = i


def _resolve_spans(items: list[_SpanModel], ivs: list[Intervention], source: str) -> tuple[ArgumentSpan, ...]:
    by_id = {iv.id: iv for iv in ivs}
    cursor: dict[str, int] = {}  # text spans are located left to right within each speech
    out: list[tuple[int, ArgumentSpan]] = []
    for j, s in enumerate(items):
        loc = f"{source}: spans[{j}]"
        iv = by_id.get(s.intervention)
        if iv is None:
            raise DataFormatError(f"{loc}: unknown intervention {s.intervention!r}")
        if s.start is not None or s.end is not None:
            if s.start is None or s.end is None:
                raise DataFormatError(f"{loc}: give both 'start' and 'end' (or only 'text')")
            if not s.start < s.end <= len(iv.text):
                raise DataFormatError(
                    f"{loc}: offsets [{s.start}, {s.end}) outside intervention {iv.id!r} (length {len(iv.text)})"
                )
            raw = iv.text[s.start : s.end]
            if s.text is not None and raw.strip() != s.text.strip():
                raise DataFormatError(f"{loc}: 'text' does not match intervention {iv.id!r} at [{s.start}, {s.end})")
            start = s.start
        elif s.text is not None:
            needle = s.text.strip()
            start = iv.text.find(needle, cursor.get(iv.id, 0))
            if start < 0:
                start = iv.text.find(needle)
            if start < 0:
                raise DataFormatError(f"{loc}: text {needle[:40]!r} not found in intervention {iv.id!r}")
            raw = needle
        else:
            raise DataFormatError(f"{loc}: give 'start' and 'end', or 'text'")
        lead = len(raw) - len(raw.lstrip())
        a, b = start + lead, start + lead + len(raw.strip())
        if a >= b:
            raise DataFormatError(f"{loc}: the span is only whitespace")
        cursor[iv.id] = b
        out.append((iv.position, ArgumentSpan(iv.id, a, b, iv.text[a:b], s.type)))
    out.sort(key=lambda t: (t[0], t[1].start, t[1].end))
    return tuple(sp for _, sp in out)


def read_debate_json(path: str | Path) -> Debate:
    """Read a hand-written JSON debate file (see module docstring)."""
    p = Path(path)
    return debate_from_dict(read_json(p), source=str(p), default_id=p.stem)


def debate_to_dict(debate: Debate) -> dict[str, Any]:
    """The hand-written JSON structure of ``debate`` (inverse of :func:`debate_from_dict`)."""
    out: dict[str, Any] = {"id": debate.id, "title": debate.title}
    if debate.url:
        out["url"] = debate.url
    out["provisions"] = [{"id": p.id, "text": p.text} for p in debate.provisions]
    out["interventions"] = [
        {"id": iv.id, "speaker": iv.speaker, "text": iv.text, **({"lang": iv.lang} if iv.lang else {})}
        for iv in debate.interventions
    ]
    if debate.spans is not None:
        out["spans"] = [
            {"intervention": s.intervention_id, "start": s.start, "end": s.end, **({"type": s.type} if s.type else {})}
            for s in debate.spans
        ]
    return out


def parse_transcript(text: str, *, source: str = "<transcript>", default_id: str = "debate") -> Debate:
    """Parse the ``[ID] Speaker: text`` transcript format (see module docstring).

    Raises
    ------
    DataFormatError
        ``source:line``: text before the first ``[ID]`` line, an empty speech, duplicate ids, or no
        intervention at all.
    """
    header: dict[str, str] = {}
    entries: list[list[Any]] = []  # [line_no, id, speaker, [lines]]
    for n, line in enumerate(text.splitlines(), start=1):
        m = _LINE_RE.match(line)
        if m:
            entries.append([n, m.group("id").strip(), m.group("speaker").strip(), [m.group("text")]])
            continue
        if not entries:
            if not line.strip():
                continue
            h = _HEADER_RE.match(line)
            if h:
                header[h.group("key").lower()] = h.group("value")
                continue
            if line.lstrip().startswith("#"):
                continue  # other comments before the transcript starts
            raise DataFormatError(
                f"{source}:{n}: expected an '[ID] Speaker: text' line, got {line[:60]!r}"
            )
        # Continuation of the previous speech; one leading backslash escapes a look-alike header.
        entries[-1][3].append(line[1:] if line.startswith("\\") else line)
    if not entries:
        raise DataFormatError(f"{source}: no '[ID] Speaker: text' lines found")
    provisions: list[Provision] = []
    interventions: list[Intervention] = []
    seen: dict[str, int] = {}
    for n, eid, speaker, lines in entries:
        while len(lines) > 1 and not lines[-1].strip():
            lines.pop()  # blank lines between speeches are layout, not text
        body = "\n".join(lines)
        if not body.strip():
            raise DataFormatError(f"{source}:{n}: [{eid}] has no text")
        if eid in seen:
            raise DataFormatError(f"{source}:{n}: duplicate id [{eid}] (first on line {seen[eid]})")
        seen[eid] = n
        if speaker.lower() in PROVISION_SPEAKERS:
            t = body.strip()
            provisions.append(Provision(id=eid, text=t, number=provision_number(t)))
        else:
            interventions.append(Intervention(id=eid, speaker=speaker, text=body, position=len(interventions)))
    if not interventions:
        raise DataFormatError(f"{source}: the transcript has provisions but no interventions")
    did = header.get("id") or default_id
    return Debate(
        id=did,
        title=header.get("title") or did,
        provisions=tuple(provisions),
        interventions=tuple(interventions),
        spans=None,
        source_path=source,
        metadata={"format": "transcript"},
    )


def read_transcript(path: str | Path) -> Debate:
    """Read a ``[ID] Speaker: text`` transcript file (UTF-8)."""
    p = Path(path)
    return parse_transcript(read_text(p), source=str(p), default_id=p.stem)


def format_transcript(debate: Debate, *, provisions: bool = True, header: bool = True) -> str:
    """Write ``debate`` as a transcript: ``[ID] Speaker: text`` per intervention (the paper's
    formatted transcript), optionally preceded by ``# title``/``# id`` and ``Provision`` lines.
    :func:`parse_transcript` reads it back to the same debate (spans are not written)."""
    out: list[str] = []
    if header:
        out += [f"# title: {debate.title}", f"# id: {debate.id}"]
    if provisions:
        out += [_entry(p.id, "Provision", p.text) for p in debate.provisions]
    out += [_entry(iv.id, iv.speaker, iv.text) for iv in debate.interventions]
    return "\n".join(out) + "\n"


def _entry(eid: str, speaker: str, text: str) -> str:
    if "]" in eid or "\n" in eid or not eid.strip() or eid != eid.strip():
        raise DataFormatError(f"id {eid!r} cannot be written in a transcript (no ']', newlines or edge spaces)")
    if ":" in speaker or "\n" in speaker:
        raise DataFormatError(f"[{eid}]: speaker {speaker!r} cannot contain ':' or a newline in a transcript")
    first, *rest = text.split("\n")
    lines = [f"[{eid}] {speaker}: {first}"]
    for ln in rest:
        lines.append("\\" + ln if (_LINE_RE.match(ln) or ln.startswith("\\")) else ln)
    return "\n".join(lines)


def read_text_summary(
    path: str | Path, *, debate_id: str | None = None, model: str | None = None, variant: str | None = None
) -> Summary:
    """A plain-text (or markdown) summary file; the whole file is the summary text."""
    p = Path(path)
    text = read_text(p)
    if not text.strip():
        raise DataFormatError(f"{p}: the summary file is empty")
    return Summary(
        debate_id=debate_id, text=text, model=model, variant=variant or p.stem, source_path=str(p),
        metadata={"format": "text"},
    )


def read_summary_json(path: str | Path) -> Summary:
    """A hand-written JSON summary ``{"text": ..., ["debate_id", "model", "variant", "lang"]}``."""
    p = Path(path)
    data = read_json(p)
    if not isinstance(data, dict):
        raise DataFormatError(f"{p}: expected a JSON object, got {type(data).__name__}")
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        raise DataFormatError(f"{p}: key 'text' must be a non-empty string")
    for k in ("debate_id", "model", "variant", "lang"):
        if data.get(k) is not None and not isinstance(data[k], str):
            raise DataFormatError(f"{p}: key {k!r} must be a string")
    return Summary(
        debate_id=data.get("debate_id"), text=text, model=data.get("model"), variant=data.get("variant") or p.stem,
        lang=data.get("lang"), source_path=str(p), metadata={"format": "json"},
    )
