"""Classification metrics: golden values, properties, and a differential test against scikit-learn."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.datasets.labels import LABELS
from argfaith.metrics.classification import (
    accuracy,
    classification_report,
    confusion_matrix,
    macro_f1,
    precision_recall_f1,
)

A, S, N = LABELS


def test_golden_example():
    y_true = [A, A, S, S, S, N, N, N, N, N]
    y_pred = [A, S, S, S, N, N, N, N, A, S]
    cm = confusion_matrix(y_true, y_pred)
    assert cm == ((1, 1, 0), (0, 2, 1), (1, 1, 3))
    assert accuracy(y_true, y_pred) == pytest.approx(0.6)
    per = {s.label: s for s in precision_recall_f1(y_true, y_pred)}
    # attack: P = 1/2, R = 1/2; support: P = 2/4, R = 2/3; no relation: P = 3/4, R = 3/5
    assert (per[A].precision, per[A].recall, per[A].f1) == pytest.approx((0.5, 0.5, 0.5))
    assert (per[S].precision, per[S].recall, per[S].f1) == pytest.approx((0.5, 2 / 3, 4 / 7))
    assert (per[N].precision, per[N].recall, per[N].f1) == pytest.approx((0.75, 0.6, 2 / 3))
    assert macro_f1(y_true, y_pred) == pytest.approx((0.5 + 4 / 7 + 2 / 3) / 3)
    rep = classification_report(y_true, y_pred)
    assert rep.n == 10 and rep.undefined == () and rep.scores(S).support == 3 and rep.scores(S).predicted == 4
    assert rep.to_dict()["per_class"][N]["f1"] == pytest.approx(2 / 3)


def test_zero_division_policy_is_reported():
    rep = classification_report([N, N, S], [N, N, N])
    assert rep.scores(A).f1 == 0.0 and rep.scores(S).precision == 0.0
    assert set(rep.undefined) == {A, S}  # attack absent and never predicted; support never predicted
    assert rep.macro_f1 == pytest.approx((0 + 0 + 0.8) / 3)


def test_empty_and_errors():
    assert accuracy([], []) == 0.0 and macro_f1([], []) == 0.0
    with pytest.raises(ValueError, match="3 labels but y_pred has 2"):
        accuracy([A, A, A], [A, A])
    with pytest.raises(ValueError, match="'maybe'"):
        confusion_matrix([A], ["maybe"])


labels = st.lists(st.tuples(st.sampled_from(LABELS), st.sampled_from(LABELS)), min_size=1, max_size=60)


def _reference_f1(y_true, y_pred, lab):
    tp = sum(t == lab and p == lab for t, p in zip(y_true, y_pred))
    fp = sum(t != lab and p == lab for t, p in zip(y_true, y_pred))
    fn = sum(t == lab and p != lab for t, p in zip(y_true, y_pred))
    return 0.0 if tp == 0 else 2 * tp / (2 * tp + fp + fn)


@settings(max_examples=200, deadline=None)
@given(labels)
def test_properties_and_plain_reference(pairs):
    y_true = [t for t, _ in pairs]
    y_pred = [p for _, p in pairs]
    rep = classification_report(y_true, y_pred)
    assert sum(map(sum, rep.confusion)) == len(pairs)
    assert rep.accuracy == pytest.approx(sum(rep.confusion[i][i] for i in range(3)) / len(pairs))
    for s in rep.per_class:
        assert 0.0 <= s.precision <= 1.0 and 0.0 <= s.recall <= 1.0
        assert s.f1 == pytest.approx(_reference_f1(y_true, y_pred, s.label))
        assert min(s.precision, s.recall) - 1e-12 <= s.f1 <= max(s.precision, s.recall) + 1e-12
    perfect = classification_report(y_true, y_true)
    assert perfect.accuracy == 1.0
    present = {t for t in y_true}
    assert perfect.macro_f1 == pytest.approx(len(present) / 3)


@settings(max_examples=40, deadline=None)
@given(labels)
def test_matches_scikit_learn(pairs):
    skm = pytest.importorskip("sklearn.metrics")
    y_true = [t for t, _ in pairs]
    y_pred = [p for _, p in pairs]
    rep = classification_report(y_true, y_pred)
    assert rep.accuracy == pytest.approx(skm.accuracy_score(y_true, y_pred))
    assert rep.macro_f1 == pytest.approx(skm.f1_score(y_true, y_pred, labels=list(LABELS), average="macro", zero_division=0))
    p, r, f, sup = skm.precision_recall_fscore_support(y_true, y_pred, labels=list(LABELS), zero_division=0)
    assert [s.precision for s in rep.per_class] == pytest.approx(list(p))
    assert [s.recall for s in rep.per_class] == pytest.approx(list(r))
    assert [s.support for s in rep.per_class] == list(sup)
    assert [list(row) for row in rep.confusion] == skm.confusion_matrix(y_true, y_pred, labels=list(LABELS)).tolist()
