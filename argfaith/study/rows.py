"""The study's tables: one row per summary variant (the paper's Table 3 layout, flattened), the
Table-4 view of proposal strengths that moved most, and the Table-6 τ-sensitivity rows.

A row is a flat ``dict`` of JSON scalars (``None`` = undefined or not computed, written as an
empty CSV cell), so the CSV and the JSON table hold the same values. Metric columns use the
paper's names in ASCII: ``pi_ar``, ``mean_pi_pcr``, and for each τ ``pi_dpc@τ``, ``pi_bc@τ``,
``pi_ea@τ``. π_ar and mean π_pcr depend only on the graph (not on τ) and appear once.

Every pairwise metric comes with the value a trivial summary reaches
(:mod:`argfaith.metrics.baselines`): ``empty_pi_*@τ`` for the empty summary (free: no argument,
σ* = 0.5 everywhere), and ``wrong_pi_*`` for a summary of another debate mined against this
one's provisions — filled from ``OUT/selftest/controls/<debate>.json`` when ``argfaith selftest``
ran at the study's primary τ (``wrong_from`` names that debate). ``note`` holds the warnings
about the summary; ``debate_note`` those about the debate's QBAF (the same for every summary of
the debate, so the views show them once per debate).

With error bars (``argfaith study --draws K``, issue 23) every metric column ``m`` (``m@τ``) is
followed by ``m_low`` and ``m_high`` (``m_low@τ``, ``m_high@τ``): the central 90% interval of the
metric over the sampled labellings (:data:`INTERVAL_METRICS`), and ``draws`` holds K; without
them the columns are those of earlier studies.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from argfaith.metrics.report import EvaluationReport, EvaluationSuite, TextBaselines
from argfaith.study.corpus import SummaryFile

__all__ = [
    "ID_COLUMNS",
    "row_columns",
    "summary_row",
    "skipped_row",
    "strength_moves",
    "sensitivity_rows",
    "rows_to_csv",
    "markdown_table",
    "tau_label",
    "MOVE_COLUMNS",
    "SENSITIVITY_COLUMNS",
    "SEMANTICS_COLUMNS",
    "WRONG_COLUMNS",
    "semantics_rows",
    "INTERVAL_METRICS",
    "interval_columns",
]

ID_COLUMNS = ("debate", "variant", "family", "model", "style", "lang", "status", "note")
_SOURCE_COLUMNS = (
    "units", "source_n_proposals", "source_n_speech", "source_n_attacks", "source_n_supports",
    "source_pi_ar", "source_mean_pi_pcr",
)
_SUMMARY_COLUMNS = (
    "summary_n_speech", "summary_n_attacks", "summary_n_supports", "summary_acyclic", "summary_converged",
    "pi_ar", "mean_pi_pcr", "pi_pcr_undefined",
)
_TEXT_COLUMNS = (
    "rouge1_f", "rouge2_f", "rougeL_f", "rouge1_p", "rouge2_p", "rougeL_p", "rouge1_r", "rouge2_r", "rougeL_r",
    "bertscore_p", "bertscore_r", "bertscore_f1", "nli",
)
_TAIL_COLUMNS = ("source_pairs", "summary_pairs", "mining_seconds", "evaluation_seconds", "baselines_seconds", "report")
#: The wrong-debate control of ``argfaith selftest`` at the primary τ (filled when the study's tables are written).
WRONG_COLUMNS = ("wrong_pi_dpc", "wrong_pi_bc", "wrong_pi_ea", "wrong_from")

MOVE_COLUMNS = (
    "debate", "variant", "rank", "proposal", "sigma_source", "sigma_summary", "difference",
    "balance_consistent", "accepted_source", "accepted_summary", "text",
)
SENSITIVITY_COLUMNS = ("debate", "variant", "tau", "pi_dpc", "pi_bc", "pi_ea", "sigma_mean_abs_difference")
SEMANTICS_COLUMNS = (
    "debate", "variant", "tau", "semantics", "pi_bc", "pi_ea", "n_source_side_changes", "n_summary_side_changes",
    "n_bc_verdict_changes", "source_side_changes", "summary_side_changes", "bc_verdict_changes", "converged", "skipped",
)


def tau_label(t: float) -> str:
    """``0.2`` → ``"0.2"`` (the suffix of per-τ columns)."""
    return f"{t:g}"


#: Row columns that get an interval with error bars: (column, part of the report, interval key);
#: per-τ columns are named with their τ (``pi_bc@0.2``).
INTERVAL_METRICS = (
    ("source_pi_ar", "source", "relevance"), ("source_mean_pi_pcr", "source", "pro_con_ratio_mean"),
    ("pi_ar", "summary", "relevance"), ("mean_pi_pcr", "summary", "pro_con_ratio_mean"),
    ("pi_dpc", "pairwise", "d_preferability_consistency"), ("pi_bc", "pairwise", "balance_consistency"),
    ("pi_ea", "pairwise", "epsilon_accuracy"),
)
_PER_TAU = ("pi_dpc", "pi_bc", "pi_ea")


def interval_columns(column: str) -> tuple[str, str]:
    """The columns of ``column``'s interval: ``pi_bc@0.2`` → (``pi_bc_low@0.2``, ``pi_bc_high@0.2``)."""
    name, at, tau = column.partition("@")
    return f"{name}_low{at}{tau}", f"{name}_high{at}{tau}"


