"""Relation-classifier benchmark: quality (the paper's Table 2), cost and speed on labelled pairs.

Wires :mod:`argfaith.datasets` (labelled pairs), :mod:`argfaith.mining.classifiers` (any
:class:`~argfaith.mining.classifiers.base.RelationClassifier`) and
:mod:`argfaith.metrics.classification`. Two modes:

- :func:`run_relation_benchmark` — classify every pair once and score it;
- :func:`cross_validate` — for trainable classifiers, k-fold cross-validation GROUPED by a key
  (default: the source argument) so that no source argument is in both a training and a test
  fold; optional extra training pairs (e.g. pairs from other debates) join every training fold.

Table 2 of the paper reports accuracy and F1 per model and prompt on the EP pairs (PAPER.md §7);
F1 is read as macro-F1 over attack / support / no relation.

Debate context: labelled EP pairs carry argument ids (``<debate>-<intervention>-<k>``), from which
:class:`DebateContexts` recovers each argument's speech, speaker and debate position in an
``ep_debates`` folder, so context-aware classifiers see the same inputs as in mining.
"""

from __future__ import annotations

import random
import re
import time
from functools import lru_cache
from pathlib import Path
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from argfaith.datasets.relations import RelationPair
from argfaith.errors import ConfigurationError
from argfaith.metrics.classification import ClassificationReport, classification_report
from argfaith.mining.classifiers.base import PairQuery, ProgressCallback, RelationClassifier, Usage

__all__ = [
    "BenchmarkResult",
    "DebateContexts",
    "all_pairs_reference",
    "pair_query",
    "run_relation_benchmark",
    "group_folds",
    "cross_validate",
    "nested_cross_validate",
    "Trainer",
    "trainer_for",
    "table2_rows",
]

Trainer = Callable[[Sequence[PairQuery], Sequence[str], np.ndarray | None], RelationClassifier]


_UNIT_ID = re.compile(r"^(?P<debate>.+?)-(?P<intervention>\d+-\d+)-(?P<k>s?\d+)$")


class DebateContexts:
    """Speech context of EP argument ids, read lazily from an ``ep_debates`` folder.

    An id ``<debate>-<intervention>-<k>`` (human span or sentence ``k`` of an intervention; the
    silver pairs' and ``data/ep_pairs_llm``'s layout) maps to (speech text, speaker, debate
    position of the speech); proposal ids (``<debate>-P<n>`` or the old ``<debate>-PAR-<n>``), unknown debates and other id
    shapes map to ``None``. ``found`` / ``missing`` count lookups (reported by the benchmark).
    """

    def __init__(self, root: str | Path) -> None:
        from argfaith.datasets.ep import ep_debates_root

        self.root = ep_debates_root(root)
        self.found = 0
        self.missing = 0
        self._speeches = lru_cache(maxsize=64)(self._read)

    def _read(self, debate_id: str) -> dict[str, tuple[str, str, int]] | None:
        from argfaith.datasets.ep import read_ep_debate

        folder = self.root / debate_id
        if not (folder / "interventions").is_dir():
            return None
        d = read_ep_debate(folder, annotations=False)
        return {iv.id: (iv.text, iv.speaker, iv.position) for iv in d.interventions}

    def lookup(self, unit_id: str | None) -> tuple[str, str, int] | None:
        """(speech text, speaker, position) of a speech argument id, else ``None``."""
        from argfaith.datasets.provision_ids import is_provision_id

        speech = bool(unit_id) and not is_provision_id(unit_id)  # type: ignore[arg-type]
        m = _UNIT_ID.match(unit_id) if speech else None  # type: ignore[arg-type]
        speeches = self._speeches(m["debate"]) if m else None
        hit = speeches.get(m["intervention"]) if speeches and m else None
        if speech:
            if hit is None:
                self.missing += 1
            else:
                self.found += 1
        return hit


