"""Running a study: for every debate with summaries, mine the source QBAF once, mine one QBAF per
summary, evaluate every summary at every τ, and write per-item outputs — resumably, optionally in
parallel (one debate per worker process).

Output folder (``OUT``)::

    study.json                              the manifest (config, classifier, per-item status)
    mined/<classifier tag>/<debate>/        mined QBAFs + their pair checkpoints (resumable)
        source.json  source.pairs.jsonl  <variant>.json  <variant>.pairs.jsonl
    reports/<debate>/source.json            the source QBAF's own metrics at every τ
    reports/<debate>/<variant>.json|.html   per-summary evaluation (all τ; HTML offline)
    rows/<debate>/<variant>.json            the item's table row, Table-4 and Table-6 rows + key
    table.csv table.json table3.md table4.csv table4.md sensitivity.csv sensitivity.md
    index.html  plots/*.png|svg             (see :mod:`argfaith.study.outputs`)

Resuming (see :mod:`argfaith.study.config` for the keys): an item whose row file carries its
current key is not touched; a mined QBAF whose recorded key matches is reused; partial mining
resumes from the pair checkpoint. Labels standing in for refused or failed Claude requests are not
final: a QBAF holding any is mined again, and a row built on one (``"final": false``) is redone, by
the next run, which asks only for those pairs. The classifier tag in ``mined/`` is derived from its
fingerprint, so a retrained classifier mines into a fresh folder and old labels are never reused.
Per-item failures are recorded (status ``failed`` + message) and the run goes on.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from argfaith.errors import ConfigurationError, DataFormatError
from argfaith.mining.classifiers.base import RelationClassifier
from argfaith.study.config import SLOW_DRAWS, StudyConfig, digest_json, resolve_baselines
from argfaith.study.corpus import DebateItem, StudyCorpus, SummaryFile, debate_digest, discover_study
from argfaith.study.fingerprint import FingerprintedClassifier, classifier_fingerprint, fingerprint_tag
from argfaith.study.store import Manifest, StudyPaths, atomic_write_json, atomic_write_text, read_json_file

__all__ = [
    "StudyPaths",
    "DebateTask",
    "ItemOutcome",
    "DebateOutcome",
    "StudyResult",
    "PreparedStudy",
    "EventCallback",
    "prepare_study",
    "process_debate",
    "process_source",
    "process_pending_summary",
    "source_failed_outcome",
    "debate_baselines",
    "SourceResult",
    "run_study",
    "source_text",
    "run_in_workers",
    "worker_emit",
    "worker_classifier",
]

#: Progress events: ``("start", n_total, n_done)``, ``("debate", debate, n_pending)``,
#: ``("phase", debate, text)``, ``("pairs", debate, label, done, total)``,
#: ``("item", debate, variant, status, seconds, item_key, note)``, ``("debate_done", debate)``.
EventCallback = Callable[[tuple[Any, ...]], None]


def _noop(_event: tuple[Any, ...]) -> None:
    return None


# ---------------------------------------------------------------------------- tasks and outcomes
@dataclass(frozen=True)
class DebateTask:
    """One debate's pending work (picklable: sent to worker processes)."""

    debate: DebateItem
    config: StudyConfig
    classifier_spec: str
    classifier_fingerprint: str
    tag: str
    baselines: tuple[str, ...]
    baseline_notes: tuple[str, ...]
    debate_digest: str
    source_key: str
    #: (summary, its mining key, its item key) for every summary still to do.
    pending: tuple[tuple[SummaryFile, str, str], ...]


@dataclass(frozen=True)
class ItemOutcome:
    """What happened to one summary in this run."""

    item_id: str
    debate_id: str
    variant: str
    status: str  # "ok" | "skipped" | "failed"
    key: str
    note: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class DebateOutcome:
    """One debate's results: its source QBAF's provenance and the outcome of every pending summary."""

    debate_id: str
    items: tuple[ItemOutcome, ...]
    source: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    seconds: float = 0.0
    #: The source step's share of ``seconds`` (loading the debate, mining, its report).
    source_seconds: float = 0.0


@dataclass(frozen=True)
class StudyResult:
    """The outcome of :func:`run_study`.

    ``rows`` holds every summary file of the corpus (evaluated, skipped or failed), in debate /
    variant order; ``n_reused`` counts items finished by an earlier run and not redone.
    """

    out: Path
    rows: tuple[dict[str, Any], ...]
    n_ok: int
    n_skipped: int
    n_failed: int
    n_reused: int
    n_done_now: int
    failed: tuple[tuple[str, str], ...]
    skipped: tuple[tuple[str, str], ...]
    classifier: str
    classifier_fingerprint: str
    seconds: float
    outputs: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


