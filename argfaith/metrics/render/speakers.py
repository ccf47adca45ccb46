"""Speakers as a reader knows them: one name per person, one unique short label per person.

Transcripts spell a speaker in several ways — ``Ján Figeľ`` and ``Ján Figel'`` (a caron in one
speech, an apostrophe in another), ``Marianne Mikko (PSE). –`` and ``Marianne Mikko`` — and
initials collide (``MM`` for Manolis Mavrommatis, Marianne Mikko and Marios Matsakis in one EP
debate). :func:`speaker_index` merges spellings by a key (:func:`speaker_key`: letters without
diacritics, apostrophes and the political group dropped, case-folded), keeps every variant so a
report can list them, and gives each person a short label that no other person of the debate
shares: the initials, extended by letters of the last name only where initials collide
(``MMav``, ``MMik``, ``MMat``).

>>> idx = speaker_index(["Ján Figeľ", "Manolis Mavrommatis (PPE-DE),", "Ján Figel'", "Marianne Mikko (PSE). –", "Ján Figeľ"])
>>> idx["Ján Figel'"].name, idx["Ján Figel'"].variants
('Ján Figeľ', ('Ján Figeľ', "Ján Figel'"))
>>> idx["Manolis Mavrommatis (PPE-DE),"].label, idx["Marianne Mikko (PSE). –"].label, idx["Ján Figeľ"].label
('MMa', 'MMi', 'JF')
>>> idx = speaker_index(["Manolis Mavrommatis (PPE-DE)", "Marianne Mikko (PSE)", "Marios Matsakis (ALDE)"])
>>> sorted(s.label for s in idx.values())
['MMat', 'MMav', 'MMi']
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Speaker", "speaker_key", "speaker_index"]

_TRAIL = re.compile(r"[\s,;:–—.-]+$")
_GROUP = re.compile(r"\s*\([^)]*\)")
_APOSTROPHES = "'’ʼ`´‘ʹ"
_WORDS = re.compile(r"[^\W\d_]+")


def _clean(name: str) -> str:
    s = " ".join(name.split())
    s = _TRAIL.sub("", s)
    return s.rstrip(".") if s.endswith(").") else s


def _fold(text: str) -> str:
    s = unicodedata.normalize("NFKD", text)
    s = "".join(c for c in s if not unicodedata.combining(c) and c not in _APOSTROPHES)
    return s.casefold()


def speaker_key(name: str | None) -> str:
    """The spelling-independent key of a speaker: group in parentheses, trailing punctuation,
    diacritics and apostrophes dropped, case-folded (``"Ján Figel'"`` → ``"jan figel"``)."""
    if not name:
        return ""
    s = _GROUP.sub("", _clean(name))
    return " ".join(_fold(s).split())


@dataclass(frozen=True)
class Speaker:
    """One person: display ``name`` (the most frequent spelling without an apostrophe standing for
    a diacritic, group kept), every spelling seen (``variants``, that one first), a ``label`` unique in the debate, and how many
    arguments (names given to :func:`speaker_index`) are theirs."""

    key: str
    name: str
    variants: tuple[str, ...]
    label: str
    count: int

    @property
    def also(self) -> str:
        """``also written Ján Figel'`` when there are other spellings, else ``""``."""
        other = [v for v in self.variants if v != self.name]
        return ("also written " + ", ".join(other)) if other else ""


def _initials(words: list[str]) -> str:
    return "".join(w[0] for w in words[:3]).upper() or "?"


def _labels(words_by_key: dict[str, list[str]]) -> dict[str, str]:
    """Initials, extended with letters of the last name where two people share them."""
    out = {k: _initials(w) for k, w in words_by_key.items()}
    for _ in range(12):
        groups: dict[str, list[str]] = {}
        for k, lab in out.items():
            groups.setdefault(lab, []).append(k)
        clashes = [ks for ks in groups.values() if len(ks) > 1]
        if not clashes:
            break
        for ks in clashes:
            for k in ks:
                w = words_by_key[k]
                last = w[-1] if w else "?"
                extra = len(out[k]) - len(_initials(w)) + 1
                out[k] = _initials(w[:-1] or w[:1]) + last[: 1 + extra].capitalize() if len(w) > 1 else (last[: 1 + extra].capitalize())
    # Still equal (identical names with different keys are impossible; very similar ones): number them.
    seen: Counter[str] = Counter()
    for k in list(out):
        seen[out[k]] += 1
        if seen[out[k]] > 1:
            out[k] = f"{out[k]}{seen[out[k]]}"
    return out


def speaker_index(names: Iterable[str | None]) -> dict[str, Speaker]:
    """Every raw speaker string of ``names`` → its :class:`Speaker` (module docstring). Empty
    names are left out. Order of first appearance decides nothing but ties of frequency."""
    raw = [n for n in names if n and n.strip()]
    by_key: dict[str, Counter[str]] = {}
    first: dict[str, int] = {}
    for i, n in enumerate(raw):
        k = speaker_key(n)
        if not k:
            continue
        by_key.setdefault(k, Counter())[_clean(n)] += 1
        first.setdefault(k, i)
    words = {}
    ranked: dict[str, tuple[str, ...]] = {}
    for k, spellings in by_key.items():
        # An apostrophe standing for a diacritic (Figel' for Figeľ) is a transcription's loss: the
        # spelling without one is preferred, then the most frequent.
        ranked[k] = tuple(v for v, _ in sorted(spellings.most_common(), key=lambda t: (any(c in _APOSTROPHES for c in t[0]), -t[1])))
        words[k] = _WORDS.findall(_GROUP.sub("", ranked[k][0]))
    labels = _labels(words)
    speakers = {}
    for k, spellings in by_key.items():
        variants = ranked[k]
        speakers[k] = Speaker(k, variants[0], variants, labels[k], sum(spellings.values()))
    return {n: speakers[speaker_key(n)] for n in raw if speaker_key(n) in speakers}
