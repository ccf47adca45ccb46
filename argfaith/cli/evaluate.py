"""`argfaith evaluate`: how faithfully does a summary QBAF carry the arguments of its debate QBAF?

The command wires files to :func:`argfaith.metrics.evaluate.evaluate_many` (the seam that takes
QBAFs) and renders the report. Text baselines (ROUGE, BERTScore, NLI) are computed from the
debate / summary documents when given.
"""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from argfaith.cli._app import app
from argfaith.cli._options import COUNT, EPSILON, ITERATIONS, NONNEGATIVE, SEMANTICS, UNIT
from argfaith.cli.engine import SolverMethod

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


_SUFFIX_FORMAT = {".json": OutputFormat.json, ".md": OutputFormat.markdown, ".markdown": OutputFormat.markdown, ".html": OutputFormat.html, ".htm": OutputFormat.html}


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


def evaluate_files(
    source: Path,
    summaries: list[Path],
    *,
    taus: list[float | None],
    epsilon: float = 0.1,
    tolerance: float = 1e-9,
    proposals: str = "exact",
    alignment_files: list[Path] | None = None,
    align: str | None = None,
    align_threshold: float | None = None,
    align_model: Path | None = None,
    align_measure: str | None = None,
    llm_model: str | None = None,
    llm_batch: bool = False,
    llm_progress: Any = None,
    solver: str = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
    strict: bool = False,
    explain: bool = True,
    explain_top: int | None = 10,
    include_qbafs: bool = True,
    text_baselines: list[Any] | None = None,
    coverage_k: int | None = 10,
    coverage_salience: str = "strength",
    pcr_reading: str = "walk",
    path_budget: int = 200_000,
    status: Any = None,
    semantics: Any = "dfquad",
) -> Any:
    """QBAF files → :class:`~argfaith.metrics.report.EvaluationSuite` (what the command does
    before rendering). ``status(step, done, total)`` hears about each step (reading included)."""
    from argfaith.errors import ConfigurationError
    from argfaith.metrics.aligners import make_aligner
    from argfaith.metrics.alignment import FileAligner
    from argfaith.metrics.evaluate import evaluate_many
    from argfaith.qbaf import load_qbaf

    def reading(p: Path) -> Any:
        if status is not None:
            status(f"reading {p}", 0, 0)
        return load_qbaf(p)

    q = reading(source)
    qs = [reading(s) for s in summaries]
    aligners: list[Any]
    if alignment_files:
        if align:
            raise ConfigurationError("give either --alignment FILE or --align METHOD, not both")
        if len(alignment_files) == 1 and len(qs) > 1:
            raise ConfigurationError(
                f"--alignment was given once for {len(qs)} summaries; give one alignment file per --summary, in the same order"
            )
        if len(alignment_files) != len(qs):
            raise ConfigurationError(f"--alignment was given {len(alignment_files)} times for {len(qs)} --summary files; give one per summary")
        aligners = [FileAligner(p) for p in alignment_files]
    elif align:
        opts: dict[str, Any] = {"threshold": align_threshold}
        if align == "embedding":
            opts["model"] = align_model
        if align == "lexical":
            opts["measure"] = align_measure
        if align == "llm":
            opts.update(model=llm_model, batch=llm_batch, topic=q.name, progress=llm_progress)
        elif llm_model is not None or llm_batch:
            raise ConfigurationError("--llm-model / --llm-batch need --align llm")
        if align in ("id", "exact"):
            if align_threshold is not None:
                raise ConfigurationError(f"--align-threshold does not apply to --align {align}")
            opts = {}
        one = make_aligner(align, **opts)
        aligners = [one] * len(qs)
    else:
        if align_threshold is not None or align_model is not None or llm_model is not None or llm_batch:
            raise ConfigurationError("--align-threshold / --align-model / --llm-model / --llm-batch need --align METHOD")
        aligners = [None] * len(qs)
    return evaluate_many(
        q, qs, taus=taus, epsilon=epsilon, tolerance=tolerance,
        on_mismatch="intersection" if proposals == "intersection" else "error",
        alignments=aligners, explain=explain, explain_limit=explain_top, method=solver, max_iter=max_iter, tol=tol,
        strict=strict, include_qbafs=include_qbafs, source_path=str(source), summary_paths=[str(s) for s in summaries],
        text_baselines=text_baselines, coverage_k=coverage_k, coverage_salience=coverage_salience,
        pro_con_reading=pcr_reading, path_budget=path_budget, semantics=semantics,
        status=status,
    )


