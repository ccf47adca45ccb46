"""Faithfulness with error bars (issue 23): coverage of the intervals, their cost, their width.

``coverage``: the 12 fully labelled summaries of the EP relation corpus (``data/ep_relations_llm``,
summary part: every ordered pair labelled by annotators). For each summary two QBAFs are built
over the same units: the *labelled* one (the annotators' edges, certain) and the *model* one
(every pair with the relation model's out-of-fold probability — from a fold model that did not
train on that debate — as its distribution). Draws of the model QBAF give a 90% interval of
σ*(p) per provision and of π_bc / π_εa / π_dpc against a source QBAF (the debate mined offline
with point labels; it only fixes the σ(p) the pairwise metrics compare with). **Coverage** = how
often the labelled value falls inside the interval. A calibrated, independent-pairs model should
cover ≈ 90%; less means the intervals are too narrow (pairs are not independent, or the model is
biased), more means they are wide.

The out-of-fold probabilities come from the trials' work folder (``scripts/relmodel/trials.py prep``
+ ``stage1``: calibrated stage-1 probabilities, cross-fitted per genre); the stance cross-encoder
is not in them (its out-of-fold logits exist for one fold only), so this measures the stage-1
model's intervals.

``timing``: ``evaluate`` of a mined ~300-argument debate and one summary with and without
intervals (``--draws``), and of the bundled example; draws per second of the batch path.

    python benchmarks/uncertainty.py coverage --work /work/relwork --data ../shared/data
    python benchmarks/uncertainty.py timing --data ../shared/data

writes ``benchmarks/results/uncertainty.json`` (sections merged).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts" / "relmodel"))
RESULTS = ROOT / "benchmarks" / "results" / "uncertainty.json"
TAU = 0.2


def _save(section: str, payload: dict) -> None:
    res = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    res[section] = payload
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(res, indent=1) + "\n")


def _source_qbaf(data: Path, debate_id: str, cache: Path, classifier: str):  # type: ignore[no-untyped-def]
    from argfaith.datasets.documents import load_debate
    from argfaith.mining.classifiers.registry import make_classifier
    from argfaith.mining.pipeline import mine_debate
    from argfaith.qbaf import load_qbaf, save_qbaf

    f = cache / f"{debate_id}-{classifier}.json"
    if f.exists():
        return load_qbaf(f)
    cache.mkdir(parents=True, exist_ok=True)
    res = mine_debate(load_debate(data / "ep_debates" / "debates" / debate_id), make_classifier(classifier))
    save_qbaf(res.qbaf, f)
    return res.qbaf


def coverage(a: argparse.Namespace) -> dict:
    import trials  # scripts/relmodel

    from argfaith.datasets.provision_ids import canonical_provision_id
    from argfaith.metrics import evaluate
    from argfaith.metrics.uncertainty import DISTRIBUTION_KEY, faithfulness_intervals
    from argfaith.qbaf import QBAF, Argument

    d = trials.load_work(a.work)
    d["work"] = a.work
    logp, train_prior = trials.stage1_logp(d)
    P, _ = trials.crossfit_calibration(d, logp, train_prior)
    by_summary: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(d["rows"]):
        if r["part"] == "summary":
            by_summary[r["q"].source_id.rsplit("-", 1)[0]].append(i)
    classes = tuple(trials.M.CLASSES)
    out_rows = []
    hits: dict[str, list[bool]] = defaultdict(list)
    widths: dict[str, list[float]] = defaultdict(list)
    for name, idx in sorted(by_summary.items()):
        debate_id = d["rows"][idx[0]]["group"]
        texts: dict[str, str] = {}
        props: dict[str, str] = {}
        gold_att, gold_sup, dist = [], [], []
        for i in idx:
            q = d["rows"][i]["q"]
            tid = canonical_provision_id(q.target_id) if q.target_kind == "proposal" else q.target_id
            texts[q.source_id] = q.source
            (props if q.target_kind == "proposal" else texts)[tid] = q.target
            lab = d["rows"][i]["label"]
            if lab == "attack":
                gold_att.append((q.source_id, tid))
            elif lab == "support":
                gold_sup.append((q.source_id, tid))
            dist.append([q.source_id, tid, float(P[i, classes.index("attack")]), float(P[i, classes.index("support")])])
        args = [Argument(p, "proposal", 0.5, text=t) for p, t in props.items()] + [Argument(s, text=t) for s, t in texts.items()]
        gold = QBAF.from_arguments(args, attacks=gold_att, supports=gold_sup, name=f"{name}-labelled")
        point_att = [(s, t) for s, t, pa, ps in dist if pa >= max(ps, 1 - pa - ps)]
        point_sup = [(s, t) for s, t, pa, ps in dist if ps > pa and ps >= 1 - pa - ps]
        mdl = QBAF.from_arguments(args, attacks=point_att, supports=point_sup, name=f"{name}-model",
                                  info={DISTRIBUTION_KEY: {"pairs": dist, "fixed_at": 0.99}})
        src = _source_qbaf(a.data, debate_id, a.cache, a.source_classifier)
        shared = [p for p in props if p in src.index]
        if not shared:
            print(f"  {name}: no provision shared with the mined source, skipped", flush=True)
            continue
        t0 = time.perf_counter()
        iv = faithfulness_intervals(src, {"m": mdl}, draws=a.draws, slow_draws=a.slow_draws, seed=0, level=0.9, epsilon=0.1)
        secs = time.perf_counter() - t0
        rep = evaluate(src, gold, tau=TAU, epsilon=0.1)
        si = iv.summaries["m"]
        row = {"summary": name, "debate": debate_id, "pairs": len(idx), "gold_edges": len(gold_att) + len(gold_sup),
               "uncertain_pairs": si.uncertain_pairs, "seconds": round(secs, 2), "metrics": {}, "sigma": {}}
        for key, gv in (("pi_bc", rep.pairwise.balance_consistency), ("pi_ea", rep.pairwise.epsilon_accuracy),
                        ("pi_dpc", rep.pairwise.d_preferability_consistency)):
            m = si.metrics[key]
            inside = gv is not None and m.low is not None and m.low - 1e-9 <= gv <= m.high + 1e-9
            row["metrics"][key] = {"labelled": gv, "mean": m.mean, "low": m.low, "high": m.high, "inside": inside}
            if gv is not None and m.low is not None:
                hits[key].append(inside)
                widths[key].append(m.high - m.low)
        for p, gs in rep.summary.strengths.items():
            m = si.sigma_summary.get(p)
            if m is None:
                continue
            inside = m.low - 1e-9 <= gs <= m.high + 1e-9
            hits["sigma_star"].append(inside)
            widths["sigma_star"].append(m.high - m.low)
            row["sigma"][p] = {"labelled": gs, "low": m.low, "high": m.high, "mean": m.mean, "inside": inside}
        out_rows.append(row)
        print(f"  {name}: {len(idx)} pairs, {si.uncertain_pairs} uncertain; "
              + ", ".join(f"{k} {v['labelled'] if v['labelled'] is None else round(v['labelled'], 3)} in "
                          f"[{v['low'] if v['low'] is None else round(v['low'], 3)}, {v['high'] if v['high'] is None else round(v['high'], 3)}]"
                          for k, v in row["metrics"].items()), flush=True)
    summary = {k: {"n": len(v), "coverage": round(float(np.mean(v)), 4), "mean_width": round(float(np.mean(widths[k])), 4)}
               for k, v in hits.items()}
    print("\n| quantity | n | labelled value inside the 90% interval | mean width |\n| --- | ---: | ---: | ---: |")
    for k, v in summary.items():
        print(f"| {k} | {v['n']} | {100 * v['coverage']:.0f}% | {v['mean_width']:.3f} |")
    return {"draws": a.draws, "slow_draws": a.slow_draws, "level": 0.9, "source_classifier": a.source_classifier,
            "probabilities": "stage-1 relation model, calibrated out-of-fold (debate-grouped 3 folds; scripts/relmodel/trials.py)",
            "summary": summary, "rows": out_rows}


def timing(a: argparse.Namespace) -> dict:
    from argfaith.datasets.documents import load_debate, load_summary
    from argfaith.metrics.evaluate import evaluate_many
    from argfaith.metrics.uncertainty import relation_distribution, sample_side, side_draws
    from argfaith.mining.classifiers.registry import make_classifier
    from argfaith.mining.pipeline import mine_debate, mine_summary
    from argfaith.qbaf import load_qbaf, save_qbaf

    a.cache.mkdir(parents=True, exist_ok=True)
    did = a.debate
    fq, fs = a.cache / f"{did}-offline.json", a.cache / f"{did}-{a.variant}-offline.json"
    debate = load_debate(a.data / "ep_debates" / "debates" / did)
    clf = make_classifier("offline")
    if a.source is not None:
        fq = a.source  # a debate QBAF mined earlier (e.g. by the self-test), with its relation distribution
    if not fq.exists():
        t0 = time.perf_counter()
        save_qbaf(mine_debate(debate, clf).qbaf, fq)
        print(f"mined {did} in {time.perf_counter() - t0:.1f} s", flush=True)
    if not fs.exists():
        sf = next((a.data / "ep_summaries" / did).glob(f"*{a.variant}*"))
        save_qbaf(mine_summary(load_summary(sf), debate, clf).qbaf, fs)
    q, s = load_qbaf(fq), load_qbaf(fs)
    rows = []

    def clock(label: str, src, summ, draws: int) -> None:  # type: ignore[no-untyped-def]
        best = float("inf")
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            evaluate_many(src, [summ], taus=[TAU], draws=draws, slow_draws=min(20, draws), explain=True)
            best = min(best, time.perf_counter() - t0)
        rows.append({"case": label, "draws": draws, "seconds": round(best, 3)})
        print(f"| {label} | {draws} | {best:.3f} |", flush=True)

    print(f"\n{did}: {q.n} arguments ({len(q.speech_arguments)} speech), "
          f"{len(relation_distribution(q) or [])} uncertain source pairs; summary {s.n} arguments, "
          f"{len(relation_distribution(s) or [])} uncertain pairs\n\n| case | draws | seconds (best of {a.repeat}) |\n| --- | ---: | ---: |")
    for k in a.draws_list:
        clock(f"{did} + {a.variant}", q, s, k)
    ex = ROOT / "examples" / "paper"
    from argfaith.qbaf import load_qbaf as lq

    for k in (0, 100):
        clock("examples/paper q + qa (certain labels)", lq(ex / "q.json"), lq(ex / "qa.json"), k)
    # draws per second of the batch path alone (sampling + one batch solve), source side
    dist = relation_distribution(q.with_speech_base_score(TAU))
    k = 1000
    t0 = time.perf_counter()
    side = sample_side(q.with_speech_base_score(TAU), dist, k, np.random.default_rng(0))
    t1 = time.perf_counter()
    side_draws(side, q.proposals)
    t2 = time.perf_counter()
    dps = {"draws": k, "sample_seconds": round(t1 - t0, 3), "solve_seconds": round(t2 - t1, 3),
           "draws_per_second": round(k / (t2 - t0), 1), "arguments": q.n}
    print(f"\nbatch path, source side: {k} draws of {q.n} arguments: sampling {t1 - t0:.2f} s, solving {t2 - t1:.2f} s "
          f"→ {k / (t2 - t0):,.0f} draws/s")
    return {"debate": did, "variant": a.variant, "source_arguments": q.n, "summary_arguments": s.n,
            "rows": rows, "batch": dps}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    data_default = Path(os.environ.get("ARGFAITH_DATA", ROOT.parent / "shared" / "data"))
    c = sub.add_parser("coverage")
    c.add_argument("--work", type=Path, required=True, help="the trials' work folder (rows.pkl, stage1_oof.npz)")
    c.add_argument("--data", type=Path, default=data_default)
    c.add_argument("--cache", type=Path, default=ROOT.parent / "uncertainty-runs")
    c.add_argument("--source-classifier", default="features")
    c.add_argument("--draws", type=int, default=500)
    c.add_argument("--slow-draws", type=int, default=50)
    t = sub.add_parser("timing")
    t.add_argument("--data", type=Path, default=data_default)
    t.add_argument("--cache", type=Path, default=ROOT.parent / "uncertainty-runs")
    t.add_argument("--debate", default="CRE-20060214-ITEM-006")
    t.add_argument("--variant", default="claude_structured_en")
    t.add_argument("--draws-list", type=lambda s: [int(x) for x in s.split(",")], default=[0, 50, 100, 200])
    t.add_argument("--repeat", type=int, default=3)
    t.add_argument("--source", type=Path, default=None, help="use this mined debate QBAF instead of mining one")
    a = ap.parse_args()
    if a.cmd == "coverage":
        _save("coverage", coverage(a))
    else:
        _save("timing", timing(a))
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
