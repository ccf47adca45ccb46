"""Benchmark: every gradual semantics at 10^3–10^6 arguments, acyclic and cyclic, side by side with
QBAF-Py and Uncertainpy when they are importable; and building a framework from Python containers.

Sections
--------
``semantics``: for each named semantics of :mod:`argfaith.qbaf.semantics` and each workload

* ``dag``: random DAGs with ~5 edges per argument, each to a uniformly chosen earlier argument
  (debate order, like a source QBAF) — :func:`benchmarks.engine.random_dag`;
* ``dag-shuffled``: the same graphs with random labels (depth-first post-order, random access);
* ``cyclic-sync`` / ``cyclic-rk4``: uniformly random digraphs with ~5 edges per argument, one
  giant strongly connected component iterated to tol 1e-9 (``max_iter`` 1000);

the row records argfaith's kernel time on a prebuilt QBAF (best of ``--repeat``), the ratio to
argfaith's DF-QuAD on the *same graph in the same run* (the "within 2× of DF-QuAD" target), the
time a library user pays from Python lists (``QBAF.from_edges`` + ``gradual_strengths``), the
plain-Python reference (:func:`argfaith.qbaf.reference.gradual_reference`; checked bit for bit)
up to ``--reference-max`` arguments, and the peers that offer the semantics, called as their
users call them (construction from the same Python lists + evaluation), with the largest
absolute difference from argfaith's strengths. Attack-only semantics (the weighted
h-categorizer) get the same graphs with every edge an attack; the restricted Euler-based
semantics only the acyclic workloads.

Peers (public GitHub projects, not on PyPI; never a dependency of argfaith):

* QBAF-Py (github.com/TimKam/Quantitative-Bipolar-Argumentation, C extension ``qbaf``):
  ``DFQuAD_model``, ``QuadraticEnergy_model``, ``EulerBased_model``; acyclic frameworks by
  its dependency-order evaluation, cyclic ones by its synchronous iteration (``allow_cycles``,
  compared with ``cyclic-sync`` only).
* Uncertainpy (github.com/nicopotyka/Uncertainpy, ``uncertainpy.gradual``, pure Python):
  product × linear(1) (DF-QuAD), sum × quadratic-maximum(1) (quadratic energy), sum × Euler,
  sum × MLP; acyclic by ``algorithms.Acyclic.computeStrengthValues``, cyclic by its RK4 on the
  continuous model (step 0.5, stop at derivative < 1e-9; compared with ``cyclic-rk4`` only).

Each is skipped with a note when it cannot be imported. To measure them, build/unpack them
outside the repository and put them on the path, e.g.::

    git clone .../Quantitative-Bipolar-Argumentation /work/wt/peers/qbafpy
    (cd /work/wt/peers/qbafpy && python setup.py build_ext --inplace)
    PYTHONPATH=/work/wt/peers/qbafpy:/work/wt/peers/uncertainpy/src python benchmarks/semantics.py

``construction``: ``QBAF.from_arrays`` (numpy arrays), ``QBAF.from_edges`` from lists of int
pairs, tuples, a dict ``{id: τ}`` with id pairs, and ``from_networkx`` on a DiGraph, at
``--construction-n`` arguments (default 10^6, ~5·10^6 edges); every result is checked equal.

``lists``: the whole job from Python containers on one shuffled DAG (``--lists-n`` arguments,
default 10^6, ~5·10^6 edges) against two plain-Python yardsticks — the plain-Python reference
(:func:`argfaith.qbaf.reference.dfquad_reference`, on the built framework) and
:func:`plain_python_dfquad` (from the same lists) — for the kernel alone, ``QBAF.from_edges`` +
``dfquad_strengths`` from lists of int pairs, from a dict ``{id: τ}`` with pairs of the id objects,
and with pairs of equal but distinct strings; with ``--baseline``, each also at ``REV``.

``--plain-max N`` (default 10^6): on the DAG workloads, the DF-QuAD rows also time a plain-Python
pass over the same Python lists (:func:`plain_python_dfquad`: incoming lists, a depth-first
topological order, the products; no numpy, checked bit-identical) — the yardstick of "the whole
job from Python lists" (``QBAF.from_edges`` + solve) and of the kernel alone.

``--baseline REV`` (e.g. ``main``): every row also times argfaith at git revision ``REV`` on the
same graph, in the same process, alternately with the current code (``benchmarks/baseline.py``):
the kernel on a prebuilt QBAF and the whole job from Python lists, best of ``--repeat`` each,
with the median of the paired ratios. The results must agree bit for bit.

Run ``python benchmarks/semantics.py [--quick]``: prints tables, writes
``benchmarks/results/semantics.json``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))  # the argfaith beside this script, not an installed one elsewhere

from baseline import paired  # noqa: E402
from engine import random_dag, random_digraph  # noqa: E402

from argfaith.qbaf import QBAF, from_networkx  # noqa: E402
from argfaith.qbaf.gradual import gradual_strengths  # noqa: E402
from argfaith.qbaf.reference import gradual_reference  # noqa: E402
from argfaith.qbaf.semantics import NAMED  # noqa: E402

__all__ = ["run", "main"]

RESULTS = HERE / "results" / "semantics.json"
SIZES = (1_000, 10_000, 100_000, 1_000_000)
QUICK_SIZES = (500, 2_000)
WORKLOADS = ("dag", "dag-shuffled", "cyclic-sync", "cyclic-rk4")

#: Which peer offers which named semantics, and under which name.
QBAFPY_MODELS = {
    "dfquad": "DFQuAD_model",
    "quadratic-energy": "QuadraticEnergy_model",
    "euler-based": "EulerBased_model",
    "restricted-euler-based": "EulerBased_model",
}
UNCERTAINPY_PAIRS = {
    "dfquad": ("ProductAggregation", ("LinearInfluence", 1)),
    "quadratic-energy": ("SumAggregation", ("QuadraticMaximumInfluence", 1)),
    "euler-based": ("SumAggregation", ("EulerBasedInfluence",)),
    "restricted-euler-based": ("SumAggregation", ("EulerBasedInfluence",)),
    "mlp-based": ("SumAggregation", ("MLPBasedInfluence",)),
}


# ------------------------------------------------------------------------------- timing
def _timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    gc.collect()
    c0, t0 = time.process_time(), time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, time.process_time() - c0, out


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    best: tuple[float, float, Any] = (float("inf"), float("inf"), None)
    for _ in range(repeat):
        w, c, out = _timed(fn)
        if w < best[0]:
            best = (w, c, out)
    return best


# -------------------------------------------------------------------------------- peers
def _import(name: str) -> tuple[Any, str | None]:
    try:
        return importlib.import_module(name), None
    except Exception as e:  # noqa: BLE001 - any import failure means "not present"
        return None, f"{name} not importable ({type(e).__name__}: {e})"


def qbafpy_strengths(mod: Any, sem: str, ids: list[str], tau: list[float], att: list[tuple[str, str]], sup: list[tuple[str, str]], cyclic: bool) -> np.ndarray:
    """QBAF-Py as its users call it: QBAFramework(arguments, strengths, attacks, supports, ...)."""
    f = mod.QBAFramework(ids, tau, att, sup, semantics=QBAFPY_MODELS[sem], allow_cycles=cyclic, max_iterations=1000,
                         convergence_threshold=1e-9)
    s = f.final_strengths
    return np.fromiter((s[a] for a in ids), dtype=np.float64, count=len(ids))


def uncertainpy_strengths(mods: tuple[Any, ...], sem: str, ids: list[str], tau: list[float], att: list[tuple[str, str]],
                          sup: list[tuple[str, str]], cyclic: bool) -> np.ndarray:
    """Uncertainpy as its users call it: a BAG of Argument objects, then the modular model."""
    gradual, modular, algorithms = mods
    agg_name, inf_spec = UNCERTAINPY_PAIRS[sem]
    agg = getattr(modular, agg_name)()
    inf = getattr(modular, inf_spec[0])(*inf_spec[1:])
    bag = gradual.BAG()
    objs = {a: gradual.Argument(a, t) for a, t in zip(ids, tau)}
    bag.arguments = dict(objs)
    for s, t in att:
        bag.add_attack(objs[s], objs[t])
    for s, t in sup:
        bag.add_support(objs[s], objs[t])
    if not cyclic:
        st = algorithms.computeStrengthValues(bag, agg, inf)
        return np.fromiter((st[objs[a]] for a in ids), dtype=np.float64, count=len(ids))
    model = gradual.semantics.ContinuousModularModel(agg, inf, BAG=bag)
    model.approximator = algorithms.RK4(model)
    model.solve(0.5, 1e-9, verbose=False)
    return np.fromiter((objs[a].strength for a in ids), dtype=np.float64, count=len(ids))


def _peers() -> tuple[dict[str, Any], list[str]]:
    out: dict[str, Any] = {}
    notes = []
    q, why = _import("qbaf")
    if q is not None and hasattr(q, "QBAFramework"):
        out["qbaf-py"] = q
    else:
        notes.append(f"QBAF-Py skipped: {why or 'module qbaf has no QBAFramework'}")
    mods = []
    for m in ("uncertainpy.gradual", "uncertainpy.gradual.semantics.modular", "uncertainpy.gradual.algorithms"):
        mod, why = _import(m)
        if mod is None:
            notes.append(f"Uncertainpy skipped: {why}")
            break
        mods.append(mod)
    else:
        out["uncertainpy"] = tuple(mods)
    return out, notes


def _peer_offers(peer: str, sem: str, workload: str) -> bool:
    """Whether ``peer`` offers ``sem`` *with the same scheme*: on cyclic graphs QBAF-Py iterates
    synchronously (compared with ``cyclic-sync``) and Uncertainpy integrates the continuous model
    by RK4 (compared with ``cyclic-rk4``)."""
    if sem == "restricted-euler-based" and workload.startswith("cyclic"):
        return False
    if peer == "qbaf-py":
        return sem in QBAFPY_MODELS and workload != "cyclic-rk4"
    return sem in UNCERTAINPY_PAIRS and workload != "cyclic-sync"


# ------------------------------------------------------------------------- plain Python
def plain_python_dfquad(tau: list[float], attacks: list[tuple[int, int]], supports: list[tuple[int, int]]) -> list[float]:
    """DF-QuAD of an acyclic framework given as Python lists, in plain Python: the attackers and
    supporters of each argument in input order, then a depth-first pass that evaluates each
    argument once its predecessors are done (the products in input order, as the engine)."""
    n = len(tau)
    att: list[list[int]] = [[] for _ in range(n)]
    sup: list[list[int]] = [[] for _ in range(n)]
    for s, t in attacks:
        att[t].append(s)
    for s, t in supports:
        sup[t].append(s)
    sigma: list[float | None] = [None] * n
    for r in range(n):
        if sigma[r] is not None:
            continue
        stack = [r]
        while stack:
            v = stack[-1]
            todo = [u for u in att[v] if sigma[u] is None] + [u for u in sup[v] if sigma[u] is None]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            if sigma[v] is not None:
                continue
            pa = 1.0
            for u in att[v]:
                pa *= 1.0 - sigma[u]  # type: ignore[operator]
            ps = 1.0
            for u in sup[v]:
                ps *= 1.0 - sigma[u]  # type: ignore[operator]
            va, vs, v0 = 1.0 - pa, 1.0 - ps, tau[v]
            sigma[v] = v0 - v0 * (va - vs) if va >= vs else v0 + (1.0 - v0) * (vs - va)
    return sigma  # type: ignore[return-value]


# ---------------------------------------------------------------------------- semantics
def _graph(workload: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if workload == "dag":
        return random_dag(n, seed=seed)
    if workload == "dag-shuffled":
        return random_dag(n, seed=seed, shuffle=True)
    return random_digraph(n, seed=seed)


def run_semantics(
    sizes: tuple[int, ...], *, repeat: int, reference_max: int, peer_max: int, peer_cyclic_max: int, rk4_max: int,
    semantics: list[str], workloads: list[str], use_peers: bool, log: Callable[[str], None],
    plain_max: int = 0, old: Any = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    peers, notes = _peers() if use_peers else ({}, ["peers not measured (--skip-peers)"])
    rows: list[dict[str, Any]] = []
    for workload in workloads:
        cyclic = workload.startswith("cyclic")
        method = "rk4" if workload == "cyclic-rk4" else "sync"
        for n in sizes:
            if workload == "cyclic-rk4" and n > rk4_max:
                continue
            tau, a, s = _graph(workload, n, seed=n)
            q_bi = QBAF.from_arrays(tau, a, s)
            q_att = QBAF.from_arrays(tau, np.concatenate([a, s]))
            if old is not None:
                oqs = {"bi": old.qbaf.QBAF.from_arrays(tau, a, s), "att": old.qbaf.QBAF.from_arrays(tau, np.concatenate([a, s]))}
            # Python lists a library user holds (built outside every timer).
            lists = {}
            for key, q in (("bi", q_bi), ("att", q_att)):
                ids = [f"a{i}" for i in range(q.n)]
                lists[key] = (
                    ids, q.base_scores.tolist(), [tuple(e) for e in q.attack_array.tolist()], [tuple(e) for e in q.support_array.tolist()],
                )
            dfq_seconds = None
            dfq_iterations = 0
            for name in semantics:
                sem = NAMED[name]
                if sem.acyclic_only and cyclic:
                    continue
                key = "att" if sem.attack_only else "bi"
                q = q_att if sem.attack_only else q_bi
                gradual_strengths(QBAF.from_arrays([0.5, 0.2], attacks=[(1, 0)]), sem, method=method)  # JIT warm-up
                wall, cpu, r = _best(lambda: gradual_strengths(q, sem, method=method, max_iter=1000), repeat)
                if name == "dfquad":
                    dfq_seconds, dfq_iterations = wall, r.iterations
                ids, tl, al, sl = lists[key]
                lw, _, rl = _best(lambda: gradual_strengths(QBAF.from_edges(tl, al, sl), sem, method=method, max_iter=1000), repeat)
                assert np.array_equal(rl.values, r.values)
                row: dict[str, Any] = {
                    "semantics": name, "workload": workload, "n_arguments": q.n, "n_edges": q.n_edges, "method": method,
                    "seconds": wall, "cpu_seconds": cpu, "from_lists_seconds": lw,
                    "vs_dfquad": (wall / dfq_seconds) if dfq_seconds else None,
                    # cyclic: the semantics converge in different numbers of sweeps; per sweep
                    "per_iteration_vs_dfquad": (
                        (wall / r.iterations) / (dfq_seconds / dfq_iterations) if dfq_seconds and dfq_iterations and r.iterations else None
                    ),
                    "converged": r.converged, "iterations": r.iterations,
                    "reference_seconds": None, "reference_bit_identical": None, "peers": {},
                }
                if n <= (reference_max if not cyclic else min(reference_max, 10_000)):
                    rw, _, ref = _timed(lambda: gradual_reference(q, sem, method=method, max_iter=1000))
                    row["reference_seconds"] = rw
                    row["reference_bit_identical"] = bool(
                        np.array_equal(r.values, np.array(ref[0])) and (r.converged, r.iterations, r.residual) == ref[1:]
                    )
                    row["speedup_vs_reference"] = rw / wall
                cap = peer_cyclic_max if cyclic else peer_max
                for peer, mod in peers.items():
                    if not _peer_offers(peer, name, workload) or n > cap:
                        continue
                    fn = qbafpy_strengths if peer == "qbaf-py" else uncertainpy_strengths
                    try:
                        pw, _, pv = _timed(lambda: fn(mod, name, ids, tl, [(ids[u], ids[v]) for u, v in al],
                                                      [(ids[u], ids[v]) for u, v in sl], cyclic))
                    except Exception as e:  # noqa: BLE001 - a peer's failure is recorded, not fatal
                        row["peers"][peer] = {"error": f"{type(e).__name__}: {e}"}
                        continue
                    row["peers"][peer] = {"seconds": pw, "max_abs_difference": float(np.max(np.abs(pv - r.values))) if q.n else 0.0}
                timed = {p: v["seconds"] for p, v in row["peers"].items() if "seconds" in v}
                if timed:
                    fastest = min(timed, key=timed.get)  # type: ignore[arg-type]
                    row["fastest_peer"] = fastest
                    row["vs_fastest_peer"] = timed[fastest] / wall
                    row["vs_fastest_peer_from_lists"] = timed[fastest] / lw
                if old is not None:
                    og = importlib.import_module(old.__name__ + ".qbaf.gradual")
                    oq = oqs[key]
                    (kw_, _, kn), (ow, _, ko), med = paired(
                        lambda: gradual_strengths(q, sem, method=method, max_iter=1000),
                        lambda: og.gradual_strengths(oq, name, method=method, max_iter=1000), repeat, _timed)
                    assert np.array_equal(kn.values, ko.values) and (kn.converged, kn.iterations, kn.residual) == (
                        ko.converged, ko.iterations, ko.residual), f"{name} {workload} {n}: the baseline disagrees"
                    (lw2, _, _), (olw, _, _), lmed = paired(
                        lambda: gradual_strengths(QBAF.from_edges(tl, al, sl), sem, method=method, max_iter=1000),
                        lambda: og.gradual_strengths(old.qbaf.QBAF.from_edges(tl, al, sl), name, method=method, max_iter=1000),
                        repeat, _timed)
                    row.update(seconds_paired=kw_, baseline_seconds=ow, vs_baseline=kw_ / ow, vs_baseline_median=med,
                               from_lists_paired=lw2, baseline_from_lists_seconds=olw, from_lists_vs_baseline=lw2 / olw,
                               from_lists_vs_baseline_median=lmed)
                if name == "dfquad" and workload.startswith("dag") and n <= plain_max:
                    pw, _, pv = _timed(lambda: plain_python_dfquad(tl, al, sl))
                    assert np.array_equal(np.array(pv), r.values), "the plain-Python pass disagrees"
                    row.update(plain_seconds=pw, plain_vs_kernel=pw / wall, plain_vs_from_lists=pw / lw)
                rows.append(row)
                log(_fmt_row(row))
            del q_bi, q_att, lists
            if old is not None:
                del oqs
    return rows, notes


def _fmt_row(r: dict[str, Any]) -> str:
    peers = ", ".join(
        f"{p} {v['seconds']:.3g}s (Δ {v['max_abs_difference']:.1e})" if "seconds" in v else f"{p} error"
        for p, v in r["peers"].items()
    )
    ref = f"ref {r['reference_seconds']:.3g}s {'=' if r['reference_bit_identical'] else '≠'}" if r["reference_seconds"] is not None else ""
    vs = f"{r['vs_dfquad']:.2f}×DF-QuAD" if r["vs_dfquad"] is not None else ""
    base = ""
    if "baseline_seconds" in r:
        base = (f" | before {r['baseline_seconds']:.4f}s ×{r['vs_baseline']:.3f} (median ×{r['vs_baseline_median']:.3f}), "
                f"lists before {r['baseline_from_lists_seconds']:.3g}s ×{r['from_lists_vs_baseline']:.3f} "
                f"(median ×{r['from_lists_vs_baseline_median']:.3f})")
    if "plain_seconds" in r:
        base += f" | plain Python {r['plain_seconds']:.3g}s = {r['plain_vs_kernel']:.0f}× kernel, {r['plain_vs_from_lists']:.1f}× from lists"
    return (f"{r['semantics']:23s} {r['workload']:13s} n={r['n_arguments']:>9,} {r['seconds']:8.4f}s {vs:14s} "
            f"lists {r['from_lists_seconds']:.3g}s {ref} {peers}{base}")


# ------------------------------------------------------------------------- construction
def run_construction(n: int, *, repeat: int, log: Callable[[str], None]) -> list[dict[str, Any]]:
    import networkx as nx

    tau, a, s = random_dag(n, seed=7)
    ids = [f"a{i}" for i in range(n)]
    tl = tau.tolist()
    al = [tuple(e) for e in a.tolist()]
    sl = [tuple(e) for e in s.tolist()]
    ref = QBAF.from_arrays(tau, a, s, ids=ids)
    m = ref.n_edges
    rows = []

    def add(label: str, fn: Callable[[], QBAF], note: str = "") -> None:
        wall, cpu, q = _best(fn, repeat)
        assert q == ref, label
        rows.append({"task": label, "n_arguments": n, "n_edges": m, "seconds": wall, "cpu_seconds": cpu, "notes": note})
        log(f"{label:48s} n={n:,} m={m:,}: {wall:.3f} s")

    add("from_arrays (numpy arrays)", lambda: QBAF.from_arrays(tau, a, s, ids=ids))
    add("from_edges (lists of int pairs)", lambda: QBAF.from_edges(tl, al, sl, ids=ids))
    at, st, tt = tuple(al), tuple(sl), tuple(tl)
    add("from_edges (tuples of int pairs)", lambda: QBAF.from_edges(tt, at, st, ids=ids))
    del at, st, tt
    d = dict(zip(ids, tl))
    ai = [(ids[u], ids[v]) for u, v in al]
    si = [(ids[u], ids[v]) for u, v in sl]
    add("from_edges (dict {id: τ}, id pairs)", lambda: QBAF.from_edges(d, ai, si), "endpoints are the id objects: matched by identity")
    del ai, si
    # the same ids as new string objects: every endpoint goes through a dict lookup
    ai = [("".join(("a", str(u))), "".join(("a", str(v)))) for u, v in al]
    si = [("".join(("a", str(u))), "".join(("a", str(v)))) for u, v in sl]
    add("from_edges (dict {id: τ}, id pairs, distinct strings)", lambda: QBAF.from_edges(d, ai, si),
        "endpoints equal to but not the id objects: one dict lookup each")
    del ai, si
    g = nx.DiGraph()
    g.add_nodes_from((i, {"base_score": t}) for i, t in zip(ids, tl))
    g.add_edges_from((ids[u], ids[v], {"relation": "attack"}) for u, v in al)
    g.add_edges_from((ids[u], ids[v], {"relation": "support"}) for u, v in sl)
    add("from_networkx (DiGraph)", lambda: from_networkx(g), "iterating the DiGraph's edge dicts included")
    del g
    return rows


# ------------------------------------------------------------------------------ lists
def run_lists(n: int, *, repeat: int, old: Any, log: Callable[[str], None]) -> list[dict[str, Any]]:
    """The whole job from Python containers vs the plain-Python yardsticks (module docstring)."""
    from argfaith.qbaf import dfquad_strengths
    from argfaith.qbaf.reference import dfquad_reference

    tau, a, s = random_dag(n, seed=n, shuffle=True)
    q = QBAF.from_arrays(tau, a, s)
    ids = [f"a{i}" for i in range(n)]
    tl = tau.tolist()
    al = [tuple(e) for e in a.tolist()]
    sl = [tuple(e) for e in s.tolist()]
    d = dict(zip(ids, tl))
    ai, si = [(ids[u], ids[v]) for u, v in al], [(ids[u], ids[v]) for u, v in sl]
    fi = [("".join(("a", str(u))), "".join(("a", str(v)))) for u, v in al]
    fs = [("".join(("a", str(u))), "".join(("a", str(v)))) for u, v in sl]
    dfquad_strengths(QBAF.from_arrays([0.5, 0.2], attacks=[(1, 0)]))
    rw, rc, ref = _timed(lambda: dfquad_reference(q))
    pw, pc, pv = _timed(lambda: plain_python_dfquad(tl, al, sl))
    assert np.array_equal(np.array(ref[0]), np.array(pv)), "the two plain-Python passes disagree"
    log(f"lists n={n:,}: reference {rw:.1f} s, plain-Python pass {pw:.1f} s")
    jobs: list[tuple[str, Callable[[], Any], Callable[[Any], Callable[[], Any]]]] = [
        ("kernel (prebuilt QBAF)", lambda: dfquad_strengths(q),
         lambda o: (lambda oq=o.qbaf.QBAF.from_arrays(tau, a, s): lambda: o.qbaf.dfquad_strengths(oq))()),
        ("from_edges: lists of int pairs", lambda: dfquad_strengths(QBAF.from_edges(tl, al, sl)),
         lambda o: lambda: o.qbaf.dfquad_strengths(o.qbaf.QBAF.from_edges(tl, al, sl))),
        ("from_edges: dict {id: τ}, pairs of the id objects", lambda: dfquad_strengths(QBAF.from_edges(d, ai, si)),
         lambda o: lambda: o.qbaf.dfquad_strengths(o.qbaf.QBAF.from_edges(d, ai, si))),
        ("from_edges: dict {id: τ}, pairs of equal distinct strings", lambda: dfquad_strengths(QBAF.from_edges(d, fi, fs)),
         lambda o: lambda: o.qbaf.dfquad_strengths(o.qbaf.QBAF.from_edges(d, fi, fs))),
    ]
    rows = []
    for label, new, make_old in jobs:
        row: dict[str, Any] = {"task": label, "n_arguments": n, "n_edges": q.n_edges, "reference_seconds": rw,
                               "plain_seconds": pw}
        if old is not None:
            (w, c, r), (ow, _, orr), med = paired(new, make_old(old), repeat, _timed)
            assert np.array_equal(r.values, orr.values)
            row.update(baseline_seconds=ow, vs_baseline=w / ow, vs_baseline_median=med,
                       baseline_reference_ratio=rw / ow, baseline_plain_ratio=pw / ow)
        else:
            w, c, r = _best(new, repeat)
        assert np.array_equal(r.values, np.array(ref[0])), label
        row.update(seconds=w, cpu_seconds=c, reference_ratio=rw / w, plain_ratio=pw / w)
        rows.append(row)
        log(f"  {label:58s} {w:.3f} s: reference ÷ {rw / w:.1f}×, plain ÷ {pw / w:.1f}×"
            + (f" (before {row['baseline_seconds']:.3f} s: {row['baseline_reference_ratio']:.1f}×, {row['baseline_plain_ratio']:.1f}×)" if old is not None else ""))
    return rows


# ------------------------------------------------------------------------------- tables
def markdown(res: dict[str, Any]) -> str:
    """The write-up's tables from a results JSON (``--tables FILE``)."""
    out = []
    rows = res.get("semantics_rows") or []
    if rows:
        out.append("| semantics | workload | n | edges | seconds | × DF-QuAD | from lists s | reference s (bit-identical) | QBAF-Py s | Uncertainpy s | fastest peer ÷ argfaith (kernel / from lists) |")
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            ref = f"{r['reference_seconds']:.3g} ({'yes' if r['reference_bit_identical'] else 'NO'})" if r["reference_seconds"] is not None else "—"
            # only peers with the same scheme count (also for results written before that rule)
            like = {p: v for p, v in r["peers"].items() if _peer_offers(p, r["semantics"], r["workload"])}
            peer = {p: (f"{v['seconds']:.3g}" if "seconds" in v else "error") for p, v in like.items()}
            timed = {p: v["seconds"] for p, v in like.items() if "seconds" in v}
            ratio = "—"
            if timed:
                best = min(timed.values())
                ratio = f"{best / r['seconds']:,.0f}× / {best / r['from_lists_seconds']:,.0f}×"
            vs = f"{r['vs_dfquad']:.2f}"
            if r.get("per_iteration_vs_dfquad") is not None and r["workload"].startswith("cyclic"):
                vs += f" ({r['per_iteration_vs_dfquad']:.2f}/sweep, {r['iterations']} sweeps)"
            out.append(
                f"| {r['semantics']} | {r['workload']} | {r['n_arguments']:,} | {r['n_edges']:,} | {r['seconds']:.4f} | {vs} | "
                f"{r['from_lists_seconds']:.3g} | {ref} | {peer.get('qbaf-py', '—')} | {peer.get('uncertainpy', '—')} | {ratio} |"
            )
    based = [r for r in rows if "baseline_seconds" in r]
    if based:
        rev = (res.get("baseline") or {}).get("revision", "baseline")
        out.append("")
        out.append(f"Before ({rev}) and after, in the same process, alternately (best of each; median of the paired ratios):")
        out.append("")
        out.append("| semantics | workload | n | kernel s | before s | × | median × | from lists s | before s | × | median × |")
        out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for r in based:
            out.append(
                f"| {r['semantics']} | {r['workload']} | {r['n_arguments']:,} | {r['seconds_paired']:.4f} | {r['baseline_seconds']:.4f} | "
                f"{r['vs_baseline']:.3f} | {r['vs_baseline_median']:.3f} | {r['from_lists_paired']:.3g} | "
                f"{r['baseline_from_lists_seconds']:.3g} | {r['from_lists_vs_baseline']:.3f} | {r['from_lists_vs_baseline_median']:.3f} |"
            )
    plain = [r for r in rows if "plain_seconds" in r]
    if plain:
        out.append("")
        out.append("| DF-QuAD | n | edges | plain Python s | kernel s | plain ÷ kernel | from lists s | plain ÷ from lists |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|")
        for r in plain:
            out.append(
                f"| {r['workload']} | {r['n_arguments']:,} | {r['n_edges']:,} | {r['plain_seconds']:.3g} | {r['seconds']:.4f} | "
                f"{r['plain_vs_kernel']:,.0f}× | {r['from_lists_seconds']:.3g} | {r['plain_vs_from_lists']:.1f}× |"
            )
    lrows = res.get("lists_rows") or []
    if lrows:
        r0 = lrows[0]
        out.append("")
        out.append(f"Whole job on a shuffled DAG of {r0['n_arguments']:,} arguments / {r0['n_edges']:,} edges; yardsticks: "
                   f"plain-Python reference {r0['reference_seconds']:.1f} s, plain-Python pass from the lists {r0['plain_seconds']:.1f} s.")
        out.append("")
        based = "baseline_seconds" in r0
        out.append("| job | seconds | reference ÷ | plain pass ÷ |" + (" before s | reference ÷ before | plain pass ÷ before | × (median) |" if based else ""))
        out.append("|---|---:|---:|---:|" + ("---:|---:|---:|---:|" if based else ""))
        for r in lrows:
            line = f"| {r['task']} | {r['seconds']:.3f} | {r['reference_ratio']:.1f}× | {r['plain_ratio']:.1f}× |"
            if based:
                line += (f" {r['baseline_seconds']:.3f} | {r['baseline_reference_ratio']:.1f}× | {r['baseline_plain_ratio']:.1f}× | "
                         f"{r['vs_baseline']:.3f} ({r['vs_baseline_median']:.3f}) |")
            out.append(line)
    crow = res.get("construction_rows") or []
    if crow:
        out.append("")
        out.append("| construction | n | edges | seconds |")
        out.append("|---|---:|---:|---:|")
        for r in crow:
            out.append(f"| {r['task']} | {r['n_arguments']:,} | {r['n_edges']:,} | {r['seconds']:.3f} |")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------- main
