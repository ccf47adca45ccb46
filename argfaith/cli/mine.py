"""`argfaith mine`: a debate (or one of its summaries) → its QBAF JSON, by relation mining."""

from __future__ import annotations

import json
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from argfaith.mining.candidates import DEFAULT_SUMMARY_PAIRS

from argfaith.cli._app import app
from argfaith.cli._options import ITERATIONS, TAU
from argfaith.cli.engine import TableOrJson as DryRunFormat


class UnitsOption(str, Enum):
    auto = "auto"
    spans = "spans"
    sentences = "sentences"


class UnitFilter(str, Enum):
    default = "default"
    none = "none"


def _warn(msg: str) -> None:
    from rich.console import Console

    Console(stderr=True).print(msg, style="bold yellow", highlight=False, markup=False, soft_wrap=True)


def make_classifier(spec: str | None) -> tuple[Any, str]:
    """The relation classifier for a ``--classifier`` spec, and the spec actually used.

    No spec: Claude when ``ANTHROPIC_API_KEY`` is set, else the offline classifier (with a loud
    warning). Names are resolved by :mod:`argfaith.mining.classifiers.registry` (``offline``,
    ``claude[:MODEL][?...]``, ``recorded:FILE[?unknown=no-relation]``, ...).
    """
    if spec is None:
        if os.environ.get("ANTHROPIC_API_KEY"):
            spec = "claude"
        else:
            spec = "offline"
            _warn(
                "WARNING: no ANTHROPIC_API_KEY set and no --classifier given: using the OFFLINE relation "
                "classifier. Its relations are much less accurate than Claude's (see docs/classifiers.md); "
                "pass --classifier explicitly to silence this warning."
            )
    from argfaith.mining.classifiers.registry import make_classifier as from_registry

    return from_registry(spec), spec


def _cheap_classifier_factory():  # type: ignore[no-untyped-def]
    """The cascade's cheap model: the pair-feature classifier, built only if a cascade is used."""

    def factory():  # type: ignore[no-untyped-def]
        return make_classifier("features")[0]

    return factory


def _dry_run(plan: Any, classifier_spec: str | None, fmt: DryRunFormat, model: str | None, extraction: Any = None) -> None:
    info = plan.describe()
    estimates: list[Any] = []
    note = None
    try:
        from argfaith.mining.cost import estimate_strategies, format_cost_table
    except ImportError as e:  # the cost estimator is optional (the Claude engineer's module)
        estimate_strategies = None  # type: ignore[assignment]
        note = f"cost estimates unavailable ({e})"
    queries = plan.queries()
    if estimate_strategies is not None:
        kw = {"model": model} if model else {}
        estimates = estimate_strategies(queries, **kw)
    if fmt is DryRunFormat.json:
        out = {**info, "classifier": classifier_spec, "estimates": [e.as_dict() for e in estimates]}
        if extraction is not None:
            out["extraction"] = extraction.as_dict()
        if note:
            out["note"] = note
        typer.echo(json.dumps(out, indent=1))
        return
    # Plain text (no rich wrapping): the table is meant to be copied into notes.
    dropped = ", ".join(f"{k} {v}" for k, v in sorted(plan.dropped_units.items())) or "none"
    lines = [
        f"{plan.kind} {plan.name} — {plan.topic}",
        f"arguments: {len(plan.proposals)} proposals, {len(plan.speech)} speech ({plan.unit_method}; dropped: {dropped})",
        f"candidate pairs: {plan.n_all_candidates:,} all; {len(plan.pairs):,} with --candidates {plan.strategy}",
    ]
    if extraction is not None:
        x = extraction
        usd = "n/a (unknown model price)" if x.usd is None else f"${x.usd:,.4f} (at most ${x.usd_max:,.4f})"
        lines += [
            f"LLM argument extraction ({x.model}): {x.texts:,} texts, {x.cached:,} cached; "
            f"~{x.input_tokens:,} input + ~{x.output_tokens:,} output tokens; {usd}",
            "  (arguments and pairs above are planned with rule-based sentences: the LLM's units are not known before it runs)",
        ]
    if estimates:
        lines += ["", format_cost_table(estimates)]  # type: ignore[misc]
    elif note:
        lines.append(note)
    lines.append("dry run: no classifier was called")
    typer.echo("\n".join(lines))


