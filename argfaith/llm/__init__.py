"""argfaith.llm — the shared Anthropic plumbing (client, request cache, batches, cost accounting).

Mining (the Claude relation classifier, summary generation) and metrics (an LLM alignment judge)
both go through :class:`LLMRunner`: cached "prompt → text" calls with SDK retries, bounded
concurrency or the Message Batches API, and usage/cost accounting. Nothing here knows about
arguments; nothing here imports mining or metrics.
"""

from argfaith.llm.cache import CachedResponse, RequestCache, default_cache_path, request_key
from argfaith.llm.client import API_KEY_ENV, api_key_available, make_client, override_http_client
from argfaith.llm.complete import Completion, LLMRequest, LLMRunner, build_request, message_text
from argfaith.llm.cost import (
    DEFAULT_MODEL,
    PRICES,
    ModelPrice,
    TokenCounts,
    TokenEstimator,
    UsageMeter,
    UsageSnapshot,
    cost_usd,
    known_models,
    price_for,
)
from argfaith.llm.errors import LLMRequestError, MissingAPIKeyError

__all__ = [
    "API_KEY_ENV",
    "DEFAULT_MODEL",
    "PRICES",
    "CachedResponse",
    "Completion",
    "LLMRequest",
    "LLMRequestError",
    "LLMRunner",
    "MissingAPIKeyError",
    "ModelPrice",
    "RequestCache",
    "TokenCounts",
    "TokenEstimator",
    "UsageMeter",
    "UsageSnapshot",
    "api_key_available",
    "build_request",
    "cost_usd",
    "default_cache_path",
    "known_models",
    "make_client",
    "message_text",
    "override_http_client",
    "price_for",
    "request_key",
]
