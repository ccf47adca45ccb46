"""Claude mining cost per strategy on the paper's three EP debates, and local plumbing overhead.

Usage::

    ARGFAITH_DATA=../shared/data python benchmarks/llm_cost.py [--models claude-haiku-5-5 claude-haiku-4-5]
        [--min-cache-tokens 512 --no-overhead --out benchmarks/results/llm_cost_min512.json]

(a) Dry-run estimates (no API call) of every strategy of :mod:`argfaith.mining.cost` on the source
QBAF candidates of the three debates with human spans (all pairs under the temporal constraint:
each span → every provision and every earlier span), per model.
(b) Local overhead of the Claude classifier (SDK request building, mock transport, parsing,
sqlite cache writes) against an in-process fake API, and of a fully cached rerun. Network latency
and the model's own time are NOT included; they dominate real runs.

``--min-cache-tokens N`` overrides every card's minimum cacheable prefix (the 5.x models' value is
not on the official pages we could read; third-party pages say 512): a sensitivity check.

Prints tables and writes ``benchmarks/results/llm_cost.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from argfaith.datasets.ep import read_ep_debate
from argfaith.datasets.paths import data_dir
from argfaith.llm import RequestCache, price_for
from argfaith.llm.testing import FakeAnthropicAPI, user_text
from argfaith.mining.classifiers.base import PairQuery
from argfaith.mining.classifiers.claude import ClaudeRelationClassifier
from argfaith.mining.cost import estimate_strategies, format_cost_table

DEBATES = ("CRE-20060213-ITEM-013", "CRE-20070905-ITEM-015", "CRE-20080313-ITEM-002")
OUT = Path(__file__).resolve().parent / "results" / "llm_cost.json"


def temporal_pairs(debate) -> list[PairQuery]:  # type: ignore[no-untyped-def]
    props = [p.text for p in debate.provisions]
    spans = [s.text for s in debate.spans]
    return [PairQuery(s, t, debate.title) for i, s in enumerate(spans) for t in props + spans[:i]]


def _all_no_relation(body: dict) -> str:
    u = user_text(body)
    if "[TARGETS]:" in u:
        n = u.split("[TARGETS]:\n", 1)[1].split("[SOURCE]: ", 1)[0].count("\n")
        return "<|ANSWER|>\n" + "\n".join(f"{i}: no relation" for i in range(1, n + 1)) + "\n<|ANSWER|>"
    return "<|ANSWER|>no relation<|ANSWER|>"


def overhead(pairs: list[PairQuery], mode: str) -> dict[str, float]:
    os.environ.setdefault("ANTHROPIC_API_KEY", "sk-ant-benchmark-fake")
    api = FakeAnthropicAPI(_all_no_relation)
    with tempfile.TemporaryDirectory() as tmp:
        cache = RequestCache(Path(tmp) / "c.sqlite")
        c = ClaudeRelationClassifier("claude-haiku-5-5", mode=mode, cache=cache, http_client=api.http_client(), max_concurrency=4)  # type: ignore[arg-type]
        t = time.perf_counter()
        c.classify(pairs)
        first = time.perf_counter() - t
        c2 = ClaudeRelationClassifier("claude-haiku-5-5", mode=mode, cache=cache, http_client=api.http_client())  # type: ignore[arg-type]
        t = time.perf_counter()
        c2.classify(pairs)
        rerun = time.perf_counter() - t
    n = c.usage.calls
    return {"pairs": len(pairs), "requests": n, "first_run_s": first, "per_request_ms": 1000 * first / max(n, 1), "cached_rerun_s": rerun}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=None, help="data directory (default: $ARGFAITH_DATA)")
    ap.add_argument("--models", nargs="+", default=["claude-haiku-5-5", "claude-haiku-4-5"])
    ap.add_argument("--overhead-pairs", type=int, default=3000, help="pairs for the single-mode overhead run")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--min-cache-tokens", type=int, default=None, help="override the cards' minimum cacheable prefix")
    ap.add_argument("--no-overhead", action="store_true", help="skip (b), the local overhead runs")
    args = ap.parse_args()
    root = data_dir(args.data) / "ep_debates" / "debates"
    results: dict[str, object] = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "note": "estimates: offline token heuristic, cards checked 2026-12-01 (batch+cache writes at the 1-hour TTL); "
        "overhead: mock transport, no network",
        "min_cache_tokens_override": args.min_cache_tokens,
        "estimates": [],
        "overhead": [],
    }
    for did in DEBATES:
        d = read_ep_debate(root / did)
        pairs = temporal_pairs(d)
        print(f"\n{did}: {len(d.provisions)} provisions, {len(d.spans)} spans, {len(pairs):,} candidate pairs")
        for model in args.models:
            t = time.perf_counter()
            card = price_for(model)
            if args.min_cache_tokens is not None:
                card = replace(card, min_cache_tokens=args.min_cache_tokens)
            est = estimate_strategies(pairs, model=model, price=card)
            dt = time.perf_counter() - t
            print(format_cost_table(est))
            print(f"(estimated in {dt:.1f} s)")
            for e in est:
                results["estimates"].append({"debate": did, "arguments": len(d.provisions) + len(d.spans), **e.as_dict(), "share_of_paper": (e.usd / est[0].usd) if e.usd and est[0].usd else None})  # type: ignore[union-attr]
    d = read_ep_debate(root / DEBATES[0])
    pairs = temporal_pairs(d)
    if not args.no_overhead:
        print("\nlocal plumbing overhead (fake API in process, 4 threads, sqlite cache):")
    for mode, ps in () if args.no_overhead else (("single", pairs[: args.overhead_pairs]), ("multi", pairs)):
        o = overhead(ps, mode)
        results["overhead"].append({"mode": mode, "debate": DEBATES[0], **o})  # type: ignore[union-attr]
        print(
            f"  {mode:6s}: {o['pairs']:,} pairs, {o['requests']:,} requests in {o['first_run_s']:.1f} s "
            f"({o['per_request_ms']:.1f} ms/request); cached rerun {o['cached_rerun_s']:.2f} s"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
