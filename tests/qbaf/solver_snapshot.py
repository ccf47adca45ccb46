"""Bit-for-bit snapshot of every solver output of the QBAF engine (issue 24).

The snapshot (``tests/fixtures/engine/solver_snapshot.npz``) holds, for a fixed set of random
frameworks, what the public API returns:

* ``gradual_strengths`` for every named semantics and 24 compositions (3 aggregations × 8
  influences) × acyclic / cyclic frameworks (self-loops, several components, a component of
  ≥ 256 arguments, the mutual attack that oscillates) × ``sync`` / ``rk4`` × a grid of
  ``max_iter`` / ``tol`` (and RK4 step sizes): strengths, ``converged``, ``iterations``,
  ``residual``, ``cyclic_components`` and the not-converged mask — or the error raised, by type
  and message;
* ``dfquad_strengths`` on the same grid;
* ``dfquad_batch`` / ``gradual_batch`` on mixed batches, per framework;
* removal-influence tables (``argfaith.metrics.explain.removal_influence_table``): propagation
  on an acyclic debate, re-solve on a cyclic one and under another semantics.

It was generated from the engine as it stood before the kernels were merged (main at 8250463);
``tests/qbaf/test_solver_snapshot.py`` recomputes every case and demands exact equality
(``np.array_equal``, ``==`` on floats), so a refactoring of the kernels that reorders one
floating-point operation fails it. Regenerate only for a deliberate change of results::

    python -m tests.qbaf.solver_snapshot          # writes the .npz (from the repository root)
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from argfaith.qbaf import QBAF, dfquad_strengths
from argfaith.qbaf.batch import QBAFBatch, dfquad_batch
from argfaith.qbaf.gradual import gradual_batch, gradual_strengths
from argfaith.qbaf.semantics import (
    AGGREGATIONS,
    NAMED,
    Euler,
    GradualSemantics,
    HCategorizer,
    Linear,
    Logistic,
    PMax,
    compose,
)

SNAPSHOT = Path(__file__).resolve().parents[1] / "fixtures" / "engine" / "solver_snapshot.npz"

#: Compositions beside the named instances: every aggregation × eight influences.
COMPOSED: tuple[GradualSemantics, ...] = tuple(
    compose(a, i)
    for a in AGGREGATIONS
    for i in (Linear(1.0), Linear(2.5), PMax(2.0, 1.0), PMax(1.0, 1.0), PMax(3.0, 0.5), Euler(), Logistic(), HCategorizer())
)
SEMANTICS: tuple[GradualSemantics, ...] = tuple(NAMED.values()) + COMPOSED

#: (method, max_iter, tol, step): the full grid for the named semantics on cyclic frameworks.
FULL_GRID = tuple(
    (m, it, tol, 0.5) for m in ("sync", "rk4") for it in (0, 1, 7, 300) for tol in (1e-3, 1e-9, 0.0)
) + (("rk4", 300, 1e-9, 0.25), ("rk4", 50, 1e-12, 1.0))
SMALL_GRID = (("sync", 300, 1e-9, 0.5), ("sync", 7, 0.0, 0.5), ("rk4", 300, 1e-9, 0.5), ("rk4", 1, 1e-3, 0.5))
ACYCLIC_GRID = (("sync", 10_000, 1e-9, 0.5), ("rk4", 0, 0.0, 0.5))
BATCH_GRID = (("sync", 300, 1e-9, 0.5), ("rk4", 300, 1e-9, 0.5), ("sync", 7, 1e-3, 0.5), ("rk4", 0, 0.0, 0.5))

_SPECIAL = np.array([0.0, 0.15, 0.2, 0.25, 0.5, 1.0])


def _scores(rng: np.random.Generator, n: int) -> np.ndarray:
    """Base scores: half uniform in [0, 1], half the special values 0, 0.15, 0.2, 0.25, 0.5, 1."""
    return np.where(rng.random(n) < 0.5, rng.random(n), rng.choice(_SPECIAL, n))


def _split(rng: np.random.Generator, edges: list[tuple[int, int]]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    edges = list(dict.fromkeys(edges))
    is_att = rng.random(len(edges)) < 0.5
    return [e for e, a in zip(edges, is_att) if a], [e for e, a in zip(edges, is_att) if not a]


def _dag(rng: np.random.Generator, n: int, m: int, order: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """A random DAG; ``order`` "up" (every edge from a lower to a higher index), "down" (higher to
    lower, debate order) or "shuffled" (no usable index order)."""
    perm = rng.permutation(n) if order == "shuffled" else np.arange(n)
    edges = []
    for _ in range(m):
        a, b = sorted(rng.choice(n, 2, replace=False).tolist())
        s, t = (a, b) if order == "up" else (b, a)
        edges.append((int(perm[s]), int(perm[t])))
    return _split(rng, edges)


def _digraph(rng: np.random.Generator, n: int, m: int, loops: bool) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    edges = [(int(s), int(t)) for s, t in rng.integers(0, n, (m, 2)) if loops or s != t]
    return _split(rng, edges)


def frameworks() -> dict[str, QBAF]:
    """The snapshot's frameworks, by name (deterministic: fixed seeds)."""
    rng = np.random.default_rng(20241)
    out: dict[str, QBAF] = {}

    def add(name: str, n: int, att: Any, sup: Any, tau: Any = None) -> None:
        out[name] = QBAF.from_arrays(_scores(rng, n) if tau is None else tau, att, sup)

    # acyclic
    add("empty", 0, [], [])
    add("single", 1, [], [])
    add("isolated", 5, [], [])
    for order in ("up", "down", "shuffled"):
        add(f"dag-{order}", 30, *_dag(rng, 30, 70, order))
    chain = rng.permutation(300)
    add("chain-shuffled", 300, *_split(rng, [(int(chain[i + 1]), int(chain[i])) for i in range(299)]))
    # cyclic
    add("mutual-attack-11", 2, [(0, 1), (1, 0)], [], [1.0, 1.0])
    add("self-loop", 3, [(0, 0), (1, 0)], [(2, 1)])
    add("self-support", 2, [(1, 0)], [(0, 0)])
    for k in range(6):
        n = int(rng.integers(6, 20))
        add(f"digraph-{k}", n, *_digraph(rng, n, int(rng.integers(n, 3 * n)), loops=k % 2 == 0))
    # an acyclic part finished before the cycle is met, a cycle, and arguments downstream of it
    e = [(i + 1, i) for i in range(6)] + [(6, 7), (7, 8), (8, 6), (8, 9), (9, 10), (3, 7), (10, 11), (11, 10)]
    add("dag-cycle-dag", 12, *_split(rng, e))
    # several cycles in a chain of components
    e = [(0, 1), (1, 0), (1, 2), (2, 3), (3, 4), (4, 2), (4, 5), (5, 5), (5, 6), (6, 7), (7, 6), (0, 7)]
    add("cycle-chain", 8, *_split(rng, e))
    # one strongly connected component of 280 arguments (≥ 256: iterated on a compact copy) with
    # predecessors and successors outside it
    ring = [(i, (i + 1) % 280) for i in range(280)]
    chords = [(int(s), int(t)) for s, t in rng.integers(0, 280, (300, 2)) if s != t]
    outside = [(280 + i, int(rng.integers(0, 280))) for i in range(20)] + [(int(rng.integers(0, 280)), 300 + i) for i in range(10)]
    add("large-scc", 310, *_split(rng, ring + chords + outside))
    return out


