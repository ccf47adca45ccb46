"""Dry-run cost estimates of relation mining with Claude, per strategy, without calling anything.

:func:`estimate_cost` renders exactly the requests the Claude classifier would send
(:func:`argfaith.mining.classifiers.claude.plan_requests`), skips those already in the request
cache, and estimates tokens offline (:class:`argfaith.llm.cost.TokenEstimator`) and dollars from the
price table (:mod:`argfaith.llm.cost`). :func:`estimate_strategies` tabulates the standard
strategies against the paper's protocol (``single``: one request per pair, no batch, no caching):

=====================  =========================================================================
``single``             the paper's protocol
``single+batch``       the same through the Message Batches API (−50%)
``multi``              one request per source argument, ``max_targets`` numbered targets each
``multi+cache``        ``multi`` with Anthropic prompt caching of the target list
``multi+batch``        ``multi`` through the Batches API
``multi+batch+cache``  both (cache hits in batches are best-effort: an optimistic bound)
=====================  =========================================================================

Estimates, not quotes: prompt tokens are characters / a per-tokenizer ratio (±15% on EP text
until calibrated); output tokens assume the expected answer format (one short label per pair) with
``no relation`` (the longest label and the majority class); thinking is off where the model allows.
The prompt-cache simulation assumes requests are sent in plan order within the cache lifetime, a
20-block lookback and the model's minimum cacheable length; batch strategies write the cache with
the 1-hour TTL (2 x input instead of 1.25 x), as the classifier does (the batch-processing guide
advises it: https://platform.claude.com/docs/en/build-with-claude/batch-processing), and their cache
hits remain best-effort. Multi-target re-asks (targets the model skipped) are not included.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

from argfaith.llm.cache import RequestCache
from argfaith.llm.cost import DEFAULT_MODEL, ModelPrice, TokenCounts, TokenEstimator, cost_usd, price_for
from argfaith.mining.classifiers.base import PairQuery
from argfaith.mining.classifiers.claude import (
    DEFAULT_MAX_TARGETS,
    PlannedRequest,
    plan_requests,
)
from argfaith.mining.prompts import ANSWER_TAG, PromptStyle

__all__ = ["CostEstimate", "estimate_cost", "estimate_strategies", "format_cost_table", "STRATEGIES"]

#: (name, mode, batch, prompt caching) of the standard strategies, the paper's first.
STRATEGIES: tuple[tuple[str, str, bool, bool], ...] = (
    ("single", "single", False, False),
    ("single+batch", "single", True, False),
    ("multi", "multi", False, False),
    ("multi+cache", "multi", False, True),
    ("multi+batch", "multi", True, False),
    ("multi+batch+cache", "multi", True, True),
)

_LOOKBACK_BLOCKS = 20  # prompt caching checks this many block boundaries before a breakpoint
_ASSUMED_LABEL = "no relation"


@dataclass(frozen=True)
class CostEstimate:
    """Estimated requests, tokens and cost of one strategy on one set of pairs.

    ``input_tokens`` are uncached prompt tokens; ``cache_write_tokens`` / ``cache_read_tokens``
    the prompt tokens written to / read from Anthropic's prompt cache; ``requests`` exclude the
    ``cached_requests`` already answered in the local request cache (free). ``usd`` is None for a
    model without a price card.
    """

    strategy: str
    model: str
    mode: str
    prompt: str
    batch: bool
    prompt_caching: bool
    pairs: int
    requests: int
    cached_requests: int
    input_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    output_tokens: int
    max_output_tokens: int
    usd: float | None
    optimistic: bool = False

    @property
    def prompt_tokens(self) -> int:
        """All prompt tokens (uncached + cache writes + cache reads)."""
        return self.input_tokens + self.cache_write_tokens + self.cache_read_tokens

    def as_dict(self) -> dict[str, object]:
        d = asdict(self)
        d["prompt_tokens"] = self.prompt_tokens
        return d


def _expected_output_chars(pr: PlannedRequest) -> int:
    if pr.kind == "single":
        return len(f"{ANSWER_TAG}{_ASSUMED_LABEL}{ANSWER_TAG}")
    lines = sum(len(f"{i}: {_ASSUMED_LABEL}\n") for i in range(1, len(pr.pairs) + 1))
    return len(ANSWER_TAG) * 2 + 2 + lines


def estimate_cost(
    pairs: Sequence[PairQuery],
    *,
    mode: str = "single",
    batch: bool = False,
    model: str = DEFAULT_MODEL,
    prompt: PromptStyle = "zero",
    cache: bool = False,
    max_targets: int = DEFAULT_MAX_TARGETS,
    request_cache: RequestCache | None = None,
    estimator: TokenEstimator | None = None,
    price: ModelPrice | None = None,
    strategy: str | None = None,
    plan: Sequence[PlannedRequest] | None = None,
) -> CostEstimate:
    """Estimate one strategy (no API call).

    Parameters
    ----------
    pairs
        Candidate pairs (duplicates are judged once, as by the classifier).
    mode
        ``"single"`` (the paper's protocol) or ``"multi"``.
    batch
        Through the Message Batches API (−50%).
    model
        Model id; its price card must exist unless ``price`` is given (else ``usd`` is None).
    prompt
        ``"zero"`` or ``"few"``-shot.
    cache
        Anthropic prompt caching of the shared prefix (the multi-target list; single-pair prompts
        have no prefix long enough to cache, so it changes nothing there).
    max_targets
        Targets per multi-target request.
    request_cache
        argfaith's request cache: requests already answered there are free and not counted.
    estimator
        Token estimator (default: the model's tokenizer heuristic).
    price
        Price card override.
    strategy
        Label for tables (default derived from the options).
    plan
        The classifier's plan for exactly these options, if already computed.
    """
    card = price if price is not None else price_for(model, strict=False)
    est = estimator if estimator is not None else TokenEstimator.for_model(card or model)
    ttl = "1h" if batch else "5m"
    if plan is None:
        plan = plan_requests(pairs, mode=mode, prompt=prompt, model=model, max_targets=max_targets, prompt_caching=cache, cache_ttl=ttl)  # type: ignore[arg-type]
    answered = request_cache.get_many(pr.request.key for pr in plan) if request_cache is not None else {}
    min_cache = card.min_cache_tokens if card is not None else 1024
    written: set[int] = set()
    n_req = cached = 0
    total = TokenCounts()
    usd: float | None = 0.0 if card is not None else None
    max_out = 0
    for pr in plan:
        if pr.request.key in answered:
            cached += 1
            continue
        n_req += 1
        prefix: list[int] = []
        acc = est.overhead
        for c in pr.block_chars:
            acc += est.tokens(c)
            prefix.append(acc)
        full = prefix[-1]
        read = write = 0
        bp = pr.breakpoint if cache else None
        if bp is not None:
            for j in range(bp, max(bp - _LOOKBACK_BLOCKS, 0) - 1, -1):
                if pr.prefix_keys[j] in written and prefix[j] >= min_cache:
                    read = prefix[j]
                    break
            if prefix[bp] >= min_cache:
                write = prefix[bp] - read
                written.add(pr.prefix_keys[bp])
        out_tokens = est.tokens(_expected_output_chars(pr))
        max_out += int(pr.request.params["max_tokens"])
        counts = TokenCounts(full - read - write, out_tokens, write, read)
        total = total + counts
        if card is not None and usd is not None:
            usd += cost_usd(card, counts, batch=batch, cache_ttl=ttl)  # per request: long-context rates are per prompt
    name = strategy or "+".join([mode] + (["batch"] if batch else []) + (["cache"] if cache else []))
    return CostEstimate(
        strategy=name,
        model=model,
        mode=mode,
        prompt=prompt,
        batch=batch,
        prompt_caching=cache,
        pairs=len({(p.topic or "", p.source, p.target) for p in pairs}),
        requests=n_req,
        cached_requests=cached,
        input_tokens=total.input_tokens,
        cache_write_tokens=total.cache_creation_input_tokens,
        cache_read_tokens=total.cache_read_input_tokens,
        output_tokens=total.output_tokens,
        max_output_tokens=max_out,
        usd=usd,
        optimistic=batch and cache,
    )


def estimate_strategies(
    pairs: Sequence[PairQuery],
    *,
    model: str = DEFAULT_MODEL,
    prompt: PromptStyle = "zero",
    max_targets: int = DEFAULT_MAX_TARGETS,
    request_cache: RequestCache | None = None,
    estimator: TokenEstimator | None = None,
    price: ModelPrice | None = None,
) -> list[CostEstimate]:
    """Estimates of every strategy in :data:`STRATEGIES`, the paper's protocol first."""
    plans: dict[tuple[str, bool, bool], list[PlannedRequest]] = {}
    for _name, mode, batch, pc in STRATEGIES:
        if (mode, pc, batch and pc) not in plans:  # the TTL only changes cached plans
            plans[(mode, pc, batch and pc)] = plan_requests(
                pairs, mode=mode, prompt=prompt, model=model, max_targets=max_targets, prompt_caching=pc,  # type: ignore[arg-type]
                cache_ttl="1h" if batch else "5m",
            )
    return [
        estimate_cost(
            pairs,
            mode=mode,
            batch=batch,
            model=model,
            prompt=prompt,
            cache=pc,
            max_targets=max_targets,
            request_cache=request_cache,
            estimator=estimator,
            price=price,
            strategy=name,
            plan=plans[(mode, pc, batch and pc)],
        )
        for name, mode, batch, pc in STRATEGIES
    ]


def format_cost_table(estimates: Sequence[CostEstimate], *, baseline: CostEstimate | None = None) -> str:
    """A plain-text table of estimates with each one's cost as a share of ``baseline`` (default:
    the first row, the paper's protocol)."""
    if not estimates:
        return "(no estimates)"
    base = baseline or estimates[0]
    head = ("strategy", "requests", "prompt tok", "cache rd", "cache wr", "output tok", "USD", "vs paper")
    rows = [head]
    for e in estimates:
        share = f"{e.usd / base.usd:.1%}" if e.usd is not None and base.usd else "-"
        usd = f"{e.usd:.4f}" if e.usd is not None else "n/a"
        name = e.strategy + (" *" if e.optimistic else "")
        rows.append(
            (name, f"{e.requests:,}", f"{e.prompt_tokens:,}", f"{e.cache_read_tokens:,}", f"{e.cache_write_tokens:,}", f"{e.output_tokens:,}", usd, share)
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    e0 = estimates[0]
    lines.append(f"model {e0.model}, {e0.prompt}-shot, {e0.pairs:,} pairs; estimates (offline token heuristic)")
    if any(e.optimistic for e in estimates):
        lines.append("* batch + prompt caching: cache hits inside batches are best-effort (optimistic bound)")
    return "\n".join(lines)
