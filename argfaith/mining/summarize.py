"""Summary generation with the paper's summarisation prompt (PAPER.md §7), through argfaith.llm.

The debate's interventions are formatted as ``[ID] Speaker: text`` lines
(:func:`argfaith.mining.prompts.format_transcript`) and inserted in the paper's prompt, with the
debate title (optional). The request goes through the same plumbing as relation mining: the
request cache (rerunning returns the same summary for free; pass ``cache=None`` for a fresh
sample), SDK retries, usage and cost accounting.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from argfaith.datasets.documents import Debate, Summary
from argfaith.llm.cache import RequestCache, default_cache_path
from argfaith.llm.complete import LLMRequest, LLMRunner, build_request
from argfaith.llm.cost import DEFAULT_MODEL, ModelPrice, TokenCounts, TokenEstimator, UsageSnapshot, cost_usd, price_for
from argfaith.llm.errors import LLMRequestError
from argfaith.mining.prompts import SUMMARY_PROMPT_VERSION, format_transcript, summary_prompt

__all__ = [
    "DEFAULT_SUMMARY_MAX_TOKENS",
    "SummaryResult",
    "SummaryEstimate",
    "summary_request",
    "summarize_debate",
    "estimate_summary_cost",
]

#: Output budget of a summary (the paper does not state one; EP summaries run to ~1,000 words).
DEFAULT_SUMMARY_MAX_TOKENS = 4096


def summary_request(
    debate: Debate, *, model: str = DEFAULT_MODEL, title: bool = True, max_tokens: int = DEFAULT_SUMMARY_MAX_TOKENS
) -> LLMRequest:
    """The Messages API request that summarises ``debate`` with the paper's prompt (no system prompt)."""
    transcript = format_transcript([(iv.id, iv.speaker, iv.text) for iv in debate.interventions])
    prompt = summary_prompt(transcript, debate.title if title else None)
    return build_request(
        model=model,
        system=None,
        user=prompt,
        max_tokens=max_tokens,
        template_version=SUMMARY_PROMPT_VERSION,
        inputs={"prompt": prompt},
    )


@dataclass(frozen=True)
class SummaryResult:
    """A generated summary and how it was obtained.

    ``truncated`` is True when the model stopped at the output budget even after ``escalations``
    doublings of ``max_tokens`` (the runner asks again with larger budgets first); ``cached`` when
    the answer came from the request cache (no cost).
    """

    debate_id: str
    text: str
    model: str
    title_included: bool
    stop_reason: str | None
    cached: bool
    usage: UsageSnapshot
    prompt_version: str = SUMMARY_PROMPT_VERSION
    escalations: int = 0

    @property
    def truncated(self) -> bool:
        return self.stop_reason == "max_tokens"

    def to_summary(self) -> Summary:
        """As a :class:`argfaith.datasets.documents.Summary` (for mining the summary's QBAF)."""
        return Summary(
            debate_id=self.debate_id,
            text=self.text,
            model=self.model,
            variant=f"argfaith_{self.model}_en",
            structured=False,
            lang="en",
            metadata={"prompt": self.prompt_version, "title_included": self.title_included},
        )

    def to_json(self) -> dict[str, Any]:
        """The hand-written summary JSON layout (``text`` + provenance) that ``load_summary`` reads."""
        return {
            "text": self.text,
            "debate_id": self.debate_id,
            "model": self.model,
            "variant": f"argfaith_{self.model}_en",
            "lang": "en",
            "prompt": self.prompt_version,
            "title_included": self.title_included,
            "stop_reason": self.stop_reason,
            "escalations": self.escalations,
            "usage": self.usage.as_dict(),
        }


def summarize_debate(
    debate: Debate,
    *,
    model: str = DEFAULT_MODEL,
    title: bool = True,
    max_tokens: int = DEFAULT_SUMMARY_MAX_TOKENS,
    cache: RequestCache | str | Path | None = "default",
    client: Any = None,
    http_client: Any = None,
) -> SummaryResult:
    """Summarise a debate with the paper's prompt.

    Raises
    ------
    argfaith.llm.MissingAPIKeyError
        Not cached and ``ANTHROPIC_API_KEY`` is not set.
    argfaith.llm.LLMRequestError
        The request failed after retries, the model declined (``stop_reason: "refusal"``; nothing
        is cached, so a rerun asks again), or it returned no text.
    """
    if not debate.interventions:
        raise LLMRequestError(f"debate {debate.id} has no interventions to summarise", fatal=True)
    req = summary_request(debate, model=model, title=title, max_tokens=max_tokens)
    if isinstance(cache, RequestCache) or cache is None:
        rc = cache
    else:
        rc = RequestCache(default_cache_path() if cache == "default" else Path(cache))
    factory = None
    if client is None:
        from argfaith.llm.client import make_client

        factory = (lambda: make_client(http_client=http_client)) if http_client is not None else make_client
    runner = LLMRunner(model, client=client, client_factory=factory, cache=rc, max_concurrency=1)
    comp = runner.complete(req)
    if comp.refused:
        raise LLMRequestError(
            f"{model} declined to summarise debate {debate.id} (stop_reason: refusal); nothing was cached: "
            "rerun to ask again, or choose another model with --model",
            fatal=True,
        )
    if not comp.text.strip():
        raise LLMRequestError(f"the model returned no summary text (stop_reason={comp.stop_reason})", fatal=True)
    return SummaryResult(
        debate_id=debate.id,
        text=comp.text.strip(),
        model=model,
        title_included=title,
        stop_reason=comp.stop_reason,
        cached=comp.route == "cache",
        usage=runner.usage.snapshot(),
        escalations=comp.escalations,
    )


@dataclass(frozen=True)
class SummaryEstimate:
    """Dry-run estimate of one summary request: prompt size and the cost range.

    ``usd_input`` is the cost of the prompt alone; ``usd_max`` adds a full ``max_tokens`` answer
    (the upper bound). ``cached``: the request is already answered in the cache (cost 0).
    """

    debate_id: str
    model: str
    interventions: int
    prompt_chars: int
    input_tokens: int
    max_output_tokens: int
    usd_input: float | None
    usd_max: float | None
    batch: bool
    cached: bool

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def estimate_summary_cost(
    debate: Debate,
    *,
    model: str = DEFAULT_MODEL,
    title: bool = True,
    max_tokens: int = DEFAULT_SUMMARY_MAX_TOKENS,
    batch: bool = False,
    request_cache: RequestCache | None = None,
    estimator: TokenEstimator | None = None,
    price: ModelPrice | None = None,
) -> SummaryEstimate:
    """Estimate the summary request without sending it (offline token heuristic)."""
    req = summary_request(debate, model=model, title=title, max_tokens=max_tokens)
    card = price if price is not None else price_for(model, strict=False)
    est = estimator or TokenEstimator.for_model(card or model)
    tokens = est.request_tokens(req.input_chars)
    cached = request_cache is not None and req.key in request_cache
    out_max = int(req.params["max_tokens"])
    if card is None:
        lo = hi = None
    elif cached:
        lo = hi = 0.0
    else:
        lo = cost_usd(card, TokenCounts(tokens, 0), batch=batch)
        hi = cost_usd(card, TokenCounts(tokens, out_max), batch=batch)
    return SummaryEstimate(
        debate.id, model, len(debate.interventions), req.input_chars, tokens, out_max, lo, hi, batch, cached
    )
