"""An LLM judge for argument alignment (``--align llm``), through :mod:`argfaith.llm`.

For every summary argument the judge sees the summary statement and a numbered list of source
arguments (in chunks of at most ``chunk_size``) and rates, per source argument, how well the
statement restates it — same claim, same stance — from 0 to 100. Ratings / 100 form the
similarity matrix, which :func:`~argfaith.metrics.alignment.match_scores` turns into a
one-to-one alignment above ``threshold``.

Cost: ⌈|X_s| / chunk_size⌉ requests per summary argument (a 200-argument debate and a
60-argument summary: 60 × 5 = 300 requests), all cached in the shared request cache so a rerun
is free, optionally through the Message Batches API (half price).

Transcript text is untrusted: white space inside every text is collapsed (so a text cannot forge
extra numbered lines), and only the model's answer is parsed — lines ``<number>: <rating>`` with a
number in range; anything else is ignored, unrated candidates count as 0 and are counted in the
alignment's ``details``. A request the model declines (``stop_reason: "refusal"``) leaves its
candidates unrated, is counted in ``details["refused"]`` and is not cached (a rerun asks again).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from argfaith.errors import ConfigurationError
from argfaith.metrics.alignment import AlignItem, Alignment, _as_items, _check_threshold, match_scores

__all__ = ["ALIGN_TEMPLATE_VERSION", "ALIGN_SYSTEM", "align_prompt", "parse_ratings", "LLMJudgeAligner"]

#: Bump when the prompt text changes (it is part of every cache key).
ALIGN_TEMPLATE_VERSION = "argfaith-align-v1"

ALIGN_SYSTEM = (
    "You are an expert in argumentation. You compare one statement taken from a summary of a debate "
    "with arguments made in the debate itself, and judge whether the statement expresses the same argument."
)

_RATING_RE = re.compile(r"^\s*\[?(\d{1,4})\]?\s*[:=.)-]\s*(\d{1,3}(?:\.\d+)?)\s*%?\s*$")


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def align_prompt(summary_statement: str, source_arguments: Sequence[str], topic: str | None = None) -> str:
    """The user prompt for one summary statement and a chunk of source arguments."""
    lines = [f"Debate topic: {_one_line(topic)}", ""] if topic else []
    lines += [f"Summary statement: {_one_line(summary_statement)}", "", "Debate arguments:"]
    lines += [f"{i}. {_one_line(t)}" for i, t in enumerate(source_arguments, start=1)]
    lines += [
        "",
        "For each numbered debate argument, rate from 0 to 100 how well the summary statement expresses the "
        "same argument: the same claim with the same stance (100 = it restates the argument; 50 = it expresses "
        "it only in part; 0 = unrelated, or the opposite stance). Answer with one line per debate argument in the "
        "form <number>: <rating> and nothing else.",
    ]
    return "\n".join(lines)


def parse_ratings(answer: str, k: int) -> list[float | None]:
    """Ratings in [0, 1] for candidates 1..k from the model's answer; None where missing.

    Only lines of the form ``<number>: <rating>`` count; the first rating of a number wins;
    ratings above 100 are clipped; numbers outside 1..k are ignored.
    """
    out: list[float | None] = [None] * k
    for line in answer.splitlines():
        m = _RATING_RE.match(line)
        if not m:
            continue
        i = int(m.group(1))
        if 1 <= i <= k and out[i - 1] is None:
            out[i - 1] = min(100.0, float(m.group(2))) / 100.0
    return out


class LLMJudgeAligner:
    """Align speech arguments with an LLM judge (see the module docstring).

    Parameters
    ----------
    threshold : float
        Minimum rating / 100 for a pair (default 0.5).
    model : str, optional
        Claude model id (default: :data:`argfaith.llm.DEFAULT_MODEL`).
    topic : str, optional
        Debate title, given to the judge as context.
    chunk_size : int
        Source arguments per request.
    cache : path, "default" or None
        The request cache (``"default"``: ``$ARGFAITH_CACHE/llm-requests.sqlite``).
    batch : bool
        Send uncached requests through the Message Batches API.
    max_concurrency : int
        Parallel requests on the direct route.
    client, http_client :
        Injected Anthropic client / httpx client (tests). The key is read from
        ``ANTHROPIC_API_KEY`` only, and only when some request is not cached.
    progress : callable, optional
        ``progress(done, total)`` after each answered request.
    """

    name = "llm"
    needs_text = True

    def __init__(
        self,
        threshold: float = 0.5,
        *,
        model: str | None = None,
        topic: str | None = None,
        chunk_size: int = 40,
        cache: str | os.PathLike[str] | None = "default",
        batch: bool = False,
        max_concurrency: int = 4,
        client: Any = None,
        http_client: Any = None,
        one_to_one: bool = True,
        progress: Any = None,
    ) -> None:
        from argfaith.llm import DEFAULT_MODEL

        _check_threshold(threshold, "llm")
        if chunk_size < 1:
            raise ConfigurationError(f"llm alignment: chunk_size must be >= 1, got {chunk_size}")
        self.threshold = float(threshold)
        self.model = model or DEFAULT_MODEL
        self.topic = topic
        self.chunk_size = int(chunk_size)
        self.cache_path = cache
        self.batch = batch
        self.max_concurrency = max_concurrency
        self.client = client
        self.http_client = http_client
        self.one_to_one = one_to_one
        self.progress = progress

    def requests(self, source: Sequence[AlignItem], summary: Sequence[AlignItem]) -> list[tuple[int, int, Any]]:
        """(summary index, first source index of the chunk, LLMRequest) for every request."""
        from argfaith.llm import build_request

        out = []
        for j, s in enumerate(summary):
            for start in range(0, len(source), self.chunk_size):
                chunk = [_one_line(a.text) for a in source[start : start + self.chunk_size]]
                req = build_request(
                    model=self.model,
                    system=ALIGN_SYSTEM,
                    user=align_prompt(s.text, chunk, self.topic),
                    max_tokens=16 + 8 * len(chunk),
                    template_version=ALIGN_TEMPLATE_VERSION,
                    inputs={"topic": self.topic, "statement": _one_line(s.text), "arguments": chunk},
                )
                out.append((j, start, req))
        return out

    def scores(self, source: Sequence[AlignItem], summary: Sequence[AlignItem]) -> tuple[np.ndarray, dict[str, Any]]:
        """The (source × summary) rating matrix in [0, 1] and run diagnostics."""
        from argfaith.llm import LLMRunner, RequestCache, default_cache_path, make_client

        reqs = self.requests(source, summary)
        s = np.zeros((len(source), len(summary)))
        if not reqs:
            return s, {"requests": 0, "unrated": 0}
        cache = None
        if self.cache_path is not None:
            cache = RequestCache(default_cache_path() if self.cache_path == "default" else Path(self.cache_path))
        factory = None
        if self.client is None:
            factory = (lambda: make_client(http_client=self.http_client)) if self.http_client is not None else make_client
        runner = LLMRunner(
            self.model, client=self.client, client_factory=factory, cache=cache,
            max_concurrency=self.max_concurrency, use_batches=self.batch,
        )
        prog = self.progress
        try:
            answers = runner.run([r for _, _, r in reqs], progress=(lambda d, n, _k: prog(d, n)) if prog else None)
        finally:
            if cache is not None:
                cache.close()
        unrated = 0
        for j, start, req in reqs:
            k = min(self.chunk_size, len(source) - start)
            for i, v in enumerate(parse_ratings(answers[req.key].text, k)):
                if v is None:
                    unrated += 1
                else:
                    s[start + i, j] = v
        usage = runner.usage.snapshot().as_dict()
        # A refused request leaves its candidates unrated (0); it is not cached, a rerun asks again.
        refused = sum(1 for _, _, r in reqs if answers[r.key].refused)
        return s, {"requests": len(reqs), "unrated": unrated, "refused": refused, "usage": usage}

    def align(self, source: Sequence[AlignItem], summary: Sequence[AlignItem]) -> Alignment:
        src = _as_items(source, "source")
        summ = _as_items(summary, "summary")
        s, diag = self.scores(src, summ)
        pairs = match_scores(s, [i.id for i in src], [i.id for i in summ], threshold=self.threshold, one_to_one=self.one_to_one)
        det = {
            "model": self.model,
            "template": ALIGN_TEMPLATE_VERSION,
            "chunk_size": self.chunk_size,
            "batch": self.batch,
            "one_to_one": self.one_to_one,
            **diag,
        }
        return Alignment(pairs, self.name, self.threshold, len(src), len(summ), MappingProxyType(det))
