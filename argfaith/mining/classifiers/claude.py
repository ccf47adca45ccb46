"""The Claude relation classifier: the paper's ARC prompts through :mod:`argfaith.llm`.

Two modes (PAPER.md §7 for the protocol, FINDINGS.md §2 for why cost levers keep every pair):

``single``
    The paper's exact protocol: one request per (source, target) pair with the verbatim zero- or
    few-shot prompt; answers parsed by :func:`argfaith.mining.parse.parse_answer`.
``multi``
    argfaith's cost lever: one request per source argument judging up to ``max_targets`` numbered
    candidate targets (:mod:`argfaith.mining.prompts`); each target's line is parsed separately and
    targets missing from the answer or garbled are re-asked with single-pair requests, so every
    pair still gets a judgement. Targets are listed in a stable global order (first appearance in
    the job) and, with ``prompt_caching``, each target is its own content block with a cache
    breakpoint after the last one: the target list of a later source extends that of an earlier
    one (the temporal constraint), so it is read from Anthropic's prompt cache at 0.1× the input
    price instead of being paid again.

Both modes answer from the request cache first, then send requests with bounded concurrency
(threads) or through the Message Batches API (``batch=True``), and keep usage and cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from argfaith.errors import ConfigurationError
from argfaith.llm.cache import RequestCache, default_cache_path
from argfaith.llm.complete import LLMRequest, LLMRunner, build_request
from argfaith.llm.cost import DEFAULT_MODEL
from argfaith.llm.errors import MissingAPIKeyError
from argfaith.mining.classifiers.base import PairQuery, Prediction, ProgressCallback, Usage
from argfaith.mining.parse import FALLBACK_LABEL, parse_answer, parse_multi_answer
from argfaith.mining.prompts import (
    PromptStyle,
    arc_prompt,
    multi_header,
    multi_source_block,
    multi_target_line,
    multi_template_version,
    MULTI_SYSTEM_PROMPT,
)

__all__ = [
    "ClaudeRelationClassifier",
    "make_claude_classifier",
    "PlannedRequest",
    "plan_requests",
    "DEFAULT_MAX_TARGETS",
    "SINGLE_MAX_TOKENS",
]

Mode = Literal["single", "multi"]
PairKey = tuple[str, str, str]  # (topic, source, target)

#: Targets per multi-target request (longer lists are split into chunks of this size).
DEFAULT_MAX_TARGETS = 200
#: Output budget of a single-pair answer (``<|ANSWER|>no relation<|ANSWER|>`` is ~13 tokens).
SINGLE_MAX_TOKENS = 64
# Output budget of a multi-target answer: tags + one short line per target.
_MULTI_BASE_TOKENS = 32
_MULTI_TOKENS_PER_TARGET = 10


@dataclass(frozen=True)
class PlannedRequest:
    """A request of a classification job, with what it judges.

    ``pairs`` are the (topic, source, target) keys judged, in target-number order for multi
    requests; ``block_chars`` the character length of each prompt block in order (system prompt,
    then the user content blocks) and ``breakpoint`` the index in ``block_chars`` of the block
    carrying the prompt-cache breakpoint (None: no caching) — used by the cost estimator.
    """

    request: LLMRequest
    kind: Mode
    pairs: tuple[PairKey, ...]
    block_chars: tuple[int, ...]
    breakpoint: int | None = None
    # Hash keys of the prompt prefix ending at each block (for the prompt-cache simulation).
    prefix_keys: tuple[int, ...] = ()


def _pair_key(p: PairQuery) -> PairKey:
    return (p.topic or "", p.source, p.target)


def _single(key: PairKey, *, model: str, style: PromptStyle, max_tokens: int) -> PlannedRequest:
    topic, source, target = key
    pr = arc_prompt(source, target, topic, style)
    req = build_request(
        model=model,
        system=pr.system,
        user=pr.user,
        max_tokens=max_tokens,
        template_version=pr.version,
        inputs={"topic": topic, "source": source, "target": target},
    )
    return PlannedRequest(req, "single", (key,), (len(pr.system), len(pr.user)))


def _multi(
    topic: str,
    source: str,
    targets: list[str],
    *,
    model: str,
    style: PromptStyle,
    prompt_caching: bool,
    cache_ttl: str = "5m",
) -> PlannedRequest:
    header = multi_header(topic, style)
    lines = [multi_target_line(i + 1, t) for i, t in enumerate(targets)]
    tail = multi_source_block(source, len(targets))
    blocks: list[dict[str, Any]] = [{"type": "text", "text": header}]
    blocks += [{"type": "text", "text": ln} for ln in lines]
    if prompt_caching:
        blocks[-1]["cache_control"] = {"type": "ephemeral", **({"ttl": "1h"} if cache_ttl == "1h" else {})}
    blocks.append({"type": "text", "text": tail})
    version = multi_template_version(style)
    req = build_request(
        model=model,
        system=MULTI_SYSTEM_PROMPT,
        user=blocks if prompt_caching else "".join(b["text"] for b in blocks),
        max_tokens=_MULTI_BASE_TOKENS + _MULTI_TOKENS_PER_TARGET * len(targets),
        template_version=version,
        # Cache-control markers do not change the prompt text, so they are not part of the key.
        inputs={"topic": topic, "source": source, "targets": list(targets)},
    )
    chars = (len(MULTI_SYSTEM_PROMPT), len(header), *map(len, lines), len(tail))
    # Prefix identity: model + system + blocks up to i (the source block is never a cache prefix).
    h = hash((model, version, MULTI_SYSTEM_PROMPT))
    keys = [h]
    for text in [header, *lines]:
        h = hash((h, text))
        keys.append(h)
    keys.append(hash((h, tail)))
    bp = len(lines) + 1 if prompt_caching else None  # index of the last target block in `chars`
    return PlannedRequest(
        req, "multi", tuple((topic, source, t) for t in targets), chars, bp, tuple(keys)
    )


def plan_requests(
    pairs: Sequence[PairQuery],
    *,
    mode: Mode = "single",
    prompt: PromptStyle = "zero",
    model: str = DEFAULT_MODEL,
    max_targets: int = DEFAULT_MAX_TARGETS,
    prompt_caching: bool = True,
    single_max_tokens: int = SINGLE_MAX_TOKENS,
    cache_ttl: str = "5m",
) -> list[PlannedRequest]:
    """The requests a classification job sends (before the request cache is consulted).

    Duplicate pairs are judged once. In ``multi`` mode pairs are grouped by (topic, source) in
    order of first appearance, each group's targets ordered by their first appearance in the whole
    job and split into chunks of ``max_targets``. ``cache_ttl`` is the prompt-cache lifetime of
    the target list: ``"5m"`` (direct requests follow each other closely) or ``"1h"`` (the
    Batches API, whose requests may run more than 5 minutes apart: the batch-processing guide
    advises the 1-hour TTL for shared context).
    """
    if mode not in ("single", "multi"):
        raise ConfigurationError(f"mode must be 'single' or 'multi', not {mode!r}")
    if max_targets < 1:
        raise ConfigurationError("max_targets must be >= 1")
    if cache_ttl not in ("5m", "1h"):
        raise ConfigurationError(f"cache_ttl must be '5m' or '1h', not {cache_ttl!r}")
    unique = list(dict.fromkeys(_pair_key(p) for p in pairs))
    if mode == "single":
        return [_single(k, model=model, style=prompt, max_tokens=single_max_tokens) for k in unique]
    order: dict[str, int] = {}
    groups: dict[tuple[str, str], list[str]] = {}
    for topic, source, target in unique:
        order.setdefault(target, len(order))
        groups.setdefault((topic, source), []).append(target)
    out: list[PlannedRequest] = []
    for (topic, source), targets in groups.items():
        targets.sort(key=order.__getitem__)
        for i in range(0, len(targets), max_targets):
            out.append(
                _multi(topic, source, targets[i : i + max_targets], model=model, style=prompt,
                       prompt_caching=prompt_caching, cache_ttl=cache_ttl)
            )
    return out


class ClaudeRelationClassifier:
    """Classifies argument pairs with Claude using the paper's ARC prompts.

    Implements :class:`argfaith.mining.classifiers.base.RelationClassifier`.

    Parameters
    ----------
    model
        Model id (default :data:`argfaith.llm.cost.DEFAULT_MODEL`, the current Haiku).
    mode
        ``"single"`` (the paper's protocol) or ``"multi"`` (one request per source, see module doc).
    prompt
        ``"zero"`` or ``"few"``-shot.
    max_targets
        Targets per multi-target request.
    prompt_caching
        Multi mode: mark the target list for Anthropic prompt caching.
    batch
        Send uncached requests through the Message Batches API (50% cheaper; minutes to hours).
    cache
        The request cache: a :class:`RequestCache`, a path, ``"default"``
        (``$ARGFAITH_CACHE/llm-requests.sqlite``) or None (no persistence).
    max_concurrency
        Parallel requests on the direct route.
    client
        An ``anthropic.Anthropic`` client (default: built from ``$ANTHROPIC_API_KEY`` on first
        uncached request).
    http_client
        An ``httpx2.Client`` for the default client (tests: a mock transport).
    on_error
        ``"raise"`` (default): requests failing after the SDK's retries abort the job (answers so
        far are cached; rerun resumes). ``"fallback"``: their pairs get the fallback label with
        ``fallback=True``, counted in ``usage.errors``.
    poll_interval
        Seconds between batch polls (default: ``$ARGFAITH_BATCH_POLL_SECONDS`` or 30).

    ``shared_budget`` (class attribute): its calls spend one account's budget (rate limits,
    batches, the request cache), so a distributed study keeps it in one process and brokers the
    workers' pairs to it (:mod:`argfaith.study.broker`).
    """

    shared_budget = True

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        mode: Mode = "single",
        prompt: PromptStyle = "zero",
        max_targets: int = DEFAULT_MAX_TARGETS,
        prompt_caching: bool = True,
        batch: bool = False,
        cache: RequestCache | str | Path | None = "default",
        max_concurrency: int = 4,
        client: Any = None,
        http_client: Any = None,
        on_error: Literal["raise", "fallback"] = "raise",
        poll_interval: float | None = None,
        single_max_tokens: int = SINGLE_MAX_TOKENS,
    ) -> None:
        if mode not in ("single", "multi"):
            raise ConfigurationError(f"Claude classifier mode must be 'single' or 'multi', not {mode!r}")
        if prompt not in ("zero", "few"):
            raise ConfigurationError(f"Claude classifier prompt must be 'zero' or 'few', not {prompt!r}")
        if on_error not in ("raise", "fallback"):
            raise ConfigurationError(f"on_error must be 'raise' or 'fallback', not {on_error!r}")
        self.model = model
        self.mode: Mode = mode
        self.prompt: PromptStyle = prompt
        self.max_targets = int(max_targets)
        self.prompt_caching = bool(prompt_caching)
        self.batch = bool(batch)
        self.on_error = on_error
        self.single_max_tokens = int(single_max_tokens)
        if isinstance(cache, RequestCache) or cache is None:
            self.cache = cache
        else:
            self.cache = RequestCache(default_cache_path() if cache == "default" else Path(cache))
        factory = None
        if client is None:
            from argfaith.llm.client import make_client

            factory = (lambda: make_client(http_client=http_client)) if http_client is not None else make_client
        self._runner = LLMRunner(
            model,
            client=client,
            client_factory=factory,
            cache=self.cache,
            max_concurrency=max_concurrency,
            use_batches=self.batch,
            **({"poll_interval": poll_interval} if poll_interval is not None else {}),
            on_error="return" if on_error == "fallback" else "raise",
        )
        self._multi_fallback_pairs = 0
        self._multi_fallback_requests = 0
        self._pairs = 0
        parts = [f"{prompt}-shot"] + (["multi"] if mode == "multi" else []) + (["batch"] if batch else [])
        self.name = f"claude:{model} ({', '.join(parts)})"

    # -- protocol -----------------------------------------------------------------------------------
    @property
    def usage(self) -> Usage:
        """Cumulative usage: ``calls`` = API requests answered (cache hits excluded); ``input_tokens``
        = all prompt tokens (uncached + cache writes + cache reads); ``extra`` has the breakdown,
        ``fallbacks`` (unparseable answers), ``refusals`` (requests the model declined: their pairs
        get the fallback label, are not cached, and are asked again by a rerun), ``truncated``
        (answers still stopped at ``max_tokens`` after larger budgets), ``multi_fallback_pairs``
        (pairs re-asked singly) and
        ``cost_known`` (0 when the model has no price card, so ``cost_usd`` is 0)."""
        s = self._runner.usage.snapshot()
        return Usage(
            calls=s.requests,
            cache_hits=s.cache_hits,
            input_tokens=s.input_tokens + s.cache_creation_input_tokens + s.cache_read_input_tokens,
            output_tokens=s.output_tokens,
            cost_usd=s.cost_usd or 0.0,
            errors=s.errors,
            extra={
                "uncached_input_tokens": float(s.input_tokens),
                "cache_creation_input_tokens": float(s.cache_creation_input_tokens),
                "cache_read_input_tokens": float(s.cache_read_input_tokens),
                "batch_requests": float(s.batch_requests),
                "fallbacks": float(s.fallbacks),
                "refusals": float(s.refusals),
                "truncated": float(s.truncated),
                "multi_fallback_pairs": float(self._multi_fallback_pairs),
                "multi_fallback_requests": float(self._multi_fallback_requests),
                "pairs": float(self._pairs),
                "cost_known": 1.0 if s.cost_usd is not None else 0.0,
            },
        )

    def plan(self, pairs: Sequence[PairQuery]) -> list[PlannedRequest]:
        """The requests :meth:`classify` would send for ``pairs`` (before the cache)."""
        return plan_requests(
            pairs,
            mode=self.mode,
            prompt=self.prompt,
            model=self.model,
            max_targets=self.max_targets,
            prompt_caching=self.prompt_caching,
            single_max_tokens=self.single_max_tokens,
            cache_ttl="1h" if self.batch else "5m",
        )

    def check_requests(self, pairs: Sequence[PairQuery]) -> None:
        """Before a run: without ``ANTHROPIC_API_KEY`` (and no injected client), fail at once naming
        how many of the *whole run's* requests are not in the request cache — not only those of the
        first chunk the runner would reach.

        Raises
        ------
        argfaith.llm.MissingAPIKeyError
            Some of the requests for ``pairs`` are not cached and no key is set.
        """
        from argfaith.llm.client import api_key_available

        if self._runner.client is not None or api_key_available() or not pairs:
            return
        keys = {pr.request.key for pr in self.plan(pairs)}
        cached = len(self.cache.get_many(keys)) if self.cache is not None else 0
        missing = len(keys) - cached
        if missing:
            raise MissingAPIKeyError(
                f"ANTHROPIC_API_KEY is not set: this run needs {len(keys):,} request(s) to Claude for {len(pairs):,} pair(s), "
                f"{missing:,} of them not in the request cache (plus single-pair re-asks of any garbled multi-target "
                "answer); export the key, or price the run with --dry-run, or use an offline classifier"
            )

    def classify(self, pairs: Sequence[PairQuery], *, progress: ProgressCallback | None = None) -> list[Prediction]:
        """One prediction per pair, in order (see the module docstring for the modes).

        Raises
        ------
        argfaith.llm.MissingAPIKeyError
            Some pairs are not cached and ``ANTHROPIC_API_KEY`` is not set.
        argfaith.llm.LLMRequestError
            Requests failed after retries (``on_error="raise"``) or a fatal API error.
        """
        total = len(pairs)
        if total == 0:
            return []
        self._pairs += total
        keys = [_pair_key(p) for p in pairs]
        weight: dict[PairKey, int] = {}
        for k in keys:
            weight[k] = weight.get(k, 0) + 1
        plan = self.plan(pairs)
        by_req = {pr.request.key: pr for pr in plan}
        done = 0

        def tick(_d: int, _t: int, req_key: str) -> None:
            nonlocal done
            pr = by_req.get(req_key)
            if pr is not None and progress is not None:
                done = min(total, done + sum(weight.get(k, 0) for k in pr.pairs))
                progress(done, total)

        comps = self._runner.run([pr.request for pr in plan], progress=tick)
        results: dict[PairKey, Prediction] = {}
        redo: list[PairKey] = []
        fallbacks = 0
        for pr in plan:
            comp = comps[pr.request.key]
            if not comp.ok:  # refused or failed: a stand-in label, not checkpointed (rerun asks again)
                for k in pr.pairs:
                    results[k] = Prediction(FALLBACK_LABEL, fallback=True, raw=None, final=False)
                continue
            if pr.kind == "single":
                pa = parse_answer(comp.text)
                fallbacks += pa.fallback
                results[pr.pairs[0]] = Prediction(pa.label, fallback=pa.fallback, raw=comp.text)
                continue
            pm = parse_multi_answer(comp.text, len(pr.pairs))
            for num, label in pm.labels.items():
                results[pr.pairs[num - 1]] = Prediction(label, raw=comp.text)
            bad = [pr.pairs[i - 1] for i in (*pm.missing, *pm.garbled)]
            if bad:
                self._multi_fallback_requests += 1
                redo.extend(bad)
        if redo:
            # Targets the multi-target answer missed or garbled: ask the paper's single-pair prompt.
            self._multi_fallback_pairs += len(redo)
            singles = [_single(k, model=self.model, style=self.prompt, max_tokens=self.single_max_tokens) for k in redo]
            comps2 = self._runner.run([s.request for s in singles])
            for s in singles:
                comp = comps2[s.request.key]
                if not comp.ok:
                    results[s.pairs[0]] = Prediction(FALLBACK_LABEL, fallback=True, raw=None, final=False)
                    continue
                pa = parse_answer(comp.text)
                fallbacks += pa.fallback
                results[s.pairs[0]] = Prediction(pa.label, fallback=pa.fallback, raw=comp.text)
        if fallbacks:
            self._runner.usage.add(fallbacks=fallbacks)
        if progress is not None:
            progress(total, total)
        return [results[k] for k in keys]

    def __repr__(self) -> str:
        return f"ClaudeRelationClassifier({self.name!r})"


def make_claude_classifier(**options: Any) -> ClaudeRelationClassifier:
    """Factory for the classifier registry: ``make_claude_classifier(mode="multi", prompt="few")``.

    Options are the keyword arguments of :class:`ClaudeRelationClassifier`; string values from a
    command line are accepted (``batch="true"``, ``max_targets="50"``, ``cache="none"``).
    No key is needed to construct it: a missing ``ANTHROPIC_API_KEY`` is reported when the first
    uncached request has to be sent.
    """
    opts = dict(options)
    for k in ("batch", "prompt_caching"):
        if isinstance(opts.get(k), str):
            opts[k] = opts[k].strip().lower() in ("1", "true", "yes", "on")
    for k in ("max_targets", "max_concurrency", "single_max_tokens"):
        if isinstance(opts.get(k), str):
            try:
                opts[k] = int(opts[k])
            except ValueError:
                raise ConfigurationError(f"claude classifier option {k}={opts[k]!r} is not an integer") from None
    if isinstance(opts.get("poll_interval"), str):
        try:
            opts["poll_interval"] = float(opts["poll_interval"])
        except ValueError:
            raise ConfigurationError(f"claude classifier option poll_interval={opts['poll_interval']!r} is not a number") from None
    if isinstance(opts.get("cache"), str) and opts["cache"].lower() in ("none", "off", "no"):
        opts["cache"] = None
    if "model" in opts and opts["model"] is None:
        opts.pop("model")
    try:
        return ClaudeRelationClassifier(**opts)
    except TypeError as e:
        raise ConfigurationError(f"unknown Claude classifier option: {e}") from None
