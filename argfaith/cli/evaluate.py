"""`argfaith evaluate`: how faithfully does a summary QBAF carry the arguments of its debate QBAF?

The command turns its options into the library's settings objects (inputs, mining, metrics,
alignment, output: :mod:`argfaith.metrics.settings`, :mod:`argfaith.mining.settings`; its help
lists the options in the same groups), mines documents when given (after the pair budget and
language checks of :mod:`argfaith.mining.guards`), evaluates through
:func:`argfaith.metrics.evaluate.evaluate_with` and renders the report. Text baselines (ROUGE, BERTScore, NLI) are computed from the
debate / summary documents when given.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from argfaith.mining.candidates import DEFAULT_SUMMARY_PAIRS

from argfaith.cli._app import app
from argfaith.cli._help import GroupedCommand
from argfaith.cli._options import COUNT, EPSILON, ITERATIONS, NONNEGATIVE, SEMANTICS, UNIT
from argfaith.cli.engine import SolverMethod
from argfaith.metrics.settings import DRAWS_WHEN_MINING, AlignmentSettings, InputSettings, MetricSettings, OutputSettings
from argfaith.mining.guards import DEFAULT_MAX_PAIRS
from argfaith.mining.settings import MiningSettings

__all__ = ["evaluate", "evaluate_files"]


class OutputFormat(str, Enum):
    table = "table"
    json = "json"
    markdown = "markdown"
    html = "html"


class PathReading(str, Enum):
    walk = "walk"
    simple = "simple"


class ProposalPolicy(str, Enum):
    exact = "exact"
    intersection = "intersection"


class CoverageSalience(str, Enum):
    """Salience measures of argument coverage π_cov (:mod:`argfaith.metrics.coverage`)."""

    strength = "strength"
    influence = "influence"
    degree = "degree"
    replies = "replies"


class AlignMethod(str, Enum):
    id = "id"
    exact = "exact"
    lexical = "lexical"
    embedding = "embedding"
    llm = "llm"




def _read_source_text(path: Path) -> str:
    """The debate's text for text baselines: every intervention, in order."""
    if path.suffix.lower() in (".txt", ".md") and path.is_file():
        from argfaith.textio import read_text

        return read_text(path)
    from argfaith.datasets.documents import load_debate

    d = load_debate(path)
    return "\n\n".join(i.text for i in d.interventions)


def _read_summary_text(path: Path) -> str:
    from argfaith.datasets.documents import load_summary

    return load_summary(path).text


def _text_baselines(
    source_text: Path,
    summary_texts: list[Path],
    baselines: list[str],
    *,
    bertscore_model: Path | None,
    nli_model: Path | None,
    status: Any,
) -> list[Any]:
    from argfaith.metrics.report import RougeReport, TextBaselines
    from argfaith.metrics.text import bertscore, nli_score, rouge_scores

    src = _read_source_text(source_text)
    out = []
    for p in summary_texts:
        summ = _read_summary_text(p)
        kw: dict[str, Any] = {}
        if "rouge" in baselines:
            r = rouge_scores(src, summ)
            for k in ("rouge1", "rouge2", "rougeL"):
                v = getattr(r, k)
                kw[k] = RougeReport(precision=v.precision, recall=v.recall, fmeasure=v.fmeasure)
        if "bertscore" in baselines:
            status(f"BERTScore of {p.name} ...")
            b = bertscore(src, summ, model=bertscore_model)
            kw.update(bertscore_precision=b.precision, bertscore_recall=b.recall, bertscore_f1=b.f1, bertscore_model=b.model)
        if "nli" in baselines:
            status(f"NLI of {p.name} ...")
            n = nli_score(src, summ, model=nli_model)
            kw.update(nli=n.score, nli_model=n.model)
        out.append(TextBaselines(**kw, notes=[f"text of {source_text} vs {p}"]))
    return out


def _parse_baselines(text: str | None) -> list[str]:
    from argfaith.errors import ConfigurationError

    if not text:
        return []
    out = [b.strip().lower() for b in text.split(",") if b.strip()]
    bad = [b for b in out if b not in ("rouge", "bertscore", "nli")]
    if bad:
        raise ConfigurationError(f"--baselines: unknown baseline(s) {bad}; choose from rouge, bertscore, nli")
    return out


