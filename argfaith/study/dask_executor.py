"""Running a study on Dask distributed (``argfaith study --executor dask``; extra ``dask``).

Why Dask first (Ray may follow): it is a pure-Python wheel that installs with pip next to
argfaith; it has a scheduler that runs on a laptop (``LocalCluster``) and the same code runs on
SLURM/PBS (dask-jobqueue), Kubernetes or a plain ``dask scheduler`` + ``dask worker`` set-up;
lost workers are handled by its scheduler (tasks re-run elsewhere, up to ``allowed-failures``);
and it offers what a study needs without a service of our own — named queues and events on the
scheduler, structured events from workers to the client. See ``docs/study.md``.

Tasks (the same output layout and keys as the local pool, :mod:`argfaith.study.runner`):

- a **source task** per pending debate: mine (or reuse) the source QBAF, write its report;
- a **summary task** per pending summary, depending on its debate's source task (it receives the
  :class:`~argfaith.study.runner.SourceResult`, QBAF included);
- in ``--source-only`` mode, one **statistics task** per debate.

Every task writes its outputs itself, atomically, into ``OUT`` — which must be the same path on
every worker (a shared filesystem for a multi-host cluster) — and returns a small outcome; the
main process alone writes the manifest and the tables. Resuming is unchanged: a finished item's
row carries its key and is never redone, partial mining resumes from its pair checkpoint.

Model inference: a worker builds the classifier of the spec once (cached per worker process,
checked against the main process's fingerprint) — or receives a classifier *object* once
(scattered to every worker); a classifier that spends a shared budget (Claude) stays in the main
process and workers reach it through the scheduler (:mod:`argfaith.study.broker`).

Failures: an exception inside an item is argfaith's own business (the item is ``failed`` with the
message, as locally). A lost worker is the scheduler's: its task is re-run on another worker,
resuming from the checkpoints, and the run reports it (a ``retry`` event naming the item and the
worker); a task that loses its worker more than ``retries`` times fails with a message naming
the item. Ctrl-C (or SIGTERM) sets a stop event on the scheduler: running tasks stop at their
next chunk of pairs (finished chunks are saved), queued tasks are cancelled, and a cluster the
run started itself is shut down.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue as _queue
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from argfaith.errors import ConfigurationError, MissingExtraError
from argfaith.study._worker_state import STATE as _STATE  # shared with the worker plugin
from argfaith.study._worker_state import STATE_LOCK as _STATE_LOCK

__all__ = [
    "StudySteps",
    "RunChannels",
    "RunCancelled",
    "DaskRun",
    "dask_client",
    "import_distributed",
    "run_study_on_dask",
    "run_sources_on_dask",
    "THREAD_ENV",
    "submit_retries",
]

#: One BLAS/OpenMP thread per worker process (the local pool does the same).
THREAD_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
#: Seconds between a worker's checks of the stop event (it is checked at chunk boundaries).
STOP_CHECK_INTERVAL = 0.5


def import_distributed() -> Any:
    """The ``distributed`` package, or :class:`MissingExtraError` naming the extra."""
    try:
        import distributed
    except ImportError:
        raise MissingExtraError("the Dask executor (--executor dask)", "dask", "distributed") from None
    return distributed


class RunCancelled(Exception):
    """The main process stopped the run: a task ends at its next chunk boundary, like Ctrl-C does
    to the local pool (finished chunks and items are saved). An ``Exception``, not a
    ``KeyboardInterrupt``: Dask lets the latter take the whole worker down."""


@contextlib.contextmanager
def dask_client(workers: int, scheduler: str | None = None, retries: int = 3) -> Iterator[tuple[Any, bool]]:
    """``(client, owned)``: a client of the scheduler at ``scheduler`` (address or scheduler-file
    path; ``owned`` False), or of a local cluster of ``workers`` single-threaded worker processes
    started and shut down here (``owned`` True).

    ``retries`` is the local cluster's ``allowed-failures`` (how often a task may lose its worker);
    an external scheduler keeps its own setting and :func:`submit_retries` resubmits instead.
    """
    distributed = import_distributed()
    import dask

    if scheduler is not None:
        try:
            if os.path.isfile(scheduler):
                client = distributed.Client(scheduler_file=scheduler, timeout="30s")
            else:
                client = distributed.Client(scheduler, timeout="30s")
        except (OSError, TimeoutError, ValueError) as e:
            raise ConfigurationError(f"--scheduler {scheduler}: cannot connect to a Dask scheduler ({type(e).__name__}: {e})") from None
        try:
            yield client, False
        finally:
            client.close()
        return
    with dask.config.set({"distributed.scheduler.allowed-failures": retries}):
        cluster = distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0",
            silence_logs=logging.ERROR, env=dict(THREAD_ENV), preload=["argfaith.study._dask_plugin"],
        )
    client = distributed.Client(cluster)
    try:
        yield client, True
    finally:
        client.close()
        cluster.close()


def submit_retries(owned: bool, retries: int) -> int:
    """``retries=`` of each submitted task: 0 on a cluster the run started (its scheduler's
    ``allowed-failures`` already is ``retries``), else ``retries`` (an external scheduler's own
    ``allowed-failures`` applies first, then argfaith resubmits a failed task)."""
    return 0 if owned else retries


# ---------------------------------------------------------------------------- worker side
@dataclass(frozen=True)
class RunChannels:
    """Names of the scheduler-side channels of one run (picklable; sent with every task)."""

    run_id: str
    events: str  # topic of the workers' progress events
    stop: str  # distributed.Event set when the main process stops the run
    broker: str | None  # request queue of the budget owner (None: workers classify themselves)
    classifier_name: str
    classifier_fingerprint: str


@dataclass(frozen=True)
class StudySteps:
    """The study's own steps, handed in by its caller (:func:`argfaith.study.runner.run_study`,
    :func:`argfaith.study.sources.run_source_stats`): this module is the adapter to the engine and
    imports no study module, so the runner can call it without an import cycle. Module-level
    functions and classes only — the object travels to the workers with every task (pickled by
    reference)."""

    #: ``(spec, fingerprint) -> classifier``, built once per worker process (fingerprint-checked).
    build_classifier: Callable[[str, str], Any]
    #: ``(task, classifier, emit) -> (SourceResult, debate)``; the study's source step.
    source: Callable[..., Any] | None = None
    #: ``(task, index, debate, source, baselines, classifier, emit) -> ItemOutcome``.
    summary: Callable[..., Any] | None = None
    #: ``(task, index, error) -> ItemOutcome`` of a summary whose source step failed.
    source_failed: Callable[..., Any] | None = None
    #: ``(debate, task) -> baselines helper`` of one debate's summaries.
    baselines: Callable[..., Any] | None = None
    #: The outcome types (failed results are built in the main process).
    source_result: Any = None
    item_outcome: Any = None
    #: ``(task, classifier, emit) -> dict``: one debate's source-only statistics.
    statistics: Callable[..., Any] | None = None


class _WorkerEmitter:
    """Forwards a task's progress events to the main process and notices a stop.

    ``item`` and ``debate_done`` are not forwarded: the main process emits them when it records
    the task's result, so progress and manifest follow results, not messages that may arrive late.
    """

    def __init__(self, ch: RunChannels) -> None:
        from distributed import Event, get_worker

        self.ch = ch
        self.worker = get_worker()
        self.stop = Event(ch.stop)
        self._checked = 0.0

    def __call__(self, ev: tuple[Any, ...]) -> None:
        if ev[0] not in ("item", "debate_done"):
            self.worker.log_event(self.ch.events, list(ev))
        self.check_stop()

    def check_stop(self) -> None:
        now = time.monotonic()
        if now - self._checked < STOP_CHECK_INTERVAL:
            return
        self._checked = now
        if self.stop.is_set():
            raise RunCancelled


def _begin(ch: RunChannels, did: str, label: str) -> _WorkerEmitter:
    emit = _WorkerEmitter(ch)
    emit.worker.log_event(ch.events, ["attempt", did, label, emit.worker.address])
    emit.check_stop()
    return emit


def _broker_call(ch: RunChannels, emit: _WorkerEmitter) -> Callable[[list[list[Any]]], Mapping[str, Any]]:
    from distributed import Queue

    def call(rows: list[list[Any]]) -> Mapping[str, Any]:
        rid = uuid.uuid4().hex
        reply_name = f"{ch.broker}-reply-{rid}"
        reply = Queue(reply_name)
        try:
            Queue(ch.broker).put({"id": rid, "reply": reply_name, "queries": rows})
            while True:
                try:
                    return reply.get(timeout=1.0)  # type: ignore[no-any-return]
                except TimeoutError:
                    emit.check_stop()
        finally:
            with contextlib.suppress(Exception):
                reply.close()

    return call


def _classifier(ch: RunChannels, spec: str, shipped: Any, emit: _WorkerEmitter, steps: StudySteps) -> Any:
    """The classifier a task mines with: a proxy of the budget owner, the shipped object, or the
    spec's classifier built once per worker process (fingerprint-checked)."""
    from argfaith.study.fingerprint import FingerprintedClassifier

    fp = ch.classifier_fingerprint
    if ch.broker is not None:
        from argfaith.study.broker import BrokeredClassifier

        return FingerprintedClassifier(BrokeredClassifier(ch.classifier_name, fp, _broker_call(ch, emit)), fp)
    if shipped is not None:
        obj = _STATE.get(("shipped", shipped))
        if obj is None:
            raise ConfigurationError(f"this worker has no copy of the run's classifier ({shipped}); was it restarted without plugins?")
        return FingerprintedClassifier(obj, fp)
    with _STATE_LOCK:  # one load per worker process even with several threads
        return steps.build_classifier(spec, fp)


