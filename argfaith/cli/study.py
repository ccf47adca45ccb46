"""`argfaith study`: the case study over a corpus of EP debates and their summaries (issue 5).

One command: mine every debate's source QBAF once (cached), one QBAF per summary, evaluate each
summary at every τ, and write per-summary reports, the combined tables, an HTML index and plots
(:mod:`argfaith.study`). Interrupt it at any time; the same command resumes.

Exit status: 0 — every summary file was evaluated or skipped with a stated reason (text-less,
no debate folder); 1 — some items failed (listed; the others are done); 2 — bad options or data;
130 — interrupted (finished work is kept). With ``--classifier claude`` and no
``ANTHROPIC_API_KEY`` (or with ``--dry-run``) it prints the cost estimate and exits 0.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from argfaith.mining.candidates import DEFAULT_SUMMARY_PAIRS

from argfaith.cli._app import app
from argfaith.cli._options import COUNT, EPSILON, ITERATIONS, SEMANTICS
from argfaith.cli.engine import TableOrJson as DryRunFormat


def _stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def _warn(msg: str) -> None:
    _stderr_console().print(msg, style="bold yellow", markup=False, soft_wrap=True)


def _resolve_dirs(debates: Path | None, summaries: Path | None, data: Path | None, need_summaries: bool) -> tuple[Path, Path | None]:
    from argfaith.datasets.paths import data_dir
    from argfaith.errors import ConfigurationError

    root = data_dir(data, required=False) if (debates is None or (need_summaries and summaries is None)) else None
    if debates is None:
        if root is None:
            raise ConfigurationError("no debates folder: pass --debates DIR (or --data DIR / ARGFAITH_DATA with ep_debates/ inside)")
        debates = root / "ep_debates"
    if need_summaries and summaries is None:
        if root is None:
            raise ConfigurationError("no summaries folder: pass --summaries DIR (or --data DIR / ARGFAITH_DATA with ep_summaries/ inside)")
        summaries = root / "ep_summaries"
    for name, p in (("--debates", debates), ("--summaries", summaries)):
        if p is not None and not Path(p).is_dir():
            raise ConfigurationError(f"{name}: {p} is not a directory")
    return Path(debates), Path(summaries) if summaries is not None else None


def _parse_taus(text: str) -> tuple[float, ...]:
    from argfaith.metrics.evaluate import parse_taus

    return tuple(parse_taus(text))


class _Progress:
    """Rich progress bars on a terminal (overall summaries + one bar per debate being mined);
    one plain line per finished item otherwise (logs of background runs)."""

    def __init__(self, quiet: bool, noun: str = "summary files", command: str = "study") -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.err = _stderr_console()
        self.live = not quiet and (self.err.is_terminal or bool(os.environ.get("ARGFAITH_PROGRESS")))
        self.quiet = quiet
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            console=self.err, disable=not self.live, transient=False)
        self.total_task: Any = None
        self.tasks: dict[tuple[str, str], Any] = {}
        self.n_total = 0
        self.n_done = 0
        self.noun = noun
        self.command = command
        self._last_line = 0.0  # when a progress line was last written to a log (pairs lines are throttled)
        self._last_pairs: dict[tuple[str, str], int] = {}  # pairs count last written per (debate, label)

    def __enter__(self) -> _Progress:
        self.bar.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.bar.__exit__(*exc)

    def _line(self, text: str) -> None:
        if not self.live and not self.quiet:
            print(text, file=sys.stderr, flush=True)

    def __call__(self, ev: tuple[Any, ...]) -> None:
        kind = ev[0]
        if kind == "start":
            self.n_total, self.n_done = ev[1], ev[2]
            self.total_task = self.bar.add_task(self.noun, total=self.n_total, completed=self.n_done)
            self._line(f"{self.command}: {self.n_total} {self.noun}, {self.n_done} already done")
        elif kind == "debate":
            if self.noun == "summary files":
                self._line(f"{ev[1]}: {ev[2]} summaries to do")
        elif kind == "phase":
            # In a log, say what is being done when it starts: a long mining step is never silent.
            self._line(f"{ev[1]}: {ev[2]}")
        elif kind == "pairs":
            _, did, label, done, total = ev
            import time

            now = time.monotonic()
            last = self._last_pairs.get((did, label))
            if not self.live and done != last and (done >= total or now - self._last_line >= 10.0):
                self._last_line = now
                self._last_pairs[(did, label)] = done
                self._line(f"  mining {did} {label}: {done:,}/{total:,} pairs")
            key = (did, label)
            if key not in self.tasks:
                # Escape: ids come from file names; they are shown as text, never as markup.
                from rich.markup import escape

                self.tasks[key] = self.bar.add_task(f"  mining {escape(did)} {escape(label)}", total=total)
            self.bar.update(self.tasks[key], completed=done, total=total)
            if done >= total:
                self.bar.remove_task(self.tasks.pop(key))
        elif kind == "item":
            did, variant, status, secs = ev[1:5]
            self.n_done += 1
            if self.total_task is not None:
                self.bar.update(self.total_task, completed=self.n_done)
            took = f" ({secs:.1f} s)" if isinstance(secs, (int, float)) else ""  # selftest items carry no time
            self._line(f"[{self.n_done:>3}/{self.n_total}] {did}/{variant}: {status}{took}")
        elif kind == "retry":
            _, did, label, attempt, worker = ev
            # Always said, even with a live display: a lost worker is news.
            self.err.print(f"retrying {did}/{label} (attempt {attempt}, on {worker}): its worker was lost", markup=False, highlight=False)
        elif kind == "debate_done":
            for key in [k for k in self.tasks if k[0] == ev[1]]:
                self.bar.remove_task(self.tasks.pop(key))


def _run_source_only(
    debates: Path, out: Path, *, classifier: str, candidates: str, units: str, segmenter: str, taus: tuple[float, ...],
    jobs: int, only: tuple[str, ...], quiet: bool, plots: bool, executor: str = "local", scheduler: str | None = None,
    retries: int = 3,
) -> None:
    """The ``--source-only`` branch of ``argfaith study`` (progress, interruption, summary) over
    :func:`argfaith.study.sources.run_source_stats`."""
    from argfaith.errors import ConfigurationError
    from argfaith.study.sources import run_source_stats

    if candidates != "all":
        raise ConfigurationError("--source-only mines all pairs (it reports the pair counts of every strategy); drop --candidates")
    if units == "auto":
        units = "sentences"  # one unit for every debate of the corpus (human spans exist for 3 only)
    old = signal.getsignal(signal.SIGTERM)

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    try:
        with _Progress(quiet, noun="debates") as progress:
            s = run_source_stats(debates, out, classifier=classifier, units=units, segmenter=segmenter, taus=taus, jobs=jobs,
                                 only=only, plots=plots, on_event=progress, executor=executor, scheduler=scheduler, retries=retries)
    except KeyboardInterrupt:
        print(f"interrupted: finished debates are saved in {out / 'sources'}; rerun the same command to resume", file=sys.stderr)
        raise typer.Exit(130) from None
    finally:
        signal.signal(signal.SIGTERM, old)
    typer.echo((out / "source_stats.md").read_text(encoding="utf-8"))
    typer.echo(f"{s['debates_ok']} of {s['debates']} debates ({s['debates_reused']} reused); this run {s['wall_seconds_this_run']:.0f} s wall; "
               f"outputs: {out / 'source_stats.csv'}, {out / 'source_stats.json'}")
    if s["debates_failed"]:
        typer.echo("FAILED or missing: " + ", ".join(s["debates_failed"]))
        raise typer.Exit(1)


def _dry_run(config: Any, corpus: Any, classifier: str, model: str | None, fmt: DryRunFormat, quiet: bool, reason: str | None) -> None:
    from argfaith.study.dryrun import estimate_study_cost, format_study_cost

    if model is None and classifier.lower().startswith("claude:"):
        from argfaith.mining.classifiers.registry import parse_spec

        model = parse_spec(classifier)[1]
    prompt = "zero"
    if classifier.lower().startswith("claude"):
        from argfaith.mining.classifiers.registry import parse_spec

        prompt = parse_spec(classifier)[2].get("prompt", "zero")
    err = _stderr_console()
    if reason:
        err.print(reason, style="bold yellow", markup=False, soft_wrap=True)

    def progress(did: str, done: int, total: int) -> None:
        if not quiet:
            print(f"planned {did} ({done}/{total})", file=sys.stderr, flush=True)

    cost = estimate_study_cost(corpus, config, model=model, prompt=prompt, progress=progress)
    if config.out is not None:
        from argfaith.study.store import atomic_write_json

        atomic_write_json(config.out / "dry_run.json", cost.as_dict())
    if fmt is DryRunFormat.json:
        typer.echo(json.dumps(cost.as_dict(), indent=1))
    else:
        typer.echo(format_study_cost(cost))


@app.command()
def study(
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder (created; rerun with the same folder to resume).")],
    debates: Annotated[Optional[Path], typer.Option(help="EP debates folder (default: $ARGFAITH_DATA/ep_debates).")] = None,
    summaries: Annotated[Optional[Path], typer.Option(help="Summaries folder (default: $ARGFAITH_DATA/ep_summaries).")] = None,
    data: Annotated[Optional[Path], typer.Option(help="Data folder holding ep_debates/ and ep_summaries/ (default: $ARGFAITH_DATA).")] = None,
    classifier: Annotated[Optional[str], typer.Option(help="offline | claude[:MODEL] | recorded:FILE | ... (default: claude with ANTHROPIC_API_KEY, else offline).")] = None,
    candidates: Annotated[str, typer.Option(help="Candidate pairs: all | topk:K | random:K | cascade:P.")] = "all",
    summary_pairs: Annotated[str, typer.Option(help="Summary candidate pairs: all (every ordered pair, the paper) | ordered (sentence → provisions and earlier sentences) | proposals (sentence → provisions only).")] = DEFAULT_SUMMARY_PAIRS,
    units: Annotated[str, typer.Option(help="Source speech arguments: auto (human spans when annotated) | spans | sentences.")] = "auto",
    segmenter: Annotated[str, typer.Option(help="Sentence segmenter: rules | rules-plain | lines.")] = "rules",
    tau: Annotated[str, typer.Option(help="Speech base score(s) τ, e.g. 0.15,0.2,0.25 (Table 6); tables use 0.2 when listed.")] = "0.15,0.2,0.25",
    epsilon: Annotated[float, typer.Option(callback=EPSILON, help="ε of π_εa, in (0, 1].")] = 0.1,
    semantics: Annotated[str, typer.Option(callback=SEMANTICS, help="Gradual semantics of σ (default dfquad, the paper's); several comma-separated or 'all' add a semantics sweep (semantics.md): π_bc / π_εa and the provisions that change side under each, the tables use the first.")] = "dfquad",
    baselines: Annotated[str, typer.Option(help="Text baselines: auto (ROUGE; BERTScore with the embeddings extra; NLI with --nli-model) | none | rouge,bertscore,nli.")] = "auto",
    bertscore_model: Annotated[Optional[Path], typer.Option(help="Local Hugging Face encoder for BERTScore (default all-MiniLM-L6-v2, extra 'embeddings').")] = None,
    nli_model: Annotated[Optional[Path], typer.Option(help="Local NLI model directory (enables the NLI baseline).")] = None,
    draws: Annotated[int, typer.Option("--draws", callback=COUNT, help="Error bars: per summary, sample this many labellings of the uncertain candidate pairs from the classifier's probabilities and show every metric as value [low, high] (central 90% interval; 0 = none). Changing it re-evaluates without re-mining.")] = 0,
    explain_top: Annotated[int, typer.Option(callback=COUNT, help="Per summary, explain this many proposals that moved most (0: none).")] = 3,
    top_moves: Annotated[int, typer.Option(callback=COUNT, help="Proposals per summary in the Table-4 view.")] = 5,
    jobs: Annotated[int, typer.Option(callback=ITERATIONS, help="Debates processed in parallel (worker processes, >= 1; with --executor dask and no --scheduler: the workers of a local Dask cluster).")] = 1,
    executor: Annotated[str, typer.Option(help="local (process pool, default) | dask (Dask distributed; extra 'dask').")] = "local",
    scheduler: Annotated[Optional[str], typer.Option(help="Dask scheduler address (tcp://host:8786) or scheduler file; default: a local cluster of --jobs workers.")] = None,
    retries: Annotated[int, typer.Option(callback=COUNT, help="Dask: re-runs of a task whose worker was lost before its items are reported failed (>= 0).")] = 3,
    only: Annotated[Optional[list[str]], typer.Option(help="Only this debate id (repeatable).")] = None,
    source_only: Annotated[bool, typer.Option("--source-only", help="Source-only statistics of every debate (no summaries): units, pairs per strategy, QBAF sizes, proposal strengths.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Plan only: print the pairs and the estimated Claude cost of the whole study.")] = False,
    dry_run_format: Annotated[DryRunFormat, typer.Option("--format", help="Dry-run output format.")] = DryRunFormat.table,
    model: Annotated[Optional[str], typer.Option(help="Claude model id priced by the dry run (default: the classifier's).")] = None,
    html: Annotated[bool, typer.Option("--html/--no-html", help="Write HTML reports and the index.")] = True,
    plots: Annotated[bool, typer.Option("--plots/--no-plots", help="Write the plots (PNG + SVG).")] = True,
    chunk_size: Annotated[int, typer.Option(callback=ITERATIONS, help="Pairs per classifier call between checkpoints (>= 1).")] = 2000,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress output.")] = False,
) -> None:
    """Run the case study: every debate with summaries → QBAFs → metrics, tables, reports, plots."""
    from argfaith.errors import ConfigurationError
    from argfaith.study.config import StudyConfig, check_executor

    check_executor(executor, scheduler, retries)
    if executor == "dask" and not dry_run:
        from argfaith.study.dask_executor import import_distributed

        import_distributed()  # the missing extra is named before any work
    need_summaries = not source_only
    deb_dir, sum_dir = _resolve_dirs(debates, summaries, data, need_summaries)
    if source_only:
        from argfaith.llm.client import api_key_available

        if (classifier or "").strip().lower().startswith("claude") and not api_key_available():
            raise ConfigurationError(
                "--source-only with --classifier claude needs ANTHROPIC_API_KEY; to see what the corpus would cost, "
                "run the study's dry run (--dry-run) or `argfaith mine DEBATE --dry-run`"
            )
        if dry_run:
            raise ConfigurationError("--dry-run prices the study's debates and summaries; it does not apply to --source-only")

        _run_source_only(deb_dir, out, classifier=classifier or "offline", candidates=candidates, units=units,
                         segmenter=segmenter, taus=_parse_taus(tau), jobs=jobs, only=tuple(only or ()), quiet=quiet,
                         plots=plots, executor=executor, scheduler=scheduler, retries=retries)
        return
    spec = classifier
    if spec is None:
        from argfaith.llm.client import api_key_available

        if api_key_available():
            spec = "claude"
        else:
            spec = "offline"
            _warn("WARNING: no ANTHROPIC_API_KEY and no --classifier: using the OFFLINE relation classifier "
                  "(much less accurate than Claude; see docs/classifiers.md). Pass --classifier to silence this.")
    from argfaith.metrics.evaluate import parse_semantics

    config = StudyConfig(
        debates=deb_dir, summaries=sum_dir, out=out, classifier=spec, candidates=candidates, units=units,
        summary_pairs=summary_pairs, segmenter=segmenter, taus=_parse_taus(tau), epsilon=epsilon, baselines=baselines, bertscore_model=bertscore_model,
        semantics=tuple(s.name for s in parse_semantics(semantics)),
        nli_model=nli_model, explain_top=explain_top, top_moves=top_moves, jobs=jobs, only=tuple(only or ()),
        executor=executor, scheduler=scheduler, retries=retries, draws=draws,
        html=html, plots=plots, chunk_size=chunk_size,
    )
    is_claude = spec.strip().lower().startswith("claude")
    reason = None
    if is_claude and not dry_run:
        from argfaith.llm.client import api_key_available

        if not api_key_available():
            dry_run = True
            reason = ("ANTHROPIC_API_KEY is not set: nothing will be sent to Claude. Below is what the study would "
                      "cost; set the key to run it, or use --classifier offline.")
    if dry_run:
        from argfaith.study.corpus import discover_study

        corpus = discover_study(deb_dir, sum_dir, only=config.only or None)  # type: ignore[arg-type]
        out.mkdir(parents=True, exist_ok=True)
        _dry_run(config, corpus, spec, model, dry_run_format, quiet, reason)
        return
    if model is not None:
        raise ConfigurationError("--model only applies to --dry-run (choose the classifier's model with --classifier claude:MODEL)")
    from argfaith.study.runner import prepare_study, run_study

    prep = prepare_study(config)
    old = signal.getsignal(signal.SIGTERM)

    def on_term(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    # `kill PID` stops the study like Ctrl-C: finished work is saved and the rerun resumes.
    signal.signal(signal.SIGTERM, on_term)
    try:
        with _Progress(quiet) as progress:
            result = run_study(config, on_event=progress, prepared=prep)
    except KeyboardInterrupt:
        print(f"interrupted: finished items are saved in {out}; rerun the same command to resume", file=sys.stderr)
        raise typer.Exit(130) from None
    finally:
        signal.signal(signal.SIGTERM, old)
    lines = [
        f"study: {result.n_ok} evaluated, {result.n_skipped} skipped, {result.n_failed} failed "
        f"({result.n_reused} reused from an earlier run, {result.n_done_now} done now) in {result.seconds:.1f} s",
        f"classifier {result.classifier} (fingerprint {result.classifier_fingerprint[:10]})",
        f"outputs in {out}: table.csv, table.json, table3.md, variants.md, table4.md, sensitivity.md"
        + (", index.html" if html else "") + (", plots/" if plots else ""),
    ]
    lines += [f"note: {n}" for n in result.notes]
    lines += [f"skipped {item}: {why}" for item, why in result.skipped]
    lines += [f"FAILED {item}: {why}" for item, why in result.failed]
    typer.echo("\n".join(lines))
    if result.n_failed:
        raise typer.Exit(1)
