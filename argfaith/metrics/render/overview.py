"""The overview every renderer opens with: which provisions does each summary misrepresent?

* :func:`provision_matrix` — provisions × summaries: per cell σ*(p), σ* − σ and the three
  pairwise verdicts (π_bc: same side of 0.5; π_εa: within ε; π_dpc: same credulous d-preferred
  acceptance), provisions **ranked by severity**;
* :func:`summary_verdicts` — one plain-language sentence per summary, with the metrics on which
  it does not beat the empty summary (:mod:`argfaith.metrics.baselines`).

Severity of provision p in summary s (a documented rule, not a tuned score)::

    severity(p, s) = |σ*(p) − σ(p)| + [p changes side of 0.5] · min(1, |σ*(p) − σ(p)| / ε)

so a side change by at least ε ranks above every change of σ that keeps the side, while a
"side change" that is only σ = 0.5004 in the debate against an untouched σ* = 0.5 (π_bc's exact
0.5 is a side of its own) adds almost nothing; a provision's severity is its largest over the
summaries (the one that gets it most wrong). Ties keep the resolution's
order. The filters of the HTML page are "the N worst" (:data:`WORST`), "side changes only" and
"some metric fails".
"""

from __future__ import annotations

from dataclasses import dataclass

from argfaith.metrics.baselines import EMPTY_SUMMARY, beats
from argfaith.metrics.render.common import _summary_key, fmt, primary_tau, summary_codes, summary_names
from argfaith.metrics.report import EvaluationReport

__all__ = [
    "WORST",
    "PAIRWISE",
    "MatrixCell",
    "ProvisionRow",
    "SummaryVerdict",
    "provision_matrix",
    "summary_verdicts",
    "severity",
    "proposal_short_ids",
]

#: How many provisions the "worst" filter and the terminal view keep.
WORST = 5
#: The pairwise metrics every report has, in the order the overview shows their verdicts.
PAIRWISE = (("balance_consistency", "π_bc"), ("epsilon_accuracy", "π_εa"), ("d_preferability_consistency", "π_dpc"))


def severity(difference: float, balance_consistent: bool, epsilon: float = 0.1) -> float:
    """|σ* − σ|, plus up to 1 when the provision changes side of 0.5 — in proportion to
    |σ* − σ| / ε, a full 1 from ε on (module docstring)."""
    d = abs(difference)
    return d + (0.0 if balance_consistent else min(1.0, d / epsilon))


@dataclass(frozen=True)
class MatrixCell:
    """One summary's verdicts on one provision."""

    code: str  # Q*1, Q*2, ...
    sigma: float  # σ*(p)
    difference: float  # σ*(p) − σ(p)
    balance: bool  # π_bc verdict: same side of 0.5
    epsilon: bool  # π_εa verdict: within ε
    dpc: bool  # π_dpc verdict: same credulous acceptance
    accepted: bool
    severity: float

    @property
    def ok(self) -> bool:
        return self.balance and self.epsilon and self.dpc

    @property
    def status(self) -> str:
        """``side`` (changes side of 0.5), ``far`` (same side, beyond ε), ``acceptance`` (only
        π_dpc fails) or ``ok`` — the class a renderer colours by (always next to symbols)."""
        if not self.balance:
            return "side"
        if not self.epsilon:
            return "far"
        return "acceptance" if not self.dpc else "ok"


@dataclass(frozen=True)
class ProvisionRow:
    """One provision of the matrix, with its rank (1 = most severe)."""

    id: str
    short_id: str
    text: str
    sigma: float  # σ(p) in the debate
    accepted: bool
    cells: tuple[MatrixCell, ...]
    severity: float
    rank: int

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.cells)

    @property
    def side_change(self) -> bool:
        return any(not c.balance for c in self.cells)


def proposal_short_ids(reports: list[EvaluationReport]) -> dict[str, str]:
    """Proposal ids without their shared debate prefix (``PAR-3``), as the cards show them."""
    from argfaith.metrics.render.views import short_ids

    return short_ids(list(reports[0].source.strengths), keep_word=True)


def _shown(reports: list[EvaluationReport]) -> list[EvaluationReport]:
    tau0 = primary_tau(reports)
    return [r for r in reports if r.settings.tau == tau0]