def _aligners(alignment: AlignmentSettings, q: Any, n: int, llm_progress: Any = None) -> list[Any]:
    """One aligner (or None) per summary, from the alignment settings."""
    from argfaith.errors import ConfigurationError
    from argfaith.metrics.aligners import make_aligner
    from argfaith.metrics.alignment import FileAligner

    if alignment.files:
        if len(alignment.files) == 1 and n > 1:
            raise ConfigurationError(
                f"--alignment was given once for {n} summaries; give one alignment file per --summary, in the same order"
            )
        if len(alignment.files) != n:
            raise ConfigurationError(f"--alignment was given {len(alignment.files)} times for {n} --summary files; give one per summary")
        return [FileAligner(p) for p in alignment.files]
    if alignment.method is None:
        return [None] * n
    opts: dict[str, Any] = {"threshold": alignment.threshold}
    if alignment.method == "embedding":
        opts["model"] = alignment.model
    if alignment.method == "lexical":
        opts["measure"] = alignment.measure
    if alignment.method == "llm":
        opts.update(model=alignment.llm_model, batch=alignment.llm_batch, topic=q.name, progress=llm_progress)
    if alignment.method in ("id", "exact"):
        opts = {}
    return [make_aligner(alignment.method, **opts)] * n


def evaluate_files(
    source: Path,
    summaries: list[Path],
    metrics: MetricSettings,
    alignment: AlignmentSettings | None = None,
    *,
    include_qbafs: bool = True,
    text_baselines: list[Any] | None = None,
    llm_progress: Any = None,
    status: Any = None,
) -> Any:
    """QBAF files → :class:`~argfaith.metrics.report.EvaluationSuite` (what the command does
    before rendering), through :func:`argfaith.metrics.evaluate.evaluate_with`.
    ``status(step, done, total)`` hears about each step (reading included)."""
    from argfaith.metrics.evaluate import evaluate_with
    from argfaith.qbaf import load_qbaf

    def reading(p: Path) -> Any:
        if status is not None:
            status(f"reading {p}", 0, 0)
        return load_qbaf(p)

    q = reading(source)
    qs = [reading(s) for s in summaries]
    aligners = _aligners(alignment or AlignmentSettings(), q, len(qs), llm_progress)
    return evaluate_with(
        q, qs, metrics, alignments=aligners, source_path=str(source), summary_paths=[str(s) for s in summaries],
        text_baselines=text_baselines, include_qbafs=include_qbafs, status=status,
    )


