"""Benchmark: explanations (removal influence of every argument on every proposal) at scale.

Three measurements, all in one run so the ratios compare like with like:

1. ``propagation vs re-solve`` — the influence table of :mod:`argfaith.metrics.explain` by
   propagation (the numba kernel, acyclic frameworks) against the re-solve reference (one DF-QuAD
   solve of the ancestor sub-framework per ancestor and proposal: what ``evaluate`` did before),
   on debate-shaped frameworks (``benchmarks/evaluate.py: debate_pair``) of growing size; the
   reference is run only where it finishes in reasonable time, and results are checked equal;
2. ``dense mined debate`` — the same on a QBAF shaped like a mined EP debate (every argument
   attacks or supports ~10 earlier ones or provisions: 130 arguments, ~1,400 edges);
3. ``evaluate`` on a 200,000-argument source QBAF and a 600-argument summary: in process, step by
   step (median of 3: loading, the metrics without explanations, with explanations, the
   explanations alone), and through the real command (a subprocess, files on disk, the default
   table output) with and without explanations — what a user waits for, including the progress
   lines it prints on stderr.

Run ``python benchmarks/explain.py [--quick]``; prints tables and writes
``benchmarks/results/explain.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from evaluate import debate_pair  # noqa: E402

from argfaith.metrics.explain import argument_influences_reference, removal_influence_table, side_explanation  # noqa: E402
from argfaith.qbaf import QBAF, Argument, dfquad_strengths, save_qbaf  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "explain.json"


def _timed(f: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = f()
    return time.perf_counter() - t0, out


def dense_debate(n_speech: int = 130, n_proposals: int = 26, fanout: int = 10, seed: int = 0) -> QBAF:
    """A QBAF shaped like a mined EP debate: each speech argument attacks (40%) or supports
    ``fanout`` random earlier arguments or provisions (the temporal constraint keeps it acyclic)."""
    rng = np.random.default_rng(seed)
    props = [Argument(f"PAR-{i + 1}", "proposal", 0.5) for i in range(n_proposals)]
    speech = [Argument(f"a{i}", text=f"argument {i}", speaker=f"MEP {i // 8}") for i in range(n_speech)]
    att, sup = [], []
    for i in range(n_speech):
        targets = [p.id for p in props] + [speech[j].id for j in range(i)]
        for t in rng.choice(len(targets), size=min(fanout, len(targets)), replace=False):
            (att if rng.random() < 0.4 else sup).append((speech[i].id, targets[int(t)]))
    return QBAF.from_arguments(props + speech, att, sup, debate=True, name="dense")


def compare(q: QBAF, label: str, reference: bool) -> dict[str, Any]:
    s = dfquad_strengths(q)
    removal_influence_table(q, strengths=s)  # warm-up: numba compilation / cache load
    t_fast, table = _timed(lambda: removal_influence_table(q, strengths=s))
    row: dict[str, Any] = {
        "framework": label, "arguments": q.n, "edges": len(q.attack_array) + len(q.support_array), "proposals": len(q.proposals),
        "propagation_s": t_fast, "pairs_with_influence": int(sum(len(v[0]) for v in table.by_target.values())),
        "reference_s": None, "speedup": None, "max_abs_difference": None,
    }
    if reference:
        t_ref, ref = _timed(lambda: {p: argument_influences_reference(q, p, strengths=s) for p in q.proposals})
        diff = 0.0
        for p, side in ref.items():
            fast = {a.id: a.influence for a in side_explanation(table, p).arguments}
            for a in side.arguments:
                diff = max(diff, abs(fast[a.id] - a.influence))
        row.update(reference_s=t_ref, speedup=t_ref / t_fast if t_fast else None, max_abs_difference=diff)
    return row


def _median(f: Any, repeats: int) -> float:
    ts = []
    for _ in range(repeats):
        t, _ = _timed(f)
        ts.append(t)
    return sorted(ts)[len(ts) // 2]


def phase_rows(src: Path, summ: Path, repeats: int) -> list[dict[str, Any]]:
    """``evaluate`` step by step, in process (after a warm-up call)."""
    from argfaith.metrics.evaluate import evaluate
    from argfaith.metrics.explain import explain_proposals
    from argfaith.qbaf import load_qbaf

    t_load = _median(lambda: (load_qbaf(src), load_qbaf(summ)), repeats)
    q, qs = load_qbaf(src), load_qbaf(summ)
    evaluate(q, qs, explain=False)  # warm-up
    rows = [{"task": "load both QBAF files", "seconds": t_load}]
    rows.append({"task": "evaluate, no explanations", "seconds": _median(lambda: evaluate(q, qs, explain=False), repeats)})
    rows.append({"task": "evaluate with explanations (top 10)", "seconds": _median(lambda: evaluate(q, qs), repeats)})
    rows.append({"task": "explanations alone (both influence tables + 20 proposals)", "seconds": _median(lambda: explain_proposals(q, qs, limit=10), repeats)})
    return rows


def cli_rows(src: Path, summ: Path) -> list[dict[str, Any]]:
    from argfaith.qbaf import load_qbaf

    q, qs = load_qbaf(src), load_qbaf(summ)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    rows = []
    for label, extra in (("evaluate (explanations, top 10)", []), ("evaluate --no-explain", ["--no-explain"])):
        cmd = [sys.executable, "-m", "argfaith", "evaluate", "--source", str(src), "--summary", str(summ), *extra]
        subprocess.run(cmd, capture_output=True, env=env, timeout=3600)  # warm-up (numba cache, page cache)
        t0 = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=3600)
        wall = time.perf_counter() - t0
        progress = [ln for ln in r.stderr.splitlines() if ": " in ln and ln.rstrip().endswith(" s")]
        rows.append({"task": label, "source_arguments": q.n, "summary_arguments": qs.n, "exit": r.returncode,
                     "wall_s": wall, "stderr_progress_lines": progress[-6:]})
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller frameworks (a smoke test)")
    args = ap.parse_args(argv)
    sizes = (1_000, 3_000) if args.quick else (1_000, 3_000, 10_000, 200_000)
    ref_cap = 3_000 if args.quick else 10_000
    rows = [compare(dense_debate(), "dense mined-debate shape (130 speech, 26 provisions)", True)]
    for n in sizes:
        q, _ = debate_pair(n_source=n, n_summary=10, n_proposals=20, seed=0)
        rows.append(compare(q, f"debate_pair n_source={n:,}", n <= ref_cap))
    with tempfile.TemporaryDirectory() as d:
        q, qs = debate_pair(n_source=20_000 if args.quick else 200_000, n_summary=600, n_proposals=20, seed=0)
        src, summ = Path(d) / "source.json", Path(d) / "summary.json"
        save_qbaf(q, src)
        save_qbaf(qs, summ)
        phases = phase_rows(src, summ, 1 if args.quick else 3)
        cli = cli_rows(src, summ)

    from rich.console import Console
    from rich.table import Table

    c = Console(width=160)
    t = Table(title="Removal influence of every argument on every proposal: propagation vs re-solve (after warm-up)")
    for col in ("framework", "arguments", "edges", "propagation s", "re-solve s", "speed-up", "max |diff|"):
        t.add_column(col, justify="left" if col == "framework" else "right")
    for r in rows:
        t.add_row(r["framework"], f"{r['arguments']:,}", f"{r['edges']:,}", f"{r['propagation_s']:.3f}",
                  "—" if r["reference_s"] is None else f"{r['reference_s']:.2f}",
                  "—" if r["speedup"] is None else f"{r['speedup']:.0f}×",
                  "—" if r["max_abs_difference"] is None else f"{r['max_abs_difference']:.1e}")
    c.print(t)
    t3 = Table(title=f"evaluate in process, {q.n:,}-argument source, {qs.n:,}-argument summary (median, after warm-up)")
    t3.add_column("step")
    t3.add_column("seconds", justify="right")
    for r in phases:
        t3.add_row(r["task"], f"{r['seconds']:.2f}")
    c.print(t3)
    t2 = Table(title="argfaith evaluate through the command (subprocess, default table output, after a warm-up run)")
    for col in ("task", "source args", "summary args", "exit", "wall s"):
        t2.add_column(col, justify="left" if col == "task" else "right")
    for r in cli:
        t2.add_row(r["task"], f"{r['source_arguments']:,}", f"{r['summary_arguments']:,}", str(r["exit"]), f"{r['wall_s']:.1f}")
    c.print(t2)
    for r in cli:
        for ln in r["stderr_progress_lines"]:
            c.print(f"  [{r['task']}] stderr: {ln}", highlight=False, markup=False)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    meta = {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
            "date": time.strftime("%Y-%m-%d"), "quick": args.quick,
            "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None,
            "note": "shared 2-core machine; wall times are pessimistic"}
    RESULTS.write_text(json.dumps({"meta": meta, "influence": rows, "phases": phases, "cli": cli}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