def mine_documents(
    debate: Path,
    summary_docs: list[Path],
    *,
    classifier: str | None,
    candidates: str = "all",
    mined_dir: Path | None = None,
    restart: bool = False,
    quiet: bool = False,
) -> tuple[Path, list[Path]]:
    """Mine the debate's source QBAF and each summary's QBAF (PAPER.md §7) with
    :mod:`argfaith.mining`, saving them (and the resumable pair checkpoints) under ``mined_dir``.

    Returns the paths of the saved source QBAF and summary QBAFs. A rerun resumes from the
    checkpoints and does not classify a finished pair again.
    """
    import hashlib
    import os

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from argfaith.cli.mine import make_classifier
    from argfaith.datasets.documents import load_debate, load_summary
    from argfaith.datasets.paths import cache_dir
    from argfaith.mining.pipeline import mine_debate, mine_summary
    from argfaith.qbaf import save_qbaf

    doc = load_debate(debate)
    summaries = [load_summary(p) for p in summary_docs]
    clf, spec = make_classifier(classifier)
    from argfaith.datasets.provision_ids import PROVISION_ID_SCHEME

    # The id scheme is part of the folder: QBAFs and checkpoints of older provision ids are not reused.
    tag = hashlib.sha256(f"{Path(debate).resolve()}|{spec}|{candidates}|{PROVISION_ID_SCHEME}".encode()).hexdigest()[:10]
    root = Path(mined_dir) if mined_dir is not None else cache_dir() / "mined" / f"{doc.id}-{tag}"
    root.mkdir(parents=True, exist_ok=True)
    from argfaith.cli._progress import StepProgress

    err = Console(stderr=True)
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


