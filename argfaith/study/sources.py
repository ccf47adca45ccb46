"""Source-only statistics over a whole debate corpus (``argfaith study --source-only``).

For every debate folder — with or without summaries — the source QBAF is planned and mined as
the study would (PAPER.md §7, temporal constraint, all pairs), and the statistics the paper's
case study rests on are recorded:

- argument counts: provisions, speech arguments (sentence segmentation by default; human spans
  are counted too where annotated), units dropped by the unit policy, per reason;
- candidate pairs per strategy: ``all`` = n(n−1)/2 + n·p; ``topk:K`` / ``random:K`` keep
  min(K, #targets) per source, Σᵢ min(K, p + i); ``cascade:P`` = pairs the mining classifier
  (with its all-pairs prior, as in mining) gives P(no relation) < P — note that
  ``--candidates cascade:P`` itself runs the offline model with its training prior, which is
  less sure of "no relation" and keeps more pairs;
- the mined QBAF's size (attacks, supports, density) and π_ar, mean π_pcr;
- the distribution of the proposals' DF-QuAD strengths σ at every τ.

Mining here is streamed: pairs are classified in chunks and only the labels are kept (no pair
checkpoint, no per-pair objects beyond the classifier's own), and the QBAF is built from index
arrays. Resuming is per debate: each debate's statistics are written atomically to
``OUT/sources/<debate>.json`` with a key (classifier fingerprint, units, segmenter, τ, debate
digest) and a rerun skips the debates whose file carries the current key.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from argfaith.study.config import STUDY_FORMAT_VERSION, digest_json
from argfaith.study.corpus import debate_digest
from argfaith.study.store import Manifest, atomic_write_json, atomic_write_text, read_json_file

__all__ = [
    "SourceTask",
    "TOPK",
    "CASCADES",
    "pairs_kept_per_source",
    "stream_source_qbaf",
    "source_statistics",
    "run_source_stats",
    "SOURCE_COLUMNS",
]

#: K of the topk:K / random:K counts, P of the cascade:P counts.
TOPK = (5, 10, 20, 50)
CASCADES = (0.5, 0.7, 0.8, 0.9)
_CHUNK = 20_000

SOURCE_COLUMNS = (
    "debate", "status", "note", "title", "interventions", "provisions", "speech_arguments", "human_spans",
    "dropped_chair", "dropped_stage_direction", "dropped_too_short", "dropped_other",
    "pairs_all", *[f"pairs_topk{k}" for k in TOPK], *[f"pairs_cascade{p:g}" for p in CASCADES],
    "attacks", "supports", "edge_density", "pi_ar", "mean_pi_pcr",
    "sigma_mean", "sigma_min", "sigma_max", "share_above_half", "share_below_half",
    "seconds_plan", "seconds_classify", "seconds_build", "seconds_metrics", "seconds_total", "us_per_pair",
)


def pairs_kept_per_source(n_speech: int, n_proposals: int, k: int) -> int:
    """Pairs kept by ``topk:k`` or ``random:k`` under the temporal constraint: the i-th speech
    argument (0-based) has p + i candidate targets and keeps min(k, p + i) of them."""
    p = n_proposals
    return sum(min(k, p + i) for i in range(n_speech))


@dataclass(frozen=True)
class SourceTask:
    """One debate to describe (picklable)."""

    debate_id: str
    path: Path
    out: Path
    key: str
    classifier_spec: str
    classifier_fingerprint: str
    units: str
    segmenter: str
    taus: tuple[float, ...]


def _codes(preds: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Label codes (0 no relation, 1 attack, 2 support) and P(no relation) (NaN if unknown)."""
    from argfaith.mining.candidates import p_no_relation

    codes = np.fromiter((1 if p.label == "attack" else 2 if p.label == "support" else 0 for p in preds), dtype=np.int8, count=len(preds))
    pn = np.fromiter(((lambda v: np.nan if v is None else v)(p_no_relation(p)) for p in preds), dtype=np.float64, count=len(preds))
    return codes, pn