def _worker_debate(task: Any, steps: StudySteps) -> tuple[Any, Any]:
    """The debate of ``task`` and its text-baseline helper, loaded once per worker process and
    debate (the summaries of one debate usually run on the worker that mined its source)."""
    from argfaith.datasets.documents import load_debate

    with _STATE_LOCK:
        hit = _STATE.get(_debate_key(task))
    if hit is None:
        debate = load_debate(task.debate.path)
        hit = _remember_debate(task, debate, steps.baselines(debate, task))
    return hit


def _debate_key(task: Any) -> tuple[Any, ...]:
    return ("debate", str(task.debate.path), task.debate_digest, task.baselines, str(task.config.bertscore_model))


def _remember_debate(task: Any, debate: Any, baselines: Any) -> tuple[Any, Any]:
    """Keep one debate (and its baselines helper) per worker process."""
    with _STATE_LOCK:
        for k in [k for k in _STATE if isinstance(k, tuple) and k and k[0] == "debate"]:
            del _STATE[k]
        _STATE[_debate_key(task)] = (debate, baselines)
    return debate, baselines


def study_source_task(steps: StudySteps, task: Any, ch: RunChannels, shipped: Any = None) -> Any:
    """Dask task: a debate's source step (``steps.source``: :func:`argfaith.study.runner.process_source`)."""
    did = task.debate.debate_id
    emit = _begin(ch, did, "source")
    emit(("debate", did, len(task.pending)))
    clf = _classifier(ch, task.classifier_spec, shipped, emit, steps)
    src, debate = steps.source(task, clf, emit)
    if debate is not None and src.error is None:
        _remember_debate(task, debate, steps.baselines(debate, task))  # its summaries often run here
    return src


