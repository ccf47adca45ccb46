"""Faithfulness with error bars: relation uncertainty carried through every metric (issue 23).

Every metric argfaith reports is computed from ONE labelling of the candidate pairs. A classifier
that gives class probabilities says more: each candidate pair (x, y) is attack with probability
p_a, support with p_s and unrelated otherwise. Under the assumption that pairs are independent,
this module draws K labellings of a QBAF's uncertain pairs, solves all K frameworks in one call
of the batch engine (:func:`argfaith.qbaf.gradual.gradual_batch`), and reports each metric's mean,
its 90% interval and, for verdicts, their probability.

What the interval covers — and what it does not: the classifier's uncertainty under pair
independence. It does not cover annotation disagreement, a classifier's systematic bias, or
correlated errors (a model that misreads a whole speech misreads all of its pairs together).

The distribution of a QBAF's pairs (:class:`RelationDistribution`) travels in its metadata
(``qbaf.info["relation_distribution"]``, written by mining): ``{"pairs": [[source, target,
p_attack, p_support], ...], "fixed_at": 0.99}``. Pairs whose most likely label has probability
≥ ``fixed_at`` are not listed: they keep the label the QBAF has (an edge or no edge). A QBAF
without the key is certain: every draw equals it, and every interval has width zero.

Paired draws: draw k of the source QBAF is used with draw k of every summary QBAF, so that the
comparison of two summaries (:func:`probability_better`) sees the same source uncertainty.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from argfaith.qbaf import QBAF
from argfaith.qbaf.batch import QBAFBatch

__all__ = [
    "RelationDistribution",
    "relation_distribution",
    "SampledSide",
    "sample_side",
    "interval",
    "probability_better",
    "pair_uniforms",
    "DISTRIBUTION_KEY",
    "DEFAULT_FIXED_AT",
]

DISTRIBUTION_KEY = "relation_distribution"
#: Pairs whose top class probability reaches this are fixed at their label (not sampled).
DEFAULT_FIXED_AT = 0.99


@dataclass(frozen=True)
class RelationDistribution:
    """Uncertain candidate pairs of one QBAF, as index arrays into ``qbaf.ids``."""

    source: np.ndarray  # (m,) int
    target: np.ndarray  # (m,) int
    p_attack: np.ndarray  # (m,) float
    p_support: np.ndarray  # (m,) float
    fixed_at: float = DEFAULT_FIXED_AT

    def __len__(self) -> int:
        return int(self.source.shape[0])

    @property
    def p_related(self) -> np.ndarray:
        return self.p_attack + self.p_support


def relation_distribution(qbaf: QBAF) -> RelationDistribution | None:
    """The QBAF's distribution from its metadata (None when it carries none: certain labels)."""
    raw = qbaf.info.get(DISTRIBUTION_KEY) if qbaf.info else None
    if not raw:
        return None
    pairs = raw.get("pairs") or []
    idx = qbaf.index
    rows = [(idx[s], idx[t], float(a), float(b)) for s, t, a, b in pairs if s in idx and t in idx]
    if not rows:
        return RelationDistribution(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0),
                                    float(raw.get("fixed_at", DEFAULT_FIXED_AT)))
    arr = np.array(rows, dtype=np.float64)
    return RelationDistribution(arr[:, 0].astype(np.int64), arr[:, 1].astype(np.int64), np.clip(arr[:, 2], 0, 1),
                                np.clip(arr[:, 3], 0, 1), float(raw.get("fixed_at", DEFAULT_FIXED_AT)))


@dataclass(frozen=True)
class SampledSide:
    """K labellings of one QBAF: the batch to solve and the per-draw edge arrays."""

    qbaf: QBAF
    batch: QBAFBatch
    draws: int

    def framework(self, k: int) -> QBAF:
        """Draw k as a QBAF (same ids, texts and base scores as the original)."""
        b = self.batch
        a0, a1 = b.attack_offsets[k], b.attack_offsets[k + 1]
        s0, s1 = b.support_offsets[k], b.support_offsets[k + 1]
        q = self.qbaf
        return QBAF(q.ids, q.is_proposal, q.base_scores, b.attacks[a0:a1], b.supports[s0:s1], tau=q.tau,
                    debate=q.debate, name=q.name, validate=False)