def row_columns(taus: Sequence[float], *, intervals: bool = False) -> list[str]:
    """The CSV header for a study evaluated at ``taus`` (``intervals``: with error bars, each
    metric followed by its interval columns and ``draws`` at the end of the metrics)."""
    def with_iv(cols: Sequence[str]) -> list[str]:
        if not intervals:
            return list(cols)
        ivs = {m for m, _, _ in INTERVAL_METRICS}
        return [x for c in cols for x in ((c, *interval_columns(c)) if c.partition("@")[0] in ivs else (c,))]

    per_tau = [f"{pre}{m}@{tau_label(t)}" for t in taus for pre in ("", "empty_") for m in _PER_TAU]
    return [*ID_COLUMNS, "debate_note", *with_iv(_SOURCE_COLUMNS), *with_iv(_SUMMARY_COLUMNS), *with_iv(per_tau),
            *(["draws"] if intervals else []), *WRONG_COLUMNS, *_TEXT_COLUMNS, *_TAIL_COLUMNS]


def _ident(sf: SummaryFile, status: str, note: str | None) -> dict[str, Any]:
    return {
        "debate": sf.debate_id, "variant": sf.variant, "family": sf.family, "model": sf.model, "style": sf.style,
        "lang": sf.lang, "status": status, "note": note,
    }


def skipped_row(sf: SummaryFile, taus: Sequence[float], status: str, note: str) -> dict[str, Any]:
    """A row for a summary that was not evaluated (text-less, orphan, unreadable, failed)."""
    row = {c: None for c in row_columns(taus)}
    row.update(_ident(sf, status, note))
    return row


def _text_cells(tb: TextBaselines | None) -> dict[str, Any]:
    out: dict[str, Any] = {c: None for c in _TEXT_COLUMNS}
    if tb is None:
        return out
    for k in ("rouge1", "rouge2", "rougeL"):
        r = getattr(tb, k)
        if r is not None:
            out[f"{k}_f"], out[f"{k}_p"], out[f"{k}_r"] = r.fmeasure, r.precision, r.recall
    out["bertscore_p"], out["bertscore_r"], out["bertscore_f1"] = tb.bertscore_precision, tb.bertscore_recall, tb.bertscore_f1
    out["nli"] = tb.nli
    return out


def _report_at(suite: EvaluationSuite, tau: float) -> EvaluationReport:
    for r in suite.reports:
        if r.settings.tau is not None and abs(r.settings.tau - tau) < 1e-12:
            return r
    raise KeyError(f"no report at tau={tau}")


