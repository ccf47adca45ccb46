"""The numpy logistic regression behind the offline classifiers: optimality, reference, I/O."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.mining.classifiers._linear import LinearModel, balanced_class_weights, fit_logistic_regression

CLASSES = ("a", "b", "c")


def _data(seed: int, n: int = 120, d: int = 5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 20, size=d) + rng.normal(size=d) * 5
    score = X[:, 0] / X[:, 0].std() + 0.5 * rng.normal(size=n)
    y = [CLASSES[int(k)] for k in np.digitize(score, [-0.5, 0.7])]
    return X, y


def _objective_gradient(model: LinearModel, X, y, l2, w):
    """Gradient of the documented objective at the returned (unstandardised) weights."""
    mu, sd = X.mean(0), X.std(0)
    Z = (X - mu) / sd
    W = model.coef * sd  # back to standardised coordinates
    b = model.intercept + model.coef @ mu
    S = Z @ W.T + b
    P = np.exp(S - S.max(1, keepdims=True))
    P /= P.sum(1, keepdims=True)
    Y = np.eye(3)[[CLASSES.index(v) for v in y]]
    R = (P - Y) * w[:, None] / len(X)
    return R.T @ Z + l2 * W, R.sum(0)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([0.01, 0.1, 1.0]))
def test_the_returned_weights_are_the_optimum(seed, l2):
    X, y = _data(seed)
    m = fit_logistic_regression(X, y, CLASSES, l2=l2)
    cw = balanced_class_weights(y, CLASSES)
    w = np.array([cw[v] for v in y])
    w /= w.mean()
    gW, gb = _objective_gradient(m, X, y, l2, w)
    assert np.abs(gW).max() < 1e-5 and np.abs(gb).max() < 1e-5
    P = m.predict_proba(X)
    assert np.allclose(P.sum(1), 1.0) and (P >= 0).all()


def test_matches_scikit_learn_on_standardised_data():
    sklearn = pytest.importorskip("sklearn.linear_model")
    X, y = _data(3, n=200)
    Xs = (X - X.mean(0)) / X.std(0)
    l2 = 0.05
    m = fit_logistic_regression(Xs, y, CLASSES, l2=l2, class_weight=None)
    # scikit-learn minimises C·Σ CE + ½‖W‖²  ⇔  mean CE + (1/(2 C n))‖W‖²: C = 1 / (λ n).
    ref = sklearn.LogisticRegression(C=1 / (l2 * len(y)), tol=1e-12, max_iter=10_000).fit(Xs, y)
    assert np.abs(m.predict_proba(Xs) - ref.predict_proba(Xs)).max() < 1e-5


def test_gradient_route_agrees_with_newton():
    from argfaith.mining.classifiers._linear import _accelerated_gradient, _newton

    X, y = _data(7, n=150, d=4)
    Z = (X - X.mean(0)) / X.std(0)
    Y = np.eye(3)[[CLASSES.index(v) for v in y]]
    w = np.ones(len(y))
    Wn, bn, _, gn = _newton(Z, Y, w, 0.1, max_iter=100, tol=1e-10)
    Wg, bg, _, gg = _accelerated_gradient(Z, Y, w, 0.1, max_iter=50_000, tol=1e-9)
    assert gn < 1e-9 and gg < 1e-8
    assert np.abs(Wn - Wg).max() < 1e-6 and np.abs(bn - bg).max() < 1e-6


def test_absent_class_is_never_predicted_and_bad_label_rejected():
    X, y = _data(1)
    y2 = [v if v != "c" else "b" for v in y]
    m = fit_logistic_regression(X, y2, CLASSES, l2=0.1)
    assert (m.predict_proba(X).argmax(1) != 2).all()
    with pytest.raises(ValueError, match="'z'"):
        fit_logistic_regression(X[:2], ["a", "z"], CLASSES)
    with pytest.raises(ValueError):
        fit_logistic_regression(X[:0], [], CLASSES)


def test_save_and_load_round_trip(tmp_path):
    X, y = _data(2)
    m = fit_logistic_regression(X, y, CLASSES, l2=0.1, feature_names=[f"f{i}" for i in range(X.shape[1])])
    p = tmp_path / "m.npz"
    m.save(p, arrays={"proj": np.eye(3)}, provenance="unit test")
    back, meta = LinearModel.load(p)
    assert back.classes == CLASSES and back.feature_names == m.feature_names and meta == {"provenance": "unit test"}
    assert np.array_equal(back.predict_proba(X), m.predict_proba(X))
    assert np.array_equal(LinearModel.load_arrays(p)["proj"], np.eye(3))
