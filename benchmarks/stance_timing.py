"""Model time per pair of the stance cross-encoder (``--classifier stance``) on real debate pairs,
one onnxruntime thread — the figure the 20,000-debate plan needs (benchmarks/study_executors.md).

With the shipped weights (``argfaith/data/stance_model.onnx``) it times them. Without them it
builds a stand-in of the same architecture — all-MiniLM-L6-v2's shape: 6 layers, hidden 384,
12 heads, feed-forward 1536, 3 output classes — with random weights, exported as ONNX and
quantised to int8 as ``scripts/train_stance.py`` does, and a WordPiece tokenizer trained on the
debates' own text (vocabulary 30,522, as BERT's), so sequence lengths are realistic. The labels
are then meaningless; the time is the architecture's. Inference runs through argfaith's own
:class:`~argfaith.mining.classifiers.stance.StanceRelationClassifier` (tokenising, length-sorted
batches of 64, truncation at 128 tokens).

Reports wall and CPU time (``time.process_time``: on a machine shared with other jobs the CPU
time is the model's cost, the wall time also the waiting). Needs ``onnxruntime`` and ``tokenizers`` (the stance classifier's dependencies) and, for the
stand-in, ``onnx``. Writes ``benchmarks/results/stance_timing.json``.

    ARGFAITH_DATA=/work/shared/data python benchmarks/stance_timing.py [--pairs 6000] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
H, LAYERS, HEADS, FF, VOCAB, POS = 384, 6, 12, 1536, 30_522, 512


def _standin_model(path: Path, seed: int = 0) -> None:
    """A MiniLM-L6-shaped BERT cross-encoder with random weights, as an ONNX graph (opset 17)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(seed)
    inits: list[Any] = []
    nodes: list[Any] = []

    def w(name: str, *shape: int, scale: float = 0.02) -> str:
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def const(name: str, value: Any, dtype: Any = np.int64) -> str:
        inits.append(numpy_helper.from_array(np.asarray(value, dtype=dtype), name))
        return name

    def node(op: str, ins: list[str], out: str, **kw: Any) -> str:
        nodes.append(helper.make_node(op, ins, [out], **kw))
        return out

    def layer_norm(x: str, name: str) -> str:
        g = const(f"{name}.g", np.ones(H), np.float32)
        b = const(f"{name}.b", np.zeros(H), np.float32)
        return node("LayerNormalization", [x, g, b], f"{name}.out", axis=-1, epsilon=1e-12)

    def dense(x: str, name: str, n_in: int, n_out: int) -> str:
        y = node("MatMul", [x, w(f"{name}.W", n_in, n_out)], f"{name}.mm")
        return node("Add", [y, const(f"{name}.bias", np.zeros(n_out), np.float32)], f"{name}.out")

    ids, mask, types = "input_ids", "attention_mask", "token_type_ids"
    e = node("Gather", [w("word", VOCAB, H), ids], "e.word")
    t = node("Gather", [w("type", 2, H), types], "e.type")
    shape = node("Shape", [ids], "shape")
    seq = node("Gather", [shape, const("one", [1])], "seq")
    pos = node("Slice", [w("pos", POS, H), const("zero", [0]), seq, const("ax0", [0])], "e.pos")
    x = node("Add", [node("Add", [e, t], "e.wt"), pos], "e.sum")
    x = layer_norm(x, "e.ln")
    m = node("Cast", [mask], "m.f", to=TensorProto.FLOAT)
    m = node("Unsqueeze", [m, const("ax12", [1, 2])], "m.u")
    bias = node("Mul", [node("Sub", [const("onef", 1.0, np.float32), m], "m.inv"), const("neg", -10000.0, np.float32)], "m.bias")
    heads_shape = const("heads_shape", [0, 0, HEADS, H // HEADS])
    flat_shape = const("flat_shape", [0, 0, H])
    for i in range(LAYERS):
        p = f"l{i}"
        q = node("Transpose", [node("Reshape", [dense(x, f"{p}.q", H, H), heads_shape], f"{p}.qr")], f"{p}.qt", perm=[0, 2, 1, 3])
        k = node("Transpose", [node("Reshape", [dense(x, f"{p}.k", H, H), heads_shape], f"{p}.kr")], f"{p}.kt", perm=[0, 2, 3, 1])
        v = node("Transpose", [node("Reshape", [dense(x, f"{p}.v", H, H), heads_shape], f"{p}.vr")], f"{p}.vt", perm=[0, 2, 1, 3])
        s = node("Mul", [node("MatMul", [q, k], f"{p}.s"), const(f"{p}.scale", 1 / np.sqrt(H // HEADS), np.float32)], f"{p}.ss")
        a = node("Softmax", [node("Add", [s, bias], f"{p}.sb")], f"{p}.a", axis=-1)
        c = node("Transpose", [node("MatMul", [a, v], f"{p}.c")], f"{p}.ct", perm=[0, 2, 1, 3])
        c = node("Reshape", [c, flat_shape], f"{p}.cf")
        x = layer_norm(node("Add", [x, dense(c, f"{p}.o", H, H)], f"{p}.r1"), f"{p}.ln1")
        f = dense(x, f"{p}.f1", H, FF)
        g = node("Mul", [node("Mul", [f, const(f"{p}.half", 0.5, np.float32)], f"{p}.gh"),
                         node("Add", [const(f"{p}.onef", 1.0, np.float32),
                                      node("Erf", [node("Div", [f, const(f"{p}.sq2", np.sqrt(2.0), np.float32)], f"{p}.gd")], f"{p}.ge")],
                              f"{p}.g1")], f"{p}.gelu")
        x = layer_norm(node("Add", [x, dense(g, f"{p}.f2", FF, H)], f"{p}.r2"), f"{p}.ln2")
    cls = node("Gather", [x, const("zero_s", 0)], "cls", axis=1)
    pooled = node("Tanh", [dense(cls, "pool", H, H)], "pooled")
    logits = dense(pooled, "cls_head", H, 3)
    nodes[-1].output[0] = "logits"
    graph = helper.make_graph(
        nodes, "minilm_l6_cross_encoder_standin",
        [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"]) for n in (ids, mask, types)],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 3])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    del logits


def _standin_dir(folder: Path, texts: list[str]) -> Path:
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers

    fp32 = folder / "fp32.onnx"
    _standin_model(fp32)
    quantize_dynamic(str(fp32), str(folder / "stance_model.onnx"), weight_type=QuantType.QInt8)
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(texts, trainers.WordPieceTrainer(vocab_size=VOCAB, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                                       special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)])
    tok.save(str(folder / "stance_tokenizer.json"))
    rng = np.random.default_rng(1)
    ref = {"logits": {g: rng.standard_normal((200, 3)).tolist() for g in ("debate", "summary")},
           "shares": {g: [0.1, 0.2, 0.7] for g in ("debate", "summary")}}
    (folder / "stance_model.json").write_text(json.dumps({"classes": ["attack", "support", "no relation"], "max_length": 128,
                                                          "reference": ref, "trained": {"standin": "random weights"}}))
    return folder


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path(os.environ["ARGFAITH_DATA"]) if os.environ.get("ARGFAITH_DATA") else None)
    ap.add_argument("--pairs", type=int, default=6000, help="pairs timed (from the debate of median size)")
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    if a.data is None:
        print("error: pass --data DIR or set ARGFAITH_DATA", file=sys.stderr)
        return 2
    from argfaith.datasets.documents import load_debate
    from argfaith.datasets.ep import list_ep_debates
    from argfaith.mining.classifiers.prior import mining_classifier
    from argfaith.mining.classifiers.stance import STANCE_FILES, StanceRelationClassifier, default_stance_dir
    from argfaith.mining.pipeline import plan_debate, to_queries

    folders = sorted(list_ep_debates(a.data / "ep_debates"), key=lambda f: sum(x.stat().st_size for x in (f / "interventions").glob("*.json")))
    deb = load_debate(folders[len(folders) // 2])
    plan = plan_debate(deb, units="sentences")
    step = max(1, len(plan.pairs) // a.pairs)
    chosen = list(plan.pairs[::step])[: a.pairs]
    queries = to_queries(chosen, plan.units, plan.topic, plan.contexts)
    shipped = all((default_stance_dir() / f).is_file() for f in STANCE_FILES.values())
    with tempfile.TemporaryDirectory() as tmp:
        if shipped:
            model_dir, which = default_stance_dir(), "shipped weights"
        else:
            texts = [i.text for f in folders[:: max(1, len(folders) // 60)] for i in load_debate(f).interventions]
            model_dir, which = _standin_dir(Path(tmp), texts), "stand-in: MiniLM-L6 shape, random weights, int8 ONNX"
        clf = mining_classifier(StanceRelationClassifier(model_dir, threads=a.threads))
        clf.classify(queries[:64])  # warm-up
        c0, t0 = time.process_time(), time.perf_counter()
        clf.classify(queries)
        secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        inner = getattr(clf, "tokenizer", None)
        from argfaith.mining.classifiers.stance import pair_texts

        tokens = [len(e.ids) for e in inner.encode_batch([pair_texts(q) for q in queries])] if inner is not None else []
    res = {"model": which, "debate": deb.id, "pairs": len(queries), "threads": a.threads, "seconds": round(secs, 2),
           "us_per_pair": round(1e6 * secs / len(queries), 1), "cpu_seconds": round(cpu, 2),
           "cpu_us_per_pair": round(1e6 * cpu / len(queries), 1), "mean_tokens": round(float(np.mean(tokens)), 1) if tokens else None,
           "loadavg": [round(x, 2) for x in os.getloadavg()],
           "date": time.strftime("%Y-%m-%d")}
    print(json.dumps(res, indent=1))
    (ROOT / "benchmarks" / "results" / "stance_timing.json").write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
