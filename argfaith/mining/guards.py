"""Checks before mining that protect a user from a job that cannot mean anything.

* **The pair budget.** Mining classifies every candidate pair: n(n−1)/2 + n·p for a debate and
  n(n−1) + n·p for a summary (:func:`argfaith.mining.candidates.count_source_candidates`,
  :func:`~argfaith.mining.candidates.count_summary_candidates`). A 1 MB text passed as a summary
  is 60 million pairs — a day of the offline classifier, hundreds of dollars with Claude, and
  12 GB of memory for the pair list alone. :func:`check_pair_budget` counts the pairs from the
  number of units *before* any pair is built and refuses above ``max_pairs``
  (:data:`DEFAULT_MAX_PAIRS` covers every debate of the EP corpus: the largest, 1,108 sentences,
  has about 0.7 M), in one line that says how many and how to raise the limit.
* **The language.** :func:`check_languages` detects the language of the debate and of each
  summary (:mod:`argfaith.mining.language`) and compares it with the one the relation classifier
  reads (:func:`classifier_languages`: English for the offline models, trained on English EP
  pairs; any for Claude, compared with the debate's language instead). A mismatch is a warning,
  or — with ``strict`` — a :class:`LanguageMismatchError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from argfaith.errors import ConfigurationError
from argfaith.mining.candidates import DEFAULT_SUMMARY_PAIRS
from argfaith.mining.language import LanguageGuess, detect_language, language_name

__all__ = [
    "DEFAULT_MAX_PAIRS",
    "OFFLINE_PAIRS_PER_SECOND",
    "TooManyPairsError",
    "LanguageMismatchError",
    "PairCount",
    "count_pairs",
    "check_pair_budget",
    "classifier_languages",
    "check_languages",
]

#: Candidate pairs one document may send to the classifier unless the user raises the limit.
DEFAULT_MAX_PAIRS = 1_000_000
#: Throughput of the offline classifier on this project's 2-core machines (issue 22: ≈700/s),
#: used only to say how long a refused job would have taken.
OFFLINE_PAIRS_PER_SECOND = 700


class TooManyPairsError(ConfigurationError):
    """A document has more candidate pairs than the pair budget (``--max-pairs``)."""


class LanguageMismatchError(ConfigurationError):
    """A document is not in the language the relation classifier reads (``--strict``)."""


@dataclass(frozen=True)
class PairCount:
    """Candidate pairs of one document: its argument units and the pairs they make."""

    what: str  # "debate DIR" / "summary FILE"
    n_units: int
    n_proposals: int
    n_pairs: int
    rule: str  # how the pairs are formed, for messages


def count_pairs(
    debate: Any, summaries: Sequence[Any] = (), *, units: str = "auto", names: Sequence[str] | None = None,
    summary_pairs: str = DEFAULT_SUMMARY_PAIRS,
) -> list[PairCount]:
    """Candidate pairs of the debate and of each summary (``candidates=all``; summaries under the
    ``summary_pairs`` policy of :func:`argfaith.mining.candidates.count_summary_candidates`), from
    their units alone: nothing is classified and no pair list is built."""
    from argfaith.mining.candidates import count_source_candidates, count_summary_candidates
    from argfaith.mining.units import proposal_units, speech_units, summary_unit_policy, summary_units

    n_props = len(proposal_units(debate))
    deb = speech_units(debate, units=units).units  # type: ignore[arg-type]
    out = [PairCount(f"debate {debate.source_path or debate.id}", len(deb), n_props,
                     count_source_candidates(len(deb), n_props), "each argument → every earlier one and every provision")]
    for i, s in enumerate(summaries):
        # the structural rules only (no classifier): a cheap upper bound, so that a refused job costs seconds
        su = summary_units(s, policy=summary_unit_policy("rules")).units
        label = (names[i] if names is not None else None) or s.source_path or f"summary {i + 1}"
        rule = {"all": "all ordered pairs of sentences, and each sentence → every provision",
                "ordered": "each sentence → every earlier one and every provision",
                "proposals": "each sentence → every provision"}.get(summary_pairs, f"summary pairs {summary_pairs}")
        out.append(PairCount(f"summary {label}", len(su), n_props,
                             count_summary_candidates(len(su), n_props, summary_pairs),  # type: ignore[arg-type]
                             rule))
    return out


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


def check_pair_budget(counts: Sequence[PairCount], max_pairs: int | None, *, option: str = "--max-pairs") -> None:
    """Refuse (:class:`TooManyPairsError`) the first document with more than ``max_pairs``
    candidate pairs; ``None`` = no limit."""
    if max_pairs is None:
        return
    for c in counts:
        if c.n_pairs > max_pairs:
            raise TooManyPairsError(
                f"{c.what}: {c.n_pairs:,} candidate pairs to classify ({c.n_units:,} argument units, {c.rule}) exceed "
                f"{option} {max_pairs:,} (≈{_duration(c.n_pairs / OFFLINE_PAIRS_PER_SECOND)} with the offline classifier); "
                f"if this document is what you meant, raise the limit with {option} {c.n_pairs}"
            )


def classifier_languages(classifier: Any) -> tuple[str, ...] | None:
    """The languages a relation classifier reads: its ``languages`` attribute when it has one,
    else ``None`` (any) for Claude and ``("en",)`` for every other (offline models are trained on
    English EP pairs; recorded labels replay English ones)."""
    langs = getattr(classifier, "languages", None)
    if langs is not None:
        return tuple(langs)
    name = str(getattr(classifier, "name", "") or "")
    return None if name.lower().startswith("claude") else ("en",)


def _text_of(doc: Any) -> str:
    if hasattr(doc, "interventions"):
        return "\n".join(iv.text for iv in doc.interventions)
    return str(getattr(doc, "text", "") or "")


def check_languages(
    debate: Any, summaries: Sequence[Any], classifier: Any, *, strict: bool = False, names: Sequence[str] | None = None,
) -> list[str]:
    """Warnings (or, with ``strict``, a :class:`LanguageMismatchError`) for documents not in the
    classifier's language (module docstring). Texts too short to judge are not flagged."""
    reads = classifier_languages(classifier)
    cname = str(getattr(classifier, "name", "the relation classifier"))
    deb_guess = detect_language(_text_of(debate))
    expected = reads or ((deb_guess.code,) if deb_guess is not None else None)
    if expected is None:
        return []
    who = f"the {cname} relation classifier reads {', '.join(language_name(c) for c in expected)}" if reads else \
        f"the debate is in {language_name(expected[0])}"
    docs: list[tuple[str, LanguageGuess | None]] = []
    if reads:
        docs.append((f"debate {debate.source_path or debate.id}", deb_guess))
    for i, s in enumerate(summaries):
        label = (names[i] if names is not None else None) or s.source_path or f"summary {i + 1}"
        docs.append((f"summary {label}", detect_language(_text_of(s))))
    out = []
    for what, g in docs:
        if g is None or g.code in expected:
            continue
        msg = (f"{what} is in {g.name} ({g.code}, p = {g.probability:.2f}) but {who}: its relations, and every metric "
               "built on them, will say little (a summary the classifier cannot read scores like the empty summary)")
        if strict:
            raise LanguageMismatchError(msg + "; translate it or use a classifier that reads it (--classifier claude)")
        out.append(msg + " (--strict makes this an error)")
    return out
