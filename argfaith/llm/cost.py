"""Prices, offline token estimates and usage accounting for Anthropic models.

The price table is data with a date: it was checked on 2026-11-29 against the Claude Platform docs
(models overview, the per-model overview pages, the pricing / batch-processing / prompt-caching
pages; read through the project's docs search). Prices change: pass your own :class:`ModelPrice`
to any function taking ``price=`` when they do.

Billing model (Claude API, USD per million tokens):

* uncached input at ``input``; output at ``output``;
* prompt caching: a 5-minute cache write costs ``cache_write_5m`` × input, a 1-hour write
  ``cache_write_1h`` × input, a cache read ``cache_read`` × input; prefixes shorter than the model's
  minimum cacheable length are silently not cached (billed as plain input);
* the Message Batches API halves every one of these (``batch_discount`` = 0.5);
* Claude Haiku 5.5 bills prompts over 100,000 tokens at a higher rate (``long_*``).

Token estimates are offline and heuristic (:class:`TokenEstimator`): characters divided by a
per-tokenizer ratio, plus a small per-request overhead. Claude models from 4.7 on use a newer
tokenizer that counts the same text as about 30% more tokens than Claude Haiku 4.5 (per the Claude
Haiku 5.5 overview). :meth:`TokenEstimator.calibrate` fits the ratio to real counts, e.g. the
(characters, input tokens) pairs the request cache records for every answered request.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Literal

from argfaith.errors import ConfigurationError

__all__ = [
    "DEFAULT_MODEL",
    "ModelPrice",
    "PRICES",
    "price_for",
    "known_models",
    "TokenCounts",
    "cost_usd",
    "TokenEstimator",
    "UsageMeter",
    "UsageSnapshot",
]

#: The default model: the current Haiku (Claude Haiku 5.5, released 2026-10-07, "Latest").
#: Claude Haiku 4.5, which the paper used, is "Legacy" since then; pass ``claude-haiku-4-5`` to
#: reproduce the paper's setting.
DEFAULT_MODEL = "claude-haiku-5-5"

ThinkingPolicy = Literal["disable", "between_tools", "default-off", "always-on"]

# Characters per token of English prose (heuristic; calibrate with TokenEstimator.calibrate).
_CHARS_PER_TOKEN_V1 = 3.5  # tokenizer of Claude Haiku 4.5 / Sonnet 4.5 and earlier
_CHARS_PER_TOKEN_V2 = _CHARS_PER_TOKEN_V1 / 1.3  # Claude 4.7 and later: ~30% more tokens
_DEFAULT_OVERHEAD = 8  # message framing tokens the API adds to every request (heuristic)


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """Price card and request-shaping facts of one model (USD per million tokens).

    Attributes
    ----------
    model
        Canonical model id.
    input, output
        Base input / output price per MTok.
    cache_write_5m, cache_write_1h, cache_read
        Multipliers of the input price for prompt-cache writes (5-minute / 1-hour TTL) and reads.
    batch_discount
        Multiplier applied to the whole request cost in the Message Batches API.
    min_cache_tokens
        Minimum cacheable prefix length; shorter prefixes are not cached.
    chars_per_token
        Offline token-estimate ratio for this model's tokenizer.
    thinking
        ``"disable"``: thinks by default and accepts ``thinking={"type": "disabled"}``, which
        argfaith sends so that answers are plain text like the paper's; ``"between_tools"``:
        thinks by default, rejects ``disabled`` and turns up-front thinking off with
        ``thinking={"type": "between_tools"}`` (without tools: no thinking), which argfaith
        sends; ``"default-off"``: does not think unless asked (nothing sent); ``"always-on"``:
        cannot disable thinking (argfaith adds ``thinking_headroom`` to ``max_tokens``).
    max_output
        The model's output limit in tokens (the cap when a ``max_tokens`` stop is retried with a
        larger budget).
    long_context_threshold, long_input, long_output
        Prompts above the threshold (input + cache tokens) bill at the long-context rates.
    source
        Where the numbers come from.
    """

    model: str
    input: float
    output: float
    cache_write_5m: float = 1.25
    cache_write_1h: float = 2.0
    cache_read: float = 0.10
    batch_discount: float = 0.5
    min_cache_tokens: int = 1024
    chars_per_token: float = _CHARS_PER_TOKEN_V2
    thinking: ThinkingPolicy = "default-off"
    thinking_headroom: int = 0
    max_output: int = 64_000
    long_context_threshold: int | None = None
    long_input: float | None = None
    long_output: float | None = None
    source: str = ""


_DOCS = "https://platform.claude.com/docs/en/models"
_CHECKED = "checked 2026-12-01"

#: Known models. Aliases map to the same card (see :func:`price_for`). Minimum cacheable prefixes
#: of the 5.x models are NOT on the official pages we could read (third-party pages say 512
#: tokens; issue 16): the cards keep the larger, conservative values, which under- rather than
#: over-state caching savings; ``benchmarks/llm_cost.py --min-cache-tokens 512`` shows the other case.
PRICES: dict[str, ModelPrice] = {
    p.model: p
    for p in (
        ModelPrice(
            "claude-haiku-5-5", 0.10, 0.50,
            min_cache_tokens=4096, thinking="disable", max_output=128_000,
            long_context_threshold=100_000, long_input=0.50, long_output=2.50,
            source=f"{_DOCS}/haiku-5-5/overview; thinking: .../haiku-5-5/whats-new-haiku-5-5 ({_CHECKED})",
        ),
        ModelPrice(
            "claude-haiku-4-5", 1.00, 5.00, min_cache_tokens=4096,
            chars_per_token=_CHARS_PER_TOKEN_V1, thinking="default-off", max_output=64_000,
            source=f"{_DOCS}/haiku-4-5/overview (Legacy; {_CHECKED})",
        ),
        ModelPrice(
            # Cache read $0.20 / MTok = 0.1 x input (the card said 0.05); thinking is adaptive,
            # not always on, and is turned off with between_tools ("disabled" is a 400).
            "claude-sonnet-5-5", 2.00, 10.00, cache_read=0.10, min_cache_tokens=1024,
            thinking="between_tools", max_output=128_000,
            source=f"{_DOCS}/sonnet-5-5/overview; .../sonnet-5-5/whats-new-sonnet-5-5 ({_CHECKED})",
        ),
        ModelPrice(
            "claude-sonnet-4-5", 3.00, 15.00, min_cache_tokens=1024,
            chars_per_token=_CHARS_PER_TOKEN_V1, thinking="default-off", max_output=64_000,
            source="paper's Sonnet 4.5 row; pricing page (checked 2026-11-29)",
        ),
        ModelPrice(
            "claude-opus-5-5", 4.00, 20.00, cache_read=0.05, min_cache_tokens=1024,
            thinking="always-on", thinking_headroom=2048, max_output=128_000,
            source=f"{_DOCS}/opus-5-5/overview; .../opus-5-5/whats-new-opus-5-5#thinking-cant-be-disabled ({_CHECKED})",
        ),
        ModelPrice(
            "claude-fable-5-1", 10.00, 50.00, cache_read=0.025, min_cache_tokens=1024,
            thinking="always-on", thinking_headroom=2048, max_output=128_000,
            source=f"{_DOCS}/fable-5-1/overview ('cache reads cut to a quarter'; {_CHECKED})",
        ),
    )
}

_ALIASES = {
    "claude-haiku-4-5-20251001": "claude-haiku-4-5",
    "claude-sonnet-4-5-20250929": "claude-sonnet-4-5",
    "claude-haiku-5.5": "claude-haiku-5-5",
    "claude-haiku-4.5": "claude-haiku-4-5",
}


def known_models() -> list[str]:
    """Model ids with a price card (aliases excluded)."""
    return sorted(PRICES)


def price_for(model: str, *, strict: bool = True) -> ModelPrice | None:
    """The price card of ``model`` (dated snapshots and dotted spellings accepted).

    Parameters
    ----------
    model
        A model id, e.g. ``"claude-haiku-5-5"`` or ``"claude-haiku-4-5-20251001"``.
    strict
        Raise :class:`ConfigurationError` for an unknown model (default); otherwise return None
        (costs are then reported as unknown, never guessed).
    """
    key = _ALIASES.get(model, model)
    if key in PRICES:
        return PRICES[key]
    # Dated snapshot of a known alias, e.g. claude-haiku-5-5-20261007.
    for base in PRICES:
        if key.startswith(base + "-") and key[len(base) + 1 :].isdigit():
            return PRICES[base]
    if strict:
        raise ConfigurationError(
            f"no price card for model {model!r}; known: {', '.join(known_models())} "
            "(pass price=ModelPrice(...) to estimate other models)"
        )
    return None


@dataclass(frozen=True, slots=True)
class TokenCounts:
    """Token counts of one response (the API's ``usage`` block).

    ``cache_write_1h_tokens`` is the part of ``cache_creation_input_tokens`` written with the
    1-hour TTL (``usage.cache_creation.ephemeral_1h_input_tokens``), billed at ``cache_write_1h``.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_write_1h_tokens: int = 0

    @classmethod
    def from_api(cls, usage: object) -> TokenCounts:
        """From an SDK ``Usage`` object (missing cache fields count as 0)."""
        detail = getattr(usage, "cache_creation", None)
        return cls(
            int(getattr(usage, "input_tokens", 0) or 0),
            int(getattr(usage, "output_tokens", 0) or 0),
            int(getattr(usage, "cache_creation_input_tokens", 0) or 0),
            int(getattr(usage, "cache_read_input_tokens", 0) or 0),
            int(getattr(detail, "ephemeral_1h_input_tokens", 0) or 0),
        )

    def __add__(self, other: TokenCounts) -> TokenCounts:
        return TokenCounts(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            self.cache_write_1h_tokens + other.cache_write_1h_tokens,
        )


def cost_usd(price: ModelPrice, counts: TokenCounts, *, batch: bool = False, cache_ttl: str = "5m") -> float:
    """USD cost of one request's tokens under ``price`` (see the module docstring for the model).

    Cache writes are billed at the 1-hour rate for ``counts.cache_write_1h_tokens`` and at the
    ``cache_ttl`` rate (``"5m"`` or ``"1h"``) for the rest.

    Examples
    --------
    >>> p = price_for("claude-haiku-4-5")
    >>> round(cost_usd(p, TokenCounts(1_000_000, 100_000)), 6)
    1.5
    >>> round(cost_usd(p, TokenCounts(1_000_000, 100_000), batch=True), 6)
    0.75
    """
    prompt = counts.input_tokens + counts.cache_creation_input_tokens + counts.cache_read_input_tokens
    long = price.long_context_threshold is not None and prompt > price.long_context_threshold
    inp = price.long_input if long and price.long_input is not None else price.input
    out = price.long_output if long and price.long_output is not None else price.output
    write = price.cache_write_1h if cache_ttl == "1h" else price.cache_write_5m
    w1 = min(counts.cache_write_1h_tokens, counts.cache_creation_input_tokens)
    usd = (
        counts.input_tokens * inp
        + (counts.cache_creation_input_tokens - w1) * inp * write
        + w1 * inp * price.cache_write_1h
        + counts.cache_read_input_tokens * inp * price.cache_read
        + counts.output_tokens * out
    ) / 1e6
    return usd * price.batch_discount if batch else usd


@dataclass(frozen=True, slots=True)
class TokenEstimator:
    """Offline token estimate: ``ceil(chars / chars_per_token)`` (+ ``overhead`` per request).

    A heuristic, not a tokenizer: English prose runs at about 3.5 characters per token on the
    Claude Haiku 4.5 tokenizer and ~30% more tokens on the tokenizer of Claude 4.7+ models.
    Expect ±15% on EP speeches; calibrate on real counts for better numbers.
    """

    chars_per_token: float = _CHARS_PER_TOKEN_V2
    overhead: int = _DEFAULT_OVERHEAD

    @classmethod
    def for_model(cls, model: str | ModelPrice) -> TokenEstimator:
        """The default estimator for a model's tokenizer (unknown models: the newer tokenizer)."""
        price = model if isinstance(model, ModelPrice) else price_for(model, strict=False)
        return cls(price.chars_per_token if price else _CHARS_PER_TOKEN_V2)

    def tokens(self, text: str | int) -> int:
        """Estimated tokens of a text (or of a character count), without request overhead."""
        n = text if isinstance(text, int) else len(text)
        return math.ceil(n / self.chars_per_token) if n > 0 else 0

    def request_tokens(self, chars: int) -> int:
        """Estimated input tokens of a whole request of ``chars`` prompt characters."""
        return self.tokens(chars) + self.overhead

    @classmethod
    def calibrate(cls, samples: Iterable[tuple[int, int]], *, overhead: int | None = None) -> TokenEstimator:
        """Fit ``chars_per_token`` to observed (prompt characters, input tokens) pairs.

        Least squares of ``tokens - overhead = chars / r`` through the origin; ``overhead`` is
        kept at its default unless given.

        Raises
        ------
        ConfigurationError
            Fewer than one usable sample.
        """
        oh = _DEFAULT_OVERHEAD if overhead is None else overhead
        sxx = sxy = 0.0
        n = 0
        for chars, tokens in samples:
            if chars > 0 and tokens > oh:
                sxx += chars * chars
                sxy += chars * (tokens - oh)
                n += 1
        if n == 0 or sxy <= 0:
            raise ConfigurationError("cannot calibrate the token estimator: no (chars, tokens) samples")
        return cls(chars_per_token=sxx / sxy, overhead=oh)


@dataclass(frozen=True, slots=True)
class UsageSnapshot:
    """Cumulative usage of an LLM runner (a frozen copy; see :class:`UsageMeter`).

    ``requests`` counts API requests that returned an answer (direct or in a batch), each once
    even if its batch is collected twice; ``batch_requests`` the subset answered through the
    Batches API; ``cache_hits`` requests answered from the local request cache (free); ``errors``
    requests that failed after retries; ``refusals`` answers with ``stop_reason: "refusal"``
    (billed, not cached); ``truncated`` answers still stopped at ``max_tokens`` after the larger
    budgets were tried; ``fallbacks`` answers that could not be parsed (set by the caller).
    ``cost_usd`` is None when the model has no price card.
    """

    model: str
    requests: int = 0
    batch_requests: int = 0
    cache_hits: int = 0
    errors: int = 0
    refusals: int = 0
    truncated: int = 0
    fallbacks: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    cost_usd: float | None = 0.0

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class UsageMeter:
    """Thread-safe accumulator of requests, tokens and cost for one model."""

    model: str
    price: ModelPrice | None = None
    _snap: UsageSnapshot = field(init=False)
    _lock: threading.Lock = field(init=False, default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if self.price is None:
            self.price = price_for(self.model, strict=False)
        self._snap = UsageSnapshot(self.model, cost_usd=0.0 if self.price else None)

    def add_response(self, counts: TokenCounts, *, batch: bool = False) -> None:
        """Account one answered API request."""
        with self._lock:
            s = self._snap
            cost = s.cost_usd
            if cost is not None and self.price is not None:
                cost += cost_usd(self.price, counts, batch=batch)
            self._snap = replace(
                s,
                requests=s.requests + 1,
                batch_requests=s.batch_requests + (1 if batch else 0),
                input_tokens=s.input_tokens + counts.input_tokens,
                output_tokens=s.output_tokens + counts.output_tokens,
                cache_creation_input_tokens=s.cache_creation_input_tokens + counts.cache_creation_input_tokens,
                cache_read_input_tokens=s.cache_read_input_tokens + counts.cache_read_input_tokens,
                cost_usd=cost,
            )

    def add(self, *, cache_hits: int = 0, errors: int = 0, fallbacks: int = 0, refusals: int = 0, truncated: int = 0) -> None:
        """Count cache hits, failed requests, refusals, truncated answers or unparseable answers."""
        with self._lock:
            s = self._snap
            self._snap = replace(
                s, cache_hits=s.cache_hits + cache_hits, errors=s.errors + errors, fallbacks=s.fallbacks + fallbacks,
                refusals=s.refusals + refusals, truncated=s.truncated + truncated,
            )

    def snapshot(self) -> UsageSnapshot:
        """A frozen copy of the totals so far."""
        with self._lock:
            return self._snap
