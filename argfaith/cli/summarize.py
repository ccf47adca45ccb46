"""`argfaith summarize`: summarise a debate with Claude and the paper's summarisation prompt."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from argfaith.cli._app import app
from argfaith.cli._options import at_least

MAX_TOKENS = at_least(16)


class SummaryFormat(str, Enum):
    auto = "auto"
    text = "text"
    json = "json"


@app.command()
def summarize(
    debate: Annotated[Path, typer.Argument(help="EP debate folder, hand-written .json debate, or '[ID] Speaker: text' transcript.")],
    model: Annotated[Optional[str], typer.Option(help="Claude model id (default: the current Haiku).")] = None,
    title: Annotated[bool, typer.Option("--title/--no-title", help="Include the debate title in the prompt (the paper's optional line).")] = True,
    out: Annotated[Optional[Path], typer.Option("--out", "-o", help="Write the summary here (.json: with provenance) instead of stdout.")] = None,
    format: Annotated[SummaryFormat, typer.Option("--format", help="Output format; auto = json for a .json --out, else text.")] = SummaryFormat.auto,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the request size and estimated cost; send nothing.")] = False,
    max_tokens: Annotated[int, typer.Option(callback=MAX_TOKENS, help="Output budget of the summary (>= 16 tokens).")] = 4096,
    cache: Annotated[Optional[Path], typer.Option(help="Request cache file (default: $ARGFAITH_CACHE/llm-requests.sqlite).")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the request cache (a fresh sample).")] = False,
) -> None:
    """Summarise DEBATE with the paper's prompt (needs ANTHROPIC_API_KEY unless --dry-run or cached)."""
    from argfaith.datasets.documents import load_debate
    from argfaith.llm.cache import RequestCache, default_cache_path
    from argfaith.llm.cost import DEFAULT_MODEL
    from argfaith.mining.summarize import estimate_summary_cost, summarize_debate

    model = model or DEFAULT_MODEL
    d = load_debate(debate)
    rc = None if no_cache else RequestCache(cache if cache is not None else default_cache_path())
    if dry_run:
        _print_estimate(d, model=model, title=title, max_tokens=max_tokens, rc=rc, estimate=estimate_summary_cost)
        return
    res = summarize_debate(d, model=model, title=title, max_tokens=max_tokens, cache=rc)
    as_json = format is SummaryFormat.json or (format is SummaryFormat.auto and out is not None and out.suffix.lower() == ".json")
    payload = json.dumps(res.to_json(), ensure_ascii=False, indent=1) + "\n" if as_json else res.text + "\n"
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(payload, encoding="utf-8")
    else:
        sys.stdout.write(payload)
    u = res.usage
    cost = "free (cached)" if res.cached else (f"${u.cost_usd:.4f}" if u.cost_usd is not None else "cost unknown")
    msg = (
        f"{res.model}: {u.requests} request(s), {u.input_tokens:,} input / {u.output_tokens:,} output tokens, {cost}"
        + (f"; written to {out}" if out is not None else "")
    )
    typer.echo(msg, err=True)
    if res.truncated:
        budget = max_tokens * 2**res.escalations
        typer.echo(f"warning: the summary is truncated: it stopped at its output budget even with up to {budget:,} "
                   f"tokens (--max-tokens {max_tokens}, doubled {res.escalations} time(s))", err=True)


def _print_estimate(d, *, model, title, max_tokens, rc, estimate) -> None:  # type: ignore[no-untyped-def]
    e = estimate(d, model=model, title=title, max_tokens=max_tokens, request_cache=rc)
    b = estimate(d, model=model, title=title, max_tokens=max_tokens, request_cache=rc, batch=True)

    def usd(x: float | None) -> str:
        if x is None:
            return "n/a (no price card)"
        return f"${x:.4f}" if x == 0 or x >= 0.01 else f"${x:.6f}"

    lines = [
        f"dry run: nothing sent. debate {e.debate_id}: {e.interventions} interventions",
        f"model {e.model}; 1 request; prompt {e.prompt_chars:,} characters ≈ {e.input_tokens:,} input tokens (estimate)",
        f"output ≤ {e.max_output_tokens:,} tokens (--max-tokens)",
        f"cost: {usd(e.usd_input)} for the prompt, at most {usd(e.usd_max)} with a full-length answer"
        f" (Batches API: {usd(b.usd_input)} – {usd(b.usd_max)})",
    ]
    if e.cached:
        lines.append("already answered in the request cache: a run costs nothing")
    typer.echo("\n".join(lines))