def stream_source_qbaf(
    plan: Any,
    classifier: Any,
    *,
    tau: float = 0.2,
    progress: Callable[[int, int], None] | None = None,
    timings: dict[str, float] | None = None,
) -> tuple[Any, np.ndarray, np.ndarray]:
    """Classify a debate plan's pairs in chunks and build the QBAF from index arrays.

    The labels are exactly those of :func:`argfaith.mining.pipeline.run_plan` (the classifier goes
    through the same :func:`~argfaith.mining.classifiers.prior.mining_classifier`), without the
    checkpoint and the per-pair relation objects. Returns the QBAF (ids, kinds and base scores;
    no texts), the label code of every planned pair (0 no relation, 1 attack, 2 support) and
    its P(no relation) (NaN when the classifier gives neither probabilities nor confidence).
    """
    from argfaith.mining.classifiers.prior import mining_classifier
    from argfaith.qbaf import QBAF

    classifier = mining_classifier(classifier)
    props, speech = plan.proposals, plan.speech
    p, n = len(props), len(speech)
    index = {u.id: i for i, u in enumerate((*props, *speech))}
    total = len(plan.pairs)
    src = np.empty(total, dtype=np.int64)
    tgt = np.empty(total, dtype=np.int64)
    codes = np.empty(total, dtype=np.int8)
    pnr = np.empty(total, dtype=np.float64)
    for start in range(0, total, _CHUNK):
        chunk = plan.pairs[start : start + _CHUNK]
        preds = classifier.classify(plan.queries(chunk))
        if len(preds) != len(chunk):
            raise ValueError(f"classifier {classifier.name!r} returned {len(preds)} predictions for {len(chunk)} pairs")
        end = start + len(chunk)
        codes[start:end], pnr[start:end] = _codes(preds)
        src[start:end] = [index[x.source_id] for x in chunk]
        tgt[start:end] = [index[x.target_id] for x in chunk]
        if progress is not None:
            progress(end, total)
    t = time.perf_counter()
    attacks = np.stack([src[codes == 1], tgt[codes == 1]], axis=1)
    supports = np.stack([src[codes == 2], tgt[codes == 2]], axis=1)
    q = QBAF.from_arrays(np.array([0.5] * p + [tau] * n), attacks, supports, is_proposal=np.array([True] * p + [False] * n),
                         ids=[u.id for u in (*props, *speech)], tau=tau, debate=True, name=plan.name)
    if timings is not None:
        timings["build"] = time.perf_counter() - t
    return q, codes, pnr


