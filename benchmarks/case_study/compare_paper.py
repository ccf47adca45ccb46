"""The case study's numbers next to the paper's (PAPER.md §8), from an ``argfaith study`` output.

Reads ``OUT/table.json`` and ``OUT/study.json`` of a finished run, prints

1. the paper's Table 3 "Debate 1" column (CRE-20060213-ITEM-013, Q / Q*_Sonnet / Q*_Haiku) next
   to our Q and every summary variant of the same debate;
2. the per-variant means over all debates (our Table 3 across the corpus);
3. the Table 6 view (π_bc, π_εa per τ), and whether the variants keep their order across τ as
   the paper reports;

copies the small tables into ``benchmarks/case_study/results/`` and writes
``benchmarks/results/case_study.json``. The paper's values are printed for comparison only.

    python benchmarks/case_study/compare_paper.py STUDY_OUT
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DEBATE_1 = "CRE-20060213-ITEM-013"

#: PAPER.md §8, Table 3, Debate 1 (Q, Q*_Sonnet, Q*_Haiku); None = "—" in the paper.
PAPER_DEBATE_1 = {
    "rouge2_f": (None, 0.24, 0.05),
    "bertscore_f1": (None, 0.82, 0.83),
    "nli": (None, 0.60, 0.69),
    "pi_ar": (1.00, 0.97, 0.93),
    "mean_pi_pcr": (0.53, 0.52, 0.58),
    "pi_dpc@0.2": (None, 1.0, 1.0),
    "pi_bc@0.2": (None, 0.26, 0.19),
    "pi_ea@0.2": (None, 0.52, 0.30),
}
LABELS = {"rouge2_f": "R-2", "bertscore_f1": "BERTScore", "nli": "NLI", "pi_ar": "π_ar", "mean_pi_pcr": "mean π_pcr",
          "pi_dpc@0.2": "π_dpc", "pi_bc@0.2": "π_bc", "pi_ea@0.2": "π_εa"}
SOURCE_KEYS = {"pi_ar": "source_pi_ar", "mean_pi_pcr": "source_mean_pi_pcr"}


def fmt(v: object) -> str:
    return "—" if v is None else f"{v:.2f}" if isinstance(v, float) else str(v)


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    out = Path(sys.argv[1])
    table = json.loads((out / "table.json").read_text(encoding="utf-8"))
    manifest = json.loads((out / "study.json").read_text(encoding="utf-8"))
    rows = [r for r in table["rows"] if r["status"] == "ok"]
    d1 = sorted((r for r in rows if r["debate"] == DEBATE_1), key=lambda r: r["variant"])
    res: dict[str, object] = {"study_out": str(out), "classifier": manifest.get("classifier"), "runs": manifest.get("runs"),
                              "summary": manifest.get("summary"), "config": manifest.get("config")}
    lines = []
    if d1:
        head = ["metric", "paper Q", "paper Sonnet", "paper Haiku", "our Q", *[r["variant"] for r in d1]]
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * len(head))
        comp = []
        for k, (pq, ps, ph) in PAPER_DEBATE_1.items():
            ours_q = d1[0].get(SOURCE_KEYS[k]) if k in SOURCE_KEYS else None
            vals = [r.get(k) for r in d1]
            lines.append("| " + " | ".join([LABELS[k], fmt(pq), fmt(ps), fmt(ph), fmt(ours_q), *map(fmt, vals)]) + " |")
            comp.append({"metric": k, "paper": {"Q": pq, "sonnet": ps, "haiku": ph}, "ours": {"Q": ours_q, **{r["variant"]: r.get(k) for r in d1}}})
        lines.append(f"\nour Q: {d1[0]['units']} units, {d1[0]['source_n_speech']} speech arguments, {d1[0]['source_n_proposals']} provisions, "
                     f"{d1[0]['source_n_attacks']} attacks, {d1[0]['source_n_supports']} supports")
        res["debate_1"] = comp
    print(f"## {DEBATE_1}: the paper's Debate 1 vs this run\n")
    print("\n".join(lines))
    # per-variant means
    keys = list(PAPER_DEBATE_1)
    variants = sorted({r["variant"] for r in rows})
    means = []
    for v in variants:
        g = [r for r in rows if r["variant"] == v]
        m = {"variant": v, "n": len(g)}
        for k in keys + ["source_pi_ar", "source_mean_pi_pcr", "summary_n_speech"]:
            vals = [r[k] for r in g if r.get(k) is not None]
            m[k] = statistics.fmean(vals) if vals else None
        means.append(m)
    res["variant_means"] = means
    print("\n## Means per variant over the debates (τ = 0.2)\n")
    print("| variant | n | " + " | ".join(LABELS[k] for k in keys) + " |")
    print("|" + "---|" * (len(keys) + 2))
    for m in means:
        print(f"| {m['variant']} | {m['n']} | " + " | ".join(fmt(m[k]) for k in keys) + " |")
    # Table 6: order of variants by mean π_bc / π_εa at each τ
    taus = table["taus"]
    order = {}
    for metric in ("pi_bc", "pi_ea"):
        per_tau = {}
        for t in taus:
            col = f"{metric}@{t:g}"
            vals = {v: statistics.fmean([r[col] for r in rows if r["variant"] == v and r.get(col) is not None] or [float("nan")]) for v in variants}
            per_tau[f"{t:g}"] = vals
        ranks = {t: sorted(vals, key=lambda v: -vals[v]) for t, vals in per_tau.items()}
        # Pairs of variants whose order flips between some two τ, and the largest change of one
        # variant's mean across τ: near-ties flip without meaning much.
        ts = list(per_tau)
        flips = sorted({tuple(sorted((a, b))) for i, t1 in enumerate(ts) for t2 in ts[i + 1:] for a in variants for b in variants
                        if a < b and (per_tau[t1][a] - per_tau[t1][b]) * (per_tau[t2][a] - per_tau[t2][b]) < 0})
        change = max(max(per_tau[t][v] for t in ts) - min(per_tau[t][v] for t in ts) for v in variants)
        order[metric] = {"means": per_tau, "ranking": ranks, "same_order_at_every_tau": len({tuple(r) for r in ranks.values()}) == 1,
                         "flipped_pairs": [list(f) for f in flips], "max_change_of_a_mean": change}
    res["tau_sensitivity"] = order
    print("\n## Table 6: does the ranking of variants hold across τ?\n")
    for metric, o in order.items():
        print(f"- {metric}: same order at every τ: {o['same_order_at_every_tau']}; largest change of a variant's mean "
              f"across τ {o['max_change_of_a_mean']:.3f}; flipped pairs: {o['flipped_pairs'] or 'none'}")
        for t, r in o["ranking"].items():
            print(f"  - τ={t}: " + " > ".join(f"{v} {o['means'][t][v]:.3f}" for v in r))
    dest = HERE / "results"
    dest.mkdir(exist_ok=True)
    for name in ("table.csv", "variants.md", "sensitivity.md", "table4.md"):
        shutil.copyfile(out / name, dest / name)
    t3 = (out / "table3.md").read_text(encoding="utf-8")
    start = t3.find(f"## {DEBATE_1}")
    if start >= 0:
        end = t3.find("\n## ", start + 3)
        (dest / "table3_debate1.md").write_text(t3[start: end if end > 0 else None].strip() + "\n", encoding="utf-8")
    (dest / "debate1_vs_paper.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (ROOT / "benchmarks" / "results").mkdir(exist_ok=True)
    (ROOT / "benchmarks" / "results" / "case_study.json").write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwrote {dest}/ and benchmarks/results/case_study.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