def study_summary_task(steps: StudySteps, task: Any, index: int, source: Any, ch: RunChannels, shipped: Any = None) -> Any:
    """Dask task: one pending summary (``steps.summary``: :func:`argfaith.study.runner.process_pending_summary`)."""
    sf = task.pending[index][0]
    emit = _begin(ch, task.debate.debate_id, sf.variant)
    if source.error is not None:
        return steps.source_failed(task, index, source.error)
    debate, baselines = _worker_debate(task, steps)
    clf = _classifier(ch, task.classifier_spec, shipped, emit, steps)
    return steps.summary(task, index, debate, source, baselines, clf, emit)


def source_stats_task(steps: StudySteps, task: Any, ch: RunChannels, shipped: Any = None) -> dict[str, Any]:
    """Dask task: one debate's source-only statistics (``steps.statistics``, :mod:`argfaith.study.sources`)."""
    emit = _begin(ch, task.debate_id, "source")
    try:
        clf = _classifier(ch, task.classifier_spec, shipped, emit, steps)
    except Exception as e:  # noqa: BLE001 - reported as the debate's failure
        return {"debate": task.debate_id, "status": "failed", "note": f"{type(e).__name__}: {e}", "seconds": 0.0}
    return steps.statistics(task, clf, emit)


# ---------------------------------------------------------------------------- main process
class DaskRun:
    """The main process's side of one distributed run: the channels, progress events (forwarded
    on the calling thread by :meth:`drain`), attempts per item (a second attempt is a retry and is
    reported), the budget owner's thread, and the stop."""

    def __init__(self, client: Any, emit: Callable[[tuple[Any, ...]], None], classifier: Any, fingerprint: str,
                 *, owner: Any = None) -> None:
        from distributed import Event

        self.client = client
        self.emit = emit
        rid = uuid.uuid4().hex[:12]
        self.channels = RunChannels(rid, f"argfaith-events-{rid}", f"argfaith-stop-{rid}",
                                    f"argfaith-broker-{rid}" if owner is not None else None, classifier.name, fingerprint)
        self._events: _queue.Queue[list[Any]] = _queue.Queue()
        client.subscribe_topic(self.channels.events, lambda ev: self._events.put(ev[1]))
        self._stop = Event(self.channels.stop, client=client)
        self._stop.clear()
        self.attempts: dict[str, list[str]] = {}
        self.owner = owner
        self._owner_stop = threading.Event()
        self._owner_thread: threading.Thread | None = None
        if owner is not None:
            self._owner_thread = threading.Thread(target=self._serve, name="argfaith-budget-owner", daemon=True)
            self._owner_thread.start()

    # -- budget owner
    def _serve(self) -> None:
        from distributed import Queue

        requests = Queue(self.channels.broker, client=self.client)
        while not self._owner_stop.is_set():
            try:
                first = requests.get(timeout=0.5)
            except TimeoutError:
                continue
            except Exception:  # noqa: BLE001 - client closing
                if self._owner_stop.is_set():
                    return
                raise
            batch = [first]
            try:
                if requests.qsize():
                    batch += list(requests.get(batch=True))
                replies = self.owner.answer(batch)
            except Exception as e:  # noqa: BLE001 - every waiting worker gets the error, the owner goes on
                replies = [{"id": r["id"], "error": f"{type(e).__name__}: {e}"} for r in batch]
            for reply in replies:
                name = next(r["reply"] for r in batch if r["id"] == reply["id"])
                with contextlib.suppress(Exception):  # the asking task may be gone (cancelled)
                    Queue(name, client=self.client).put(reply)

    # -- events
    def drain(self) -> None:
        """Forward the events that arrived (on the calling thread); count attempts per item."""
        while True:
            try:
                ev = self._events.get_nowait()
            except _queue.Empty:
                return
            if ev and ev[0] == "attempt":
                _, did, label, worker = ev
                seen = self.attempts.setdefault(f"{did}/{label}", [])
                seen.append(worker)
                if len(seen) > 1:
                    self.emit(("retry", did, label, len(seen), worker))
                continue
            self.emit(tuple(ev))

    def retried(self) -> dict[str, list[str]]:
        """Items whose task ran more than once: item → the workers of every attempt."""
        return {k: v for k, v in self.attempts.items() if len(v) > 1}

    def wait(self, pending: set[Any]) -> tuple[set[Any], set[Any]]:
        """Wait up to 0.2 s for some of ``pending`` to finish; forward events meanwhile."""
        from distributed import wait

        try:
            wait(list(pending), timeout=0.2, return_when="FIRST_COMPLETED")
        except TimeoutError:
            pass
        except Exception:  # noqa: BLE001 - cancelled futures: reported one by one below
            pass
        self.drain()
        done = {f for f in pending if f.done()}
        return done, pending - done

    def close(self, futures: Sequence[Any], interrupted: bool) -> None:
        """Stop: tell running tasks (at their next chunk), cancel the rest, stop the owner."""
        if interrupted:
            with contextlib.suppress(Exception):
                self._stop.set()
            with contextlib.suppress(Exception):
                self.client.cancel(list(futures))
        self._owner_stop.set()
        if self._owner_thread is not None:
            self._owner_thread.join(timeout=5)
        with contextlib.suppress(Exception):
            self.drain()
        with contextlib.suppress(Exception):
            self.client.unsubscribe_topic(self.channels.events)


