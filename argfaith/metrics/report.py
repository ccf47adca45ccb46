"""The evaluation report: pydantic models serialised to JSON and rendered by
:mod:`argfaith.metrics.render`.

One :class:`EvaluationReport` compares one summary QBAF Q* with its source Q at one speech base
score τ. Its JSON keys follow issue 3::

    {"source":  {"relevance", "pro_con_ratio": {id: value|null}, "pro_con_ratio_mean",
                 "strengths": {id: σ}, ... diagnostics},
     "summary": {... the same ...},
     "pairwise": {"d_preferability_consistency", "balance_consistency", "epsilon_accuracy",
                  ["supplementary_precision", "supplementary_recall", "pro_con_consistency",
                   "argument_coverage", "uncovered_salient"]
                  (only when an alignment was given), "per_proposal": {...}, "counts": {...}},
     "proposals": {...}, "settings": {...}, "alignment": {...}|null, "explanations": [...],
     "text_baselines": {...}|null, "warnings": [...]}

Undefined values are ``null`` and counted in ``undefined``. Several summaries and/or several τ
make an :class:`EvaluationSuite` (``{"reports": [...], "sensitivity": [...]}``), whose
``sensitivity`` rows reproduce the layout of the paper's Table 6.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_serializer

__all__ = [
    "REPORT_FORMAT_VERSION",
    "Convergence",
    "ProConCounts",
    "SideReport",
    "ProposalVerdict",
    "Interval",
    "UncertaintyInfo",
    "PBetterRow",
    "MetricCount",
    "PairwiseReport",
    "ProposalsReport",
    "Settings",
    "AlignedPairReport",
    "AlignmentReport",
    "InfluenceReport",
    "SideExplanationReport",
    "ExplanationReport",
    "RougeReport",
    "TextBaselines",
    "EvaluationReport",
    "SensitivityRow",
    "SemanticsSweepRow",
    "EvaluationSuite",
    "load_report",
    "short_name",
    "distinct_names",
]

#: Bumped when the JSON layout changes incompatibly.
REPORT_FORMAT_VERSION = 1

_SUPPLEMENTARY = ("supplementary_precision", "supplementary_recall", "pro_con_consistency")
#: Keys absent from the JSON unless computed (an alignment was given; π_cov unless disabled).
_OPTIONAL = _SUPPLEMENTARY + ("argument_coverage", "uncovered_salient")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Convergence(_Model):
    """Solver diagnostics of one QBAF (PAPER.md §2): did every cyclic component reach the
    tolerance?"""

    converged: bool
    iterations: int
    residual: float
    method: str
    semantics: str = Field("dfquad", description="The gradual semantics of σ (argfaith.qbaf.semantics).")
    cyclic_components: int = 0
    not_converged: list[str] = Field(default_factory=list, description="Arguments in components that did not converge.")


class ProConCounts(_Model):
    """Counts behind π_pcr(x): |pro ∩ X_s|, |con ∩ X_s|, both, |(pro ∪ con) ∩ X_s|."""

    n_pro: int
    n_con: int
    n_both: int
    n_total: int


class SideReport(_Model):
    """Single-framework metrics and diagnostics of Q (``source``) or Q* (``summary``)."""

    name: str | None = None
    path: str | None = Field(None, description="The QBAF file read (for mined documents: the cached QBAF).")
    document: str | None = Field(
        None, description="The document the QBAF was mined from (debate folder or file, summary file), when known."
    )
    topic: str | None = Field(None, description="The debate's title, when the QBAF carries it (mined QBAFs do).")
    n_arguments: int
    n_proposals: int
    n_speech: int
    n_attacks: int
    n_supports: int
    acyclic: bool
    tau: float | None = Field(None, description="Speech base score used (None: as in the file).")
    relevance: float | None = Field(description="π_ar; null when there are no speech arguments.")
    relevant_arguments: int
    irrelevant: list[str] = Field(default_factory=list, description="Speech arguments with no path to a proposal.")
    pro_con_ratio: dict[str, float | None] = Field(description="π_pcr per proposal; null when undefined.")
    pro_con_ratio_mean: float | None = Field(description="Mean π_pcr over proposals with a defined ratio.")
    pro_con_ratio_undefined: list[str] = Field(default_factory=list)
    pro_con_counts: dict[str, ProConCounts] = Field(default_factory=dict)
    pro_con_reading: str = Field("walk", description="How paths of pro/con are read: walk (PAPER.md §3) or simple.")
    pro_con_incomplete: list[str] = Field(default_factory=list, description="Proposals whose simple-path search ran out of budget (lower bounds).")
    strengths: dict[str, float] = Field(description="σ of every proposal (DF-QuAD unless settings.semantics says otherwise).")
    interval: dict[str, Interval] | None = Field(
        None, description="With intervals: relevance (π_ar) and pro_con_ratio_mean over the sampled labellings.")
    accepted: list[str] = Field(default_factory=list, description="Proposals credulously accepted (d-preferred).")
    undefined: dict[str, int] = Field(default_factory=dict, description="How many values are undefined, per metric.")
    convergence: Convergence
    qbaf: dict[str, Any] | None = Field(None, description="The framework in argfaith's QBAF JSON format.")


class Interval(_Model):
    """A metric over K sampled labellings of the uncertain candidate pairs (issue 23): the mean of
    the draws and their central interval (``level``, e.g. 0.9 → the 5% and 95% quantiles)."""

    mean: float | None
    low: float | None
    high: float | None
    draws: int


class UncertaintyInfo(_Model):
    """How the intervals of a report were drawn, and what they cover."""

    draws: int = Field(description="Sampled labellings K (paired: draw k of the source with draw k of each summary).")
    slow_draws: int = Field(description="Draws on which π_dpc, π_ar and π_pcr were computed (per-framework searches).")
    level: float = Field(description="Central interval level (0.9 = the 5% and 95% quantiles of the draws).")
    seed: int
    fixed_at: float = Field(description="Pairs whose top class probability reaches this keep their label in every draw.")
    source_uncertain_pairs: int
    summary_uncertain_pairs: int
    covers: str = Field(description="What the intervals cover and what they do not.")


class ProposalVerdict(_Model):
    """Everything the pairwise metrics say about one shared proposal."""

    sigma_source: float
    sigma_summary: float
    difference: float = Field(description="σ*(x) − σ(x).")
    accepted_source: bool
    accepted_summary: bool
    d_preferability_consistent: bool
    balance_consistent: bool
    epsilon_accurate: bool
    interval: dict[str, Interval] | None = Field(
        None, description="With intervals: sigma_source and sigma_summary over the draws.")
    probability: dict[str, float] | None = Field(
        None, description="With intervals: the share of draws where the verdict holds (balance_consistent, "
                          "epsilon_accurate, side_change).")


class MetricCount(_Model):
    """numerator / denominator of a share (value null when the denominator is 0)."""

    numerator: int
    denominator: int


class PairwiseReport(_Model):
    """π(Q*, Q) metrics. The supplementary keys appear only when an alignment was given."""

    d_preferability_consistency: float | None
    balance_consistency: float | None
    epsilon_accuracy: float | None
    supplementary_precision: float | None = None
    supplementary_recall: float | None = None
    pro_con_consistency: float | None = None
    argument_coverage: float | None = Field(
        default=None, description="π_cov: share of the k most salient source speech arguments that are aligned."
    )
    uncovered_salient: list[str] = Field(default_factory=list, description="Salient source arguments π_cov misses.")
    counts: dict[str, MetricCount] = Field(default_factory=dict)
    interval: dict[str, Interval] | None = Field(
        None, description="With intervals (--draws): each pairwise metric over the sampled labellings "
                          "(d_preferability_consistency, balance_consistency, epsilon_accuracy).")
    per_proposal: dict[str, ProposalVerdict] = Field(default_factory=dict)
    pro_con_inconsistent: list[tuple[str, str]] = Field(default_factory=list, description="Aligned pairs failing π_pcc.")
    baselines: dict[str, dict[str, float | None]] = Field(
        default_factory=dict,
        description="The same metrics for trivial summaries a real one must beat: 'empty_summary' (no speech argument; "
        "argfaith.metrics.baselines), and 'wrong_debate' where a run computed it.",
    )

    @model_serializer(mode="wrap")
    def _drop_uncomputed(self, handler: Any) -> dict[str, Any]:
        # Supplementary metrics that were never set (no alignment) are absent, not null: null
        # means "undefined", which is a different statement.
        d = handler(self)
        for k in _OPTIONAL:
            if k not in self.model_fields_set:
                d.pop(k, None)
        return d

    @property
    def has_supplementary(self) -> bool:
        return all(k in self.model_fields_set for k in _SUPPLEMENTARY)

    @property
    def has_coverage(self) -> bool:
        return "argument_coverage" in self.model_fields_set


class ProposalsReport(_Model):
    """How the proposals of Q and Q* were matched."""

    shared: list[str]
    missing_in_summary: list[str] = Field(default_factory=list)
    extra_in_summary: list[str] = Field(default_factory=list)
    mode: str = Field(default="exact", description="'exact' (the sets had to match) or 'intersection' (--proposals).")
    texts: dict[str, str] = Field(default_factory=dict, description="Proposal texts, when the QBAFs carry them.")


class Settings(_Model):
    """The settings the numbers depend on."""

    tau: float | None = Field(description="Speech base score τ applied to both QBAFs (null: as in the files).")
    epsilon: float
    tolerance: float = Field(description="Absolute tolerance of σ comparisons (around 0.5 and ε).")
    solver_method: str
    solver_max_iter: int
    solver_tol: float
    semantics: str = Field("dfquad", description="Gradual semantics of every σ in the report.")
    proposals: str = Field(description="Proposal policy: 'exact' or 'intersection' (the CLI's --proposals).")
    alignment: str | None = None
    explain_limit: int | None = None
    coverage_k: int | None = Field(default=None, description="k of π_cov's salient set (null: π_cov not computed).")
    coverage_salience: str | None = Field(default=None, description="Salience measure ranking S_k(Q) for π_cov.")


class AlignedPairReport(_Model):
    source: str
    summary: str
    score: float


class AlignmentReport(_Model):
    method: str
    threshold: float | None = None
    n_pairs: int
    n_source: int | None = None
    n_summary: int | None = None
    pairs: list[AlignedPairReport] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)


class InfluenceReport(_Model):
    """One argument bearing on a proposal (see :mod:`argfaith.metrics.explain`)."""

    id: str
    influence: float
    relation: str | None
    pro: bool
    con: bool
    strength: float
    text: str | None = None
    speaker: str | None = None
    aligned: list[str] = Field(default_factory=list)


class SideExplanationReport(_Model):
    sigma: float
    n_arguments: int
    n_attackers: int
    n_supporters: int
    arguments: list[InfluenceReport]


class ExplanationReport(_Model):
    proposal: str
    text: str | None = None
    sigma_source: float
    sigma_summary: float
    difference: float
    source: SideExplanationReport
    summary: SideExplanationReport


class RougeReport(_Model):
    precision: float
    recall: float
    fmeasure: float


class TextBaselines(_Model):
    """Text-level baselines of the summary text against the debate text (PAPER.md §8)."""

    rouge1: RougeReport | None = None
    rouge2: RougeReport | None = None
    rougeL: RougeReport | None = None
    bertscore_precision: float | None = None
    bertscore_recall: float | None = None
    bertscore_f1: float | None = None
    bertscore_model: str | None = None
    nli: float | None = None
    nli_model: str | None = None
    notes: list[str] = Field(default_factory=list)


class EvaluationReport(_Model):
    """One summary QBAF Q* against its source Q at one τ."""

    format_version: int = REPORT_FORMAT_VERSION
    source: SideReport
    summary: SideReport
    pairwise: PairwiseReport
    proposals: ProposalsReport
    settings: Settings
    alignment: AlignmentReport | None = None
    explanations: list[ExplanationReport] = Field(default_factory=list)
    text_baselines: TextBaselines | None = None
    uncertainty: UncertaintyInfo | None = Field(None, description="How the intervals were drawn (--draws > 0).")
    warnings: list[str] = Field(default_factory=list)

    def to_json(self, *, indent: int | None = 1, include_qbafs: bool = True) -> str:
        d = self.to_dict(include_qbafs=include_qbafs)
        return json.dumps(d, ensure_ascii=False, indent=indent)

    def to_dict(self, *, include_qbafs: bool = True) -> dict[str, Any]:
        d = self.model_dump(mode="json")
        _drop_absent_intervals(d)
        if not include_qbafs:
            d["source"].pop("qbaf", None)
            d["summary"].pop("qbaf", None)
        return d

    @property
    def label(self) -> str:
        """A short name for tables: the summary's name or file stem (+ τ when set)."""
        base = self.summary.name or (Path(self.summary.path).stem if self.summary.path else "summary")
        return base if self.settings.tau is None else f"{base} (τ={self.settings.tau:g})"


