"""Class priors and prior-shift correction for deploying relation classifiers.

argfaith's offline classifiers are trained with class-balanced weights on *sampled* pairs, so
their posteriors assume each class is equally likely. In all-pairs mining (PAPER.md §7: every
candidate pair is classified) related pairs are rare: on 943 exhaustively labelled candidates of
CRE-20060213-ITEM-013 only 12.5% are related. This is a *prior shift* (label shift): p(x | class)
is assumed unchanged while p(class) differs between training and deployment. Saerens, Latinne &
Decaestecker (2002), "Adjusting the outputs of a classifier to new a priori probabilities: a
simple procedure", Neural Computation 14(1), give the correction (their eq. 2.4)::

    p_deploy(k | x) = [π_deploy(k) / π_train(k)] · p_train(k | x)  /  Σ_j [π_deploy(j) / π_train(j)] · p_train(j | x)

and an EM procedure (their §2.3) that estimates π_deploy from unlabelled deployment data
(:func:`em_prior`). Two decision rules use a deployment prior:

- ``bayes``: the arg-max of the corrected posterior (Bayes rule for 0-1 loss under π_deploy);
- ``match``: the corrected scores plus per-class offsets chosen so that, on a *reference sample*
  of deployment inputs (unlabelled all-pairs candidates of EP debates, scored when the weights
  were trained and shipped with them), the predicted class shares equal π_deploy
  (:func:`match_offsets`). Predicted counts then match the expected counts.

Why ``match`` for mining: measured on the exhaustive labels (benchmarks/relations.md), the offline
models are too weak for the Bayes rule under a 12.5% relation prior — no pair ever reaches
P(related | x) > 0.5, so ``bayes`` mines an almost empty QBAF (≈1% of pairs related), while the
uncorrected balanced model marks 25-33% of the pairs as related. ``match`` keeps the balanced
model's ranking of pairs (the same related-pair F1) at the realistic density.

Named priors (over ``attack`` / ``support`` / ``no relation``):

- ``balanced``: uniform — what class-balanced training assumes (no change for those models);
- ``sampled``: the label mix of the EP silver dev pairs (19 / 107 / 174 of 300; sources paired
  with their most similar targets plus one random target — the benchmark setting);
- ``all-pairs``: the exhaustively labelled candidates (54 / 64 / 825 of 943; every target the
  temporal constraint allows, for ten sources of one EP debate — the mining setting), decided
  with ``match``;
- explicit: ``"attack=0.05,support=0.07,no relation=0.88"`` (normalised to sum 1), decided with
  ``bayes`` unless ``decision="match"`` is asked for.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from argfaith.datasets.labels import ATTACK, LABELS, NO_RELATION, SUPPORT, normalise_label
from argfaith.errors import ConfigurationError

__all__ = [
    "ClassPrior",
    "BALANCED",
    "SAMPLED",
    "ALL_PAIRS",
    "NAMED_PRIORS",
    "MINING_PRIOR",
    "resolve_prior",
    "shift_prior",
    "em_prior",
    "EMPriorResult",
    "mining_classifier",
    "match_offsets",
    "MatchResult",
    "Decision",
]

Decision = Literal["bayes", "match"]


@dataclass(frozen=True)
class ClassPrior:
    """A prior over the relation classes; ``probabilities`` sum to 1 over :data:`LABELS`;
    ``decision`` is the rule that uses it (``bayes`` or ``match``, see the module docstring)."""

    name: str
    probabilities: Mapping[str, float]
    source: str = ""
    decision: Decision = "bayes"

    def vector(self, classes: Sequence[str]) -> np.ndarray:
        """The probabilities in ``classes`` order."""
        return np.array([float(self.probabilities[c]) for c in classes], dtype=np.float64)

    @property
    def related(self) -> float:
        """P(attack) + P(support): the expected share of related pairs."""
        return float(self.probabilities[ATTACK] + self.probabilities[SUPPORT])

    def describe(self) -> str:
        """``name (attack a, support s, no relation n)`` for logs and provenance."""
        return f"{self.name} (" + ", ".join(f"{c} {self.probabilities[c]:.3f}" for c in LABELS) + f"; {self.decision})"


def _counts(attack: int, support: int, none: int) -> dict[str, float]:
    n = attack + support + none
    return {ATTACK: attack / n, SUPPORT: support / n, NO_RELATION: none / n}


BALANCED = ClassPrior("balanced", {c: 1.0 / len(LABELS) for c in LABELS}, "uniform (class-balanced training)")
SAMPLED = ClassPrior(
    "sampled", _counts(19, 107, 174),
    "label mix of the EP silver dev pairs (300 pairs: most similar targets + one random target per source)",
)
ALL_PAIRS = ClassPrior(
    "all-pairs", _counts(54, 64, 825),
    "943 exhaustively labelled candidates of CRE-20060213-ITEM-013 (10 sources x every target the temporal "
    "constraint allows; benchmarks/mining.py EXHAUSTIVE_LABELS)",
    decision="match",
)
NAMED_PRIORS: dict[str, ClassPrior] = {p.name: p for p in (BALANCED, SAMPLED, ALL_PAIRS)}
#: The prior mining (``argfaith.mining.pipeline.run_plan``) gives classifiers that accept one
#: when the user has not chosen a prior.
MINING_PRIOR = ALL_PAIRS


def resolve_prior(
    spec: str | Mapping[str, float] | ClassPrior | None, *, decision: str | None = None
) -> ClassPrior | None:
    """A :class:`ClassPrior` from a name (``balanced``, ``sampled``, ``all-pairs``), a
    ``"label=p,label=p,..."`` string, a mapping or a prior; ``None`` stays ``None``.
    ``decision`` (``bayes`` | ``match``) overrides the prior's decision rule.

    Raises
    ------
    ConfigurationError
        Unknown name, unknown label, a missing class, negative or non-finite values, a sum of 0,
        or an unknown decision rule.
    """
    if decision is not None and decision not in ("bayes", "match"):
        raise ConfigurationError(f"unknown decision rule {decision!r}; use bayes or match")
    out = _resolve(spec)
    if out is not None and decision is not None and decision != out.decision:
        out = ClassPrior(out.name, dict(out.probabilities), out.source, decision)  # type: ignore[arg-type]
    return out


def _resolve(spec: str | Mapping[str, float] | ClassPrior | None) -> ClassPrior | None:
    if spec is None or isinstance(spec, ClassPrior):
        return spec
    if isinstance(spec, str):
        key = spec.strip().lower().replace("_", "-")
        if key in NAMED_PRIORS:
            return NAMED_PRIORS[key]
        if key in ("allpairs", "all"):
            return ALL_PAIRS
        if "=" not in spec:
            raise ConfigurationError(
                f"unknown prior {spec!r}; use one of {', '.join(NAMED_PRIORS)} or 'attack=P,support=P,no relation=P'"
            )
        raw: dict[str, float] = {}
        for part in filter(None, (x.strip() for x in spec.replace(";", ",").split(","))):
            k, _, v = part.partition("=")
            try:
                raw[k] = float(v)
            except ValueError:
                raise ConfigurationError(f"prior {spec!r}: {v.strip()!r} is not a number") from None
        spec = raw
    probs: dict[str, float] = {}
    for k, v in spec.items():
        label = normalise_label(k)
        if label is None:
            raise ConfigurationError(f"prior: unknown class {k!r}; classes are {', '.join(LABELS)}")
        if not math.isfinite(float(v)) or float(v) < 0:
            raise ConfigurationError(f"prior: P({label}) = {v} must be a finite number >= 0")
        probs[label] = float(v)
    missing = [c for c in LABELS if c not in probs]
    if missing:
        raise ConfigurationError(f"prior: missing class(es) {', '.join(missing)}")
    total = sum(probs.values())
    if total <= 0:
        raise ConfigurationError("prior: probabilities sum to 0")
    return ClassPrior("custom", {c: probs[c] / total for c in LABELS}, "given explicitly")


def shift_prior(proba: np.ndarray, classes: Sequence[str], train: ClassPrior, deploy: ClassPrior) -> np.ndarray:
    """Correct posteriors for a prior shift (Saerens et al. 2002, eq. 2.4; see the module docstring).

    Parameters
    ----------
    proba
        Posteriors under the training prior, shape (n, K), columns in ``classes`` order.
    train, deploy
        The prior the model was trained under and the one it is deployed under.

    Returns
    -------
    numpy.ndarray
        Corrected posteriors, rows summing to 1. A class with deployment prior 0 gets posterior 0.
    """
    P = np.asarray(proba, dtype=np.float64)
    pt = train.vector(classes)
    if np.any(pt <= 0):
        raise ConfigurationError(f"training prior {train.describe()} has a zero class: cannot correct")
    ratio = deploy.vector(classes) / pt
    Q = P * ratio
    s = Q.sum(axis=1, keepdims=True)
    s[s <= 0] = 1.0
    return Q / s


@dataclass(frozen=True)
class EMPriorResult:
    """:func:`em_prior`'s estimate with its diagnostics (iterations, convergence, final change)."""

    prior: ClassPrior
    iterations: int
    converged: bool
    change: float
    history: tuple[tuple[float, ...], ...] = field(default_factory=tuple)


