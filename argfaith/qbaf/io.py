"""QBAF interchange: the argfaith JSON format, its JSON Schema, and networkx round-trips.

The JSON format (see README "QBAF JSON format")::

    {"arguments": [{"id": "p1", "kind": "proposal", "text": "...", "base_score": 0.5}, ...],
     "attacks": [["s1", "p1"], ...], "supports": [["s3", "s1"], ...]}

Optional top-level keys: ``name``, ``debate`` (default: true iff some argument is a proposal),
``tau`` (base score of speech arguments that omit ``base_score``; default 0.2), ``metadata``.
Optional per-argument keys: ``kind`` (default ``"speech"``), ``base_score`` (default 0.5 for
proposals, τ for speech arguments), ``text``, ``speaker``, ``position``, ``metadata``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import networkx as nx
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from argfaith.qbaf.errors import QBAFError, QBAFFormatError
from argfaith.qbaf.framework import (
    DEFAULT_PROPOSAL_BASE_SCORE,
    DEFAULT_SPEECH_BASE_SCORE,
    PROPOSAL,
    QBAF,
)

__all__ = [
    "ArgumentModel",
    "QBAFModel",
    "qbaf_json_schema",
    "qbaf_json_schema_text",
    "qbaf_from_dict",
    "qbaf_to_dict",
    "load_qbaf",
    "save_qbaf",
    "to_networkx",
    "from_networkx",
]


def _unit_interval(v: float | None, what: str) -> float | None:
    # One explicit check instead of ge/le constraints, so NaN gets its own message
    # (NaN fails ge/le with a misleading "should be less than or equal to 1").
    if v is None:
        return v
    if math.isnan(v):
        raise ValueError(f"{what} is NaN; expected a number in [0, 1]")
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"{what} {v!r} is not in [0, 1]")
    return v


class ArgumentModel(BaseModel):
    """One argument in the JSON interchange format."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, description="Unique argument id.")
    kind: Literal["proposal", "speech"] = Field("speech", description="Proposal (a provision) or speech argument.")
    text: str | None = Field(None, description="Argument text (untrusted; escaped in reports).")
    base_score: float | None = Field(
        None,
        description="τ(x) in [0,1]; default 0.5 for proposals, the framework τ for speech.",
        json_schema_extra={"minimum": 0.0, "maximum": 1.0},
    )
    speaker: str | None = None
    position: int | None = Field(None, description="Order in the debate (0-based), if known.")
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("base_score")
    @classmethod
    def _in_unit_interval(cls, v: float | None) -> float | None:
        return _unit_interval(v, "base score")


