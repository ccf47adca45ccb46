"""Short labels of arguments and ids, shared by the cards and the graph drawings."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

__all__ = ["clean_speaker", "first_words", "argument_label", "short_ids"]

_TRAIL = re.compile(r"[\s,;:–—-]+$")
_WORD = re.compile(r"\S+")


def clean_speaker(speaker: str | None) -> str:
    """A speaker as a label: ``"Zita Pleštinská (PPE-DE). –"`` → ``"Zita Pleštinská (PPE-DE)"``."""
    if not speaker:
        return ""
    s = " ".join(speaker.split())
    s = _TRAIL.sub("", s)
    return s.rstrip(".") if s.endswith(").") else s


def first_words(text: str | None, words: int = 12, chars: int = 90) -> str:
    """The first ``words`` words of ``text`` (at most ``chars`` characters), with … if cut."""
    if not text:
        return ""
    toks = _WORD.findall(text)
    out = " ".join(toks[:words])
    cut = len(toks) > words
    if len(out) > chars:
        out, cut = out[: chars - 1].rstrip(), True
    return out + ("…" if cut else "")


def argument_label(text: str | None, speaker: str | None, fallback: str) -> str:
    """``Speaker: first words…`` — or the first words alone, or ``fallback`` (an id)."""
    sp = clean_speaker(speaker)
    fw = first_words(text)
    if sp and fw:
        return f"{sp}: {fw}"
    return fw or sp or fallback


def short_ids(ids: Sequence[str], *, keep_word: bool = False) -> dict[str, str]:
    """Ids without the prefix they all share (cut after a separator): ``CRE-20060213-ITEM-013-1-143-5``
    → ``1-143-5`` when every id of the framework starts with ``CRE-20060213-ITEM-013-``.
    ``keep_word``: never leave bare numbers — ``…-013-PAR-22`` → ``PAR-22``, not ``22``."""
    uniq = list(dict.fromkeys(ids))
    if len(uniq) < 2:
        return {i: i for i in uniq}
    pre = os.path.commonprefix(uniq)
    cuts = sorted((k + 1 for k, c in enumerate(pre) if c in "-_.:/ "), reverse=True) + [0]
    for cut in cuts:
        out = {i: i[cut:] or i for i in uniq}
        if keep_word and cut and all(v.isdigit() for v in out.values()):
            continue
        return out if len(set(out.values())) == len(uniq) else {i: i for i in uniq}
    return {i: i for i in uniq}