def all_pairs_reference(
    root: str | Path,
    n_debates: int = 8,
    per_debate: int = 1000,
    *,
    seed: int = 20261130,
    exclude: Sequence[str] = (),
) -> tuple[list[PairQuery], list[str]]:
    """A uniform sample of mining's all-pairs candidates: ``per_debate`` pairs from each of
    ``n_debates`` EP debates drawn at random (``seed``) among those below ``root`` not in
    ``exclude`` — sentence units, temporal constraint and speech context exactly as
    ``argfaith mine`` builds them. Unlabelled; used for the ``match`` decision rule's reference
    scores (:mod:`argfaith.mining.classifiers.prior`). Returns (queries, debate ids)."""
    from argfaith.datasets.ep import list_ep_debates, read_ep_debate
    from argfaith.mining.pipeline import plan_debate

    folders = [f for f in list_ep_debates(root) if f.name not in set(exclude)]
    if not folders:
        raise ConfigurationError(f"{root}: no debates to sample reference pairs from")
    rng = random.Random(seed)
    chosen = sorted(rng.sample(folders, min(n_debates, len(folders))), key=lambda f: f.name)  # all, if fewer
    out: list[PairQuery] = []
    for f in chosen:
        plan = plan_debate(read_ep_debate(f, annotations=False), units="sentences")
        pairs = list(plan.pairs)
        keep = sorted(rng.sample(range(len(pairs)), min(per_debate, len(pairs))))
        out += plan.queries([pairs[i] for i in keep])
    return out, [f.name for f in chosen]


def previous_sentence(context: str | None, source: str) -> str | None:
    """The sentence just before ``source`` in its speech text ``context`` (None when it is not
    found or opens the speech): the ``source_prev`` of labelled pairs that only carry texts."""
    if not context:
        return None
    key = " ".join(source.split())[:60]
    flat = " ".join(context.split())
    at = flat.find(key)
    if at <= 0:
        return None
    before = flat[:at].rstrip()
    parts = re.split(r"(?<=[.!?])\s+", before)
    last = parts[-1].strip() if parts else ""
    return last if len(last.split()) >= 3 else None


def pair_query(pair: RelationPair, contexts: DebateContexts | None = None) -> PairQuery:
    """The classifier's view of a labelled pair (the label stays behind), with the debate
    context of its speech arguments when ``contexts`` can recover it."""
    sc = tc = None
    if contexts is not None:
        sc = contexts.lookup(pair.source_id)
        tc = contexts.lookup(pair.target_id) if pair.target_kind != "proposal" else None
    return PairQuery(
        pair.source, pair.target, pair.topic, pair.source_id, pair.target_id, pair.target_kind,
        source_context=sc[0] if sc else None, target_context=tc[0] if tc else None,
        source_speaker=sc[1] if sc else None, target_speaker=tc[1] if tc else None,
        source_position=sc[2] if sc else None, target_position=tc[2] if tc else None,
        source_prev=previous_sentence(sc[0] if sc else None, pair.source),
    )


@dataclass(frozen=True)
class BenchmarkResult:
    """One classifier on one data set.

    ``mode`` is ``"predict"`` (classify once) or ``"cv"`` (``folds``-fold grouped
    cross-validation; ``usage`` then sums over folds). ``by_group`` holds one report per value of
    the ``by`` field (e.g. corpus). ``fallbacks`` counts predictions that used the fallback label.
    """

    classifier: str
    prompt: str | None
    data: str
    n: int
    report: ClassificationReport
    by: str | None
    by_group: dict[str, ClassificationReport]
    usage: Usage
    wall_seconds: float
    fallbacks: int
    mode: str = "predict"
    folds: int | None = None
    group_by: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    spec: str | None = None  # the classifier spec as given (``offline?prior=all-pairs``)
    in_sample: bool = False  # scored on the pairs its shipped weights were trained on

    @property
    def label(self) -> str:
        """The classifier's name with the options of its spec that change its predictions
        (``offline?prior=all-pairs``); the prompt has a column of its own."""
        if not self.spec or "?" not in self.spec:
            return self.classifier
        opts = [o for o in self.spec.split("?", 1)[1].split("&") if o and not o.startswith("prompt=")]
        return self.classifier + (f"?{'&'.join(opts)}" if opts else "")

    @property
    def seconds_per_pair(self) -> float:
        return self.wall_seconds / self.n if self.n else 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "classifier": self.classifier,
            "spec": self.spec,
            "label": self.label,
            "in_sample": self.in_sample,
            "prompt": self.prompt,
            "data": self.data,
            "n": self.n,
            "mode": self.mode,
            "folds": self.folds,
            "group_by": self.group_by,
            "accuracy": self.report.accuracy,
            "macro_f1": self.report.macro_f1,
            "report": self.report.to_dict(),
            "by": self.by,
            "by_group": {k: v.to_dict() for k, v in self.by_group.items()},
            "usage": asdict(self.usage),
            "wall_seconds": self.wall_seconds,
            "seconds_per_pair": self.seconds_per_pair,
            "fallbacks": self.fallbacks,
            "notes": list(self.notes),
        }


