#!/usr/bin/env python
"""Train and export argfaith's default offline relation classifier (v2; issue 20).

Reads the trials' work folder (``scripts/relmodel/trials.py prep`` + ``stage1``, and optionally a
stance cross-encoder trained on every trainable pair — ``trials.py stance --fold -1 --export`` —
with its out-of-fold logits from ``trials.py stance --fold F``), and writes to ``--out``:

- ``relation_stage1.npz`` — the relation model (multinomial logistic regression over pair
  features + MiniLM cosines) refitted on every trainable natural pair;
- ``relation_model.json`` — per genre the calibration (class prior of the labelled all-pairs parts,
  temperature fitted on out-of-fold predictions), the all-pairs thresholds (P(related) matched to
  the labelled density; P(attack | related) matched to the attack share of GOLD-related out-of-fold
  pairs), and — with a stance model — the cascade threshold (the stance model reads the top
  ``--cascade`` × density pairs by P(related), which keeps mining fast) and the combiner of the two
  stances (fitted on the gold-related out-of-fold pairs that have a stance-model logit);
- ``relation_stance.onnx`` (copied) when a stance model is given.

    python scripts/relmodel/train.py --work W --out argfaith/data [--stance W/model_st4_f-1]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import metrics as M  # noqa: E402
import trials  # noqa: E402


def fit_combiner(share_lr: np.ndarray, margin: np.ndarray, is_attack: np.ndarray) -> dict:
    """P(attack | related) = σ(w_ce · CE margin + w_lr · logit(LR stance) + b), fitted on gold-related pairs."""
    from argfaith.mining.classifiers._linear import fit_logistic_regression

    s = np.log(np.clip(share_lr, 1e-9, 1)) - np.log(np.clip(1 - share_lr, 1e-9, 1))
    X = np.stack([margin, s], axis=1)
    m = fit_logistic_regression(X, ["attack" if a else "support" for a in is_attack], ("attack", "support"), l2=1e-3,
                                class_weight=None, max_iter=2000)
    # two-class softmax: logit(attack) = (w_a − w_s)·x + (b_a − b_s); the model stores unstandardised weights
    w = m.coef[0] - m.coef[1]
    b = float(m.intercept[0] - m.intercept[1])
    return {"w_ce": float(w[0]), "w_lr": float(w[1]), "bias": b}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--stance", type=Path, help="folder with relation_stance.onnx (trials.py stance --export)")
    ap.add_argument("--stance-trained-on", default="every trainable pair (trials.py stance --fold -1)",
                    help="what the stance model was trained on, for the provenance")
    ap.add_argument("--stance-tag", default="st4", help="tag of the out-of-fold stance logits (stance_<tag>_f<k>.npz)")
    ap.add_argument("--cascade", type=float, default=2.0,
                    help="the stance model reads the top (cascade × labelled density) pairs by P(related) of each genre")
    ap.add_argument("--l2", type=float, default=0.01)
    a = ap.parse_args()
    d = trials.load_work(a.work)
    d["work"] = a.work
    y, fold, nat, part, genre = d["y"], d["fold"], d["natural"], d["part"], d["genre"]
    X = d["X"].astype(np.float64)
    tr = (fold >= 0) & nat
    model = trials.fit_stage1(X[tr], y[tr], a.l2, balanced=False)
    train_prior = np.asarray(model.train_prior, dtype=np.float64)
    logp, _ = trials.stage1_logp(d)
    P, params = trials.crossfit_calibration(d, logp, train_prior)
    margin = np.full(len(y), np.nan)
    for f in sorted(a.work.glob(f"stance_{a.stance_tag}_f*.npz")):
        if f.stem.endswith("f-1"):
            continue
        z = np.load(f)
        L = z["logits"].astype(np.float64)
        k = int(f.stem.rsplit("_f", 1)[1])
        own = fold[z["idx"]] == k  # only the held-out fold's rows (evaluation rows come from every fold model)
        margin[z["idx"][own]] = (L[:, 0] - L[:, 1])[own]
    meta: dict = {"version": 2, "classes": list(M.CLASSES), "stage1": "relation_stage1.npz",
                  "train_prior": [float(v) for v in train_prior], "genres": {}}
    comb = None
    if a.stance is not None:
        g_rel = tr & (y != 2) & ~np.isnan(margin)
        comb = fit_combiner(M.stance_share(P[g_rel]), margin[g_rel], y[g_rel] == 0)
        meta["stance_model"] = "relation_stance.onnx"
        meta["stance_combiner"] = comb
        meta["stance_combiner_pairs"] = int(g_rel.sum())
    for g, parts in (("debate", trials.DEBATE_PARTS), ("summary", trials.SUMMARY_PARTS)):
        base = np.isin(part, parts) & (fold >= 0)
        par = params[(g, -1)]
        Pg = P[base].copy()
        rel = 1 - Pg[:, 2]
        entry = {"prior": [float(v) for v in par["prior"]], "temperature": float(par["temperature"])}
        dens0 = float((y[base] != 2).mean())
        if comb is not None:
            entry["cascade"] = float(np.quantile(rel, 1 - min(1.0, a.cascade * dens0)))
            has = ~np.isnan(margin[base]) & (rel >= entry["cascade"])
            s = np.log(np.clip(M.stance_share(Pg[has]), 1e-9, 1)) - np.log(np.clip(1 - M.stance_share(Pg[has]), 1e-9, 1))
            q = 1 / (1 + np.exp(-(comb["w_ce"] * margin[base][has] + comb["w_lr"] * s + comb["bias"])))
            Pg[has, 0], Pg[has, 1] = rel[has] * q, rel[has] * (1 - q)
        yy = y[base]
        dens = float((yy != 2).mean())
        att = float((yy == 0).sum() / max(1, (yy != 2).sum()))
        entry["related_threshold"] = float(np.quantile(rel, 1 - dens))
        entry["attack_threshold"] = float(np.quantile(M.stance_share(Pg[yy != 2]), 1 - att))
        entry["density"], entry["attack_share"] = dens, att
        entry["fitted_on"] = {"parts": list(parts), "pairs": int(base.sum())}
        meta["genres"][g] = entry
    labs = Counter(M.CLASSES[k] for k in y[tr])
    meta["trained"] = {
        "data": "data/ep_relations_llm + data/ep_relations_v2 (natural parts; silver labels)",
        "pairs": int(tr.sum()), "labels": dict(labs), "debates": len({r["group"] for r, t in zip(d["rows"], tr) if t}),
        "excluded": "the paper's three debates (evaluation only), the 7 debates reserved for independent evaluation, contrast rewrites",
        "stage1": {"features": list(d["feature_names"]), "l2": a.l2, "class_weight": None},
        **({"stance": {"recipe": "all-MiniLM-L6-v2, 2-way (attack/support) on related natural pairs + 600 contrast rewrites; bottom 4 "
                                 "layers frozen (cached), top 2 + head fine-tuned 3 epochs, lr 5e-5; input source | before: previous "
                                 "sentence [SEP] kind: target | topic: title", "trained_on": a.stance_trained_on}} if a.stance else {}),
    }
    a.out.mkdir(parents=True, exist_ok=True)
    model.save(a.out / "relation_stage1.npz", provenance="scripts/relmodel/train.py (EP relation corpus v1 + v2, natural pairs)")
    if a.stance is not None:
        shutil.copyfile(a.stance / "relation_stance.onnx", a.out / "relation_stance.onnx")
    (a.out / "relation_model.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in meta.items() if k != "trained"}, indent=1))


if __name__ == "__main__":
    main()
