"""QBAF builders: argument units + classified relations → the engine's :class:`~argfaith.qbaf.QBAF`.

PAPER.md §1 (Definition 1) and §7:

- :func:`build_source_qbaf` — the debate's QBAF. Proposal arguments (τ = 0.5) and speech
  arguments (τ configurable, paper default 0.2). Every relation must respect the temporal
  constraint (target is a proposal or an *earlier* speech argument), which is checked, so the
  result is acyclic by construction.
- :func:`build_summary_qbaf` — a summary's QBAF, anchored on the *debate's* proposal arguments
  (same ids and texts as in the source QBAF, so metrics can compare them); speech arguments may
  relate in any direction, so cycles are allowed.

Arguments carry ``text``, ``speaker``, ``position`` (debate order of speech arguments) and
``metadata`` (origin, document, offsets, ...); relations labelled "no relation" add no edge.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from argfaith.datasets.labels import ATTACK, NO_RELATION, SUPPORT, RelationLabel, normalise_label
from argfaith.errors import ArgfaithError
from argfaith.mining.units import ArgumentUnit
from argfaith.qbaf import DEFAULT_PROPOSAL_BASE_SCORE, DEFAULT_SPEECH_BASE_SCORE, QBAF, Argument

_CANONICAL = frozenset((ATTACK, SUPPORT, NO_RELATION))

__all__ = [
    "Relation",
    "RelationError",
    "TemporalConstraintError",
    "build_source_qbaf",
    "build_summary_qbaf",
    "qbaf_arguments",
]


class RelationError(ArgfaithError, ValueError):
    """A relation names an unknown argument, leaves a proposal, or contradicts another relation."""


class TemporalConstraintError(RelationError):
    """A source-QBAF relation points from an argument to a later (or the same) one."""


@dataclass(frozen=True, slots=True)
class Relation:
    """A classified pair: ``label`` ∈ {attack, support, no relation} (+ the classifier's confidence)."""

    source_id: str
    target_id: str
    label: RelationLabel
    confidence: float | None = None


def qbaf_arguments(
    proposals: Sequence[ArgumentUnit], speech: Sequence[ArgumentUnit], *, tau: float
) -> list[Argument]:
    """QBAF arguments for the units: proposals first (τ = 0.5), then speech arguments (τ = ``tau``)."""
    args = [
        Argument(
            id=u.id,
            kind="proposal",
            base_score=DEFAULT_PROPOSAL_BASE_SCORE,
            text=u.text,
            metadata={"origin": u.origin, "document": u.document},
        )
        for u in proposals
    ]
    args += [
        Argument(
            id=u.id, kind="speech", base_score=tau, text=u.text, speaker=u.speaker, position=u.position,
            metadata=u.metadata(),
        )
        for u in speech
    ]
    return args


def _edges(
    relations: Iterable[Relation],
    units: Mapping[str, ArgumentUnit],
    *,
    temporal: bool,
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    attacks: list[tuple[str, str]] = []
    supports: list[tuple[str, str]] = []
    seen: dict[tuple[str, str], str] = {}
    for r in relations:
        label = r.label if r.label in _CANONICAL else normalise_label(r.label)
        if label is None:
            raise RelationError(f"relation {r.source_id!r} -> {r.target_id!r}: unknown label {r.label!r}")
        src, tgt = units.get(r.source_id), units.get(r.target_id)
        for end, u in ((r.source_id, src), (r.target_id, tgt)):
            if u is None:
                raise RelationError(f"relation {r.source_id!r} -> {r.target_id!r}: unknown argument {end!r}")
        assert src is not None and tgt is not None
        key = (r.source_id, r.target_id)
        if key in seen and seen[key] != label:
            raise RelationError(
                f"relation {r.source_id!r} -> {r.target_id!r} is labelled both {seen[key]!r} and {label!r}"
            )
        if key in seen:
            continue
        seen[key] = label
        if label == NO_RELATION:
            continue
        if src.kind == "proposal":
            raise RelationError(f"relation {r.source_id!r} -> {r.target_id!r}: edges may not leave a proposal argument")
        if r.source_id == r.target_id:
            raise RelationError(f"relation {r.source_id!r} -> itself: an argument cannot relate to itself")
        if temporal and tgt.kind == "speech" and not (
            tgt.position is not None and src.position is not None and tgt.position < src.position
        ):
            raise TemporalConstraintError(
                f"relation {r.source_id!r} -> {r.target_id!r} breaks the temporal constraint: "
                f"the target (position {tgt.position}) is not earlier than the source (position {src.position})"
            )
        (attacks if label == ATTACK else supports).append(key)
    assert all(lbl in (ATTACK, SUPPORT, NO_RELATION) for lbl in seen.values())
    return attacks, supports


def build_source_qbaf(
    proposals: Sequence[ArgumentUnit],
    speech: Sequence[ArgumentUnit],
    relations: Iterable[Relation],
    *,
    tau: float = DEFAULT_SPEECH_BASE_SCORE,
    name: str | None = None,
    info: Mapping[str, Any] | None = None,
) -> QBAF:
    """The debate QBAF (Definition 1) from units and relations under the temporal constraint.

    Raises
    ------
    TemporalConstraintError
        A relation whose target is a speech argument that is not strictly earlier.
    RelationError
        Unknown ids, an edge leaving a proposal, or one pair with two different labels.
    """
    units = {u.id: u for u in (*proposals, *speech)}
    attacks, supports = _edges(relations, units, temporal=True)
    return QBAF.from_arguments(
        qbaf_arguments(proposals, speech, tau=tau), attacks, supports, tau=tau, debate=True, name=name, info=info
    )


def build_summary_qbaf(
    proposals: Sequence[ArgumentUnit],
    speech: Sequence[ArgumentUnit],
    relations: Iterable[Relation],
    *,
    tau: float = DEFAULT_SPEECH_BASE_SCORE,
    name: str | None = None,
    info: Mapping[str, Any] | None = None,
) -> QBAF:
    """A summary's QBAF: the debate's proposal arguments (same ids) plus the summary's speech
    arguments; any direction between speech arguments is allowed (cycles possible)."""
    units = {u.id: u for u in (*proposals, *speech)}
    attacks, supports = _edges(relations, units, temporal=False)
    return QBAF.from_arguments(
        qbaf_arguments(proposals, speech, tau=tau), attacks, supports, tau=tau, debate=True, name=name, info=info
    )
