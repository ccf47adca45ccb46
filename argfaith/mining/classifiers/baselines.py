"""Baseline relation classifiers for the benchmark table: majority class and a lexical rule.

Both are deliberately simple yardsticks (the rows a trained classifier must beat):

- :class:`MajorityClassifier` answers one label for every pair — by default ``no relation``, the
  majority class of debate pairs (PAPER.md §7; 58% of the EP silver pairs), or the most frequent
  label of the training labels given to :meth:`MajorityClassifier.fit`.
- :class:`LexicalClassifier` is the classic overlap heuristic: a pair whose TF-IDF cosine (over
  crude stems, the offline classifier's IDF table) reaches ``threshold`` is related; a related
  pair whose source carries negation, contrast or negative-evaluation cues is an attack, else a
  support; everything else is no relation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from argfaith.datasets.labels import ATTACK, LABELS, NO_RELATION, SUPPORT, RelationLabel
from argfaith.errors import ConfigurationError
from argfaith.mining.classifiers.base import PairQuery, Prediction, ProgressCallback, Usage

__all__ = ["MajorityClassifier", "LexicalClassifier"]


class MajorityClassifier:
    """Predicts a single label for every pair (see the module docstring)."""

    def __init__(self, label: RelationLabel = NO_RELATION) -> None:
        if label not in LABELS:
            raise ConfigurationError(f"majority label must be one of {LABELS}, got {label!r}")
        self.label: RelationLabel = label
        self.name = "majority"
        self._usage = Usage()

    def fit(self, labels: Sequence[str]) -> MajorityClassifier:
        """Use the most frequent of ``labels`` (ties broken by the canonical label order)."""
        if not labels:
            raise ValueError("cannot fit the majority class on zero labels")
        counts = Counter(labels)
        self.label = max(LABELS, key=lambda lab: (counts.get(lab, 0), -LABELS.index(lab)))
        return self

    @property
    def usage(self) -> Usage:
        return self._usage

    def classify(self, pairs: Sequence[PairQuery], *, progress: ProgressCallback | None = None) -> list[Prediction]:
        out = [Prediction(label=self.label, confidence=None) for _ in pairs]
        if progress is not None:
            progress(len(out), len(out))
        return out


class LexicalClassifier:
    """TF-IDF overlap + polarity-cue rule (see the module docstring).

    Parameters
    ----------
    threshold
        Cosine at or above which a pair counts as related (default 0.15, a round value chosen
        a priori, not tuned on evaluation data).
    """

    name = "lexical"

    def __init__(self, threshold: float = 0.15) -> None:
        if not 0.0 <= threshold <= 1.0:
            raise ConfigurationError(f"lexical threshold must be in [0, 1], got {threshold}")
        from argfaith.mining.classifiers.offline import PairFeaturizer, default_idf_path, load_idf

        self.threshold = threshold
        self._featurizer = PairFeaturizer(load_idf(default_idf_path()))
        self._usage = Usage()

    @property
    def usage(self) -> Usage:
        return self._usage

    def _label(self, pair: PairQuery) -> tuple[RelationLabel, float]:
        from argfaith.mining.classifiers.offline import _IDX, _cos

        s = self._featurizer.profile(pair.source)
        t = self._featurizer.profile(pair.target)
        cos = _cos(s.vector, t.vector)
        if cos < self.threshold:
            return NO_RELATION, cos
        negative = s.cues[_IDX["negation"]] or s.cues[_IDX["contrast"]] or s.cues[_IDX["negative"]]
        return (ATTACK if negative else SUPPORT), cos

    def classify(self, pairs: Sequence[PairQuery], *, progress: ProgressCallback | None = None) -> list[Prediction]:
        out = []
        for pair in pairs:
            label, cos = self._label(pair)
            out.append(Prediction(label=label, confidence=None, raw=f"cos={cos:.3f}"))
        if progress is not None:
            progress(len(out), len(out))
        return out