# ---------------------------------------------------------------------------- helpers
def source_text(debate: Any) -> str:
    """The debate's text for the text baselines: every intervention (English), in order."""
    return "\n\n".join(i.text for i in debate.interventions)


def _checkpoint_is_stale(path: Path, fingerprint: str) -> bool:
    """True when ``path`` is a checkpoint of another run (other classifier or texts): it must be
    restarted rather than refused."""
    if not path.exists():
        return False
    try:
        with open(path, encoding="utf-8") as fh:
            first = fh.readline()
        import json

        header = json.loads(first) if first.strip() else {}
    except (OSError, ValueError):
        return True
    return not isinstance(header, dict) or header.get("fingerprint") != fingerprint


def _make_classifier(spec: str) -> RelationClassifier:
    from argfaith.mining.classifiers.registry import make_classifier

    return make_classifier(spec)


def _for_mining(classifier: RelationClassifier) -> RelationClassifier:
    """The classifier exactly as mining will run it (offline models get the all-pairs class prior
    unless one was chosen), so that its fingerprint describes the labels the study stores."""
    from argfaith.mining.classifiers.prior import mining_classifier

    return mining_classifier(classifier)


def _cheap_factory(config: StudyConfig) -> Callable[[], RelationClassifier] | None:
    if not config.candidates.strip().lower().startswith("cascade"):
        return None
    return lambda: _make_classifier("features")


def _mine(plan: Any, clf: RelationClassifier, ckpt: Path, key: str, task: DebateTask, emit: EventCallback, label: str, document: str) -> Any:
    from argfaith.mining.pipeline import run_fingerprint, run_plan

    restart = _checkpoint_is_stale(ckpt, run_fingerprint(plan, clf))
    did = task.debate.debate_id

    def progress(done: int, total: int) -> None:
        emit(("pairs", did, label, done, total))

    return run_plan(
        plan, clf, tau=task.config.primary_tau, checkpoint=ckpt, restart=restart, progress=progress,
        chunk_size=task.config.chunk_size,
        info={"study_key": key, "classifier_spec": task.classifier_spec, "classifier_fingerprint": task.classifier_fingerprint,
              "document": document, "checkpoint_restarted": restart},
    )


def _load_if_current(path: Path, key: str) -> Any:
    """The QBAF saved at ``path`` if it was mined under ``key`` and is complete, else None.

    A QBAF with ``unanswered`` pairs (fallback labels standing in for refused or failed requests,
    which the pair checkpoint does not keep) is mined again: the checkpoint supplies every final
    label and only the unanswered pairs are asked again.
    """
    if not path.exists():
        return None
    from argfaith.qbaf import QBAFError, load_qbaf

    try:
        q = load_qbaf(path)
    except QBAFError:
        return None  # a damaged cache file is re-mined, not trusted
    if (q.info.get("counts") or {}).get("unanswered"):
        return None
    return q if q.info.get("study_key") == key else None


def _source_report_key(source_key: str, config: StudyConfig) -> str:
    # The semantics enters the key only when it is not DF-QuAD, so earlier runs' reports stay valid.
    extra = [config.semantics[0]] if config.semantics[0] != "dfquad" else []
    return digest_json([source_key, list(config.taus), *extra])


def _source_side_summary(q: Any, taus: Sequence[float], config: StudyConfig) -> dict[str, Any]:
    from argfaith.metrics.evaluate import analyse_side

    per_tau = {}
    for t in taus:
        side = analyse_side(q, tau=t, method=config.solver, max_iter=config.max_iter, tol=config.tol, include_qbaf=False,
                            semantics=config.semantics[0])
        per_tau[f"{t:g}"] = side.report.model_dump(mode="json")
    return per_tau


def _explanations(q: Any, qs: Any, report: Any, config: StudyConfig) -> list[Any]:
    """Explanations of the ``explain_top`` proposals that moved most (removal influence)."""
    from argfaith.metrics.explain import explain_proposals
    from argfaith.metrics.report import ExplanationReport, InfluenceReport, SideExplanationReport

    if config.explain_top <= 0:
        return []
    items = list(report.pairwise.per_proposal.items())
    order = sorted(range(len(items)), key=lambda i: (-abs(items[i][1].difference), i))
    props = [items[i][0] for i in order[: config.explain_top]]
    if not props:
        return []
    t = report.settings.tau
    qa = q.with_speech_base_score(t) if t is not None else q
    qb = qs.with_speech_base_score(t) if t is not None else qs
    exps = explain_proposals(qa, qb, props, method=config.solver, max_iter=config.max_iter, tol=config.tol, limit=config.explain_limit,
                             semantics=config.semantics[0])

    def side(s: Any) -> SideExplanationReport:
        return SideExplanationReport(
            sigma=s.sigma, n_arguments=s.n_arguments, n_attackers=s.n_attackers, n_supporters=s.n_supporters,
            arguments=[
                InfluenceReport(id=a.id, influence=a.influence, relation=a.relation, pro=a.pro, con=a.con, strength=a.strength,
                                text=a.text, speaker=a.speaker, aligned=list(a.aligned))
                for a in s.arguments
            ],
        )

    return [
        ExplanationReport(proposal=e.proposal, text=e.text, sigma_source=e.sigma_source, sigma_summary=e.sigma_summary,
                          difference=e.difference, source=side(e.source), summary=side(e.summary))
        for e in exps
    ]


