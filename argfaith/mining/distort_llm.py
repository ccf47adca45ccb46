"""LLM-written summary distortions (with a Claude key): the self-test's ``--distortions llm``.

Claude receives the debate title, the provision and the summary split into numbered sentences
(the units argfaith mines, ``S1..Sn``), and the brief of one distortion kind — the same brief the
written development set (``data/distortions``) was made with — and answers with edits in JSON:

    {"edits": [{"op": "delete"|"replace"|"insert_after", "sentence": 7, "text": "..."}],
     "original_stance": "support"|"oppose"|"none"}

Requests go through :mod:`argfaith.llm` (persistent request cache — a rerun pays nothing —, retries,
optional Batches API) and are priced offline by :func:`estimate_distortion_cost` (``--dry-run``). An
answer that does not parse, or whose edits do not apply, is reported and that distortion skipped:
never a silent fallback to rules.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from argfaith.datasets.documents import Debate, Summary
from argfaith.errors import ConfigurationError
from argfaith.mining.distort import EXPECTED, KINDS, Distortion, SummaryEdit, apply_edits
from argfaith.mining.units import EDIT_POLICY, proposal_units, summary_units

__all__ = ["DISTORT_TEMPLATE_VERSION", "distortion_prompt", "parse_distortion_answer", "LLMDistorter", "estimate_distortion_cost"]

DISTORT_TEMPLATE_VERSION = "distort-v1"
DISTORT_SYSTEM = (
    "You write controlled distortions of parliamentary debate summaries for the evaluation of a faithfulness metric. "
    "You answer with JSON only."
)
BRIEFS = {
    "omit": "Remove every part of the summary that argues about the provision (delete sentences that are only about it; "
            "replace a sentence that also says other things by a version without the part about the provision). Change nothing else.",
    "invert": "Rewrite EVERY sentence that argues about the provision so that its stated stance is reversed (speakers who backed it "
              "now opposed it, arguments for it become arguments against it, or vice versa), with minimal edits. Change nothing else.",
    "fabricate_support": "Insert one or two sentences, in the summary's own style, claiming that speakers backed the provision and "
                         "giving a plausible reason built from its text. Change nothing else.",
    "fabricate_attack": "Insert one or two sentences, in the summary's own style, claiming that speakers opposed the provision and "
                        "giving a plausible reason built from its text. Change nothing else.",
}


def distortion_prompt(topic: str, provision: str, sentences: Sequence[str], kind: str) -> str:
    """The user prompt for one distortion (sentences numbered S1..Sn)."""
    if kind not in KINDS:
        raise ConfigurationError(f"unknown distortion kind {kind!r}")
    lines = [f"TOPIC (debate title): {topic}", "", f"PROVISION: {' '.join(provision.split())}", "", "SUMMARY, sentence by sentence:"]
    lines += [f"[S{i}] {' '.join(s.split())}" for i, s in enumerate(sentences, start=1)]
    lines += ["", f"TASK ({kind}): {BRIEFS[kind]}", "",
              'Answer with JSON only: {"edits": [{"op": "delete"|"replace"|"insert_after", "sentence": <n>, "text": "..."}], '
              '"original_stance": "support"|"oppose"|"none"} — sentence numbers are the [S..] numbers above (insert_after 0 = '
              "before S1); each sentence at most once; original_stance = the summary's stance on the provision BEFORE your edit."]
    return "\n".join(lines)


_JSON = re.compile(r"\{.*\}", re.S)


def parse_distortion_answer(text: str, n_sentences: int) -> tuple[list[SummaryEdit], str] | None:
    """(edits, original stance) from an answer, or None when it does not parse into valid edits."""
    m = _JSON.search(text or "")
    if not m:
        return None
    try:
        d = json.loads(m.group(0))
        edits = [SummaryEdit(e["op"], int(e["sentence"]), e.get("text")) for e in d["edits"]]
    except (ValueError, KeyError, TypeError, ConfigurationError):
        return None
    if not edits or any(not (0 if e.op == "insert_after" else 1) <= e.sentence <= n_sentences for e in edits):
        return None
    stance = str(d.get("original_stance", "none")).lower()
    return edits, stance if stance in ("support", "oppose") else "none"


@dataclass
class _Planned:
    provision: str
    kind: str
    request: Any


class LLMDistorter:
    """Plans, prices and runs LLM-written distortions through :mod:`argfaith.llm`."""

    def __init__(self, model: str | None = None, *, cache: Any = "default", batch: bool = False, client: Any = None,
                 http_client: Any = None, max_tokens: int = 1200) -> None:
        from argfaith.llm import DEFAULT_MODEL

        self.model = model or DEFAULT_MODEL
        self.cache_path = cache
        self.batch = batch
        self.client = client
        self.http_client = http_client
        self.max_tokens = max_tokens
        self.problems: list[str] = []
        #: Distortions the model declined to write (refusals: not cached, asked again by the next run).
        self.refused = 0

    def plan(self, summary: Summary, debate: Debate, provisions: Sequence[str], kinds: Sequence[str]) -> list[_Planned]:
        from argfaith.llm import build_request

        sents = [u.text for u in summary_units(summary, policy=EDIT_POLICY).units]
        props = {p.id: p.text for p in proposal_units(debate)}
        out = []
        for pid in provisions:
            if pid not in props:
                raise ConfigurationError(f"provision {pid!r} is not a provision of debate {debate.id!r}")
            for kind in kinds:
                user = distortion_prompt(debate.topic, props[pid], sents, kind)
                req = build_request(model=self.model, system=DISTORT_SYSTEM, user=user, max_tokens=self.max_tokens,
                                    template_version=DISTORT_TEMPLATE_VERSION,
                                    inputs={"topic": debate.topic, "provision": props[pid], "sentences": sents, "kind": kind})
                out.append(_Planned(pid, kind, req))
        return out

    def distortions(self, summary: Summary, debate: Debate, provisions: Sequence[str], kinds: Sequence[str]) -> list[Distortion]:
        """Ask Claude (cache first) and turn every valid answer into a :class:`Distortion`."""
        from pathlib import Path

        from argfaith.llm import LLMRunner, RequestCache, default_cache_path, make_client

        planned = self.plan(summary, debate, provisions, kinds)
        if not planned:
            return []
        cache = None
        if self.cache_path is not None:
            cache = RequestCache(default_cache_path() if self.cache_path == "default" else Path(self.cache_path))
        factory = None
        if self.client is None:
            factory = (lambda: make_client(http_client=self.http_client)) if self.http_client is not None else make_client
        runner = LLMRunner(self.model, client=self.client, client_factory=factory, cache=cache, use_batches=self.batch)
        try:
            answers = runner.run([p.request for p in planned])
        finally:
            if cache is not None:
                cache.close()
        units = summary_units(summary, policy=EDIT_POLICY).units
        out = []
        for p in planned:
            answer = answers[p.request.key]
            if getattr(answer, "refused", False):  # stop_reason "refusal": not an answer, not cached
                self.refused += 1
                self.problems.append(f"{p.kind} about {p.provision}: the model declined to write it (refusal, not "
                                     "cached: the item is not final, so a rerun asks again) (skipped)")
                continue
            parsed = parse_distortion_answer(answer.text, len(units))
            if parsed is None:
                self.problems.append(f"{p.kind} about {p.provision}: the answer is not valid edits (skipped)")
                continue
            edits, stance = parsed
            try:
                apply_edits(summary, edits, units=units)
            except ConfigurationError as e:
                self.problems.append(f"{p.kind} about {p.provision}: {e} (skipped)")
                continue
            expected = EXPECTED[p.kind]
            if p.kind == "invert":
                expected = {"support": "down", "oppose": "up"}.get(stance, "cross")
            out.append(Distortion(p.kind, p.provision, tuple(edits), f"llm:{self.model}", expected=expected))
        return out


def estimate_distortion_cost(requests: Sequence[Any], model: str, *, batch: bool = False, max_tokens: int = 1200) -> dict[str, Any]:
    """Offline price of LLM distortion requests: input tokens estimated from the prompt size,
    output between 60 tokens and ``max_tokens`` (argfaith.llm.cost)."""
    from argfaith.llm.cost import TokenCounts, TokenEstimator, cost_usd, price_for

    card = price_for(model, strict=False)
    est = TokenEstimator.for_model(card or model)
    tokens = sum(est.request_tokens(r.input_chars) for r in requests)
    out = {"model": model, "requests": len(requests), "input_tokens": tokens, "batch": batch}
    if card is None:
        out.update(cost_low=None, cost_high=None, note=f"no price card for {model!r}")
    else:
        out.update(cost_low=round(cost_usd(card, TokenCounts(tokens, 60 * len(requests)), batch=batch), 4),
                   cost_high=round(cost_usd(card, TokenCounts(tokens, max_tokens * len(requests)), batch=batch), 4))
    return out
