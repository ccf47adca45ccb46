"""Benchmark: a focused before/after re-run of chosen engine rows, with a noise floor.

``benchmarks/engine.py --baseline REV`` times every row a few times; a row that comes out more
than 5% slower there is re-run here with many more paired samples. Each sample times a loop of k
calls (k chosen so that one sample takes about ``--target`` seconds), the code at this checkout
and argfaith at ``--baseline`` alternately (the order flipping every round); the row reports the
median of the per-round ratios new / old for wall and CPU time, and the quartiles of the wall
ratios. ``--aa`` times the baseline against itself — what the same code scatters on this machine.
Outputs are checked equal (bit for bit) before timing.

    python benchmarks/engine_paired.py dfquad/cyclic-sync@1e6 batch/cyclic@2e6 --rounds 15
    python benchmarks/engine_paired.py dfquad/cyclic-sync@1e6 --aa       # the noise floor

Rows: ``dfquad/{dag,dag-shuffled,cyclic-sync,cyclic-rk4}@N``, ``build/<same>@N``,
``gradual/<semantics>/<workload>@N`` (the graphs of ``benchmarks/semantics.py``),
``relevance/corpus@N``, ``procon/corpus@N``, ``batch/{dag,cyclic}@N``, ``batchbuild/{dag,cyclic}@N``
(N arguments as in ``benchmarks/engine.py``; for batches N is the number of QBAFs of 20 arguments).
"""
import argparse
import gc
import importlib
import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the argfaith beside this script, not an installed one
sys.path.insert(0, str(HERE))

import numpy as np  # noqa: E402
from baseline import load_baseline  # noqa: E402
from engine import batch_arrays, debate_corpus, random_dag, random_digraph  # noqa: E402

from argfaith.qbaf import QBAF, dfquad_strengths  # noqa: E402
from argfaith.qbaf.batch import QBAFBatch, dfquad_batch  # noqa: E402
from argfaith.qbaf.gradual import gradual_strengths  # noqa: E402
from argfaith.qbaf.semantics import NAMED  # noqa: E402
from argfaith.qbaf.paths import relevance_mask  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("rows", nargs="+")
ap.add_argument("--baseline", default="8250463", help="git revision to compare with")
ap.add_argument("--rounds", type=int, default=15)
ap.add_argument("--target", type=float, default=0.1, help="seconds per sample (loops of k calls)")
ap.add_argument("--aa", action="store_true", help="time the baseline against itself")
ap.add_argument("--out", help="append the rows as JSON lines to this file")
args = ap.parse_args()
old = load_baseline(args.baseline)
oq = importlib.import_module(old.__name__ + ".qbaf")
opaths = importlib.import_module(old.__name__ + ".qbaf.paths")
obatch = importlib.import_module(old.__name__ + ".qbaf.batch")
ogradual = importlib.import_module(old.__name__ + ".qbaf.gradual")