def _prompt_of(classifier: Any) -> str | None:
    p = getattr(classifier, "prompt", None)
    return f"{p}-shot" if p in ("zero", "few") else None


def _group_value(pair: RelationPair, by: str) -> str:
    value = getattr(pair, by, None) if by in RelationPair.__slots__ else None
    return str(value) if value is not None else "(none)"


def _by_group(pairs: Sequence[RelationPair], predicted: Sequence[str], by: str | None) -> dict[str, ClassificationReport]:
    if by is None:
        return {}
    if by not in RelationPair.__slots__ or by == "label":
        raise ConfigurationError(f"cannot break results down by {by!r}; use corpus, topic or target_kind")
    groups: dict[str, list[int]] = {}
    for i, p in enumerate(pairs):
        groups.setdefault(_group_value(p, by), []).append(i)
    return {
        g: classification_report([pairs[i].label for i in idx], [predicted[i] for i in idx])
        for g, idx in sorted(groups.items())
    }


def run_relation_benchmark(
    pairs: Sequence[RelationPair],
    classifier: RelationClassifier,
    *,
    data: str = "",
    by: str | None = None,
    progress: ProgressCallback | None = None,
    contexts: DebateContexts | None = None,
) -> BenchmarkResult:
    """Classify every pair once and score the predictions against the labels.

    Parameters
    ----------
    pairs
        Labelled pairs (see :mod:`argfaith.datasets.relations`).
    classifier
        Any relation classifier; its ``usage`` (calls, tokens, cost) is reported as the difference
        over this run.
    by
        A pair field to break results down by (``corpus``, ``topic``, ``target_kind``).
    contexts
        Recovers the debate context of EP argument ids (see :class:`DebateContexts`).
    """
    if not pairs:
        raise ConfigurationError(f"no pairs to benchmark in {data or 'the input'}")
    before = _copy_usage(classifier.usage)
    t0 = time.perf_counter()
    preds = classifier.classify([pair_query(p, contexts) for p in pairs], progress=progress)
    wall = time.perf_counter() - t0
    if len(preds) != len(pairs):
        raise RuntimeError(f"classifier {classifier.name} returned {len(preds)} predictions for {len(pairs)} pairs")
    labels = [p.label for p in preds]
    return BenchmarkResult(
        classifier=classifier.name,
        prompt=_prompt_of(classifier),
        data=data,
        n=len(pairs),
        report=classification_report([p.label for p in pairs], labels),
        by=by,
        by_group=_by_group(pairs, labels, by),
        usage=_usage_delta(before, classifier.usage),
        wall_seconds=wall,
        fallbacks=sum(1 for p in preds if p.fallback),
    )


def _copy_usage(u: Usage) -> Usage:
    return Usage(u.calls, u.cache_hits, u.input_tokens, u.output_tokens, u.cost_usd, u.errors, dict(u.extra))


def _usage_delta(a: Usage, b: Usage) -> Usage:
    keys = set(a.extra) | set(b.extra)
    return Usage(
        calls=b.calls - a.calls,
        cache_hits=b.cache_hits - a.cache_hits,
        input_tokens=b.input_tokens - a.input_tokens,
        output_tokens=b.output_tokens - a.output_tokens,
        cost_usd=b.cost_usd - a.cost_usd,
        errors=b.errors - a.errors,
        extra={k: b.extra.get(k, 0.0) - a.extra.get(k, 0.0) for k in sorted(keys)},
    )


def _group_key(pair: RelationPair, group_by: str) -> str:
    if group_by == "source":
        return pair.source_id or pair.source  # the source argument (id if known, else its text)
    if group_by == "target":
        return pair.target_id or pair.target
    if group_by in ("corpus", "topic", "pair_id"):
        return _group_value(pair, group_by)
    raise ConfigurationError(f"cannot group folds by {group_by!r}; use source, target, corpus or topic")