class _DebateBaselines:
    """The text baselines of one debate's summaries: the transcript is tokenised (ROUGE) and
    encoded (BERTScore) once, lazily (:mod:`argfaith.study.baselines`)."""

    def __init__(self, src_text: str, task: DebateTask) -> None:
        self.src_text = src_text
        self.task = task
        self._rouge: Any = None
        self._bert: Any = None

    def __call__(self, summary_text: str) -> Any:
        from argfaith.metrics.report import RougeReport, TextBaselines
        from argfaith.metrics.text import nli_score
        from argfaith.study.baselines import ReferenceBERTScore, ReferenceRouge

        task, cfg = self.task, self.task.config
        if not task.baselines:
            return None
        kw: dict[str, Any] = {}
        if "rouge" in task.baselines:
            if self._rouge is None:
                self._rouge = ReferenceRouge(self.src_text)
            r = self._rouge.score(summary_text)
            for k in ("rouge1", "rouge2", "rougeL"):
                v = getattr(r, k)
                kw[k] = RougeReport(precision=v.precision, recall=v.recall, fmeasure=v.fmeasure)
        if "bertscore" in task.baselines:
            if self._bert is None:
                self._bert = ReferenceBERTScore(self.src_text, model=cfg.bertscore_model)
            b = self._bert.score(summary_text)
            kw.update(bertscore_precision=b.precision, bertscore_recall=b.recall, bertscore_f1=b.f1,
                      bertscore_model=Path(b.model).name)
        if "nli" in task.baselines:
            n = nli_score(self.src_text, summary_text, model=cfg.nli_model)
            kw.update(nli=n.score, nli_model=Path(n.model).name)
        notes = [*task.baseline_notes, "reference: the debate's English transcript (all interventions, in order)"]
        return TextBaselines(**kw, notes=notes)


def _write_row(paths: StudyPaths, sf: SummaryFile, key: str, status: str, row: dict[str, Any], **extra: Any) -> None:
    atomic_write_json(
        paths.row(sf.debate_id or "?", sf.variant),
        {"argfaith_study_row": 1, "item": sf.item_id, "key": key, "status": status, "summary_file": str(sf.path), "row": row, **extra},
    )