def mine_documents(
    debate: Path,
    summary_docs: list[Path],
    mining: MiningSettings,
    *,
    strict: bool = False,
    restart: bool = False,
    quiet: bool = False,
) -> tuple[Path, list[Path]]:
    """Mine the debate's source QBAF and each summary's QBAF (PAPER.md §7) with
    :mod:`argfaith.mining`, saving them (and the resumable pair checkpoints) under
    ``mining.mined_dir``.

    Before any pair is classified: the candidate pairs of every document are counted and a
    document over ``mining.max_pairs`` is refused, and the language of each document is compared
    with the one the classifier reads (a warning, an error with ``strict``;
    :mod:`argfaith.mining.guards`). Returns the paths of the saved source QBAF and summary QBAFs.
    A rerun resumes from the checkpoints and does not classify a finished pair again.
    """
    import hashlib
    import os

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from argfaith.cli.mine import make_classifier
    from argfaith.datasets.documents import load_debate, load_summary
    from argfaith.datasets.paths import cache_dir
    from argfaith.mining.guards import check_languages, check_pair_budget, count_pairs
    from argfaith.mining.pipeline import mine_debate, mine_summary
    from argfaith.qbaf import save_qbaf

    doc = load_debate(debate)
    summaries = [load_summary(p) for p in summary_docs]
    names = [str(p) for p in summary_docs]
    # The guards run before the classifier is even built: a refused job costs a second or two.
    check_pair_budget(count_pairs(doc, summaries, names=names, summary_pairs=mining.summary_pairs), mining.max_pairs)
    clf, spec = make_classifier(mining.classifier)
    err = Console(stderr=True)
    for w in check_languages(doc, summaries, clf, strict=strict, names=names):
        err.print(f"warning: {w}", style="bold yellow", highlight=False, markup=False, soft_wrap=True)
    from argfaith.datasets.provision_ids import PROVISION_ID_SCHEME

    candidates = mining.candidates
    # The id scheme is part of the folder: QBAFs and checkpoints of older provision ids are not reused.
    from argfaith.mining.units import SUMMARY_UNITS_VERSION, summary_unit_policy

    policy = f"{mining.summary_pairs}|{mining.summary_units}|{SUMMARY_UNITS_VERSION}"
    tag = hashlib.sha256(f"{Path(debate).resolve()}|{spec}|{candidates}|{PROVISION_ID_SCHEME}|{policy}".encode()).hexdigest()[:10]
    root = Path(mining.mined_dir) if mining.mined_dir is not None else cache_dir() / "mined" / f"{doc.id}-{tag}"
    root.mkdir(parents=True, exist_ok=True)
    from argfaith.cli._progress import StepProgress

    out_summaries: list[Path] = []
    steps = StepProgress(quiet=quiet or err.is_terminal)  # plain lines where the bar does not draw
    with steps, Progress(
        TextColumn("[bold]mining[/] {task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err, disable=quiet or not err.is_terminal and not os.environ.get("ARGFAITH_PROGRESS"), transient=True,
    ) as bar:
        def progress_for(name: str):  # type: ignore[no-untyped-def]
            task = bar.add_task(name, total=None)

            def cb(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)
                steps(f"mining {name}: pairs classified", done, total)

            return cb

        src_path = root / "source.json"
        res = mine_debate(
            doc, clf, candidates=candidates, checkpoint=root / "source.pairs.jsonl", restart=restart,
            progress=progress_for(doc.id), info={"classifier_spec": spec, "document": str(debate)},
        )
        save_qbaf(res.qbaf, src_path)
        used: set[str] = set()
        for p, summ in zip(summary_docs, summaries):
            stem = Path(p).stem
            while stem in used or stem == "source":
                stem += "_"
            used.add(stem)
            r = mine_summary(
                summ, doc, clf, candidates=candidates, checkpoint=root / f"{stem}.pairs.jsonl", restart=restart,
                progress=progress_for(stem), name=stem, info={"classifier_spec": spec, "document": str(p)},
                pairs=mining.summary_pairs, policy=summary_unit_policy(mining.summary_units),  # type: ignore[arg-type]
            )
            out = root / f"{stem}.json"
            save_qbaf(r.qbaf, out)
            out_summaries.append(out)
    err.print(f"mined QBAFs (classifier {spec}) saved in {root}", highlight=False, markup=False, soft_wrap=True)
    return src_path, out_summaries


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


_IN, _MINE, _MET, _ALIGN, _TEXT, _OUT = "Inputs", "Mining (documents given with --debate)", "Metrics", \
    "Alignment (supplementary metrics π_sap, π_sar, π_pcc, π_cov)", "Text baselines", "Output"


@app.command(cls=GroupedCommand)
def evaluate(
    source: Annotated[Optional[Path], typer.Option("--source", rich_help_panel=_IN, help="Source (debate) QBAF JSON file Q.")] = None,
    summary: Annotated[Optional[list[Path]], typer.Option("--summary", rich_help_panel=_IN, help="Summary QBAF JSON file Q*; repeat for several summaries (one column each).")] = None,
    debate: Annotated[Optional[Path], typer.Option("--debate", rich_help_panel=_IN, help="Instead of --source: a debate document (JSON debate, transcript or EP folder), mined into Q first.")] = None,
    summary_doc: Annotated[Optional[list[Path]], typer.Option("--summary-doc", rich_help_panel=_IN, help="With --debate: a summary document (text, JSON), mined into Q* first; repeatable.")] = None,
    classifier: Annotated[Optional[str], typer.Option(rich_help_panel=_MINE, help="Relation classifier for mining documents: claude | offline | recorded:FILE | ... (default: claude with ANTHROPIC_API_KEY, else offline).")] = None,
    candidates: Annotated[str, typer.Option(rich_help_panel=_MINE, help="Candidate pairs when mining: all | topk:K | random:K | cascade:P.")] = "all",
    max_pairs: Annotated[int, typer.Option("--max-pairs", callback=ITERATIONS, rich_help_panel=_MINE, help=f"Refuse to mine a document with more candidate pairs than this, before any pair is classified (default {DEFAULT_MAX_PAIRS:,}: every EP debate fits; a 1 MB text is 60 million).")] = DEFAULT_MAX_PAIRS,
    mined_dir: Annotated[Optional[Path], typer.Option(rich_help_panel=_MINE, help="Where mined QBAFs and their resumable checkpoints go (default: $ARGFAITH_CACHE/mined/<debate>-<hash>).")] = None,
    summary_pairs: Annotated[str, typer.Option("--summary-pairs", rich_help_panel=_MINE, help="Summary candidate pairs: all (every ordered pair, the paper) | ordered (sentence → provisions and earlier sentences) | proposals (sentence → provisions only).")] = DEFAULT_SUMMARY_PAIRS,
    summary_units: Annotated[str, typer.Option("--summary-units", rich_help_panel=_MINE, help="Summary argument units: default (structural rules + argumentativeness classifier) | rules (rules only) | v1 (before issue 21).")] = "default",
    tau: Annotated[Optional[str], typer.Option("--tau", rich_help_panel=_MET, help="Speech base score(s) applied to both QBAFs, e.g. 0.2 or 0.15,0.2,0.25 (Table 6 sweep). Default: as in the files.")] = None,
    epsilon: Annotated[float, typer.Option(callback=EPSILON, rich_help_panel=_MET, help="ε of ε-accuracy π_εa, in (0, 1].")] = 0.1,
    tolerance: Annotated[float, typer.Option(callback=NONNEGATIVE, rich_help_panel=_MET, help="Tolerance (>= 0) of σ comparisons around 0.5 (π_bc) and ε (π_εa).")] = 1e-9,
    proposals: Annotated[ProposalPolicy, typer.Option(rich_help_panel=_MET, help="'exact': proposal sets must match (else an error naming the ids); 'intersection': evaluate on the shared proposals and report the rest.")] = ProposalPolicy.exact,
    semantics: Annotated[str, typer.Option(callback=SEMANTICS, rich_help_panel=_MET, help="Gradual semantics of σ: one name (dfquad, quad, quadratic-energy, euler-based, restricted-euler-based, mlp-based, weighted-h-categorizer, or aggregation:influence), or several comma-separated / 'all' for a semantics sweep: the report uses the first, the sweep shows π_bc / π_εa and the proposals that change side under each.")] = "dfquad",
    solver: Annotated[SolverMethod, typer.Option(rich_help_panel=_MET, help="Solver for cyclic summary QBAFs: synchronous iteration or continuous RK4.")] = SolverMethod.sync,
    max_iter: Annotated[int, typer.Option(callback=ITERATIONS, rich_help_panel=_MET, help="Iteration budget per cyclic component (>= 1).")] = 10_000,
    tol: Annotated[float, typer.Option(callback=NONNEGATIVE, rich_help_panel=_MET, help="Solver convergence tolerance (>= 0).")] = 1e-9,
    strict: Annotated[bool, typer.Option(rich_help_panel=_MET, help="Fail (exit 2) instead of warning when a QBAF's strengths do not converge, or when a mined document is not in the language the relation classifier reads.")] = False,
    pcr_reading: Annotated[PathReading, typer.Option("--pcr-reading", rich_help_panel=_MET, help="Paths of pro/con (π_pcr, π_pcc): walk (PAPER.md §3) or simple (exact within --path-budget steps; degenerate cyclic summaries get informative ratios).")] = PathReading.walk,
    path_budget: Annotated[int, typer.Option(callback=ITERATIONS, rich_help_panel=_MET, help="--pcr-reading simple: search steps per proposal (>= 1) before the result is reported as a lower bound.")] = 200_000,
    explain: Annotated[bool, typer.Option(rich_help_panel=_MET, help="Per-proposal explanations (arguments ranked by influence).")] = True,
    explain_top: Annotated[int, typer.Option(callback=COUNT, rich_help_panel=_MET, help="Arguments kept per proposal and side in explanations (0 = all).")] = 10,
    draws: Annotated[Optional[int], typer.Option("--draws", callback=COUNT, rich_help_panel=_MET, help="Error bars: sample this many labellings of the uncertain candidate pairs from the classifier's calibrated probabilities and report each metric's mean and 90% interval (0 = no error bars; QBAFs without probabilities have certain relations). Default: 100 when --debate is mined in this run (≈2 s on a 300-sentence debate, next to minutes of mining), 0 for QBAF files (sampling would multiply the run time).")] = None,
    interval_level: Annotated[float, typer.Option("--interval-level", callback=UNIT, rich_help_panel=_MET, help="Central interval of the draws, in (0, 1].")] = 0.9,
    alignment: Annotated[Optional[list[Path]], typer.Option("--alignment", rich_help_panel=_ALIGN, help="Alignment file (JSON/JSONL/CSV) of source→summary speech arguments; one per --summary.")] = None,
    align: Annotated[Optional[AlignMethod], typer.Option("--align", rich_help_panel=_ALIGN, help="Align speech arguments automatically.")] = None,
    coverage_k: Annotated[int, typer.Option(callback=COUNT, rich_help_panel=_ALIGN, help="With an alignment: π_cov over the K most salient source speech arguments, next to π_sar (0 = leave π_cov out).")] = 10,
    coverage_salience: Annotated[CoverageSalience, typer.Option(rich_help_panel=_ALIGN, help="Salience ranking the arguments of π_cov: strength (σ), influence, degree or replies.")] = CoverageSalience.strength,
    align_threshold: Annotated[Optional[float], typer.Option(callback=UNIT, rich_help_panel=_ALIGN, help="Similarity threshold in [0, 1] for --align lexical/embedding (defaults 0.5 / 0.6).")] = None,
    align_measure: Annotated[Optional[str], typer.Option(rich_help_panel=_ALIGN, help="--align lexical: 'tfidf' (default) or 'token_f1'.")] = None,
    align_model: Annotated[Optional[Path], typer.Option(rich_help_panel=_ALIGN, help="--align embedding: a local sentence-transformers model directory (default: all-MiniLM-L6-v2 from the embeddings extra).")] = None,
    llm_model: Annotated[Optional[str], typer.Option(rich_help_panel=_ALIGN, help="--align llm: Claude model id (default: argfaith.llm.DEFAULT_MODEL). Needs ANTHROPIC_API_KEY unless every request is cached.")] = None,
    llm_batch: Annotated[bool, typer.Option(rich_help_panel=_ALIGN, help="--align llm: send uncached requests through the Message Batches API (half price, slower).")] = False,
    source_text: Annotated[Optional[Path], typer.Option(rich_help_panel=_TEXT, help="Debate document (JSON debate, transcript, EP folder or .txt) for text baselines.")] = None,
    summary_text: Annotated[Optional[list[Path]], typer.Option(rich_help_panel=_TEXT, help="Summary text file(s) for text baselines, one per --summary.")] = None,
    baselines: Annotated[Optional[str], typer.Option(rich_help_panel=_TEXT, help="Text baselines to compute: rouge,bertscore,nli (default: rouge when texts are given).")] = None,
    bertscore_model: Annotated[Optional[Path], typer.Option(rich_help_panel=_TEXT, help="Local encoder directory for BERTScore (default: all-MiniLM-L6-v2, extra 'embeddings').")] = None,
    nli_model: Annotated[Optional[Path], typer.Option(rich_help_panel=_TEXT, help="Local NLI model directory (required for the nli baseline; extra 'nli').")] = None,
    format: Annotated[Optional[OutputFormat], typer.Option("--format", rich_help_panel=_OUT, help="Output format (default: from --out's suffix, else table).")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", rich_help_panel=_OUT, help="Write the report to this file instead of stdout.")] = None,
    qbafs: Annotated[bool, typer.Option("--qbafs/--no-qbafs", rich_help_panel=_OUT, help="Embed both QBAFs in JSON output (and in HTML, for the full graphs).")] = True,
    full_graph: Annotated[Optional[bool], typer.Option("--full-graph/--no-full-graph", rich_help_panel=_OUT, help="HTML: the full argument graphs (default: summaries up to 500 arguments drawn whole, a debate over 60 drawn per provision in its card; --full-graph draws every framework whole).")] = None,
) -> None:
    """Evaluate summaries against a debate: which provisions does each summary misrepresent? The paper's metrics, explanations and a report."""
    from argfaith.errors import ConfigurationError
    from argfaith.metrics.evaluate import parse_semantics, parse_taus
    from argfaith.metrics.render import render

    # The options become the four settings objects the library uses (each checks its values).
    wanted = _parse_baselines(baselines)
    inputs = InputSettings(source=source, summaries=tuple(summary or ()), debate=debate, summary_docs=tuple(summary_doc or ()),
                           source_text=source_text, summary_texts=tuple(summary_text or ()))
    mining = MiningSettings(classifier=classifier, candidates=candidates, mined_dir=mined_dir, max_pairs=max_pairs,
                            summary_pairs=summary_pairs, summary_units=summary_units)
    metrics = MetricSettings(
        taus=tuple(parse_taus(tau)) if tau is not None else (None,), epsilon=epsilon, tolerance=tolerance,
        proposals=proposals.value, semantics=tuple(parse_semantics(semantics)), solver=solver.value, max_iter=max_iter,
        tol=tol, strict=strict, pcr_reading=pcr_reading.value, path_budget=path_budget, explain=explain,
        explain_top=explain_top or None, coverage_k=coverage_k or None, coverage_salience=coverage_salience.value,
        baselines=tuple(wanted), bertscore_model=bertscore_model, nli_model=nli_model,
        draws=draws if draws is not None else (DRAWS_WHEN_MINING if inputs.debate is not None else 0),
        interval_level=interval_level,
    )
    align_settings = AlignmentSettings(
        files=tuple(alignment or ()), method=align.value if align else None, threshold=align_threshold,
        measure=align_measure, model=align_model, llm_model=llm_model, llm_batch=llm_batch,
    )
    output = OutputSettings(format=format.value if format else None, out=out, include_qbafs=qbafs, full_graph=full_graph)
    if inputs.debate is None and (classifier is not None or mined_dir is not None):
        raise ConfigurationError("--classifier / --mined-dir apply only when mining documents (--debate)")
    src = inputs.source
    summary_paths = list(inputs.summaries)
    source_text, summary_text = inputs.source_text, list(inputs.summary_texts)
    if inputs.debate is not None:
        src, mined = mine_documents(inputs.debate, list(inputs.summary_docs), mining, strict=metrics.strict)
        summary_paths = summary_paths + mined
        # The documents themselves are the natural inputs of the text baselines.
        if source_text is None and not summary_text and wanted:
            source_text = inputs.debate
            summary_text = [None] * len(inputs.summaries) + list(inputs.summary_docs)
            if any(t is None for t in summary_text):
                raise ConfigurationError("text baselines with --summary QBAF files need --source-text and --summary-text")
    tb = None
    if source_text is not None or summary_text:
        if source_text is None or not summary_text:
            raise ConfigurationError("text baselines need both --source-text and --summary-text")
        if len(summary_text) != len(summary_paths):
            raise ConfigurationError(f"--summary-text was given {len(summary_text)} times for {len(summary_paths)} --summary files; give one per summary")
        wanted = wanted or ["rouge"]
    elif wanted:
        raise ConfigurationError("--baselines needs --source-text and --summary-text")
    if wanted:
        from rich.console import Console

        err = Console(stderr=True)
        with err.status("text baselines ...") as st:
            tb = _text_baselines(
                source_text, list(summary_text), wanted,  # type: ignore[arg-type]
                bertscore_model=metrics.bertscore_model, nli_model=metrics.nli_model, status=lambda m: st.update(m),
            )
    from rich.console import Console
    from rich.progress import Progress

    # Progress of LLM alignment requests on stderr (stdout may carry the JSON report).
    from argfaith.cli._progress import StepProgress

    err_console = Console(stderr=True)
    steps = StepProgress()
    fmt = output.resolved_format
    assert src is not None
    with steps, Progress(console=err_console, transient=True, disable=align_settings.method != "llm" or not err_console.is_terminal) as prog:
        task = prog.add_task("LLM alignment requests", total=None)
        suite = evaluate_files(
            src, summary_paths, metrics, align_settings, include_qbafs=output.include_qbafs, text_baselines=tb,
            llm_progress=lambda d, n: prog.update(task, completed=d, total=n), status=steps,
        )
        obj: Any = suite.reports[0] if len(suite.reports) == 1 and not suite.semantics_sweep else suite
        steps(f"writing the {fmt} report", 0, 0)
        if output.out is None and fmt == "table":
            from argfaith.metrics.render.table import print_table

            steps.done()
            print_table(obj, Console(highlight=False))
            return
        text = render(obj, fmt, include_qbafs=output.include_qbafs, full_graph=output.full_graph)  # type: ignore[arg-type]
        steps.done()
    if output.out is None:
        sys.stdout.write(text)
        return
    _write(output.out, text)
    typer.echo(f"wrote {fmt} report to {output.out}", err=True)
