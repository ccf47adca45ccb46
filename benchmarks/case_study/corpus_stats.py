"""Source-only statistics of the whole EP corpus: run (or resume) ``argfaith study --source-only``
and summarise it as a benchmark (issue 5, item 6).

Prints the corpus table (arguments, pairs per candidate strategy, mined edges, proposal σ
distribution, time) and writes ``benchmarks/results/case_study_sources.json``. The per-debate
statistics stay in OUT (``sources/``, ``source_stats.csv``); rerunning resumes per debate.

    ARGFAITH_DATA=../shared/data python benchmarks/case_study/corpus_stats.py OUT [--jobs 2] [--classifier offline]
    python benchmarks/case_study/corpus_stats.py OUT --summarise-only     # an existing output
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--data", default=os.environ.get("ARGFAITH_DATA"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--classifier", default="offline")
    ap.add_argument("--summarise-only", action="store_true", help="do not run; summarise OUT/source_stats.json")
    a = ap.parse_args()
    t0 = time.perf_counter()
    if not a.summarise_only:
        if not a.data:
            print("error: pass --data DIR or set ARGFAITH_DATA", file=sys.stderr)
            return 2
        from argfaith.study.sources import run_source_stats

        run_source_stats(Path(a.data) / "ep_debates", a.out, classifier=a.classifier, jobs=a.jobs)
    s = json.loads((a.out / "source_stats.json").read_text(encoding="utf-8"))
    manifest = json.loads((a.out / "study.json").read_text(encoding="utf-8"))
    runs = manifest.get("runs", [])
    print(f"{s['debates_ok']} of {s['debates']} debates; classifier {s['classifier']['name']} ({s['classifier']['fingerprint'][:10]})")
    print(f"speech arguments {s['speech_arguments']['total']:,} (median {s['speech_arguments']['median']:.0f}, "
          f"max {s['speech_arguments']['max']:.0f}); provisions {s['provisions']['total']:,}")
    print("pairs: " + ", ".join(f"{k} {v:,}" for k, v in s["pairs"].items()))
    print(f"edges: {s['attacks']:,} attacks, {s['supports']:,} supports; density median {s['edge_density']['median']:.3f}")
    print(f"CPU seconds summed over debates: {s['seconds']}; {s['us_per_pair']} µs per pair")
    for t, d in s["proposal_sigma"].items():
        print(f"σ at τ={t}: n={d['n']}, median {d['median']:.3f}, >0.5 {d['share_above_half']:.1%}, <0.5 {d['share_below_half']:.1%}, "
              f"=0.5 {d['share_at_half']:.1%}")
    for r in runs:
        print(f"run {r.get('started')}: pending {r.get('pending')}, reused {r.get('reused')}, done {r.get('done')}, "
              f"interrupted {r.get('interrupted')}, {r.get('seconds', '?')} s wall")
    res = {"summary": s, "runs": runs, "out": str(a.out), "loadavg_now": os.getloadavg(), "seconds_this_call": time.perf_counter() - t0}
    dest = ROOT / "benchmarks" / "results" / "case_study_sources.json"
    dest.write_text(json.dumps(res, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