# ---------------------------------------------------------------------------- one summary
def _process_summary(
    task: DebateTask, debate: Any, q: Any, baselines: _DebateBaselines, source_pairs: int | None, sf: SummaryFile,
    mining_key: str, item_key: str, clf: RelationClassifier, emit: EventCallback,
) -> ItemOutcome:
    from argfaith.datasets.documents import load_summary
    from argfaith.metrics.evaluate import evaluate_many
    from argfaith.metrics.render import render
    from argfaith.metrics.report import EvaluationSuite
    from argfaith.mining.pipeline import plan_summary
    from argfaith.qbaf import save_qbaf
    from argfaith.study.rows import semantics_rows, sensitivity_rows, skipped_row, strength_moves, summary_row

    cfg = task.config
    paths = StudyPaths(cfg.out)
    did = task.debate.debate_id
    t0 = time.perf_counter()
    try:
        saved = read_json_file(paths.row(did, sf.variant))
    except DataFormatError:
        saved = None  # a damaged row is redone
    if (isinstance(saved, dict) and saved.get("key") == item_key and saved.get("status") in ("ok", "skipped")
            and saved.get("final", True)):
        # Finished by an earlier attempt (a retried task whose worker died after writing): never redone
        # (unless it was built on stand-in labels for refused or failed requests: not final).
        return ItemOutcome(sf.item_id, did, sf.variant, saved["status"], item_key, (saved.get("row") or {}).get("note"), 0.0)
    summ = load_summary(sf.path, missing_text="empty")
    if summ.metadata.get("missing_text") or not summ.text.strip():
        note = "no summary text in the file (\"summary\": null)" if summ.metadata.get("missing_text") else "empty summary text"
        _write_row(paths, sf, item_key, "skipped", skipped_row(sf, cfg.taus, "skipped", note))
        return ItemOutcome(sf.item_id, did, sf.variant, "skipped", item_key, note, time.perf_counter() - t0)
    emit(("phase", did, f"mining {sf.variant}"))
    qpath = paths.summary_qbaf(task.tag, did, sf.variant)
    qs = _load_if_current(qpath, mining_key)
    summary_pairs = None
    if qs is None:
        plan = plan_summary(summ, debate, candidates=cfg.candidates, segmenter=cfg.segmenter,
                            cheap_classifier=_cheap_factory(cfg), seed=cfg.seed, pairs=cfg.summary_pairs)  # type: ignore[arg-type]
        res = _mine(plan, clf, paths.summary_checkpoint(task.tag, did, sf.variant), mining_key, task, emit, sf.variant, str(sf.path))
        qs = res.qbaf
        save_qbaf(qs, qpath)
    summary_pairs = (qs.info.get("counts") or {}).get("candidate_pairs_classified")
    t_mined = time.perf_counter()
    emit(("phase", did, f"evaluating {sf.variant}"))
    # The primary τ first: report renderers show the source column and the settings of the first.
    taus = [cfg.primary_tau, *(t for t in cfg.taus if t != cfg.primary_tau)]
    suite = evaluate_many(
        q, [qs], taus=taus, epsilon=cfg.epsilon, tolerance=cfg.tolerance, explain=False, method=cfg.solver,
        max_iter=cfg.max_iter, tol=cfg.tol, include_qbafs=True,
        source_path=str(paths.source_qbaf(task.tag, did)), summary_paths=[str(sf.path)], semantics=list(cfg.semantics),
        draws=cfg.draws, slow_draws=SLOW_DRAWS,
    )
    main = next(r for r in suite.reports if r.settings.tau == cfg.primary_tau)
    exps = _explanations(q, qs, main, cfg)
    t_eval = time.perf_counter()
    if task.baselines:
        emit(("phase", did, f"text baselines {sf.variant}"))
    tb = baselines(summ.text)
    t_base = time.perf_counter()
    reports = [
        r.model_copy(update={
            # The source QBAF (often tens of thousands of edges) is saved once under mined/; the
            # per-summary report keeps only the summary's graph.
            "source": r.source.model_copy(update={"qbaf": None}),
            "text_baselines": tb,
            "explanations": exps if r is main else [],
        })
        for r in suite.reports
    ]
    full = EvaluationSuite(reports=reports, sensitivity=suite.sensitivity, semantics_sweep=suite.semantics_sweep, p_better=suite.p_better)
    rel_json = paths.report(did, sf.variant, ".json")
    atomic_write_text(rel_json, full.to_json())
    report_link = f"reports/{did}/{sf.variant}.json"
    if cfg.html:
        atomic_write_text(paths.report(did, sf.variant, ".html"), render(full, "html"))
        report_link = f"reports/{did}/{sf.variant}.html"
    timings = {"mining": t_mined - t0, "evaluation": t_eval - t_mined, "baselines": t_base - t_eval}
    main_full = next(r for r in reports if r.settings.tau == cfg.primary_tau)
    unanswered = sum(int((x.info.get("counts") or {}).get("unanswered") or 0) for x in (q, qs))
    from argfaith.metrics.degeneracy import is_debate_warning

    # Warnings about the debate's QBAF are the same for every summary: kept apart, shown once per debate.
    debate_note = "; ".join(w for w in main_full.warnings if is_debate_warning(w)) or None
    warnings = [w for w in main_full.warnings if not is_debate_warning(w)] + (
        [f"{unanswered} pair(s) got a stand-in label (the model refused or the request failed): rerun to ask for them again"]
        if unanswered else [])
    note = "; ".join(warnings) or None
    row = summary_row(
        sf, full, cfg.taus, cfg.primary_tau, units=(q.info.get("units")), text_baselines=tb,
        source_pairs=source_pairs, summary_pairs=summary_pairs, timings=timings, report=report_link, note=note,
        debate_note=debate_note, intervals=cfg.draws > 0,
    )
    _write_row(
        paths, sf, item_key, "ok", row,
        moves=strength_moves(sf, main_full, cfg.top_moves),
        sensitivity=sensitivity_rows(sf, full),
        semantics=semantics_rows(sf, full),
        strengths={"source": main_full.source.strengths, "summary": main_full.summary.strengths},
        final=not unanswered,  # a row built on stand-in labels is redone by the next run
    )
    return ItemOutcome(sf.item_id, did, sf.variant, "ok", item_key, note, time.perf_counter() - t0)


# ---------------------------------------------------------------------------- one debate
@dataclass(frozen=True)
class SourceResult:
    """A debate's source step: the mined (or reused) source QBAF and its provenance, or the error
    that fails every pending summary of the debate. Picklable: a distributed executor hands it
    from the source task to the debate's summary tasks."""

    debate_id: str
    info: dict[str, Any]
    qbaf: Any = None
    error: str | None = None
    seconds: float = 0.0