def source_statistics(
    debate: Any,
    classifier: Any,
    *,
    units: str = "sentences",
    segmenter: str = "rules",
    taus: Sequence[float] = (0.15, 0.2, 0.25),
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Statistics of one debate's source QBAF (see the module docstring).

    Returns a JSON-ready dict: counts, pairs per strategy, QBAF size, π_ar, mean π_pcr, σ of
    every proposal per τ, and the time spent planning, classifying, building and computing.
    """
    from argfaith.metrics.faithfulness import argument_relevance, mean_pro_con_ratio
    from argfaith.mining.pipeline import plan_debate
    from argfaith.qbaf import dfquad_strengths

    t0 = time.perf_counter()
    plan = plan_debate(debate, units=units, segmenter=segmenter)  # type: ignore[arg-type]
    t_plan = time.perf_counter()
    timings: dict[str, float] = {}
    q, codes, pnr = stream_source_qbaf(plan, classifier, tau=plan_tau(taus), progress=progress, timings=timings)
    t_build = time.perf_counter()
    t_cls = t_build - timings["build"]
    props, speech = plan.proposals, plan.speech
    p, n = len(props), len(speech)
    total = len(plan.pairs)
    pids = [u.id for u in props]
    sigma = {}
    for t in taus:
        s = dfquad_strengths(q.with_speech_base_score(t))
        sigma[f"{t:g}"] = [float(s[x]) for x in pids]
    rel = argument_relevance(q)
    m = mean_pro_con_ratio(q, pids)
    t_metrics = time.perf_counter()
    related = codes != 0
    cascade = {f"{pp:g}": (int(np.sum(pnr < pp)) if not np.isnan(pnr).any() else None) for pp in CASCADES}
    dropped = dict(plan.dropped_units)
    out = {
        "debate": debate.id,
        "title": debate.title,
        "interventions": len(debate.interventions),
        "provisions": p,
        "speech_arguments": n,
        "units": plan.unit_method,
        "human_spans": len(debate.spans) if debate.spans is not None else None,
        "dropped": dropped,
        "pairs": {"all": total, **{f"topk{k}": pairs_kept_per_source(n, p, k) for k in TOPK},
                  **{f"cascade{k}": v for k, v in cascade.items()}},
        "attacks": int(np.sum(codes == 1)),
        "supports": int(np.sum(codes == 2)),
        "edge_density": float(np.mean(related)) if total else None,
        "pi_ar": rel.value,
        "mean_pi_pcr": m.value,
        "pi_pcr_undefined": len(m.undefined),
        "sigma": sigma,
        "seconds": {"plan": t_plan - t0, "classify": t_cls - t_plan, "build": t_build - t_cls, "metrics": t_metrics - t_build,
                    "total": t_metrics - t0},
    }
    return out


def plan_tau(taus: Sequence[float]) -> float:
    """The τ stored in the mined QBAF (0.2 when evaluated, else the first)."""
    return 0.2 if 0.2 in taus else taus[0]


def _row(stats: dict[str, Any], primary: float) -> dict[str, Any]:
    d = stats.get("dropped") or {}
    sig = (stats.get("sigma") or {}).get(f"{primary:g}") or []
    secs = stats.get("seconds") or {}
    pairs = stats.get("pairs") or {}
    row = {
        "debate": stats["debate"], "status": "ok", "note": None, "title": stats.get("title"),
        "interventions": stats.get("interventions"), "provisions": stats.get("provisions"),
        "speech_arguments": stats.get("speech_arguments"), "human_spans": stats.get("human_spans"),
        "dropped_chair": d.get("chair", 0), "dropped_stage_direction": d.get("stage_direction", 0),
        "dropped_too_short": d.get("too_short", 0),
        "dropped_other": sum(v for k, v in d.items() if k not in ("chair", "stage_direction", "too_short")),
        "pairs_all": pairs.get("all"),
        **{f"pairs_topk{k}": pairs.get(f"topk{k}") for k in TOPK},
        **{f"pairs_cascade{p:g}": pairs.get(f"cascade{p:g}") for p in CASCADES},
        "attacks": stats.get("attacks"), "supports": stats.get("supports"), "edge_density": stats.get("edge_density"),
        "pi_ar": stats.get("pi_ar"), "mean_pi_pcr": stats.get("mean_pi_pcr"),
        "sigma_mean": statistics.fmean(sig) if sig else None, "sigma_min": min(sig) if sig else None,
        "sigma_max": max(sig) if sig else None,
        "share_above_half": sum(1 for s in sig if s > 0.5 + 1e-9) / len(sig) if sig else None,
        "share_below_half": sum(1 for s in sig if s < 0.5 - 1e-9) / len(sig) if sig else None,
        **{f"seconds_{k}": round(secs.get(k, 0.0), 3) for k in ("plan", "classify", "build", "metrics", "total")},
        "us_per_pair": round(1e6 * secs.get("total", 0.0) / pairs["all"], 1) if pairs.get("all") else None,
    }
    return row


# ---------------------------------------------------------------------------- running
def _process(task: SourceTask, classifier: Any, emit: Callable[[tuple[Any, ...]], None]) -> dict[str, Any]:
    from argfaith.datasets.documents import load_debate

    t0 = time.perf_counter()
    emit(("debate", task.debate_id, 1))
    try:
        deb = load_debate(task.path)

        def progress(done: int, total: int) -> None:
            emit(("pairs", task.debate_id, "source", done, total))

        stats = source_statistics(deb, classifier, units=task.units, segmenter=task.segmenter, taus=task.taus, progress=progress)
        atomic_write_json(task.out / "sources" / f"{task.debate_id}.json", {"key": task.key, "status": "ok", "stats": stats})
        status, note = "ok", None
    except KeyboardInterrupt:
        raise
    except Exception as e:  # noqa: BLE001 - one debate's failure is reported, the corpus goes on
        status, note = "failed", f"{type(e).__name__}: {e}"
    secs = time.perf_counter() - t0
    emit(("item", task.debate_id, "source", status, secs, task.key, note))
    return {"debate": task.debate_id, "status": status, "note": note, "seconds": secs}


def _worker(task: SourceTask) -> dict[str, Any]:
    from argfaith.study.runner import worker_classifier, worker_emit

    try:
        clf = worker_classifier(task.classifier_spec, task.classifier_fingerprint)
    except Exception as e:  # noqa: BLE001
        return {"debate": task.debate_id, "status": "failed", "note": f"{type(e).__name__}: {e}", "seconds": 0.0}
    return _process(task, clf, worker_emit)


def run_source_stats(
    debates: Path,
    out: Path,
    *,
    classifier: str = "offline",
    classifier_object: Any = None,
    units: str = "sentences",
    segmenter: str = "rules",
    taus: Sequence[float] = (0.15, 0.2, 0.25),
    jobs: int = 1,
    only: Sequence[str] = (),
    plots: bool = True,
    on_event: Callable[[tuple[Any, ...]], None] | None = None,
    executor: str = "local",
    scheduler: str | None = None,
    retries: int = 3,
) -> dict[str, Any]:
    """Source statistics of every debate below ``debates``; resumable (see the module docstring).

    Writes ``OUT/sources/<debate>.json``, ``OUT/source_stats.csv`` (one row per debate),
    ``OUT/source_stats.json`` (totals, distributions, timings) and ``OUT/source_stats.md``, plus
    plots. Returns the summary dict of ``source_stats.json``.

    ``executor="dask"`` runs one task per debate on Dask (``jobs`` local workers, or the cluster
    of ``scheduler``; :mod:`argfaith.study.dask_executor`); a classifier object is then sent to
    every worker once.
    """
    from argfaith.datasets.ep import list_ep_debates
    from argfaith.errors import ConfigurationError
    from argfaith.study.fingerprint import FingerprintedClassifier, classifier_fingerprint
    from argfaith.study.runner import _for_mining, _make_classifier, run_in_workers

    t0 = time.perf_counter()
    emit = on_event or (lambda ev: None)
    from argfaith.study.config import check_executor

    check_executor(executor, scheduler, retries)
    if classifier_object is not None and jobs > 1 and executor == "local":
        raise ConfigurationError("a classifier object can only be used with jobs=1 or executor='dask' "
                                 "(local worker processes build theirs from the spec)")
    clf = _for_mining(classifier_object if classifier_object is not None else _make_classifier(classifier))
    fp = classifier_fingerprint(clf)
    folders = list_ep_debates(debates)
    if only:
        folders = [f for f in folders if f.name in set(only)]
    out.mkdir(parents=True, exist_ok=True)
    manifest = Manifest.load(out)
    manifest.data.update(mode="source-only", classifier={"spec": classifier, "name": clf.name, "fingerprint": fp},
                         config={"debates": str(debates), "units": units, "segmenter": segmenter, "taus": list(taus), "jobs": jobs})
    tasks, reused = [], 0
    for f in folders:
        key = digest_json({"v": STUDY_FORMAT_VERSION, "kind": "source-stats", "classifier": fp, "units": units,
                           "segmenter": segmenter, "taus": list(taus), "debate": debate_digest(f)})
        saved = read_json_file(out / "sources" / f"{f.name}.json")
        if isinstance(saved, dict) and saved.get("key") == key and saved.get("status") == "ok":
            reused += 1
            continue
        tasks.append(SourceTask(f.name, f, out, key, classifier, fp, units, segmenter, tuple(taus)))
    # Largest first: the longest debates should not be the last ones running on one core.
    tasks.sort(key=lambda t: -sum(x.stat().st_size for x in (t.path / "interventions").glob("*.json")))
    run = manifest.start_run(pending=len(tasks), reused=reused, jobs=jobs, executor=executor)
    manifest.save()
    results: list[dict[str, Any]] = []

    def record(r: dict[str, Any]) -> None:
        results.append(r)
        manifest.items[r["debate"]] = {k: v for k, v in r.items() if k != "debate"}
        manifest.save()

    emit(("start", len(folders), reused))
    try:
        if executor == "dask" and tasks:
            from argfaith.study.dask_executor import StudySteps, run_sources_on_dask
            from argfaith.study.runner import worker_classifier

            steps = StudySteps(build_classifier=worker_classifier, statistics=_process)
            facts = run_sources_on_dask(tasks, clf, fp, steps=steps, workers=jobs, scheduler=scheduler, retries=retries, emit=emit, record=record,
                                        classifier_object=clf if classifier_object is not None else None)
            run.update(facts)
        elif jobs > 1 and len(tasks) > 1:
            run_in_workers(_worker, tasks, jobs, emit, record)
        else:
            fc = FingerprintedClassifier(clf, fp)
            for t in tasks:
                record(_process(t, fc, emit))
    except KeyboardInterrupt:
        run.update(interrupted=True, done=len(results))
        manifest.save()
        raise
    summary = aggregate_source_stats(out, [f.name for f in folders], taus, {r["debate"]: r for r in results}, plots=plots)
    summary.update(wall_seconds_this_run=round(time.perf_counter() - t0, 1), debates_done_now=len(results), debates_reused=reused,
                   classifier={"name": clf.name, "fingerprint": fp})
    atomic_write_json(out / "source_stats.json", summary)
    run.update(interrupted=False, done=len(results), seconds=round(time.perf_counter() - t0, 1))
    manifest.save()
    return summary


def _quantiles(values: Sequence[float]) -> dict[str, float] | None:
    if not values:
        return None
    a = np.asarray(values, dtype=np.float64)
    return {k: float(np.quantile(a, q)) for k, q in (("min", 0), ("p10", 0.1), ("p25", 0.25), ("median", 0.5), ("p75", 0.75),
                                                       ("p90", 0.9), ("max", 1))} | {"mean": float(a.mean())}


def aggregate_source_stats(out: Path, debate_ids: Sequence[str], taus: Sequence[float], failed_now: dict[str, Any],
                           *, plots: bool = True) -> dict[str, Any]:
    """Combine the per-debate files into the CSV / Markdown / JSON summary (and plots)."""
    from argfaith.study.rows import markdown_table, rows_to_csv

    primary = plan_tau(taus)
    rows, stats = [], []
    for did in debate_ids:
        saved = read_json_file(out / "sources" / f"{did}.json")
        if isinstance(saved, dict) and saved.get("status") == "ok":
            stats.append(saved["stats"])
            rows.append(_row(saved["stats"], primary))
        else:
            note = (failed_now.get(did) or {}).get("note") or "not done"
            rows.append({c: None for c in SOURCE_COLUMNS} | {"debate": did, "status": "failed" if did in failed_now else "missing", "note": note})
    atomic_write_text(out / "source_stats.csv", rows_to_csv(rows, SOURCE_COLUMNS))
    ok = [s for s in stats]
    sig = {f"{t:g}": [x for s in ok for x in s["sigma"][f"{t:g}"]] for t in taus}
    hist_edges = [i / 20 for i in range(21)]
    summary: dict[str, Any] = {
        "debates": len(debate_ids),
        "debates_ok": len(ok),
        "debates_failed": [r["debate"] for r in rows if r["status"] != "ok"],
        "speech_arguments": {"total": sum(s["speech_arguments"] for s in ok), **(_quantiles([s["speech_arguments"] for s in ok]) or {})},
        "provisions": {"total": sum(s["provisions"] for s in ok), **(_quantiles([s["provisions"] for s in ok]) or {})},
        "dropped_units": {k: sum((s.get("dropped") or {}).get(k, 0) for s in ok) for k in sorted({k for s in ok for k in (s.get("dropped") or {})})},
        "pairs": {k: sum(s["pairs"][k] or 0 for s in ok) for k in (ok[0]["pairs"] if ok else {})},
        "attacks": sum(s["attacks"] for s in ok),
        "supports": sum(s["supports"] for s in ok),
        "edge_density": _quantiles([s["edge_density"] for s in ok if s["edge_density"] is not None]),
        "pi_ar": _quantiles([s["pi_ar"] for s in ok if s["pi_ar"] is not None]),
        "mean_pi_pcr": _quantiles([s["mean_pi_pcr"] for s in ok if s["mean_pi_pcr"] is not None]),
        "proposal_sigma": {
            t: {**(_quantiles(v) or {}), "n": len(v),
                "share_above_half": sum(1 for x in v if x > 0.5 + 1e-9) / len(v) if v else None,
                "share_below_half": sum(1 for x in v if x < 0.5 - 1e-9) / len(v) if v else None,
                "share_at_half": sum(1 for x in v if abs(x - 0.5) <= 1e-9) / len(v) if v else None,
                "histogram": {"edges": hist_edges, "counts": np.histogram(v, bins=hist_edges)[0].tolist() if v else []}}
            for t, v in sig.items()
        },
        "seconds": {k: round(sum(s["seconds"][k] for s in ok), 1) for k in ("plan", "classify", "build", "metrics", "total")},
    }
    tot = summary["seconds"]["total"]
    summary["us_per_pair"] = round(1e6 * tot / summary["pairs"]["all"], 1) if summary["pairs"].get("all") else None
    lines = [
        f"# Source-only statistics ({len(ok)} of {len(debate_ids)} debates)\n",
        f"- speech arguments: {summary['speech_arguments']['total']:,} (median {summary['speech_arguments'].get('median', 0):.0f} per debate); "
        f"provisions: {summary['provisions']['total']:,}",
        f"- dropped units: {', '.join(f'{k} {v:,}' for k, v in summary['dropped_units'].items()) or 'none'}",
        "- candidate pairs: " + ", ".join(f"{k} {v:,}" for k, v in summary["pairs"].items()),
        f"- mined edges: {summary['attacks']:,} attacks, {summary['supports']:,} supports",
        f"- classifier time (sum over debates, CPU-bound): {summary['seconds']['classify']:,.0f} s of {tot:,.0f} s; "
        f"{summary['us_per_pair']} µs per pair end to end",
        "",
    ]
    qrows = []
    for t, d in summary["proposal_sigma"].items():
        if d.get("n"):
            qrows.append({"tau": t, **{k: d.get(k) for k in ("n", "min", "p10", "median", "p90", "max", "mean", "share_above_half", "share_below_half", "share_at_half")}})
    lines.append("## Proposal strengths σ in the source QBAFs\n")
    cols = ["tau", "n", "min", "p10", "median", "p90", "max", "mean", "share_above_half", "share_below_half", "share_at_half"]
    lines.append(markdown_table(qrows, cols, ["τ", "proposals", "min", "p10", "median", "p90", "max", "mean", "σ > 0.5", "σ < 0.5", "σ = 0.5"]))
    atomic_write_text(out / "source_stats.md", "\n".join(lines))
    if plots and ok:
        _plots(out / "plots", ok, sig, taus)
    return summary


def _plots(folder: Path, ok: Sequence[dict[str, Any]], sig: dict[str, list[float]], taus: Sequence[float]) -> None:
    from argfaith.study.plots import _figure, _save

    fig = _figure(11, 3.6)
    a, b, c = fig.subplots(1, 3)
    for t in taus:
        a.hist(sig[f"{t:g}"], bins=[i / 20 for i in range(21)], histtype="step", label=f"τ={t:g}")
    a.set_title("proposal σ in source QBAFs", fontsize=10)
    a.set_xlabel("σ")
    a.legend(fontsize=7)
    b.hist([s["speech_arguments"] for s in ok], bins=30, color="#2c3e50")
    b.set_title("speech arguments per debate", fontsize=10)
    c.scatter([s["speech_arguments"] for s in ok], [s["pairs"]["all"] for s in ok], s=8, color="#c0392b")
    c.set_xlabel("speech arguments")
    c.set_ylabel("candidate pairs (all)")
    c.set_title("pairs vs arguments", fontsize=10)
    _save(fig, folder / "source_stats")
