"""The study on the local process pool vs the Dask executor (issue 15): identical outputs, wall
times, overhead per task — and the numbers behind the plan for a 20,000-debate corpus.

Parts (each runs the real CLI in a subprocess, in fresh output folders under OUT):

``study``    the 12-debate case study (56 summary files) with ``--executor local --jobs 1|2`` and
             ``--executor dask --jobs 1|2`` (a local Dask cluster of 1 or 2 workers);
``sources``  source-only statistics (``--source-only``) of a stratified subset of the 309 debates
             (every ``--stride``-th debate by size), local ``--jobs 1|2`` vs Dask 1 and 2 workers;
``dryrun``   the Claude dry run of the 12-debate study (``--dry-run --format json``): cost per
             pair of every strategy, from argfaith's own cost module.

Every run's outputs are compared with the first run of its part, file by file (mined QBAFs,
checkpoints and Markdown byte for byte; JSON up to timings and the output folder's path).
Busy time = the seconds recorded per item and per source in the manifest; overhead per task =
(wall × workers − busy) / tasks; CPU = user + system seconds of the run's whole process tree
(less sensitive than wall time to the other jobs sharing the machine). Prints tables, writes ``benchmarks/results/study_executors.json``.

    ARGFAITH_DATA=/work/shared/data python benchmarks/study_executors.py OUT [--parts study,sources,dryrun] [--stride 10]
        [--tag TAG] [--configs local-1,dask-2] [--classifier 'offline?threads=1']

``--stride 1`` runs every debate of the corpus (no ``--only``); ``--tag`` keeps a run apart from the
untagged results the plan is fitted to.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULT = ROOT / "benchmarks" / "results" / "study_executors.json"

#: (label, executor, workers)
CONFIGS = (("local, 1 process", "local", 1), ("local, 2 processes", "local", 2),
           ("dask, 1 worker", "dask", 1), ("dask, 2 workers", "dask", 2))


def _strip(obj: Any, out: Path) -> Any:
    if isinstance(obj, dict):
        return {k: _strip(v, out) for k, v in obj.items()
                if "seconds" not in k and k not in ("started", "finished", "updated", "us_per_pair")}
    if isinstance(obj, list):
        return [_strip(v, out) for v in obj]
    if isinstance(obj, str):
        return obj.replace(str(out), "OUT")
    return obj


def compare_outputs(a: Path, b: Path) -> dict[str, Any]:
    """Files of ``a`` and ``b`` compared (see the module docstring): counts and differing files."""
    skip = {"study.json", "table.csv", "source_stats.csv"}  # timing columns / run log; the JSON twins are compared
    fa = {p.relative_to(a) for p in a.rglob("*") if p.is_file() and p.name not in skip and p.suffix not in (".png", ".svg")}
    fb = {p.relative_to(b) for p in b.rglob("*") if p.is_file() and p.name not in skip and p.suffix not in (".png", ".svg")}
    differ = sorted(str(x) for x in fa ^ fb)
    for rel in sorted(fa & fb):
        x, y = (a / rel).read_bytes(), (b / rel).read_bytes()
        if rel.suffix == ".json" and rel.parts[0] != "mined":
            same = _strip(json.loads(x), a) == _strip(json.loads(y), b)
        elif rel.suffix in (".html", ".md"):
            same = x.replace(str(a).encode(), b"OUT") == y.replace(str(b).encode(), b"OUT")
            if not same and rel.name == "source_stats.md":  # its time line is a timing
                same = [ln for ln in x.splitlines() if b" s of " not in ln] == [ln for ln in y.splitlines() if b" s of " not in ln]
        else:
            same = x == y
        if not same:
            differ.append(str(rel))
    return {"files": len(fa | fb), "differ": differ, "identical": not differ}


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(args: list[str], log: Path, base_env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system of the command and every process it waited
    for: pool workers, Dask nannies and workers) of one ``argfaith study`` run, in ``base_env``
    (default: this process's environment) without an API key."""
    env = {**(os.environ if base_env is None else base_env), "PYTHONUNBUFFERED": "1"}
    env.pop("ANTHROPIC_API_KEY", None)
    c0, t0 = _cpu(), time.perf_counter()
    with open(log, "w", encoding="utf-8") as fh:
        r = subprocess.run([sys.executable, "-m", "argfaith", "study", *args], stdout=fh, stderr=subprocess.STDOUT, env=env)
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    if r.returncode != 0:
        raise SystemExit(f"error: argfaith study {' '.join(args)} exited {r.returncode}; see {log}")
    return wall, cpu