def density_line(kind: str, n_att: int, n_sup: int, n_pairs: int) -> str:
    """One line comparing the mined relation density with the labelled EP corpus (issue: mined
    structure must stay near labelled data)."""
    from argfaith.metrics.degeneracy import DENSITY_FACTOR, REFERENCE_DENSITY

    genre = "summary" if kind == "summary" else "debate"
    ref = REFERENCE_DENSITY[genre]
    rel = (n_att + n_sup) / n_pairs if n_pairs else 0.0
    ash = n_att / (n_att + n_sup) if n_att + n_sup else 0.0
    ratio = rel / ref["related"] if ref["related"] else float("nan")
    verdict = "within" if 1 / DENSITY_FACTOR <= ratio <= DENSITY_FACTOR else "OUTSIDE"
    return (f"relation density: {100 * rel:.1f}% of candidate pairs related ({ratio:.2f}× the {100 * ref['related']:.1f}% "
            f"of exhaustively labelled EP {genre} pairs; {verdict} ½×–{DENSITY_FACTOR:g}×), attacks {100 * ash:.0f}% of "
            f"edges (labelled {100 * ref['attack_share']:.0f}%)")


@app.command()
def mine(
    debate: Annotated[Path, typer.Argument(help="EP debate folder, hand-written JSON debate, or [ID] Speaker: text transcript.")],
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the QBAF JSON here (required unless --dry-run).")] = None,
    summary: Annotated[Optional[Path], typer.Option(help="Mine this summary of DEBATE instead (EP summary JSON, JSON {text}, or text).")] = None,
    classifier: Annotated[Optional[str], typer.Option(help="claude | offline | recorded:FILE | ... (default: claude with ANTHROPIC_API_KEY, else offline).")] = None,
    candidates: Annotated[str, typer.Option(help="Candidate pairs: all | topk:K | random:K | cascade:P.")] = "all",
    units: Annotated[UnitsOption, typer.Option(help="Speech arguments: human spans, sentences, or auto (spans when the debate has them).")] = UnitsOption.auto,
    unit_filter: Annotated[UnitFilter, typer.Option(help="default: drop the chair's procedural lines, stage directions, headers, fragments; none: keep all units.")] = UnitFilter.default,
    summary_pairs: Annotated[str, typer.Option("--summary-pairs", help="With --summary: all (every ordered pair, the paper) | ordered (sentence → provisions and earlier sentences) | proposals (sentence → provisions only).")] = DEFAULT_SUMMARY_PAIRS,
    summary_units: Annotated[str, typer.Option("--summary-units", help="With --summary and --unit-filter default: default (structural rules + argumentativeness classifier) | rules | v1.")] = "default",
    segmenter: Annotated[str, typer.Option(help="Automatic units: rules | rules-plain | lines (sentences) | llm[:MODEL] (Claude's argument units, exact passages of the text; cached; needs ANTHROPIC_API_KEY).")] = "rules",
    tau: Annotated[float, typer.Option(callback=TAU, help="Base score τ of speech arguments, in [0, 1].")] = 0.2,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Plan only: print arguments, pairs and the estimated Claude cost per strategy.")] = False,
    dry_run_format: Annotated[DryRunFormat, typer.Option("--format", help="Dry-run output format.")] = DryRunFormat.table,
    model: Annotated[Optional[str], typer.Option(help="Model id for the dry-run cost estimate (default: the Claude classifier's).")] = None,
    checkpoint: Annotated[Optional[Path], typer.Option(help="Checkpoint of finished pairs (default: OUT with suffix .pairs.jsonl).")] = None,
    restart: Annotated[bool, typer.Option("--restart", help="Discard an existing checkpoint instead of resuming it.")] = False,
    chunk_size: Annotated[int, typer.Option(callback=ITERATIONS, help="Pairs per classifier call between checkpoints (>= 1).")] = 2000,
    seed: Annotated[int, typer.Option(help="Seed of random:K pruning.")] = 0,
    max_pairs: Annotated[int, typer.Option("--max-pairs", callback=ITERATIONS, help="Refuse a document with more candidate pairs than this, counted before any pair is built (default 1,000,000: every EP debate fits).")] = 1_000_000,
    strict: Annotated[bool, typer.Option(help="Refuse (exit 2), instead of warning, a document not in the language the relation classifier reads.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Mine a debate's QBAF (or, with --summary, the summary's QBAF anchored on the debate's proposals)."""
    from argfaith.datasets.documents import load_debate, load_summary
    from argfaith.errors import ConfigurationError
    from argfaith.mining.pipeline import plan_debate, plan_summary, run_plan
    from argfaith.mining.units import KEEP_ALL

    if out is None and not dry_run:
        raise ConfigurationError("--out FILE is required (or use --dry-run)")
    doc = load_debate(debate)
    from argfaith.errors import ConfigurationError
    from argfaith.mining.candidates import SUMMARY_PAIR_POLICIES
    from argfaith.mining.units import summary_unit_policy

    if summary_pairs not in SUMMARY_PAIR_POLICIES:
        raise ConfigurationError(f"--summary-pairs must be one of {', '.join(SUMMARY_PAIR_POLICIES)}, got {summary_pairs!r}")
    summary_policy = summary_unit_policy(summary_units)
    policy = KEEP_ALL if unit_filter is UnitFilter.none else None
    uses_cascade = candidates.strip().lower().startswith("cascade")
    cheap = _cheap_classifier_factory() if uses_cascade else None
    extraction = None
    summ = load_summary(summary) if summary is not None else None
    from argfaith.mining.guards import check_pair_budget, count_pairs

    # Before any pair list is built (a 1 MB text as a summary is tens of millions of pairs).
    counts = count_pairs(doc, [summ] if summ is not None else [], units=units.value, names=[str(summary)] if summ is not None else None,
                         summary_pairs=summary_pairs)
    check_pair_budget(counts[1:] if summ is not None else counts[:1], max_pairs)
    from argfaith.mining.segmenters import make_segmenter

    seg: Any = make_segmenter(segmenter, llm_kind="summary" if summ is not None else "speech")
    uses_llm_units = hasattr(seg, "prefetch") and (
        summ is not None or units is UnitsOption.sentences or (units is UnitsOption.auto and doc.spans is None)
    )
    if uses_llm_units and dry_run:
        from argfaith.llm.cache import RequestCache, default_cache_path
        from argfaith.mining.extract import estimate_extraction_cost
        from argfaith.mining.units import segmenter_texts

        texts = [summ.text] if summ is not None else segmenter_texts(doc, policy)
        cache_path = default_cache_path()
        rc = RequestCache(cache_path) if cache_path.exists() else None
        extraction = estimate_extraction_cost(texts, model=seg.model, kind=seg.kind, request_cache=rc)
        seg = "rules"  # plan pairs on sentences: nothing is sent in a dry run
    if summ is not None:
        plan = plan_summary(summ, doc, candidates=candidates, segmenter=seg, policy=policy or summary_policy,
                            cheap_classifier=cheap, seed=seed, pairs=summary_pairs)  # type: ignore[arg-type]
    else:
        plan = plan_debate(
            doc, units=units.value, candidates=candidates, segmenter=seg, policy=policy, cheap_classifier=cheap, seed=seed
        )
    if uses_llm_units and not dry_run:
        st = seg.stats
        dropped_llm = ", ".join(f"{k.removeprefix('dropped_')} {v}" for k, v in sorted(st.items()) if k.startswith("dropped_")) or "none"
        u = seg.runner.usage.snapshot()
        print(
            f"LLM argument extraction ({seg.model}): {st['located']} units located; dropped: {dropped_llm}; "
            f"{st['fallback_texts']} text(s) fell back to sentences (unreadable answer or refusal"
            + (f": {st['refused_texts']} refused, asked again by a rerun" if st.get("refused_texts") else "")
            + f"); {u.requests} request(s) sent, "
            f"{u.cache_hits} cached, {u.input_tokens:,} + {u.output_tokens:,} tokens, "
            + ("cost n/a" if u.cost_usd is None else f"${u.cost_usd:,.4f}"),
            file=sys.stderr,
        )
    if dry_run:
        if model is None and classifier and classifier.lower().startswith("claude:"):
            from argfaith.mining.classifiers.registry import parse_spec

            model = parse_spec(classifier)[1]  # price the model the user named
        _dry_run(plan, classifier, dry_run_format, model, extraction)
        return
    assert out is not None
    clf, spec = make_classifier(classifier)
    from argfaith.mining.guards import check_languages

    for w in check_languages(doc, [summ] if summ is not None else [], clf, strict=strict,
                             names=[str(summary)] if summ is not None else None):
        _warn(f"warning: {w}")
    ckpt = checkpoint if checkpoint is not None else out.with_name(out.stem + ".pairs.jsonl")
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from argfaith.cli._progress import StepProgress

    err = Console(stderr=True)
    # Logs and pipes get plain lines for long runs (the bar only draws on a terminal).
    steps = StepProgress(quiet=quiet or err.is_terminal)
    with steps, Progress(
        TextColumn("[bold]mining[/] {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        disable=quiet or not err.is_terminal and not os.environ.get("ARGFAITH_PROGRESS"),
        transient=False,
    ) as bar:
        task = bar.add_task(plan.name, total=len(plan.pairs))

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)
            steps(f"mining {plan.name}: pairs classified", done, total)

        try:
            result = run_plan(
                plan, clf, tau=tau, checkpoint=ckpt, restart=restart, progress=progress, chunk_size=chunk_size,
                info={"classifier_spec": spec, "checkpoint": str(ckpt)},
            )
        except KeyboardInterrupt:
            # Typer would swallow the interrupt silently; say what is saved and how to resume.
            bar.stop()
            saved = max(0, sum(1 for _ in open(ckpt, encoding="utf-8")) - 1) if ckpt.exists() else 0
            print(
                f"interrupted: {saved:,} of {len(plan.pairs):,} pairs are saved in {ckpt}; "
                "rerun the same command to resume",
                file=sys.stderr,
            )
            raise typer.Exit(130) from None
    from argfaith.qbaf import save_qbaf

    save_qbaf(result.qbaf, out)
    s = result.stats
    q = result.qbaf
    print(
        f"wrote {out}: {q.n} arguments ({len(plan.proposals)} proposals, {len(plan.speech)} speech), "
        f"{len(q.attacks)} attacks, {len(q.supports)} supports; {s.n_pairs:,} pairs classified "
        f"({s.n_resumed:,} resumed from {ckpt.name}) with {s.classifier} in {s.seconds:.1f} s"
        + (f"; {s.n_fallback} fallback labels" if s.n_fallback else ""),
        file=sys.stderr,
    )
    print(density_line(plan.kind, len(q.attacks), len(q.supports), s.n_pairs), file=sys.stderr)
    if s.n_unanswered:
        print(
            f"warning: {s.n_unanswered:,} pair(s) got the fallback label because the model refused or the request "
            "failed; they are not checkpointed or cached: rerun the same command to ask for them again",
            file=sys.stderr,
        )
    _print_llm_usage(clf)
    if not q.is_acyclic() and plan.kind == "debate":  # pragma: no cover - guarded by the builder
        raise ConfigurationError("internal error: a source QBAF came out cyclic")


def _print_llm_usage(clf: Any) -> None:
    """One line of Claude usage (requests, cache hits, refusals, truncations, cost) after mining."""
    if not str(getattr(clf, "name", "")).startswith("claude"):
        return
    u = clf.usage
    x = u.extra or {}
    notes = [f"{int(x[k])} {k}" for k in ("refusals", "truncated") if x.get(k)]
    print(
        f"{clf.name}: {u.calls:,} request(s) sent, {u.cache_hits:,} answered from the request cache, {u.errors} failed"
        + (f", {', '.join(notes)}" if notes else "")
        + ("; cost n/a" if not x.get("cost_known", 1.0) else f"; ${u.cost_usd:,.4f}"),
        file=sys.stderr,
    )