class SensitivityRow(_Model):
    """One row of the Table-6 layout: one summary at one τ."""

    summary: str
    tau: float | None
    d_preferability_consistency: float | None
    balance_consistency: float | None
    epsilon_accuracy: float | None


class SemanticsSweepRow(_Model):
    """One summary at one τ under one gradual semantics: the σ-based metrics and what moved
    relative to the report's (first) semantics. π_dpc does not depend on σ and is not repeated."""

    summary: str
    semantics: str
    tau: float | None
    balance_consistency: float | None
    epsilon_accuracy: float | None
    source_side_changes: list[str] = Field(
        default_factory=list, description="Proposals whose side of 0.5 in Q differs from the first semantics'."
    )
    summary_side_changes: list[str] = Field(
        default_factory=list, description="Proposals whose side of 0.5 in Q* differs from the first semantics'."
    )
    balance_verdict_changes: list[str] = Field(
        default_factory=list, description="Proposals whose π_bc verdict (agree / disagree) differs from the first semantics'."
    )
    converged: bool = True
    skipped: str | None = Field(None, description="Why this semantics was not evaluated (outside its domain).")


class PBetterRow(_Model):
    """P(summary ``a`` scores higher than ``b`` on ``metric``) over paired draws, at one τ."""

    a: str
    b: str
    tau: float | None
    metric: str
    p_better: float | None
    p_tie: float | None


