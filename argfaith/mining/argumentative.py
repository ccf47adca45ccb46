"""Which units of a summary are arguments? Structural rules, then an argumentativeness classifier.

An *argument unit* is what the paper's relation classes apply to (PAPER.md §7): a claim, position,
reason, evidence, criticism, demand or proposal about the debated matter — reported speech
included ("Critics argued that …"). LLM summaries also contain headings, metadata lines
("**Date:** 13 February 2006", "Number of Contributions: 17"), lists of names and procedural
framing ("The debate centered on …"); mined as arguments, such lines became the most influential
arguments of whole provisions (issue 21).

Two steps, in this order:

1. :func:`structural_reason` — rules that need no model and apply on every path (the Claude path
   included): markdown headings and bold-only lines (``heading``), ``Label: value`` lines whose
   label is a metadata field (:data:`METADATA_LABELS`; ``metadata``), and fragments under three
   words (``too_short``). On the 2,465 labelled segments of ``data/summary_units`` they remove
   757 non-arguments and no argument.
2. :class:`ArgumentativenessModel` — a logistic regression over the sentence embedding
   (:class:`~argfaith.mining.encoder.SentenceEncoder`) and a few surface cues, trained on the
   segments the rules keep (``scripts/train_units.py``); a unit is dropped (``not_argument``)
   when P(argument) is below the shipped threshold, chosen on debate-grouped cross-validation to
   keep ≥ 96% of the argument units. It is trained on summaries only: on debate speeches (the
   paper's human argument spans) it separates arguments poorly, so debates are not filtered by it.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from argfaith.errors import ConfigurationError

__all__ = [
    "METADATA_LABELS",
    "structural_reason",
    "surface_features",
    "ArgumentativenessModel",
    "default_argumentativeness_model",
    "ARGUMENTATIVE_FILE",
]

#: The shipped classifier (``argfaith/data``).
ARGUMENTATIVE_FILE = "argumentative_units.json"

#: ``Label: value`` lines with one of these labels (case-insensitive) are metadata, not arguments.
METADATA_LABELS = frozenset({
    "date", "dates", "date of debate", "debate date", "session", "sitting", "topic", "debate topic", "title", "debate title",
    "debate", "debate id", "id", "report", "reports", "report number", "rapporteur", "rapporteurs", "context", "focus",
    "key focus", "main focus", "number of contributions", "number of contributions reviewed", "contributions",
    "number of speakers", "speakers", "participants", "key participants", "references", "reference", "source", "sources",
    "language", "languages", "procedure", "document", "documents", "agenda item", "executive summary", "summary",
    "committee", "author", "authors", "location", "place", "chair", "presiding",
})

_FIELD = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?(?P<label>[^*_\n:]{1,50}?)(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(?P<value>.*)$", re.S)
_BOLD_ONLY = re.compile(r"^\s*(?:[-*+]\s+)?(\*\*|__)[^\n]+?\1[\s.:]*$")
_WORDS = re.compile(r"\w+")
_REPORTING = re.compile(
    r"\b(argu|stress|emphasi[sz]|call|urg|warn|criticis|criticiz|support|oppos|reject|welcom|propos|advocat|insist|believ|"
    r"defend|question|concern|demand|highlight|note|point|said|say|says|claim|maintain|contend|suggest|recommend|agree|"
    r"disagree|object|favou?r|back|endorse|want|wish|fear|doubt|should|must|need)", re.I)
_FRAMING = re.compile(r"^(the|this) (parliamentary )?(debate|discussion|report|summary)\b", re.I)


def structural_reason(kind: str | None, raw: str, text: str) -> str | None:
    """Why a segment is not an argument by structure alone (``heading`` | ``metadata`` |
    ``too_short``), or None. ``kind``: the segmenter's kind; ``raw``: the segment's markdown;
    ``text``: its cleaned text."""
    if kind == "heading" or _BOLD_ONLY.match(raw):
        return "heading"
    m = _FIELD.match(raw)
    if m and " ".join(m.group("label").split()).lower() in METADATA_LABELS:
        return "metadata"
    if len(_WORDS.findall(text)) < 3:
        return "too_short"
    return None


#: Names of :func:`surface_features`, in order.
SURFACE_FEATURES = ("log_words", "quote", "reporting_verb", "framing_opening", "list_item", "label_prefix", "digit_share", "ends_with_colon")


def surface_features(kind: str | None, raw: str, text: str) -> list[float]:
    """Surface cues beside the embedding (:data:`SURFACE_FEATURES`)."""
    t = text
    return [
        float(np.log1p(len(t.split()))),
        float('"' in t or "“" in t or "”" in t),
        float(bool(_REPORTING.search(t))),
        float(bool(_FRAMING.match(t))),
        float(kind == "item"),
        float(bool(_FIELD.match(raw))),
        sum(c.isdigit() for c in t) / max(1, len(t)),
        float(t.rstrip().endswith(":")),
    ]


class ArgumentativenessModel:
    """P(argument) of summary segments: logistic regression over [sentence embedding, surface cues].

    ``path``: the JSON weights written by ``scripts/train_units.py`` (default: shipped);
    ``encoder``: a :class:`~argfaith.mining.encoder.SentenceEncoder` (default: the shipped one).
    """

    def __init__(self, path: str | Path | None = None, *, encoder=None) -> None:  # noqa: ANN001
        from argfaith.mining.encoder import SentenceEncoder, default_model_dir

        p = Path(path) if path is not None else default_model_dir() / ARGUMENTATIVE_FILE
        if not p.is_file():
            raise ConfigurationError(f"argumentativeness model {p} not found")
        meta = json.loads(p.read_text(encoding="utf-8"))
        try:
            self.coef = np.asarray(meta["coef"], dtype=np.float64)
            self.intercept = float(meta["intercept"])
            self.mean = np.asarray(meta["mean"], dtype=np.float64)
            self.scale = np.asarray(meta["scale"], dtype=np.float64)
            self.threshold = float(meta["threshold"])
        except (KeyError, TypeError, ValueError) as e:
            raise ConfigurationError(f"{p}: not an argumentativeness model ({e})") from None
        self.meta = meta
        self.encoder = encoder if encoder is not None else SentenceEncoder()
        if self.coef.shape != (self.encoder.dim + len(SURFACE_FEATURES),):
            raise ConfigurationError(f"{p}: {self.coef.shape[0]} weights do not fit the encoder ({self.encoder.dim} + {len(SURFACE_FEATURES)})")

    def probabilities(self, segments: Sequence[tuple[str | None, str, str]]) -> np.ndarray:
        """P(argument) for each ``(kind, raw, text)`` segment."""
        if not segments:
            return np.zeros(0)
        E = self.encoder.encode([t for _, _, t in segments]).astype(np.float64)
        H = np.array([surface_features(k, r, t) for k, r, t in segments], dtype=np.float64)
        z = ((np.hstack([E, H]) - self.mean) / self.scale) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-z))


_lock = threading.Lock()


@lru_cache(maxsize=1)
def _shipped() -> ArgumentativenessModel:
    return ArgumentativenessModel()


def default_argumentativeness_model() -> ArgumentativenessModel:
    """The shipped model, loaded once per process (its encoder caches every sentence it has seen)."""
    with _lock:
        return _shipped()