def group_folds(pairs: Sequence[RelationPair], k: int = 5, *, group_by: str = "source", seed: int = 0) -> list[int]:
    """Fold index (0..k-1) per pair; all pairs sharing a group key get the same fold.

    Groups are shuffled with ``seed`` and dealt round-robin, so folds have near-equal numbers of
    groups (grouped k-fold cross-validation).
    """
    if k < 2:
        raise ConfigurationError(f"cross-validation needs at least 2 folds, got {k}")
    keys = [_group_key(p, group_by) for p in pairs]
    unique = sorted(set(keys))
    if len(unique) < k:
        raise ConfigurationError(f"only {len(unique)} distinct {group_by} groups: too few for {k} folds")
    random.Random(seed).shuffle(unique)
    fold_of = {g: i % k for i, g in enumerate(unique)}
    return [fold_of[g] for g in keys]


def cross_validate(
    pairs: Sequence[RelationPair],
    trainer: Trainer,
    *,
    name: str,
    k: int = 5,
    group_by: str = "source",
    seed: int = 0,
    extra_train: Sequence[RelationPair] = (),
    extra_weight: float = 1.0,
    data: str = "",
    by: str | None = None,
    progress: ProgressCallback | None = None,
    contexts: DebateContexts | None = None,
) -> BenchmarkResult:
    """Grouped k-fold cross-validation of a trainable classifier (see the module docstring).

    Predictions of all test folds are pooled and scored once. ``extra_train`` pairs (weight
    ``extra_weight``) are added to every training fold and never tested on. ``contexts`` gives
    training and test pairs their debate context.
    """
    if not pairs:
        raise ConfigurationError(f"no pairs to cross-validate in {data or 'the input'}")
    folds = group_folds(pairs, k, group_by=group_by, seed=seed)
    predicted: list[str | None] = [None] * len(pairs)
    usage = Usage()
    fallbacks = 0
    t0 = time.perf_counter()
    extra_q = [pair_query(p, contexts) for p in extra_train]
    all_q = [pair_query(p, contexts) for p in pairs]
    extra_y = [p.label for p in extra_train]
    for f in range(k):
        train = [p for p, g in zip(pairs, folds, strict=True) if g != f]
        test_idx = [i for i, g in enumerate(folds) if g == f]
        q = [qq for qq, g in zip(all_q, folds, strict=True) if g != f] + extra_q
        y = [p.label for p in train] + extra_y
        w = np.concatenate([np.ones(len(train)), np.full(len(extra_q), extra_weight)])
        clf = trainer(q, y, w)
        preds = clf.classify([all_q[i] for i in test_idx])
        for i, p in zip(test_idx, preds, strict=True):
            predicted[i] = p.label
        fallbacks += sum(1 for p in preds if p.fallback)
        u = clf.usage
        usage = Usage(usage.calls + u.calls, usage.cache_hits + u.cache_hits, usage.input_tokens + u.input_tokens,
                      usage.output_tokens + u.output_tokens, usage.cost_usd + u.cost_usd, usage.errors + u.errors)
        if progress is not None:
            progress(f + 1, k)
    wall = time.perf_counter() - t0
    labels = [str(p) for p in predicted]
    notes = (f"{len(extra_train)} extra training pairs (weight {extra_weight}) in every fold",) if extra_train else ()
    return BenchmarkResult(
        classifier=name,
        prompt=None,
        data=data,
        n=len(pairs),
        report=classification_report([p.label for p in pairs], labels),
        by=by,
        by_group=_by_group(pairs, labels, by),
        usage=usage,
        wall_seconds=wall,
        fallbacks=fallbacks,
        mode="cv",
        folds=k,
        group_by=group_by,
        notes=notes,
    )


