"""The mining pipeline: documents → units → candidate pairs → classifier → QBAF.

``plan_debate`` / ``plan_summary`` do everything up to the classifier (they make no model call,
so ``--dry-run`` uses them); :func:`run_plan` classifies the planned pairs and builds the QBAF;
:func:`mine_debate` / :func:`mine_summary` do both.

Resuming: with a ``checkpoint`` path, every finished chunk of classified pairs is appended to a
JSONL file (flushed and fsync'ed) before the next chunk starts. A rerun reads it and only sends
the pairs not yet in it; a torn last line from a killed process is discarded. The file starts with
a fingerprint of the classifier and the argument texts, and a checkpoint of a different run is
refused (pass ``restart=True`` to overwrite it). The rows are ``{"source_id", "target_id",
"label", "confidence"}`` — the same layout the recorded-label classifier replays. Classifiers with
their own request cache (Claude) additionally never re-pay a request inside a lost chunk.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from argfaith.datasets.documents import Debate, Summary
from argfaith.datasets.labels import ATTACK, LABELS, NO_RELATION, SUPPORT, normalise_label
from argfaith.errors import ConfigurationError, DataFormatError
from argfaith.mining.build import Relation, build_source_qbaf, build_summary_qbaf
from argfaith.mining.candidates import (
    DEFAULT_SUMMARY_PAIRS,
    CandidatePair,
    Pruner,
    SummaryPairs,
    parse_candidates,
    source_candidates,
    summary_candidates,
    to_queries,
)
from argfaith.mining.classifiers.base import PairQuery, Prediction, ProgressCallback, RelationClassifier
from argfaith.mining.classifiers.prior import mining_classifier
from argfaith.mining.segment import Segmenter
from argfaith.mining.units import (
    ArgumentUnit,
    UnitExtraction,
    UnitMode,
    UnitPolicy,
    proposal_units,
    speech_units,
    summary_name,
    summary_units,
)
from argfaith.qbaf import DEFAULT_SPEECH_BASE_SCORE, QBAF

__all__ = [
    "MiningPlan",
    "MiningStats",
    "MiningResult",
    "PairCheckpoint",
    "plan_debate",
    "plan_summary",
    "run_plan",
    "mine_debate",
    "mine_summary",
    "run_fingerprint",
]

CheapClassifierFactory = Callable[[], RelationClassifier]


@dataclass(frozen=True)
class MiningPlan:
    """Everything decided before any relation classification: units and candidate pairs."""

    kind: Literal["debate", "summary"]
    name: str
    topic: str | None
    proposals: tuple[ArgumentUnit, ...]
    speech: tuple[ArgumentUnit, ...]
    unit_method: str
    unit_policy: UnitPolicy
    dropped_units: Mapping[str, int]
    n_all_candidates: int
    pairs: tuple[CandidatePair, ...]
    strategy: str
    source: str | None = None
    #: Document provenance carried into the QBAF's metadata (debate id, summary variant, ...).
    info: Mapping[str, Any] = field(default_factory=dict)
    #: Speech texts by intervention id (debates only): context for context-aware classifiers.
    contexts: Mapping[str, str] = field(default_factory=dict)

    @property
    def units(self) -> dict[str, ArgumentUnit]:
        return {u.id: u for u in (*self.proposals, *self.speech)}

    def queries(self, pairs: Sequence[CandidatePair] | None = None) -> list[PairQuery]:
        """The classifier's inputs for ``pairs`` (default: all planned pairs)."""
        return to_queries(self.pairs if pairs is None else pairs, self.units, self.topic, self.contexts)

    def describe(self) -> dict[str, Any]:
        """JSON-ready summary of the plan (for provenance and dry runs)."""
        return {
            "kind": self.kind,
            "name": self.name,
            "topic": self.topic,
            "units": self.unit_method,
            "unit_policy": asdict(self.unit_policy),
            "dropped_units": dict(self.dropped_units),
            "n_proposals": len(self.proposals),
            "n_speech": len(self.speech),
            "n_candidates_all": self.n_all_candidates,
            "n_candidates": len(self.pairs),
            "candidates": self.strategy,
        }