class EvaluationSuite(_Model):
    """Several evaluations (summaries × τ), with the Table-6 sensitivity rows and, when several
    semantics were asked for, the semantics sweep."""

    format_version: int = REPORT_FORMAT_VERSION
    reports: list[EvaluationReport]
    sensitivity: list[SensitivityRow] = Field(default_factory=list)
    semantics_sweep: list[SemanticsSweepRow] = Field(default_factory=list)
    p_better: list[PBetterRow] = Field(
        default_factory=list, description="With intervals and several summaries: P(one summary beats another) per metric, "
                                          "over paired draws (the same source draw for both).")

    def to_json(self, *, indent: int | None = 1, include_qbafs: bool = True) -> str:
        d = self.model_dump(mode="json")
        if not d.get("semantics_sweep"):
            d.pop("semantics_sweep", None)  # one semantics: the layout of earlier reports
        if not d.get("p_better"):
            d.pop("p_better", None)
        for r in d["reports"]:
            _drop_absent_intervals(r)
        if not include_qbafs:
            for r in d["reports"]:
                r["source"].pop("qbaf", None)
                r["summary"].pop("qbaf", None)
        return json.dumps(d, ensure_ascii=False, indent=indent)


def _drop_absent_intervals(d: dict[str, Any]) -> None:
    """Leave the error-bar keys (issue 23) out of a report's JSON when it has none (no ``--draws``):
    a report without error bars keeps the layout of earlier reports, as ``p_better`` does."""
    if d.get("uncertainty") is None:
        d.pop("uncertainty", None)
    for part in ("source", "summary", "pairwise"):
        if isinstance(d.get(part), dict) and d[part].get("interval") is None:
            d[part].pop("interval", None)
    for v in ((d.get("pairwise") or {}).get("per_proposal") or {}).values():
        for key in ("interval", "probability"):
            if v.get(key) is None:
                v.pop(key, None)


