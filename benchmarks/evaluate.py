"""Benchmark: `argfaith evaluate` on pre-mined QBAFs — a 200-argument debate vs a 60-argument summary.

The frameworks are random but shaped like the paper's (PAPER.md §1, §7; FINDINGS §2):

* source Q: 20 proposals + 200 speech arguments in debate order; each speech argument has 1–2
  outgoing edges (the temporal constraint: to a proposal or an *earlier* argument, with a bias
  towards the opening speeches), 12% attacks — acyclic;
* summary Q*: the same 20 proposals + 60 speech arguments; edges may point anywhere (cycles
  allowed, a few mutual supports), 20% attacks;
* argument texts are synthetic sentences over a shared vocabulary, so text alignment has work
  to do.

Timed after one warm-up call (numba compilation, imports), median of ``repeats`` runs:

* ``evaluate`` — the full report: strengths, pro/con sets, relevance, π_pcr, credulous
  acceptance, the pairwise metrics and per-proposal explanations (top 10 arguments per side);
* ``evaluate (no explanations)``;
* ``evaluate + lexical alignment`` — adds TF-IDF alignment and π_sap / π_sar / π_pcc;
* ``τ sweep 0.15,0.2,0.25`` — :func:`evaluate_many` at three τ;
* ``evaluate, attack-heavy pair`` — 40% / 50% attacks and mutual attacks in the summary, so
  credulous acceptance may need the SAT solver rather than the grounded-extension shortcuts;
* components: ``dfquad_strengths``, ``pro_con_sets``, ``credulous_acceptance`` (both QBAFs) and
  ``explanations`` alone, and the renderers (table, Markdown, HTML).

Run ``python benchmarks/evaluate.py [--quick]``: prints a table and writes
``benchmarks/results/evaluate.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from argfaith.metrics.alignment import LexicalAligner
from argfaith.metrics.evaluate import evaluate, evaluate_many
from argfaith.metrics.explain import explain_proposals
from argfaith.metrics.render import render
from argfaith.qbaf import QBAF, Argument, credulous_acceptance, dfquad_strengths, pro_con_sets

__all__ = ["debate_pair", "run", "main"]

RESULTS = Path(__file__).resolve().parent / "results" / "evaluate.json"

_WORDS = (
    "market consumer repair price member state commission report regulation cost budget tax worker "
    "energy climate fishing quota vessel border security data privacy industry small firm farmer "
    "subsidy trade agreement court rights health medicine transport rail road emission target"
).split()


def _sentence(rng: np.random.Generator) -> str:
    k = int(rng.integers(8, 18))
    return " ".join(rng.choice(_WORDS, size=k)).capitalize() + "."


def debate_pair(
    n_source: int = 200,
    n_summary: int = 60,
    n_proposals: int = 20,
    seed: int = 0,
    source_attacks: float = 0.12,
    summary_attacks: float = 0.2,
    mutual: str = "support",
    n_mutual: int = 3,
) -> tuple[QBAF, QBAF]:
    """A random source QBAF (acyclic, temporal) and summary QBAF (cycles allowed)."""
    rng = np.random.default_rng(seed)
    props = [Argument(f"PAR-{i + 1}", "proposal", 0.5, text=_sentence(rng)) for i in range(n_proposals)]
    src_args = [Argument(f"a{i + 1}", text=_sentence(rng), speaker=f"Speaker {i // 8 + 1}", position=i) for i in range(n_source)]
    att, sup = set(), set()
    for i in range(n_source):
        for _ in range(int(rng.integers(1, 3))):
            if i == 0 or rng.random() < 0.4:
                t = props[int(rng.integers(n_proposals))].id
            else:
                # Bias towards early speeches: many relations target the opening statements.
                j = int(min(i - 1, rng.exponential(i / 3)))
                t = src_args[j].id
            e = (src_args[i].id, t)
            if e in att or e in sup:
                continue
            (att if rng.random() < source_attacks else sup).add(e)
    source = QBAF.from_arguments(props + src_args, sorted(att), sorted(sup), debate=True, name="synthetic debate")
    sum_args = [Argument(f"t{i + 1}", text=_sentence(rng)) for i in range(n_summary)]
    att, sup = set(), set()
    for i in range(n_summary):
        for _ in range(int(rng.integers(1, 3))):
            if rng.random() < 0.5:
                t = props[int(rng.integers(n_proposals))].id
            else:
                j = int(rng.integers(n_summary))
                if j == i:
                    continue
                t = sum_args[j].id
            e = (sum_args[i].id, t)
            if e in att or e in sup:
                continue
            (att if rng.random() < summary_attacks else sup).add(e)
    for _ in range(n_mutual):  # a few mutual supports / attacks: cyclic components
        i, j = (int(x) for x in rng.choice(n_summary, size=2, replace=False))
        for e in ((sum_args[i].id, sum_args[j].id), (sum_args[j].id, sum_args[i].id)):
            if mutual == "support" and e not in att:
                sup.add(e)
            elif mutual == "attack" and e not in sup:
                att.add(e)
    p2 = [Argument(p.id, "proposal", 0.5, text=p.text) for p in props]
    summary = QBAF.from_arguments(p2 + sum_args, sorted(att), sorted(sup - att), debate=True, name="synthetic summary")
    return source, summary


def _time(f: Callable[[], Any], repeats: int) -> tuple[float, float, Any]:
    out = f()  # warm-up: numba compilation, imports, caches
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), min(ts), out


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Rows: task, seconds (median), min_seconds, repeats, n_source, n_summary, notes."""
    repeats = 3 if quick else 7
    q, qs = debate_pair()
    rows: list[dict[str, Any]] = []

    def add(task: str, f: Callable[[], Any], notes: str = "") -> Any:
        med, mn, out = _time(f, repeats)
        rows.append(dict(task=task, seconds=med, min_seconds=mn, repeats=repeats, n_source=len(q.speech_arguments),
                         n_summary=len(qs.speech_arguments), notes=notes))
        return out

    rep = add("evaluate", lambda: evaluate(q, qs))
    rows[-1]["notes"] = (
        f"σ*: {'converged' if rep.summary.convergence.converged else 'NOT converged'} in {rep.summary.convergence.iterations} it., "
        f"{rep.summary.convergence.cyclic_components} cyclic comp.; π_bc={rep.pairwise.balance_consistency:.2f}"
    )
    add("evaluate (no explanations)", lambda: evaluate(q, qs, explain=False))
    al = LexicalAligner(threshold=0.5)
    r2 = add("evaluate + lexical alignment", lambda: evaluate(q, qs, alignment=al))
    rows[-1]["notes"] = f"{r2.alignment.n_pairs} aligned pairs"
    add("τ sweep 0.15,0.2,0.25 (evaluate_many)", lambda: evaluate_many(q, [qs], taus=[0.15, 0.2, 0.25]))
    qh, qsh = debate_pair(seed=1, source_attacks=0.4, summary_attacks=0.5, mutual="attack", n_mutual=8)
    rh = add("evaluate, attack-heavy pair (40% / 50% attacks, 8 mutual attacks)", lambda: evaluate(qh, qsh))
    acc_h = (credulous_acceptance(qh), credulous_acceptance(qsh))
    rows[-1]["notes"] = (
        f"acceptance {acc_h[0].method} / {acc_h[1].method}, {acc_h[0].solver_calls + acc_h[1].solver_calls} solver calls; "
        f"π_dpc={rh.pairwise.d_preferability_consistency:.2f}"
    )
    add("dfquad_strengths (Q and Q*)", lambda: (dfquad_strengths(q), dfquad_strengths(qs)))
    add("pro_con_sets (all proposals, Q and Q*)", lambda: (pro_con_sets(q), pro_con_sets(qs)))
    acc = add("credulous_acceptance (proposals, Q and Q*)", lambda: (credulous_acceptance(q), credulous_acceptance(qs)))
    rows[-1]["notes"] = f"method {acc[0].method} / {acc[1].method}"
    add("explanations alone (top 10)", lambda: explain_proposals(q, qs, limit=10))
    add("render table", lambda: render(rep, "table"))
    add("render markdown", lambda: render(rep, "markdown"))
    add("render html", lambda: render(rep, "html"))
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 repeats instead of 7")
    args = ap.parse_args(argv)
    rows = run(quick=args.quick)
    from rich.console import Console
    from rich.table import Table

    t = Table(title="argfaith evaluate: 200-argument debate vs 60-argument summary (after warm-up)")
    for c in ("task", "median ms", "min ms", "notes"):
        t.add_column(c, justify="right" if c.endswith(" ms") else "left")
    for r in rows:
        t.add_row(r["task"], f"{1e3 * r['seconds']:.2f}", f"{1e3 * r['min_seconds']:.2f}", r["notes"])
    Console().print(t)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    meta = {"python": platform.python_version(), "machine": platform.machine(), "cpus": __import__("os").cpu_count(),
            "date": time.strftime("%Y-%m-%d"), "note": "shared 2-core machine; numbers are preliminary"}
    RESULTS.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
