"""Shared view model of the renderers: which rows and columns a report shows, and number
formatting. Renderers only format what this module selects, so the terminal table, Markdown and
HTML always agree."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Union

from argfaith.metrics.report import (
    EvaluationReport,
    EvaluationSuite,
    Interval,
    PBetterRow,
    SemanticsSweepRow,
    SensitivityRow,
    distinct_names,
    short_name,
)

__all__ = [
    "Reportish",
    "MetricRow",
    "as_reports",
    "metric_rows",
    "strength_rows",
    "sensitivity_table",
    "SweepLine",
    "semantics_sweep_table",
    "semantics_name",
    "fmt",
    "fmt_signed",
    "fmt_interval",
    "interval_note",
    "verdict_probabilities",
    "PBetterLine",
    "p_better_lines",
    "P_BETTER_NOTE",
    "column_labels",
    "short_name",
    "report_label",
    "source_label",
    "summary_names",
    "summary_codes",
    "framework_names",
    "primary_tau",
    "tau_text",
    "disagreeing_proposals",
    "grouped_warnings",
    "UNDEFINED",
]

Reportish = Union[EvaluationReport, EvaluationSuite]

#: How an undefined value (denominator 0) is shown.
UNDEFINED = "n/a"


def as_reports(obj: Reportish) -> list[EvaluationReport]:
    return list(obj.reports) if isinstance(obj, EvaluationSuite) else [obj]


def fmt(v: float | int | None, digits: int = 2) -> str:
    if v is None:
        return UNDEFINED
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return str(v)
    return f"{v:.{digits}f}"


def fmt_signed(v: float | None, digits: int = 3) -> str:
    return UNDEFINED if v is None else f"{v:+.{digits}f}"


def fmt_interval(v: float | int | None, iv: Interval | None, digits: int = 2) -> str:
    """``value [low, high]``: the value of the mined labelling, then the central interval of the
    sampled labellings (issue 23); plain :func:`fmt` without an interval.

    The interval is not centred on the value (metrics are bounded and σ moves by steps), and the
    value of the single most likely labelling may even lie outside it, so it is printed as its
    two ends rather than as ± a half-width.

    >>> fmt_interval(0.5, Interval(mean=0.7, low=0.5, high=1.0, draws=100))
    '0.50 [0.50, 1.00]'
    >>> fmt_interval(0.5, None)
    '0.50'
    """
    if iv is None:
        return fmt(v, digits)
    if iv.low is None or iv.high is None:
        return f"{fmt(v, digits)} [{UNDEFINED}]"  # undefined in every draw
    return f"{fmt(v, digits)} [{iv.low:.{digits}f}, {iv.high:.{digits}f}]"


def _interval(intervals: dict[str, Interval] | None, key: str) -> Interval | None:
    return None if intervals is None else intervals.get(key)


def _level(level: float) -> str:
    return f"{100 * level:g}%"


def interval_note(reports: list[EvaluationReport]) -> str | None:
    """The sentence under a metric table with error bars: what ``[low, high]`` is, how many pairs
    were uncertain, and what the intervals cover (:data:`~argfaith.metrics.evaluate.INTERVAL_COVERS`,
    carried by the report). None when no report has error bars."""
    with_u = [r for r in reports if r.uncertainty is not None]
    if not with_u:
        return None
    u = with_u[0].uncertainty
    assert u is not None
    names = summary_names(reports)
    per: dict[str, int] = {}
    for r in with_u:
        assert r.uncertainty is not None
        per.setdefault(names[_summary_key(r)], r.uncertainty.summary_uncertain_pairs)
    slow = "" if u.slow_draws >= u.draws else f" (π_dpc, π_ar, π_pcr: the first {u.slow_draws})"
    if u.source_uncertain_pairs == 0 and not any(per.values()):
        pairs = ("no candidate pair is uncertain (labels without probabilities, or every top class probability "
                 f"≥ {u.fixed_at:g}): every interval has zero width")
    else:
        pairs = (f"uncertain pairs (top class probability < {u.fixed_at:g}): {u.source_uncertain_pairs} in Q, "
                 + ", ".join(f"{n} in {name}" for name, n in per.items()))
    return f"[low, high]: the central {_level(u.level)} of {u.draws} sampled labellings{slow}; {pairs}. The intervals cover {u.covers}."


def verdict_probabilities(v: object) -> dict[str, float] | None:
    """A :class:`~argfaith.metrics.report.ProposalVerdict`'s verdict probabilities over the draws
    (``balance_consistent``, ``epsilon_accurate``, ``side_change``), None without error bars."""
    return getattr(v, "probability", None)


@dataclass(frozen=True)
class PBetterLine:
    """Two summaries compared on one metric at one τ over paired draws: P(A beats B), P(equal),
    P(B beats A)."""

    tau: float | None
    a: str
    b: str
    metric: str  # the report's key (balance_consistency, ...)
    symbol: str
    p_a: float | None
    p_tie: float | None
    p_b: float | None


#: What a P(better) table says (shown under it).
P_BETTER_NOTE = ("P(A better): the share of paired draws (the same source labelling for both summaries) in which A's value "
                 "is higher than B's; equal: the share with the same value.")

_PAIRWISE_SYMBOLS = (("balance_consistency", "π_bc"), ("epsilon_accuracy", "π_εa"), ("d_preferability_consistency", "π_dpc"))


def p_better_lines(rows: list[PBetterRow]) -> list[PBetterLine]:
    """Each unordered pair of summaries once per τ and metric (π_bc, π_εa, π_dpc), in the order
    of the rows; P(B better) is read from the reverse row."""
    by = {(r.tau, r.a, r.b, r.metric): r for r in rows}
    seen: set[tuple[float | None, frozenset[str]]] = set()
    pairs = []
    for r in rows:
        k = (r.tau, frozenset((r.a, r.b)))
        if k not in seen:
            seen.add(k)
            pairs.append((r.tau, r.a, r.b))
    out = []
    for tau, a, b in pairs:
        for metric, sym in _PAIRWISE_SYMBOLS:
            ab, ba = by.get((tau, a, b, metric)), by.get((tau, b, a, metric))
            if ab is None:
                continue
            out.append(PBetterLine(tau, a, b, metric, sym, ab.p_better, ab.p_tie, ba.p_better if ba is not None else None))
    return out


def _summary_key(r: EvaluationReport) -> tuple[str, str]:
    return (r.summary.path or "", r.summary.name or "")


def summary_names(reports: list[EvaluationReport]) -> dict[tuple[str, str], str]:
    """A short name per distinct summary that tells it apart from the others in ``reports``
    (:func:`~argfaith.metrics.report.distinct_names`: shared prefixes such as the debate id go)."""
    keys = list(dict.fromkeys(_summary_key(r) for r in reports))
    full = [short_name(n or None, p or None, f"summary {i + 1}", limit=None) for i, (p, n) in enumerate(keys)]
    src = reports[0].source.name if reports else None
    return dict(zip(keys, distinct_names(full, drop_prefix=src)))


def summary_codes(reports: list[EvaluationReport]) -> dict[tuple[str, str], str]:
    """``Q*1``, ``Q*2``, ... per distinct summary, in order: compact headers for narrow tables."""
    keys = list(dict.fromkeys(_summary_key(r) for r in reports))
    return {k: f"Q*{i + 1}" if len(keys) > 1 else "Q*" for i, k in enumerate(keys)}


def _tau_suffix(r: EvaluationReport, sep: str = " ") -> str:
    return "" if r.settings.tau is None else f"{sep}τ={r.settings.tau:g}"


def report_label(r: EvaluationReport, reports: list[EvaluationReport] | None = None) -> str:
    """The summary's name (distinct among ``reports``), with τ when one was set."""
    return summary_names(reports or [r])[_summary_key(r)] + _tau_suffix(r)


