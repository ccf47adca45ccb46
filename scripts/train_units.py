#!/usr/bin/env python
"""Train and evaluate argfaith's argumentativeness filter for summary units (issue 21, item 1).

Data: ``data/summary_units`` (2,465 segments of the 54 shared LLM summaries, ARG / NON, two
annotators + adjudication; silver). Steps:

1. the structural rules (:func:`argfaith.mining.argumentative.structural_reason`) are applied
   first and scored on their own;
2. a class-balanced logistic regression over [sentence embedding of the shipped encoder, surface
   cues] is trained on the segments the rules keep, evaluated by leave-one-debate-out
   cross-validation (12 debates; a debate's summaries are never in its own training fold);
3. the threshold is the largest one whose out-of-fold recall of ARG (over ALL segments) stays
   ≥ ``--min-recall``; the model refitted on every segment is written with it;
4. the source side: the same model on the sentence units of the paper's three debates, against
   the human argument spans (a sentence is an argument when ≥ half of it lies in a span).

    python scripts/train_units.py --data $ARGFAITH_DATA --out argfaith/data/argumentative_units.json \
        --report benchmarks/results/units.json

Prints the tables of ``benchmarks/units.md``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from argfaith.datasets.summaries import read_summary  # noqa: E402
from argfaith.mining.argumentative import SURFACE_FEATURES, structural_reason, surface_features  # noqa: E402
from argfaith.mining.encoder import SentenceEncoder  # noqa: E402
from argfaith.mining.units import KEEP_ALL, SUMMARY_POLICY_V1, summary_units  # noqa: E402

PAPER = ("CRE-20060213-ITEM-013", "CRE-20070905-ITEM-015", "CRE-20080313-ITEM-002")


def fit_lr(X: np.ndarray, y: np.ndarray, C: float) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    from sklearn.linear_model import LogisticRegression

    mu, sd = X.mean(0), X.std(0) + 1e-6
    m = LogisticRegression(C=C, max_iter=5000, class_weight="balanced").fit((X - mu) / sd, y)
    return m.coef_[0], float(m.intercept_[0]), mu, sd


def predict(w: tuple, X: np.ndarray) -> np.ndarray:
    coef, b, mu, sd = w
    return 1.0 / (1.0 + np.exp(-(((X - mu) / sd) @ coef + b)))


def pr(pred: np.ndarray, y: np.ndarray) -> dict:
    tp, fp, fn = int((pred & y).sum()), int((pred & ~y).sum()), int((~pred & y).sum())
    return {"precision": round(tp / max(1, tp + fp), 4), "recall": round(tp / max(1, tp + fn), 4),
            "non_kept": fp, "arg_dropped": fn, "n": int(len(y))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--labels", type=Path, default=ROOT / "data" / "summary_units" / "units.jsonl.gz")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--report", type=Path)
    ap.add_argument("--min-recall", type=float, default=0.98)
    ap.add_argument("--C", type=float, default=0.01)
    a = ap.parse_args()
    labels = {}
    for line in gzip.open(a.labels, "rt", encoding="utf-8"):
        r = json.loads(line)
        labels[r["unit_id"]] = (r["label"] == "ARG", r["summary_file"])
    items = []
    for fname in sorted({f for _, f in labels.values()}):
        did = fname.split("_")[0]
        s = read_summary(a.data / "ep_summaries" / did / fname)
        v1 = {u.id for u in summary_units(s, policy=SUMMARY_POLICY_V1).units}
        for u in summary_units(s, policy=KEEP_ALL).units:
            raw = s.text[u.start : u.end]
            items.append({"debate": did, "kind": u.segment_kind, "raw": raw, "text": u.text, "y": labels[u.id][0],
                          "rule": structural_reason(u.segment_kind, raw, u.text), "v1_kept": u.id in v1})
    y = np.array([it["y"] for it in items])
    rule_keep = np.array([it["rule"] is None for it in items])
    enc = SentenceEncoder()
    X = np.hstack([enc.encode([it["text"] for it in items]).astype(np.float64),
                   np.array([surface_features(it["kind"], it["raw"], it["text"]) for it in items])])
    deb = np.array([it["debate"] for it in items])
    oof = np.zeros(len(items))
    for d in sorted(set(deb)):
        tr, te = (deb != d) & rule_keep, deb == d
        oof[te] = predict(fit_lr(X[tr], y[tr], a.C), X[te])
    from sklearn.metrics import roc_auc_score

    thresholds = np.round(np.arange(0.0, 0.61, 0.02), 2)
    rows = {f"{t:.2f}": pr(rule_keep & (oof >= t), y) for t in thresholds}
    ok = [t for t in thresholds if rows[f"{t:.2f}"]["recall"] >= a.min_recall]
    thr = float(max(ok)) if ok else 0.0
    report = {
        "segments": len(items), "labels": {"ARG": int(y.sum()), "NON": int((~y).sum())},
        "rules_by_reason": {str(k): {"ARG": int(((np.array([it['rule'] for it in items]) == k) & y).sum()),
                                     "NON": int(((np.array([it['rule'] for it in items]) == k) & ~y).sum())}
                            for k in ("heading", "metadata", "too_short")},
        "v1_policy": pr(np.array([it["v1_kept"] for it in items]), y),
        "rules_only": pr(rule_keep, y),
        "rules_plus_classifier_oof": rows,
        "oof_auc_after_rules": round(float(roc_auc_score(y[rule_keep], oof[rule_keep])), 4),
        "threshold": thr, "min_recall": a.min_recall, "C": a.C,
    }
    w = fit_lr(X[rule_keep], y[rule_keep], a.C)
    # the source side: the paper's three debates, sentence units vs the human argument spans
    from argfaith.datasets.ep import find_ep_debate, read_ep_debate
    from argfaith.mining.pipeline import plan_debate

    src_y, src_p = [], []
    for did in PAPER:
        debate = read_ep_debate(find_ep_debate(a.data / "ep_debates", did), annotations=True)
        spans: dict[str, list[tuple[int, int]]] = {}
        for sp in debate.spans or ():
            spans.setdefault(sp.intervention_id, []).append((sp.start, sp.end))
        plan = plan_debate(debate, units="sentences")
        for u in plan.speech:
            ov = sum(max(0, min(u.end, b) - max(u.start, s0)) for s0, b in spans.get(u.document, []))
            src_y.append(ov >= 0.5 * (u.end - u.start))
        Xs = np.hstack([enc.encode([u.text for u in plan.speech]).astype(np.float64),
                        np.array([surface_features(u.segment_kind, u.text, u.text) for u in plan.speech])])
        src_p.extend(predict(w, Xs))
    sy, sp_ = np.array(src_y), np.array(src_p)
    report["source_side"] = {"sentences": int(len(sy)), "human_argument_share": round(float(sy.mean()), 4),
                             "auc": round(float(roc_auc_score(sy, sp_)), 4),
                             "no_filter": pr(np.ones(len(sy), bool), sy), "at_threshold": pr(sp_ >= thr, sy)}
    print(json.dumps({k: v for k, v in report.items() if k != "rules_plus_classifier_oof"}, indent=1))
    print("threshold", thr, "->", rows[f"{thr:.2f}"])
    if a.out:
        coef, b, mu, sd = w
        a.out.write_text(json.dumps({
            "model": "logistic regression over [all-MiniLM-L6-v2 sentence embedding (sentence_encoder.onnx), surface cues]",
            "features": ["embedding"] * enc.dim + list(SURFACE_FEATURES),
            "coef": [round(float(x), 7) for x in coef], "intercept": round(b, 7),
            "mean": [round(float(x), 7) for x in mu], "scale": [round(float(x), 7) for x in sd], "threshold": thr,
            "trained": {"data": "data/summary_units (silver, 2 annotators + adjudication)", "segments": int(rule_keep.sum()),
                        "after": "structural rules", "C": a.C, "min_recall": a.min_recall},
        }) + "\n", encoding="utf-8")
        print("wrote", a.out)
    if a.report:
        a.report.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