def summary_row(
    sf: SummaryFile,
    suite: EvaluationSuite,
    taus: Sequence[float],
    primary_tau: float,
    *,
    units: str | None,
    text_baselines: TextBaselines | None,
    source_pairs: int | None,
    summary_pairs: int | None,
    timings: Mapping[str, float],
    report: str | None,
    note: str | None = None,
    debate_note: str | None = None,
    intervals: bool = False,
) -> dict[str, Any]:
    """The table row of one evaluated summary (see the module docstring for the columns);
    ``intervals``: with the interval columns of the error bars (empty where a report has none)."""
    from argfaith.metrics.baselines import EMPTY_SUMMARY

    main = _report_at(suite, primary_tau)
    src, summ = main.source, main.summary
    row: dict[str, Any] = _ident(sf, "ok", note)
    row["debate_note"] = debate_note
    row.update(
        units=units,
        source_n_proposals=src.n_proposals,
        source_n_speech=src.n_speech,
        source_n_attacks=src.n_attacks,
        source_n_supports=src.n_supports,
        source_pi_ar=src.relevance,
        source_mean_pi_pcr=src.pro_con_ratio_mean,
        summary_n_speech=summ.n_speech,
        summary_n_attacks=summ.n_attacks,
        summary_n_supports=summ.n_supports,
        summary_acyclic=summ.acyclic,
        summary_converged=all(r.summary.convergence.converged for r in suite.reports),
        pi_ar=summ.relevance,
        mean_pi_pcr=summ.pro_con_ratio_mean,
        pi_pcr_undefined=len(summ.pro_con_ratio_undefined),
    )
    for t in taus:
        r = _report_at(suite, t)
        lab = tau_label(t)
        row[f"pi_dpc@{lab}"] = r.pairwise.d_preferability_consistency
        row[f"pi_bc@{lab}"] = r.pairwise.balance_consistency
        row[f"pi_ea@{lab}"] = r.pairwise.epsilon_accuracy
        empty = r.pairwise.baselines.get(EMPTY_SUMMARY, {})
        row[f"empty_pi_dpc@{lab}"] = empty.get("d_preferability_consistency")
        row[f"empty_pi_bc@{lab}"] = empty.get("balance_consistency")
        row[f"empty_pi_ea@{lab}"] = empty.get("epsilon_accuracy")
    if intervals:
        row.update(_interval_cells(suite, taus, primary_tau))
    row.update(_text_cells(text_baselines))
    row.update(
        source_pairs=source_pairs,
        summary_pairs=summary_pairs,
        mining_seconds=round(timings.get("mining", 0.0), 3),
        evaluation_seconds=round(timings.get("evaluation", 0.0), 3),
        baselines_seconds=round(timings.get("baselines", 0.0), 3),
        report=report,
    )
    return {c: row.get(c) for c in row_columns(taus, intervals=intervals)}


def _interval_cells(suite: EvaluationSuite, taus: Sequence[float], primary_tau: float) -> dict[str, Any]:
    """``m_low`` / ``m_high`` of every metric with error bars (π_ar and π_pcr at the primary τ,
    the pairwise metrics at every τ), and ``draws``."""
    out: dict[str, Any] = {}
    main = _report_at(suite, primary_tau)
    out["draws"] = main.uncertainty.draws if main.uncertainty is not None else None
    for col, part, key in INTERVAL_METRICS:
        for t in (taus if col in _PER_TAU else (primary_tau,)):
            r = _report_at(suite, t)
            ivs = getattr(r, part).interval or {}
            iv = ivs.get(key)
            name = f"{col}@{tau_label(t)}" if col in _PER_TAU else col
            lo, hi = interval_columns(name)
            out[lo], out[hi] = (iv.low, iv.high) if iv is not None else (None, None)
    return out


