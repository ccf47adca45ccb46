"""Scores of the v2 relation-model trials (issue 20): every figure on natural pairs only.

Probabilities are (n, 3) arrays in CLASSES order (attack, support, no relation).

- ``balanced``: arg-max of p(k) / prior(k) (the prior the probabilities are calibrated to): the
  class-balanced decision, for sampled pairs where relations are common (the silver pairs);
- ``all-pairs rule``: related iff P(related) ≥ t and attack iff P(attack | related) ≥ b, with t and
  b matched on OTHER folds' out-of-fold predictions to the labelled density and attack share of
  exhaustively labelled candidates (what mining does);
- relatedness AUC (1 − p(no relation)), stance AUC (P(attack | related) on gold-related pairs),
  related precision / recall at the labelled density, expected calibration error.
"""

from __future__ import annotations

import numpy as np

CLASSES = ("attack", "support", "no relation")


def f1s(y: np.ndarray, pred: np.ndarray) -> dict:
    out = {}
    for k, c in enumerate(CLASSES):
        tp = int(((pred == k) & (y == k)).sum())
        fp = int(((pred == k) & (y != k)).sum())
        fn = int(((pred != k) & (y == k)).sum())
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        out[c] = 2 * p * r / (p + r) if p + r else 0.0
    out["macro"] = float(np.mean([out[c] for c in CLASSES]))
    return out


def auc(y: np.ndarray, s: np.ndarray) -> float | None:
    y = np.asarray(y, bool)
    if y.all() or not y.any():
        return None
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s))
    ranks[order] = np.arange(1, len(s) + 1)
    # average ranks of ties
    ss = s[order]
    i = 0
    while i < len(ss):
        j = i
        while j + 1 < len(ss) and ss[j + 1] == ss[i]:
            j += 1
        if j > i:
            ranks[order[i : j + 1]] = (i + j + 2) / 2
        i = j + 1
    n1 = y.sum()
    return float((ranks[y].sum() - n1 * (n1 + 1) / 2) / (n1 * (len(y) - n1)))


def balanced_pred(p: np.ndarray, prior: np.ndarray) -> np.ndarray:
    return np.argmax(p / prior[None, :], axis=1)


def stance_share(p: np.ndarray) -> np.ndarray:
    return p[:, 0] / np.maximum(p[:, 0] + p[:, 1], 1e-12)


def matched_rule(p: np.ndarray, density: float, attack_share: float) -> tuple[float, float]:
    """(t, b): P(related) threshold giving ``density`` related, stance threshold giving ``attack_share`` attacks."""
    rel = 1.0 - p[:, 2]
    t = float(np.quantile(rel, 1.0 - density))
    sel = rel >= t
    b = float(np.quantile(stance_share(p[sel]), 1.0 - attack_share)) if sel.any() else 0.5
    return t, b


def rule_pred(p: np.ndarray, t: float, b: float) -> np.ndarray:
    rel = 1.0 - p[:, 2] >= t
    att = stance_share(p) >= b
    return np.where(rel, np.where(att, 0, 1), 2)


def ece(y: np.ndarray, p: np.ndarray, bins: int = 15) -> float:
    """Expected calibration error of the top-class probability (equal-width bins)."""
    conf = p.max(axis=1)
    pred = p.argmax(axis=1)
    edges = np.linspace(0, 1, bins + 1)
    e = 0.0
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (conf > lo) & (conf <= hi)
        if m.any():
            e += m.mean() * abs((pred[m] == y[m]).mean() - conf[m].mean())
    return float(e)


def classwise_ece(y: np.ndarray, p: np.ndarray, bins: int = 15) -> float:
    """Mean over classes of the calibration error of p(k) against 1[y = k]."""
    out = []
    edges = np.linspace(0, 1, bins + 1)
    for k in range(p.shape[1]):
        e = 0.0
        for lo, hi in zip(edges[:-1], edges[1:]):
            m = (p[:, k] > lo) & (p[:, k] <= hi) if lo > 0 else (p[:, k] >= lo) & (p[:, k] <= hi)
            if m.any():
                e += m.mean() * abs((y[m] == k).mean() - p[m, k].mean())
        out.append(e)
    return float(np.mean(out))


def precision_recall_at(y: np.ndarray, score: np.ndarray, share: float) -> tuple[float, float]:
    """Related precision / recall when the top ``share`` of pairs by ``score`` are called related."""
    rel = y != 2
    k = max(1, int(round(share * len(y))))
    top = np.argsort(-score, kind="stable")[:k]
    return float(rel[top].mean()), float(rel[top].sum() / max(1, rel.sum()))


def summarise(y: np.ndarray, p: np.ndarray, prior: np.ndarray) -> dict:
    """Every figure for one set of pairs."""
    out: dict = {"n": int(len(y)), "labels": {c: int((y == k).sum()) for k, c in enumerate(CLASSES)}}
    bal = f1s(y, balanced_pred(p, prior))
    out["balanced"] = {k: round(v, 4) for k, v in bal.items()}
    out["relatedness_auc"] = auc(y != 2, 1 - p[:, 2])
    g = y != 2
    out["stance_auc"] = auc(y[g] == 0, stance_share(p[g])) if g.any() else None
    out["ece_top"] = round(ece(y, p), 4)
    out["ece_classwise"] = round(classwise_ece(y, p), 4)
    return out


# ---------------------------------------------------------------------------- calibration (shared with train.py)
def log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def shift_logits(logp: np.ndarray, train_prior: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """Saerens et al. (2002) prior shift in log space (unnormalised)."""
    return logp + np.log(prior)[None, :] - np.log(train_prior)[None, :]


def fit_temperature(z: np.ndarray, y: np.ndarray) -> float:
    """The T minimising the negative log-likelihood of softmax(z / T) (golden-section on log T)."""
    def nll(t: float) -> float:
        lp = log_softmax(z / t)
        return float(-lp[np.arange(len(y)), y].mean())

    lo, hi = np.log(0.2), np.log(10.0)
    g = (np.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = nll(np.exp(a)), nll(np.exp(b))
    for _ in range(60):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = nll(np.exp(a))
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = nll(np.exp(b))
    return float(np.exp((lo + hi) / 2))


def calibrate(logp: np.ndarray, train_prior: np.ndarray, prior: np.ndarray, t: float) -> np.ndarray:
    return np.exp(log_softmax(shift_logits(logp, train_prior, prior) / t))
