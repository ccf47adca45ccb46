"""Benchmark: the QBAF engine — DF-QuAD, pro/con sets, batches — against the plain-Python reference.

Workloads (all random, seeded; base scores uniform in [0, 1]; half attacks, half supports):

* ``dfquad/dag``: random DAGs of 10^3..10^6 arguments with ~5 edges per argument, each edge
  from an argument to a uniformly chosen earlier one — numbered in debate order like a source
  QBAF (the kernel then evaluates rows sequentially);
* ``dfquad/dag-shuffled``: the same DAGs with randomly permuted labels (no usable order:
  depth-first post-order, random memory access — the worst case);
* ``dfquad/cyclic-sync``, ``dfquad/cyclic-rk4``: uniformly random digraphs with ~5 edges per
  argument — one giant strongly connected component iterated to tol = 1e-9;
* ``procon/corpus``: pro/con sets of *every* proposal of a corpus of debate QBAFs (debates of
  500 arguments, 5% proposals, ~5 edges per speech argument to an earlier speech argument or
  a proposal of the same debate — the source-QBAF shape of PAPER.md §7);
* ``relevance/corpus``: relevance mask (π_ar) of the same corpus;
* ``batch/dag``, ``batch/cyclic``: 100,000 QBAFs of 20 arguments and ~40 edges each, one
  kernel call (``QBAFBatch.from_arrays`` + ``dfquad_batch``).

Every row compares the numba engine with :mod:`argfaith.qbaf.reference` in the same run and
checks that the results agree. Where the reference would take too long it is run on a capped
size or a sample and *extrapolated* (``reference_extrapolated`` is true and ``notes`` says how).
Numba timings are the best of ``--repeat`` runs after JIT warm-up; ``seconds`` is wall time,
``cpu_seconds`` the process CPU time of the same run (this 2-core machine is shared, so wall
time includes waiting for a core). ``build_seconds`` is ``QBAF.from_arrays`` (validation +
incoming CSR) on the same arrays.

The bipolar rows come from ``benchmarks/engine_bipolar.py:run(quick)`` when that file exists.

``--baseline REV`` (e.g. ``main``) also times argfaith as it was at git revision ``REV`` on the
same inputs, in the same process, alternately with the current code (``benchmarks/baseline.py``):
every DF-QuAD, batch, pro/con and relevance row gets ``seconds_paired`` and ``baseline_seconds``
(and the same for the build), the best of ``--repeat`` runs of each taken alternately — so both
run on caches the other has just used, slower than ``seconds`` at small sizes — and
``vs_baseline`` = seconds_paired / baseline_seconds together with the median of the paired ratios
(``vs_baseline_median``, robust to load changes between pairs); the per-target set-attack search
(the bipolar kernel both versions share) gets rows ``set-attacks-search/...`` of its own. The
results must agree.

Run ``python benchmarks/engine.py [--quick]``: prints a table, writes
``benchmarks/results/engine.json``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

# The argfaith beside this script, also when an editable install points at another checkout:
# otherwise the timings (and the "after" of --baseline) would be of that checkout's code.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from argfaith.qbaf import QBAF, dfquad_strengths  # noqa: E402
from argfaith.qbaf.batch import QBAFBatch, dfquad_batch  # noqa: E402
from argfaith.qbaf.paths import pro_con_index, relevance_mask  # noqa: E402
from argfaith.qbaf.reference import dfquad_reference, pro_con_sets_reference  # noqa: E402

__all__ = ["random_dag", "random_digraph", "debate_corpus", "batch_arrays", "run", "main"]

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # baseline.py, engine_bipolar.py
RESULTS = HERE / "results" / "engine.json"
SIZES = (1_000, 10_000, 100_000, 1_000_000)
QUICK_SIZES = (500, 2_000)
EDGES_PER_ARGUMENT = 5


# ------------------------------------------------------------------------------- generators
def _dedupe(src: np.ndarray, tgt: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    code = np.unique(src * n + tgt)
    e = np.stack(np.divmod(code, n), axis=1)
    rng.shuffle(e)
    return e


def _split(e: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    is_att = rng.random(len(e)) < 0.5
    return np.ascontiguousarray(e[is_att]), np.ascontiguousarray(e[~is_att])


def random_dag(n: int, seed: int = 0, k: int = EDGES_PER_ARGUMENT, shuffle: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(τ, attacks, supports) of a random DAG with ~k·n edges, each from an argument to a
    uniformly chosen earlier one (debate order, like a source QBAF); ``shuffle`` relabels the
    arguments randomly (the worst case for memory locality)."""
    rng = np.random.default_rng(seed)
    m = k * n
    src = rng.integers(1, n, m) if n > 1 else np.zeros(0, np.int64)
    tgt = (rng.random(len(src)) * src).astype(np.int64)  # a lower rank: acyclic
    perm = rng.permutation(n) if shuffle else np.arange(n)
    e = _dedupe(perm[src], perm[tgt], n, rng)
    return (rng.random(n), *_split(e, rng))