@dataclass(frozen=True)
class MiningStats:
    """Counts and timing of one mining run."""

    n_pairs: int
    n_classified: int  # sent to the classifier in this run
    n_resumed: int  # taken from the checkpoint
    labels: Mapping[str, int]
    n_fallback: int
    seconds: float
    classifier: str
    usage: Mapping[str, Any] = field(default_factory=dict)
    n_unanswered: int = 0  # fallback labels standing in for a refusal or failed request (not checkpointed)


@dataclass(frozen=True)
class MiningResult:
    """The mined QBAF with its plan, every classified relation and run statistics."""

    qbaf: QBAF
    plan: MiningPlan
    relations: tuple[Relation, ...]
    stats: MiningStats


# ---------------------------------------------------------------------------- planning
def _prune(
    plan_pairs: list[CandidatePair],
    units: dict[str, ArgumentUnit],
    topic: str | None,
    candidates: str | Pruner | None,
    cheap_classifier: CheapClassifierFactory | None,
    seed: int,
    contexts: Mapping[str, str] | None = None,
) -> tuple[tuple[CandidatePair, ...], str]:
    pruner = parse_candidates(candidates, cheap_classifier=cheap_classifier, seed=seed)
    # A cascade's cheap model sees the queries mining will send (debate context included).
    res = pruner.prune(plan_pairs, units, topic=topic, contexts=contexts)
    return res.kept, pruner.spec


def plan_debate(
    debate: Debate,
    *,
    units: UnitMode = "auto",
    candidates: str | Pruner | None = "all",
    segmenter: str | Segmenter | None = None,
    policy: UnitPolicy | None = None,
    cheap_classifier: CheapClassifierFactory | None = None,
    seed: int = 0,
) -> MiningPlan:
    """Units and candidate pairs of a debate's source QBAF (temporal constraint; no model calls
    except a cascade's cheap classifier)."""
    props = proposal_units(debate)
    ext = speech_units(debate, units=units, segmenter=segmenter, policy=policy)
    contexts = MappingProxyType({iv.id: iv.text for iv in debate.interventions})
    return _plan(
        "debate", debate.id, debate.topic, props, ext, source_candidates(ext.units, props),
        candidates=candidates, cheap_classifier=cheap_classifier, seed=seed, source=debate.source_path,
        info={"debate_id": debate.id}, contexts=contexts,
    )


def _plan(
    kind: str,
    name: str,
    topic: str,
    props: tuple[ArgumentUnit, ...],
    ext: UnitExtraction,
    allp: list[CandidatePair],
    *,
    candidates: str | Pruner | None,
    cheap_classifier: CheapClassifierFactory | None,
    seed: int,
    source: Any,
    info: dict[str, Any],
    contexts: Mapping[str, str] | None = None,
) -> MiningPlan:
    """Prune the candidate pairs and assemble the plan (shared by debates and summaries)."""
    byid = {u.id: u for u in (*props, *ext.units)}
    kept, spec = _prune(allp, byid, topic, candidates, cheap_classifier, seed, contexts)
    return MiningPlan(
        kind=kind,
        name=name,
        topic=topic,
        proposals=props,
        speech=ext.units,
        unit_method=ext.method,
        unit_policy=ext.policy,
        dropped_units=ext.dropped,
        n_all_candidates=len(allp),
        pairs=kept,
        strategy=spec,
        source=source,
        info=info,
        contexts=contexts if contexts is not None else {},
    )


