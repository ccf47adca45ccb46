"""Class-balanced multinomial logistic regression in plain numpy (training and inference).

Shared by the offline and embedding relation classifiers so that neither needs scikit-learn at
run time. The model is the standard one (e.g. Hastie, Tibshirani & Friedman, *The Elements of
Statistical Learning*, §4.4): P(y = k | x) = softmax(W x + b)_k, fitted by minimising the
sample-weighted mean cross-entropy plus (λ/2)·‖W‖² (the intercept is not penalised), with
"balanced" class weights n / (K · n_k) as in scikit-learn's ``class_weight="balanced"``.
Features are standardised (mean 0, sd 1 on the training data) before fitting, and the
standardisation is folded into the stored weights. Missing feature values (``NaN``, e.g. debate
context that an input does not have) are replaced by their training mean (mean imputation), both
when fitting and when predicting, so a missing value contributes what an average value does.
The model records its *effective training prior* — the share of the total (class × sample)
weight per class, uniform for balanced weights — which prior-shift correction needs
(:mod:`argfaith.mining.classifiers.prior`).

The loss is smooth and strongly convex (λ > 0), so it has one optimum: small problems use Newton's
method with a backtracking line search (exact Hessian), large ones Nesterov-accelerated gradient
descent with step 1/L (L = ‖X‖²/(2n)·max weight + λ bounds the Hessian). ``tol`` bounds the
gradient norm at exit; ``iterations`` and ``grad_norm`` report what happened.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["LinearModel", "fit_logistic_regression", "balanced_class_weights"]


@dataclass(frozen=True)
class LinearModel:
    """A fitted multinomial logistic regression over raw (unstandardised) features.

    ``coef`` has shape (n_classes, n_features), ``intercept`` (n_classes,); ``classes`` names the
    rows; ``feature_names`` documents the columns; ``iterations`` and ``grad_norm`` are the
    optimiser's diagnostics; ``impute`` holds the value that replaces a missing (NaN) feature
    (``None``: inputs must be complete); ``train_prior`` the effective class prior of the
    training weights (``None`` for models saved before it was recorded).
    """

    classes: tuple[str, ...]
    coef: np.ndarray
    intercept: np.ndarray
    feature_names: tuple[str, ...] = ()
    l2: float = 1.0
    iterations: int = 0
    grad_norm: float = 0.0
    impute: np.ndarray | None = None
    train_prior: tuple[float, ...] | None = None

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        """Scores W x + b, shape (n, n_classes); NaN features take their ``impute`` value."""
        X = np.asarray(X, dtype=np.float64)
        if X.size and np.isnan(X).any():
            if self.impute is None:
                raise ValueError("features have missing values (NaN) and the model records no imputation values")
            X = np.where(np.isnan(X), self.impute, X)
        return X @ self.coef.T + self.intercept

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Class probabilities, shape (n, n_classes), rows sum to 1."""
        z = self.decision_function(X)
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def save(self, path: str | Path, *, arrays: dict[str, np.ndarray] | None = None, **meta: str) -> None:
        """Write the model as a small ``.npz``, with extra ``arrays`` (e.g. projections) and string
        metadata such as provenance."""
        np.savez_compressed(
            path,
            classes=np.array(self.classes),
            coef=self.coef.astype(np.float64),
            intercept=self.intercept.astype(np.float64),
            feature_names=np.array(self.feature_names),
            l2=np.array(self.l2),
            iterations=np.array(self.iterations),
            grad_norm=np.array(self.grad_norm),
            **({"impute": self.impute.astype(np.float64)} if self.impute is not None else {}),
            **({"train_prior": np.array(self.train_prior, dtype=np.float64)} if self.train_prior is not None else {}),
            **{f"meta_{k}": np.array(v) for k, v in meta.items()},
            **{f"array_{k}": np.asarray(v) for k, v in (arrays or {}).items()},
        )

    @classmethod
    def load(cls, path: str | Path) -> tuple[LinearModel, dict[str, str]]:
        """Read a model written by :meth:`save`; returns (model, metadata)."""
        with np.load(path, allow_pickle=False) as z:
            model = cls(
                classes=tuple(str(c) for c in z["classes"]),
                coef=z["coef"],
                intercept=z["intercept"],
                feature_names=tuple(str(c) for c in z["feature_names"]),
                l2=float(z["l2"]),
                iterations=int(z["iterations"]),
                grad_norm=float(z["grad_norm"]),
                impute=z["impute"] if "impute" in z.files else None,
                train_prior=tuple(float(v) for v in z["train_prior"]) if "train_prior" in z.files else None,
            )
            meta = {k[5:]: str(z[k]) for k in z.files if k.startswith("meta_")}
        return model, meta

    @staticmethod
    def load_arrays(path: str | Path) -> dict[str, np.ndarray]:
        """The extra arrays stored by :meth:`save`."""
        with np.load(path, allow_pickle=False) as z:
            return {k[6:]: z[k] for k in z.files if k.startswith("array_")}