def provision_matrix(reports: list[EvaluationReport]) -> list[ProvisionRow]:
    """Every provision of the source with one cell per summary (at the primary τ), most severe
    first (module docstring)."""
    shown = _shown(reports)
    r0 = shown[0]
    codes = summary_codes(reports)
    sid = proposal_short_ids(reports)
    rows = []
    for i, (p, sigma) in enumerate(r0.source.strengths.items()):
        cells = []
        for r in shown:
            v = r.pairwise.per_proposal.get(p)
            if v is None:
                continue
            cells.append(MatrixCell(
                code=codes[_summary_key(r)], sigma=v.sigma_summary, difference=v.difference, balance=v.balance_consistent,
                epsilon=v.epsilon_accurate, dpc=v.d_preferability_consistent, accepted=v.accepted_summary,
                severity=severity(v.difference, v.balance_consistent, r.settings.epsilon),
            ))
        sev = max((c.severity for c in cells), default=0.0)
        rows.append((i, ProvisionRow(
            id=p, short_id=sid.get(p, p), text=" ".join((r0.proposals.texts.get(p) or "").split()), sigma=sigma,
            accepted=p in r0.source.accepted, cells=tuple(cells), severity=sev, rank=0,
        )))
    rows.sort(key=lambda t: (-t[1].severity, t[0]))
    return [ProvisionRow(**{**row.__dict__, "rank": k + 1}) for k, (_, row) in enumerate(rows)]


@dataclass(frozen=True)
class SummaryVerdict:
    """The one-line verdict on one summary."""

    code: str
    name: str
    n_provisions: int
    n_wrong: int  # fails some pairwise metric
    side: tuple[str, ...]  # short ids of provisions that change side, worst first
    far: tuple[str, ...]  # same side, |σ* − σ| > ε
    acceptance: tuple[str, ...]  # only π_dpc fails
    worst: str | None  # "PAR-2 (σ 0.82 → σ* 0.50)"
    not_better: tuple[tuple[str, float | None, float | None], ...]  # (symbol, value, empty value)
    sentence: str


def _list(ids: tuple[str, ...], n: int = 4) -> str:
    return ", ".join(ids[:n]) + (f" and {len(ids) - n} more" if len(ids) > n else "")


def summary_verdicts(reports: list[EvaluationReport]) -> list[SummaryVerdict]:
    """One plain-language verdict per summary at the primary τ (module docstring)."""
    shown = _shown(reports)
    rows = provision_matrix(reports)
    names, codes = summary_names(reports), summary_codes(reports)
    eps = shown[0].settings.epsilon
    out = []
    for r in shown:
        code = codes[_summary_key(r)]
        mine = [(row, c) for row in rows for c in row.cells if c.code == code]  # already worst first
        side = tuple(row.short_id for row, c in mine if c.status == "side")
        far = tuple(row.short_id for row, c in mine if c.status == "far")
        acc = tuple(row.short_id for row, c in mine if c.status == "acceptance")
        n = len(mine)
        wrong = len(side) + len(far) + len(acc)
        worst = None
        bad = sorted(((row, c) for row, c in mine if not c.ok), key=lambda rc: -rc[1].severity)  # this summary's worst first
        if bad:
            row, c = bad[0]
            worst = f"{row.short_id} (σ {row.sigma:.2f} → σ* {c.sigma:.2f})"
        base = r.pairwise.baselines.get(EMPTY_SUMMARY, {})
        nb = tuple(
            (sym, getattr(r.pairwise, m), base.get(m)) for m, sym in PAIRWISE
            if m in base and beats(getattr(r.pairwise, m), base[m]) is False
        )
        if not n:
            sentence = "shares no provision with the debate."
        elif not wrong:
            sentence = f"agrees with the debate on all {n} provisions (π_bc, π_εa and π_dpc)."
        else:
            parts = []
            if side:
                parts.append(f"{len(side)} change side of 0.5 ({_list(side)})")
            if far:
                parts.append(f"{len(far)} {'more ' if side else ''}move by more than ε = {eps:g} ({_list(far)})")
            if acc:
                parts.append(f"{len(acc)} {'more ' if side or far else ''}differ only in acceptance ({_list(acc)})")
            sentence = f"gets {wrong} of {n} provisions wrong: " + "; ".join(parts) + f". Worst: {worst}."
        if nb:
            sentence += " Not better than the empty summary on " + ", ".join(
                f"{sym} ({fmt(v)} vs {fmt(b)})" for sym, v, b in nb
            ) + "."
        elif base and n:
            sentence += " Beats the empty summary on π_bc, π_εa and π_dpc."
        out.append(SummaryVerdict(
            code=code, name=names[_summary_key(r)], n_provisions=n, n_wrong=wrong, side=side, far=far, acceptance=acc,
            worst=worst, not_better=nb, sentence=sentence,
        ))
    return out