def plan_summary(
    summary: Summary,
    debate: Debate,
    *,
    candidates: str | Pruner | None = "all",
    segmenter: str | Segmenter | None = None,
    policy: UnitPolicy | None = None,
    cheap_classifier: CheapClassifierFactory | None = None,
    seed: int = 0,
    name: str | None = None,
    pairs: SummaryPairs = DEFAULT_SUMMARY_PAIRS,
) -> MiningPlan:
    """Units and candidate pairs of a summary's QBAF: its sentences, the debate's proposals, and
    the pairs of the summary candidate policy ``pairs`` (:func:`~argfaith.mining.candidates.summary_candidates`:
    ``all`` ordered pairs — the paper —, ``ordered`` by text position, or ``proposals`` only)."""
    if summary.debate_id is not None and summary.debate_id != debate.id:
        raise ConfigurationError(
            f"summary {summary.source_path or summary_name(summary)!r} is of debate {summary.debate_id!r}, not {debate.id!r}"
        )
    props = proposal_units(debate)
    ext = summary_units(summary, segmenter=segmenter, policy=policy, name=name)
    return _plan(
        "summary", name or summary_name(summary), debate.topic, props, ext, summary_candidates(ext.units, props, pairs),
        candidates=candidates, cheap_classifier=cheap_classifier, seed=seed, source=summary.source_path,
        info={
            "debate_id": debate.id,
            "summary_variant": summary.variant,
            "summary_model": summary.model,
            "summary_pairs": pairs,
            **({"missing_text": True} if summary.metadata.get("missing_text") else {}),
        },
    )


# ---------------------------------------------------------------------------- checkpoint
def run_fingerprint(plan: MiningPlan, classifier: RelationClassifier) -> str:
    """Hash of what determines the labels: classifier identity, topic and every argument text.

    The candidate strategy is not part of it: a label stays valid whichever pairs are selected.
    """
    h = hashlib.sha256()
    ident = {
        "classifier": classifier.name,
        "classifier_fingerprint": getattr(classifier, "fingerprint", None),
        "topic": plan.topic,
    }
    h.update(json.dumps(ident, sort_keys=True, default=str).encode())
    for u in sorted((*plan.proposals, *plan.speech), key=lambda u: u.id):
        h.update(b"\x00" + u.id.encode() + b"\x01" + u.text.encode())
    return h.hexdigest()


#: Order of the class probabilities ``p`` stored in checkpoint rows.
LABELS_ORDER = (ATTACK, SUPPORT, NO_RELATION)


def relation_distribution_info(plan: MiningPlan, done: Mapping[tuple[str, str], Prediction], fixed_at: float) -> dict[str, Any] | None:
    """The QBAF metadata of issue 23's error bars: every planned pair whose classifier gave class
    probabilities with a top class below ``fixed_at``, as ``[source, target, p_attack, p_support]``
    (:mod:`argfaith.metrics.uncertainty`). None when the classifier gives no probabilities (recorded
    labels, Claude without repeated answers): the labels are then taken as certain."""
    rows = []
    any_probs = False
    for p in plan.pairs:
        pr = done[(p.source_id, p.target_id)]
        probs = pr.probabilities
        if not probs:
            continue
        any_probs = True
        pa, ps = float(probs.get(ATTACK, 0.0)), float(probs.get(SUPPORT, 0.0))
        if max(pa, ps, 1.0 - pa - ps) >= fixed_at:
            continue
        rows.append([p.source_id, p.target_id, round(pa, 5), round(ps, 5)])
    if not any_probs:
        return None
    return {"pairs": rows, "fixed_at": fixed_at}