def process_source(task: DebateTask, classifier: RelationClassifier, emit: EventCallback = _noop) -> tuple[SourceResult, Any]:
    """Load the debate and mine (or reuse) its source QBAF; write its source report.

    Returns the :class:`SourceResult` and the loaded debate (None when loading failed). Errors are
    returned in ``SourceResult.error``; ``KeyboardInterrupt`` propagates (finished chunks are saved).
    """
    from argfaith.datasets.documents import load_debate
    from argfaith.mining.pipeline import plan_debate
    from argfaith.qbaf import save_qbaf

    t0 = time.perf_counter()
    cfg = task.config
    paths = StudyPaths(cfg.out)
    did = task.debate.debate_id
    src_info: dict[str, Any] = {"key": task.source_key}
    debate = None
    try:
        debate = load_debate(task.debate.path)
        qpath = paths.source_qbaf(task.tag, did)
        q = _load_if_current(qpath, task.source_key)
        if q is None:
            emit(("phase", did, "mining the source"))
            plan = plan_debate(debate, units=cfg.units, candidates=cfg.candidates, segmenter=cfg.segmenter,  # type: ignore[arg-type]
                               cheap_classifier=_cheap_factory(cfg), seed=cfg.seed)
            res = _mine(plan, classifier, paths.source_checkpoint(task.tag, did), task.source_key, task, emit, "source", str(task.debate.path))
            q = res.qbaf
            save_qbaf(q, qpath)
            src_info.update(mined=True, pairs_classified_now=res.stats.n_classified, pairs_resumed=res.stats.n_resumed,
                            mining_seconds=round(res.stats.seconds, 3))
        else:
            src_info.update(mined=False)
        counts = q.info.get("counts") or {}
        src_info.update(qbaf=str(qpath.relative_to(cfg.out)), units=q.info.get("units"), n_speech=len(q.speech_arguments),
                        n_proposals=len(q.proposals), n_attacks=len(q.attacks), n_supports=len(q.supports),
                        pairs=counts.get("candidate_pairs_classified"))
        if not paths.source_report(did).exists() or (read_json_file(paths.source_report(did)) or {}).get("key") != _source_report_key(task.source_key, cfg):
            atomic_write_json(paths.source_report(did), {
                "debate": did, "key": _source_report_key(task.source_key, cfg), "qbaf": src_info["qbaf"],
                "units": q.info.get("units"), "dropped_units": q.info.get("dropped_units"), "counts": counts,
                "per_tau": _source_side_summary(q, cfg.taus, cfg),
            })
    except KeyboardInterrupt:
        raise
    except Exception as e:  # noqa: BLE001 - one debate's failure must not stop the corpus run
        return SourceResult(did, src_info, None, f"{type(e).__name__}: {e}", time.perf_counter() - t0), debate
    return SourceResult(did, src_info, q, None, time.perf_counter() - t0), debate


def source_failed_outcome(task: DebateTask, index: int, error: str) -> ItemOutcome:
    """The outcome of a pending summary whose debate's source step failed."""
    sf, _, ikey = task.pending[index]
    return ItemOutcome(sf.item_id, task.debate.debate_id, sf.variant, "failed", ikey, f"debate/source: {error}")


def process_pending_summary(
    task: DebateTask, index: int, debate: Any, source: SourceResult, baselines: _DebateBaselines,
    classifier: RelationClassifier, emit: EventCallback = _noop,
) -> ItemOutcome:
    """Do the ``index``-th pending summary of ``task`` against its debate's mined source.

    An error is recorded in the returned :class:`ItemOutcome` (``failed``, with the place it was
    raised); ``KeyboardInterrupt`` propagates.
    """
    sf, mkey, ikey = task.pending[index]
    did = task.debate.debate_id
    try:
        return _process_summary(task, debate, source.qbaf, baselines, source.info.get("pairs"), sf, mkey, ikey, classifier, emit)
    except KeyboardInterrupt:
        raise
    except Exception as e:  # noqa: BLE001 - recorded per item; the others go on
        tb = traceback.extract_tb(e.__traceback__)
        where = f" at {Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else ""
        return ItemOutcome(sf.item_id, did, sf.variant, "failed", ikey, f"{type(e).__name__}: {e}{where}")


def debate_baselines(debate: Any, task: DebateTask) -> _DebateBaselines:
    """The text baselines of one debate's summaries (the transcript prepared once, lazily)."""
    return _DebateBaselines(source_text(debate), task)


