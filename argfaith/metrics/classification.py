"""Classification quality of relation classifiers: accuracy, macro-F1, per-class P/R/F1, confusion.

Pure functions over label sequences (scikit-learn's ``metric(y_true, y_pred)`` convention), used
by ``argfaith bench relations`` to fill the paper's Table 2 (accuracy / F1 per model and prompt,
PAPER.md §7). F1 in Table 2 is read as macro-F1 over the three classes.

Undefined cases follow an explicit policy (scikit-learn's ``zero_division=0``): a class that is
never predicted has precision 0, a class absent from ``y_true`` has recall 0, and F1 is 0 when
precision + recall = 0. Macro averages run over ``labels`` (default: the paper's three classes),
including classes absent from both sequences; :attr:`ClassificationReport.undefined` lists the
classes whose precision or recall fell under this policy so it is visible, not silent.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from argfaith.datasets.labels import LABELS

__all__ = [
    "ClassScores",
    "ClassificationReport",
    "confusion_matrix",
    "accuracy",
    "precision_recall_f1",
    "macro_f1",
    "classification_report",
]


@dataclass(frozen=True, slots=True)
class ClassScores:
    """Precision, recall and F1 of one class, with its support (true count) and predicted count."""

    label: str
    precision: float
    recall: float
    f1: float
    support: int
    predicted: int


@dataclass(frozen=True)
class ClassificationReport:
    """All the numbers of one evaluation.

    ``confusion[i][j]`` counts pairs whose true label is ``labels[i]`` and predicted ``labels[j]``.
    """

    labels: tuple[str, ...]
    n: int
    accuracy: float
    macro_precision: float
    macro_recall: float
    macro_f1: float
    per_class: tuple[ClassScores, ...]
    confusion: tuple[tuple[int, ...], ...]
    undefined: tuple[str, ...] = ()

    def scores(self, label: str) -> ClassScores:
        """The :class:`ClassScores` of ``label``."""
        for s in self.per_class:
            if s.label == label:
                return s
        raise KeyError(label)

    def to_dict(self) -> dict:
        """A JSON-ready dict."""
        return {
            "labels": list(self.labels),
            "n": self.n,
            "accuracy": self.accuracy,
            "macro_precision": self.macro_precision,
            "macro_recall": self.macro_recall,
            "macro_f1": self.macro_f1,
            "per_class": {
                s.label: {"precision": s.precision, "recall": s.recall, "f1": s.f1, "support": s.support, "predicted": s.predicted}
                for s in self.per_class
            },
            "confusion": [list(r) for r in self.confusion],
            "undefined": list(self.undefined),
        }


def _check(y_true: Sequence[Hashable], y_pred: Sequence[Hashable]) -> None:
    if len(y_true) != len(y_pred):
        raise ValueError(f"y_true has {len(y_true)} labels but y_pred has {len(y_pred)}")


def confusion_matrix(
    y_true: Sequence[Hashable], y_pred: Sequence[Hashable], *, labels: Sequence[Hashable] = LABELS
) -> tuple[tuple[int, ...], ...]:
    """Counts ``C[i][j]`` of true ``labels[i]`` predicted as ``labels[j]``.

    Raises
    ------
    ValueError
        Lengths differ, or a label outside ``labels`` occurs.
    """
    _check(y_true, y_pred)
    index = {lab: i for i, lab in enumerate(labels)}
    m = [[0] * len(labels) for _ in labels]
    for t, p in zip(y_true, y_pred, strict=True):
        if t not in index or p not in index:
            bad = t if t not in index else p
            raise ValueError(f"label {bad!r} is not one of {list(labels)}")
        m[index[t]][index[p]] += 1
    return tuple(tuple(r) for r in m)


def accuracy(y_true: Sequence[Hashable], y_pred: Sequence[Hashable]) -> float:
    """Share of exact matches; 0.0 for empty input (documented policy)."""
    _check(y_true, y_pred)
    if not y_true:
        return 0.0
    return sum(t == p for t, p in zip(y_true, y_pred, strict=True)) / len(y_true)


def _div(a: float, b: float) -> float:
    return a / b if b else 0.0


def precision_recall_f1(
    y_true: Sequence[Hashable], y_pred: Sequence[Hashable], *, labels: Sequence[Hashable] = LABELS
) -> tuple[ClassScores, ...]:
    """Per-class precision, recall and F1 (zero-division policy: 0, see module docstring)."""
    cm = confusion_matrix(y_true, y_pred, labels=labels)
    out = []
    for i, lab in enumerate(labels):
        tp = cm[i][i]
        support = sum(cm[i])
        predicted = sum(row[i] for row in cm)
        p = _div(tp, predicted)
        r = _div(tp, support)
        out.append(ClassScores(str(lab), p, r, _div(2 * p * r, p + r), support, predicted))
    return tuple(out)


def macro_f1(y_true: Sequence[Hashable], y_pred: Sequence[Hashable], *, labels: Sequence[Hashable] = LABELS) -> float:
    """Unweighted mean of the per-class F1 over ``labels`` (Table 2's F1)."""
    scores = precision_recall_f1(y_true, y_pred, labels=labels)
    return sum(s.f1 for s in scores) / len(scores) if scores else 0.0


def classification_report(
    y_true: Sequence[Hashable], y_pred: Sequence[Hashable], *, labels: Sequence[Hashable] = LABELS
) -> ClassificationReport:
    """Accuracy, macro P/R/F1, per-class scores and the confusion matrix in one object."""
    cm = confusion_matrix(y_true, y_pred, labels=labels)
    per = precision_recall_f1(y_true, y_pred, labels=labels)
    k = len(per) or 1
    undefined = tuple(s.label for s in per if s.support == 0 or s.predicted == 0)
    return ClassificationReport(
        labels=tuple(str(lab) for lab in labels),
        n=len(y_true),
        accuracy=accuracy(y_true, y_pred),
        macro_precision=sum(s.precision for s in per) / k,
        macro_recall=sum(s.recall for s in per) / k,
        macro_f1=sum(s.f1 for s in per) / k,
        per_class=per,
        confusion=cm,
        undefined=undefined,
    )
