"""What the whole study would cost with Claude, without calling anything (PAPER.md §7).

Every debate's source plan and every summary's plan are built exactly as the study would build
them (same units, segmenter and candidate strategy); their candidate pairs are priced per debate
with :func:`argfaith.mining.cost.estimate_strategies` (the paper's one-request-per-pair protocol
first, then the multi-target / caching / batch strategies) and summed. Text-less summaries are
left out, as in the study.

Estimates, not quotes: see :mod:`argfaith.mining.cost` for the token heuristic and the price
table.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from argfaith.study.config import StudyConfig
from argfaith.study.corpus import StudyCorpus

__all__ = ["DebateCost", "StudyCost", "estimate_study_cost", "format_study_cost", "sum_estimates"]

_SUMMED = ("pairs", "requests", "cached_requests", "input_tokens", "cache_write_tokens", "cache_read_tokens",
           "output_tokens", "max_output_tokens")


@dataclass(frozen=True)
class DebateCost:
    """One debate's planned work and its estimates per strategy (source + all its summaries)."""

    debate_id: str
    n_source_speech: int
    n_proposals: int
    source_pairs: int
    n_summaries: int
    summary_pairs: int
    estimates: tuple[Any, ...]  # CostEstimate per strategy

    @property
    def pairs(self) -> int:
        return self.source_pairs + self.summary_pairs


@dataclass(frozen=True)
class StudyCost:
    """The whole study's estimate: per debate and summed per strategy."""

    model: str
    prompt: str
    candidates: str
    debates: tuple[DebateCost, ...]
    total: tuple[Any, ...]
    skipped: tuple[str, ...] = ()
    seconds: float = 0.0
    notes: tuple[str, ...] = field(default_factory=tuple)

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model, "prompt": self.prompt, "candidates": self.candidates,
            "pairs": sum(d.pairs for d in self.debates),
            "total": [e.as_dict() for e in self.total],
            "debates": [
                {"debate": d.debate_id, "source_speech": d.n_source_speech, "proposals": d.n_proposals,
                 "source_pairs": d.source_pairs, "summaries": d.n_summaries, "summary_pairs": d.summary_pairs,
                 "estimates": [e.as_dict() for e in d.estimates]}
                for d in self.debates
            ],
            "skipped": list(self.skipped), "seconds": round(self.seconds, 3), "notes": list(self.notes),
        }


def sum_estimates(groups: Sequence[Sequence[Any]]) -> tuple[Any, ...]:
    """Sum per-strategy :class:`~argfaith.mining.cost.CostEstimate` lists (same strategy order)."""
    if not groups:
        return ()
    out = []
    for parts in zip(*groups, strict=True):
        first = parts[0]
        if any(p.strategy != first.strategy for p in parts):
            raise ValueError("estimates to sum must list the same strategies in the same order")
        usd = None if any(p.usd is None for p in parts) else sum(p.usd for p in parts)
        out.append(dataclasses.replace(first, usd=usd, **{k: sum(getattr(p, k) for p in parts) for k in _SUMMED}))
    return tuple(out)


def estimate_study_cost(
    corpus: StudyCorpus,
    config: StudyConfig,
    *,
    model: str | None = None,
    prompt: str = "zero",
    progress: Callable[[str, int, int], None] | None = None,
) -> StudyCost:
    """Plan every debate and summary of ``corpus`` (no model call) and price the pairs.

    Parameters
    ----------
    model
        Claude model id to price (default: the classifier's default model).
    prompt
        ``"zero"`` or ``"few"``-shot prompts.
    progress
        ``progress(debate_id, done, total)`` after each debate.
    """
    from argfaith.datasets.documents import load_debate, load_summary
    from argfaith.llm.cost import DEFAULT_MODEL
    from argfaith.mining.cost import estimate_strategies
    from argfaith.mining.pipeline import plan_debate, plan_summary

    t0 = time.perf_counter()
    model = model or DEFAULT_MODEL
    if config.candidates.strip().lower().startswith("cascade"):
        cascade_note = "cascade:P prices the pairs a cheap offline model would keep; this dry run runs that model on every pair"
    else:
        cascade_note = ""
    cheap = None
    if cascade_note:
        from argfaith.mining.classifiers.registry import make_classifier

        cheap = lambda: make_classifier("features")  # noqa: E731
    debates = []
    skipped = []
    for i, d in enumerate(corpus.debates):
        deb = load_debate(d.path)
        plan = plan_debate(deb, units=config.units, candidates=config.candidates, segmenter=config.segmenter,  # type: ignore[arg-type]
                           cheap_classifier=cheap, seed=config.seed)
        queries = plan.queries()
        n_summ = 0
        n_summ_pairs = 0
        for sf in d.summaries:
            if sf.missing_text:
                skipped.append(f"{sf.item_id}: no summary text")
                continue
            sp = plan_summary(load_summary(sf.path, missing_text="empty"), deb, candidates=config.candidates,
                              segmenter=config.segmenter, cheap_classifier=cheap, seed=config.seed)
            queries.extend(sp.queries())
            n_summ += 1
            n_summ_pairs += len(sp.pairs)
        est = estimate_strategies(queries, model=model, prompt=prompt)  # type: ignore[arg-type]
        debates.append(DebateCost(d.debate_id, len(plan.speech), len(plan.proposals), len(plan.pairs), n_summ, n_summ_pairs, tuple(est)))
        if progress is not None:
            progress(d.debate_id, i + 1, len(corpus.debates))
    for sf in corpus.orphans:
        skipped.append(f"{sf.item_id}: no debate folder")
    for sf in corpus.unreadable:
        skipped.append(f"{sf.item_id}: unreadable ({sf.error})")
    notes = (cascade_note,) if cascade_note else ()
    return StudyCost(model, prompt, config.candidates, tuple(debates), sum_estimates([d.estimates for d in debates]),
                     tuple(skipped), time.perf_counter() - t0, notes)


def format_study_cost(cost: StudyCost) -> str:
    """Plain-text report: one line per debate, then the summed per-strategy table."""
    from argfaith.mining.cost import format_cost_table

    def usd(e: Any) -> str:
        return f"{e.usd:.2f}" if e.usd is not None else "n/a"

    names = [e.strategy for e in cost.total]
    single = names.index("single") if "single" in names else 0
    best = names.index("multi+cache") if "multi+cache" in names else len(names) - 1
    head = ("debate", "speech", "provisions", "source pairs", "summaries", "summary pairs",
            f"USD {names[single]}" if names else "USD", f"USD {names[best]}" if names else "USD")
    rows = [head]
    for d in cost.debates:
        rows.append((d.debate_id, f"{d.n_source_speech:,}", f"{d.n_proposals:,}", f"{d.source_pairs:,}", str(d.n_summaries),
                     f"{d.summary_pairs:,}", usd(d.estimates[single]) if d.estimates else "-", usd(d.estimates[best]) if d.estimates else "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    total_pairs = sum(d.pairs for d in cost.debates)
    out = [f"dry run: the study with Claude ({cost.model}, {cost.prompt}-shot, candidates {cost.candidates})", "", *lines, ""]
    out.append(f"whole study: {len(cost.debates)} debates, {sum(d.n_summaries for d in cost.debates)} summaries, {total_pairs:,} pairs")
    if cost.total:
        out += ["", format_cost_table(list(cost.total))]
    if cost.skipped:
        out += ["", f"not priced ({len(cost.skipped)}): " + "; ".join(cost.skipped)]
    out += [*cost.notes, "no classifier was called"]
    return "\n".join(out)