def strength_moves(sf: SummaryFile, report: EvaluationReport, top: int) -> list[dict[str, Any]]:
    """Table-4 view: the ``top`` proposals whose DF-QuAD strength moved most from the source
    (σ) to the summary (σ*), largest |σ* − σ| first (ties: proposal order)."""
    items = list(report.pairwise.per_proposal.items())
    order = sorted(range(len(items)), key=lambda i: (-abs(items[i][1].difference), i))
    out = []
    for rank, i in enumerate(order[:top], start=1):
        pid, v = items[i]
        out.append(
            {
                "debate": sf.debate_id, "variant": sf.variant, "rank": rank, "proposal": pid,
                "sigma_source": v.sigma_source, "sigma_summary": v.sigma_summary, "difference": v.difference,
                "balance_consistent": v.balance_consistent, "accepted_source": v.accepted_source,
                "accepted_summary": v.accepted_summary, "text": report.proposals.texts.get(pid),
            }
        )
    return out


def semantics_rows(sf: SummaryFile, suite: EvaluationSuite) -> list[dict[str, Any]]:
    """Semantics-sweep rows (:mod:`argfaith.metrics.sweep`): π_bc, π_εa and the proposals that
    change side relative to the first semantics, per τ and semantics."""
    out = []
    for r in suite.semantics_sweep:
        out.append(
            {
                "debate": sf.debate_id, "variant": sf.variant, "tau": r.tau, "semantics": r.semantics,
                "pi_bc": r.balance_consistency, "pi_ea": r.epsilon_accuracy,
                "n_source_side_changes": None if r.skipped else len(r.source_side_changes),
                "n_summary_side_changes": None if r.skipped else len(r.summary_side_changes),
                "n_bc_verdict_changes": None if r.skipped else len(r.balance_verdict_changes),
                "source_side_changes": " ".join(r.source_side_changes), "summary_side_changes": " ".join(r.summary_side_changes),
                "bc_verdict_changes": " ".join(r.balance_verdict_changes), "converged": r.converged, "skipped": r.skipped,
            }
        )
    return out


def sensitivity_rows(sf: SummaryFile, suite: EvaluationSuite) -> list[dict[str, Any]]:
    """Table-6 rows: π_dpc, π_bc, π_εa (and the mean |σ* − σ| over proposals) at every τ."""
    out = []
    for r in sorted(suite.reports, key=lambda r: r.settings.tau or 0.0):
        diffs = [abs(v.difference) for v in r.pairwise.per_proposal.values()]
        out.append(
            {
                "debate": sf.debate_id, "variant": sf.variant, "tau": r.settings.tau,
                "pi_dpc": r.pairwise.d_preferability_consistency, "pi_bc": r.pairwise.balance_consistency,
                "pi_ea": r.pairwise.epsilon_accuracy,
                "sigma_mean_abs_difference": sum(diffs) / len(diffs) if diffs else None,
            }
        )
    return out


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def rows_to_csv(rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """CSV text (header + rows); ``None`` is an empty cell, floats keep 6 significant digits."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([_cell(r.get(c)) for c in columns])
    return buf.getvalue()


_MD_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")


def _md_escape(s: str) -> str:
    # Transcript-derived text goes into Markdown tables: neutralise pipes, markup and HTML.
    # Intra-word underscores (claude_en_zero_shot) never emphasise, so they stay readable.
    out = s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("\r", " ")
    for ch in "*`[]<>":
        out = out.replace(ch, "\\" + ch)
    return _MD_UNDERSCORE.sub(r"\\_", out)


def markdown_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], headers: Sequence[str] | None = None, *, digits: int = 2) -> str:
    """A GitHub-flavoured Markdown table; text cells are escaped, numbers rounded."""
    heads = list(headers) if headers is not None else list(columns)

    def fmt(v: Any) -> str:
        if v is None:
            return "n/a"
        if isinstance(v, bool):
            return "yes" if v else "no"
        if isinstance(v, float):
            return f"{v:.{digits}f}"
        if isinstance(v, int):
            return f"{v:,}"
        return _md_escape(str(v))

    lines = ["| " + " | ".join(_md_escape(h) for h in heads) + " |", "|" + "|".join("---" for _ in heads) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(fmt(r.get(c)) for c in columns) + " |")
    return "\n".join(lines) + "\n"