def case(row):
    kind, n = row.rsplit("@", 1)
    n = int(float(n))
    if kind.startswith("dfquad/") or kind.startswith("build/"):
        wl = kind.split("/", 1)[1]
        method = "rk4" if wl == "cyclic-rk4" else "sync"
        tau, a, s = random_digraph(n, seed=n) if wl.startswith("cyclic") else random_dag(n, seed=n, shuffle=wl == "dag-shuffled")
        if kind.startswith("build/"):
            return (lambda: QBAF.from_arrays(tau, a, s)), (lambda: oq.QBAF.from_arrays(tau, a, s)), lambda x, y: np.array_equal(x.base_scores, y.base_scores)
        q, o = QBAF.from_arrays(tau, a, s), oq.QBAF.from_arrays(tau, a, s)
        return (lambda: dfquad_strengths(q, method=method, max_iter=1000)), (lambda: oq.dfquad_strengths(o, method=method, max_iter=1000)), \
            lambda x, y: np.array_equal(x.values, y.values) and (x.iterations, x.residual) == (y.iterations, y.residual)
    if kind.startswith("gradual/"):  # gradual/<semantics>/<workload>: the graphs of benchmarks/semantics.py
        _, sem, wl = kind.split("/")
        method = "rk4" if wl == "cyclic-rk4" else "sync"
        tau, a, s = random_digraph(n, seed=n) if wl.startswith("cyclic") else random_dag(n, seed=n, shuffle=wl == "dag-shuffled")
        if NAMED[sem].attack_only:  # as benchmarks/semantics.py: supports become attacks
            a, s = np.concatenate([a, s]), np.zeros((0, 2), a.dtype)
        q, o = QBAF.from_arrays(tau, a, s), oq.QBAF.from_arrays(tau, a, s)
        return (lambda: gradual_strengths(q, sem, method=method, max_iter=1000)), \
            (lambda: ogradual.gradual_strengths(o, sem, method=method, max_iter=1000)), \
            lambda x, y: np.array_equal(x.values, y.values) and (x.iterations, x.residual) == (y.iterations, y.residual)
    if kind == "relevance/corpus":
        q = debate_corpus(n, seed=n)
        o = oq.QBAF.from_arrays(q.base_scores, q.attack_array, q.support_array, is_proposal=q.is_proposal, debate=True)
        q.in_csr, o.in_csr
        return (lambda: relevance_mask(q)), (lambda: opaths.relevance_mask(o)), np.array_equal
    if kind == "procon/corpus":
        from argfaith.qbaf.paths import pro_con_index
        q = debate_corpus(n, seed=n)
        o = oq.QBAF.from_arrays(q.base_scores, q.attack_array, q.support_array, is_proposal=q.is_proposal, debate=True)
        q.in_csr, o.in_csr
        return (lambda: pro_con_index(q)), (lambda: opaths.pro_con_index(o)), lambda x, y: np.array_equal(x.pro_idx, y.pro_idx)
    if kind.startswith("batchbuild/"):
        arrays = batch_arrays(n, cyclic=kind.endswith("cyclic"), seed=7)
        return (lambda: QBAFBatch.from_arrays(**arrays)), (lambda: obatch.QBAFBatch.from_arrays(**arrays)), \
            lambda x, y: np.array_equal(x.base_scores, y.base_scores)
    if kind.startswith("batch/"):
        arrays = batch_arrays(n, cyclic=kind.endswith("cyclic"), seed=7)
        b, ob = QBAFBatch.from_arrays(**arrays), obatch.QBAFBatch.from_arrays(**arrays)
        return (lambda: dfquad_batch(b, max_iter=1000)), (lambda: obatch.dfquad_batch(ob, max_iter=1000)), \
            lambda x, y: np.array_equal(x.values, y.values)
    raise SystemExit(f"unknown row {row}")


def sample(fn, k):
    gc.collect()
    c0, t0 = time.process_time(), time.perf_counter()
    for _ in range(k):
        fn()
    return (time.perf_counter() - t0) / k, (time.process_time() - c0) / k


for row in args.rows:
    new, oldf, same = case(row)
    assert same(new(), oldf()), row
    if args.aa:
        new = oldf
    t0 = time.perf_counter(); new(); oldf(); one = (time.perf_counter() - t0) / 2
    k = max(1, int(args.target / max(one, 1e-7)))
    rw, rc, tn, to = [], [], [], []
    for r in range(args.rounds):
        if r % 2 == 0:
            a = sample(new, k); b = sample(oldf, k)
        else:
            b = sample(oldf, k); a = sample(new, k)
        tn.append(a); to.append(b)
        rw.append(a[0] / b[0]); rc.append(a[1] / b[1])
    q = statistics.quantiles(rw, n=4)
    print(f"{row:28s} {'A/A ' if args.aa else ''}k={k:<6d} new {min(x[0] for x in tn):.6f}s old {min(x[0] for x in to):.6f}s "
          f"best-ratio {min(x[0] for x in tn) / min(x[0] for x in to):.3f} median wall {statistics.median(rw):.3f} "
          f"(IQR {q[0]:.3f}-{q[2]:.3f}) median cpu {statistics.median(rc):.3f}", flush=True)
    if args.out:
        with open(args.out, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"row": row, "aa": args.aa, "baseline": args.baseline, "k": k, "rounds": args.rounds,
                                 "best_new": min(x[0] for x in tn), "best_old": min(x[0] for x in to),
                                 "median_wall_ratio": statistics.median(rw), "wall_ratio_q1": q[0], "wall_ratio_q3": q[2],
                                 "median_cpu_ratio": statistics.median(rc)}) + "\n")
