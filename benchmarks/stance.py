#!/usr/bin/env python
"""The stance-aware relation classifier: quality (debate-grouped CV), speed and mined density.

Parts (``--parts``, comma-separated; results in ``benchmarks/results/stance.json``):

- ``quality``: from the out-of-fold logits of ``scripts/train_stance.py --cv`` (``--oof``):
  macro-F1 and per-class F1 per corpus part, with the raw arg-max and with the ``all-pairs``
  decision rule calibrated HONESTLY (per fold, offsets matched on the other folds' out-of-fold
  logits only); related precision / recall and predicted vs labelled density on the exhaustive
  candidates; the paper's debates (never trained on): the 300 silver dev pairs and the
  CRE-20060213-ITEM-013 summary pairs, scored by the mean logits of the fold models. Beside it,
  in the same run: the previous default (``features``, the shipped numpy model) on the same pairs,
  and the same feature model retrained on each CV fold of the new corpus (is it the data or the
  model?).
- ``shipped``: the shipped int8 ONNX model on the paper's debates (silver dev, summary pairs).
- ``speed``: mining a ~300-sentence debate and a summary offline, stance vs features, same run.
- ``density``: share of candidate pairs mined as edges and attack share, for the 12 case-study
  debates, stance vs features, against the labelled densities.

    ARGFAITH_DATA=../shared/data python benchmarks/stance.py --parts quality,shipped,speed,density
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from argfaith.metrics.classification import classification_report  # noqa: E402
from argfaith.mining.classifiers.stance import matched_rule  # noqa: E402

CLASSES = ("attack", "support", "no relation")
RESULTS = ROOT / "benchmarks" / "results" / "stance.json"
GENRE_PART = {"debate": "exhaustive", "summary": "summary"}


def scores(y: list[str], pred: list[str]) -> dict[str, Any]:
    r = classification_report(y, pred)
    t = np.array([v != "no relation" for v in y])
    p = np.array([v != "no relation" for v in pred])
    tp = int((t & p).sum())
    return {
        "n": len(y), "macro_f1": round(r.macro_f1, 4), "accuracy": round(r.accuracy, 4),
        "f1": {s.label: round(s.f1, 4) for s in r.per_class},
        "related_precision": round(tp / p.sum(), 4) if p.sum() else None,
        "related_recall": round(tp / t.sum(), 4) if t.sum() else None,
        "density_pred": round(float(p.mean()), 4), "density_true": round(float(t.mean()), 4),
        "attack_share_pred": round(sum(1 for v in pred if v == "attack") / max(1, p.sum()), 4),
        "attack_share_true": round(sum(1 for v in y if v == "attack") / max(1, t.sum()), 4),
    }


def auc(score: np.ndarray, positive: np.ndarray) -> float | None:
    """Area under the ROC curve (ties averaged)."""
    pos, neg = int(positive.sum()), int((~positive).sum())
    if not pos or not neg:
        return None
    from scipy.stats import rankdata  # noqa: PLC0415 - benchmark-only dependency of the test extra

    r = rankdata(score)
    return round(float((r[positive].sum() - pos * (pos + 1) / 2) / (pos * neg)), 4)


def decide(p_rel: np.ndarray, margin: np.ndarray, related: np.ndarray) -> list[str]:
    return ["no relation" if not r else ("attack" if m > 0 else "support") for r, m in zip(related, margin)]


def rule_from(p_rel: np.ndarray, margin: np.ndarray, labels: np.ndarray) -> tuple[float, float]:
    """(threshold, stance offset) matching the labelled density and attack share (train_stance.py)."""
    related = labels != "no relation"
    return matched_rule(p_rel, margin, float(related.mean()), float((labels == "attack").sum() / max(1, related.sum())))


def quality(data: Path, oof_path: Path) -> dict[str, Any]:
    z = np.load(oof_path, allow_pickle=False)
    ok = ~np.isnan(z["stage2"][:, 0])
    s1, s2, y, parts, genres, folds, groups = (z[k][ok] for k in ("stage1", "stage2", "labels", "parts", "genres", "folds", "groups"))
    p_rel = 1.0 - s1[:, 2].astype(np.float64)
    margin = (s2[:, 0] - s2[:, 1]).astype(np.float64)
    bal = decide(p_rel, margin, s1.argmax(axis=1) != 2)
    # honest all-pairs rule: per fold and genre, thresholds fitted on the OTHER folds only
    cal_rel = np.zeros(len(y), bool)
    cal_margin = margin.copy()
    for f in np.unique(folds):
        for genre, part in GENRE_PART.items():
            ref = (folds != f) & (parts == part)
            tgt = (folds == f) & (genres == genre)
            if ref.any() and tgt.any():
                t, b = rule_from(p_rel[ref], margin[ref], y[ref])
                cal_rel[tgt] = p_rel[tgt] >= t
                cal_margin[tgt] = margin[tgt] + b
    cal = decide(p_rel, cal_margin, cal_rel)
    res: dict[str, Any] = {"oof": oof_path.name, "recipe": json.loads(str(z["recipe"])), "folds": int(len(np.unique(folds))),
                           "debates": int(len(np.unique(groups))), "stance": {}}
    for part in ["all", *sorted(set(parts))]:
        m = np.ones(len(y), bool) if part == "all" else parts == part
        idx = np.flatnonzero(m)
        rel = (y[m] != "no relation")
        st = idx[rel]
        res["stance"][part] = {
            "balanced": scores(list(y[m]), [bal[i] for i in idx]),
            "all_pairs": scores(list(y[m]), [cal[i] for i in idx]),
            "relatedness_auc": auc(p_rel[m], rel),
            # stage 2 alone, on the truly related pairs: is the stance right?
            "stance_given_related": scores(list(y[st]), ["attack" if margin[i] > 0 else "support" for i in st]) if len(st) else None,
        }
    E1, E2, ey, eparts, egenres = z["eval_stage1"], z["eval_stage2"], z["eval_labels"], z["eval_parts"], z["eval_genres"]
    ep_rel = 1.0 - E1[:, 2].astype(np.float64)
    e_margin = (E2[:, 0] - E2[:, 1]).astype(np.float64)
    e_rel_all, e_margin_all = np.zeros(len(ey), bool), e_margin.copy()
    for genre, part in GENRE_PART.items():
        ref = parts == part
        t, b = rule_from(p_rel[ref], margin[ref], y[ref])
        g = egenres == genre
        e_rel_all[g] = ep_rel[g] >= t
        e_margin_all[g] = e_margin[g] + b
    res["paper_debates_cv_models"] = {}
    for part in sorted(set(eparts)):
        m = eparts == part
        idx = np.flatnonzero(m)
        rel = ey[m] != "no relation"
        st = idx[rel]
        res["paper_debates_cv_models"][part] = {
            "balanced": scores(list(ey[m]), decide(ep_rel[m], e_margin[m], E1[m].argmax(axis=1) != 2)),
            "all_pairs": scores(list(ey[m]), decide(ep_rel[m], e_margin_all[m], e_rel_all[m])),
            "relatedness_auc": auc(ep_rel[m], rel),
            "stance_given_related": scores(list(ey[st]), ["attack" if e_margin[i] > 0 else "support" for i in st]) if len(st) else None,
        }
    res["features"] = features_baselines(data, z, ok)
    return res


def features_baselines(data: Path, z: Any, ok: np.ndarray) -> dict[str, Any]:
    """The previous default on the same pairs: as shipped, and retrained on each CV fold."""
    from argfaith.bench.corpus import load_ep_relation_corpus
    from argfaith.bench.relations import DebateContexts, pair_query
    from argfaith.datasets import load_relation_pairs
    from argfaith.mining.classifiers.offline import OfflineRelationClassifier, default_idf_path, load_idf, train_offline_classifier

    corpus = {c.pair_id: c for c in load_ep_relation_corpus(ROOT / "data" / "ep_relations_llm" / "pairs.jsonl.gz", data)}
    ctx = DebateContexts(data / "ep_debates")
    extra = {p.pair_id: pair_query(p, ctx) for p in load_relation_pairs(ROOT / "data" / "ep_pairs_llm" / "pairs.jsonl")}
    ids = list(z["ids"][ok])
    qs = [corpus[i].query if i in corpus else extra[i] for i in ids]
    y = list(z["labels"][ok])
    parts, folds = z["parts"][ok], z["folds"][ok]
    out: dict[str, Any] = {"shipped": {}, "retrained_per_fold": {}}
    shipped = OfflineRelationClassifier()
    mining = shipped.with_prior("all-pairs")
    p_bal = [p.label for p in shipped.classify(qs)]
    p_mine = [p.label for p in mining.classify(qs)]
    retr = [""] * len(qs)
    idf = load_idf(default_idf_path())
    for f in np.unique(folds):
        tr = np.flatnonzero(folds != f)
        te = np.flatnonzero(folds == f)
        clf = train_offline_classifier([qs[i] for i in tr], [y[i] for i in tr], idf)
        for i, p in zip(te, clf.classify([qs[i] for i in te])):
            retr[i] = p.label
    for part in ["all", *sorted(set(parts))]:
        m = np.flatnonzero(np.ones(len(y), bool) if part == "all" else parts == part)
        yy = [y[i] for i in m]
        out["shipped"][part] = {"balanced": scores(yy, [p_bal[i] for i in m]), "all_pairs": scores(yy, [p_mine[i] for i in m])}
        out["retrained_per_fold"][part] = scores(yy, [retr[i] for i in m])
    out["note"] = ("shipped = the previous default (numpy LR on hand-built features, trained on the silver dev pairs and "
                   "data/ep_pairs_llm): out of sample on every part except 'sampled-353' (its own training pairs)")
    return out


def shipped(data: Path) -> dict[str, Any]:
    from argfaith.bench.corpus import load_ep_relation_corpus
    from argfaith.bench.relations import DebateContexts, pair_query
    from argfaith.datasets import load_relation_pairs
    from argfaith.mining.classifiers.stance import StanceRelationClassifier

    clf = StanceRelationClassifier()
    mine = clf.with_prior("all-pairs")
    ctx = DebateContexts(data / "ep_debates")
    silver = load_relation_pairs(data / "ep_relations_silver" / "dev.jsonl")
    qs = [pair_query(p, ctx) for p in silver]
    y = [p.label for p in silver]
    paper_summ = [c for c in load_ep_relation_corpus(ROOT / "data" / "ep_relations_llm" / "pairs.jsonl.gz", data) if c.eval_only]
    t0 = time.perf_counter()
    out = {
        "silver_dev": {"raw": scores(y, [p.label for p in clf.classify(qs)]), "all_pairs": scores(y, [p.label for p in mine.classify(qs)])},
        "paper_summary_pairs": {"raw": scores([c.label for c in paper_summ], [p.label for p in clf.classify([c.query for c in paper_summ])]),
                                "all_pairs": scores([c.label for c in paper_summ], [p.label for p in mine.classify([c.query for c in paper_summ])])},
        "model": clf.describe(), "seconds": round(time.perf_counter() - t0, 1),
    }
    return out


def speed(data: Path, debate_id: str, summary_file: str | None) -> dict[str, Any]:
    from argfaith.datasets.ep import find_ep_debate, read_ep_debate
    from argfaith.datasets.summaries import read_summary
    from argfaith.mining.classifiers.registry import make_classifier
    from argfaith.mining.pipeline import plan_debate, plan_summary, run_plan

    deb = read_ep_debate(find_ep_debate(data / "ep_debates", debate_id), annotations=False)
    rows = []
    for spec in ("offline", "features"):
        t0 = time.perf_counter()
        clf = make_classifier(spec)
        t_load = time.perf_counter() - t0
        plan = plan_debate(deb, units="sentences")
        t1 = time.perf_counter()
        res = run_plan(plan, clf, chunk_size=None)
        t_src = time.perf_counter() - t1
        row = {"classifier": spec, "fingerprint": getattr(clf, "fingerprint", None), "load_s": round(t_load, 2),
               "debate": debate_id, "n_speech": len(plan.speech), "pairs": len(plan.pairs), "debate_s": round(t_src, 1),
               "pairs_per_s": round(len(plan.pairs) / t_src, 1)}
        if summary_file:
            summ = read_summary(data / "ep_summaries" / debate_id / summary_file)
            t2 = time.perf_counter()
            sp = plan_summary(summ, deb)
            run_plan(sp, clf, chunk_size=None)
            row.update(summary=summary_file, summary_pairs=len(sp.pairs), summary_s=round(time.perf_counter() - t2, 1))
        rows.append(row)
        print(json.dumps(row), flush=True)
    return {"rows": rows, "load_average": os.getloadavg(), "cpus": os.cpu_count()}


def density(data: Path) -> dict[str, Any]:
    from argfaith.datasets.ep import find_ep_debate, read_ep_debate
    from argfaith.metrics.degeneracy import REFERENCE_DENSITY
    from argfaith.mining.classifiers.registry import make_classifier
    from argfaith.mining.pipeline import plan_debate, run_plan

    debates = sorted(p.name for p in (data / "ep_summaries").iterdir() if p.is_dir())
    rows = []
    clfs = {spec: make_classifier(spec) for spec in ("offline", "features")}
    for did in debates:
        deb = read_ep_debate(find_ep_debate(data / "ep_debates", did), annotations=True)
        plan = plan_debate(deb)  # units as `study` mines them (human spans where annotated)
        for spec, clf in clfs.items():
            t0 = time.perf_counter()
            q = run_plan(plan, clf, chunk_size=None).qbaf
            n_e = len(q.attacks) + len(q.supports)
            rows.append({"debate": did, "classifier": spec, "units": plan.unit_method, "pairs": len(plan.pairs),
                         "attacks": len(q.attacks), "supports": len(q.supports),
                         "density": round(n_e / len(plan.pairs), 4), "attack_share": round(len(q.attacks) / max(1, n_e), 4),
                         "seconds": round(time.perf_counter() - t0, 1)})
            print(json.dumps(rows[-1]), flush=True)
    summary = {}
    for spec in clfs:
        rs = [r for r in rows if r["classifier"] == spec]
        tot = sum(r["pairs"] for r in rs)
        summary[spec] = {"density": round(sum(r["attacks"] + r["supports"] for r in rs) / tot, 4),
                         "attack_share": round(sum(r["attacks"] for r in rs) / max(1, sum(r["attacks"] + r["supports"] for r in rs)), 4),
                         "max_attacks": max(r["attacks"] for r in rs)}
    return {"rows": rows, "summary": summary, "labelled": REFERENCE_DENSITY["debate"]}


def print_quality(q: dict[str, Any]) -> None:
    def line(name: str, s: dict[str, Any]) -> str:
        f = s["f1"]
        return (f"| {name} | {s['n']} | {s['macro_f1']:.3f} | {f['attack']:.2f} / {f['support']:.2f} / {f['no relation']:.2f} | "
                f"{s['related_precision'] or 0:.2f} / {s['related_recall'] or 0:.2f} | {100 * s['density_pred']:.1f}% vs {100 * s['density_true']:.1f}% |")

    print(f"\nstance model, {q['folds']}-fold CV grouped by debate ({q['debates']} debates), recipe {q['recipe']}")
    print("| pairs | n | macro-F1 | F1 attack / support / none | related P / R | predicted vs labelled related |")
    print("| --- | ---: | ---: | --- | --- | --- |")
    for part, v in q["stance"].items():
        print(line(f"{part} (balanced)", v["balanced"]))
        if part in ("exhaustive", "summary", "all"):
            print(line(f"{part} (all-pairs rule, per-fold)", v["all_pairs"]))
        if v.get("stance_given_related"):
            print(line(f"{part}: stance on related pairs", v["stance_given_related"]) + f" relatedness AUC {v['relatedness_auc']}")
    for part, v in q["paper_debates_cv_models"].items():
        print(line(f"paper debates: {part} (balanced)", v["balanced"]))
        print(line(f"paper debates: {part} (all-pairs rule)", v["all_pairs"]))
        if v.get("stance_given_related"):
            print(line(f"paper debates: {part}: stance on related", v["stance_given_related"]) + f" relatedness AUC {v['relatedness_auc']}")
    print("\nprevious default (features), same pairs")
    for part, v in q["features"]["shipped"].items():
        print(line(f"{part} shipped, balanced", v["balanced"]))
        print(line(f"{part} shipped, all-pairs", v["all_pairs"]))
    for part, v in q["features"]["retrained_per_fold"].items():
        print(line(f"{part} retrained per fold", v))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--parts", default="quality,shipped,speed,density")
    ap.add_argument("--data", type=Path, default=Path(os.environ.get("ARGFAITH_DATA", ROOT.parent / "shared" / "data")))
    ap.add_argument("--oof", type=Path, default=ROOT / "benchmarks" / "results" / "stance_oof.npz")
    ap.add_argument("--speed-debate", default="CRE-20060214-ITEM-006")
    ap.add_argument("--speed-summary", default="CRE-20060214-ITEM-006_claude_structured_org.json")
    a = ap.parse_args()
    res = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    for part in a.parts.split(","):
        t0 = time.perf_counter()
        if part == "quality":
            res["quality"] = quality(a.data, a.oof)
            print_quality(res["quality"])
        elif part == "shipped":
            res["shipped"] = shipped(a.data)
            print(json.dumps(res["shipped"], indent=1))
        elif part == "speed":
            res["speed"] = speed(a.data, a.speed_debate, a.speed_summary)
        elif part == "density":
            res["density"] = density(a.data)
            print(json.dumps(res["density"]["summary"], indent=1))
        else:
            sys.exit(f"unknown part {part!r}")
        res.setdefault("seconds", {})[part] = round(time.perf_counter() - t0, 1)
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(res, indent=1) + "\n")
    print(f"\nwrote {RESULTS}")


if __name__ == "__main__":
    main()