def pair_uniforms(qbaf: QBAF, dist: RelationDistribution, draws: int, seed: int = 0) -> np.ndarray:
    """(draws, m) uniforms for the pairs of ``dist``, keyed by the texts of each pair (ids when
    an argument has no text): common random numbers, so that two QBAFs sharing a pair — a summary
    and its edited copy — give that pair the same label in draw k."""
    out = np.empty((draws, len(dist)))
    args = qbaf.arguments
    for j, (s, t) in enumerate(zip(dist.source.tolist(), dist.target.tolist(), strict=True)):
        a, b = args[s], args[t]
        key = f"{seed}\x00{a.text if a.text is not None else a.id}\x00{b.text if b.text is not None else b.id}"
        h = int.from_bytes(hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest(), "little")
        out[:, j] = np.random.default_rng(h).random(draws)
    return out


def _stack_draws(fixed: np.ndarray, pair: np.ndarray, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Edges of every draw, one after the other: draw k = ``fixed`` then the pairs chosen in row k
    of ``chosen`` (K, m), in pair order; with the (K + 1) offsets. Vectorised (no loop over draws)."""
    k_draws = chosen.shape[0]
    f = len(fixed)
    counts = chosen.sum(axis=1)
    off = np.concatenate([[0], np.cumsum(counts + f)]).astype(np.int64)
    out = np.empty((int(off[-1]), 2), dtype=np.int64)
    if f:
        pos = (off[:-1, None] + np.arange(f)[None, :]).ravel()
        out[pos] = np.tile(fixed, (k_draws, 1))
    kk, jj = np.nonzero(chosen)  # row-major: grouped by draw, pairs in order
    if len(kk):
        first = np.concatenate([[0], np.cumsum(counts)[:-1]])
        rank = np.arange(len(kk)) - first[kk]
        out[off[kk] + f + rank] = pair[jj]
    return out, off


def sample_side(qbaf: QBAF, dist: RelationDistribution | None, draws: int, rng: np.random.Generator,
                uniforms: np.ndarray | None = None) -> SampledSide:
    """Draw ``draws`` labellings of ``qbaf``: its edges outside ``dist`` are kept in every draw;
    each pair of ``dist`` independently becomes an attack (p_attack), a support (p_support) or
    nothing. With no distribution every draw is the QBAF itself. ``uniforms`` (draws, m), e.g.
    from :func:`pair_uniforms`, replaces the draws of ``rng``."""
    n = qbaf.n
    att, sup = qbaf.attack_array, qbaf.support_array
    if dist is not None and len(dist):
        key = dist.source * n + dist.target
        att = att[~np.isin(att[:, 0] * n + att[:, 1], key)]
        sup = sup[~np.isin(sup[:, 0] * n + sup[:, 1], key)]
        u = rng.random((draws, len(dist))) if uniforms is None else uniforms
        is_att = u < dist.p_attack[None, :]
        is_sup = ~is_att & (u < dist.p_related[None, :])
        pair = np.stack([dist.source, dist.target], axis=1)
        att_all, a_off = _stack_draws(att, pair, is_att)
        sup_all, s_off = _stack_draws(sup, pair, is_sup)
    else:
        att_all, a_off = np.tile(att, (draws, 1)), np.arange(draws + 1) * len(att)
        sup_all, s_off = np.tile(sup, (draws, 1)), np.arange(draws + 1) * len(sup)
    batch = QBAFBatch.from_arrays(
        np.tile(qbaf.base_scores, draws), np.arange(draws + 1) * n,
        att_all.reshape(-1, 2).astype(np.int64), a_off, sup_all.reshape(-1, 2).astype(np.int64), s_off,
    )
    return SampledSide(qbaf, batch, draws)


def interval(values: np.ndarray, level: float = 0.90) -> tuple[float, float, float]:
    """(mean, low, high): the mean and the central ``level`` interval (quantiles) of draws."""
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    if v.size == 0:
        return float("nan"), float("nan"), float("nan")
    lo, hi = np.quantile(v, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(v.mean()), float(lo), float(hi)


def probability_better(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(P(a > b), P(a = b)) over paired draws (nan draws ignored)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    ok = ~(np.isnan(a) | np.isnan(b))
    if not ok.any():
        return float("nan"), float("nan")
    return float((a[ok] > b[ok] + 1e-12).mean()), float((np.abs(a[ok] - b[ok]) <= 1e-12).mean())


# ---------------------------------------------------------------------------- metrics per draw
@dataclass(frozen=True)
class SideDraws:
    """σ of the proposals per draw (K, P) and, for the first ``slow`` draws, the single-QBAF
    metrics and credulous acceptance (K_slow, P)."""

    proposals: tuple[str, ...]
    sigma: np.ndarray  # (K, P)
    converged: np.ndarray  # (K,) bool
    relevance: np.ndarray  # (K_slow,) π_ar (nan when undefined)
    pro_con_mean: np.ndarray  # (K_slow,) mean π_pcr (nan when undefined)
    accepted: np.ndarray  # (K_slow, P) bool


def side_draws(
    side: SampledSide,
    proposals: Sequence[str],
    *,
    semantics: str = "dfquad",
    method: str = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
    slow: int = 0,
) -> SideDraws:
    """Solve every draw of ``side`` in one batch-engine call; single-QBAF metrics and d-preferred
    acceptance (which need per-framework searches) for the first ``slow`` draws only."""
    from argfaith.metrics.faithfulness import argument_relevance, mean_pro_con_ratio
    from argfaith.qbaf import credulous_acceptance
    from argfaith.qbaf.gradual import gradual_batch

    q = side.qbaf
    props = tuple(proposals)
    col = np.array([q.index[p] for p in props], dtype=np.int64)
    r = gradual_batch(side.batch, semantics, method=method, max_iter=max_iter, tol=tol)
    sigma = np.asarray(r.values, dtype=np.float64).reshape(side.draws, q.n)[:, col]
    ks = min(slow, side.draws)
    rel = np.full(ks, np.nan)
    pcr = np.full(ks, np.nan)
    acc = np.zeros((ks, len(props)), dtype=bool)
    for k in range(ks):
        fk = side.framework(k)
        rv = argument_relevance(fk).value
        rel[k] = np.nan if rv is None else rv
        mv = mean_pro_con_ratio(fk, props).value
        pcr[k] = np.nan if mv is None else mv
        accepted = credulous_acceptance(fk, props).accepted
        acc[k] = [p in accepted for p in props]
    return SideDraws(props, sigma, np.asarray(r.converged, dtype=bool), rel, pcr, acc)


@dataclass(frozen=True)
class PairwiseDraws:
    """The pairwise metrics of one summary against the source, draw by draw (paired draws)."""

    balance_consistency: np.ndarray  # (K,)
    epsilon_accuracy: np.ndarray  # (K,)
    d_preferability_consistency: np.ndarray  # (K_slow,)
    balance_agree: np.ndarray  # (K, P) per-provision verdicts
    epsilon_agree: np.ndarray  # (K, P)
    side_change: np.ndarray  # (K, P): σ* on the other side of 0.5 than σ (a strict flip)


def pairwise_draws(src: SideDraws, summ: SideDraws, *, epsilon: float = 0.1, tolerance: float = 1e-9) -> PairwiseDraws:
    """π_bc, π_εa (every draw) and π_dpc (the slow draws) of paired draws (PAPER.md §5)."""
    if src.proposals != summ.proposals:
        raise ValueError("source and summary draws must cover the same proposals in the same order")

    def side(x: np.ndarray) -> np.ndarray:
        return np.where(x > 0.5 + tolerance, 1, np.where(x < 0.5 - tolerance, -1, 0))

    a, b = src.sigma, summ.sigma
    sa, sb = side(a), side(b)
    bc = sa == sb
    ea = np.abs(b - a) <= epsilon + tolerance
    ks = min(len(src.accepted), len(summ.accepted))
    dpc = (src.accepted[:ks] == summ.accepted[:ks]).mean(axis=1) if ks and a.shape[1] else np.zeros(0)
    n = a.shape[1]
    return PairwiseDraws(
        balance_consistency=bc.mean(axis=1) if n else np.full(a.shape[0], np.nan),
        epsilon_accuracy=ea.mean(axis=1) if n else np.full(a.shape[0], np.nan),
        d_preferability_consistency=dpc,
        balance_agree=bc,
        epsilon_agree=ea,
        side_change=(sa * sb) < 0,
    )


# ---------------------------------------------------------------------------- intervals of a report
@dataclass(frozen=True)
class MetricInterval:
    """A metric over the draws: its mean and central interval (``level``), with the number of draws."""

    mean: float
    low: float
    high: float
    draws: int

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def as_dict(self) -> dict[str, float | int]:
        return {"mean": self.mean, "low": self.low, "high": self.high, "draws": self.draws}


def _mi(values: np.ndarray, level: float) -> MetricInterval:
    m, lo, hi = interval(values, level)
    return MetricInterval(m, lo, hi, int(np.sum(~np.isnan(np.asarray(values, dtype=np.float64)))))


@dataclass(frozen=True)
class SummaryIntervals:
    """Every metric of one summary against the source, over paired draws."""

    metrics: dict[str, MetricInterval]  # pi_bc, pi_ea, pi_dpc, pi_ar, pi_pcr (summary side)
    sigma_summary: dict[str, MetricInterval]
    verdict_probability: dict[str, dict[str, float]]  # proposal -> {balance_consistent, epsilon_accurate, side_change}
    uncertain_pairs: int
    draws: PairwiseDraws


@dataclass(frozen=True)
class FaithfulnessIntervals:
    """Intervals of one source and its summaries (paired draws), with what they assume."""

    draws: int
    slow_draws: int
    level: float
    seed: int
    fixed_at: float
    source_metrics: dict[str, MetricInterval]  # pi_ar, pi_pcr of the source
    sigma_source: dict[str, MetricInterval]
    source_uncertain_pairs: int
    summaries: dict[str, SummaryIntervals]
    p_better: dict[str, dict[str, dict[str, float]]]  # metric -> "A|B" -> {"p_better": .., "p_tie": ..}


def faithfulness_intervals(
    source: QBAF,
    summaries: Mapping[str, QBAF],
    *,
    draws: int = 100,
    slow_draws: int = 20,
    seed: int = 0,
    level: float = 0.90,
    semantics: str = "dfquad",
    epsilon: float = 0.1,
    tolerance: float = 1e-9,
    method: str = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
) -> FaithfulnessIntervals:
    """Draw ``draws`` labellings of the source and of every summary (paired by draw index), solve
    them with the batch engine, and summarise every metric (module docstring). The QBAFs must use
    the τ to evaluate at (``with_speech_base_score``) and share their proposals."""
    if draws < 1:
        raise ValueError(f"draws must be >= 1, got {draws}")
    rng = np.random.default_rng(seed)
    props = tuple(source.proposals)
    dsrc = relation_distribution(source)
    src_side = sample_side(source, dsrc, draws, rng)
    src = side_draws(src_side, props, semantics=semantics, method=method, max_iter=max_iter, tol=tol, slow=slow_draws)
    out: dict[str, SummaryIntervals] = {}
    per_metric: dict[str, dict[str, np.ndarray]] = {"pi_bc": {}, "pi_ea": {}, "pi_dpc": {}}
    fixed_at = dsrc.fixed_at if dsrc is not None else DEFAULT_FIXED_AT
    for name, q in summaries.items():
        dq = relation_distribution(q)
        side = sample_side(q, dq, draws, rng)
        sd = side_draws(side, props, semantics=semantics, method=method, max_iter=max_iter, tol=tol, slow=slow_draws)
        pw = pairwise_draws(src, sd, epsilon=epsilon, tolerance=tolerance)
        per_metric["pi_bc"][name] = pw.balance_consistency
        per_metric["pi_ea"][name] = pw.epsilon_accuracy
        per_metric["pi_dpc"][name] = pw.d_preferability_consistency
        out[name] = SummaryIntervals(
            metrics={"pi_bc": _mi(pw.balance_consistency, level), "pi_ea": _mi(pw.epsilon_accuracy, level),
                     "pi_dpc": _mi(pw.d_preferability_consistency, level), "pi_ar": _mi(sd.relevance, level),
                     "pi_pcr": _mi(sd.pro_con_mean, level)},
            sigma_summary={p: _mi(sd.sigma[:, j], level) for j, p in enumerate(props)},
            verdict_probability={p: {"balance_consistent": float(pw.balance_agree[:, j].mean()),
                                     "epsilon_accurate": float(pw.epsilon_agree[:, j].mean()),
                                     "side_change": float(pw.side_change[:, j].mean())} for j, p in enumerate(props)},
            uncertain_pairs=len(dq) if dq is not None else 0,
            draws=pw,
        )
    better: dict[str, dict[str, dict[str, float]]] = {}
    names = list(summaries)
    for metric, vals in per_metric.items():
        better[metric] = {}
        for a in names:
            for b in names:
                if a != b:
                    pb, pt = probability_better(vals[a], vals[b])
                    better[metric][f"{a}|{b}"] = {"p_better": pb, "p_tie": pt}
    return FaithfulnessIntervals(
        draws=draws, slow_draws=min(slow_draws, draws), level=level, seed=seed, fixed_at=fixed_at,
        source_metrics={"pi_ar": _mi(src.relevance, level), "pi_pcr": _mi(src.pro_con_mean, level)},
        sigma_source={p: _mi(src.sigma[:, j], level) for j, p in enumerate(props)},
        source_uncertain_pairs=len(dsrc) if dsrc is not None else 0,
        summaries=out, p_better=better,
    )