def nested_cross_validate(
    pairs: Sequence[RelationPair],
    candidates: dict[str, tuple[Trainer, float]],
    *,
    name: str,
    k: int = 5,
    inner_k: int = 4,
    group_by: str = "source",
    seed: int = 0,
    extra_train: Sequence[RelationPair] = (),
    data: str = "",
    by: str | None = None,
    contexts: DebateContexts | None = None,
    progress: ProgressCallback | None = None,
) -> BenchmarkResult:
    """Grouped k-fold cross-validation of a hyper-parameter *selection procedure*.

    ``candidates`` maps a configuration name to (trainer, weight of ``extra_train``; 0 = without
    them). In each outer fold, every configuration is scored by grouped ``inner_k``-fold CV on the
    outer training pairs only (macro-F1, pooled); the best one (ties: the first) is refitted on
    all outer training pairs and predicts the outer test fold. The pooled outer predictions
    estimate the quality of "choose by CV, then train" without using any test pair for the
    choice; ``notes`` list the configuration chosen per fold.
    """
    if not candidates:
        raise ConfigurationError("nested CV needs at least one candidate configuration")
    folds = group_folds(pairs, k, group_by=group_by, seed=seed)
    predicted: list[str | None] = [None] * len(pairs)
    chosen: list[str] = []
    t0 = time.perf_counter()
    for f in range(k):
        train = [p for p, g in zip(pairs, folds, strict=True) if g != f]
        test_idx = [i for i, g in enumerate(folds) if g == f]
        scores = {}
        for cname, (trainer, w) in candidates.items():
            inner = cross_validate(train, trainer, name=cname, k=inner_k, group_by=group_by, seed=seed + 1000 * (f + 1),
                                   extra_train=extra_train if w > 0 else (), extra_weight=w if w > 0 else 1.0, contexts=contexts)
            scores[cname] = inner.report.macro_f1
        best = max(candidates, key=lambda c: scores[c])  # max keeps the first of equal scores
        chosen.append(best)
        trainer, w = candidates[best]
        extra = list(extra_train) if w > 0 else []
        q = [pair_query(p, contexts) for p in train + extra]
        y = [p.label for p in train + extra]
        wt = np.concatenate([np.ones(len(train)), np.full(len(extra), w)])
        clf = trainer(q, y, wt)
        preds = clf.classify([pair_query(pairs[i], contexts) for i in test_idx])
        for i, pr in zip(test_idx, preds, strict=True):
            predicted[i] = pr.label
        if progress is not None:
            progress(f + 1, k)
    labels = [str(p) for p in predicted]
    return BenchmarkResult(
        classifier=name, prompt=None, data=data, n=len(pairs),
        report=classification_report([p.label for p in pairs], labels), by=by, by_group=_by_group(pairs, labels, by),
        usage=Usage(), wall_seconds=time.perf_counter() - t0, fallbacks=0, mode="nested-cv", folds=k, group_by=group_by,
        notes=tuple(f"fold {i}: {c}" for i, c in enumerate(chosen)),
    )


def trainer_for(name: str, **options: Any) -> Trainer:
    """A function (pairs, labels, sample weights) → fitted classifier, for ``features``,
    ``embedding`` and ``majority`` (the default ``offline`` model is trained by
    ``scripts/train_stance.py``, not per fold).

    ``options`` go to the training function (e.g. ``l2``). Raises :class:`ConfigurationError` for
    classifiers that cannot be trained.
    """
    if name == "features":
        from argfaith.mining.classifiers.offline import default_idf_path, load_idf, train_offline_classifier

        idf = load_idf(default_idf_path())
        return lambda q, y, w: train_offline_classifier(q, y, idf, sample_weight=w, **options)
    if name == "embedding":
        from argfaith.mining.classifiers._linear import LinearModel
        from argfaith.mining.classifiers.embedding import (
            SentenceEncoder,
            default_embedding_weights_path,
            train_embedding_classifier,
        )
        from argfaith.mining.classifiers.offline import default_idf_path, load_idf

        idf = load_idf(default_idf_path())
        # The unsupervised projections are reused from the shipped model; the weights are refitted.
        arrays = LinearModel.load_arrays(default_embedding_weights_path())
        encoder = SentenceEncoder()
        return lambda q, y, w: train_embedding_classifier(
            q, y, idf, arrays["pair_proj"], arrays["src_proj"], encoder=encoder, sample_weight=w, **options
        )
    if name == "majority":
        from argfaith.mining.classifiers.baselines import MajorityClassifier

        return lambda q, y, w: MajorityClassifier().fit(y)
    raise ConfigurationError(f"classifier {name!r} cannot be trained; --cv works for offline, embedding and majority")


def table2_rows(results: Sequence[BenchmarkResult]) -> list[dict[str, Any]]:
    """Rows in the paper's Table 2 layout: model, prompt, accuracy, F1 (+ n, cost, time)."""
    rows = []
    for r in results:
        model = r.label + (f" ({r.folds}-fold CV by {r.group_by})" if r.mode == "cv" else "") + (" [IN-SAMPLE]" if r.in_sample else "")
        rows.append({
            "model": model,
            "prompt": r.prompt or "—",
            "accuracy": round(r.report.accuracy, 3),
            "f1": round(r.report.macro_f1, 3),
            "n": r.n,
            "calls": r.usage.calls,
            "cost_usd": round(r.usage.cost_usd, 4),
            "seconds": round(r.wall_seconds, 2),
        })
    return rows