def _future_error(f: Any) -> BaseException:
    """The exception of a failed or cancelled future."""
    if f.status == "cancelled":
        return RuntimeError("the scheduler cancelled the task (its inputs were lost)")
    try:
        return f.exception()  # type: ignore[no-any-return]
    except BaseException as e:  # noqa: BLE001 - CancelledError and friends
        return e


def _failure(exc: BaseException, label: str) -> str:
    name = type(exc).__name__
    if name == "KilledWorker":
        return f"{label}: its worker was lost on every attempt ({exc}); rerun to resume from the checkpoints"
    return f"{label}: {name}: {exc}"


@contextlib.contextmanager
def _shipped(client: Any, classifier_object: Any, run_id: str) -> Iterator[str | None]:
    """Install ``classifier_object`` on every worker for the run (a worker plugin); yields the
    name tasks look it up by (None: nothing shipped)."""
    if classifier_object is None:
        yield None
        return
    import cloudpickle

    name = f"argfaith-classifier-{run_id}"
    from argfaith.study._dask_plugin import ShippedClassifier

    client.register_plugin(ShippedClassifier(name, cloudpickle.dumps(classifier_object)), name=name)
    try:
        yield name
    finally:
        with contextlib.suppress(Exception):
            client.unregister_worker_plugin(name)