def process_debate(task: DebateTask, classifier: RelationClassifier, emit: EventCallback = _noop) -> DebateOutcome:
    """Do one debate's pending work: source QBAF (cached), then every pending summary.

    Errors of one summary are recorded in its :class:`ItemOutcome` (``failed``) and the others go
    on; an error before any summary (unreadable debate, failed source mining) fails them all.
    ``KeyboardInterrupt`` propagates (finished chunks and items are saved).
    """
    did = task.debate.debate_id
    emit(("debate", did, len(task.pending)))
    clf = classifier if isinstance(classifier, FingerprintedClassifier) else FingerprintedClassifier(classifier, task.classifier_fingerprint)
    src, debate = process_source(task, clf, emit)
    if src.error is not None:
        items = tuple(source_failed_outcome(task, i, src.error) for i in range(len(task.pending)))
        for it in items:
            emit(("item", did, it.variant, "failed", 0.0, it.key, it.note))
        return DebateOutcome(did, items, src.info, src.error, src.seconds, src.seconds)
    baselines = debate_baselines(debate, task)
    outcomes = []
    for i in range(len(task.pending)):
        o = process_pending_summary(task, i, debate, src, baselines, clf, emit)
        outcomes.append(o)
        emit(("item", did, o.variant, o.status, o.seconds, o.key, o.note))
    emit(("debate_done", did))
    return DebateOutcome(did, tuple(outcomes), src.info, None, src.seconds + sum(o.seconds for o in outcomes), src.seconds)


# ---------------------------------------------------------------------------- worker processes
_WORKER: dict[Any, Any] = {}


#: Thread-count variables every pool worker starts with (unless the caller set them): one BLAS /
#: OpenMP thread per worker, so N workers on N cores do not oversubscribe them. The offline
#: model's onnxruntime session follows ``OMP_NUM_THREADS`` too (``stance.default_threads``).
WORKER_THREAD_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


@contextmanager
def _worker_thread_env() -> Iterator[None]:
    """``WORKER_THREAD_ENV`` set to 1 (where unset) while worker processes are spawned.

    The variables must be in a worker's environment when its interpreter starts: a spawned
    worker imports this module (and with it numpy, which loads OpenBLAS and reads them) before
    the pool's initializer runs, so setting them there is too late.
    """
    added = [var for var in WORKER_THREAD_ENV if var not in os.environ]
    for var in added:
        os.environ[var] = "1"
    try:
        yield
    finally:
        for var in added:
            os.environ.pop(var, None)


def _init_worker(queue: Any) -> None:
    # Ctrl-C reaches the whole process group: the main process decides (it terminates the pool);
    # a worker interrupted mid-write would only leave a torn checkpoint line, which is discarded.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER["queue"] = queue


def worker_emit(event: tuple[Any, ...]) -> None:
    """Send a progress event from a worker process to the main process."""
    q = _WORKER.get("queue")
    if q is not None:
        q.put(event)


def worker_classifier(spec: str, fingerprint: str) -> FingerprintedClassifier:
    """The classifier of ``spec`` as mining runs it, built once per worker process, checked to have
    the ``fingerprint`` the main process computed (weights changed mid-run would mix labels)."""
    clf = _WORKER.get(("clf", spec))
    if clf is None:
        inner = _for_mining(_make_classifier(spec))
        fp = classifier_fingerprint(inner)
        if fp != fingerprint:
            raise ConfigurationError(
                f"classifier {spec!r} changed while the study was starting (fingerprint {fp[:10]} "
                f"vs {fingerprint[:10]}); rerun the study"
            )
        clf = FingerprintedClassifier(inner, fp)
        _WORKER[("clf", spec)] = clf
    return clf


def _worker_run(task: DebateTask) -> DebateOutcome:
    try:
        clf = worker_classifier(task.classifier_spec, task.classifier_fingerprint)
        return process_debate(task, clf, worker_emit)
    except Exception as e:  # noqa: BLE001 - reported as the debate's failure
        did = task.debate.debate_id
        msg = f"{type(e).__name__}: {e}"
        return DebateOutcome(did, tuple(ItemOutcome(sf.item_id, did, sf.variant, "failed", ik, msg) for sf, _, ik in task.pending), {}, msg)


def run_in_workers(
    worker: Callable[[Any], Any], tasks: Sequence[Any], jobs: int, emit: EventCallback, record: Callable[[Any], None]
) -> None:
    """Run ``worker(task)`` for every task in ``jobs`` spawned processes, forwarding the workers'
    progress events to ``emit`` and each result to ``record`` (in completion order).

    ``worker`` must be a module-level function that reports through :func:`worker_emit` and
    returns its result (it should catch its own errors). Ctrl-C / ``KeyboardInterrupt`` in the
    main process terminates the workers and propagates.
    """
    ctx = multiprocessing.get_context("spawn")  # fork after numba/torch imports is not safe
    queue = ctx.Queue()
    with _worker_thread_env():  # the workers start (and stay) with one BLAS/OpenMP thread each
        pool = ctx.Pool(processes=min(jobs, len(tasks)), initializer=_init_worker, initargs=(queue,))

    def drain() -> None:
        while True:
            try:
                ev = queue.get_nowait()
            except Exception:  # noqa: BLE001 - queue.Empty
                return
            emit(ev)

    try:
        it = pool.imap_unordered(worker, tasks)
        remaining = len(tasks)
        while remaining:
            try:
                outcome = it.next(timeout=0.2)
            except multiprocessing.TimeoutError:
                drain()
                continue
            drain()
            record(outcome)
            remaining -= 1
        drain()
        pool.close()
        pool.join()
    except BaseException:
        # Interrupted (or the main process failed): stop the workers now; their finished chunks
        # and items are on disk and a rerun resumes from them.
        pool.terminate()
        pool.join()
        raise
    finally:
        queue.close()


