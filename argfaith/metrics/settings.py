"""Settings of an evaluation, as a few small frozen objects instead of forty keyword arguments.

=====================  ====================================================================
object                 what it holds
=====================  ====================================================================
:class:`InputSettings`     the files: QBAF files (``source``, ``summaries``) or documents to mine
                           (``debate``, ``summary_docs``), texts for the text baselines
:class:`MetricSettings`    how the numbers are computed: τ values, ε, tolerance, proposal policy,
                           semantics and solver, π_pcr's path reading, explanations, π_cov, text
                           baselines, ``strict``
:class:`AlignmentSettings` which speech arguments of Q and Q* are the same (π_sap, π_sar, π_pcc,
                           π_cov): a file per summary or a method
:class:`OutputSettings`    how the report is written: format, file, embedded QBAFs, full graphs
=====================  ====================================================================

The mining settings (classifier, candidate pairs, pair budget) are
:class:`argfaith.mining.settings.MiningSettings`. ``argfaith evaluate`` builds one of each from
its options (its help groups the options the same way); a library user builds them directly and
calls :func:`argfaith.metrics.evaluate.evaluate_with`. Every object checks its values when it is
made (:class:`~argfaith.errors.ConfigurationError` naming the setting), so a bad value fails
before any work starts. New settings slot in as fields with a default (e.g. a number of draws
or an interval level for the metrics): existing callers are unaffected.

>>> MetricSettings(taus=(0.15, 0.2, 0.25), epsilon=0.1).evaluate_options()["epsilon"]
0.1
>>> MetricSettings(epsilon=0)
Traceback (most recent call last):
...
argfaith.errors.ConfigurationError: epsilon: 0 is not in (0, 1] (ε of π_εa)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from argfaith.errors import ConfigurationError

__all__ = ["InputSettings", "MetricSettings", "AlignmentSettings", "OutputSettings", "FORMAT_BY_SUFFIX", "DRAWS_WHEN_MINING"]

#: Report format implied by an output file's suffix.
#: Error-bar draws when `evaluate` mines the documents itself (issue 23): on a 300-sentence debate
#: 100 draws add ≈1.3 s to ≈0.3 s of metrics, next to 1–2 min of mining (benchmarks/uncertainty.md).
DRAWS_WHEN_MINING = 100

FORMAT_BY_SUFFIX = {".json": "json", ".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html"}


def _number(name: str, v: Any, lo: float, hi: float, *, lo_open: bool = False, what: str = "") -> None:
    ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    ok = ok and (v > lo if lo_open else v >= lo) and v <= hi
    if not ok:
        interval = f"{'(' if lo_open else '['}{lo:g}, {'∞)' if math.isinf(hi) else f'{hi:g}]'}"
        raise ConfigurationError(f"{name}: {v!r} is not in {interval}" + (f" ({what})" if what else ""))


def _count(name: str, v: Any, least: int) -> None:
    if not isinstance(v, int) or isinstance(v, bool) or v < least:
        raise ConfigurationError(f"{name}: {v!r} must be an integer >= {least}")


def _choice(name: str, v: Any, options: tuple[str, ...]) -> None:
    if v not in options:
        raise ConfigurationError(f"{name}: {v!r} is not one of {', '.join(options)}")


@dataclass(frozen=True)
class InputSettings:
    """What is evaluated: a debate QBAF and summary QBAFs (files), or documents that are mined
    first (``debate`` + ``summary_docs``; both kinds of summary may be mixed). ``source_text`` and
    ``summary_texts`` (one per summary) feed the text baselines."""

    source: Path | None = None
    summaries: tuple[Path, ...] = ()
    debate: Path | None = None
    summary_docs: tuple[Path, ...] = ()
    source_text: Path | None = None
    summary_texts: tuple[Path | None, ...] = ()

    def __post_init__(self) -> None:
        if (self.source is None) == (self.debate is None):
            raise ConfigurationError("give the source as either --source QBAF.json or --debate DOCUMENT (exactly one)")
        if self.summary_docs and self.debate is None:
            raise ConfigurationError("--summary-doc needs --debate (summaries are mined against the debate's proposals)")
        if not self.summaries and not self.summary_docs:
            raise ConfigurationError("give at least one --summary QBAF file (or --summary-doc with --debate)")

    @property
    def n_summaries(self) -> int:
        return len(self.summaries) + len(self.summary_docs)


@dataclass(frozen=True)
class MetricSettings:
    """How the metrics are computed (PAPER.md §5 and argfaith's documented choices)."""

    taus: tuple[float | None, ...] = (None,)  # speech base scores; None = as in the files
    epsilon: float = 0.1
    tolerance: float = 1e-9
    proposals: str = "exact"  # or "intersection"
    semantics: tuple[Any, ...] = ("dfquad",)  # names or GradualSemantics; the first is the report's
    solver: str = "sync"  # or "rk4"
    max_iter: int = 10_000
    tol: float = 1e-9
    strict: bool = False  # non-convergence (and, when mining, a language mismatch) is an error
    pcr_reading: str = "walk"  # or "simple"
    path_budget: int = 200_000
    explain: bool = True
    explain_top: int | None = 10  # None = all
    coverage_k: int | None = 10  # None = no π_cov
    coverage_salience: str = "strength"
    baselines: tuple[str, ...] = ()  # text baselines: rouge, bertscore, nli
    bertscore_model: Path | None = None
    nli_model: Path | None = None
    draws: int = 0  # error bars: sampled labellings of the uncertain pairs (0 = none); issue 23
    slow_draws: int = 20  # of which π_dpc / π_ar / π_pcr are computed on this many
    interval_level: float = 0.90
    seed: int = 0

    def __post_init__(self) -> None:
        _count("draws", self.draws, 0)
        _count("slow_draws", self.slow_draws, 0)
        _number("interval_level", self.interval_level, 0.0, 1.0, lo_open=True, what="central interval of the draws")
        if not self.taus:
            raise ConfigurationError("taus: give at least one speech base score (or None for the files' own)")
        for t in self.taus:
            if t is not None:
                _number("tau", t, 0.0, 1.0, what="a base score")
        _number("epsilon", self.epsilon, 0.0, 1.0, lo_open=True, what="ε of π_εa")
        _number("tolerance", self.tolerance, 0.0, math.inf)
        _number("tol", self.tol, 0.0, math.inf)
        _count("max_iter", self.max_iter, 1)
        _count("path_budget", self.path_budget, 1)
        _choice("proposals", self.proposals, ("exact", "intersection"))
        _choice("solver", self.solver, ("sync", "rk4"))
        _choice("pcr_reading", self.pcr_reading, ("walk", "simple"))
        _choice("coverage_salience", self.coverage_salience, ("strength", "influence", "degree", "replies"))
        if self.explain_top is not None:
            _count("explain_top", self.explain_top, 1)
        if self.coverage_k is not None:
            _count("coverage_k", self.coverage_k, 1)
        for b in self.baselines:
            _choice("baselines", b, ("rouge", "bertscore", "nli"))
        if not self.semantics:
            raise ConfigurationError("semantics: give at least one gradual semantics")

    def evaluate_options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`argfaith.metrics.evaluate.evaluate_many` these settings fix."""
        return dict(
            taus=list(self.taus), epsilon=self.epsilon, tolerance=self.tolerance,
            on_mismatch="intersection" if self.proposals == "intersection" else "error",
            explain=self.explain, explain_limit=self.explain_top, method=self.solver, max_iter=self.max_iter, tol=self.tol,
            strict=self.strict, coverage_k=self.coverage_k, coverage_salience=self.coverage_salience,
            pro_con_reading=self.pcr_reading, path_budget=self.path_budget, semantics=list(self.semantics),
            draws=self.draws, slow_draws=self.slow_draws, interval_level=self.interval_level, seed=self.seed,
        )


@dataclass(frozen=True)
class AlignmentSettings:
    """Which speech arguments of Q and Q* are the same: one alignment ``files`` entry per summary,
    or a ``method`` (id, exact, lexical, embedding, llm) with its options; neither = no
    supplementary metrics."""

    files: tuple[Path, ...] = ()
    method: str | None = None
    threshold: float | None = None
    measure: str | None = None  # lexical: tfidf | token_f1
    model: Path | None = None  # embedding: a local sentence-transformers directory
    llm_model: str | None = None
    llm_batch: bool = False

    def __post_init__(self) -> None:
        if self.files and self.method:
            raise ConfigurationError("give either --alignment FILE or --align METHOD, not both")
        if self.method is not None:
            _choice("align", self.method, ("id", "exact", "lexical", "embedding", "llm"))
        if self.threshold is not None:
            _number("align_threshold", self.threshold, 0.0, 1.0)
        if self.method is None and (self.threshold is not None or self.model is not None or self.llm_model is not None or self.llm_batch):
            raise ConfigurationError("--align-threshold / --align-model / --llm-model / --llm-batch need --align METHOD")
        if self.method is not None and self.method != "llm" and (self.llm_model is not None or self.llm_batch):
            raise ConfigurationError("--llm-model / --llm-batch need --align llm")
        if self.method in ("id", "exact") and self.threshold is not None:
            raise ConfigurationError(f"--align-threshold does not apply to --align {self.method}")

    @property
    def enabled(self) -> bool:
        return bool(self.files) or self.method is not None


@dataclass(frozen=True)
class OutputSettings:
    """How the report is written: ``format`` (table, json, markdown, html; default from ``out``'s
    suffix, else table), ``out`` (None = stdout), embedded QBAFs, the HTML full graphs
    (None = automatic, see :func:`argfaith.metrics.render.html.render_html`)."""

    format: str | None = None
    out: Path | None = None
    include_qbafs: bool = True
    full_graph: bool | None = None
    quiet: bool = False
    extra: dict[str, Any] = field(default_factory=dict, compare=False)  # room for renderer options

    def __post_init__(self) -> None:
        if self.format is not None:
            _choice("format", self.format, ("table", "json", "markdown", "html"))

    @property
    def resolved_format(self) -> str:
        """The format asked for, else the one ``out``'s suffix implies, else ``table``."""
        if self.format is not None:
            return self.format
        if self.out is not None:
            return FORMAT_BY_SUFFIX.get(Path(self.out).suffix.lower(), "table")
        return "table"