def run_study_on_dask(
    config: Any, tasks: Sequence[Any], classifier: Any, fingerprint: str, *, steps: StudySteps, emit: Callable[[tuple[Any, ...]], None],
    record_source: Callable[[Any], None], record_item: Callable[[Any], None], classifier_object: Any = None,
) -> dict[str, Any]:
    """Run the study's pending ``tasks`` (:class:`~argfaith.study.runner.DebateTask`) on Dask,
    with the study's ``steps`` (:class:`StudySteps`).

    ``classifier`` is the main process's classifier (as mining runs it); it becomes the budget
    owner when it spends a shared budget, else workers build theirs from the spec or get
    ``classifier_object``. Results are passed to ``record_source`` / ``record_item`` in completion
    order; returns run facts for the manifest (workers, retried items, budget owner statistics).
    ``KeyboardInterrupt`` stops the run (see the module docstring) and propagates.
    """
    from argfaith.study.broker import BudgetOwner, owns_shared_budget

    owner = BudgetOwner(classifier) if owns_shared_budget(classifier) else None
    with dask_client(config.jobs, config.scheduler, config.retries) as (client, owned):
        run = DaskRun(client, emit, classifier, fingerprint, owner=owner)
        with _shipped(client, classifier_object if owner is None else None, run.channels.run_id) as shipped:
            return _drive_study(client, run, steps, tasks, shipped, submit_retries(owned, config.retries), emit, record_source, record_item,
                                owner)