def source_label(reports: list[EvaluationReport]) -> str:
    return "Q " + short_name(reports[0].source.name, reports[0].source.path, "source")


def column_labels(reports: list[EvaluationReport], *, compact: bool = False) -> list[str]:
    """Column headers: the source (Q), then each summary (Q*, with τ when set).

    ``compact``: ``Q``, ``Q*1``, ``Q*2`` ... with τ on a second line — for terminals too narrow
    for names; :func:`framework_names` is the key."""
    if compact:
        codes = summary_codes(reports)
        return ["Q"] + [codes[_summary_key(r)] + _tau_suffix(r, "\n") for r in reports]
    return [source_label(reports)] + [f"Q* {report_label(r, reports)}" for r in reports]


def framework_names(reports: list[EvaluationReport], *, compact: bool = False) -> list[tuple[str, str]]:
    """(label, full description) of the source and each distinct summary, for a key under the
    tables; ``compact`` labels are the codes of ``column_labels(..., compact=True)``."""
    r0 = reports[0]
    out = [("Q" if compact else source_label(reports), ", ".join(x for x in (r0.source.path, r0.source.name) if x) or "(unnamed)")]
    names, codes = summary_names(reports), summary_codes(reports)
    seen: set[tuple[str, str]] = set()
    for r in reports:
        k = _summary_key(r)
        if k in seen:
            continue
        seen.add(k)
        desc = ", ".join(x for x in (r.summary.path, r.summary.name) if x) or "(unnamed)"
        out.append((codes[k] if compact else f"Q* {names[k]}", (f"{names[k]} — " if compact else "") + desc))
    return out