def balanced_class_weights(y: Sequence[str], classes: Sequence[str]) -> dict[str, float]:
    """n / (K · n_k) per class present (scikit-learn's ``class_weight="balanced"``)."""
    n = len(y)
    present = [c for c in classes if any(v == c for v in y)]
    k = len(present)
    return {c: n / (k * sum(1 for v in y if v == c)) for c in present}


def fit_logistic_regression(
    X: np.ndarray,
    y: Sequence[str],
    classes: Sequence[str],
    *,
    l2: float = 1.0,
    sample_weight: np.ndarray | None = None,
    class_weight: str | None = "balanced",
    max_iter: int = 5000,
    tol: float = 1e-6,
    feature_names: Sequence[str] = (),
) -> LinearModel:
    """Fit a (class-balanced) multinomial logistic regression; see the module docstring.

    Parameters
    ----------
    X
        Features, shape (n, d).
    y
        Labels, each one of ``classes``.
    classes
        Class order of the model's rows (classes absent from ``y`` get a very low intercept).
    l2
        λ, the L2 penalty on standardised weights (the analogue of scikit-learn's 1/C per sample).
    sample_weight
        Optional per-sample weights, multiplied with the class weights.
    class_weight
        ``"balanced"`` or None.
    """
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    classes = tuple(classes)
    index = {c: i for i, c in enumerate(classes)}
    try:
        yi = np.array([index[v] for v in y], dtype=np.int64)
    except KeyError as e:
        raise ValueError(f"label {e.args[0]!r} is not one of {classes}") from None
    if n == 0:
        raise ValueError("cannot fit on zero samples")
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64).copy()
    if class_weight == "balanced":
        cw = balanced_class_weights(list(y), classes)
        w *= np.array([cw[classes[i]] for i in yi])
    w = w / w.mean()
    # Effective training prior: each class's share of the total weight (uniform when balanced
    # without sample weights).
    train_prior = tuple(float(w[yi == k].sum() / w.sum()) for k in range(len(classes)))

    # Training means, used for missing values now and at prediction time (always recorded: an
    # input may lack features that every training pair had). All-missing columns impute 0.
    missing = np.isnan(X)
    with np.errstate(all="ignore"):
        impute = np.nanmean(np.where(missing.all(axis=0), 0.0, X), axis=0)
    impute = np.where(np.isnan(impute), 0.0, impute)
    if missing.any():
        X = np.where(missing, impute, X)

    mu = X.mean(axis=0)
    sd = X.std(axis=0)
    sd[sd < 1e-12] = 1.0  # constant columns: leave unscaled (their weight stays ~0)
    Z = (X - mu) / sd
    K = len(classes)
    Y = np.zeros((n, K))
    Y[np.arange(n), yi] = 1.0
    present = Y.sum(axis=0) > 0

    if K * (d + 1) <= 600:
        W, b, it, gnorm = _newton(Z, Y, w, l2, max_iter=min(max_iter, 100), tol=tol)
    else:
        W, b, it, gnorm = _accelerated_gradient(Z, Y, w, l2, max_iter=max_iter, tol=tol)
    # Absent classes can never be predicted (their score only falls during training).
    b = np.where(present, b, b - 1e3)
    coef = W / sd
    intercept = b - coef @ mu
    return LinearModel(classes, coef, intercept, tuple(feature_names), l2, it, gnorm, impute, train_prior)