def _attack_only(q: QBAF) -> QBAF:
    return QBAF.from_arrays(q.base_scores, np.concatenate([q.attack_array, q.support_array]))


def _err(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


def _strength_case(fn: Any) -> dict[str, Any]:
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - the error is the recorded outcome
        return {"error": _err(e)}
    mask = np.zeros(len(r.values), np.bool_)
    if r.not_converged:
        mask[[r.index(i) for i in r.not_converged]] = True
    return {
        "values": np.asarray(r.values),
        "bad": mask,
        "converged": bool(r.converged),
        "iterations": int(r.iterations),
        "residual": float(r.residual),
        "cyclic_components": int(r.cyclic_components),
        "semantics": r.semantics,
        "method": r.method,
    }


def _batches() -> dict[str, QBAFBatch]:
    """Mixed batches: 36 small frameworks (acyclic, cyclic, self-loops, one empty), their
    attack-only versions, and an acyclic-only one."""
    rng = np.random.default_rng(7)
    qs = []
    for k in range(36):
        n = 0 if k == 5 else int(rng.integers(1, 12))
        if n == 0:
            qs.append(QBAF.from_arrays([]))
        elif k % 3 == 0 and n > 1:
            qs.append(QBAF.from_arrays(_scores(rng, n), *_dag(rng, n, 2 * n, "shuffled")))
        else:
            qs.append(QBAF.from_arrays(_scores(rng, n), *_digraph(rng, n, 2 * n, loops=k % 4 == 1)))
    dags = [q for q in qs if q.is_acyclic()]
    return {
        "mixed": QBAFBatch.from_qbafs(qs),
        "mixed-attack-only": QBAFBatch.from_qbafs([_attack_only(q) for q in qs]),
        "acyclic": QBAFBatch.from_qbafs(dags),
    }


def _batch_case(fn: Any) -> dict[str, Any]:
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001
        return {"error": _err(e)}
    return {
        "values": np.asarray(r.values),
        "bad": np.asarray(r.not_converged_mask),
        "converged_f": np.asarray(r.converged),
        "iterations_f": np.asarray(r.iterations),
        "residual_f": np.asarray(r.residual),
        "cyclic_components_f": np.asarray(r.cyclic_components),
        "semantics": r.semantics,
    }


def _debates() -> dict[str, QBAF]:
    """Debate-shaped frameworks for the influence tables (acyclic: propagation; cyclic: re-solve)."""
    rng = np.random.default_rng(11)
    n_p, n_s = 4, 40
    n = n_p + n_s
    tau = np.r_[np.full(n_p, 0.5), _scores(rng, n_s)]
    prop = np.r_[np.ones(n_p, np.bool_), np.zeros(n_s, np.bool_)]
    edges = []
    for s in range(n_p, n):
        for _ in range(int(rng.integers(1, 4))):
            t = int(rng.integers(0, n_p)) if rng.random() < 0.4 or s == n_p else int(rng.integers(n_p, s))
            edges.append((s, t))
    att, sup = _split(rng, edges)
    acyclic = QBAF.from_arrays(tau, att, sup, is_proposal=prop, debate=True)
    back = [(int(rng.integers(n_p, n - 5)), int(rng.integers(n - 5, n))) for _ in range(8)]
    att2, sup2 = _split(rng, edges + back)
    cyclic = QBAF.from_arrays(tau, att2, sup2, is_proposal=prop, debate=True)
    return {"debate-acyclic": acyclic, "debate-cyclic": cyclic}


def _influence_case(q: QBAF, semantics: str, method: str) -> dict[str, Any]:
    from argfaith.metrics.explain import removal_influence_table

    t = removal_influence_table(q, semantics=semantics, method=method)
    keys = sorted(t.by_target)
    return {
        "values": np.concatenate([t.by_target[k][1] for k in keys]) if keys else np.zeros(0),
        "index": np.concatenate([t.by_target[k][0] for k in keys]) if keys else np.zeros(0, np.int64),
        "targets": [int(k) for k in keys],
        "lengths": [int(len(t.by_target[k][0])) for k in keys],
        "sigma": np.asarray(t.sigma),
        "how": t.method,
        "semantics": t.semantics,
    }


def cases() -> Iterator[tuple[str, dict[str, Any]]]:
    """Every (key, outcome) of the snapshot, recomputed with the engine as it is now."""
    fws = frameworks()
    for fname, q0 in fws.items():
        cyclic = not q0.is_acyclic()
        for sem in SEMANTICS:
            q = _attack_only(q0) if sem.attack_only else q0
            named = sem.name in NAMED
            grid = (FULL_GRID if named else SMALL_GRID) if cyclic else ACYCLIC_GRID
            if fname == "large-scc":
                grid = SMALL_GRID if named else SMALL_GRID[:1]
            for method, max_iter, tol, step in grid:
                key = f"strengths|{fname}|{sem.name}|{method}|{max_iter}|{tol!r}|{step!r}"
                yield key, _strength_case(
                    lambda: gradual_strengths(q, sem, method=method, max_iter=max_iter, tol=tol, step=step)
                )
            if sem.attack_only:  # outside the domain: the error message is part of the snapshot
                yield f"strengths|{fname}|{sem.name}|with-supports", _strength_case(lambda: gradual_strengths(q0, sem))
        grid = FULL_GRID if cyclic else ACYCLIC_GRID
        for method, max_iter, tol, step in grid:
            key = f"dfquad|{fname}|{method}|{max_iter}|{tol!r}|{step!r}"
            yield key, _strength_case(lambda: dfquad_strengths(q0, method=method, max_iter=max_iter, tol=tol, step=step))
        yield f"dfquad|{fname}|strict", _strength_case(lambda: dfquad_strengths(q0, max_iter=3, strict=True))
    for bname, batch in _batches().items():
        for method, max_iter, tol, step in BATCH_GRID:
            key = f"batch|{bname}|dfquad_batch|{method}|{max_iter}|{tol!r}"
            yield key, _batch_case(lambda: dfquad_batch(batch, method=method, max_iter=max_iter, tol=tol, step=step))
            for sem in NAMED.values():
                key = f"batch|{bname}|{sem.name}|{method}|{max_iter}|{tol!r}"
                yield key, _batch_case(lambda: gradual_batch(batch, sem, method=method, max_iter=max_iter, tol=tol, step=step))
        yield f"batch|{bname}|strict", _batch_case(lambda: dfquad_batch(batch, max_iter=2, strict=True))
    for dname, q in _debates().items():
        for sem, method in (("dfquad", "sync"), ("dfquad", "rk4"), ("quadratic-energy", "sync"), ("mlp-based", "rk4")):
            yield f"influence|{dname}|{sem}|{method}", _influence_case(q, sem, method)


# ------------------------------------------------------------------------------ storage
_ARRAYS = ("values", "bad", "converged_f", "iterations_f", "residual_f", "cyclic_components_f", "index", "sigma")


def pack(items: list[tuple[str, dict[str, Any]]]) -> dict[str, np.ndarray]:
    """The outcomes as a few flat arrays (one per field) and a JSON index with offsets."""
    flat: dict[str, list[np.ndarray]] = {k: [] for k in _ARRAYS}
    sizes = dict.fromkeys(_ARRAYS, 0)
    index = []
    scalars = []
    for key, case in items:
        meta: dict[str, Any] = {"key": key}
        for k, v in case.items():
            if k in _ARRAYS:
                meta[k] = [sizes[k], len(v)]
                flat[k].append(np.asarray(v))
                sizes[k] += len(v)
            elif k == "residual":
                meta[k] = len(scalars)  # floats in a float64 array, not through JSON text
                scalars.append(v)
            else:
                meta[k] = v
        index.append(meta)
    dtypes = {"values": np.float64, "bad": np.bool_, "converged_f": np.bool_, "iterations_f": np.int64,
              "residual_f": np.float64, "cyclic_components_f": np.int64, "index": np.int64, "sigma": np.float64}
    out = {k: (np.concatenate(flat[k]).astype(dtypes[k]) if flat[k] else np.zeros(0, dtypes[k])) for k in _ARRAYS}
    out["residual"] = np.array(scalars, dtype=np.float64)
    out["index_json"] = np.array(json.dumps(index, separators=(",", ":")))
    return out


def unpack(data: Any) -> dict[str, dict[str, Any]]:
    """The inverse of :func:`pack`: ``{key: outcome}``."""
    out = {}
    for meta in json.loads(str(data["index_json"])):
        case: dict[str, Any] = {}
        for k, v in meta.items():
            if k == "key":
                continue
            if k in _ARRAYS:
                case[k] = data[k][v[0] : v[0] + v[1]]
            elif k == "residual":
                case[k] = float(data["residual"][v])
            else:
                case[k] = v
        out[meta["key"]] = case
    return out


def same(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    """Fields on which two outcomes differ (exact: arrays by ``np.array_equal``, floats by ``==``)."""
    diff = []
    for k in sorted(set(a) | set(b)):
        if k not in a or k not in b:
            diff.append(k)
        elif k in _ARRAYS:
            if not (np.asarray(a[k]).shape == np.asarray(b[k]).shape and np.array_equal(a[k], b[k])):
                diff.append(k)
        elif a[k] != b[k]:
            diff.append(k)
    return diff


def main() -> None:
    items = list(cases())
    SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(SNAPSHOT, **pack(items))
    print(f"wrote {SNAPSHOT} ({len(items)} cases, {SNAPSHOT.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