def short_name(name: str | None, path: str | None, default: str, limit: int | None = 28) -> str:
    """A column-sized name: the file stem when the QBAF came from a file, else its (truncated) name.

    Several frameworks need :func:`distinct_names`, which keeps them apart."""
    base = Path(path).stem if path else " ".join((name or default).split())
    return base if limit is None or len(base) <= limit else base[: limit - 1] + "…"


_SEPARATORS = "_-. /:"


def _shorten_middle(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = (limit - 1) * 2 // 3
    return text[:head] + "…" + text[len(text) - (limit - 1 - head):]


def _trim_shared(short: dict[str, str], limit: int, n: int, *, suffix: bool) -> dict[str, str]:
    """Drop part of the prefix (or suffix) all names share, cut at a separator: after the last
    id-like token (one with a digit: a debate id), else as little as makes every name fit."""
    import os.path

    vals = [v[::-1] if suffix else v for v in short.values()]
    pre = os.path.commonprefix(vals)
    options = []
    for cut in sorted(i + 1 for i, c in enumerate(pre) if c in _SEPARATORS):
        t = {k: (v[: len(v) - cut] if suffix else v[cut:]).strip(_SEPARATORS) for k, v in short.items()}
        if not all(t.values()) or len(set(t.values())) < n:
            break
        token = pre[:cut].rstrip(_SEPARATORS)
        token = token[max((i + 1 for i, c in enumerate(token) if c in _SEPARATORS), default=0):]
        options.append((cut, t, any(c.isdigit() for c in token) and not suffix))
    if not options:
        return short
    ids = [o for o in options if o[2]]
    if ids:
        return ids[-1][1]
    fits = [o for o in options if all(len(v) <= limit for v in o[1].values())]
    return (fits[0] if fits else options[-1])[1]


def distinct_names(names: list[str], *, limit: int = 28, drop_prefix: str | None = None) -> list[str]:
    """Short names that still tell ``names`` apart (one per entry, equal names stay equal).

    1. ``drop_prefix`` (e.g. the debate id every summary file of a debate starts with) is dropped.
    2. When names are longer than ``limit``, the prefix they all share is dropped up to its last
       id-like token (cut at a separator: ``_ - . / :`` or a space), else as little of it as makes
       them fit, then likewise a shared suffix: ``CRE-…-013_claude_structured_en`` and
       ``CRE-…-013_claude_structured_org`` become ``claude_structured_en`` and
       ``claude_structured_org`` (not ``en`` and ``org``).
    3. Names longer than ``limit`` are then shortened in the middle (``claude_str…ured_org``),
       keeping both ends, where variants usually differ.
    4. Names that still collide get `` #2``, `` #3`` ... in order.

    >>> distinct_names(["D-1_claude_structured_en", "D-1_gpt_structured_en"], limit=20)
    ['claude_structured_en', 'gpt_structured_en']
    >>> distinct_names(["D-1_claude_en"], drop_prefix="D-1")
    ['claude_en']
    """
    uniq = list(dict.fromkeys(names))
    short = {n: n for n in uniq}
    if drop_prefix:
        rest = {n: n[len(drop_prefix):] for n in uniq if n.startswith(drop_prefix)}
        if len(rest) == len(uniq) and all(r[:1] in tuple(_SEPARATORS) and r.strip(_SEPARATORS) for r in rest.values()) \
                and len({r.strip(_SEPARATORS) for r in rest.values()}) == len(uniq):
            short = {n: r.strip(_SEPARATORS) for n, r in rest.items()}
    if len(uniq) >= 2 and any(len(v) > limit for v in short.values()):
        short = _trim_shared(short, limit, len(uniq), suffix=False)
    if len(uniq) >= 2 and any(len(v) > limit for v in short.values()):
        short = _trim_shared(short, limit, len(uniq), suffix=True)
    out: dict[str, str] = {}
    seen: dict[str, int] = {}
    for n in uniq:
        s = _shorten_middle(short[n], limit)
        k = seen.get(s, 0) + 1
        seen[s] = k
        out[n] = s if k == 1 else f"{s} #{k}"
    return [out[n] for n in names]


def load_report(path: str | Path) -> EvaluationReport | EvaluationSuite:
    """Read a JSON report written by ``argfaith evaluate --format json``."""
    from argfaith.errors import DataFormatError

    from argfaith.textio import read_json

    p = Path(path)
    data = read_json(p, what="report file")
    from pydantic import ValidationError

    try:
        if isinstance(data, dict) and "reports" in data:
            return EvaluationSuite.model_validate(data)
        return EvaluationReport.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        raise DataFormatError(f"{p}: {loc}: {err['msg']}") from None