# ---------------------------------------------------------------------------- the study
@dataclass(frozen=True)
class PreparedStudy:
    """Everything decided before any mining: corpus, classifier identity, keys and pending work."""

    config: StudyConfig
    corpus: StudyCorpus
    classifier: RelationClassifier
    fingerprint: str
    tag: str
    baselines: tuple[str, ...]
    baseline_notes: tuple[str, ...]
    evaluation_key: str
    tasks: tuple[DebateTask, ...]
    item_keys: dict[str, str]
    reused: tuple[str, ...]
    # ``tasks`` are in processing order: largest debate folders first (two workers then finish
    # at about the same time).


def prepare_study(config: StudyConfig, *, classifier: RelationClassifier | None = None) -> PreparedStudy:
    """Discover the corpus, identify the classifier and find the work still to do (no mining)."""
    corpus = discover_study(config.debates, config.summaries if config.summaries is not None else config.debates, only=config.only or None)
    baselines, notes = resolve_baselines(config.baselines, bertscore_model=config.bertscore_model, nli_model=config.nli_model)
    clf = _for_mining(classifier if classifier is not None else _make_classifier(config.classifier))
    fp = classifier_fingerprint(clf)
    tag = fingerprint_tag(clf.name, fp)
    ekey = config.evaluation_key(baselines)
    paths = StudyPaths(config.out)
    tasks = []
    item_keys: dict[str, str] = {}
    reused = []
    for d in corpus.debates:
        dd = debate_digest(d.path)
        skey = config.source_key(fp, dd)
        pending = []
        for sf in d.summaries:
            mkey = config.summary_mining_key(fp, dd, sf.digest)
            ikey = digest_json([skey, mkey, ekey])
            item_keys[sf.item_id] = ikey
            saved = read_json_file(paths.row(d.debate_id, sf.variant))
            if (isinstance(saved, dict) and saved.get("key") == ikey and saved.get("status") in ("ok", "skipped")
                    and saved.get("final", True)):
                reused.append(sf.item_id)
            else:
                pending.append((sf, mkey, ikey))
        if pending:
            tasks.append(DebateTask(d, config, config.classifier, fp, tag, baselines, notes, dd, skey, tuple(pending)))
    tasks.sort(key=_task_size, reverse=True)
    return PreparedStudy(config, corpus, clf, fp, tag, baselines, notes, ekey, tuple(tasks), item_keys, tuple(reused))


def _task_size(t: DebateTask) -> int:
    # Largest debates first, so two workers finish at about the same time.
    return sum(f.stat().st_size for f in t.debate.path.rglob("*.json"))