def _busy(out: Path) -> tuple[float, int, int]:
    """Busy seconds, summary-or-debate items, and Dask-style tasks (sources + items) of a run."""
    m = json.loads((out / "study.json").read_text(encoding="utf-8"))
    items = m.get("items", {})
    busy = sum(float(v.get("seconds") or 0.0) for v in items.values())
    srcs = m.get("sources", {})
    for did, v in srcs.items():
        secs = float(v.get("seconds") or 0.0)
        if "debate_seconds" not in v:  # manifests before the source step was timed apart: whole debate
            secs -= sum(float(x.get("seconds") or 0.0) for k, x in items.items() if k.startswith(did + "/"))
        busy += secs
    return busy, len(items), len(items) + len(srcs)


def _table(rows: list[dict[str, Any]]) -> str:
    cols = ["config", "wall_s", "cpu_s", "busy_s", "tasks", "overhead_per_task_s", "vs_local_same_workers", "cpu_vs_local_same_workers",
            "identical"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        lines.append("| " + " | ".join(str(r.get(c, "")) for c in cols) + " |")
    return "\n".join(lines)


def _measure(name: str, base_args: list[str], out_root: Path, configs: tuple[tuple[str, str, int], ...] = CONFIGS) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    first: Path | None = None
    walls: dict[tuple[str, int], float] = {}
    cpus: dict[tuple[str, int], float] = {}
    for label, ex, n in configs:
        out = out_root / name / f"{ex}-{n}"
        if out.exists():
            raise SystemExit(f"error: {out} exists; use a fresh OUT")
        print(f"[{name}] {label} ...", flush=True)
        wall, cpu = _run([*base_args, "--out", str(out), "--executor", ex, "--jobs", str(n), "--no-plots"], out_root / f"{name}-{ex}-{n}.log")
        busy, items, tasks = _busy(out)
        walls[(ex, n)] = wall
        cpus[(ex, n)] = cpu
        row = {"config": label, "executor": ex, "workers": n, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "busy_s": round(busy, 1),
               "items": items, "tasks": tasks, "overhead_per_task_s": round((wall * n - busy) / tasks, 3),
               "loadavg_after": [round(x, 2) for x in os.getloadavg()]}
        if ex == "dask" and ("local", n) in walls:
            row["vs_local_same_workers"] = f"{(wall - walls[('local', n)]) / tasks:+.3f} s/task"
            row["cpu_vs_local_same_workers"] = f"{(cpu - cpus[('local', n)]) / tasks:+.3f} s/task"
        cmp_ = compare_outputs(first, out) if first is not None else {"identical": True, "files": None, "differ": []}
        row["identical"] = cmp_["identical"]
        row["files_compared"] = cmp_["files"]
        row["differ"] = cmp_["differ"][:20]
        first = first or out
        rows.append(row)
        print(f"  wall {wall:.1f} s, busy {busy:.1f} s, {tasks} tasks, identical to the first run: {row['identical']}", flush=True)
    return {"rows": rows}


def plan_20k(res: dict[str, Any], study_out: Path, *, debates: int, summaries_per_debate: int,
             offline_tag: str = "offline_t1") -> dict[str, Any]:
    """The numbers for a corpus of ``debates`` EP-like debates with ``summaries_per_debate``
    summaries each, from this file's measurements, the 309-debate source statistics and the
    stance timing (``benchmarks/stance_timing.py``).

    Dask's CPU cost is split into a fixed part (cluster start and stop) and a part per task by
    fitting ``ΔCPU = a + b · tasks`` to the study (68 tasks) and the sources subset (15 tasks).
    """
    full = json.loads((ROOT / "benchmarks" / "results" / "case_study_sources.json").read_text(encoding="utf-8"))["summary"]
    src_pairs = full["pairs"]["all"] / full["debates"]
    dry = res["dryrun"]
    n_sum = sum(d["summaries"] for d in dry["debates"])
    sum_pairs = sum(d["summary_pairs"] for d in dry["debates"]) / n_sum
    pairs_total = debates * (src_pairs + summaries_per_debate * sum_pairs)
    # CPU time (user + system of the whole run, not disturbed by the other jobs on the machine):
    # per source pair from the source-only subset on one local process (end to end: planning,
    # classifying, building, metrics, process start-up); per summary from the 12-debate study on
    # one local process, less its sources' pairs at that rate.
    rows = {(name, r["executor"], r["workers"]): r for name in ("study", "sources") for r in res[name]["rows"]}
    src_cpu_us = 1e6 * rows[("sources", "local", 1)]["cpu_s"] / res["sources"]["subset_pairs"]
    sub = res["sources"]["subset_seconds"]
    classify_cpu_us = src_cpu_us * sub["classify"] / sub["total"]
    study_src_pairs = sum(d["source_pairs"] for d in dry["debates"])
    n_ok = sum(1 for v in json.loads((study_out / "local-1" / "study.json").read_text(encoding="utf-8"))["items"].values()
               if v.get("status") == "ok")
    per_summary_cpu = (rows[("study", "local", 1)]["cpu_s"] - study_src_pairs * src_cpu_us / 1e6) / n_ok
    # For comparison, the wall-clock figures of the 309-debate run (benchmarks/case_study).
    us_wall_309 = 1e6 * full["seconds"]["total"] / full["pairs"]["all"]
    # Dask CPU overhead: fixed + per task.
    fits = []
    for n in (1, 2):
        d_study = rows[("study", "dask", n)]["cpu_s"] - rows[("study", "local", n)]["cpu_s"]
        d_src = rows[("sources", "dask", n)]["cpu_s"] - rows[("sources", "local", n)]["cpu_s"]
        t_study, t_src = rows[("study", "dask", n)]["tasks"], rows[("sources", "dask", n)]["tasks"]
        b = (d_study - d_src) / (t_study - t_src)
        fits.append((d_src - b * t_src, b))
    fixed_cpu = sum(f[0] for f in fits) / len(fits)
    per_task_cpu = sum(f[1] for f in fits) / len(fits)
    tasks = debates * (1 + summaries_per_debate)
    offline_core_s = debates * (src_pairs * src_cpu_us / 1e6 + summaries_per_debate * per_summary_cpu) + tasks * per_task_cpu
    plan: dict[str, Any] = {
        "debates": debates, "summaries_per_debate": summaries_per_debate,
        "source_pairs_per_debate": round(src_pairs), "summary_pairs_per_summary": round(sum_pairs),
        "pairs_total": round(pairs_total), "source_pairs_total": round(debates * src_pairs), "tasks": tasks,
        "offline_cpu_us_per_pair_classify": round(classify_cpu_us, 1), "offline_cpu_us_per_source_pair_end_to_end": round(src_cpu_us, 1),
        "per_summary_cpu_seconds_end_to_end": round(per_summary_cpu, 3), "wall_us_per_source_pair_309_run": round(us_wall_309, 1),
        "dask_fixed_cpu_s": round(fixed_cpu, 1), "dask_cpu_per_task_s": round(per_task_cpu, 3),
        "offline_core_days": round(offline_core_s / 86_400, 2),
        "offline_workers_for_one_day": int(-(-offline_core_s // 86_400)),
    }
    st_path = ROOT / "benchmarks" / "results" / "stance_timing.json"
    if st_path.exists():
        st = json.loads(st_path.read_text(encoding="utf-8"))
        # The two-stage offline model (relatedness x stance) replaces the features model's
        # classification time; the rest (planning, building, metrics, reports) stays.
        non_model_s = offline_core_s - pairs_total * classify_cpu_us / 1e6
        stance_core_s = non_model_s + pairs_total * st["cpu_us_per_pair"] / 1e6
        plan.update(stance_model=st["model"], stance_cpu_us_per_pair=st["cpu_us_per_pair"], stance_share=st.get("stance_share"),
                    stance_mean_tokens=st.get("mean_tokens"),
                    stance_core_days=round(stance_core_s / 86_400, 1), stance_workers_for_one_day=int(-(-stance_core_s // 86_400)))
        if "cross_encoder_cpu_us_per_pair" in st:  # for comparison: the cross-encoder on every pair (no first stage)
            every_s = non_model_s + pairs_total * (st["stage1_cpu_us_per_pair"] + st["cross_encoder_cpu_us_per_pair"]) / 1e6
            plan.update(cross_encoder_cpu_us_per_pair=st["cross_encoder_cpu_us_per_pair"], stage1_cpu_us_per_pair=st["stage1_cpu_us_per_pair"],
                        cross_encoder_every_pair_core_days=round(every_s / 86_400, 1),
                        cross_encoder_every_pair_workers_for_one_day=int(-(-every_s // 86_400)))
    if "sources_full" in res:  # the features model over the whole corpus (all 309 debates) on one process
        r1 = next(r for r in res["sources_full"]["rows"] if (r["executor"], r["workers"]) == ("local", 1))
        full_us = 1e6 * r1["cpu_s"] / res["sources_full"]["subset_pairs"]
        plan.update(features_cpu_us_per_source_pair_309=round(full_us, 1),
                    features_core_days_309_rate=round((offline_core_s + debates * src_pairs * (full_us - src_cpu_us) / 1e6) / 86_400, 2))
    # The two-stage offline model measured end to end through the engine (one thread per process):
    # per source pair from its source-only subset on one process, per summary from its 12-debate study.
    st_key, so_key = f"study_{offline_tag}", f"sources_{offline_tag}"
    if st_key in res and so_key in res:
        orow = {(name, r["executor"], r["workers"]): r for name in (st_key, so_key) for r in res[name]["rows"]}
        o_src_us = 1e6 * orow[(so_key, "local", 1)]["cpu_s"] / res[so_key]["subset_pairs"]
        o_ok = sum(1 for v in json.loads((study_out.parent / st_key / "local-1" / "study.json").read_text(encoding="utf-8"))["items"].values()
                   if v.get("status") == "ok")
        o_per_summary = (orow[(st_key, "local", 1)]["cpu_s"] - study_src_pairs * o_src_us / 1e6) / o_ok
        o_core_s = debates * (src_pairs * o_src_us / 1e6 + summaries_per_debate * o_per_summary) + tasks * per_task_cpu
        plan.update(offline_measured_spec=res[so_key].get("classifier", {}).get("spec"),
                    offline_measured_cpu_us_per_source_pair=round(o_src_us, 1), offline_measured_cpu_s_per_summary=round(o_per_summary, 2),
                    offline_measured_core_days=round(o_core_s / 86_400, 1),
                    offline_measured_workers_for_one_day=int(-(-o_core_s // 86_400)))
    strategies = []
    for e in dry["total"]:
        per_m = e["usd"] / e["pairs"] * 1e6
        strategies.append({"strategy": e["strategy"], "usd_per_million_pairs": round(per_m, 3), "optimistic": e["optimistic"],
                           "usd_total": round(per_m * pairs_total / 1e6), "requests_total": round(e["requests"] / e["pairs"] * pairs_total),
                           "output_tokens_total": round(e["output_tokens"] / e["pairs"] * pairs_total),
                           "input_tokens_total": round(e["prompt_tokens"] / e["pairs"] * pairs_total)})
    plan.update(claude_model=dry["model"], claude=strategies,
                claude_cheapest_not_optimistic=min((x for x in strategies if not x["optimistic"]), key=lambda x: x["usd_total"]),
                claude_cheapest=min(strategies, key=lambda x: x["usd_total"]))
    return plan


def print_plan(p: dict[str, Any]) -> None:
    print(f"plan: {p['debates']:,} debates x ({p['source_pairs_per_debate']:,} source pairs + {p['summaries_per_debate']} summaries x "
          f"{p['summary_pairs_per_summary']:,} pairs) = {p['pairs_total']:,} pairs, {p['tasks']:,} tasks")
    print(f"dask CPU overhead: {p['dask_fixed_cpu_s']} s per run + {p['dask_cpu_per_task_s']} s per task")
    print(f"features (CPU): {p['offline_cpu_us_per_pair_classify']} us/pair classifying, {p['offline_cpu_us_per_source_pair_end_to_end']} "
          f"us/source pair end to end, {p['per_summary_cpu_seconds_end_to_end']} s per summary -> {p['offline_core_days']} core-days = "
          f"{p['offline_workers_for_one_day']} single-core workers for a day")
    if "stance_core_days" in p:
        print(f"offline two-stage ({p['stance_model']}): {p['stance_cpu_us_per_pair']} us CPU/pair (cross-encoder on "
              f"{p.get('stance_share')} of the pairs) -> {p['stance_core_days']} core-days = {p['stance_workers_for_one_day']} single-core "
              "workers for a day")
    if "cross_encoder_every_pair_core_days" in p:
        print(f"  cross-encoder on every pair: {p['cross_encoder_cpu_us_per_pair']} us CPU/pair -> {p['cross_encoder_every_pair_core_days']} "
              f"core-days = {p['cross_encoder_every_pair_workers_for_one_day']} workers for a day")
    if "features_cpu_us_per_source_pair_309" in p:
        print(f"features over all 309 debates: {p['features_cpu_us_per_source_pair_309']} us CPU/source pair end to end -> "
              f"{p['features_core_days_309_rate']} core-days")
    if "offline_measured_core_days" in p:
        print(f"offline measured through the engine ({p['offline_measured_spec']}): {p['offline_measured_cpu_us_per_source_pair']} us CPU/"
              f"source pair, {p['offline_measured_cpu_s_per_summary']} s CPU/summary -> {p['offline_measured_core_days']} core-days = "
              f"{p['offline_measured_workers_for_one_day']} single-core workers for a day")
    for x in p["claude"]:
        print(f"  claude {p['claude_model']} {x['strategy']:<18} ${x['usd_per_million_pairs']:.2f}/M pairs -> ${x['usd_total']:,}, "
              f"{x['requests_total']:,} requests" + (" (optimistic)" if x["optimistic"] else ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="scratch folder for the runs' outputs (must not hold earlier runs)")
    ap.add_argument("--data", type=Path, default=Path(os.environ["ARGFAITH_DATA"]) if os.environ.get("ARGFAITH_DATA") else None)
    ap.add_argument("--parts", default="study,sources,dryrun,plan")
    ap.add_argument("--stride", type=int, default=10, help="sources part: every STRIDE-th debate by size")
    # The measurements in study_executors.md used the pair-feature model, the default `offline` of
    # the time, now named `features`; `offline` (relatedness x stance) needs argfaith/data/stance_model.*.
    ap.add_argument("--classifier", default="features")
    ap.add_argument("--tag", default="", help="store the study / sources results under 'study_TAG' / 'sources_TAG' (and run them in "
                    "OUT/study_TAG, OUT/sources_TAG), keeping the untagged results the plan is fitted to")
    ap.add_argument("--configs", default="", help="comma-separated subset of local-1,local-2,dask-1,dask-2 (default: all four)")
    ap.add_argument("--plan-debates", type=int, default=20_000)
    ap.add_argument("--plan-summaries", type=int, default=6, help="summaries per debate in the plan (the shared data has 6 variants)")
    a = ap.parse_args()
    if a.data is None:
        print("error: pass --data DIR or set ARGFAITH_DATA", file=sys.stderr)
        return 2
    a.out.mkdir(parents=True, exist_ok=True)
    res: dict[str, Any] = json.loads(RESULT.read_text(encoding="utf-8")) if RESULT.exists() else {}
    from argfaith.mining.classifiers.registry import make_classifier
    from argfaith.mining.classifiers.prior import mining_classifier
    from argfaith.study.fingerprint import classifier_fingerprint

    parts = set(a.parts.split(","))
    # The classifier and machine of the runs; top-level for the untagged runs the plan is fitted to,
    # and inside every part's entry (rescan and plan reuse earlier runs).
    meta: dict[str, Any] = {}
    if parts & {"study", "sources"}:
        clf = mining_classifier(make_classifier(a.classifier))
        meta["classifier"] = {"spec": a.classifier, "class": f"{type(clf).__module__}.{type(clf).__qualname__}", "name": clf.name,
                              "fingerprint": classifier_fingerprint(clf)}
        meta["machine"] = {"cpus": os.cpu_count(), "loadavg_start": [round(x, 2) for x in os.getloadavg()], "date": time.strftime("%Y-%m-%d")}
        if not a.tag:
            res.update(meta)
    configs = tuple(c for c in CONFIGS if f"{c[1]}-{c[2]}" in a.configs.split(",")) if a.configs else CONFIGS
    common = ["--classifier", a.classifier, "-q"]
    study_key, sources_key = (f"study_{a.tag}", f"sources_{a.tag}") if a.tag else ("study", "sources")
    if "study" in parts:
        res[study_key] = _measure(study_key, ["--data", str(a.data), *common], a.out, configs)
        res[study_key].update(meta)
        print(_table(res[study_key]["rows"]))
    if "sources" in parts:
        from argfaith.datasets.ep import list_ep_debates

        folders = sorted(list_ep_debates(a.data / "ep_debates"),
                         key=lambda f: sum(x.stat().st_size for x in (f / "interventions").glob("*.json")))
        # --stride 1: every debate of the corpus (no --only filter)
        subset = [f.name for f in folders[a.stride // 2 :: a.stride]]
        only = [x for d in subset for x in ("--only", d)] if a.stride > 1 else []
        res[sources_key] = _measure(sources_key, ["--source-only", "--debates", str(a.data / "ep_debates"), *common, *only], a.out, configs)
        s = json.loads((a.out / sources_key / f"{configs[0][1]}-{configs[0][2]}" / "source_stats.json").read_text(encoding="utf-8"))
        full = json.loads((ROOT / "benchmarks" / "results" / "case_study_sources.json").read_text(encoding="utf-8"))["summary"]
        res[sources_key].update(subset=subset, stride=a.stride, subset_pairs=s["pairs"]["all"], subset_speech=s["speech_arguments"]["total"],
                                subset_seconds=s["seconds"], corpus_pairs=full["pairs"]["all"], corpus_debates=full["debates"],
                                pair_share=s["pairs"]["all"] / full["pairs"]["all"], **meta)
        print(_table(res[sources_key]["rows"]))
        print(f"subset: {len(subset)} of {full['debates']} debates, {s['pairs']['all']:,} of {full['pairs']['all']:,} pairs "
              f"({res[sources_key]['pair_share']:.1%})")
    if "dryrun" in parts:
        out = a.out / "dryrun"
        r = subprocess.run([sys.executable, "-m", "argfaith", "study", "--data", str(a.data), "--out", str(out), "--classifier", "claude",
                            "--dry-run", "--format", "json", "-q"], capture_output=True, text=True,
                           env={k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"})
        if r.returncode != 0:
            raise SystemExit(f"error: dry run failed: {r.stderr[-2000:]}")
        res["dryrun"] = json.loads(r.stdout)
    if "rescan" in parts:  # recompute busy time and overhead from the runs' manifests
        for name in ("study", "sources"):
            for row in res.get(name, {}).get("rows", []):
                busy, _, tasks = _busy(a.out / name / f"{row['executor']}-{row['workers']}")
                row.update(busy_s=round(busy, 1), tasks=tasks, overhead_per_task_s=round((row["wall_s"] * row["workers"] - busy) / tasks, 3))
            if name in res:
                print(_table(res[name]["rows"]))
    if "plan" in parts:
        res["plan"] = plan_20k(res, a.out / "study", debates=a.plan_debates, summaries_per_debate=a.plan_summaries)
        print_plan(res["plan"])
    if meta:
        meta["machine"]["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    RESULT.write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {RESULT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