def tau_text(reports: list[EvaluationReport]) -> str:
    """The evaluated speech base score(s) τ for a settings line, e.g. ``0.15, 0.2, 0.25``."""
    taus = list(dict.fromkeys(r.settings.tau for r in reports))
    return ", ".join("as in the files" if t is None else f"{t:g}" for t in taus)


def primary_tau(reports: list[EvaluationReport]) -> float | None:
    """The τ whose reports get explanations in text renderings: the paper's 0.2 when it was
    evaluated, else the first τ."""
    taus = list(dict.fromkeys(r.settings.tau for r in reports))
    return 0.2 if 0.2 in taus else taus[0]


@dataclass(frozen=True)
class MetricRow:
    label: str
    symbol: str
    source: str  # formatted source value ("—" for pairwise metrics)
    values: tuple[str, ...]  # one per report
    note: str = ""
    #: Per report: words when the value does not beat the empty summary's ("" otherwise).
    flags: tuple[str, ...] = ()
    #: A row of baseline values (the empty summary's), not of the summaries themselves.
    baseline: bool = False


def _row(label: str, symbol: str, reports: list[EvaluationReport], get: Callable[[EvaluationReport], object], src: object = "—", digits: int = 2, note: str = "",
         interval: Callable[[EvaluationReport], Interval | None] | None = None, src_interval: Interval | None = None) -> MetricRow:
    """One metric row; with ``interval`` (error bars, issue 23) each value is ``value [low, high]``."""
    s = src if isinstance(src, str) else fmt_interval(src, src_interval, digits)  # type: ignore[arg-type]
    if interval is None:
        return MetricRow(label, symbol, s, tuple(fmt(get(r), digits) for r in reports), note)  # type: ignore[arg-type]
    return MetricRow(label, symbol, s, tuple(fmt_interval(get(r), interval(r), digits) for r in reports), note)  # type: ignore[arg-type]


def _with_baseline(rows: list[MetricRow], metric: str, reports: list[EvaluationReport]) -> list[MetricRow]:
    """``rows``' last (pairwise) row flagged where a summary does not beat the empty summary,
    followed by a row of the empty summary's values (:mod:`argfaith.metrics.baselines`)."""
    from argfaith.metrics.baselines import EMPTY_SUMMARY, not_better_words

    def baseline_flag(r: EvaluationReport, metric: str) -> str:
        base = r.pairwise.baselines.get(EMPTY_SUMMARY, {})
        return not_better_words(getattr(r.pairwise, metric, None), base.get(metric)) if metric in base else ""

    if not any(metric in r.pairwise.baselines.get(EMPTY_SUMMARY, {}) for r in reports):
        return rows
    last = rows[-1]
    rows[-1] = MetricRow(last.label, last.symbol, last.source, last.values, last.note,
                         flags=tuple(baseline_flag(r, metric) for r in reports))
    rows.append(_row("the empty summary", "", reports, lambda r: r.pairwise.baselines.get(EMPTY_SUMMARY, {}).get(metric)))
    rows[-1] = MetricRow(rows[-1].label, rows[-1].symbol, rows[-1].source, rows[-1].values, baseline=True)
    return rows