def run_study(
    config: StudyConfig,
    *,
    classifier: RelationClassifier | None = None,
    on_event: EventCallback | None = None,
    prepared: PreparedStudy | None = None,
) -> StudyResult:
    """Run (or resume) a study and write its outputs; see the module docstring.

    Parameters
    ----------
    config
        The study settings.
    classifier
        A classifier object instead of ``config.classifier`` (library use and tests; only with
        ``jobs=1``, since worker processes build their own from the spec).
    on_event
        Progress callback (see :data:`EventCallback`).
    prepared
        The result of :func:`prepare_study` if already computed.

    Raises
    ------
    KeyboardInterrupt
        After saving the manifest; finished items and mining chunks are on disk.
    """
    from argfaith.study.outputs import collect_rows, write_outputs

    t0 = time.perf_counter()
    emit = on_event or _noop
    if classifier is not None and config.jobs > 1 and config.executor == "local":
        raise ConfigurationError("a classifier object can only be used with jobs=1 or executor='dask' "
                                 "(local worker processes build theirs from the spec)")
    prep = prepared or prepare_study(config, classifier=classifier)
    paths = StudyPaths(config.out)
    config.out.mkdir(parents=True, exist_ok=True)
    manifest = Manifest.load(config.out)
    manifest.data.update(
        mode="study", config=config.as_dict(),
        classifier={"spec": config.classifier if classifier is None else prep.classifier.name, "name": prep.classifier.name,
                    "fingerprint": prep.fingerprint, "tag": prep.tag},
        baselines={"computed": list(prep.baselines), "notes": list(prep.baseline_notes)},
    )
    run = manifest.start_run(pending_items=sum(len(t.pending) for t in prep.tasks), reused_items=len(prep.reused), jobs=config.jobs,
                             executor=config.executor)
    for iid in prep.reused:
        manifest.items.setdefault(iid, {})["key"] = prep.item_keys[iid]
    manifest.save()
    n_total = len(prep.corpus.summaries)
    outcomes: list[ItemOutcome] = []

    def on_event(ev: tuple[Any, ...]) -> None:
        # The manifest follows every finished item (workers report through the same events).
        if ev[0] == "item":
            _, did, variant, status, secs, key, note = ev
            manifest.items[f"{did}/{variant}"] = {"status": status, "key": key, "note": note, "seconds": round(secs, 3),
                                                  "row": str(paths.row(did, variant).relative_to(config.out))}
            manifest.save()
        emit(ev)

    on_event(("start", n_total, len(prep.reused)))

    def record(o: DebateOutcome) -> None:
        manifest.sources[o.debate_id] = {**o.source, "error": o.error, "seconds": round(o.source_seconds, 3),
                                         "debate_seconds": round(o.seconds, 3)}
        for it in o.items:
            manifest.items[it.item_id] = {"status": it.status, "key": it.key, "note": it.note, "seconds": round(it.seconds, 3),
                                          "row": str(paths.row(it.debate_id, it.variant).relative_to(config.out))}
            outcomes.append(it)
        manifest.save()

    def record_source(src: SourceResult) -> None:
        manifest.sources[src.debate_id] = {**src.info, "error": src.error, "seconds": round(src.seconds, 3), "debate_seconds": None}
        manifest.save()

    def record_item(it: ItemOutcome) -> None:
        outcomes.append(it)
        on_event(("item", it.debate_id, it.variant, it.status, it.seconds, it.key, it.note))  # saves the manifest

    tasks = list(prep.tasks)
    notes: list[str] = []
    try:
        if config.executor == "dask" and tasks:
            from argfaith.study.dask_executor import StudySteps, run_study_on_dask

            steps = StudySteps(build_classifier=worker_classifier, source=process_source, summary=process_pending_summary,
                               source_failed=source_failed_outcome, baselines=debate_baselines, source_result=SourceResult,
                               item_outcome=ItemOutcome)
            facts = run_study_on_dask(config, tasks, prep.classifier, prep.fingerprint, steps=steps, emit=on_event, record_source=record_source,
                                      record_item=record_item, classifier_object=prep.classifier if classifier is not None else None)
            run.update(facts)
            notes += [f"retried after a lost worker: {item} ({len(ws)} attempts)" for item, ws in facts["retried"].items()]
        elif config.jobs > 1 and len(tasks) > 1:
            run_in_workers(_worker_run, tasks, config.jobs, on_event, record)
        else:
            clf = FingerprintedClassifier(prep.classifier, prep.fingerprint)
            for t in tasks:
                record(process_debate(t, clf, on_event))
    except KeyboardInterrupt:
        run.update(finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"), interrupted=True,
                   items_done=sum(1 for k, v in manifest.items.items() if v.get("status") in ("ok", "skipped")))
        manifest.save()
        raise
    run.update(finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"), interrupted=False, items_done=len(outcomes),
               seconds=round(time.perf_counter() - t0, 3))
    manifest.save()
    failed_now = {o.item_id: o for o in outcomes if o.status == "failed"}
    collected = collect_rows(prep, failed_now)
    outputs = write_outputs(prep, collected, manifest)
    failed = tuple((r["debate"] + "/" + r["variant"], r["note"] or "") for r in collected.rows if r["status"] in ("failed", "error"))
    skipped = tuple((f"{r['debate']}/{r['variant']}", r["note"] or "") for r in collected.rows if r["status"] == "skipped")
    n_ok = sum(1 for r in collected.rows if r["status"] == "ok")
    run.update(outputs_written=True)
    manifest.data["summary"] = {"ok": n_ok, "skipped": len(skipped), "failed": len(failed)}
    manifest.save()
    return StudyResult(
        out=config.out, rows=tuple(collected.rows), n_ok=n_ok, n_skipped=len(skipped), n_failed=len(failed),
        n_reused=len(prep.reused), n_done_now=len(outcomes), failed=failed, skipped=skipped,
        classifier=prep.classifier.name, classifier_fingerprint=prep.fingerprint, seconds=time.perf_counter() - t0,
        outputs=outputs, notes=tuple(prep.baseline_notes) + tuple(prep.corpus.notes) + tuple(notes),
    )
