"""Which process setting makes a study's tasks slower or faster (issue 15)?

The 309-debate source-only run (``benchmarks/study_executors.md``) spent different time *inside*
its tasks on the local pool and on Dask. Dask's nanny starts workers with
``distributed.nanny.pre-spawn-environ`` (one BLAS / OpenMP thread, ``MALLOC_TRIM_THRESHOLD_``);
the local executor's processes inherit the caller's environment. This script runs the same
source-only study on one local process under each setting, repeated and interleaved (so a drift
of the machine hits every setting alike), and once on a one-worker Dask cluster:

``default``      the caller's environment, less the four variables below (so every setting starts alike)
``blas1``        ``OMP_NUM_THREADS = MKL_NUM_THREADS = OPENBLAS_NUM_THREADS = 1``
``malloc_trim``  ``MALLOC_TRIM_THRESHOLD_=65536``
``dask_env``     both (what a Dask worker gets)
``dask``         ``--executor dask --jobs 1`` in the caller's environment

Prints a table (median wall, CPU and busy seconds per setting, ratio to ``default``) and writes
``benchmarks/results/worker_env.json``.

    ARGFAITH_DATA=/work/shared/data python benchmarks/worker_env.py OUT [--stride 20] [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from study_executors import _busy, _run  # noqa: E402  (benchmarks are scripts, not a package)

ROOT = Path(__file__).resolve().parents[1]
RESULT = ROOT / "benchmarks" / "results" / "worker_env.json"

BLAS1 = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
TRIM = {"MALLOC_TRIM_THRESHOLD_": "65536"}
#: name -> (environment overrides, executor)
SETTINGS: dict[str, tuple[dict[str, str], str]] = {
    "default": ({}, "local"), "blas1": (BLAS1, "local"), "malloc_trim": (TRIM, "local"),
    "dask_env": ({**BLAS1, **TRIM}, "local"), "dask": ({}, "dask"),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path, help="scratch folder (must not hold earlier runs)")
    ap.add_argument("--data", type=Path, default=Path(os.environ["ARGFAITH_DATA"]) if os.environ.get("ARGFAITH_DATA") else None)
    ap.add_argument("--stride", type=int, default=20, help="every STRIDE-th debate by size (as study_executors.py's sources part)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--classifier", default="features")
    ap.add_argument("--settings", default=",".join(SETTINGS))
    a = ap.parse_args()
    if a.data is None:
        print("error: pass --data DIR or set ARGFAITH_DATA", file=sys.stderr)
        return 2
    names = a.settings.split(",")
    bad = [n for n in names if n not in SETTINGS]
    if bad:
        print(f"error: --settings: unknown setting {bad[0]!r} (known: {', '.join(SETTINGS)})", file=sys.stderr)
        return 2
    from argfaith.datasets.ep import list_ep_debates

    folders = sorted(list_ep_debates(a.data / "ep_debates"), key=lambda f: sum(x.stat().st_size for x in (f / "interventions").glob("*.json")))
    subset = [f.name for f in folders[a.stride // 2 :: a.stride]]
    only = [x for d in subset for x in ("--only", d)]
    a.out.mkdir(parents=True, exist_ok=True)
    runs: dict[str, list[dict[str, float]]] = {n: [] for n in names}
    for rep in range(a.repeat):
        for name in names:
            overrides, ex = SETTINGS[name]
            out = a.out / f"{name}-{rep}"
            if out.exists():
                raise SystemExit(f"error: {out} exists; use a fresh OUT")
            env = {k: v for k, v in os.environ.items() if k not in (*BLAS1, *TRIM)}
            wall, cpu = _run(["--source-only", "--debates", str(a.data / "ep_debates"), "--classifier", a.classifier, "-q", "--no-plots",
                              "--executor", ex, "--jobs", "1", "--out", str(out), *only], a.out / f"{name}-{rep}.log", {**env, **overrides})
            busy, _, tasks = _busy(out)
            runs[name].append({"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "busy_s": round(busy, 2)})
            print(f"[{rep}] {name:<12} wall {wall:7.1f} s  CPU {cpu:7.1f} s  busy {busy:7.1f} s ({tasks} tasks)", flush=True)
    med = {n: {k: statistics.median(r[k] for r in runs[n]) for k in ("wall_s", "cpu_s", "busy_s")} for n in names}
    base = med.get("default")
    print("| setting | environment | wall s | CPU s | busy s | busy / default |")
    print("|---|---|---:|---:|---:|---:|")
    for n in names:
        shown = " ".join(f"{k}={v}" for k, v in SETTINGS[n][0].items()) or "(caller's)"
        ratio = f"{med[n]['busy_s'] / base['busy_s']:.3f}" if base else ""
        print(f"| {n} | {shown}{' + Dask worker' if SETTINGS[n][1] == 'dask' else ''} | {med[n]['wall_s']:.1f} | {med[n]['cpu_s']:.1f} | "
              f"{med[n]['busy_s']:.1f} | {ratio} |")
    RESULT.write_text(json.dumps({"date": time.strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count(), "classifier": a.classifier,
                                  "subset": subset, "repeat": a.repeat, "runs": runs, "median": med,
                                  "loadavg_end": [round(x, 2) for x in os.getloadavg()]}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {RESULT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
