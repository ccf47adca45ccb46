"""Which language is a debate or a summary written in? Offline, with py3langid.

py3langid (a maintained fork of langid.py, Lui & Baldwin 2012: a multinomial naive Bayes model
over byte n-grams, 97 languages) ships its model inside the PyPI package: nothing is downloaded.
Probabilities are normalised over the languages (``norm_probs=True``). Long texts are judged on
their first :data:`SAMPLE_CHARS` characters plus a slice from the middle, which is enough for a
stable answer (a few ms) and keeps a 1 MB file cheap.

Why argfaith asks: the relation classifier reads one language. The offline models were trained
on English EP pairs; fed a Greek summary, they find almost no relation, so the summary's QBAF
is nearly empty and scores like the empty summary (FINDINGS.md §11) — sometimes better than a
real English summary on π_εa. :mod:`argfaith.mining.guards` turns a mismatch into a warning, or
an error under ``--strict``.

>>> detect_language("Die Aussprache betraf den Bericht über den Europäischen Indikator für Sprachenkompetenz.").code
'de'
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["LanguageGuess", "detect_language", "language_name", "SAMPLE_CHARS", "MIN_CHARS"]

#: Characters judged from the start of a long text (and as many again from its middle).
SAMPLE_CHARS = 4000
#: Below this many letters a guess is not made (None): a title or a fragment says too little.
MIN_CHARS = 40

_NAMES = {
    "en": "English", "de": "German", "fr": "French", "el": "Greek", "es": "Spanish", "it": "Italian", "pt": "Portuguese",
    "nl": "Dutch", "pl": "Polish", "cs": "Czech", "sk": "Slovak", "sl": "Slovenian", "hu": "Hungarian", "ro": "Romanian",
    "bg": "Bulgarian", "hr": "Croatian", "da": "Danish", "sv": "Swedish", "fi": "Finnish", "et": "Estonian",
    "lv": "Latvian", "lt": "Lithuanian", "mt": "Maltese", "ga": "Irish", "ru": "Russian", "uk": "Ukrainian",
    "tr": "Turkish", "ar": "Arabic", "zh": "Chinese", "ja": "Japanese",
}


def language_name(code: str | None) -> str:
    """``"el"`` → ``"Greek"`` (the code itself when not in argfaith's short list)."""
    return _NAMES.get(code or "", code or "unknown")


@dataclass(frozen=True)
class LanguageGuess:
    """The most probable language of a text (ISO 639-1 ``code``) and its probability."""

    code: str
    probability: float

    @property
    def name(self) -> str:
        return language_name(self.code)


@lru_cache(maxsize=1)
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def detect_language(text: str) -> LanguageGuess | None:
    """The language of ``text`` (module docstring); None for text with fewer than
    :data:`MIN_CHARS` letters."""
    if sum(c.isalpha() for c in text[: 4 * MIN_CHARS]) < MIN_CHARS and sum(c.isalpha() for c in text) < MIN_CHARS:
        return None
    if len(text) > 2 * SAMPLE_CHARS:
        mid = len(text) // 2
        text = text[:SAMPLE_CHARS] + "\n" + text[mid: mid + SAMPLE_CHARS]
    code, prob = _identifier().classify(text)
    return LanguageGuess(str(code), float(prob))