def _softmax(S: np.ndarray) -> np.ndarray:
    S = S - S.max(axis=1, keepdims=True)
    P = np.exp(S)
    return P / P.sum(axis=1, keepdims=True)


def _loss(Z: np.ndarray, Y: np.ndarray, w: np.ndarray, l2: float, W: np.ndarray, b: np.ndarray) -> float:
    S = Z @ W.T + b
    m = S.max(axis=1, keepdims=True)
    logp = S - m - np.log(np.exp(S - m).sum(axis=1, keepdims=True))
    return float(-(w * (Y * logp).sum(axis=1)).sum() / len(Z) + 0.5 * l2 * (W**2).sum())


def _gradient(Z: np.ndarray, Y: np.ndarray, w: np.ndarray, l2: float, W: np.ndarray, b: np.ndarray):
    P = _softmax(Z @ W.T + b)
    R = (P - Y) * w[:, None] / len(Z)
    return R.T @ Z + l2 * W, R.sum(axis=0), P


def _newton(Z, Y, w, l2, *, max_iter: int, tol: float):
    """Newton's method with backtracking (Armijo) line search; exact Hessian of the softmax loss."""
    n, d = Z.shape
    K = Y.shape[1]
    A = np.hstack([Z, np.ones((n, 1))])  # last column = intercept
    theta = np.zeros((K, d + 1))
    reg = np.full(d + 1, l2)
    reg[-1] = 1e-8  # intercept unpenalised (tiny ridge keeps the Hessian invertible)
    gnorm = np.inf
    it = 0
    for it in range(1, max_iter + 1):
        gW, gb, P = _gradient(Z, Y, w, l2, theta[:, :-1], theta[:, -1])
        g = np.hstack([gW, gb[:, None]])
        gnorm = float(np.sqrt((g**2).sum()))
        if gnorm < tol:
            break
        H = np.zeros((K, d + 1, K, d + 1))
        wn = w / n
        for a in range(K):
            for c in range(a, K):
                coef = wn * P[:, a] * ((1.0 if a == c else 0.0) - P[:, c])
                block = (A * coef[:, None]).T @ A
                H[a, :, c, :] = block
                H[c, :, a, :] = block.T
        H = H.reshape(K * (d + 1), K * (d + 1))
        H[np.diag_indices_from(H)] += np.tile(reg, K)
        try:
            step = np.linalg.solve(H, g.ravel()).reshape(K, d + 1)
        except np.linalg.LinAlgError:
            step = g
        f0 = _loss(Z, Y, w, l2, theta[:, :-1], theta[:, -1])
        slope = float((g * step).sum())
        t = 1.0
        while t > 1e-8:
            cand = theta - t * step
            if _loss(Z, Y, w, l2, cand[:, :-1], cand[:, -1]) <= f0 - 1e-4 * t * slope:
                break
            t *= 0.5
        theta = theta - t * step
    return theta[:, :-1], theta[:, -1], it, gnorm


def _accelerated_gradient(Z, Y, w, l2, *, max_iter: int, tol: float):
    """Nesterov-accelerated gradient descent with step 1/L (for many features)."""
    n, d = Z.shape
    K = Y.shape[1]
    L = 0.5 * w.max() * (np.linalg.norm(Z, 2) ** 2 + n) / n + l2
    step = 1.0 / L
    W = np.zeros((K, d))
    b = np.zeros(K)
    Wv, bv = W.copy(), b.copy()
    t = 1.0
    gnorm = np.inf
    it = 0
    for it in range(1, max_iter + 1):
        gW, gb, _ = _gradient(Z, Y, w, l2, Wv, bv)
        W_new = Wv - step * gW
        b_new = bv - step * gb
        t_new = (1 + np.sqrt(1 + 4 * t * t)) / 2
        Wv = W_new + (t - 1) / t_new * (W_new - W)
        bv = b_new + (t - 1) / t_new * (b_new - b)
        W, b, t = W_new, b_new, t_new
        if it % 25 == 0:
            gW, gb, _ = _gradient(Z, Y, w, l2, W, b)
            gnorm = float(np.sqrt((gW**2).sum() + (gb**2).sum()))
            if gnorm < tol:
                break
    return W, b, it, gnorm
