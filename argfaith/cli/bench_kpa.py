"""`argfaith bench kpa`: key point matchers on an ArgKP split, scored by KPA 2021 Track 1."""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from argfaith.cli.bench import bench_app
from argfaith.cli.kpa import DataOpt, MatcherName, SplitOpt, build_matcher, console, run_matcher, score_table, warn_diagnostics


@bench_app.command("kpa")
def bench_kpa(
    data: DataOpt = None,
    split: SplitOpt = "dev",
    matcher: Annotated[Optional[list[MatcherName]], typer.Option(help="Matcher(s) to run (repeatable; default: tfidf and lexical).")] = None,
    train_split: Annotated[str, typer.Option(help="Labelled split the learned matchers are fitted on.")] = "train",
    cache: Annotated[Optional[Path], typer.Option(help="Cache directory (embeddings, LLM answers).")] = None,
    claude_model: Annotated[Optional[str], typer.Option(help="Claude model for --matcher claude.")] = None,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the results as JSON here.")] = None,
    predictions_dir: Annotated[Optional[Path], typer.Option(help="Also write each matcher's predictions JSON into this directory.")] = None,
) -> None:
    """Run key point matchers on a split and score them (strict / relaxed mAP, both AP variants).

    A ``gold`` row scores predictions derived from the labels: plain mAP 1.0 checks the scorer, and
    its scaled values are that variant's ceiling on the split."""
    from rich.table import Table

    from argfaith.datasets.kpa import load_kpa
    from argfaith.kpa.track1 import kpa_track1_score, save_kpa_predictions

    names = [m.value for m in (matcher or [MatcherName.tfidf, MatcherName.lexical])]
    d = load_kpa(data, split)
    rows: list[dict[str, Any]] = []
    gold = kpa_track1_score(d.gold_predictions(), d)
    rows.append({"matcher": "gold", "fit_seconds": 0.0, "predict_seconds": 0.0, **_maps(gold)})
    out = console()
    for name in names:
        m, info = build_matcher(name, data_dir=data, train_split=train_split, model=None, cache=cache, scored_split=split, claude_model=claude_model)
        p, secs = run_matcher(m, d)
        s = kpa_track1_score(p, d)
        warn_diagnostics(s)
        if predictions_dir is not None:
            predictions_dir.mkdir(parents=True, exist_ok=True)
            save_kpa_predictions(p, predictions_dir / f"{name}_{split}.json")
        rows.append({"matcher": name, "fit_seconds": info.get("fit_seconds", 0.0), "predict_seconds": secs, **_maps(s),
                     "describe": m.describe(), "groups": s.to_dict()["groups"]})
        out.print(score_table(s, f"{name} on {split}"))
    t = Table(title=f"KPA 2021 Track 1 — {split} ({len(d.arguments)} arguments, {len(d.groups)} topic/stance groups)")
    for col in ("matcher", "mAP strict", "mAP relaxed", "scaled strict", "scaled relaxed", "fit s", "predict s"):
        t.add_column(col, justify="left" if col == "matcher" else "right")
    for r in rows:
        t.add_row(r["matcher"], f"{r['map_strict']:.4f}", f"{r['map_relaxed']:.4f}", f"{r['map_strict_scaled']:.4f}",
                  f"{r['map_relaxed_scaled']:.4f}", f"{r['fit_seconds']:.1f}", f"{r['predict_seconds']:.1f}")
    out.print(t)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        payload = {"benchmark": "kpa-track1", "split": split, "data": d.source, "train_split": train_split,
                   "when": time.strftime("%Y-%m-%dT%H:%M:%S"), "machine": platform.platform(), "results": rows}
        output.write_text(json.dumps(payload, indent=1), encoding="utf-8")


def _maps(s: Any) -> dict[str, float]:
    return {"map_strict": s.map_strict, "map_relaxed": s.map_relaxed, "map_strict_scaled": s.map_strict_scaled, "map_relaxed_scaled": s.map_relaxed_scaled}
