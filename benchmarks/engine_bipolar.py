"""Benchmark: bipolar set-attacks and credulous d-preferred acceptance (PAPER.md §4).

Frameworks are random and bipolar, of 50–2,000 arguments:

* ``debate``  — like a source QBAF: ~5% proposals, edges only leave speech arguments and point
  to a proposal or an *earlier* speech argument (acyclic), ~3 edges per argument, 30% attacks;
* ``summary`` — like a summary QBAF: the same, but a speech argument may point to any other
  argument, so there are cycles and the set-attack closure gets dense (FINDINGS §4);
* ``summary-mutual`` — cyclic, ~2 drawn edges per argument, 60% attacks, and every
  speech-to-speech attack made mutual (~3 edges per argument in all): many even attack cycles,
  so the grounded shortcut leaves a good share of the proposals to the SAT solver.

Tasks (each timed against a plain-Python reference in the same run):

* ``set-attacks``: :func:`argfaith.qbaf.bipolar.set_attacks` (numba; bitsets under "auto" at
  these sizes, the per-target search algorithm's time in the notes) vs
  :func:`argfaith.qbaf.reference.set_attacks_reference` (closure with Python sets);
* ``credulous``: acceptance of every proposal with the full pipeline (relation, grounded and
  self-attack shortcuts, ancestor restriction, linear SAT encoding);
* ``credulous-sat-only``: the same with ``shortcuts=False``, so the SAT encoding answers every
  query by itself;
  both against :func:`argfaith.qbaf.reference.credulous_sat_reference` (Python closure + the
  textbook encoding over the explicit relation, one fresh solver per query);
* ``solver <name>``: the SAT-only pipeline on every argument of the largest ``summary-mutual``
  framework with each candidate pysat solver (no reference; the answers must agree);
* ``d-preferred``: enumeration on small cyclic frameworks vs the brute-force reference.

A reference run is skipped (``reference_seconds`` None, reason in ``notes``) when the previous
size's time, extrapolated cubically, predicts more than 60 s.

Run ``python benchmarks/engine_bipolar.py [--quick]``: prints a table and writes
``benchmarks/results/engine_bipolar.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from argfaith.qbaf import QBAF
from argfaith.qbaf.bipolar import DEFAULT_SAT_SOLVER, credulous_acceptance, d_preferred_extensions, set_attacks
from argfaith.qbaf.reference import credulous_sat_reference, d_preferred_reference, set_attacks_reference

__all__ = ["run", "bipolar_framework", "main"]

RESULTS = Path(__file__).resolve().parent / "results" / "engine_bipolar.json"
SIZES = (50, 200, 500, 1000, 2000)
QUICK_SIZES = (50, 200)
REFERENCE_BUDGET = 60.0  # seconds; predicted reference runs above this are skipped
SOLVERS = ("cadical153", "cadical195", "glucose4", "minisat22")
VARIANTS: dict[str, dict[str, Any]] = {
    "debate": {"cyclic": False},
    "summary": {"cyclic": True},
    # Even attack cycles everywhere: the grounded shortcut leaves many proposals to the solver.
    "summary-mutual": {"cyclic": True, "edges_per_argument": 2.0, "attack_share": 0.6, "mutual": 1.0},
}


def bipolar_framework(
    n: int,
    *,
    cyclic: bool,
    seed: int = 0,
    edges_per_argument: float = 3.0,
    attack_share: float = 0.3,
    mutual: float = 0.0,
) -> QBAF:
    """A random debate-like (``cyclic=False``) or summary-like (``cyclic=True``) debate QBAF.

    ``mutual`` (cyclic only) is the share of speech-to-speech attacks that get a reverse attack,
    which makes frameworks with several d-preferred extensions.
    """
    rng = np.random.default_rng(seed)
    n_p = max(1, round(0.05 * n))
    m = int(edges_per_argument * n)
    src = rng.integers(n_p, n, m)
    if cyclic:
        tgt = rng.integers(0, n - 1, m)
        tgt = tgt + (tgt >= src)  # any argument but the source itself
    else:
        to_prop = rng.random(m) < 0.3
        earlier = (rng.random(m) * (src - n_p)).astype(np.int64) + n_p  # an earlier speech argument
        tgt = np.where(to_prop | (src == n_p), rng.integers(0, n_p, m), earlier)
    edges = np.unique(np.stack([src, tgt], axis=1), axis=0)
    is_att = rng.random(len(edges)) < attack_share
    if cyclic and mutual > 0:
        att = edges[is_att]
        rev = att[(att[:, 1] >= n_p) & (rng.random(len(att)) < mutual)][:, ::-1]
        known = {tuple(e) for e in edges.tolist()}
        rev = np.array([e for e in rev.tolist() if tuple(e) not in known], dtype=np.int64).reshape(-1, 2)
        edges = np.concatenate([edges, rev])
        is_att = np.concatenate([is_att, np.ones(len(rev), dtype=np.bool_)])
    ids = [f"p{i + 1}" for i in range(n_p)] + [f"s{i + 1}" for i in range(n - n_p)]
    return QBAF.from_arrays(
        np.where(np.arange(n) < n_p, 0.5, 0.2),
        edges[is_att],
        edges[~is_att],
        is_proposal=np.arange(n) < n_p,
        ids=ids,
        debate=True,
        name=f"{'summary' if cyclic else 'debate'}-{n}",
    )


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


class _Budget:
    """Skips a reference when the last measured size, extrapolated as n³, exceeds the budget."""

    def __init__(self) -> None:
        self.last: dict[str, tuple[int, float]] = {}

    def predict(self, key: str, n: int) -> float | None:
        if key not in self.last:
            return None
        n0, t0 = self.last[key]
        return t0 * (n / n0) ** 3

    def skip_reason(self, key: str, n: int) -> str | None:
        p = self.predict(key, n)
        if p is not None and p > REFERENCE_BUDGET:
            return f"reference skipped: predicted {p:.0f} s > {REFERENCE_BUDGET:.0f} s (n^3 from n={self.last[key][0]})"
        return None

    def record(self, key: str, n: int, t: float) -> None:
        self.last[key] = (n, t)


def _warm_up() -> None:
    """Trigger (or load from cache) the numba compilation before timing."""
    q = bipolar_framework(30, cyclic=True, seed=1)
    credulous_acceptance(q)
    credulous_acceptance(q, shortcuts=False)
    d_preferred_extensions(bipolar_framework(8, cyclic=True, seed=1))


def _row(task: str, q: QBAF, seconds: float, ref: float | None, notes: str) -> dict[str, Any]:
    return {
        "task": task,
        "n_arguments": q.n,
        "n_edges": q.n_edges,
        "seconds": seconds,
        "reference_seconds": ref,
        "speedup": (ref / seconds) if ref is not None and seconds > 0 else None,
        "notes": notes,
    }


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Run the benchmark; one dict per (task, variant, size) with the fields of the table."""
    _warm_up()
    sizes = QUICK_SIZES if quick else SIZES
    repeat = 3
    budget = _Budget()
    rows: list[dict[str, Any]] = []
    for variant, kw in VARIANTS.items():
        for n in sizes:
            q = bipolar_framework(n, seed=n, **kw)
            # -- set-attack relation
            t_fast, sa = _best(lambda: set_attacks(q), repeat)
            key = f"set-attacks/{variant}"
            skip = budget.skip_reason(key, n)
            t_ref = None
            if skip is None:
                t_ref, ref = _best(lambda: set_attacks_reference(q), 1)
                budget.record(key, n, t_ref)
                assert sa == ref, f"set-attack relation differs on {q.name}"
            t_search, _ = _best(lambda: set_attacks(q, algorithm="search"), repeat)
            notes = f"|R| = {len(sa)}; per-target search algorithm {t_search:.4f} s"
            rows.append(_row(f"set-attacks/{variant}", q, t_fast, t_ref, notes + (f"; {skip}" if skip else "")))
            # -- credulous acceptance of every proposal: full pipeline, then SAT only
            key = f"credulous/{variant}"
            skip = budget.skip_reason(key, n)
            expected = None
            t_ref = None
            if skip is None:
                t_ref, expected = _best(lambda: credulous_sat_reference(q, q.proposals), 1)
                budget.record(key, n, t_ref)
            for task, shortcuts in (("credulous", True), ("credulous-sat-only", False)):
                t_fast, r = _best(lambda: credulous_acceptance(q, shortcuts=shortcuts), repeat)
                if expected is not None:
                    assert r.accepted == expected, f"{task} differs from the reference on {q.name}"
                counts = ", ".join(f"{k} {v}" for k, v in sorted(r.reason_counts().items()))
                notes = (
                    f"{len(r.accepted)}/{len(r.queried)} accepted ({counts}); {r.solver_calls} solver calls; "
                    f"|U| = {r.n_encoded}, {r.n_clauses} clauses; |R| = {r.n_set_attacks}"
                )
                rows.append(_row(f"{task}/{variant}", q, t_fast, t_ref, notes + (f"; {skip}" if skip else "")))
    # -- SAT solver choice: every argument of the largest mutual framework, SAT only
    q = bipolar_framework(sizes[-1], seed=sizes[-1], **VARIANTS["summary-mutual"])
    sa = set_attacks(q)
    answers = set()
    for solver in SOLVERS:
        t_fast, r = _best(lambda: credulous_acceptance(sa, q.ids, shortcuts=False, solver=solver), repeat)
        answers.add(r.accepted)
        rows.append(
            _row(f"solver {solver}/summary-mutual", q, t_fast, None,
                 f"all {q.n} arguments, shortcuts off; {r.solver_calls} solver calls; {len(r.accepted)} accepted")
        )
    assert len(answers) == 1, "SAT solvers disagree"
    # -- d-preferred enumeration on small cyclic frameworks (brute force is 2^n)
    for n in (10, 12) if quick else (10, 12, 14, 16):
        q = bipolar_framework(n, cyclic=True, seed=100 + n, edges_per_argument=1.0, attack_share=0.7, mutual=1.0)
        t_fast, exts = _best(lambda: d_preferred_extensions(q), repeat)
        t_ref, ref = _best(lambda: d_preferred_reference(q), 1)
        assert exts == ref, f"d-preferred extensions differ on {q.name}"
        rows.append(_row("d-preferred/summary", q, t_fast, t_ref, f"{len(exts)} extensions"))
    return rows


def _print(rows: list[dict[str, Any]]) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title="bipolar engine: set-attacks and credulous d-preferred acceptance")
    for col, just in (("task", "left"), ("n", "right"), ("edges", "right"), ("seconds", "right"),
                      ("reference s", "right"), ("speedup", "right"), ("notes", "left")):
        t.add_column(col, justify=just)  # type: ignore[arg-type]
    for r in rows:
        t.add_row(
            r["task"],
            str(r["n_arguments"]),
            str(r["n_edges"]),
            f"{r['seconds']:.4f}",
            "—" if r["reference_seconds"] is None else f"{r['reference_seconds']:.3f}",
            "—" if r["speedup"] is None else f"{r['speedup']:.0f}x",
            r["notes"],
        )
    Console(width=200).print(t)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="sizes 50 and 200 only")
    ap.add_argument("--out", type=Path, default=RESULTS, help="JSON output path")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    rows = run(quick=args.quick)
    _print(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "benchmark": "engine_bipolar",
        "quick": args.quick,
        "solver": DEFAULT_SAT_SOLVER,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "total_seconds": time.perf_counter() - t0,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    args.out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