class PairCheckpoint:
    """Append-only JSONL record of finished pairs (see the module docstring)."""

    VERSION = 1

    def __init__(self, path: str | Path, fingerprint: str, *, classifier: str = "", restart: bool = False) -> None:
        self.path = Path(path)
        self.fingerprint = fingerprint
        self.classifier = classifier
        self.done: dict[tuple[str, str], Prediction] = {}
        if restart and self.path.exists():
            self.path.unlink()
        if self.path.exists():
            self._load()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            header = {"argfaith_checkpoint": self.VERSION, "fingerprint": fingerprint, "classifier": classifier}
            self._write_lines([json.dumps(header)])

    def _load(self) -> None:
        p = self.path
        data = p.read_bytes()
        if data and not data.endswith(b"\n"):
            # A torn last line (process killed mid-write): drop it so appends stay well-formed.
            cut = data.rfind(b"\n") + 1
            with open(p, "r+b") as fh:
                fh.truncate(cut)
            data = data[:cut]
        from argfaith.textio import read_text

        lines = read_text(p, what="mining checkpoint").splitlines()  # undecodable bytes: file and line
        if not lines:
            self._write_lines(
                [json.dumps({"argfaith_checkpoint": self.VERSION, "fingerprint": self.fingerprint, "classifier": self.classifier})]
            )
            return
        try:
            header = json.loads(lines[0])
        except json.JSONDecodeError:
            header = None
        if not isinstance(header, dict) or "argfaith_checkpoint" not in header:
            raise DataFormatError(f"{p}:1: not an argfaith mining checkpoint (no header line)")
        if header.get("fingerprint") != self.fingerprint:
            raise ConfigurationError(
                f"checkpoint {p} belongs to a different run (classifier {header.get('classifier')!r} or other "
                "argument texts); delete it, choose another path, or restart (--restart)"
            )
        for i, raw in enumerate(lines[1:], start=2):
            try:
                row = json.loads(raw)
                label = normalise_label(row["label"])
                if label is None:
                    raise ValueError(row["label"])
                key = (row["source_id"], row["target_id"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
                raise DataFormatError(f"{p}:{i}: malformed checkpoint row ({e})") from None
            probs = row.get("p")
            self.done[key] = Prediction(label, confidence=row.get("confidence"), fallback=bool(row.get("fallback", False)),
                                        probabilities=dict(zip(LABELS_ORDER, map(float, probs))) if probs else None)

    def _write_lines(self, lines: Sequence[str]) -> None:
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write("".join(x + "\n" for x in lines))
            fh.flush()
            os.fsync(fh.fileno())

    def append(self, pairs: Sequence[CandidatePair], preds: Sequence[Prediction]) -> None:
        """Record finished pairs (one fsync per call); a prediction that is not ``final`` (a
        refusal, a failed request) is not recorded, so a resumed run asks for it again."""
        rows = []
        for p, pr in zip(pairs, preds, strict=True):
            if not pr.final:
                continue
            row: dict[str, Any] = {"source_id": p.source_id, "target_id": p.target_id, "label": pr.label}
            if pr.confidence is not None:
                row["confidence"] = round(float(pr.confidence), 6)
            if pr.fallback:
                row["fallback"] = True
            if pr.probabilities:
                row["p"] = [round(float(pr.probabilities.get(k, 0.0)), 6) for k in LABELS_ORDER]
            rows.append(json.dumps(row, ensure_ascii=False))
            self.done[(p.source_id, p.target_id)] = pr
        if rows:
            self._write_lines(rows)


# ---------------------------------------------------------------------------- running
def _chunks_by_source(pairs: Sequence[CandidatePair], size: int | None) -> list[list[CandidatePair]]:
    """Chunks of about ``size`` pairs that never split one source's targets (so multi-target
    classifiers keep one request per source)."""
    if not pairs:
        return []
    if size is None or size <= 0:
        return [list(pairs)]
    out: list[list[CandidatePair]] = []
    cur: list[CandidatePair] = []
    for i, p in enumerate(pairs):
        if cur and len(cur) >= size and p.source_id != pairs[i - 1].source_id:
            out.append(cur)
            cur = []
        cur.append(p)
    if cur:
        out.append(cur)
    return out


def run_plan(
    plan: MiningPlan,
    classifier: RelationClassifier,
    *,
    tau: float = DEFAULT_SPEECH_BASE_SCORE,
    checkpoint: str | Path | None = None,
    restart: bool = False,
    progress: ProgressCallback | None = None,
    chunk_size: int | None = 2000,
    info: Mapping[str, Any] | None = None,
) -> MiningResult:
    """Classify the planned pairs (resuming from ``checkpoint``) and build the QBAF.

    Parameters
    ----------
    plan
        From :func:`plan_debate` / :func:`plan_summary`.
    classifier
        Any :class:`~argfaith.mining.classifiers.base.RelationClassifier`. A trainable offline
        classifier whose deployment prior nobody chose runs with the all-pairs prior
        (:func:`~argfaith.mining.classifiers.prior.mining_classifier`).
    tau
        Base score of speech arguments (paper default 0.2).
    checkpoint, restart
        JSONL checkpoint of finished pairs; ``restart`` discards an existing one.
    progress
        ``progress(done, total)`` over the planned pairs (resumed pairs count as done).
    chunk_size
        Pairs per classifier call (whole sources are kept together); ``None`` = one call.
    info
        Extra provenance merged into the QBAF's ``metadata``.

    Raises
    ------
    KeyboardInterrupt
        Propagated after the finished chunks are saved; a rerun resumes from them.
    """
    if not 0.0 <= tau <= 1.0:
        raise ConfigurationError(f"tau must be in [0, 1], got {tau}")
    # Class-balanced offline models over-predict relations among all candidate pairs (a prior
    # shift): unless the user chose a prior, they use the all-pairs prior here (prior.py).
    classifier = mining_classifier(classifier)
    t0 = time.perf_counter()
    total = len(plan.pairs)
    ckpt = (
        PairCheckpoint(checkpoint, run_fingerprint(plan, classifier), classifier=classifier.name, restart=restart)
        if checkpoint is not None
        else None
    )
    done: dict[tuple[str, str], Prediction] = dict(ckpt.done) if ckpt else {}
    planned = {(p.source_id, p.target_id) for p in plan.pairs}
    n_resumed = sum(1 for k in done if k in planned)
    pending = [p for p in plan.pairs if (p.source_id, p.target_id) not in done]
    n_done = total - len(pending)
    if progress is not None:
        progress(n_done, total)
    units = plan.units
    check = getattr(classifier, "check_requests", None)
    if check is not None and pending:  # e.g. a missing API key: say what the whole run needs, up front
        check(to_queries(pending, units, plan.topic, plan.contexts))
    for chunk in _chunks_by_source(pending, chunk_size):
        base = n_done

        def inner(d: int, _t: int, base: int = base) -> None:
            if progress is not None:
                progress(base + d, total)

        preds = classifier.classify(to_queries(chunk, units, plan.topic, plan.contexts), progress=inner)
        if len(preds) != len(chunk):
            raise ConfigurationError(
                f"classifier {classifier.name!r} returned {len(preds)} predictions for {len(chunk)} pairs"
            )
        if ckpt is not None:
            ckpt.append(chunk, preds)
        for p, pr in zip(chunk, preds, strict=True):
            done[(p.source_id, p.target_id)] = pr
        n_done += len(chunk)
        if progress is not None:
            progress(n_done, total)
    relations = tuple(
        Relation(p.source_id, p.target_id, done[(p.source_id, p.target_id)].label, done[(p.source_id, p.target_id)].confidence)
        for p in plan.pairs
    )
    labels = Counter(r.label for r in relations)
    n_fallback = sum(1 for p in plan.pairs if done[(p.source_id, p.target_id)].fallback)
    n_unanswered = sum(1 for p in plan.pairs if not done[(p.source_id, p.target_id)].final)
    usage = classifier.usage
    stats = MiningStats(
        n_pairs=total,
        n_classified=len(pending),
        n_resumed=n_resumed,
        labels=MappingProxyType({lbl: labels.get(lbl, 0) for lbl in LABELS}),
        n_fallback=n_fallback,
        seconds=time.perf_counter() - t0,
        classifier=classifier.name,
        usage=MappingProxyType(asdict(usage) if usage is not None else {}),
        n_unanswered=n_unanswered,
    )
    meta: dict[str, Any] = {
        "miner": "argfaith.mining",
        **plan.describe(),
        "source": plan.source,
        **plan.info,
        "classifier": classifier.name,
        **({"classifier_prior": classifier.prior.describe()} if getattr(classifier, "prior", None) is not None else {}),
        "tau": tau,
        "counts": {
            "proposals": len(plan.proposals),
            "speech_arguments": len(plan.speech),
            "candidate_pairs_all": plan.n_all_candidates,
            "candidate_pairs_classified": total,
            "attacks": labels.get(ATTACK, 0),
            "supports": labels.get(SUPPORT, 0),
            "no_relation": labels.get(NO_RELATION, 0),
            "fallback": n_fallback,
            **({"unanswered": n_unanswered} if n_unanswered else {}),
        },
    }
    dist = relation_distribution_info(plan, done, 0.99)
    if dist is not None:
        meta["relation_distribution"] = dist
    if info:
        meta.update(info)
    build = build_source_qbaf if plan.kind == "debate" else build_summary_qbaf
    q = build(plan.proposals, plan.speech, relations, tau=tau, name=plan.name, info=meta)
    return MiningResult(q, plan, relations, stats)


def mine_debate(
    debate: Debate,
    classifier: RelationClassifier,
    *,
    units: UnitMode = "auto",
    candidates: str | Pruner | None = "all",
    segmenter: str | Segmenter | None = None,
    policy: UnitPolicy | None = None,
    cheap_classifier: CheapClassifierFactory | None = None,
    tau: float = DEFAULT_SPEECH_BASE_SCORE,
    checkpoint: str | Path | None = None,
    restart: bool = False,
    progress: ProgressCallback | None = None,
    chunk_size: int | None = 2000,
    seed: int = 0,
    info: Mapping[str, Any] | None = None,
) -> MiningResult:
    """Mine a debate's source QBAF (PAPER.md §7): :func:`plan_debate` then :func:`run_plan`."""
    plan = plan_debate(
        debate, units=units, candidates=candidates, segmenter=segmenter, policy=policy,
        cheap_classifier=cheap_classifier, seed=seed,
    )
    return run_plan(
        plan, classifier, tau=tau, checkpoint=checkpoint, restart=restart, progress=progress,
        chunk_size=chunk_size, info=info,
    )


def mine_summary(
    summary: Summary,
    debate: Debate,
    classifier: RelationClassifier,
    *,
    candidates: str | Pruner | None = "all",
    segmenter: str | Segmenter | None = None,
    policy: UnitPolicy | None = None,
    cheap_classifier: CheapClassifierFactory | None = None,
    tau: float = DEFAULT_SPEECH_BASE_SCORE,
    checkpoint: str | Path | None = None,
    restart: bool = False,
    progress: ProgressCallback | None = None,
    chunk_size: int | None = 2000,
    seed: int = 0,
    name: str | None = None,
    info: Mapping[str, Any] | None = None,
    pairs: SummaryPairs = DEFAULT_SUMMARY_PAIRS,
) -> MiningResult:
    """Mine a summary's QBAF anchored on the debate's proposals: :func:`plan_summary` then
    :func:`run_plan` (``pairs``: the summary candidate policy)."""
    plan = plan_summary(
        summary, debate, candidates=candidates, segmenter=segmenter, policy=policy,
        cheap_classifier=cheap_classifier, seed=seed, name=name, pairs=pairs,
    )
    return run_plan(
        plan, classifier, tau=tau, checkpoint=checkpoint, restart=restart, progress=progress,
        chunk_size=chunk_size, info=info,
    )
