"""Model time per pair of the offline relation classifier (``offline``: relatedness × stance, two
stages, :mod:`argfaith.mining.classifiers.stance`) on real debate pairs, one onnxruntime thread —
the figures the 20,000-debate plan needs (benchmarks/study_executors.md).

Three CPU times per pair, on pairs of the debate of median size:

- *stage 1*: the relatedness model (pair features + logistic regression), on every pair;
- *cross-encoder*: stage 2 (MiniLM-L6 cross-encoder, int8 ONNX) run on every pair
  (``stance_for_all``: the cost if the first stage passed everything);
- *end to end*: ``classify`` with mining's ``all-pairs`` decision, where the cross-encoder only
  runs on the pairs stage 1 decides related (their share is reported).

With the shipped weights (``argfaith/data/stance_model.onnx`` etc.) it times them. Without them it
builds a stand-in of the same architecture: stage 1 = the shipped ``features`` model's weights
(``offline_relation_model.npz``: the same pair-feature logistic regression, other weights);
stage 2 = all-MiniLM-L6-v2's shape (6 layers, hidden 384, 12 heads, feed-forward 1536, 2 output
classes: attack, support) with random weights, exported as ONNX and quantised to int8 as
``scripts/train_stance.py`` does, with a WordPiece tokenizer trained on the debates' own text
(vocabulary 30,522, as BERT's) so sequence lengths are realistic; its ``all-pairs`` threshold is
set on the timed pairs so that ``--density`` of them (default 0.049, the related share of the
exhaustively labelled EP pairs, ``benchmarks/relations.md``) reach the cross-encoder — what the
shipped rule does on its calibration pairs by construction. The labels are then meaningless; the times are the
architecture's. Inference runs through argfaith's own
:class:`~argfaith.mining.classifiers.stance.StanceRelationClassifier` (tokenising, length-sorted
batches of 64, truncation at 128 tokens).

Reports wall and CPU time (``time.process_time``: on a machine shared with other jobs the CPU
time is the model's cost, the wall time also the waiting). Needs ``onnxruntime`` and
``tokenizers`` (dependencies of argfaith) and, for the stand-in, ``onnx``. Writes
``benchmarks/results/stance_timing.json``.

    ARGFAITH_DATA=/work/shared/data python benchmarks/stance_timing.py [--pairs 2000] [--stage1-pairs 20000] [--threads 1]
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
    logits = dense(pooled, "cls_head", H, 2)
    nodes[-1].output[0] = "logits"
    graph = helper.make_graph(
        nodes, "minilm_l6_cross_encoder_standin",
        [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"]) for n in (ids, mask, types)],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 2])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    del logits


def _standin_dir(folder: Path, texts: list[str]) -> Path:
    """A model directory with :data:`~argfaith.mining.classifiers.stance.STANCE_FILES` (see the
    module docstring); the ``all-pairs`` rule is filled in by :func:`_set_rule`."""
    import shutil

    from onnxruntime.quantization import QuantType, quantize_dynamic
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers

    from argfaith.mining.classifiers.stance import STANCE_FILES, default_stance_dir

    fp32 = folder / "fp32.onnx"
    _standin_model(fp32)
    quantize_dynamic(str(fp32), str(folder / STANCE_FILES["model"]), weight_type=QuantType.QInt8)
    shutil.copyfile(default_stance_dir() / "offline_relation_model.npz", folder / STANCE_FILES["relatedness"])
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(texts, trainers.WordPieceTrainer(vocab_size=VOCAB, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
    cls_id, sep_id = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
                                                       special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)])
    tok.save(str(folder / STANCE_FILES["tokenizer"]))
    _write_meta(folder, related_threshold=0.5)
    return folder


def _write_meta(folder: Path, related_threshold: float, density: float = 0.049) -> None:
    from argfaith.mining.classifiers.stance import STANCE_FILES

    rule = {"related_threshold": related_threshold, "stance_offset": 0.0, "density": density, "attack_share": 0.5}
    meta = {"stance_classes": ["attack", "support"], "max_length": 128, "trained": {"standin": "random weights", "labels": {"attack": 1, "support": 1}},
            "all_pairs": {"debate": rule, "summary": rule}}
    (folder / STANCE_FILES["meta"]).write_text(json.dumps(meta), encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path(os.environ["ARGFAITH_DATA"]) if os.environ.get("ARGFAITH_DATA") else None)
    ap.add_argument("--pairs", type=int, default=2000, help="pairs the cross-encoder is timed on (from the debate of median size)")
    ap.add_argument("--stage1-pairs", type=int, default=20_000, help="pairs stage 1 and the end-to-end classification are timed on")
    ap.add_argument("--density", type=float, default=0.049, help="stand-in only: share of pairs stage 1 passes to the cross-encoder")
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
    stage1_queries = to_queries(list(plan.pairs[:: max(1, len(plan.pairs) // a.stage1_pairs)])[: a.stage1_pairs], plan.units, plan.topic,
                                plan.contexts)
    shipped = all((default_stance_dir() / f).is_file() for k, f in STANCE_FILES.items() if k != "reference")
    with tempfile.TemporaryDirectory() as tmp:
        if shipped:
            model_dir, which = default_stance_dir(), "shipped weights"
        else:
            texts = [i.text for f in folders[:: max(1, len(folders) // 60)] for i in load_debate(f).interventions]
            model_dir, which = _standin_dir(Path(tmp), texts), "stand-in: features LR + MiniLM-L6-shaped cross-encoder with random weights, int8 ONNX"
        base = StanceRelationClassifier(model_dir, threads=a.threads)
        # stage 1 alone, on every pair (no cross-encoder)
        base.relatedness_probabilities(stage1_queries[:64])
        c0 = time.process_time()
        p3 = base.relatedness_probabilities(stage1_queries)
        stage1_cpu = time.process_time() - c0
        if not shipped:  # the all-pairs rule of the stand-in: --density of the pairs reach stage 2
            _write_meta(Path(tmp), float(np.quantile(1.0 - p3[:, 2], 1.0 - a.density)), a.density)
            base = StanceRelationClassifier(model_dir, threads=a.threads)
        # stage 2 alone, on every pair
        base.stance_logits(queries[:64])  # warm-up
        c0, t0 = time.process_time(), time.perf_counter()
        base.stance_logits(queries)
        secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        # end to end, mining's decision (all-pairs): the cross-encoder only on pairs decided related
        # a fresh classifier: stage 1's text profiles are not reused from the timing above
        clf = mining_classifier(StanceRelationClassifier(model_dir, threads=a.threads))
        c0, t0 = time.process_time(), time.perf_counter()
        clf.classify(stage1_queries)
        e2e_secs, e2e_cpu = time.perf_counter() - t0, time.process_time() - c0
        stance_share = clf.usage.extra.get("stance_pairs", 0) / len(stage1_queries)
        from argfaith.mining.classifiers.stance import pair_texts

        tokens = [len(e.ids) for e in base.tokenizer.encode_batch([pair_texts(q) for q in queries])]
    res = {"model": which, "debate": deb.id, "threads": a.threads, "date": time.strftime("%Y-%m-%d"),
           "loadavg": [round(x, 2) for x in os.getloadavg()],
           # end to end (mining's all-pairs decision): what a study pays per pair
           "pairs_end_to_end": len(stage1_queries), "seconds_end_to_end": round(e2e_secs, 2), "cpu_seconds_end_to_end": round(e2e_cpu, 2),
           "cpu_us_per_pair": round(1e6 * e2e_cpu / len(stage1_queries), 1), "stance_share": round(stance_share, 4),
           "density_target": None if shipped else a.density,
           "stage1_cpu_us_per_pair": round(1e6 * stage1_cpu / len(stage1_queries), 1),
           # the cross-encoder on every pair
           "pairs": len(queries), "seconds": round(secs, 2), "us_per_pair": round(1e6 * secs / len(queries), 1), "cpu_seconds": round(cpu, 2),
           "cross_encoder_cpu_us_per_pair": round(1e6 * cpu / len(queries), 1),
           "mean_tokens": round(float(np.mean(tokens)), 1) if tokens else None}
    print(json.dumps(res, indent=1))
    (ROOT / "benchmarks" / "results" / "stance_timing.json").write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
