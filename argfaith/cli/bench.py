"""`argfaith bench ...`: benchmark commands (relation classifiers here; `bench kpa` in bench_kpa.py)."""

from __future__ import annotations

import json
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from argfaith.cli._app import app
from argfaith.cli._options import FOLDS, ITERATIONS, NONNEGATIVE

bench_app = typer.Typer(help="Benchmarks: relation classifiers, key point matching.", no_args_is_help=True)
app.add_typer(bench_app, name="bench")


class OutputFormat(str, Enum):
    table = "table"
    json = "json"


def _parse_mapping(raw: str | None, option: str) -> dict[str, str] | None:
    from argfaith.errors import ConfigurationError

    if raw is None:
        return None
    out: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in raw.split(","))):
        k, eq, v = part.partition("=")
        if not eq or not k.strip():
            raise ConfigurationError(f"{option}: {part!r} is not key=value (example: {option} 'a=b,c=d')")
        out[k.strip()] = v.strip()
    return out


def _columns(raw: str | None) -> Any:
    from dataclasses import fields, replace

    from argfaith.datasets.relations import PairColumns
    from argfaith.errors import ConfigurationError

    mapping = _parse_mapping(raw, "--columns")
    if mapping is None:
        return None
    known = {f.name for f in fields(PairColumns)}
    bad = sorted(set(mapping) - known)
    if bad:
        raise ConfigurationError(f"--columns: unknown field(s) {', '.join(bad)}; known: {', '.join(sorted(known))}")
    return replace(PairColumns(), **mapping)


def _render_tables(results: list[Any], console: Any) -> None:
    from rich.table import Table

    from argfaith.bench.relations import table2_rows

    t2 = Table(title="Relation classification (the paper's Table 2 layout)")
    for col in ("Model", "Prompt", "Accuracy", "F1", "n", "calls", "tokens in/out", "cost $", "time s"):
        t2.add_column(col, justify="left" if col in ("Model", "Prompt") else "right")
    for r, row in zip(results, table2_rows(results), strict=True):
        t2.add_row(row["model"], row["prompt"], f"{row['accuracy']:.3f}", f"{row['f1']:.3f}", str(row["n"]),
                   str(r.usage.calls), f"{r.usage.input_tokens}/{r.usage.output_tokens}", f"{r.usage.cost_usd:.4f}",
                   f"{r.wall_seconds:.2f}")
    console.print(t2)
    for r in results:
        per = Table(title=f"{r.label}: per class ({r.data})")
        for col in ("class", "precision", "recall", "F1", "support", "predicted"):
            per.add_column(col, justify="left" if col == "class" else "right")
        for s in r.report.per_class:
            per.add_row(s.label, f"{s.precision:.3f}", f"{s.recall:.3f}", f"{s.f1:.3f}", str(s.support), str(s.predicted))
        console.print(per)
        cm = Table(title=f"{r.label}: confusion (rows = true, columns = predicted)")
        cm.add_column("true \\ predicted")
        for lab in r.report.labels:
            cm.add_column(lab, justify="right")
        for lab, row in zip(r.report.labels, r.report.confusion, strict=True):
            cm.add_row(lab, *map(str, row))
        console.print(cm)
        if r.by_group:
            g = Table(title=f"{r.label}: by {r.by}")
            for col in ("group", "n", "accuracy", "macro-F1", *(f"F1 {lab}" for lab in r.report.labels)):
                g.add_column(col, justify="left" if col == "group" else "right")
            for name, rep in r.by_group.items():
                g.add_row(name, str(rep.n), f"{rep.accuracy:.3f}", f"{rep.macro_f1:.3f}", *(f"{s.f1:.3f}" for s in rep.per_class))
            console.print(g)
        extra = ", ".join(f"{k}={v:g}" for k, v in r.usage.extra.items() if v)
        console.print(
            f"{r.label}: {r.n} pairs in {r.wall_seconds:.2f} s ({1000 * r.seconds_per_pair:.2f} ms/pair); "
            f"calls {r.usage.calls}, cache hits {r.usage.cache_hits}, tokens in {r.usage.input_tokens} / out "
            f"{r.usage.output_tokens}, estimated cost ${r.usage.cost_usd:.4f}; fallbacks {r.fallbacks}"
            + (f"; {extra}" if extra else "")
            + "".join(f"\n  note: {n}" for n in r.notes),
            highlight=False, markup=False,
        )
        if r.report.undefined:
            console.print(f"  classes never predicted or absent (P/R counted as 0): {', '.join(r.report.undefined)}",
                          highlight=False, markup=False)