def metric_rows(reports: list[EvaluationReport], *, baselines: bool = True) -> list[MetricRow]:
    """The paper's Table 3 rows (plus supplementary metrics and text baselines when present);
    with ``baselines``, each pairwise metric is followed by the empty summary's value and the
    values that do not beat it are flagged (:attr:`MetricRow.flags`)."""
    r0 = reports[0]

    def pw(rows: list[MetricRow], metric: str) -> list[MetricRow]:
        return _with_baseline(rows, metric, reports) if baselines else rows

    def side_iv(key: str) -> Callable[[EvaluationReport], Interval | None]:
        return lambda r: _interval(r.summary.interval, key)

    def pair_iv(key: str) -> Callable[[EvaluationReport], Interval | None]:
        return lambda r: _interval(r.pairwise.interval, key)

    rows = [
        _row("speech arguments", "|X_s|", reports, lambda r: r.summary.n_speech, r0.source.n_speech),
        _row("argument relevance", "π_ar", reports, lambda r: r.summary.relevance, r0.source.relevance,
             interval=side_iv("relevance"), src_interval=_interval(r0.source.interval, "relevance")),
        _row("mean pro-con ratio", "π_pcr", reports, lambda r: r.summary.pro_con_ratio_mean, r0.source.pro_con_ratio_mean,
             interval=side_iv("pro_con_ratio_mean"), src_interval=_interval(r0.source.interval, "pro_con_ratio_mean"),
             note="paths read as " + ("simple paths" if r0.source.pro_con_reading == "simple" else "walks")
             + (" (budget ran out: lower bounds for " + ", ".join(sorted({p for r in reports for p in (*r.source.pro_con_incomplete, *r.summary.pro_con_incomplete)}))[:200] + ")"
                if any(r.source.pro_con_incomplete or r.summary.pro_con_incomplete for r in reports) else "")),
        _row("undefined pro-con ratios", "#", reports, lambda r: len(r.summary.pro_con_ratio_undefined), len(r0.source.pro_con_ratio_undefined)),
    ]
    rows = pw([*rows, _row("d-preferability consistency", "π_dpc", reports, lambda r: r.pairwise.d_preferability_consistency,
                            note="same credulous d-preferred acceptance", interval=pair_iv("d_preferability_consistency"))],
              "d_preferability_consistency")
    rows = pw([*rows, _row("balance consistency", "π_bc", reports, lambda r: r.pairwise.balance_consistency,
                           interval=pair_iv("balance_consistency"))], "balance_consistency")
    rows = pw([*rows, _row("ε-accuracy", "π_εa", reports, lambda r: r.pairwise.epsilon_accuracy, note=f"ε = {r0.settings.epsilon:g}",
                           interval=pair_iv("epsilon_accuracy"))],
              "epsilon_accuracy")
    if any(r.pairwise.has_supplementary for r in reports):
        rows = pw([*rows, _row("supplementary precision", "π_sap", reports, lambda r: r.pairwise.supplementary_precision if r.pairwise.has_supplementary else None)], "supplementary_precision")
        rows = pw([*rows, _row("supplementary recall", "π_sar", reports, lambda r: r.pairwise.supplementary_recall if r.pairwise.has_supplementary else None)], "supplementary_recall")
        rows = pw([*rows, _row("pro-con consistency", "π_pcc", reports, lambda r: r.pairwise.pro_con_consistency if r.pairwise.has_supplementary else None)], "pro_con_consistency")
    if any(r.pairwise.has_coverage for r in reports):
        st = r0.settings
        note = f"top {st.coverage_k} by {st.coverage_salience}" if st.coverage_k is not None else ""
        rows = pw([*rows, _row("argument coverage", "π_cov", reports, lambda r: r.pairwise.argument_coverage if r.pairwise.has_coverage else None, note=note)], "argument_coverage")
    tbs = [r.text_baselines for r in reports]
    if any(t is not None for t in tbs):
        def tb(attr: str) -> Callable[[EvaluationReport], object]:
            def get(r: EvaluationReport) -> object:
                t = r.text_baselines
                if t is None:
                    return None
                v = getattr(t, attr)
                return v.fmeasure if v is not None and hasattr(v, "fmeasure") else v
            return get

        for attr, label, sym in (
            ("rouge1", "ROUGE-1 F", "R-1"), ("rouge2", "ROUGE-2 F", "R-2"), ("rougeL", "ROUGE-L F", "R-L"),
            ("bertscore_f1", "BERTScore F1", "BS"), ("nli", "NLI entailment", "NLI"),
        ):
            if any(tb(attr)(r) is not None for r in reports):
                rows.append(_row(label, sym, reports, tb(attr)))
    return rows


def strength_rows(reports: list[EvaluationReport], *, compact: bool = False) -> tuple[list[str], list[tuple[str, str, list[str]]]]:
    """Table-4 layout: per proposal, σ in Q then σ* in each summary.

    Returns (column labels, rows of (proposal id, σ in Q, [σ* per shown report])). σ depends on
    the speech base score, so when several τ were evaluated only the reports at the primary τ are
    shown (source and summaries then share one τ; the Table-6 view covers the others) and the
    source column is labelled with that τ.
    """
    shown = reports
    if len({r.settings.tau for r in reports}) > 1:
        t = primary_tau(reports)
        shown = [r for r in reports if r.settings.tau == t]
    r0 = shown[0]
    labels = column_labels(shown, compact=compact)
    if not compact:  # names distinct among all reports, not only the shown ones
        labels = [labels[0]] + [f"Q* {report_label(r, reports)}" for r in shown]
    else:
        codes = summary_codes(reports)
        labels = [labels[0]] + [codes[_summary_key(r)] + _tau_suffix(r, "\n") for r in shown]
    if len(shown) < len(reports) and r0.settings.tau is not None:
        labels[0] = f"{labels[0]}{chr(10) if compact else ' '}τ={r0.settings.tau:g}"
    rows = []
    for p in r0.source.strengths:
        # With error bars, σ and σ* come with their intervals over the draws (issue 23).
        src_iv = next((x for x in (_interval(_verdict_interval(r, p), "sigma_source") for r in shown) if x is not None), None)
        rows.append((p, fmt_interval(r0.source.strengths.get(p), src_iv),
                     [fmt_interval(r.summary.strengths.get(p), _interval(_verdict_interval(r, p), "sigma_summary"))
                      if p in r.summary.strengths else "—" for r in shown]))
    return labels, rows