def random_digraph(n: int, seed: int = 0, k: int = EDGES_PER_ARGUMENT) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(τ, attacks, supports) of a uniformly random digraph (no self-loops) with ~k·n edges."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, k * n)
    tgt = rng.integers(0, n - 1, k * n)
    tgt = tgt + (tgt >= src)
    e = _dedupe(src, tgt, n, rng)
    return (rng.random(n), *_split(e, rng))


def debate_corpus(n: int, seed: int = 0, debate_size: int = 500, k: int = EDGES_PER_ARGUMENT) -> QBAF:
    """A corpus of source-shaped debate QBAFs (PAPER.md §7) concatenated into one QBAF."""
    rng = np.random.default_rng(seed)
    size = min(debate_size, n)
    n_deb = max(1, n // size)
    n_p = max(1, size // 20)
    local_src = rng.integers(n_p, size, (n_deb, k * (size - n_p)))
    to_prop = rng.random(local_src.shape) < 0.3
    earlier = (rng.random(local_src.shape) * (local_src - n_p)).astype(np.int64) + n_p
    local_tgt = np.where(to_prop | (local_src == n_p), rng.integers(0, n_p, local_src.shape), earlier)
    base = (np.arange(n_deb) * size)[:, None]
    total = n_deb * size
    e = _dedupe((local_src + base).ravel(), (local_tgt + base).ravel(), total, rng)
    att, sup = _split(e, rng)
    is_prop = np.zeros(total, np.bool_)
    is_prop[(base + np.arange(n_p)).ravel()] = True
    tau = np.where(is_prop, 0.5, 0.2)
    return QBAF.from_arrays(tau, att, sup, is_proposal=is_prop, debate=True)


def batch_arrays(n_fw: int, size: int = 20, edges: int = 40, cyclic: bool = False, seed: int = 0) -> dict[str, np.ndarray]:
    """Concatenated arrays of ``n_fw`` random QBAFs for :meth:`QBAFBatch.from_arrays`."""
    rng = np.random.default_rng(seed)
    s = rng.integers(0, size, (n_fw, 2 * edges))
    t = rng.integers(0, size, (n_fw, 2 * edges))
    keep = (s > t) if not cyclic else (s != t)
    fw = np.broadcast_to(np.arange(n_fw)[:, None], s.shape)[keep]
    code = np.unique(fw * size * size + s[keep] * size + t[keep])
    f, rest = np.divmod(code, size * size)
    ok = np.zeros(len(code), np.bool_)  # keep at most `edges` per framework
    first = np.searchsorted(f, np.arange(n_fw))
    ok[np.arange(len(code)) - first[f] < edges] = True
    f, rest = f[ok], rest[ok]
    e = np.stack(np.divmod(rest, size), axis=1)
    is_att = rng.random(len(e)) < 0.5
    off = lambda mask: np.concatenate([[0], np.cumsum(np.bincount(f[mask], minlength=n_fw))])  # noqa: E731
    return dict(
        base_scores=rng.random(n_fw * size),
        node_offsets=np.arange(0, n_fw * size + 1, size),
        attacks=e[is_att],
        attack_offsets=off(is_att),
        supports=e[~is_att],
        support_offsets=off(~is_att),
    )


# --------------------------------------------------------------------------------- timing
def _timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, time.process_time() - c0, out


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    best = (float("inf"), float("inf"), None)
    for _ in range(repeat):
        w, c, out = _timed(fn)
        if w < best[0]:
            best = (w, c, out)
    return best


#: argfaith at the ``--baseline`` revision (a module), or None.
OLD: Any = None


def _old(sub: str) -> Any:
    """A submodule of the baseline package (``"qbaf.batch"`` → ``argfaith_<sha>.qbaf.batch``)."""
    return importlib.import_module(f"{OLD.__name__}.{sub}")


def _versus(row: dict[str, Any], new: Callable[[], Any], old: Callable[[], Any], repeat: int,
            same: Callable[[Any, Any], bool], build: tuple[Callable[[], Any], Callable[[], Any]] | None = None) -> None:
    """Time ``new`` and ``old`` alternately (best of ``repeat`` each) into ``row``; their outputs
    must agree by ``same``."""
    from baseline import paired

    (nw, _, a), (ow, _, b), med = paired(new, old, repeat, _timed)
    assert same(a, b), f"{row['task']} n={row['n_arguments']}: the baseline disagrees"
    row.update(seconds_paired=nw, baseline_seconds=ow, vs_baseline=nw / ow if ow > 0 else None, vs_baseline_median=med)
    if build is not None:
        (bw, _, _), (obw, _, _), bmed = paired(build[0], build[1], max(1, repeat), _timed)
        row.update(build_seconds_paired=bw, baseline_build_seconds=obw, build_vs_baseline_median=bmed)


def _same_strengths(a: Any, b: Any) -> bool:
    return bool(np.array_equal(a.values, b.values) and (a.converged, a.iterations, a.residual) == (b.converged, b.iterations, b.residual))


def _row(task: str, n: int, m: int, wall: float, cpu: float, **kw: Any) -> dict[str, Any]:
    ref = kw.get("reference_seconds")
    return {
        "task": task,
        "n_arguments": n,
        "n_edges": m,
        "seconds": wall,
        "cpu_seconds": cpu,
        "build_seconds": kw.get("build_seconds"),
        "reference_seconds": ref,
        "reference_extrapolated": kw.get("reference_extrapolated", False),
        "speedup": (ref / wall) if ref is not None and wall > 0 else None,
        "notes": kw.get("notes", ""),
    }


def _warm_up() -> None:
    q = QBAF.from_arrays([0.5, 0.5, 0.5], attacks=[(0, 1), (1, 0)], supports=[(1, 2)], is_proposal=[False, False, True])
    for method in ("sync", "rk4"):
        dfquad_strengths(q, method=method)
        dfquad_strengths(QBAF.from_arrays([0.5, 0.2], attacks=[(1, 0)]), method=method)
        dfquad_batch(QBAFBatch.from_arrays(**batch_arrays(3, 5, 6, cyclic=True)), method=method)
    pro_con_index(q, q.ids)
    relevance_mask(q)
    _ = q.out_csr


# ----------------------------------------------------------------------------------- tasks
def bench_dfquad(sizes: tuple[int, ...], repeat: int, ref_cap: int, cyclic: bool, method: str, log: Callable[[str], None],
                 shuffle: bool = False) -> list[dict[str, Any]]:
    rows = []
    last_ref: tuple[float, int] | None = None  # (seconds per edge-visit, size) of the largest measured reference
    for n in sizes:
        tau, att, sup = random_digraph(n, seed=n) if cyclic else random_dag(n, seed=n, shuffle=shuffle)
        b_wall, _, q = _best(lambda: QBAF.from_arrays(tau, att, sup), 1 if n >= 10**6 else repeat)
        wall, cpu, r = _best(lambda: dfquad_strengths(q, method=method, max_iter=1000), repeat)
        sweeps = max(1, r.iterations) * (4 if method == "rk4" else 1)
        notes = f"converged={r.converged}, iterations={r.iterations}, residual={r.residual:.2g}"
        if n <= ref_cap:
            ref_wall, _, (vals, conv, it, res) = _timed(lambda: dfquad_reference(q, method=method, max_iter=1000))
            assert np.array_equal(np.array(vals), r.values) and (conv, it, res) == (r.converged, r.iterations, r.residual), (
                f"numba and reference disagree on {n}"
            )
            last_ref = (ref_wall / (q.n_edges * sweeps + q.n), n)
            extrapolated = False
            notes += "; identical to the reference"
        else:
            assert last_ref is not None
            ref_wall = last_ref[0] * (q.n_edges * sweeps + q.n)
            extrapolated = True
            notes += f"; reference extrapolated per edge-visit from n={last_ref[1]}"
        task = ("dfquad/dag-shuffled" if shuffle else "dfquad/dag") if not cyclic else f"dfquad/cyclic-{method}"
        rows.append(_row(task, q.n, q.n_edges, wall, cpu, build_seconds=b_wall, reference_seconds=ref_wall,
                         reference_extrapolated=extrapolated, notes=notes))
        if OLD is not None:
            oq = _old("qbaf").QBAF.from_arrays(tau, att, sup)
            _versus(rows[-1], lambda: dfquad_strengths(q, method=method, max_iter=1000),
                    lambda: _old("qbaf").dfquad_strengths(oq, method=method, max_iter=1000), repeat, _same_strengths,
                    build=(lambda: QBAF.from_arrays(tau, att, sup), lambda: _old("qbaf").QBAF.from_arrays(tau, att, sup)))
            del oq
            log(f"  baseline {rows[-1]['baseline_seconds']:.4f} s: x{rows[-1]['vs_baseline']:.3f} (median pair x{rows[-1]['vs_baseline_median']:.3f})")
        log(f"{task} n={n}: {wall:.4f} s (build {b_wall:.3f} s), reference {ref_wall:.2f} s")
        del q, r
    return rows


def bench_procon(sizes: tuple[int, ...], repeat: int, sample: int, log: Callable[[str], None]) -> list[dict[str, Any]]:
    rows = []
    for n in sizes:
        q = debate_corpus(n, seed=n)
        props = q.proposals
        wall, cpu, index = _best(lambda: pro_con_index(q), repeat)
        rng = np.random.default_rng(n)
        picked = sorted(rng.choice(len(props), min(sample, len(props)), replace=False).tolist())
        # The reference shares one adjacency build across targets; time it apart so that
        # scaling a sample of targets up to all of them stays honest.
        build_wall, _, _ = _timed(lambda: pro_con_sets_reference(q, []))
        ref_wall, _, ref = _timed(lambda: pro_con_sets_reference(q, [props[k] for k in picked]))
        for k in picked:
            got = index.procon(k)
            assert (got.pro, got.con) == ref[props[k]], f"pro/con of {props[k]} differs"
        full = build_wall + max(ref_wall - build_wall, 0.0) * len(props) / len(picked)
        pairs = int(index.pro_ptr[-1] + index.con_ptr[-1])
        rows.append(_row("procon/corpus", q.n, q.n_edges, wall, cpu, reference_seconds=full,
                         reference_extrapolated=len(picked) < len(props),
                         notes=f"{len(props)} proposals, {pairs} (argument, proposal) pro/con pairs; reference "
                               f"(pro_con_sets_reference) on {len(picked)} proposals"
                               + (" scaled to all (adjacency build counted once)" if len(picked) < len(props) else "")))
        log(f"procon n={n}: {wall:.4f} s, reference {full:.2f} s")
        if OLD is not None:
            oq = _old("qbaf").QBAF.from_arrays(q.base_scores, q.attack_array, q.support_array, is_proposal=q.is_proposal, debate=True)
            _versus(rows[-1], lambda: pro_con_index(q), lambda: _old("qbaf.paths").pro_con_index(oq), repeat,
                    lambda a, b: np.array_equal(a.pro_idx, b.pro_idx) and np.array_equal(a.con_idx, b.con_idx))
        wall, cpu, mask = _best(lambda: relevance_mask(q), repeat)
        ref_wall, _, expected = _timed(lambda: _relevance_reference(q))
        assert set(np.flatnonzero(mask).tolist()) == expected
        rows.append(_row("relevance/corpus", q.n, q.n_edges, wall, cpu, reference_seconds=ref_wall,
                         notes=f"{int(mask.sum())} relevant speech arguments; reference: Python BFS"))
        if OLD is not None:
            _versus(rows[-1], lambda: relevance_mask(q), lambda: _old("qbaf.paths").relevance_mask(oq), repeat, np.array_equal)
    return rows


def _relevance_reference(q: QBAF) -> set[int]:
    pred: list[list[int]] = [[] for _ in range(q.n)]
    for s, t in q.attack_array.tolist() + q.support_array.tolist():
        pred[t].append(s)
    is_prop = q.is_proposal.tolist()
    seen: set[int] = set()
    todo = [u for x in range(q.n) if is_prop[x] for u in pred[x]]
    while todo:
        v = todo.pop()
        if v not in seen:
            seen.add(v)
            todo.extend(pred[v])
    return {v for v in seen if not is_prop[v]}


def bench_batch(n_fw: int, repeat: int, sample: int, log: Callable[[str], None]) -> list[dict[str, Any]]:
    rows = []
    for cyclic in (False, True):
        arrays = batch_arrays(n_fw, cyclic=cyclic, seed=7)
        b_wall, _, batch = _best(lambda: QBAFBatch.from_arrays(**arrays), repeat)
        wall, cpu, r = _best(lambda: dfquad_batch(batch, max_iter=1000), repeat)
        rng = np.random.default_rng(1)
        picked = rng.choice(n_fw, min(sample, n_fw), replace=False).tolist()
        qs = [batch.qbaf(f) for f in picked]
        ref_wall, _, refs = _timed(lambda: [dfquad_reference(q, max_iter=1000) for q in qs])
        one_wall, _, ones = _timed(lambda: [dfquad_strengths(q, max_iter=1000) for q in qs])
        for f, (vals, conv, it, res), one in zip(picked, refs, ones):
            assert np.array_equal(np.array(vals), r.strengths(f)) and np.array_equal(one.values, r.strengths(f))
            assert (conv, it, res) == (bool(r.converged[f]), int(r.iterations[f]), float(r.residual[f]))
        scale = n_fw / len(picked)
        m = int(len(batch.attacks) + len(batch.supports))
        rows.append(_row(f"batch/{'cyclic' if cyclic else 'dag'}", batch.n_arguments, m, wall, cpu,
                         build_seconds=b_wall, reference_seconds=ref_wall * scale, reference_extrapolated=scale > 1,
                         notes=f"{n_fw} QBAFs x 20 args; {int(r.converged.sum())} converged; "
                               f"one dfquad_strengths call per QBAF: {one_wall * scale:.1f} s; reference: "
                               f"dfquad_reference per QBAF on {len(picked)} QBAFs" + (" scaled" if scale > 1 else "")))
        if OLD is not None:
            ob = _old("qbaf.batch")
            obatch = ob.QBAFBatch.from_arrays(**arrays)
            _versus(rows[-1], lambda: dfquad_batch(batch, max_iter=1000), lambda: ob.dfquad_batch(obatch, max_iter=1000), repeat,
                    lambda a, b: np.array_equal(a.values, b.values) and np.array_equal(a.iterations, b.iterations)
                    and np.array_equal(a.residual, b.residual) and np.array_equal(a.converged, b.converged),
                    build=(lambda: QBAFBatch.from_arrays(**arrays), lambda: ob.QBAFBatch.from_arrays(**arrays)))
            del obatch
        log(f"batch cyclic={cyclic}: {wall:.3f} s (+ from_arrays {b_wall:.3f} s), reference {ref_wall * scale:.1f} s")
    return rows


def bench_set_attack_search(sizes: tuple[int, ...], repeat: int, log: Callable[[str], None]) -> list[dict[str, Any]]:
    """The per-target set-attack search kernel (what ``set_attacks(q, algorithm="search")``
    runs) against the baseline's, on the bipolar benchmark's frameworks (``--baseline`` only).
    The kernel is called directly: ``set_attacks`` returns a relation cached on the QBAF, so
    timing it twice would time a dictionary lookup."""
    from engine_bipolar import VARIANTS, bipolar_framework

    from argfaith.qbaf import _bipolar_kernels as K
    from argfaith.qbaf.bipolar import _csr

    OK = _old("qbaf._bipolar_kernels")
    rows = []
    for variant in ("debate", "summary"):
        for n in sizes:
            q = bipolar_framework(n, seed=n, **VARIANTS[variant])
            args = (q.n, *_csr(q.n, q.support_array, by_target=True), *_csr(q.n, q.attack_array, by_target=True))
            wall, cpu, (ptr, idx, _) = _best(lambda: K.set_attack_csr(*args), repeat)
            rows.append(_row(f"set-attacks-search/{variant}", q.n, q.n_edges, wall, cpu, notes=f"|R| = {len(idx)}; the kernel alone"))
            _versus(rows[-1], lambda: K.set_attack_csr(*args), lambda: OK.set_attack_csr(*args), repeat,
                    lambda a, b: all(np.array_equal(x, y) for x, y in zip(a, b)))
            log(f"set-attacks-search/{variant} n={n}: {wall:.4f} s, baseline x{rows[-1]['vs_baseline']:.3f}")
    return rows


def bipolar_rows(quick: bool, log: Callable[[str], None]) -> tuple[list[dict[str, Any]], str]:
    path = HERE / "engine_bipolar.py"
    if not path.exists():
        msg = "benchmarks/engine_bipolar.py not found: bipolar rows skipped"
        log(msg)
        return [], msg
    spec = importlib.util.spec_from_file_location("engine_bipolar", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rows = mod.run(quick)
    for r in rows:
        r.setdefault("cpu_seconds", None)
        r.setdefault("build_seconds", None)
        r.setdefault("reference_extrapolated", False)
    return rows, f"{len(rows)} rows from benchmarks/engine_bipolar.py run(quick={quick})"


TASKS = ("dfquad/dag", "dfquad/dag-shuffled", "dfquad/cyclic-sync", "dfquad/cyclic-rk4", "procon", "batch", "bipolar")


def run(quick: bool = False, *, repeat: int = 3, ref_cap: int = 1_000_000, bipolar: bool = True,
        only: tuple[str, ...] = TASKS,
        log: Callable[[str], None] = lambda s: print(s, file=sys.stderr)) -> tuple[list[dict[str, Any]], list[str]]:
    """Run the workloads named in ``only``; returns (rows, notes).

    ``ref_cap`` is the largest DAG the reference runs on in full; on cyclic graphs the reference
    runs up to min(ref_cap, 10^5) (sync) and min(ref_cap, 10^4) (rk4, four f-evaluations per
    step) and is extrapolated beyond.
    """
    _warm_up()
    sizes = QUICK_SIZES if quick else SIZES
    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    if "dfquad/dag" in only:
        rows += bench_dfquad(sizes, repeat, ref_cap, cyclic=False, method="sync", log=log)
    if "dfquad/dag-shuffled" in only:
        rows += bench_dfquad(sizes, repeat, ref_cap, cyclic=False, method="sync", log=log, shuffle=True)
    if "dfquad/cyclic-sync" in only:
        rows += bench_dfquad(sizes, repeat, min(ref_cap, 100_000), cyclic=True, method="sync", log=log)
    if "dfquad/cyclic-rk4" in only:
        rk4_sizes = tuple(s for s in sizes if s <= 100_000)
        rows += bench_dfquad(rk4_sizes, repeat, min(ref_cap, 10_000), cyclic=True, method="rk4", log=log)
    if "procon" in only:
        rows += bench_procon(sizes, repeat, sample=50 if quick else 1_000, log=log)
    if "batch" in only:
        rows += bench_batch(1_000 if quick else 100_000, repeat, sample=200 if quick else 2_000, log=log)
    if bipolar and "bipolar" in only:
        more, note = bipolar_rows(quick, log)
        rows += more
        notes.append(note)
        if OLD is not None:
            rows += bench_set_attack_search((200, 1000) if quick else (1000, 2000, 5000), repeat, log)
    return rows, notes


def _fmt(v: float | None, spec: str) -> str:
    return "—" if v is None else format(v, spec)


def print_table(rows: list[dict[str, Any]]) -> None:
    head = f"{'task':<26} {'n':>9} {'edges':>9} {'seconds':>9} {'cpu s':>8} {'build s':>8} {'reference s':>12} {'speedup':>9}"
    base = any("baseline_seconds" in r for r in rows)
    if base:
        head += f" {'baseline s':>10} {'× baseline':>10} {'median':>7}"
    print(head)
    print("-" * len(head))
    for r in rows:
        ref = _fmt(r["reference_seconds"], ".3f") + ("*" if r.get("reference_extrapolated") else "")
        line = (
            f"{r['task']:<26} {r['n_arguments']:>9} {r['n_edges']:>9} {r['seconds']:>9.4f} "
            f"{_fmt(r.get('cpu_seconds'), '8.3f'):>8} {_fmt(r.get('build_seconds'), '8.3f'):>8} {ref:>12} "
            f"{_fmt(r['speedup'], '8.0f') + 'x' if r['speedup'] is not None else '—':>9}"
        )
        if base:
            line += (f" {_fmt(r.get('baseline_seconds'), '10.4f'):>10} {_fmt(r.get('vs_baseline'), '10.3f'):>10}"
                     f" {_fmt(r.get('vs_baseline_median'), '7.3f'):>7}")
        print(line)
    print("* reference extrapolated (see notes in the JSON)")


def markdown(res: dict[str, Any]) -> str:
    """The write-up's table from a results JSON (``--tables FILE``); with the before/after
    columns when the run had ``--baseline``."""
    rows = res["rows"]
    base = any("baseline_seconds" in r for r in rows)
    head = "| task | n | edges | seconds | CPU s | build s | reference s | speedup |"
    rule = "|---|---:|---:|---:|---:|---:|---:|---:|"
    if base:
        head += " paired: after s | before s | × | median × | build median × |"
        rule += "---:|---:|---:|---:|---:|"
    out = [head, rule]
    f = lambda v, spec: "—" if v is None else format(v, spec)  # noqa: E731
    for r in rows:
        ref = "—" if r.get("reference_seconds") is None else f"{r['reference_seconds']:.2f}" + (" *" if r.get("reference_extrapolated") else "")
        line = (f"| {r['task']} | {r['n_arguments']:,} | {r['n_edges']:,} | {r['seconds']:.4f} | {f(r.get('cpu_seconds'), '.3f')} | "
                f"{f(r.get('build_seconds'), '.3f')} | {ref} | {f(r.get('speedup'), ',.0f') + '×' if r.get('speedup') else '—'} |")
        if base:
            line += (f" {f(r.get('seconds_paired'), '.4f')} | {f(r.get('baseline_seconds'), '.4f')} | {f(r.get('vs_baseline'), '.3f')} | "
                     f"{f(r.get('vs_baseline_median'), '.3f')} | {f(r.get('build_vs_baseline_median'), '.3f')} |")
        out.append(line)
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes only (smoke run)")
    ap.add_argument("--repeat", type=int, default=3, help="numba runs per measurement (best is kept)")
    ap.add_argument("--reference-cap", type=int, default=1_000_000, help="largest DAG the reference runs on in full")
    ap.add_argument("--only", nargs="+", choices=TASKS, default=list(TASKS), help="workloads to run")
    ap.add_argument("--skip-bipolar", action="store_true", help="do not import benchmarks/engine_bipolar.py")
    ap.add_argument("--out", type=Path, default=RESULTS, help="JSON output path")
    ap.add_argument("--baseline", default=None, metavar="REV", help="also time argfaith at git revision REV (benchmarks/baseline.py)")
    ap.add_argument("--tables", type=Path, default=None, help="print the Markdown table of an earlier results JSON and exit")
    args = ap.parse_args(argv)
    if args.tables is not None:
        print(markdown(json.loads(args.tables.read_text(encoding="utf-8"))), end="")
        return
    if args.baseline:
        global OLD
        from baseline import load_baseline

        OLD = load_baseline(args.baseline)
    t0 = time.perf_counter()
    load0 = os.getloadavg()
    rows, notes = run(args.quick, repeat=args.repeat, ref_cap=args.reference_cap, bipolar=not args.skip_bipolar,
                      only=tuple(args.only))
    print_table(rows)
    import numba

    meta = {
        "benchmark": "engine",
        "command": "python benchmarks/engine.py" + (" " + " ".join(argv if argv is not None else sys.argv[1:])).rstrip(),
        "quick": args.quick,
        "repeat": args.repeat,
        "python": platform.python_version(),
        "numba": numba.__version__,
        "numpy": np.__version__,
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "load_average_start": load0,
        "load_average_end": os.getloadavg(),
        "total_seconds": time.perf_counter() - t0,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "argfaith": str(Path(sys.modules["argfaith"].__file__).parent),
        "notes": notes,
        "baseline": None if OLD is None else {"revision": args.baseline, "package": OLD.__name__},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