def em_prior(
    proba: np.ndarray,
    classes: Sequence[str],
    train: ClassPrior,
    *,
    max_iter: int = 200,
    tol: float = 1e-6,
) -> EMPriorResult:
    """Estimate the deployment prior from unlabelled posteriors (Saerens et al. 2002, §2.3).

    E-step: correct every posterior to the current prior estimate (:func:`shift_prior`); M-step:
    the new prior is the mean corrected posterior. Starts from the training prior. The estimate is
    only as good as the classifier's calibration; ``converged`` says whether the largest change of
    a class probability fell below ``tol`` within ``max_iter`` iterations.
    """
    P = np.asarray(proba, dtype=np.float64)
    if P.ndim != 2 or P.shape[0] == 0:
        raise ConfigurationError("em_prior needs a non-empty (n, K) matrix of posteriors")
    current = train
    hist = []
    change = math.inf
    it = 0
    for it in range(1, max_iter + 1):
        Q = shift_prior(P, classes, train, current)
        new = Q.mean(axis=0)
        change = float(np.abs(new - current.vector(classes)).max())
        current = ClassPrior("em", {c: float(v) for c, v in zip(classes, new, strict=True)}, "EM estimate (Saerens et al. 2002)")
        hist.append(tuple(float(v) for v in new))
        if change < tol:
            break
    return EMPriorResult(current, it, change < tol, change, tuple(hist))


