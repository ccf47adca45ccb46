"""`argfaith selftest`: distortions, controls and warnings — does the evaluator detect what it should
on this corpus, with this classifier? (:mod:`argfaith.study.selftest`, docs/selftest.md)

Exit status: 0 done; 2 bad options or data; 130 interrupted (finished items are kept; the same
command resumes).
"""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from argfaith.mining.candidates import DEFAULT_SUMMARY_PAIRS

from argfaith.cli._app import app
from argfaith.cli._options import COUNT, EPSILON, TAU
from argfaith.cli.engine import TableOrJson


@app.command()
def selftest(
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder (shared with `argfaith study`: mined debate QBAFs are reused).")],
    debates: Annotated[Optional[Path], typer.Option(help="EP debates folder (default: $ARGFAITH_DATA/ep_debates).")] = None,
    summaries: Annotated[Optional[Path], typer.Option(help="Summaries folder (default: $ARGFAITH_DATA/ep_summaries).")] = None,
    data: Annotated[Optional[Path], typer.Option(help="Data folder holding ep_debates/ and ep_summaries/ (default: $ARGFAITH_DATA).")] = None,
    classifier: Annotated[Optional[str], typer.Option(help="Relation classifier under test: offline | claude[:MODEL] | recorded:FILE | ... (default: claude with ANTHROPIC_API_KEY, else offline).")] = None,
    distortions: Annotated[str, typer.Option(help="rules (offline rewrites) | llm[:MODEL] (Claude writes them; cached; needs ANTHROPIC_API_KEY, priced by --dry-run) | written:DIR (a written set with manifest.jsonl, e.g. data/distortions).")] = "rules",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="With --distortions llm: print the requests and their estimated cost; send nothing.")] = False,
    llm_batch: Annotated[bool, typer.Option("--llm-batch", help="With --distortions llm: send uncached requests through the Message Batches API (half price).")] = False,
    kinds: Annotated[str, typer.Option(help="Distortion kinds, comma-separated: omit,fabricate_support,fabricate_attack,invert.")] = "omit,fabricate_support,fabricate_attack,invert",
    provisions: Annotated[int, typer.Option(callback=COUNT, help="Per summary, distort this many provisions it discusses (rules).")] = 2,
    undiscussed: Annotated[int, typer.Option(callback=COUNT, help="Per summary, also fabricate about this many provisions it does not discuss (rules).")] = 1,
    tau: Annotated[float, typer.Option(callback=TAU, help="Speech base score τ, in [0, 1].")] = 0.2,
    epsilon: Annotated[float, typer.Option(callback=EPSILON, help="ε of π_εa, in (0, 1].")] = 0.1,
    summary_pairs: Annotated[str, typer.Option(help="Summary candidate pairs: all (every ordered pair, the paper) | ordered (sentence → provisions and earlier sentences) | proposals (sentence → provisions only).")] = DEFAULT_SUMMARY_PAIRS,
    summary_units: Annotated[str, typer.Option(help="Summary argument units: default (structural rules + argumentativeness classifier) | rules (rules only) | v1 (the units before issue 21).")] = "default",
    draws: Annotated[int, typer.Option(callback=COUNT, help="Sampled labellings per distortion for P(σ*(p) moved the expected way); 0 = point estimates only.")] = 100,
    controls: Annotated[bool, typer.Option("--controls/--no-controls", help="Evaluate the empty-summary and wrong-debate controls.")] = True,
    only: Annotated[Optional[list[str]], typer.Option(help="Only this debate id (repeatable).")] = None,
    fmt: Annotated[TableOrJson, typer.Option("--format", help="Output format of the result.")] = TableOrJson.table,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
) -> None:
    """Distort the summaries of a corpus and check that the metrics react as they should."""
    from argfaith.cli.study import _Progress, _resolve_dirs, _warn
    from argfaith.errors import ConfigurationError
    from argfaith.mining.classifiers.registry import make_classifier
    from argfaith.study.selftest import SelftestConfig, render_selftest_markdown, run_selftest

    deb_dir, sum_dir = _resolve_dirs(debates, summaries, data, True)
    spec = classifier
    if spec is None:
        from argfaith.llm.client import api_key_available

        spec = "claude" if api_key_available() else "offline"
        if spec == "offline":
            _warn("no ANTHROPIC_API_KEY and no --classifier: testing the OFFLINE relation classifier")
    if spec.strip().lower().startswith("claude"):
        from argfaith.llm.client import api_key_available

        if not api_key_available():
            raise ConfigurationError("--classifier claude needs ANTHROPIC_API_KEY (price a corpus first with `argfaith study --dry-run`)")
    kind_list = tuple(k.strip() for k in kinds.split(",") if k.strip())
    if not kind_list:
        raise ConfigurationError("--kinds: no distortion kind given")
    if distortions.startswith("written:"):
        written = Path(distortions.split(":", 1)[1])
        if not written.is_dir():
            raise ConfigurationError(f"--distortions: {written} is not a directory")
        if (written / "manifest.jsonl").is_file():
            from argfaith.textio import read_text

            # Up front, through the one reader that names file and line of an undecodable byte.
            read_text(written / "manifest.jsonl", what="distortion manifest")
    cfg = SelftestConfig(debates=deb_dir, summaries=sum_dir, out=out, classifier=spec, distortions=distortions,  # type: ignore[arg-type]
                         kinds=kind_list, provisions=provisions, undiscussed=undiscussed, tau=tau, epsilon=epsilon,
                         controls=controls, only=tuple(only or ()), summary_pairs=summary_pairs, summary_units=summary_units, draws=draws)
    distorter = None
    if distortions.startswith("llm"):
        from argfaith.llm.client import api_key_available
        from argfaith.mining.distort_llm import LLMDistorter, estimate_distortion_cost
        from argfaith.study.selftest import plan_llm_distortions

        distorter = LLMDistorter(distortions.split(":", 1)[1] if ":" in distortions else None, batch=llm_batch)
        if dry_run or not api_key_available():
            reqs = plan_llm_distortions(cfg, distorter)
            cost = estimate_distortion_cost(reqs, distorter.model, batch=llm_batch)
            why = "" if dry_run else "ANTHROPIC_API_KEY is not set: nothing was sent. "
            lo, hi = cost.get("cost_low"), cost.get("cost_high")
            price = f"${lo:.2f}–${hi:.2f}" if lo is not None else cost.get("note", "")
            if fmt == TableOrJson.json:
                typer.echo(json.dumps(cost, indent=1))
            else:
                typer.echo(f"{why}LLM distortions: {cost['requests']:,} requests to {cost['model']}, ≈{cost['input_tokens']:,} input "
                           f"tokens (estimate), {price}{' with the Batches API' if llm_batch else ''}; cached answers are free on "
                           "reruns. Mining the distorted summaries with --classifier claude costs extra "
                           "(price the corpus with `argfaith study --dry-run`).")
            return
    elif dry_run or llm_batch:
        raise ConfigurationError("--dry-run and --llm-batch apply to --distortions llm")
    clf = make_classifier(spec)
    old = signal.getsignal(signal.SIGTERM)

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    try:
        with _Progress(quiet, noun="summaries", command="selftest") as progress:
            agg = run_selftest(cfg, clf, emit=_adapter(progress), distorter=distorter)
    except KeyboardInterrupt:
        print(f"interrupted: finished summaries are saved in {out}/selftest; rerun the same command to resume", file=sys.stderr)
        raise typer.Exit(130) from None
    finally:
        signal.signal(signal.SIGTERM, old)
    if fmt == TableOrJson.json:
        typer.echo(json.dumps(agg, indent=1))
    else:
        typer.echo(render_selftest_markdown(agg))
        typer.echo(f"outputs in {out / 'selftest'}: selftest.json, selftest.md, items/, controls/")


def _adapter(progress: Any) -> Any:
    """Translate self-test events into the study progress display's events."""

    def emit(e: tuple[Any, ...]) -> None:
        kind = e[0]
        if kind == "start":
            progress(("start", e[1], e[2] if len(e) > 2 else 0))
        elif kind == "item" and e[3] != "reused":  # reused summaries are counted in the start line
            progress(("item", e[1], e[2], e[3], None, "", None))
        elif kind in ("phase", "pairs"):
            progress(e)

    return emit