def _drive_study(client: Any, run: DaskRun, steps: StudySteps, tasks: Sequence[Any], shipped: str | None, retries: int,
                 emit: Callable[[tuple[Any, ...]], None], record_source: Callable[[Any], None], record_item: Callable[[Any], None],
                 owner: Any) -> dict[str, Any]:
    SourceResult, ItemOutcome = steps.source_result, steps.item_outcome  # noqa: N806 - the study's outcome types
    ch = run.channels
    futures: dict[Any, tuple[str, Any, int]] = {}
    by_debate: dict[str, int] = {}
    # A source future stays referenced until its debate's summaries are done: if the worker
    # holding its result dies, the scheduler recomputes it only while the client wants it.
    source_futures: dict[str, Any] = {}
    n = len(tasks)
    for rank, t in enumerate(tasks):
        did = t.debate.debate_id
        sfut = client.submit(study_source_task, steps, t, ch, shipped, key=f"argfaith-source-{did}-{ch.run_id}",
                             retries=retries, priority=n - rank, pure=False)
        futures[sfut] = ("source", t, -1)
        source_futures[did] = sfut
        by_debate[did] = len(t.pending)
        for i, (sf, _, _) in enumerate(t.pending):
            f = client.submit(study_summary_task, steps, t, i, sfut, ch, shipped, key=f"argfaith-summary-{did}-{sf.variant}-{ch.run_id}",
                              retries=retries, priority=2 * n + n - rank, pure=False)
            futures[f] = ("summary", t, i)
    pending = set(futures)
    try:
        while pending:
            done, pending = run.wait(pending)
            for f in done:
                kind, t, i = futures.pop(f)
                did = t.debate.debate_id
                if kind == "source":
                    if f.status == "finished":
                        src = f.result()
                    else:
                        err = _failure(_future_error(f), f"{did}/source")
                        src = SourceResult(did, {"key": t.source_key}, None, err)
                    record_source(SourceResult(src.debate_id, src.info, None, src.error, src.seconds))
                    continue
                sf, _, ikey = t.pending[i]
                if f.status == "finished":
                    o = f.result()
                else:
                    o = ItemOutcome(sf.item_id, did, sf.variant, "failed", ikey, _failure(_future_error(f), sf.item_id))
                record_item(o)
                by_debate[did] -= 1
                if by_debate[did] == 0:
                    source_futures.pop(did, None)
                    emit(("debate_done", did))
    except BaseException:
        run.close(list(futures), interrupted=True)
        raise
    run.close([], interrupted=False)
    return {"executor": "dask", "workers": len(client.scheduler_info().get("workers", {})),
            "retried": run.retried(), **({"budget_owner": owner.stats()} if owner is not None else {})}


def run_sources_on_dask(
    tasks: Sequence[Any], classifier: Any, fingerprint: str, *, steps: StudySteps, workers: int, scheduler: str | None, retries: int,
    emit: Callable[[tuple[Any, ...]], None], record: Callable[[dict[str, Any]], None], classifier_object: Any = None,
) -> dict[str, Any]:
    """Run source-only statistics tasks (:class:`~argfaith.study.sources.SourceTask`) on Dask;
    ``record`` gets each debate's result dict. Same failure and stop handling as
    :func:`run_study_on_dask`."""
    from argfaith.study.broker import BudgetOwner, owns_shared_budget

    owner = BudgetOwner(classifier) if owns_shared_budget(classifier) else None
    with dask_client(workers, scheduler, retries) as (client, owned):
        run = DaskRun(client, emit, classifier, fingerprint, owner=owner)
        with _shipped(client, classifier_object if owner is None else None, run.channels.run_id) as shipped:
            return _drive_sources(client, run, steps, tasks, shipped, submit_retries(owned, retries), emit, record, owner)


def _drive_sources(client: Any, run: DaskRun, steps: StudySteps, tasks: Sequence[Any], shipped: str | None, retries: int,
                   emit: Callable[[tuple[Any, ...]], None], record: Callable[[dict[str, Any]], None], owner: Any) -> dict[str, Any]:
    ch = run.channels
    futures = {
        client.submit(source_stats_task, steps, t, ch, shipped, key=f"argfaith-stats-{t.debate_id}-{ch.run_id}", retries=retries,
                      priority=len(tasks) - rank, pure=False): t
        for rank, t in enumerate(tasks)
    }
    pending = set(futures)
    try:
        while pending:
            done, pending = run.wait(pending)
            for f in done:
                t = futures.pop(f)
                if f.status == "finished":
                    r = f.result()
                else:
                    r = {"debate": t.debate_id, "status": "failed", "note": _failure(_future_error(f), t.debate_id), "seconds": 0.0}
                emit(("item", t.debate_id, "source", r["status"], r["seconds"], t.key, r["note"]))
                record(r)
    except BaseException:
        run.close(list(futures), interrupted=True)
        raise
    run.close([], interrupted=False)
    return {"executor": "dask", "workers": len(client.scheduler_info().get("workers", {})), "retried": run.retried(),
            **({"budget_owner": owner.stats()} if owner is not None else {})}
