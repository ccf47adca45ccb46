#!/usr/bin/env python
"""The evaluator self-test as a benchmark: written and rule-based distortions, controls, warnings.

Runs ``argfaith.study.selftest.run_selftest`` on the 12 debates of ``ep_summaries`` for each
classifier given (default: the previous default ``features`` — "before" — and the stance model
``offline`` — "after"), with the written development set (``data/distortions``) and with the
offline distortion rules, and prints one table per run; results in
``benchmarks/results/selftest.json``. Output folders (mined QBAFs, label caches) go under ``--work``
and are reused by a rerun.

    ARGFAITH_DATA=../shared/data python benchmarks/selftest.py --classifiers features,offline --sets written,rules
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from argfaith.mining.classifiers.registry import make_classifier  # noqa: E402
from argfaith.study.selftest import SelftestConfig, render_selftest_markdown, run_selftest  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "selftest.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path(os.environ.get("ARGFAITH_DATA", ROOT.parent / "shared" / "data")))
    ap.add_argument("--classifiers", default="features,offline")
    ap.add_argument("--sets", default="written,rules")
    ap.add_argument("--work", type=Path, default=ROOT.parent / "selftest-runs")
    ap.add_argument("--provisions", type=int, default=2)
    a = ap.parse_args()
    res = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    for spec in a.classifiers.split(","):
        clf = make_classifier(spec)
        for which in a.sets.split(","):
            dist = f"written:{ROOT / 'data' / 'distortions'}" if which == "written" else "rules"
            cfg = SelftestConfig(debates=a.data / "ep_debates", summaries=a.data / "ep_summaries",
                                 out=a.work / spec, classifier=spec, distortions=dist, provisions=a.provisions)
            if which == "written":
                # the written set has its own item folder: the rules and the written set never share results
                cfg = SelftestConfig(**{**cfg.__dict__, "out": a.work / f"{spec}-written"})
            t0 = time.perf_counter()

            def emit(e: tuple) -> None:  # type: ignore[type-arg]
                if e[0] in ("item", "phase"):
                    print("  ", *e[1:], flush=True)

            agg = run_selftest(cfg, clf, emit=emit)
            agg["wall_seconds"] = round(time.perf_counter() - t0, 1)
            print(f"\n## {spec} — {which} distortions\n")
            print(render_selftest_markdown(agg))
            res[f"{spec}/{which}"] = agg
            RESULTS.parent.mkdir(parents=True, exist_ok=True)
            RESULTS.write_text(json.dumps(res, indent=1) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
