"""Where the time of all-pairs mining goes, per pair (issue 5, item 6).

Mining all 309 EP debates offline is ~27-29 M pair classifications. This script mines one debate's
source QBAF (sentence units, all pairs) several ways and splits the time per pair:

- ``plan``: segmentation + candidate pairs (``plan_debate``);
- ``queries``: building the classifier inputs (``PairQuery`` objects with debate context);
- ``features``: the offline classifier's per-pair feature rows (``featurizer.matrix``);
- ``scores``: the linear model + prior shift on the feature matrix;
- ``predictions``: turning probability rows into ``Prediction`` objects;
- ``run_plan``: the whole pipeline (queries, classify, checkpoint rows, relations, QBAF build),
  with and without a checkpoint file;
- ``stream``: ``argfaith.study.sources.stream_source_qbaf`` (chunked classify, labels as arrays,
  QBAF from index arrays).

Each measurement uses a fresh classifier (cold per-text caches), after one warm-up run that loads
the numba kernels. Prints a table and writes ``benchmarks/results/case_study_pair_timing.json``.

    ARGFAITH_DATA=../shared/data python benchmarks/case_study/pair_timing.py [--debate ID] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _median_time(fn, repeats: int) -> float:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.environ.get("ARGFAITH_DATA"), help="data folder with ep_debates/ (default $ARGFAITH_DATA)")
    ap.add_argument("--debate", default="CRE-20060214-ITEM-004")
    ap.add_argument("--classifier", default="offline")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "case_study_pair_timing.json"))
    a = ap.parse_args()
    if not a.data:
        print("error: pass --data DIR or set ARGFAITH_DATA", file=sys.stderr)
        return 2

    from argfaith.datasets.documents import load_debate
    from argfaith.mining.classifiers.prior import mining_classifier
    from argfaith.mining.classifiers.registry import make_classifier
    from argfaith.mining.pipeline import plan_debate, run_plan
    from argfaith.study.sources import stream_source_qbaf

    debate = load_debate(Path(a.data) / "ep_debates" / "debates" / a.debate)

    def fresh():  # type: ignore[no-untyped-def]
        return mining_classifier(make_classifier(a.classifier))

    plan = plan_debate(debate, units="sentences")
    n = len(plan.pairs)
    run_plan(plan, fresh())  # warm-up: numba kernels, imports
    rows: dict[str, float] = {}
    rows["plan"] = _median_time(lambda: plan_debate(debate, units="sentences"), a.repeats)
    rows["queries"] = _median_time(lambda: plan.queries(), a.repeats)
    queries = plan.queries()
    clf = fresh()
    if hasattr(clf, "featurizer") and hasattr(clf, "predict_proba"):
        rows["features"] = _median_time(lambda: fresh().featurizer.matrix(queries), a.repeats)
        rows["features (warm text cache)"] = _median_time(lambda: clf.featurizer.matrix(queries), a.repeats)
        X = clf.featurizer.matrix(queries)
        import numpy as np

        def scores() -> None:
            clf.model.predict_proba(np.nan_to_num(X))  # the linear model alone

        rows["scores (linear model)"] = _median_time(scores, a.repeats)
        P = clf.predict_proba(queries)
        from argfaith.mining.classifiers.offline import predictions_from_proba

        rows["predictions"] = _median_time(lambda: predictions_from_proba(P, clf.model.classes), a.repeats)
    rows["classify"] = _median_time(lambda: fresh().classify(queries), a.repeats)
    rows["run_plan"] = _median_time(lambda: run_plan(plan, fresh()), a.repeats)

    def with_ckpt() -> None:
        with tempfile.TemporaryDirectory() as d:
            run_plan(plan, fresh(), checkpoint=Path(d) / "c.pairs.jsonl")

    rows["run_plan + checkpoint"] = _median_time(with_ckpt, a.repeats)
    rows["stream (study --source-only)"] = _median_time(lambda: stream_source_qbaf(plan, fresh()), a.repeats)
    print(f"{a.debate}: {len(plan.speech)} speech arguments, {len(plan.proposals)} provisions, {n:,} pairs; "
          f"classifier {a.classifier}; median of {a.repeats}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'step':32s} {'seconds':>9s} {'µs/pair':>9s}")
    for k, v in rows.items():
        print(f"{k:32s} {v:9.3f} {1e6 * v / n:9.1f}")
    res = {"debate": a.debate, "pairs": n, "speech": len(plan.speech), "proposals": len(plan.proposals),
           "classifier": a.classifier, "repeats": a.repeats, "loadavg": os.getloadavg(),
           "seconds": rows, "us_per_pair": {k: 1e6 * v / n for k, v in rows.items()},
           "measured": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
