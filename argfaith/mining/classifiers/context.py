"""Debate-context features of a candidate pair: who speaks, where, and with what overall stance.

A sentence pair alone says little about attack vs support. Its debate context says more
(FINDINGS.md §2: nearly half the relations target the rapporteur's and the Commission's opening
speeches; speakers who welcome the report support its provisions, those who announce a vote
against attack them; consecutive arguments of one speech support each other). These features
read the OPTIONAL context fields of :class:`~argfaith.mining.classifiers.base.PairQuery`
(``source_context``/``target_context`` = the full speech text with its speaker header,
``*_speaker``, ``*_position`` = debate position of the speech):

- the pair's layout: same speech, same speaker (another speech), distance in speeches;
- the speaker role of each side, read from the EP speech header ("…, rapporteur. –",
  "…, Member of the Commission", "… on behalf of the PPE-DE Group"): rapporteur/draftsman,
  Commission/Council, group spokesperson;
- where the source sits in its speech (opening sentences carry the overall verdict);
- the *speech stance* of each side: the share of the speech's sentences that evaluate the report
  (or rapporteur, resolution, proposal) positively vs negatively, and explicit voting intentions;
- interactions: source speech stance × target kind / target role / target speech stance.

A feature whose input is unknown is ``NaN`` here; the classifiers replace it by its mean over the
training pairs (mean imputation), so a pair without context is scored as an average pair of its
kind — the neutral value — and classifiers keep working on context-free inputs (summaries,
hand-made pair files).
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass

import numpy as np

from argfaith.mining.classifiers.base import PairQuery

__all__ = ["CONTEXT_FEATURE_NAMES", "SpeechProfile", "speech_profile", "speaker_role", "ContextFeaturizer"]

CONTEXT_FEATURE_NAMES: tuple[str, ...] = (
    "ctx_known",
    "ctx_same_speech",
    "ctx_same_speaker",
    "ctx_distance_log",
    "ctx_src_rel_offset",
    "ctx_within_speech_gap",
    "ctx_src_committee",
    "ctx_src_executive",
    "ctx_src_group",
    "ctx_tgt_committee",
    "ctx_tgt_executive",
    "ctx_tgt_group",
    "ctx_src_stance",
    "ctx_src_neg_share",
    "ctx_src_vote_against",
    "ctx_tgt_stance",
    "ctx_src_stance_x_proposal",
    "ctx_src_stance_x_tgt_lead",
    "ctx_stance_product",
    "ctx_src_vote_against_x_proposal",
)

_HEADER_END = re.compile(r"\s[–−-]\s|\.\s+\(|\)\.\s|\.\s+[A-Z]")
_ROLE_COMMITTEE = re.compile(r"\b(rapporteur|draftsman|draftswoman|draughts(?:man|woman)|chairman of the committee|chair of the committee)\b", re.I)
_ROLE_EXECUTIVE = re.compile(r"\b(member of the commission|vice-president of the commission|president of the commission|commissioner|"
                             r"president-in-office|of the council)\b", re.I)
_ROLE_GROUP = re.compile(r"\bon behalf of the\b.*\bgroup\b", re.I)
_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z(–\"'‘“])")
_OBJECT = re.compile(r"\b(report|rapporteur|resolution|proposal|communication|text|motion|draft|document|initiative|strategy)", re.I)
_POS = re.compile(r"\b(welcom\w*|support\w*|congratulat\w*|thank\w*|excellent|good|agree\w*|endors\w*|commend\w*|prais\w*|"
                  r"in favour|balanced|valuable|useful|important|appreciat\w*|grateful|pleased|glad|right(?:ly)?)\b", re.I)
_NEG = re.compile(r"\b(reject\w*|oppos\w*|against|regret\w*|disappoint\w*|unacceptabl\w*|critici\w*|wrong\w*|fail\w*|flaw\w*|"
                  r"erroneous|disagree\w*|mistak\w*|misguided|deplor\w*|concern\w*|worr\w*|doubt\w*|weak\w*|"
                  r"cannot (?:support|accept|agree)|not (?:support|accept|agree))\b", re.I)
_VOTE_AGAINST = re.compile(r"\b(vote[sd]? against|voting against|will not (?:vote for|support)|cannot (?:vote for|support)|"
                           r"reject (?:this|the) (?:report|resolution|proposal)|abstain\w*)\b", re.I)


def speaker_role(context: str | None) -> str | None:
    """The speaker's role from an EP speech header: ``committee`` (rapporteur, draftsman),
    ``executive`` (Commission, Council), ``group`` (on behalf of a political group), ``member``;
    ``None`` when the context is unknown."""
    if not context:
        return None
    head = context[:300]
    m = _HEADER_END.search(head)
    if m:
        head = head[: m.end()]
    if _ROLE_COMMITTEE.search(head):
        return "committee"
    if _ROLE_EXECUTIVE.search(head):
        return "executive"
    if _ROLE_GROUP.search(head):
        return "group"
    return "member"


@dataclass(frozen=True, slots=True)
class SpeechProfile:
    """What the context features need to know about one speech (computed once per speech)."""

    role: str
    stance: float  # (positive − negative evaluative sentences about the report) / (all + 1)
    neg_share: float  # share of sentences with a negative evaluation of the report
    vote_against: float  # 1 if the speech announces a vote against / rejection / abstention
    n_sentences: int


def speech_profile(context: str) -> SpeechProfile:
    """Role and stance of one speech (see the module docstring)."""
    sents = [s for s in _SENT.split(context) if s.strip()]
    pos = neg = 0
    for s in sents:
        if not _OBJECT.search(s):
            continue
        p, n = bool(_POS.search(s)), bool(_NEG.search(s))
        pos += p and not n
        neg += n and not p
    n_s = max(1, len(sents))
    return SpeechProfile(
        role=speaker_role(context) or "member",
        stance=(pos - neg) / (pos + neg + 1),
        neg_share=neg / n_s,
        vote_against=1.0 if _VOTE_AGAINST.search(context) else 0.0,
        n_sentences=len(sents),
    )


def _offset(text: str, context: str) -> int:
    """Where ``text`` starts in ``context`` (−1 if not found; tolerant of collapsed whitespace)."""
    i = context.find(text[:60])
    if i < 0:
        words = text.split()
        if len(words) >= 4:
            i = context.find(" ".join(words[:4]))
    return i


class ContextFeaturizer:
    """Context feature rows (:data:`CONTEXT_FEATURE_NAMES`) for pairs; unknown inputs are NaN.

    Each distinct speech is profiled once per instance (cache keyed by the speech text).
    """

    def __init__(self) -> None:
        self._cache: dict[str, SpeechProfile] = {}
        self._lock = threading.Lock()

    def profile(self, context: str) -> SpeechProfile:
        p = self._cache.get(context)
        if p is None:
            p = speech_profile(context)
            with self._lock:
                if len(self._cache) > 50_000:
                    self._cache.clear()
                self._cache[context] = p
        return p

    def features(self, pair: PairQuery, is_proposal: bool) -> list[float]:
        nan = math.nan
        sc, tc = pair.source_context, pair.target_context
        sp = self.profile(sc) if sc else None
        tp = self.profile(tc) if tc and not is_proposal else None
        known = sp is not None
        same_speech = same_speaker = distance = gap = rel = nan
        if known and not is_proposal:
            if pair.source_position is not None and pair.target_position is not None:
                same_speech = float(pair.source_position == pair.target_position)
                distance = math.log1p(max(0, pair.source_position - pair.target_position))
            elif tc:
                same_speech = float(sc == tc)
            if tc and same_speech == same_speech:  # not NaN
                if same_speech:
                    same_speaker = 0.0
                elif pair.source_speaker and pair.target_speaker:
                    same_speaker = float(pair.source_speaker.strip() == pair.target_speaker.strip())
        elif is_proposal:
            same_speech, same_speaker, gap = 0.0, 0.0, 0.0
            if known and pair.source_position is not None:
                distance = math.log1p(pair.source_position)
        if known:
            i = _offset(pair.source, sc)  # type: ignore[arg-type]
            if i >= 0:
                rel = i / max(1, len(sc))  # type: ignore[arg-type]
                if not is_proposal and same_speech == 1.0:
                    j = _offset(pair.target, sc)  # type: ignore[arg-type]
                    gap = abs(i - j) / max(1, len(sc)) if j >= 0 else nan  # type: ignore[arg-type]
            if not is_proposal and same_speech == 0.0:
                gap = 0.0
        def role(p: SpeechProfile | None, r: str) -> float:
            return nan if p is None else float(p.role == r)
        tgt_role_known = tp is not None or is_proposal
        tgt_lead = nan if not tgt_role_known else (0.0 if is_proposal else float(tp.role in ("committee", "executive")))  # type: ignore[union-attr]
        s_st = sp.stance if sp else nan
        t_st = 0.0 if is_proposal else (tp.stance if tp else nan)
        return [
            1.0 if known else 0.0,
            same_speech,
            same_speaker,
            distance,
            rel,
            gap,
            role(sp, "committee"),
            role(sp, "executive"),
            role(sp, "group"),
            0.0 if is_proposal else role(tp, "committee"),
            0.0 if is_proposal else role(tp, "executive"),
            0.0 if is_proposal else role(tp, "group"),
            s_st,
            sp.neg_share if sp else nan,
            sp.vote_against if sp else nan,
            t_st,
            s_st * float(is_proposal),
            s_st * tgt_lead,
            s_st * t_st,
            (sp.vote_against if sp else nan) * float(is_proposal),
        ]

    def matrix(self, pairs: list[PairQuery], is_proposal: np.ndarray) -> np.ndarray:
        if not pairs:
            return np.zeros((0, len(CONTEXT_FEATURE_NAMES)))
        return np.array([self.features(p, bool(k)) for p, k in zip(pairs, is_proposal, strict=True)], dtype=np.float64)