def _verdict_interval(r: EvaluationReport, p: str) -> dict[str, Interval] | None:
    v = r.pairwise.per_proposal.get(p)
    return None if v is None else v.interval


def sensitivity_table(rows: list[SensitivityRow]) -> tuple[list[float | None], list[tuple[str, dict[float | None, SensitivityRow]]]]:
    """Table-6 layout: one line per summary, (π_bc, π_εa) per τ."""
    taus: list[float | None] = list(dict.fromkeys(r.tau for r in rows))
    by_summary: dict[str, dict[float | None, SensitivityRow]] = {}
    for r in rows:
        by_summary.setdefault(r.summary, {})[r.tau] = r
    return taus, list(by_summary.items())


def semantics_name(r: EvaluationReport) -> str:
    """The title of the report's gradual semantics ("DF-QuAD", "Quadratic energy", or a spec)."""
    from argfaith.qbaf.semantics import NAMED

    s = NAMED.get(r.settings.semantics)
    return s.title if s is not None else r.settings.semantics


@dataclass(frozen=True)
class SweepLine:
    """One (summary, semantics) line of the semantics sweep: (π_bc, π_εa) per τ, and at the
    primary τ the proposals that change side (source / summary) or π_bc verdict vs the first
    semantics, or why the semantics was skipped."""

    summary: str
    semantics: str
    by_tau: dict[float | None, SemanticsSweepRow]
    changes: str
    skipped: str | None


def semantics_sweep_table(rows: list[SemanticsSweepRow], tau0: float | None) -> tuple[list[float | None], list[SweepLine]]:
    """The sweep as lines for the renderers (taus in order of appearance)."""
    taus: list[float | None] = list(dict.fromkeys(r.tau for r in rows))
    grouped: dict[tuple[str, str], dict[float | None, SemanticsSweepRow]] = {}
    for r in rows:
        grouped.setdefault((r.summary, r.semantics), {})[r.tau] = r
    lines = []
    for (summ, sem), by_tau in grouped.items():
        r0 = by_tau.get(tau0) or next(iter(by_tau.values()))
        if r0.skipped:
            lines.append(SweepLine(summ, sem, by_tau, "—", r0.skipped))
            continue
        parts = [f"{len(r0.source_side_changes)} / {len(r0.summary_side_changes)}"]
        if r0.balance_verdict_changes:
            parts.append("π_bc verdict: " + ", ".join(r0.balance_verdict_changes))
        lines.append(SweepLine(summ, sem, by_tau, "; ".join(parts), None))
    return taus, lines


def grouped_warnings(reports: list[EvaluationReport]) -> tuple[list[str], list[tuple[EvaluationReport, list[str]]]]:
    """(warnings about the debate, each once; per report, its other warnings): a debate-level
    warning (:func:`argfaith.metrics.degeneracy.is_debate_warning`) is the same for every summary
    and is shown once, not once per summary."""
    from argfaith.metrics.degeneracy import is_debate_warning

    debate: list[str] = []
    per: list[tuple[EvaluationReport, list[str]]] = []
    for r in reports:
        own = []
        for w in r.warnings:
            if is_debate_warning(w):
                if w not in debate:
                    debate.append(w)
            else:
                own.append(w)
        if own:
            per.append((r, own))
    return debate, per


def disagreeing_proposals(r: EvaluationReport) -> list[str]:
    """Proposals on which the summary fails some pairwise metric, largest |σ* − σ| first."""
    bad = [p for p, v in r.pairwise.per_proposal.items() if not (v.balance_consistent and v.epsilon_accurate and v.d_preferability_consistent)]
    return sorted(bad, key=lambda p: -abs(r.pairwise.per_proposal[p].difference))