@dataclass(frozen=True)
class MatchResult:
    """:func:`match_offsets`' offsets (added to the log-scores, class order) and the class shares
    they reach on the reference scores."""

    offsets: tuple[float, ...]
    shares: tuple[float, ...]
    target: tuple[float, ...]
    iterations: int

    @property
    def max_error(self) -> float:
        return float(max(abs(a - b) for a, b in zip(self.shares, self.target, strict=True)))


def match_offsets(log_scores: np.ndarray, target: np.ndarray, *, max_iter: int = 500, tol: float = 2e-3) -> MatchResult:
    """Per-class offsets b (last class fixed at 0) such that the arg-max of ``log_scores + b``
    over the reference rows predicts each class with share ``target`` (to within ``tol``).

    Multiplicative updates b_k += η·(log target_k − log share_k) with a shrinking step; shares are
    step functions of b, so exact equality is not always reachable — the shares reached are
    reported. Deterministic.
    """
    S = np.asarray(log_scores, dtype=np.float64)
    t = np.asarray(target, dtype=np.float64)
    if S.ndim != 2 or S.shape[0] == 0 or S.shape[1] != len(t):
        raise ConfigurationError("match_offsets needs a non-empty (n, K) score matrix matching the target")
    K = len(t)
    b = np.zeros(K)
    floor = 0.5 / len(S)
    eta = 1.0
    best = (np.inf, b.copy(), np.zeros(K))
    it = 0
    for it in range(1, max_iter + 1):
        share = np.bincount((S + b).argmax(axis=1), minlength=K) / len(S)
        err = float(np.abs(share - t).max())
        if err < best[0]:
            best = (err, b.copy(), share)
        if err < tol:
            break
        b = b + eta * (np.log(np.maximum(t, floor)) - np.log(np.maximum(share, floor)))
        b -= b[-1]
        if it % 50 == 0:
            eta *= 0.5
    _, b, share = best
    return MatchResult(tuple(float(x) for x in b), tuple(float(x) for x in share), tuple(float(x) for x in t), it)


def mining_classifier(classifier: Any, prior: ClassPrior = MINING_PRIOR) -> Any:
    """The classifier to use for all-pairs mining: ``classifier.with_prior(prior)`` when the
    classifier supports priors and its user has not chosen one (``prior_explicit`` false), else
    ``classifier`` unchanged (Claude, recorded labels, baselines, or an explicit ``?prior=``)."""
    if getattr(classifier, "prior_explicit", True) or not hasattr(classifier, "with_prior"):
        return classifier
    return classifier.with_prior(prior)