def _contexts(raw: str | None, pairs_path: Path) -> Any:
    """The :class:`~argfaith.bench.relations.DebateContexts` for ``--context`` (see its help)."""
    from argfaith.bench.relations import DebateContexts
    from argfaith.datasets.paths import data_dir, resolve_data_path
    from argfaith.errors import ConfigurationError

    if raw is not None and raw.strip().lower() == "none":
        return None
    if raw is not None:
        from argfaith.errors import ArgfaithError

        try:
            p = resolve_data_path(raw)
        except ArgfaithError as e:
            raise ConfigurationError(f"--context: {e}") from None
        if not p.is_dir():
            raise ConfigurationError(f"--context: {p} is not a directory (expected an ep_debates folder)")
        return DebateContexts(p)
    env = data_dir(required=False)
    for cand in (pairs_path.resolve().parent.parent / "ep_debates", *([env / "ep_debates"] if env else [])):
        if cand.is_dir():
            return DebateContexts(cand)
    return None


@bench_app.command("relations")
def bench_relations(
    data: Annotated[Path, typer.Option("--data", help="Labelled pair file: Amelia CSV, or CSV/TSV/JSONL with source,target,label (relative paths are also looked up under $ARGFAITH_DATA).")],
    classifier: Annotated[Optional[list[str]], typer.Option("--classifier", "-c", help="Classifier spec (repeatable): offline, embedding, majority, lexical, claude[:MODEL][?prompt=few], recorded:FILE.")] = None,
    limit: Annotated[Optional[int], typer.Option(callback=ITERATIONS, help="Use only the first N pairs (>= 1).")] = None,
    by: Annotated[Optional[str], typer.Option("--by", help="Break results down by a pair field: corpus, topic or target_kind.")] = None,
    fmt: Annotated[OutputFormat, typer.Option("--format", help="table (rich) or json (stdout).")] = OutputFormat.table,
    out: Annotated[Optional[Path], typer.Option("--out", help="Also write the results as JSON to this file.")] = None,
    cv: Annotated[int, typer.Option("--cv", callback=FOLDS, help="K-fold cross-validation for trainable classifiers (offline, embedding, majority); 0 = classify with the shipped weights.")] = 0,
    group_by: Annotated[str, typer.Option("--group-by", help="CV fold grouping key: source (no source argument in two folds), target, corpus, topic.")] = "source",
    extra_train: Annotated[Optional[Path], typer.Option("--extra-train", help="CV only: extra labelled pairs added to every training fold.")] = None,
    extra_weight: Annotated[float, typer.Option("--extra-weight", callback=NONNEGATIVE, help="CV only: sample weight (>= 0) of --extra-train pairs.")] = 0.5,
    seed: Annotated[int, typer.Option(help="CV fold assignment seed.")] = 0,
    label_map: Annotated[Optional[str], typer.Option("--label-map", help="Raw label mapping, e.g. '0=no relation,1=support,-1=attack'.")] = None,
    columns: Annotated[Optional[str], typer.Option("--columns", help="Column names, e.g. 'source=premise,target=claim,label=rel,corpus=dataset'.")] = None,
    encoding: Annotated[str, typer.Option(help="Text encoding of --data.")] = "utf-8",
    in_sample: Annotated[bool, typer.Option("--in-sample", help="Also score classifiers on pairs their shipped weights were trained on (an in-sample fit, marked IN-SAMPLE; never a quality estimate). Without it they are skipped: use --cv K.")] = False,
    context: Annotated[Optional[str], typer.Option("--context", help="EP debates folder from which each argument's speech context (speech, speaker, position) is recovered by its id <debate>-<intervention>-<k>; default: ep_debates beside the --data folder or under $ARGFAITH_DATA, if present; 'none' disables.")] = None,
) -> None:
    """Score relation classifiers on labelled pairs: accuracy, macro-F1, per-class P/R/F1,
    confusion matrix, per-group breakdown, calls / tokens / estimated cost, wall time.

    Claude runs go through the mining classifier and its request cache, so re-running is free."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from argfaith.bench.relations import cross_validate, run_relation_benchmark, trainer_for
    from argfaith.datasets.paths import resolve_data_path
    from argfaith.datasets.relations import load_relation_pairs
    from argfaith.errors import ConfigurationError
    from argfaith.mining.classifiers.registry import TRAINABLE, make_classifier, parse_spec

    path = resolve_data_path(data)
    pairs = load_relation_pairs(path, columns=_columns(columns), label_map=_parse_mapping(label_map, "--label-map"),
                                encoding=encoding, limit=limit)
    if not pairs:
        raise ConfigurationError(f"{path}: no pairs")
    specs = classifier or ["offline"]
    extra = load_relation_pairs(resolve_data_path(extra_train), encoding=encoding) if extra_train is not None else []
    if extra and not cv:
        raise ConfigurationError("--extra-train is only used with --cv K")
    contexts = _contexts(context, path)
    console = Console(stderr=fmt is OutputFormat.json)
    if not console.is_terminal:
        console = Console(stderr=fmt is OutputFormat.json, width=120)  # files/pipes: keep Table 2 readable
    from argfaith.cli._progress import StepProgress

    results = []
    skipped: list[str] = []
    steps = StepProgress(quiet=Console(stderr=True).is_terminal)  # plain lines in logs
    for spec in specs:
        clf = None
        if not cv:
            clf = make_classifier(spec)
            provenance = getattr(clf, "metadata", {}).get("provenance", "")
            trained_here = f"{path.parent.name}/{path.name}" in provenance
            if trained_here and not in_sample:
                skipped.append(
                    f"{spec}: not scored — its shipped weights were trained on {path.parent.name}/{path.name}, so a score "
                    "there is an in-sample fit, not a quality estimate; use --cv K for an honest estimate (--in-sample "
                    "shows the fit anyway)"
                )
                continue
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=Console(stderr=True), transient=True) as progress:
            if cv:
                name, _, opts = parse_spec(spec)
                if name not in TRAINABLE:
                    raise ConfigurationError(f"--cv: {spec!r} is not trainable (trainable: {', '.join(TRAINABLE)})")
                if opts:
                    raise ConfigurationError(f"--cv: options are not supported for {name!r}")
                task = progress.add_task(f"{name}: {cv}-fold CV", total=cv)

                def tick(d: int, t: int, label: str = f"{name}: {cv}-fold CV folds") -> None:
                    progress.update(task, completed=d, total=t)
                    steps(label, d, t)

                with steps:
                    res = cross_validate(pairs, trainer_for(name), name=name, k=cv, group_by=group_by, seed=seed,
                                         extra_train=extra, extra_weight=extra_weight, data=str(path), by=by,
                                         progress=tick, contexts=contexts)
            else:
                assert clf is not None
                task = progress.add_task(f"{clf.name}", total=len(pairs))

                def tick(d: int, t: int, label: str = f"{clf.name}: pairs") -> None:
                    progress.update(task, completed=d, total=t)
                    steps(label, d, t)

                with steps:
                    res = run_relation_benchmark(pairs, clf, data=str(path), by=by, progress=tick, contexts=contexts)
                if trained_here:  # shipped weights scored on their training pairs, asked for with --in-sample
                    from dataclasses import replace

                    res = replace(res, in_sample=True, notes=(*res.notes, f"IN-SAMPLE: {clf.name}'s weights were trained on "
                                                              f"{path.parent.name}/{path.name}; not a quality estimate (use --cv K)"))
        if contexts is not None:
            from dataclasses import replace

            res = replace(res, notes=(*res.notes, f"debate context from {contexts.root}: found for {contexts.found} speech "
                                                  f"argument lookups, missing for {contexts.missing}"))
            contexts.found = contexts.missing = 0
        from dataclasses import replace

        results.append(replace(res, spec=spec))
    if not results:
        raise ConfigurationError("nothing to score: " + "; ".join(skipped))
    for msg in skipped:
        Console(stderr=True).print(f"warning: {msg}", style="bold yellow", highlight=False, markup=False, soft_wrap=True)
    payload = {"data": str(path), "n": len(pairs), "results": [r.to_dict() for r in results], "skipped": skipped}
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(payload, indent=1), encoding="utf-8")
    if fmt is OutputFormat.json:
        typer.echo(json.dumps(payload, indent=1))
    else:
        _render_tables(results, console)