def run(args: argparse.Namespace, log: Callable[[str], None] = print) -> dict[str, Any]:
    sizes = tuple(args.sizes) if args.sizes else (QUICK_SIZES if args.quick else SIZES)
    out: dict[str, Any] = {
        "command": "python benchmarks/semantics.py " + " ".join(sys.argv[1:]),
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": importlib.import_module("numba").__version__,
        "load_average_start": os.getloadavg()[0],
        "cores": os.cpu_count(),
        "argfaith": str(Path(sys.modules["argfaith"].__file__).parent),
    }
    old = None
    if args.baseline:
        from baseline import load_baseline

        old = load_baseline(args.baseline)
        importlib.import_module(old.__name__ + ".qbaf.gradual")
        out["baseline"] = {"revision": args.baseline, "package": old.__name__}
    if "semantics" in args.only:
        rows, notes = run_semantics(
            sizes, repeat=args.repeat, reference_max=args.reference_max, peer_max=args.peer_max,
            peer_cyclic_max=args.peer_cyclic_max, rk4_max=args.rk4_max, semantics=args.semantics,
            workloads=args.workloads, use_peers=not args.skip_peers, log=log, plain_max=args.plain_max, old=old,
        )
        out["semantics_rows"] = rows
        out["peer_notes"] = notes
        for nt in notes:
            log(f"note: {nt}")
    if "lists" in args.only:
        out["lists_rows"] = run_lists(args.lists_n or (20_000 if args.quick else 1_000_000), repeat=args.repeat, old=old, log=log)
    if "construction" in args.only:
        cn = args.construction_n or (20_000 if args.quick else 1_000_000)
        out["construction_rows"] = run_construction(cn, repeat=args.repeat, log=log)
    out["load_average_end"] = os.getloadavg()[0]
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small sizes (seconds)")
    p.add_argument("--sizes", type=int, nargs="*", help="argument counts (default 10^3 .. 10^6)")
    p.add_argument("--repeat", type=int, default=3, help="best of N for argfaith timings")
    p.add_argument("--only", nargs="*", default=["semantics", "lists", "construction"], choices=["semantics", "lists", "construction"])
    p.add_argument("--lists-n", type=int, default=None, help="arguments of the lists rows (default 10^6)")
    p.add_argument("--semantics", nargs="*", default=list(NAMED), choices=list(NAMED))
    p.add_argument("--workloads", nargs="*", default=list(WORKLOADS), choices=list(WORKLOADS))
    p.add_argument("--reference-max", type=int, default=100_000, help="largest n for the plain-Python reference (cyclic: ≤ 10^4)")
    p.add_argument("--peer-max", type=int, default=100_000, help="largest n for the peers on acyclic graphs")
    p.add_argument("--peer-cyclic-max", type=int, default=10_000, help="largest n for the peers on cyclic graphs")
    p.add_argument("--rk4-max", type=int, default=100_000, help="largest n for cyclic-rk4")
    p.add_argument("--skip-peers", action="store_true")
    p.add_argument("--construction-n", type=int, default=None, help="arguments of the construction rows (default 10^6)")
    p.add_argument("--plain-max", type=int, default=1_000_000, help="largest n for the plain-Python DF-QuAD pass (DAG workloads; 0: never)")
    p.add_argument("--baseline", default=None, metavar="REV", help="also time argfaith at git revision REV (benchmarks/baseline.py)")
    p.add_argument("--out", type=Path, default=RESULTS)
    p.add_argument("--tables", type=Path, default=None, help="print the Markdown tables of an earlier results JSON and exit")
    args = p.parse_args(argv)
    if args.tables is not None:
        print(markdown(json.loads(args.tables.read_text(encoding="utf-8"))), end="")
        return
    res = run(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    print(markdown(res), end="")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
