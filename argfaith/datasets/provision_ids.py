"""Provision ids that follow the printed paragraph numbers — and the one mapping from the old
positional ids, which stay accepted wherever ids are read.

**The ids.** A resolution paragraph printed ``23.`` is provision ``P23`` (argument id
``<debate>-P23``). The EP source data skips and repeats numbers (two of the paper's three
debates skip one: the 22nd paragraph is printed ``23.``; debates with several report files or
annexes restart at 1), so:

=========================================  ==================================================
paragraph                                  id
=========================================  ==================================================
first paragraph printed ``23.``            ``P23``
a heading printed ``4.2 Introducing …``     ``P4.2``
the k-th (k ≥ 2) paragraph printed ``4.``  ``P4(k)`` — e.g. ``P4(2)``
a paragraph without a printed number       ``U<n>``, n its position (1-based)
=========================================  ==================================================

**The old ids.** Until this scheme, provision ids were positional: ``<debate>-PAR-<n>`` for the
n-th paragraph over the debate's report files in file-name order (the silver relation data
``data/ep_relations_llm``, the written distortions ``data/distortions`` and annotation files
made from them use them). The two forms cannot collide (``PAR-`` vs ``P<digit>``), so an id
says which scheme it is in, and :func:`canonical_provision_id` turns an old id into the new one
with the mapping of its debate: position n → the id of the n-th paragraph. The mapping of a
debate is registered when the debate is read (:func:`argfaith.datasets.ep.read_ep_debate`), or
built from its paragraph texts (:meth:`ProvisionIdMap.from_texts`), so readers of id-keyed
files only need the debate id in the old id itself.

>>> provision_ids(["1. Welcomes", "2. Notes", "4. Calls", "1. Annex: requests", "Unnumbered text", "4.2 Heading"])
['P1', 'P2', 'P4', 'P1(2)', 'U5', 'P4.2']
>>> m = ProvisionIdMap.from_texts("D", ["1. A", "3. B"])
>>> m.canonical("D-PAR-2"), m.canonical("D-P3"), m.legacy("D-P3")
('D-P3', 'D-P3', 'D-PAR-2')
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from argfaith.errors import DataFormatError

__all__ = [
    "PROVISION_ID_SCHEME",
    "ProvisionIdMap",
    "printed_label",
    "provision_ids",
    "is_legacy_provision_id",
    "is_provision_id",
    "register_provision_ids",
    "canonical_provision_id",
    "legacy_provision_id",
]

#: Part of every cache key of mined QBAFs: a QBAF mined under another scheme is not reused.
PROVISION_ID_SCHEME = "printed-1"

_LABEL = re.compile(r"^\s*(\d+(?:\.\d+)*)\.*(?=\s|$|[^\d.])")
_LEGACY = re.compile(r"^(?P<debate>.+)-PAR-(?P<n>\d+)$")
_CURRENT = re.compile(r"-(?:P\d+(?:\.\d+)*(?:\(\d+\))?|U\d+)$")


def printed_label(text: str) -> str | None:
    """The number a paragraph is printed with: ``"23.   Calls on"`` → ``"23"``, ``"4.2 Heading"``
    → ``"4.2"``, ``"12..  Asks"`` → ``"12"``; None when the paragraph has no number."""
    m = _LABEL.match(text)
    return m.group(1) if m else None


def provision_ids(texts: Sequence[str]) -> list[str]:
    """Local ids (without the debate prefix) of a debate's paragraphs in order (module table)."""
    seen: Counter[str] = Counter()
    out = []
    for i, t in enumerate(texts, start=1):
        label = printed_label(t)
        if label is None:
            out.append(f"U{i}")
            continue
        seen[label] += 1
        out.append(f"P{label}" if seen[label] == 1 else f"P{label}({seen[label]})")
    return out


def is_legacy_provision_id(pid: str) -> bool:
    """True for an id in the old positional form ``<debate>-PAR-<n>``."""
    return bool(_LEGACY.match(pid))


def is_provision_id(pid: str) -> bool:
    """True for an EP provision's argument id in either scheme (``…-P23``, ``…-P4(2)``, ``…-U7``
    or the old ``…-PAR-22``) — what id-based code asks instead of ``"-PAR-" in pid``.

    >>> [is_provision_id(x) for x in ("D-P23", "D-P4(2)", "D-U7", "D-PAR-22", "D-1-143-5", "D-claude_en-3")]
    [True, True, True, True, False, False]
    """
    return bool(_LEGACY.match(pid) or _CURRENT.search(pid))


@dataclass(frozen=True)
class ProvisionIdMap:
    """A debate's provision ids (full argument ids, in paragraph order) and their old positional
    ids: ``ids[n - 1]`` is the provision once called ``<debate>-PAR-<n>``."""

    debate_id: str
    ids: tuple[str, ...]

    @classmethod
    def from_texts(cls, debate_id: str, texts: Sequence[str]) -> ProvisionIdMap:
        return cls(debate_id, tuple(f"{debate_id}-{p}" for p in provision_ids(texts)))

    def legacy(self, pid: str) -> str | None:
        """The old positional id of ``pid`` (None if it is not a provision of this debate)."""
        try:
            return f"{self.debate_id}-PAR-{self.ids.index(pid) + 1}"
        except ValueError:
            return None

    def canonical(self, pid: str) -> str:
        """``pid`` in the current scheme: an old ``<debate>-PAR-<n>`` becomes the n-th
        paragraph's id; anything else is returned as it is. An old id past the last paragraph
        is a :class:`~argfaith.errors.DataFormatError` naming it."""
        m = _LEGACY.match(pid)
        if not m or m.group("debate") != self.debate_id:
            return pid
        n = int(m.group("n"))
        if not 1 <= n <= len(self.ids):
            raise DataFormatError(f"provision {pid!r}: debate {self.debate_id} has {len(self.ids)} paragraphs (old positional id out of range)")
        return self.ids[n - 1]

    def as_dict(self) -> dict[str, str]:
        """{old positional id: current id} for every paragraph."""
        return {f"{self.debate_id}-PAR-{k}": pid for k, pid in enumerate(self.ids, start=1)}


_REGISTRY: dict[str, ProvisionIdMap] = {}
_LOCK = threading.Lock()


def register_provision_ids(mapping: ProvisionIdMap) -> None:
    """Remember a debate's mapping (the EP reader does it for every debate it reads)."""
    with _LOCK:
        _REGISTRY[mapping.debate_id] = mapping


def _lookup(debate_id: str) -> ProvisionIdMap | None:
    with _LOCK:
        return _REGISTRY.get(debate_id)


def canonical_provision_id(pid: str, maps: Mapping[str, ProvisionIdMap] | None = None) -> str:
    """``pid`` in the current scheme (an old positional id through its debate's mapping, from
    ``maps`` or the registry); ids of other kinds, and old ids of debates not read in this process,
    are returned unchanged."""
    m = _LEGACY.match(pid)
    if not m:
        return pid
    mp = (maps or {}).get(m.group("debate")) or _lookup(m.group("debate"))
    return mp.canonical(pid) if mp is not None else pid


def legacy_provision_id(pid: str) -> str | None:
    """The old positional id of a current provision id, when its debate has been read."""
    for debate_id, mp in list(_REGISTRY.items()):
        if pid.startswith(debate_id + "-"):
            return mp.legacy(pid)
    return None