@app.command()
def evaluate(
    source: Annotated[Optional[Path], typer.Option("--source", help="Source (debate) QBAF JSON file Q.")] = None,
    summary: Annotated[Optional[list[Path]], typer.Option("--summary", help="Summary QBAF JSON file Q*; repeat for several summaries (one column each).")] = None,
    debate: Annotated[Optional[Path], typer.Option("--debate", help="Instead of --source: a debate document (JSON debate, transcript or EP folder), mined into Q first.")] = None,
    summary_doc: Annotated[Optional[list[Path]], typer.Option("--summary-doc", help="With --debate: a summary document (text, JSON), mined into Q* first; repeatable.")] = None,
    classifier: Annotated[Optional[str], typer.Option(help="Relation classifier for mining documents: claude | offline | recorded:FILE | ... (default: claude with ANTHROPIC_API_KEY, else offline).")] = None,
    candidates: Annotated[str, typer.Option(help="Candidate pairs when mining: all | topk:K | random:K | cascade:P.")] = "all",
    mined_dir: Annotated[Optional[Path], typer.Option(help="Where mined QBAFs and their resumable checkpoints go (default: $ARGFAITH_CACHE/mined/<debate>-<hash>).")] = None,
    tau: Annotated[Optional[str], typer.Option("--tau", help="Speech base score(s) applied to both QBAFs, e.g. 0.2 or 0.15,0.2,0.25 (Table 6 sweep). Default: as in the files.")] = None,
    epsilon: Annotated[float, typer.Option(callback=EPSILON, help="ε of ε-accuracy π_εa, in (0, 1].")] = 0.1,
    tolerance: Annotated[float, typer.Option(callback=NONNEGATIVE, help="Tolerance (>= 0) of σ comparisons around 0.5 (π_bc) and ε (π_εa).")] = 1e-9,
    proposals: Annotated[ProposalPolicy, typer.Option(help="'exact': proposal sets must match (else an error naming the ids); 'intersection': evaluate on the shared proposals and report the rest.")] = ProposalPolicy.exact,
    alignment: Annotated[Optional[list[Path]], typer.Option("--alignment", help="Alignment file (JSON/JSONL/CSV) of source→summary speech arguments; one per --summary. Enables π_sap, π_sar, π_pcc.")] = None,
    align: Annotated[Optional[AlignMethod], typer.Option("--align", help="Align speech arguments automatically (enables π_sap, π_sar, π_pcc).")] = None,
    coverage_k: Annotated[int, typer.Option(callback=COUNT, help="With an alignment: π_cov over the K most salient source speech arguments, next to π_sar (0 = leave π_cov out).")] = 10,
    coverage_salience: Annotated[CoverageSalience, typer.Option(help="Salience ranking the arguments of π_cov: strength (σ), influence, degree or replies.")] = CoverageSalience.strength,
    align_threshold: Annotated[Optional[float], typer.Option(callback=UNIT, help="Similarity threshold in [0, 1] for --align lexical/embedding (defaults 0.5 / 0.6).")] = None,
    align_measure: Annotated[Optional[str], typer.Option(help="--align lexical: 'tfidf' (default) or 'token_f1'.")] = None,
    align_model: Annotated[Optional[Path], typer.Option(help="--align embedding: a local sentence-transformers model directory (default: all-MiniLM-L6-v2 from the embeddings extra).")] = None,
    llm_model: Annotated[Optional[str], typer.Option(help="--align llm: Claude model id (default: argfaith.llm.DEFAULT_MODEL). Needs ANTHROPIC_API_KEY unless every request is cached.")] = None,
    llm_batch: Annotated[bool, typer.Option(help="--align llm: send uncached requests through the Message Batches API (half price, slower).")] = False,
    format: Annotated[Optional[OutputFormat], typer.Option("--format", help="Output format (default: from --out's suffix, else table).")] = None,
    out: Annotated[Optional[Path], typer.Option("--out", help="Write the report to this file instead of stdout.")] = None,
    semantics: Annotated[str, typer.Option(callback=SEMANTICS, help="Gradual semantics of σ: one name (dfquad, quad, quadratic-energy, euler-based, restricted-euler-based, mlp-based, weighted-h-categorizer, or aggregation:influence), or several comma-separated / 'all' for a semantics sweep: the report uses the first, the sweep shows π_bc / π_εa and the proposals that change side under each.")] = "dfquad",
    solver: Annotated[SolverMethod, typer.Option(help="Solver for cyclic summary QBAFs: synchronous iteration or continuous RK4.")] = SolverMethod.sync,
    max_iter: Annotated[int, typer.Option(callback=ITERATIONS, help="Iteration budget per cyclic component (>= 1).")] = 10_000,
    tol: Annotated[float, typer.Option(callback=NONNEGATIVE, help="Solver convergence tolerance (>= 0).")] = 1e-9,
    strict: Annotated[bool, typer.Option(help="Fail (exit 2) when a QBAF's strengths do not converge.")] = False,
    pcr_reading: Annotated[PathReading, typer.Option("--pcr-reading", help="Paths of pro/con (π_pcr, π_pcc): walk (PAPER.md §3) or simple (exact within --path-budget steps; degenerate cyclic summaries get informative ratios).")] = PathReading.walk,
    path_budget: Annotated[int, typer.Option(callback=ITERATIONS, help="--pcr-reading simple: search steps per proposal (>= 1) before the result is reported as a lower bound.")] = 200_000,
    explain: Annotated[bool, typer.Option(help="Per-proposal explanations (arguments ranked by influence).")] = True,
    explain_top: Annotated[int, typer.Option(callback=COUNT, help="Arguments kept per proposal and side in explanations (0 = all).")] = 10,
    qbafs: Annotated[bool, typer.Option("--qbafs/--no-qbafs", help="Embed both QBAFs in JSON output (and in HTML, for the full graphs).")] = True,
    full_graph: Annotated[Optional[bool], typer.Option("--full-graph/--no-full-graph", help="HTML: the filterable full argument graphs (default: included, folded, when every framework has at most 500 arguments: argfaith.metrics.render.views.GRAPH_AUTO_LIMIT).")] = None,
    source_text: Annotated[Optional[Path], typer.Option(help="Debate document (JSON debate, transcript, EP folder or .txt) for text baselines.")] = None,
    summary_text: Annotated[Optional[list[Path]], typer.Option(help="Summary text file(s) for text baselines, one per --summary.")] = None,
    baselines: Annotated[Optional[str], typer.Option(help="Text baselines to compute: rouge,bertscore,nli (default: rouge when texts are given).")] = None,
    bertscore_model: Annotated[Optional[Path], typer.Option(help="Local encoder directory for BERTScore (default: all-MiniLM-L6-v2, extra 'embeddings').")] = None,
    nli_model: Annotated[Optional[Path], typer.Option(help="Local NLI model directory (required for the nli baseline; extra 'nli').")] = None,
) -> None:
    """Evaluate summary QBAF(s) against a debate QBAF: the paper's faithfulness metrics, explanations and a report."""
    from argfaith.errors import ConfigurationError
    from argfaith.metrics.evaluate import parse_semantics, parse_taus
    from argfaith.metrics.render import render

    taus: list[float | None] = list(parse_taus(tau)) if tau is not None else [None]
    sems = parse_semantics(semantics)
    fmt = format or (_SUFFIX_FORMAT.get(out.suffix.lower(), OutputFormat.table) if out else OutputFormat.table)
    summary = list(summary or [])
    summary_doc = list(summary_doc or [])
    wanted = _parse_baselines(baselines)
    if (source is None) == (debate is None):
        raise ConfigurationError("give the source as either --source QBAF.json or --debate DOCUMENT (exactly one)")
    if summary_doc and debate is None:
        raise ConfigurationError("--summary-doc needs --debate (summaries are mined against the debate's proposals)")
    if not summary and not summary_doc:
        raise ConfigurationError("give at least one --summary QBAF file (or --summary-doc with --debate)")
    if debate is None and (classifier is not None or mined_dir is not None):
        raise ConfigurationError("--classifier / --mined-dir apply only when mining documents (--debate)")
    if debate is not None:
        source, mined = mine_documents(debate, summary_doc, classifier=classifier, candidates=candidates, mined_dir=mined_dir)
        summary = summary + mined
        # The documents themselves are the natural inputs of the text baselines.
        if source_text is None and summary_text is None and baselines:
            source_text = debate
            summary_text = [None] * (len(summary) - len(summary_doc)) + summary_doc  # type: ignore[list-item]
            if any(t is None for t in summary_text):
                raise ConfigurationError("text baselines with --summary QBAF files need --source-text and --summary-text")
    tb = None
    if source_text is not None or summary_text:
        if source_text is None or not summary_text:
            raise ConfigurationError("text baselines need both --source-text and --summary-text")
        if len(summary_text) != len(summary):
            raise ConfigurationError(f"--summary-text was given {len(summary_text)} times for {len(summary)} --summary files; give one per summary")
        wanted = wanted or ["rouge"]
    elif wanted:
        raise ConfigurationError("--baselines needs --source-text and --summary-text")
    if wanted:
        from rich.console import Console

        err = Console(stderr=True)
        with err.status("text baselines ...") as st:
            tb = _text_baselines(
                source_text, list(summary_text), wanted,  # type: ignore[arg-type]
                bertscore_model=bertscore_model, nli_model=nli_model, status=lambda m: st.update(m),
            )
    from rich.console import Console
    from rich.progress import Progress

    # Progress of LLM alignment requests on stderr (stdout may carry the JSON report).
    from argfaith.cli._progress import StepProgress

    err_console = Console(stderr=True)
    steps = StepProgress()
    with steps, Progress(console=err_console, transient=True, disable=align is not AlignMethod.llm or not err_console.is_terminal) as prog:
        task = prog.add_task("LLM alignment requests", total=None)
        suite = evaluate_files(
            source, list(summary), taus=taus, epsilon=epsilon, tolerance=tolerance, proposals=proposals.value,
            alignment_files=list(alignment) if alignment else None, align=align.value if align else None,
            align_threshold=align_threshold, align_model=align_model, align_measure=align_measure,
            llm_model=llm_model, llm_batch=llm_batch, llm_progress=lambda d, n: prog.update(task, completed=d, total=n),
            solver=solver.value, max_iter=max_iter, tol=tol, strict=strict, explain=explain,
            explain_top=explain_top or None, include_qbafs=qbafs, text_baselines=tb,
            coverage_k=coverage_k or None, coverage_salience=coverage_salience.value, status=steps,
            pcr_reading=pcr_reading.value, path_budget=path_budget, semantics=sems,
        )
        obj: Any = suite.reports[0] if len(suite.reports) == 1 and not suite.semantics_sweep else suite
        steps(f"writing the {fmt.value} report", 0, 0)
        if out is None and fmt is OutputFormat.table:
            from argfaith.metrics.render.table import print_table

            steps.done()
            print_table(obj, Console(highlight=False))
            return
        text = render(obj, fmt.value, include_qbafs=qbafs, full_graph=full_graph)  # type: ignore[arg-type]
        steps.done()
    if out is None:
        sys.stdout.write(text)
        return
    _write(out, text)
    typer.echo(f"wrote {fmt.value} report to {out}", err=True)
