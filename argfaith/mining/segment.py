"""Sentence segmentation with character offsets: the default automatic argument unit.

PAPER.md §7: speech arguments are spans of the transcript; "sentences are a reasonable automatic
unit". Every :class:`Segment` keeps ``start``/``end`` offsets into the text it came from, so an
argument can always be traced back (``text[start:end]`` is the raw slice; ``Segment.text`` is that
slice with markdown markup removed and whitespace collapsed).

:class:`RuleSegmenter` (the default) is rule based, written for parliamentary speeches and LLM
summaries rather than adopted from a general library, because it must (a) return exact offsets,
(b) understand markdown structure (headings, bold, lists, rules) and (c) keep quotations and
citations such as ``"…" [Herczog, 2006-02-13]`` attached to the sentence that cites them. pysbd is
not in the package index this project uses, and punkt (nltk) needs separately downloaded models;
either can still be plugged in through :class:`FunctionSegmenter`.

Rules of :class:`RuleSegmenter`, in order:

1. *Blocks.* The text is split into lines. Blank lines, markdown headings (``#``), horizontal rules
   (``---``) and list items (``-``, ``*``, ``+``, ``•``, ``1.``, ``a)``) start new blocks; a heading is
   one segment (kind ``"heading"``), a rule is dropped. Any other line break ends the block too,
   unless the line does not end with closing punctuation *and* the next line starts in lower case:
   then it is a soft wrap and the lines are joined.
2. *Candidates.* Inside a block a sentence may end after ``. ! ? …`` (and ``;`` after a Greek
   word, the Greek question mark; also ``;`` ``。`` ``؟`` ``।``), extended over closing quotes,
   brackets and markdown emphasis, and over a directly following bracketed citation
   (``[Name, 2006-02-13]``).
3. *Vetoes.* No boundary (a) unless whitespace follows; (b) before a lower-case letter or other
   punctuation; (c) after a known abbreviation (``Mr.``, ``Mrs.``, ``Dr.``, ``e.g.``, ``z.B.``,
   ``np.``, ``κ.`` …), a single letter (initials: ``J. Smith``, ``z. B.``), or a
   number-introducing abbreviation followed by a digit (``No. 3``, ``Art. 5``, ``pkt 2``);
   (d) after a day number followed by a month name (German/Polish/… ordinal dates:
   ``am 3. Oktober``); (e) inside a double-quoted passage (``"…"``, ``“…”``, ``«…»``, ``„…“``) or
   parentheses that close within the block and within ``max_quote_chars`` characters.

Choosing a segmenter by name (including Claude's argument units of :mod:`argfaith.mining.extract`,
which build on this module) is :func:`argfaith.mining.segmenters.make_segmenter`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from argfaith.errors import ConfigurationError

__all__ = [
    "Segment",
    "SegmentKind",
    "Segmenter",
    "RuleSegmenter",
    "LineSegmenter",
    "FunctionSegmenter",
    "clean_markdown",
    "DEFAULT_ABBREVIATIONS",
    "NUMBER_ABBREVIATIONS",
]

SegmentKind = Literal["sentence", "heading", "item"]


@dataclass(frozen=True, slots=True)
class Segment:
    """One unit of text: ``source[start:end]`` is the raw slice, ``text`` its cleaned form.

    ``kind`` is ``"heading"`` for a markdown heading, ``"item"`` for the first sentence of a list
    item, else ``"sentence"``; ``block`` numbers the block (paragraph / line / item) it belongs to.
    """

    start: int
    end: int
    text: str
    kind: SegmentKind = "sentence"
    block: int = 0


@runtime_checkable
class Segmenter(Protocol):
    """Anything that splits a text into :class:`Segment` s with offsets."""

    name: str

    def segment(self, text: str) -> list[Segment]:
        """Segments in text order; ``text[s.start:s.end]`` must be the raw slice of each."""
        ...


# Abbreviations after which a period does not end a sentence (compared case-insensitively,
# without the final period). Titles and common Latin/English/German/French/Polish/Greek forms.
DEFAULT_ABBREVIATIONS: frozenset[str] = frozenset(
    """
    mr mrs ms mx dr prof sr jr st mt hon rev gen col lt sgt capt gov sen rep messrs mme mlle mm
    e.g i.e etc vs cf viz al approx ca esp incl excl resp dept univ assn bros co corp inc ltd
    jan feb mar apr jun jul aug sep sept oct nov dec fig figs vol vols ed eds ch sec
    z.b d.h u.a bzw usw vgl ggf evtl ca hr fr nr abs s.o s.u u.ä z.t
    np tzn itd itp m.in ok prof dr inż mgr ul pkt ust tj ww
    κ π.χ δηλ κ.λπ κ.ά αρ
    sig sra sres sr dña ud uds pág núm
    """.split()
)
# Abbreviations that introduce a number: not a boundary when a digit follows ("No. 3").
NUMBER_ABBREVIATIONS: frozenset[str] = frozenset(
    "no nos nr art arts para paras p pp pt pts s ss n nn núm pkt ust rule item c ch sec".split()
)
_MONTHS = frozenset(
    """
    januar februar märz april mai juni juli august september oktober november dezember jänner
    stycznia lutego marca kwietnia maja czerwca lipca sierpnia września października listopada grudnia
    janvier février mars avril juin juillet août septembre octobre novembre décembre
    januari februari maart mei augustus oktober
    """.split()
)

_TERMINATORS = ".!?…\u037e\u3002\u061f\u0964"  # . ! ? … Greek question mark, CJK full stop, Arabic ?, danda
_CLOSERS = "\"'”’»)]}*_`"
_OPEN_QUOTES = {"“": "”", "«": "»", "„": "“", '"': '"', "(": ")"}

_RULE_RE = re.compile(r"^\s{0,3}([-*_])(?:\s*\1){2,}\s*$")
_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}(?:\s+|$)")
_ITEM_RE = re.compile(r"^\s*(?:[-*+•‣◦–]|\d{1,3}[.)]|[a-zA-Z][.)]|\(?[ivxIVX]{1,4}\))\s+")
_OPENER_RE = re.compile('[“«„"(]')
_PAREN_RE = re.compile(r"[()]")
_CANDIDATE_RE = re.compile("[" + re.escape(_TERMINATORS) + ";]")
_MD_CHARS_RE = re.compile(r"[#*_`\[]|[^\S ]|^\s*(?:[-+•‣◦–]|\d{1,3}[.)]|[a-zA-Z][.)]|\(?[ivxIVX]{1,4}\))\s|\s{2}")
_ITEM_AT_RE = re.compile(_ITEM_RE.pattern.removeprefix("^"))  # same, anchored at a position
_CITATION_RE = re.compile(r"\[[^\[\]\n]{1,80}\]")
_WORD_RE = re.compile(r"[^\W_][\w.'’-]*$")
_LINK_RE = re.compile(r"\[([^\[\]\n]+)\]\([^()\s]+\)")
_EMPH_RE = re.compile(r"(\*\*|__)(?=\S)|(?<=\S)(\*\*|__)|(?<![\w*])[*_](?=[^\s*_])|(?<=[^\s*_])[*_](?![\w*])")
_CODE_RE = re.compile(r"`+")
_SPACE_RE = re.compile(r"\s+")


def clean_markdown(raw: str, *, block_start: bool = True) -> str:
    """Remove markdown markup from one segment and collapse whitespace.

    Drops bold/italic markers (``**``, ``__``, ``*``, ``_`` at word edges), backticks and link
    targets (``[text](url)`` → ``text``) and, when the segment opens its block (``block_start``),
    heading hashes or a list marker; keeps citations such as ``[Herczog, 2006-02-13]`` and
    quotation marks.
    """
    if not _MD_CHARS_RE.search(raw):
        return raw.strip()  # fast path: plain prose with single spaces
    s = raw
    if block_start:
        s, n = _HEADING_RE.subn("", s, count=1)
        if not n:
            s = _ITEM_RE.sub("", s, count=1)
    s = _LINK_RE.sub(r"\1", s)
    s = _EMPH_RE.sub("", s)
    s = _CODE_RE.sub("", s)
    return _SPACE_RE.sub(" ", s).strip()


def _is_greek(ch: str) -> bool:
    return "\u0370" <= ch <= "\u03ff" or "\u1f00" <= ch <= "\u1fff"


def _starts_sentence(ch: str) -> bool:
    """Can a sentence start with this character? Upper case, digits, opening marks, uncased letters."""
    if ch.isupper() or ch.isdigit():
        return True
    if ch in "\"“„«'‘([{–—-•¿¡*_#":
        return True
    # Letters of scripts without case (CJK, Arabic, ...) can start a sentence.
    return ch.isalpha() and not ch.islower() and unicodedata.category(ch) == "Lo"


class RuleSegmenter:
    """The default rule-based sentence segmenter (rules in the module docstring).

    Parameters
    ----------
    markdown
        Interpret markdown block structure (headings, rules, list items). Off: every line break
        still ends a block unless it is a soft wrap.
    abbreviations, number_abbreviations
        Lower-case abbreviations without the final period (see :data:`DEFAULT_ABBREVIATIONS`).
    max_quote_chars
        Quoted or parenthesised passages up to this length are never split (longer ones are, so
        one stray quotation mark cannot glue a whole speech together).
    """

    name = "rules"

    def __init__(
        self,
        *,
        markdown: bool = True,
        abbreviations: frozenset[str] | set[str] = DEFAULT_ABBREVIATIONS,
        number_abbreviations: frozenset[str] | set[str] = NUMBER_ABBREVIATIONS,
        max_quote_chars: int = 600,
    ) -> None:
        self.markdown = markdown
        self.abbreviations = frozenset(a.lower().rstrip(".") for a in abbreviations)
        self.number_abbreviations = frozenset(a.lower().rstrip(".") for a in number_abbreviations)
        self.max_quote_chars = int(max_quote_chars)

    # ------------------------------------------------------------------ blocks
    def _blocks(self, text: str) -> list[tuple[int, int, SegmentKind]]:
        """(start, end, kind) of each block; kind "heading" for headings, "item" for list items."""
        lines: list[tuple[int, int]] = []
        pos = 0
        for line in text.splitlines(keepends=True):
            body = line.rstrip("\r\n")
            lines.append((pos, pos + len(body)))
            pos += len(line)
        blocks: list[tuple[int, int, SegmentKind]] = []
        cur: list[int] | None = None  # [start, end, kind-as-int]
        cur_kind: SegmentKind = "sentence"
        prev_hard_end = True
        for a, b in lines:
            line = text[a:b]
            if not line.strip():
                if cur is not None:
                    blocks.append((cur[0], cur[1], cur_kind))
                cur, prev_hard_end = None, True
                continue
            if self.markdown and _RULE_RE.match(line):
                if cur is not None:
                    blocks.append((cur[0], cur[1], cur_kind))
                cur, prev_hard_end = None, True
                continue
            if self.markdown and _HEADING_RE.match(line):
                if cur is not None:
                    blocks.append((cur[0], cur[1], cur_kind))
                blocks.append((a, b, "heading"))
                cur, prev_hard_end = None, True
                continue
            is_item = self.markdown and bool(_ITEM_RE.match(line))
            stripped = line.lstrip()
            soft = (
                cur is not None
                and not is_item
                and not prev_hard_end
                and stripped[:1].islower()
            )
            if soft:
                cur[1] = b  # type: ignore[index]
            else:
                if cur is not None:
                    blocks.append((cur[0], cur[1], cur_kind))
                cur, cur_kind = [a, b], ("item" if is_item else "sentence")
            tail = line.rstrip()
            # A line ends "hard" with closing punctuation or a markdown hard break (two spaces).
            prev_hard_end = (not tail) or tail[-1] in _TERMINATORS + ":;\"”’»)]*" or line.endswith("  ")
        if cur is not None:
            blocks.append((cur[0], cur[1], cur_kind))
        return blocks

    # ------------------------------------------------------------------ protected spans
    def _protected(self, text: str, a: int, b: int) -> list[tuple[int, int]]:
        """Intervals (open index, close index) of short quoted / parenthesised passages."""
        out: list[tuple[int, int]] = []
        limit = self.max_quote_chars
        pos = a
        while True:
            m = _OPENER_RE.search(text, pos, b)
            if m is None:
                return out
            i = m.start()
            ch = text[i]
            pos = i + 1
            # A straight quote opens only at a word start (after space/bracket or block start).
            if ch == '"' and i > a and not (text[i - 1].isspace() or text[i - 1] in "([{—–-:"):
                continue
            stop = min(b, i + 1 + limit)
            if ch == "(":
                depth, j = 0, -1  # nested parentheses: find the matching one
                for pm in _PAREN_RE.finditer(text, i, stop):
                    depth += 1 if pm.group(0) == "(" else -1
                    if depth == 0:
                        j = pm.start()
                        break
            else:
                j = text.find(_OPEN_QUOTES[ch], i + 1, stop)
            if j >= 0:
                out.append((i, j))
                pos = j + 1

    # ------------------------------------------------------------------ sentences
    def _is_abbreviation(self, text: str, a: int, dot: int, nxt: str) -> bool:
        m = _WORD_RE.search(text, max(a, dot - 40), dot)
        if not m:
            return False
        word = m.group(0)
        low = word.lower().rstrip(".")
        if low in self.abbreviations:
            return True
        if len(word) == 1 and word.isalpha():
            return True  # an initial: "J. Smith", "z. B."
        if re.fullmatch(r"(?:[^\W\d_]\.){1,4}[^\W\d_]", word):
            return True  # "e.g", "U.S", "m.in"
        if nxt.isdigit() and low in self.number_abbreviations:
            return True
        return False

    def _split_block(self, text: str, a: int, b: int) -> list[tuple[int, int]]:
        prot = self._protected(text, a, b)
        bounds: list[int] = []
        # A list marker ("1. ", "a) ") that opens the block is not a sentence end.
        lead = _ITEM_AT_RE.match(text, a, b)
        i = lead.end() if lead else a
        while i < b:
            cm = _CANDIDATE_RE.search(text, i, b)
            if cm is None:
                break
            i = cm.start()
            ch = text[i]
            if ch == ";" and not (i > a and _is_greek(text[i - 1])):
                i += 1
                continue
            j = i + 1
            while j < b and (text[j] in _TERMINATORS or text[j] in _CLOSERS):
                j += 1
            # A bracketed citation right after the sentence belongs to it.
            k = j
            while k < b and text[k] in " \t":
                k += 1
            m = _CITATION_RE.match(text, k) if k < b else None
            if m and k > j and not _starts_citation_sentence(m.group(0)):
                j = m.end()
                while j < b and (text[j] in _TERMINATORS or text[j] in _CLOSERS):
                    j += 1
            if j >= b:
                break
            if not text[j].isspace():
                i = j
                continue
            k = j
            while k < b and text[k].isspace():
                k += 1
            if k >= b:
                break
            nxt = text[k]
            ok = _starts_sentence(nxt)
            if ok and ch == "." and text[i - 1 : i] != "." and self._is_abbreviation(text, a, i, nxt):
                ok = False
            if ok and ch == "." and i > a:
                # "am 3. Oktober": an ordinal day before a month name.
                before = re.search(r"(?<!\d)\d{1,2}$", text[max(a, i - 3) : i])
                word = re.match(r"\w+", text[k:b])
                if before and word and word.group(0).lower() in _MONTHS:
                    ok = False
            if ok and any(p < j <= q for p, q in prot):
                ok = False
            if ok:
                bounds.append(j)
            i = j
        spans = []
        s = a
        for e in [*bounds, b]:
            spans.append((s, e))
            s = e
        return spans

    def segment(self, text: str) -> list[Segment]:
        """Split ``text`` into segments with offsets (see the module docstring for the rules)."""
        out: list[Segment] = []
        for n, (a, b, kind) in enumerate(self._blocks(text)):
            pieces = [(a, b)] if kind == "heading" else self._split_block(text, a, b)
            first = True
            for s, e in pieces:
                while s < e and text[s].isspace():
                    s += 1
                while e > s and text[e - 1].isspace():
                    e -= 1
                if s >= e:
                    continue
                cleaned = (
                    clean_markdown(text[s:e], block_start=first and kind != "sentence")
                    if self.markdown
                    else _SPACE_RE.sub(" ", text[s:e]).strip()
                )
                if not cleaned or not any(c.isalnum() for c in cleaned):
                    continue
                k: SegmentKind = kind if kind == "heading" else ("item" if kind == "item" and first else "sentence")
                out.append(Segment(s, e, cleaned, k, n))
                first = False
        return out


def _starts_citation_sentence(citation: str) -> bool:
    # "[1] Speaker: ..." style ids at a line start are not citations; citations contain a comma or
    # a year ("[Herczog, 2006-02-13]", "[McCreevy 2006]").
    return not ("," in citation or re.search(r"\d{4}", citation))


class LineSegmenter:
    """Every non-blank line is one segment (for text that is already one argument per line)."""

    name = "lines"

    def segment(self, text: str) -> list[Segment]:
        out: list[Segment] = []
        pos = 0
        for n, line in enumerate(text.splitlines(keepends=True)):
            body = line.rstrip("\r\n")
            s, e = pos, pos + len(body)
            while s < e and text[s].isspace():
                s += 1
            while e > s and text[e - 1].isspace():
                e -= 1
            if s < e:
                out.append(Segment(s, e, _SPACE_RE.sub(" ", text[s:e]), "sentence", n))
            pos += len(line)
        return out


class FunctionSegmenter:
    """Adapter for any ``text -> list[str]`` sentence splitter (nltk's ``sent_tokenize``, pysbd,
    an LLM extractor, ...): the returned strings are located in the text, in order, to recover
    offsets. Whitespace inside a returned sentence may differ from the text (it is matched as
    ``\\s+``); anything else must be verbatim.
    """

    def __init__(self, fn: Callable[[str], Sequence[str]], name: str | None = None) -> None:
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "function")

    def segment(self, text: str) -> list[Segment]:
        out: list[Segment] = []
        cursor = 0
        for i, sent in enumerate(self.fn(text)):
            if not isinstance(sent, str):
                raise ConfigurationError(f"segmenter {self.name!r} returned {type(sent).__name__} at item {i}, expected str")
            needle = sent.strip()
            if not needle:
                continue
            s = text.find(needle, cursor)
            e = s + len(needle)
            if s < 0:
                pattern = r"\s+".join(re.escape(t) for t in needle.split())
                m = re.compile(pattern).search(text, cursor)
                if not m:
                    raise ConfigurationError(
                        f"segmenter {self.name!r}: sentence {i} ({needle[:40]!r}) is not a substring of the text "
                        "after the previous sentence; segmenters must not rewrite the text"
                    )
                s, e = m.start(), m.end()
            out.append(Segment(s, e, _SPACE_RE.sub(" ", text[s:e]), "sentence", i))
            cursor = e
        return out
