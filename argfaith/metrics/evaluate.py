"""Orchestration: source QBAF Q + summary QBAF(s) Q* → :class:`EvaluationReport` / suite.

:func:`evaluate` computes everything for one pair at one τ; :func:`evaluate_many` evaluates
several summaries at several speech base scores τ (the paper's Table 6 sweep), computing each
QBAF's semantics once per τ and each alignment once per summary (alignments are text-level and
do not depend on τ).

This module takes QBAFs, never text: turning debate and summary documents into QBAFs is
:mod:`argfaith.mining`'s job, wired in by the CLI.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from argfaith.errors import ConfigurationError
from argfaith.metrics.alignment import Aligner, Alignment, align_qbafs
from argfaith.metrics.baselines import EMPTY_SUMMARY, empty_summary_values
from argfaith.metrics.explain import InfluenceTable, ProposalExplanation, explain_proposals, removal_influence_table
from argfaith.metrics.faithfulness import (
    DEFAULT_EPSILON,
    DEFAULT_TOLERANCE,
    argument_relevance,
    balance_side,
    mean_pro_con_ratio,
)
from argfaith.metrics.proposals import OnMismatch, ProposalMatch, harmonise_proposal_ids, match_proposals
from argfaith.metrics.report import (
    AlignedPairReport,
    AlignmentReport,
    Convergence,
    EvaluationReport,
    EvaluationSuite,
    ExplanationReport,
    InfluenceReport,
    Interval,
    MetricCount,
    PBetterRow,
    PairwiseReport,
    ProConCounts,
    ProposalsReport,
    ProposalVerdict,
    SemanticsSweepRow,
    SensitivityRow,
    Settings,
    SideExplanationReport,
    SideReport,
    TextBaselines,
    UncertaintyInfo,
    distinct_names,
    short_name,
)
from argfaith.metrics.degeneracy import degeneracy_warnings
from argfaith.metrics.coverage import SALIENCE_MEASURES, salience_scores, salient_arguments
from argfaith.metrics.supplementary import pro_con_consistency, supplementary_precision, supplementary_recall
from argfaith.metrics.sweep import as_semantics_list, semantics_sweep_rows
from argfaith.qbaf import QBAF, NotConvergedError, credulous_acceptance, pro_con_sets, qbaf_to_dict
from argfaith.qbaf.gradual import gradual_strengths
from argfaith.qbaf.semantics import GradualSemantics, get_semantics
from argfaith.qbaf.simple_paths import DEFAULT_PATH_BUDGET, simple_pro_con_sets

if TYPE_CHECKING:
    from argfaith.metrics.settings import MetricSettings

#: ``status(step, done, total)``: what a long evaluation is doing (``total`` 0 when unknown); the
#: CLI shows it on stderr.
Status = Callable[[str, int, int], None]

__all__ = ["DEFAULT_COVERAGE_K", "Status", "SideAnalysis", "analyse_side", "evaluate", "evaluate_many", "evaluate_with",
           "parse_semantics", "parse_taus"]

#: Size of the salient set S_k(Q) of π_cov in reports (the 10 strongest source speech arguments).
DEFAULT_COVERAGE_K = 10


@dataclass(frozen=True)
class SideAnalysis:
    """The semantics of one QBAF that every metric reads: σ, pro/con sets, acceptance."""

    qbaf: QBAF
    strengths: Any  # StrengthResult
    procon: dict[str, Any]  # proposal -> ProCon
    accepted: frozenset[str]
    report: SideReport
    # Computed on first use and shared by every comparison with this side (the source's
    # influence table serves every summary).
    cache: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def influence_table(
        self, method: str, max_iter: int, tol: float, status: Status | None = None, role: str = "",
        semantics: str | GradualSemantics = "dfquad",
    ) -> InfluenceTable:
        """Removal influences on every proposal of this side (:mod:`argfaith.metrics.explain`),
        measured in ``semantics`` (the one this side's σ was computed in)."""
        sem = get_semantics(semantics)
        key = f"influence:{sem.name}:{sem.spec}"
        if key not in self.cache:
            cb = None
            if status is not None:
                def cb(done: int, total: int) -> None:
                    status(f"explanations: removal influences in the {role} QBAF", done, total)
            self.cache[key] = removal_influence_table(
                self.qbaf, strengths=self.strengths, method=method, max_iter=max_iter, tol=tol, progress=cb, semantics=sem
            )
        return self.cache[key]


def _check_unit(name: str, v: float | None) -> None:
    if v is not None and not (isinstance(v, (int, float)) and math.isfinite(v) and 0.0 <= v <= 1.0):
        raise ConfigurationError(f"{name} must be in [0, 1], got {v!r}")


def parse_taus(text: str) -> list[float]:
    """Parse ``"0.15,0.2,0.25"`` into floats in [0, 1] (the CLI's ``--tau``)."""
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            v = float(part)
        except ValueError:
            raise ConfigurationError(f"--tau: {part!r} is not a number (expected e.g. 0.2 or 0.15,0.2,0.25)") from None
        if not (math.isfinite(v) and 0.0 <= v <= 1.0):
            raise ConfigurationError(f"--tau: {v!r} is not in [0, 1]")
        out.append(v)
    if not out:
        raise ConfigurationError("--tau: no value given")
    return list(dict.fromkeys(out))


def parse_semantics(text: str, *, option: str = "--semantics") -> list[Any]:
    """Parse ``"dfquad,quadratic-energy"`` (or ``"all"``) into gradual semantics (the CLI's
    ``--semantics``); an unknown name is a :class:`~argfaith.errors.ConfigurationError` naming it."""
    from argfaith.errors import ConfigurationError
    from argfaith.qbaf.semantics import NAMED, get_semantics

    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise ConfigurationError(f"{option}: no semantics given (e.g. dfquad or dfquad,quadratic-energy or all)")
    if [n.lower() for n in names] == ["all"]:
        return list(NAMED.values())
    out = []
    for n in names:
        try:
            out.append(get_semantics(n))
        except ValueError as e:
            raise ConfigurationError(f"{option}: {e}") from None
    return list({s.name: s for s in out}.values())


def analyse_side(
    qbaf: QBAF,
    *,
    tau: float | None = None,
    method: str = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
    path: str | None = None,
    include_qbaf: bool = True,
    pro_con_reading: str = "walk",
    path_budget: int = DEFAULT_PATH_BUDGET,
    semantics: str | GradualSemantics = "dfquad",
) -> SideAnalysis:
    """σ (under ``semantics``, default DF-QuAD), pro/con sets of every proposal, credulous
    acceptance and the single-QBAF metrics.

    ``pro_con_reading``: ``"walk"`` (PAPER.md §3, the default) or ``"simple"`` (simple paths,
    :mod:`argfaith.qbaf.simple_paths`, exact within ``path_budget`` search steps per proposal;
    proposals where the budget ran out are listed in ``pro_con_incomplete``).
    """
    if pro_con_reading not in ("walk", "simple"):
        raise ValueError(f"pro_con_reading must be 'walk' or 'simple', got {pro_con_reading!r}")
    q = qbaf.with_speech_base_score(tau) if tau is not None else qbaf
    s = gradual_strengths(q, semantics, method=method, max_iter=max_iter, tol=tol)
    props = q.proposals
    incomplete: list[str] = []
    if pro_con_reading == "simple":
        spcs = simple_pro_con_sets(q, props, budget=path_budget)
        pcs = spcs  # type: ignore[assignment]
        incomplete = [p for p, r in spcs.items() if not r.complete]
    else:
        pcs = pro_con_sets(q, props)
    acc = credulous_acceptance(q, props).accepted
    rel = argument_relevance(q)
    m = mean_pro_con_ratio(q, props, procon=pcs)
    doc = q.info.get("document") if isinstance(q.info, Mapping) else None
    rep = SideReport(
        name=q.name,
        path=path,
        document=str(doc) if doc else None,
        topic=str(q.info["topic"]) if isinstance(q.info, Mapping) and q.info.get("topic") else None,
        n_arguments=q.n,
        n_proposals=len(props),
        n_speech=len(q.speech_arguments),
        n_attacks=len(q.attack_array),
        n_supports=len(q.support_array),
        acyclic=q.is_acyclic(),
        tau=tau,
        relevance=rel.value,
        relevant_arguments=rel.relevant,
        irrelevant=list(rel.irrelevant),
        pro_con_ratio={p: r.value for p, r in m.ratios.items()},
        pro_con_ratio_mean=m.value,
        pro_con_ratio_undefined=list(m.undefined),
        pro_con_counts={p: ProConCounts(n_pro=r.n_pro, n_con=r.n_con, n_both=r.n_both, n_total=r.n_total) for p, r in m.ratios.items()},
        pro_con_reading=pro_con_reading,
        pro_con_incomplete=incomplete,
        strengths={p: s[p] for p in props},
        accepted=[p for p in props if p in acc],
        undefined={
            "relevance": int(rel.value is None),
            "pro_con_ratio": len(m.undefined),
            "pro_con_ratio_mean": int(m.value is None),
        },
        convergence=Convergence(
            converged=s.converged,
            iterations=s.iterations,
            residual=float(s.residual),
            method=s.method,
            semantics=s.semantics,
            cyclic_components=getattr(s, "cyclic_components", 0),
            not_converged=list(getattr(s, "not_converged", ())),
        ),
        qbaf=qbaf_to_dict(q) if include_qbaf else None,
    )
    return SideAnalysis(q, s, pcs, acc, rep)


def _share(agree: list[bool]) -> float | None:
    return sum(agree) / len(agree) if agree else None


def _explanation_report(e: ProposalExplanation) -> ExplanationReport:
    def side(s: Any) -> SideExplanationReport:
        return SideExplanationReport(
            sigma=s.sigma,
            n_arguments=s.n_arguments,
            n_attackers=s.n_attackers,
            n_supporters=s.n_supporters,
            arguments=[
                InfluenceReport(
                    id=a.id, influence=a.influence, relation=a.relation, pro=a.pro, con=a.con,
                    strength=a.strength, text=a.text, speaker=a.speaker, aligned=list(a.aligned),
                )
                for a in s.arguments
            ],
        )

    return ExplanationReport(
        proposal=e.proposal, text=e.text, sigma_source=e.sigma_source, sigma_summary=e.sigma_summary,
        difference=e.difference, source=side(e.source), summary=side(e.summary),
    )


def _alignment_report(al: Alignment) -> AlignmentReport:
    return AlignmentReport(
        method=al.method,
        threshold=al.threshold,
        n_pairs=len(al.pairs),
        n_source=al.n_source,
        n_summary=al.n_summary,
        pairs=[AlignedPairReport(source=p.source_id, summary=p.summary_id, score=p.score) for p in al.pairs],
        details={k: v for k, v in al.details.items()},
    )


def _title(name: str) -> str:
    from argfaith.qbaf.semantics import NAMED

    s = NAMED.get(name)
    return s.title if s is not None else name


def _convergence_warning(role: str, side: SideAnalysis) -> str | None:
    c = side.report.convergence
    if c.converged:
        return None
    nm = f" {side.qbaf.name!r}" if side.qbaf.name else ""
    ids = ", ".join(repr(i) for i in c.not_converged[:8]) + (", ..." if len(c.not_converged) > 8 else "")
    where = f" (arguments {ids})" if ids else ""
    title = _title(c.semantics)
    return (
        f"{role} QBAF{nm}: {title} ({c.method}) did not converge on a cyclic component{where}: residual "
        f"{c.residual:.3g} after {c.iterations} iterations; σ-based metrics (π_bc, π_εa) use the last iterate "
        "(try --solver rk4)"
    )


def _compare(
    src: SideAnalysis,
    summ: SideAnalysis,
    match: ProposalMatch,
    *,
    tau: float | None,
    epsilon: float,
    tolerance: float,
    method: str,
    max_iter: int,
    tol: float,
    alignment: Alignment | None,
    explain: bool,
    explain_limit: int | None,
    text_baselines: TextBaselines | None,
    coverage_k: int | None = DEFAULT_COVERAGE_K,
    coverage_salience: str = "strength",
    status: Status | None = None,
    semantics: GradualSemantics | None = None,
) -> EvaluationReport:
    sem = semantics or get_semantics("dfquad")
    ps = match.shared
    verdicts: dict[str, ProposalVerdict] = {}
    for p in ps:
        a, b = src.strengths[p], summ.strengths[p]
        acc_a, acc_b = p in src.accepted, p in summ.accepted
        verdicts[p] = ProposalVerdict(
            sigma_source=a,
            sigma_summary=b,
            difference=b - a,
            accepted_source=acc_a,
            accepted_summary=acc_b,
            d_preferability_consistent=acc_a == acc_b,
            balance_consistent=balance_side(b, tolerance) == balance_side(a, tolerance),
            epsilon_accurate=abs(b - a) <= epsilon + tolerance,
        )
    dpc = [v.d_preferability_consistent for v in verdicts.values()]
    bc = [v.balance_consistent for v in verdicts.values()]
    ea = [v.epsilon_accurate for v in verdicts.values()]
    n = len(verdicts)
    counts = {
        "d_preferability_consistency": MetricCount(numerator=sum(dpc), denominator=n),
        "balance_consistency": MetricCount(numerator=sum(bc), denominator=n),
        "epsilon_accuracy": MetricCount(numerator=sum(ea), denominator=n),
    }
    pw: dict[str, Any] = dict(
        d_preferability_consistency=_share(dpc),
        balance_consistency=_share(bc),
        epsilon_accuracy=_share(ea),
        per_proposal=verdicts,
    )
    if alignment is not None:
        sap = supplementary_precision(summ.qbaf, src.qbaf, alignment)
        sar = supplementary_recall(summ.qbaf, src.qbaf, alignment)
        pcc = pro_con_consistency(
            summ.qbaf, src.qbaf, alignment, proposals=ps, summary_procon=summ.procon, source_procon=src.procon
        )
        pw.update(
            supplementary_precision=sap.value,
            supplementary_recall=sar.value,
            pro_con_consistency=pcc.value,
            pro_con_inconsistent=list(pcc.inconsistent),
        )
        counts["supplementary_precision"] = MetricCount(numerator=sap.numerator, denominator=sap.denominator)
        counts["supplementary_recall"] = MetricCount(numerator=sar.numerator, denominator=sar.denominator)
        counts["pro_con_consistency"] = MetricCount(numerator=sum(pcc.consistent.values()), denominator=pcc.n_pairs)
        if coverage_k is not None:
            top, covered = _coverage(src, alignment, coverage_k, coverage_salience, method, max_iter, tol, sem)
            pw.update(
                argument_coverage=len(covered) / len(top) if top else None,
                uncovered_salient=[a for a in top if a not in covered],
            )
            counts["argument_coverage"] = MetricCount(numerator=len(covered), denominator=len(top))
    pw["counts"] = counts
    pw["baselines"] = {
        EMPTY_SUMMARY: empty_summary_values(
            {p: src.strengths[p] for p in ps}, {p: summ.qbaf.argument(p).base_score for p in ps},
            accepted=src.accepted, epsilon=epsilon, tolerance=tolerance, n_source_speech=len(src.qbaf.speech_arguments),
            alignment=alignment is not None, coverage=alignment is not None and coverage_k is not None,
        )
    }
    explanations: list[ExplanationReport] = []
    if explain:
        exps = explain_proposals(
            src.qbaf, summ.qbaf, ps,
            source_strengths=src.strengths, summary_strengths=summ.strengths,
            source_procon=src.procon, summary_procon=summ.procon,
            alignment=alignment, method=method, max_iter=max_iter, tol=tol, limit=explain_limit, semantics=sem,
            source_table=src.influence_table(method, max_iter, tol, status, "source", sem),
            summary_table=summ.influence_table(method, max_iter, tol, status, "summary", sem),
        )
        explanations = [_explanation_report(e) for e in exps]
    warnings = [w for w in (_convergence_warning("source", src), _convergence_warning("summary", summ)) if w]
    warnings += degeneracy_warnings(src, summ, tolerance=tolerance)
    if not match.exact:
        warnings.append(
            f"proposal sets differ; evaluated on the {len(ps)} shared proposal(s); missing in summary: "
            f"{list(match.missing_in_summary)}, extra in summary: {list(match.extra_in_summary)}"
        )
    # The report speaks the CLI's words (--proposals exact|intersection), not the API's on_mismatch.
    policy = "exact" if match.mode == "error" else match.mode
    texts = {}
    for p in ps:
        t = src.qbaf.argument(p).text or summ.qbaf.argument(p).text
        if t:
            texts[p] = t
    return EvaluationReport(
        source=src.report,
        summary=summ.report,
        pairwise=PairwiseReport(**pw),
        proposals=ProposalsReport(
            shared=list(ps),
            missing_in_summary=list(match.missing_in_summary),
            extra_in_summary=list(match.extra_in_summary),
            mode=policy,
            texts=texts,
        ),
        settings=Settings(
            tau=tau,
            epsilon=epsilon,
            tolerance=tolerance,
            solver_method=method,
            solver_max_iter=max_iter,
            solver_tol=tol,
            semantics=sem.name,
            proposals=policy,
            alignment=alignment.method if alignment is not None else None,
            explain_limit=explain_limit,
            coverage_k=coverage_k if alignment is not None else None,
            coverage_salience=coverage_salience if alignment is not None and coverage_k is not None else None,
        ),
        alignment=_alignment_report(alignment) if alignment is not None else None,
        explanations=explanations,
        text_baselines=text_baselines,
        warnings=warnings,
    )


def _coverage(
    src: SideAnalysis, alignment: Alignment, k: int, salience: str, method: str, max_iter: int, tol: float,
    semantics: GradualSemantics | None = None,
) -> tuple[tuple[str, ...], frozenset[str]]:
    """S_k(Q) and its aligned members for π_cov (:mod:`argfaith.metrics.coverage`); σ salience
    reuses the strengths already computed for the source at this τ."""
    speech = src.qbaf.speech_arguments
    if not speech:
        return (), frozenset()
    if salience == "strength":
        scores = {a: float(src.strengths[a]) for a in speech}
    else:
        scores = salience_scores(src.qbaf, salience, method=method, max_iter=max_iter, tol=tol, semantics=semantics or "dfquad")  # type: ignore[arg-type]
    top = salient_arguments(src.qbaf, k=k, salience=salience, scores=scores)  # type: ignore[arg-type]
    aligned = alignment.source_ids
    return top, frozenset(a for a in top if a in aligned)


def _check_coverage(coverage_k: int | None, coverage_salience: str) -> None:
    if coverage_k is not None and (isinstance(coverage_k, bool) or not isinstance(coverage_k, int) or coverage_k < 1):
        raise ConfigurationError(f"coverage_k must be a positive integer or None, got {coverage_k!r}")
    if coverage_salience not in SALIENCE_MEASURES:
        raise ConfigurationError(f"coverage_salience must be one of {', '.join(SALIENCE_MEASURES)}, got {coverage_salience!r}")


def _check_settings(epsilon: float, tolerance: float, tau: float | None) -> None:
    if not (isinstance(epsilon, (int, float)) and math.isfinite(epsilon) and epsilon >= 0):
        raise ConfigurationError(f"epsilon must be a finite number >= 0, got {epsilon!r}")
    if not (isinstance(tolerance, (int, float)) and math.isfinite(tolerance) and tolerance >= 0):
        raise ConfigurationError(f"tolerance must be a finite number >= 0, got {tolerance!r}")
    _check_unit("tau", tau)


def _resolve_alignment(source: QBAF, summary: QBAF, alignment: Alignment | Aligner | None) -> Alignment | None:
    if alignment is None or isinstance(alignment, Alignment):
        return alignment
    return align_qbafs(source, summary, alignment)


def evaluate(
    source: QBAF,
    summary: QBAF,
    *,
    tau: float | None = None,
    epsilon: float = DEFAULT_EPSILON,
    tolerance: float = DEFAULT_TOLERANCE,
    on_mismatch: OnMismatch = "error",
    alignment: Alignment | Aligner | None = None,
    explain: bool = True,
    explain_limit: int | None = 10,
    method: str = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
    strict: bool = False,
    include_qbafs: bool = True,
    source_path: str | None = None,
    summary_path: str | None = None,
    text_baselines: TextBaselines | None = None,
    coverage_k: int | None = DEFAULT_COVERAGE_K,
    coverage_salience: str = "strength",
    pro_con_reading: str = "walk",
    path_budget: int = DEFAULT_PATH_BUDGET,
    semantics: str | GradualSemantics = "dfquad",
) -> EvaluationReport:
    """Evaluate a summary QBAF Q* against its source Q (PAPER.md §5): the full report.

    Parameters
    ----------
    source, summary : QBAF
        Q and Q*.
    tau : float, optional
        Speech base score applied to both (``None``: the base scores in the QBAFs).
    epsilon : float
        ε of π_εa (default 0.1).
    tolerance : float
        Tolerance of σ comparisons around 0.5 (π_bc) and ε (π_εa); default 1e-9.
    on_mismatch : {"error", "intersection"}
        Proposal sets that differ raise :class:`~argfaith.metrics.proposals.ProposalMismatchError`
        unless ``"intersection"``, which is recorded in the report.
    alignment : Alignment or Aligner, optional
        Enables π_sap, π_sar, π_pcc and argument coverage π_cov; an :class:`Aligner` is run on the
        speech arguments.
    coverage_k, coverage_salience :
        π_cov (PAPER.md §9, :mod:`argfaith.metrics.coverage`): share of the ``coverage_k`` most
        salient source speech arguments (default the 10 strongest by σ at this τ) that the
        alignment covers, reported next to π_sar. ``coverage_k=None`` leaves it out.
    explain, explain_limit :
        Per-proposal explanations, keeping the ``explain_limit`` most influential arguments per
        side (None: all).
    method, max_iter, tol :
        Solver for cyclic components (:func:`argfaith.qbaf.gradual.gradual_strengths`).
    semantics : str or GradualSemantics
        The gradual semantics of σ (default DF-QuAD, the paper's); :mod:`argfaith.qbaf.semantics`.
    pro_con_reading, path_budget :
        Paths of pro/con (π_pcr, π_pcc) read as walks (PAPER.md §3, default) or as simple paths
        (exact within ``path_budget`` steps per proposal; see :func:`analyse_side`).
    strict : bool
        Raise :class:`~argfaith.qbaf.NotConvergedError` if a QBAF does not converge (default:
        report it in ``convergence`` and ``warnings``).
    include_qbafs : bool
        Embed both QBAFs in the report (needed to draw them in HTML from a saved JSON report).
    """
    _check_settings(epsilon, tolerance, tau)
    _check_coverage(coverage_k, coverage_salience)
    sem = get_semantics(semantics)
    source, (summary,) = harmonise_proposal_ids(source, [summary])
    match = match_proposals(source, summary, on_mismatch=on_mismatch)
    kw = dict(method=method, max_iter=max_iter, tol=tol, include_qbaf=include_qbafs, pro_con_reading=pro_con_reading,
              path_budget=path_budget, semantics=sem)
    src = analyse_side(source, tau=tau, path=source_path, **kw)  # type: ignore[arg-type]
    summ = analyse_side(summary, tau=tau, path=summary_path, **kw)  # type: ignore[arg-type]
    _maybe_strict(strict, src, summ, method, max_iter, tol)
    al = _resolve_alignment(source, summary, alignment)
    return _compare(
        src, summ, match, tau=tau, epsilon=epsilon, tolerance=tolerance, method=method, max_iter=max_iter,
        tol=tol, alignment=al, explain=explain, explain_limit=explain_limit, text_baselines=text_baselines,
        coverage_k=coverage_k, coverage_salience=coverage_salience, semantics=sem,
    )


def _maybe_strict(strict: bool, src: SideAnalysis, summ: SideAnalysis, method: str, max_iter: int, tol: float) -> None:
    if not strict:
        return
    for role, side in (("source", src), ("summary", summ)):
        c = side.report.convergence
        if not c.converged:
            nm = f" {side.qbaf.name!r}" if side.qbaf.name else ""
            raise NotConvergedError(
                f"{role} QBAF{nm}: {_title(c.semantics)} ({method}) did not converge within {max_iter} iterations "
                f"(residual {c.residual:.3g} > tol {tol:g})"
            )


def evaluate_many(
    source: QBAF,
    summaries: Sequence[QBAF],
    *,
    taus: Iterable[float | None] = (None,),
    epsilon: float = DEFAULT_EPSILON,
    tolerance: float = DEFAULT_TOLERANCE,
    on_mismatch: OnMismatch = "error",
    alignments: Sequence[Alignment | Aligner | None] | Alignment | Aligner | None = None,
    explain: bool = True,
    explain_limit: int | None = 10,
    method: str = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
    strict: bool = False,
    include_qbafs: bool = True,
    source_path: str | None = None,
    summary_paths: Sequence[str | None] | None = None,
    text_baselines: Sequence[TextBaselines | None] | None = None,
    progress: Any = None,
    coverage_k: int | None = DEFAULT_COVERAGE_K,
    coverage_salience: str = "strength",
    pro_con_reading: str = "walk",
    path_budget: int = DEFAULT_PATH_BUDGET,
    status: Status | None = None,
    semantics: str | GradualSemantics | Sequence[str | GradualSemantics] = "dfquad",
    draws: int = 0,
    slow_draws: int = 20,
    interval_level: float = 0.90,
    seed: int = 0,
) -> EvaluationSuite:
    """Evaluate several summaries at several τ (the paper's Table 6 sensitivity layout).

    ``draws`` > 0 adds error bars (issue 23, :mod:`argfaith.metrics.uncertainty`): every metric
    and every σ / σ*(p) over ``draws`` labellings sampled from the relation probabilities the mined
    QBAFs carry (paired draws across summaries), π_dpc / π_ar / π_pcr over the first
    ``slow_draws``; QBAFs without probabilities (recorded labels, Claude) are certain.

    ``alignments`` is one aligner/alignment for all summaries or one per summary. Each QBAF's
    semantics are computed once per τ, each alignment once per summary. ``progress``, if given,
    is called as ``progress(done, total)`` after each evaluation; ``status(step, done, total)``
    names each step as it starts (and counts the long ones).

    ``semantics`` is one gradual semantics or several: the reports use the first; with more than
    one, :attr:`EvaluationSuite.semantics_sweep` holds π_bc / π_εa under each of them at every τ
    and the proposals that change side relative to the first (:mod:`argfaith.metrics.sweep`).
    """
    taus = list(taus) or [None]
    for t in taus:
        _check_settings(epsilon, tolerance, t)
    _check_coverage(coverage_k, coverage_salience)
    # QBAFs mined before provision ids followed the printed numbers keep being accepted.
    source, summaries = harmonise_proposal_ids(source, list(summaries))
    n = len(summaries)
    paths = list(summary_paths) if summary_paths is not None else [None] * n
    if isinstance(alignments, (Alignment,)) or (alignments is not None and not isinstance(alignments, Sequence)):
        al_list: list[Any] = [alignments] * n
    else:
        al_list = list(alignments) if alignments is not None else [None] * n
    tb = list(text_baselines) if text_baselines is not None else [None] * n
    if not (len(paths) == len(al_list) == len(tb) == n):
        raise ConfigurationError("summary_paths, alignments and text_baselines must have one entry per summary")
    sems = as_semantics_list(semantics)
    matches = [match_proposals(source, s, on_mismatch=on_mismatch) for s in summaries]  # fail fast
    resolved = []
    for i, (s, a) in enumerate(zip(summaries, al_list)):
        if status is not None and a is not None and not isinstance(a, Alignment):
            status(f"aligning the speech arguments of summary {i + 1}/{n}", 0, 0)
        resolved.append(_resolve_alignment(source, s, a))
    kw = dict(method=method, max_iter=max_iter, tol=tol, include_qbaf=include_qbafs, pro_con_reading=pro_con_reading,
              path_budget=path_budget, semantics=sems[0])
    reports: list[EvaluationReport] = []
    rows: list[SensitivityRow] = []
    sweep: list[SemanticsSweepRow] = []
    total, done = n * len(taus), 0
    # Row names of the Table-6 view must tell the summaries apart (two long file names can share
    # their first 28 characters): the shared prefix/suffix goes, the debate id too.
    full = [short_name(s.name, p, f"summary {i + 1}", limit=None) for i, (s, p) in enumerate(zip(summaries, paths))]
    names = distinct_names(full, drop_prefix=source.name)
    at = ""
    p_better: list[PBetterRow] = []
    for t in taus:
        pending_intervals: list[tuple[int, int, float | None]] = []
        if len(taus) > 1 or t is not None:
            at = " (τ = file)" if t is None else f" (τ = {t:g})"
        if status is not None:
            status(f"σ, pro/con sets and acceptance of the source QBAF{at}", 0, 0)
        src = analyse_side(source, tau=t, path=source_path, **kw)  # type: ignore[arg-type]
        for i, s in enumerate(summaries):
            if status is not None:
                status(f"σ, pro/con sets and acceptance of summary {i + 1}/{n}{at}", 0, 0)
            summ = analyse_side(s, tau=t, path=paths[i], **kw)  # type: ignore[arg-type]
            _maybe_strict(strict, src, summ, method, max_iter, tol)
            r = _compare(
                src, summ, matches[i], tau=t, epsilon=epsilon, tolerance=tolerance, method=method,
                max_iter=max_iter, tol=tol, alignment=resolved[i], explain=explain,
                explain_limit=explain_limit, text_baselines=tb[i], coverage_k=coverage_k,
                coverage_salience=coverage_salience, status=status, semantics=sems[0],
            )
            reports.append(r)
            name = names[i]
            if draws > 0:
                pending_intervals.append((len(reports) - 1, i, t))
            rows.append(
                SensitivityRow(
                    summary=name,
                    tau=t,
                    d_preferability_consistency=r.pairwise.d_preferability_consistency,
                    balance_consistency=r.pairwise.balance_consistency,
                    epsilon_accuracy=r.pairwise.epsilon_accuracy,
                )
            )
            done += 1
            if progress is not None:
                progress(done, total)
        if pending_intervals:
            if status is not None:
                status(f"error bars: {draws} sampled labellings of every QBAF{at}", 0, 0)
            p_better += _attach_intervals(
                source, summaries, reports, pending_intervals, names, t, sems[0], draws=draws, slow_draws=slow_draws,
                level=interval_level, seed=seed, epsilon=epsilon, tolerance=tolerance, method=method, max_iter=max_iter, tol=tol,
            )
        if len(sems) > 1:
            if status is not None:
                status(f"semantics sweep: σ of every QBAF under {len(sems)} semantics{at}", 0, 0)
            sweep += semantics_sweep_rows(
                source, summaries, names,
                [m.shared for m in matches], sems, tau=t, epsilon=epsilon, tolerance=tolerance, method=method,
                max_iter=max_iter, tol=tol,
            )
    # Order reports summary-major so one summary's τ sweep reads as a block.
    order = sorted(range(len(reports)), key=lambda k: (k % n, k // n))
    return EvaluationSuite(
        reports=[reports[k] for k in order], sensitivity=[rows[k] for k in order],
        semantics_sweep=sorted(sweep, key=lambda r: next(i for i, x in enumerate(sweep) if x.summary == r.summary)),
        p_better=p_better,
    )


#: What the error bars cover (shown wherever they are).
INTERVAL_COVERS = (
    "classifier uncertainty only: labellings drawn from the relation classifier's calibrated class probabilities, "
    "pairs independent; not annotation disagreement, not a classifier's systematic bias, not correlated errors; "
    "relations without probabilities (Claude answers, recorded labels) count as certain"
)


def _attach_intervals(
    source: QBAF, summaries: Sequence[QBAF], reports: list[EvaluationReport], pending: list[tuple[int, int, float | None]],
    names: Sequence[str], tau: float | None, semantics: GradualSemantics, *, draws: int, slow_draws: int, level: float,
    seed: int, epsilon: float, tolerance: float, method: str, max_iter: int, tol: float,
) -> list[PBetterRow]:
    """Error bars of every report of one τ (paired draws), written into the reports; returns the P(better) rows."""
    from argfaith.metrics.uncertainty import faithfulness_intervals

    src = source.with_speech_base_score(tau) if tau is not None else source
    summ = {str(i): (summaries[i].with_speech_base_score(tau) if tau is not None else summaries[i]) for _, i, _ in pending}
    res = faithfulness_intervals(src, summ, draws=draws, slow_draws=slow_draws, seed=seed, level=level,
                                 semantics=semantics.name, epsilon=epsilon, tolerance=tolerance, method=method,
                                 max_iter=max_iter, tol=tol)

    def iv(m: Any) -> Interval:
        def f(x: float) -> float | None:
            return None if x != x else float(x)  # NaN (no defined draw) → null

        return Interval(mean=f(m.mean), low=f(m.low), high=f(m.high), draws=m.draws)

    for k, i, _ in pending:
        r = reports[k]
        si = res.summaries[str(i)]
        per = {}
        for p, v in r.pairwise.per_proposal.items():
            if p in si.sigma_summary:
                v = v.model_copy(update={"interval": {"sigma_source": iv(res.sigma_source[p]), "sigma_summary": iv(si.sigma_summary[p])},
                                         "probability": dict(si.verdict_probability[p])})
            per[p] = v
        pairwise = r.pairwise.model_copy(update={
            "interval": {"d_preferability_consistency": iv(si.metrics["pi_dpc"]),
                         "balance_consistency": iv(si.metrics["pi_bc"]), "epsilon_accuracy": iv(si.metrics["pi_ea"])},
            "per_proposal": per})
        reports[k] = r.model_copy(update={
            "pairwise": pairwise,
            "summary": r.summary.model_copy(update={"interval": {"relevance": iv(si.metrics["pi_ar"]),
                                                                 "pro_con_ratio_mean": iv(si.metrics["pi_pcr"])}}),
            "source": r.source.model_copy(update={"interval": {"relevance": iv(res.source_metrics["pi_ar"]),
                                                               "pro_con_ratio_mean": iv(res.source_metrics["pi_pcr"])}}),
            "uncertainty": UncertaintyInfo(draws=res.draws, slow_draws=res.slow_draws, level=res.level, seed=res.seed,
                                           fixed_at=res.fixed_at, source_uncertain_pairs=res.source_uncertain_pairs,
                                           summary_uncertain_pairs=si.uncertain_pairs, covers=INTERVAL_COVERS),
        })
    rows = []
    keymap = {"pi_bc": "balance_consistency", "pi_ea": "epsilon_accuracy", "pi_dpc": "d_preferability_consistency"}
    for metric, pairs in res.p_better.items():
        for ab, v in pairs.items():
            a, b = ab.split("|")
            rows.append(PBetterRow(a=names[int(a)], b=names[int(b)], tau=tau, metric=keymap[metric],
                                   p_better=None if v["p_better"] != v["p_better"] else v["p_better"],
                                   p_tie=None if v["p_tie"] != v["p_tie"] else v["p_tie"]))
    return rows


def evaluate_with(
    source: QBAF,
    summaries: Sequence[QBAF],
    settings: MetricSettings | None = None,
    *,
    alignments: Sequence[Alignment | Aligner | None] | Alignment | Aligner | None = None,
    source_path: str | None = None,
    summary_paths: Sequence[str | None] | None = None,
    text_baselines: Sequence[TextBaselines | None] | None = None,
    include_qbafs: bool = True,
    status: Status | None = None,
    progress: Any = None,
) -> EvaluationSuite:
    """:func:`evaluate_many` with its options given as one
    :class:`~argfaith.metrics.settings.MetricSettings` (the object ``argfaith evaluate`` builds
    from its metric options); ``settings=None`` means the defaults.

    >>> from argfaith.qbaf import QBAF, Argument
    >>> from argfaith.metrics.settings import MetricSettings
    >>> q = QBAF.from_arguments([Argument("p", "proposal", 0.5), Argument("s")], attacks=[("s", "p")], debate=True)
    >>> evaluate_with(q, [q], MetricSettings(taus=(0.2,), explain=False)).reports[0].pairwise.balance_consistency
    1.0
    """
    from argfaith.metrics.settings import MetricSettings as _MS

    opts = (settings or _MS()).evaluate_options()
    return evaluate_many(
        source, summaries, **opts, alignments=alignments, source_path=source_path, summary_paths=summary_paths,
        text_baselines=text_baselines, include_qbafs=include_qbafs, status=status, progress=progress,
    )