class QBAFModel(BaseModel):
    """A QBAF ⟨X, A, S, τ⟩ in the argfaith JSON interchange format."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: str | None = Field(None, alias="$schema")
    name: str | None = None
    debate: bool | None = Field(
        None, description="Debate QBAF (Definition 1): no edge may leave a proposal. Default: true iff proposals exist."
    )
    tau: float | None = Field(
        None, description="Base score of speech arguments that omit one.", json_schema_extra={"minimum": 0.0, "maximum": 1.0}
    )
    arguments: list[ArgumentModel]
    attacks: list[tuple[str, str]] = Field(default_factory=list, description="[source id, target id] pairs.")
    supports: list[tuple[str, str]] = Field(default_factory=list, description="[source id, target id] pairs.")
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("tau")
    @classmethod
    def _tau_in_unit_interval(cls, v: float | None) -> float | None:
        return _unit_interval(v, "tau")


def qbaf_json_schema() -> dict[str, Any]:
    """JSON Schema of the interchange format, exported from :class:`QBAFModel`."""
    schema = QBAFModel.model_json_schema(by_alias=True)
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "argfaith QBAF"
    return schema


def _loc(err: Mapping[str, Any], data: Any) -> str:
    loc = list(err.get("loc", ()))
    parts = []
    for i, p in enumerate(loc):
        if isinstance(p, int):
            parts.append(f"[{p}]")
            # Name the argument by id when we can: that is what a user searches for.
            if i == 1 and loc[0] == "arguments" and isinstance(data, Mapping):
                try:
                    aid = data["arguments"][p].get("id")
                    if aid is not None:
                        parts.append(f" (argument {aid!r})")
                except (KeyError, IndexError, TypeError, AttributeError):
                    pass
        else:
            parts.append(("." if parts else "") + str(p))
    return "".join(parts) or "<root>"


def qbaf_from_dict(data: Any, *, tau: float | None = None, source: str = "<data>") -> QBAF:
    """Build a QBAF from a JSON-like dict, validating it.

    ``tau`` overrides the file's ``tau`` for speech arguments that omit ``base_score``.
    Errors are :class:`QBAFFormatError` / :class:`QBAFError` naming ``source`` and the item.
    """
    try:
        m = QBAFModel.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        more = f" (and {e.error_count() - 1} more problems)" if e.error_count() > 1 else ""
        msg = first["msg"].removeprefix("Value error, ")
        raise QBAFFormatError(f"{source}: {_loc(first, data)}: {msg}{more}") from None
    t = tau if tau is not None else (m.tau if m.tau is not None else DEFAULT_SPEECH_BASE_SCORE)
    debate = m.debate if m.debate is not None else any(a.kind == PROPOSAL for a in m.arguments)
    args = []
    for a in m.arguments:
        bs = a.base_score
        if bs is None:
            bs = DEFAULT_PROPOSAL_BASE_SCORE if a.kind == PROPOSAL else t
        args.append(
            dict(id=a.id, kind=a.kind, base_score=bs, text=a.text, speaker=a.speaker, position=a.position, metadata=a.metadata)
        )
    try:
        return QBAF.from_arguments(
            args, m.attacks, m.supports, tau=t, debate=debate, name=m.name, info=m.metadata
        )
    except QBAFError as e:
        raise type(e)(f"{source}: {e}") from None


def qbaf_to_dict(qbaf: QBAF, *, include_defaults: bool = True) -> dict[str, Any]:
    """Serialise to the interchange format (a plain dict ready for :func:`json.dumps`)."""
    args = []
    for a in qbaf.arguments:
        d: dict[str, Any] = {"id": a.id, "kind": a.kind}
        if a.text is not None:
            d["text"] = a.text
        d["base_score"] = a.base_score
        if a.speaker is not None:
            d["speaker"] = a.speaker
        if a.position is not None:
            d["position"] = a.position
        if a.metadata:
            d["metadata"] = dict(a.metadata)
        args.append(d)
    out: dict[str, Any] = {}
    if qbaf.name:
        out["name"] = qbaf.name
    out["debate"] = qbaf.debate
    out["tau"] = qbaf.tau
    out["arguments"] = args
    out["attacks"] = [list(e) for e in qbaf.attacks]
    out["supports"] = [list(e) for e in qbaf.supports]
    if qbaf.info:
        out["metadata"] = dict(qbaf.info)
    return out


def load_qbaf(path: str | Path, *, tau: float | None = None) -> QBAF:
    """Read a QBAF JSON file. Errors name the file and the offending item (line for JSON syntax)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise QBAFFormatError(f"{p}: no such file") from None
    except UnicodeDecodeError as e:
        if e.object.startswith(b"%PDF"):
            raise QBAFFormatError(f"{p}: is a PDF document, not a QBAF JSON file") from None
        line = e.object[: e.start].count(b"\n") + 1
        raise QBAFFormatError(f"{p}, line {line}: not UTF-8 text ({e.reason} at byte {e.start}); a QBAF file is UTF-8 JSON") from None
    except IsADirectoryError:
        raise QBAFFormatError(f"{p}: is a directory, expected a QBAF JSON file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise QBAFFormatError(f"{p}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
    return qbaf_from_dict(data, tau=tau, source=str(p))


def save_qbaf(qbaf: QBAF, path: str | Path) -> None:
    """Write a QBAF as JSON (UTF-8, atomically: a temporary file renamed over the target)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(qbaf_to_dict(qbaf), ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    tmp.replace(p)


def to_networkx(qbaf: QBAF) -> nx.DiGraph:
    """A :class:`networkx.DiGraph`: node attributes ``kind``, ``base_score`` (+ text, speaker,
    position, metadata when present); edge attribute ``relation`` = ``"attack"`` | ``"support"``."""
    g = nx.DiGraph(name=qbaf.name, debate=qbaf.debate, tau=qbaf.tau)
    for a in qbaf.arguments:
        attrs: dict[str, Any] = {"kind": a.kind, "base_score": a.base_score}
        for k in ("text", "speaker", "position"):
            if getattr(a, k) is not None:
                attrs[k] = getattr(a, k)
        if a.metadata:
            attrs["metadata"] = dict(a.metadata)
        g.add_node(a.id, **attrs)
    g.add_edges_from(qbaf.attacks, relation="attack")
    g.add_edges_from(qbaf.supports, relation="support")
    return g


def from_networkx(g: nx.DiGraph, *, tau: float | None = None, debate: bool | None = None) -> QBAF:
    """Inverse of :func:`to_networkx`. Nodes may omit ``kind`` (speech) and ``base_score``;
    every edge needs ``relation`` in {"attack", "support"} (an error names the edge otherwise).

    Built column by column (one pass over the nodes, one over the edges, endpoints mapped to
    positions by :meth:`QBAF.from_edges`' lookup), not argument by argument, so a graph of 10^6
    nodes costs no per-argument objects."""
    t = tau if tau is not None else g.graph.get("tau", DEFAULT_SPEECH_BASE_SCORE)
    ids = list(g.nodes)
    bad = next((v for v in ids if not isinstance(v, str) or not v), None)
    if bad is not None:
        raise QBAFError(f"node {bad!r}: argument ids must be strings" + (" (non-empty)" if bad == "" else ""))
    n = len(ids)
    is_prop = np.zeros(n, dtype=np.bool_)
    bs = np.empty(n, dtype=np.float64)
    cols: dict[str, list[Any]] = {}
    for i, (node, d) in enumerate(g.nodes(data=True)):
        kind = d.get("kind", "speech")
        if kind not in ("proposal", "speech"):
            raise QBAFError(f"node {node!r}: kind must be 'proposal' or 'speech', got {kind!r}")
        is_prop[i] = kind == PROPOSAL
        b = d.get("base_score")
        if b is None:
            b = DEFAULT_PROPOSAL_BASE_SCORE if kind == PROPOSAL else t
        try:
            bs[i] = b
        except (TypeError, ValueError):
            raise QBAFError(f"node {node!r}: base score {b!r} is not a number") from None
        for k in ("text", "speaker", "position", "metadata"):
            if k in d:
                cols.setdefault(k, [None] * n)[i] = d[k]
    attacks: list[tuple[str, str]] = []
    supports: list[tuple[str, str]] = []
    add_a, add_s = attacks.append, supports.append
    for u, v, rel in g.edges(data="relation"):
        if rel == "attack":
            add_a((u, v))
        elif rel == "support":
            add_s((u, v))
        else:
            raise QBAFError(f"edge ({u!r} -> {v!r}): attribute 'relation' must be 'attack' or 'support', got {rel!r}")
    if debate is None:
        debate = g.graph.get("debate")
    if debate is None:
        debate = bool(is_prop.any())
    from argfaith.qbaf.framework import _IdMatcher, _pairs_to_array

    matcher = _IdMatcher(ids)
    att = _pairs_to_array(attacks, "attacks", lambda: matcher)
    sup = _pairs_to_array(supports, "supports", lambda: matcher)
    return QBAF(
        ids, is_prop, bs, att, sup,
        texts=cols.get("text"), speakers=cols.get("speaker"), positions=cols.get("position"),
        metadata=cols.get("metadata"), tau=t, debate=bool(debate), name=g.graph.get("name"),
        copy=False,  # every array here was built above
    )


def qbaf_json_schema_text() -> str:
    """The JSON Schema as the text checked into ``docs/qbaf.schema.json``; regenerate it with
    ``python -c "from argfaith.qbaf.io import qbaf_json_schema_text as s; print(s(), end='')" > docs/qbaf.schema.json``."""
    return json.dumps(qbaf_json_schema(), ensure_ascii=False, indent=2, sort_keys=True) + "\n"

