"""Controlled distortions of a summary about one provision — the evaluator self-test's probes.

A faithfulness metric is only worth what it detects. A *distortion* changes what a summary says
about ONE provision p of the debated resolution, in a way whose effect on p's summary strength σ*
is known in advance:

=====================  =============================================  =======================
kind                   what changes                                   expected effect on σ*(p)
=====================  =============================================  =======================
``omit``               the summary sentences that argue about p are   towards the base score
                       deleted                                        0.5 (``toward_base``)
``fabricate_support``  sentences claiming speakers backed p are       up (``up``)
                       inserted
``fabricate_attack``   sentences claiming speakers opposed p are      down (``down``)
                       inserted
``invert``             the stated stance of the sentences about p is  to the other side of
                       reversed                                       0.5 (``cross``)
=====================  =============================================  =======================

Distortions are stored as :class:`SummaryEdit` lists addressing the summary's sentences
(``S1`` … ``Sn``, the units :func:`~argfaith.mining.units.summary_units` keeps, in text order),
so a distortion set never copies a summary: :func:`apply_edits` rebuilds the distorted text from
the original file.

**Offline rules** (:func:`rule_distortions`; no key, no model):

- *which sentences are about p*: a sentence is about p when p is its most similar provision
  (TF-IDF cosine over content words, :func:`~argfaith.mining.candidates.tfidf_vectors`) and the
  similarity is at least ``about_threshold`` (0.12). This is lexical: a sentence that discusses p
  in other words is missed, and a sentence that shares p's vocabulary without arguing about it is
  included. It does not depend on the relation classifier under test.
- ``omit`` deletes those sentences (not applicable when there are none).
- ``fabricate_*`` insert one sentence after the last sentence about p (or at the end), built from
  p's text: "Many speakers strongly supported the resolution's call that it <gist of p>, arguing
  that this was right and necessary." / "... firmly opposed ..., arguing that this was wrong and
  would do harm." The gist is the provision without its number, cut at the first ';'.
- ``invert`` rewrites each sentence about p with a flip lexicon of stance verbs and phrases
  (supported ↔ opposed, welcomed ↔ criticised, praised ↔ condemned, called for ↔ warned against,
  in favour of ↔ against, "strong support for" ↔ "strong opposition to", effective ↔ ineffective,
  should ↔ should not, …), outside quotations only. A sentence with no such word is left
  unchanged (so is a distortion with no changed sentence: not applicable). The lexicon flips
  words, not meaning: a sentence with two stance words may end up self-contradictory, and a stance
  carried by content ("fishermen will lose their livelihoods") or by a quotation is not reversed.
  How often it really reverses the stance was measured by reading a sample (docs/selftest.md).

With a Claude key the self-test can ask Claude to write the distortions instead
(:mod:`argfaith.study.selftest`); the written development set in ``data/distortions`` was
made by LLM annotators in the same edit format.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from argfaith.datasets.documents import Debate, Summary
from argfaith.errors import ConfigurationError
from argfaith.mining.candidates import tfidf_vectors
from argfaith.mining.units import EDIT_POLICY, ArgumentUnit, proposal_units, summary_units

__all__ = [
    "KINDS",
    "EXPECTED",
    "SummaryEdit",
    "Distortion",
    "apply_edits",
    "sentences_about",
    "provision_gist",
    "invert_sentence",
    "rule_distortions",
]

Kind = Literal["omit", "fabricate_support", "fabricate_attack", "invert"]
#: The four distortion kinds, in report order.
KINDS: tuple[str, ...] = ("omit", "fabricate_support", "fabricate_attack", "invert")
#: Expected movement of σ*(p) per kind (see the module docstring).
EXPECTED: dict[str, str] = {
    "omit": "toward_base",
    "fabricate_support": "up",
    "fabricate_attack": "down",
    "invert": "cross",
}


@dataclass(frozen=True)
class SummaryEdit:
    """One edit of a summary: ``delete`` sentence k, ``replace`` it by ``text``, or
    ``insert_after`` it (k = 0 inserts before the first sentence). k is 1-based over the kept units."""

    op: Literal["delete", "replace", "insert_after"]
    sentence: int
    text: str | None = None

    def __post_init__(self) -> None:
        if self.op not in ("delete", "replace", "insert_after"):
            raise ConfigurationError(f"unknown summary edit {self.op!r} (delete | replace | insert_after)")
        if self.op != "delete" and not (self.text and self.text.strip()):
            raise ConfigurationError(f"summary edit {self.op} S{self.sentence} needs a text")


@dataclass(frozen=True)
class Distortion:
    """A distortion of one summary about one provision."""

    kind: str
    provision: str  # proposal argument id, e.g. "CRE-...-PAR-7"
    edits: tuple[SummaryEdit, ...]
    method: str  # "rules" | "llm:<model>" | "written"
    expected: str = ""
    about: tuple[int, ...] = ()  # the sentences judged to be about the provision
    notes: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigurationError(f"unknown distortion kind {self.kind!r}; one of {', '.join(KINDS)}")
        if not self.expected:
            object.__setattr__(self, "expected", EXPECTED[self.kind])

    @property
    def name(self) -> str:
        """``<kind>@<provision number>`` for tables and file names."""
        return f"{self.kind}@{self.provision.rsplit('-', 1)[-1]}"


def apply_edits(summary: Summary, edits: Sequence[SummaryEdit], *, units: Sequence[ArgumentUnit] | None = None) -> Summary:
    """The summary with ``edits`` applied to its text (sentences located by their offsets).

    Raises :class:`ConfigurationError` naming the edit when a sentence number is out of range or
    a sentence is edited twice.
    """
    us = list(units) if units is not None else list(summary_units(summary, policy=EDIT_POLICY).units)
    n = len(us)
    seen: set[int] = set()
    spans: list[tuple[int, int, str]] = []  # (start, end, replacement)
    for e in edits:
        lo = 0 if e.op == "insert_after" else 1
        if not (lo <= e.sentence <= n):
            raise ConfigurationError(f"summary edit {e.op} S{e.sentence}: the summary has sentences S1..S{n}")
        if e.op in ("delete", "replace"):
            if e.sentence in seen:
                raise ConfigurationError(f"summary edit {e.op} S{e.sentence}: sentence edited twice")
            seen.add(e.sentence)
            u = us[e.sentence - 1]
            spans.append((u.start, u.end, "" if e.op == "delete" else " ".join(e.text.split())))  # type: ignore[union-attr]
        else:
            at = us[e.sentence - 1].end if e.sentence else (us[0].start if us else 0)
            spans.append((at, at, (" " if e.sentence else "") + " ".join(e.text.split()) + ("" if e.sentence else " ")))  # type: ignore[union-attr]
    text = summary.text
    # right to left, inserts after replacements at the same offset keep their order
    for start, end, rep in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        text = text[:start] + rep + text[end:]
    return replace(summary, text=text, metadata={**summary.metadata, "distorted": True})


# ---------------------------------------------------------------------------- offline rules
_NUM = re.compile(r"^\s*\(?\d+[a-z]?[.)]?\s*")


def provision_gist(text: str, *, max_words: int = 30) -> str:
    """A provision's operative text for templates: number dropped, cut at the first ';', first
    letter lower-cased, at most ``max_words`` words."""
    t = _NUM.sub("", " ".join(text.split()))
    t = t.split(";")[0].strip().rstrip(".,:")
    words = t.split()
    if len(words) > max_words:
        t = " ".join(words[:max_words]) + " …"
    return t[:1].lower() + t[1:] if t else t


def sentences_about(units: Sequence[ArgumentUnit], provisions: Sequence[ArgumentUnit], *, threshold: float = 0.12) -> dict[str, list[int]]:
    """For each provision id, the 1-based numbers of the summary sentences about it (its best
    lexical match with cosine ≥ ``threshold``)."""
    texts = [p.text for p in provisions] + [u.text for u in units]
    vecs = tfidf_vectors(texts)
    npr = len(provisions)
    out: dict[str, list[int]] = {p.id: [] for p in provisions}

    def cos(a: dict[int, float], b: dict[int, float]) -> float:
        if len(a) > len(b):
            a, b = b, a
        return sum(v * b.get(k, 0.0) for k, v in a.items())

    for i, _u in enumerate(units):
        sims = [cos(vecs[npr + i], vecs[j]) for j in range(npr)]
        if not sims:
            continue
        j = max(range(npr), key=lambda k: sims[k])
        if sims[j] >= threshold:
            out[provisions[j].id].append(i + 1)
    return out


# Stance flip lexicon: verbs and phrases that state a stance (first match wins, longest first).
# Bare nouns ("support", "concern") and everyday adjectives ("good", "important") are NOT flipped:
# measured, they mostly name things ("economic support for fishing communities"), not stances.
_STANCE_ADJ = r"(?:strong|broad|wide|widespread|general|unanimous|cross-party|clear|firm|overwhelming|considerable|majority)"
_FLIPS: list[tuple[str, str]] = [
    ("strongly supported", "strongly opposed"), ("strongly opposed", "strongly supported"),
    ("advocated for", "opposed"), ("advocating for", "opposing"), ("argued for", "argued against"),
    ("argued against", "argued for"), ("voted for", "voted against"), ("voted against", "voted for"),
    ("in favour of", "against"), ("in favor of", "against"),
    ("called for", "warned against"), ("calling for", "warning against"), ("calls for", "warns against"),
    ("warned against", "called for"), ("warning against", "calling for"), ("warns against", "calls for"),
    ("supported", "opposed"), ("opposed", "supported"), ("supports", "opposes"), ("opposes", "supports"),
    ("supporting", "opposing"), ("opposing", "supporting"),
    ("backed", "rejected"), ("rejected", "backed"), ("backing", "rejecting"), ("rejecting", "backing"),
    ("welcomed", "criticised"), ("criticised", "welcomed"), ("criticized", "welcomed"), ("welcomes", "criticises"),
    ("criticises", "welcomes"), ("welcoming", "criticising"), ("criticising", "welcoming"),
    ("praised", "condemned"), ("condemned", "praised"), ("praising", "condemning"), ("condemning", "praising"),
    ("endorsed", "rejected"), ("endorsing", "rejecting"), ("favoured", "opposed"), ("favored", "opposed"),
    ("agreed", "disagreed"), ("disagreed", "agreed"), ("agrees", "disagrees"), ("disagrees", "agrees"),
    ("approved", "rejected"), ("advocated", "opposed"), ("advocating", "opposing"), ("urged", "opposed"),
    ("beneficial", "harmful"), ("harmful", "beneficial"), ("necessary", "unnecessary"), ("unnecessary", "necessary"),
    ("effective", "ineffective"), ("ineffective", "effective"), ("successful", "unsuccessful"),
    ("should not", "should"), ("should", "should not"), ("must not", "must"), ("must", "must not"),
]
_FLIP_MAP = {a.lower(): b for a, b in _FLIPS}
_FLIP_RE = re.compile(
    r"\b(" + _STANCE_ADJ + r") (support for|support|opposition to|opposition)\b"  # "strong support for" ...
    + r"|\b(" + "|".join(re.escape(a) for a, _ in sorted(_FLIPS, key=lambda x: -len(x[0]))) + r")\b(?! not\b| never\b| in no way\b)",
    re.I,
)
_NOUN_FLIP = {"support for": "opposition to", "support": "opposition", "opposition to": "support for", "opposition": "support"}
_QUOTE = re.compile(r"[\"“”„«»][^\"“”„«»]*[\"“”„«»]")


def invert_sentence(text: str) -> tuple[str, int]:
    """Reverse the stance words of ``text`` outside quotations with the flip lexicon; returns
    (text, words flipped). Quoted speech is left as it is (flipping it puts words in a speaker's
    mouth and, measured, mostly produces nonsense)."""
    n = 0

    def sub(m: re.Match[str]) -> str:
        nonlocal n
        n += 1
        if m.group(1):  # "<stance adjective> support (for)" ...
            noun = _NOUN_FLIP[m.group(2).lower()]
            return f"{m.group(1)} {noun}"
        w = m.group(3)
        rep = _FLIP_MAP[w.lower()]
        return rep[:1].upper() + rep[1:] if w[:1].isupper() else rep

    out, last = [], 0
    for q in _QUOTE.finditer(text):
        out.append(_FLIP_RE.sub(sub, text[last : q.start()]))
        out.append(q.group(0))
        last = q.end()
    out.append(_FLIP_RE.sub(sub, text[last:]))
    return "".join(out), n


SUPPORT_TEMPLATE = "Many speakers strongly supported the resolution's call that it {gist}, arguing that this was right and necessary."
ATTACK_TEMPLATE = "Many speakers firmly opposed the resolution's call that it {gist}, arguing that this was wrong and would do harm."


def rule_distortions(
    summary: Summary,
    debate: Debate,
    provisions: Sequence[str] | None = None,
    *,
    kinds: Sequence[str] = KINDS,
    about_threshold: float = 0.12,
) -> list[Distortion]:
    """Offline rule-based distortions of ``summary`` for each provision id in ``provisions``
    (default: every provision) and each kind; kinds that do not apply to a provision (nothing to
    omit or invert) are left out. See the module docstring for the rules and their limits."""
    for k in kinds:
        if k not in KINDS:
            raise ConfigurationError(f"unknown distortion kind {k!r}; one of {', '.join(KINDS)}")
    units = list(summary_units(summary, policy=EDIT_POLICY).units)
    props = proposal_units(debate)
    by_id = {p.id: p for p in props}
    wanted = list(provisions) if provisions is not None else [p.id for p in props]
    for pid in wanted:
        if pid not in by_id:
            raise ConfigurationError(f"provision {pid!r} is not a provision of debate {debate.id!r}")
    about = sentences_about(units, props, threshold=about_threshold)
    out: list[Distortion] = []
    for pid in wanted:
        ab = about.get(pid, [])
        anchor = ab[-1] if ab else len(units)
        gist = provision_gist(by_id[pid].text)
        for kind in kinds:
            if kind == "omit":
                if not ab:
                    continue
                out.append(Distortion(kind, pid, tuple(SummaryEdit("delete", k) for k in ab), "rules", about=tuple(ab)))
            elif kind in ("fabricate_support", "fabricate_attack"):
                tmpl = SUPPORT_TEMPLATE if kind == "fabricate_support" else ATTACK_TEMPLATE
                out.append(Distortion(kind, pid, (SummaryEdit("insert_after", anchor, tmpl.format(gist=gist)),), "rules", about=tuple(ab)))
            else:
                edits = []
                for k in ab:
                    new, n = invert_sentence(units[k - 1].text)
                    if n:
                        edits.append(SummaryEdit("replace", k, new))
                if edits:
                    out.append(Distortion(kind, pid, tuple(edits), "rules", about=tuple(ab),
                                          notes=(f"{len(edits)} of {len(ab)} sentence(s) had a stance word to flip",)))
    return out
