#!/usr/bin/env python
"""Build the annotation packets of argfaith's EP relation corpus (data/ep_relations_llm).

Two parts are built here (the stance contrasts are written by annotators, see
``contrast_items.py``):

- ``exh-NN``: *exhaustive candidates*. Debates of ``ep_debates`` drawn at random (seeded) among
  those that are not one of the paper's three annotated debates nor one of the 12 debates with
  summaries, with at most ``--max-speech`` sentence units (annotation cost); in each, ``--sources``
  source arguments drawn uniformly among its speech units. Each source is paired with EVERY
  candidate target that ``argfaith mine`` would send for it (``plan_debate``: all proposals + all
  earlier speech units, the temporal constraint) — so the labels give the real prior of
  all-pairs mining (ratio estimator over uniformly drawn sources).
- ``sum-NN``: *summary pairs*. One summary file per debate of ``ep_summaries`` (a fixed mix of
  variants); every summary sentence against every provision and every other summary sentence
  (``plan_summary``, all ordered pairs).

Units and ids come from argfaith's own mining code, so a label keys exactly the pair mining
classifies. Each packet is a Markdown file an annotator reads, plus a ``.map.json`` that maps the
packet's short labels (P3, T57, S4) to unit ids and lists each source's candidate targets.

Usage::

    python scripts/relcorpus/build_packets.py --data $ARGFAITH_DATA --out /work/annot/packets

© European Union, source: European Parliament (the texts in the packets).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from argfaith.datasets.ep import find_ep_debate, list_ep_debates, read_ep_debate
from argfaith.datasets.summaries import read_summary
from argfaith.mining.pipeline import plan_debate, plan_summary
from argfaith.mining.units import SUMMARY_POLICY_V1  # the units these packets were built with

PAPER_DEBATES = ("CRE-20060213-ITEM-013", "CRE-20070905-ITEM-015", "CRE-20080313-ITEM-002")
SEED = 20261201

#: One summary file per debate, variants mixed (gpt variants exist for four debates only).
SUMMARY_CHOICE = {
    "CRE-20060213-ITEM-012": "claude_structured_en",
    "CRE-20060213-ITEM-013": "claude_structured_org",
    "CRE-20060213-ITEM-015": "gpt_structured_org",
    "CRE-20060214-ITEM-004": "claude_structured_org",
    "CRE-20060214-ITEM-006": "claude_en_zero_shot",
    "CRE-20060314-ITEM-006": "claude_en_zero_shot",
    "CRE-20060314-ITEM-022": "claude_org_zero_shot",
    "CRE-20060315-ITEM-009": "claude_structured_en",
    "CRE-20060322-ITEM-016": "claude_structured_en",
    "CRE-20060323-ITEM-005": "claude_structured_en",
    "CRE-20060403-ITEM-012": "claude_org_zero_shot",
    "CRE-20060404-ITEM-006": "claude_en_zero_shot",
}

HEADER_EXH = """# Annotation packet {packet} — exhaustive candidates

TOPIC (debate title): {topic}

You will label {n_sources} SOURCE arguments (sentences of speeches in this debate). Each source is
compared with EVERY candidate target listed for it: all provisions of the resolution ([P1] ...)
and every earlier sentence of the debate ([T1] ... up to the sentence just before the source).
Read the guidelines (guidelines.md) first. Labels: support / attack / no relation.

Your answer is a JSON file (path given in your task) of the form

    {{"packet": "{packet}", "labels": {{"A": {{"P3": "support", "T12": "attack"}}, "B": {{}}, ...}}, "notes": "..."}}

listing, for each source (A, B, ...), ONLY the targets it supports or attacks; every candidate
you do not list is "no relation". Every source key must be present (an empty object when the
source relates to nothing). Only use target labels from that source's candidate range.

## Provisions of the resolution (proposal arguments)

"""

HEADER_SUM = """# Annotation packet {packet} — summary pairs

TOPIC (debate title): {topic}

Below are the numbered provisions of the resolution debated ([P1] ...) and an LLM-written summary
of the debate split into sentences ([S1] ...). For EVERY summary sentence, decide its relation to
EVERY provision and to EVERY other summary sentence (a summary has no time order: S9 may support
S2). Read the guidelines (guidelines.md) first. Labels: support / attack / no relation.

Your answer is a JSON file (path given in your task) of the form

    {{"packet": "{packet}", "labels": {{"S1": {{"P3": "support", "S4": "attack"}}, "S2": {{}}, ...}}, "notes": "..."}}

listing, for each summary sentence, ONLY the targets it supports or attacks; every candidate you do
not list is "no relation". Every sentence key S1..S{n} must be present (an empty object when the
sentence relates to nothing). A sentence is never paired with itself.

## Provisions of the resolution (proposal arguments)

"""


def _props_block(plan) -> tuple[list[str], dict[str, str]]:
    lines, m = [], {}
    for i, p in enumerate(plan.proposals, start=1):
        m[f"P{i}"] = p.id
        lines.append(f"[P{i}] {p.text}")
    return lines, m


def exhaustive_packets(data: Path, out: Path, n_debates: int, n_sources: int, max_speech: int) -> list[dict]:
    rng = random.Random(SEED)
    root = data / "ep_debates"
    excluded = set(PAPER_DEBATES) | set(SUMMARY_CHOICE)
    folders = [p for p in list_ep_debates(root) if p.name not in excluded]
    rng.shuffle(folders)
    made: list[dict] = []
    for folder in folders:
        if len(made) == n_debates:
            break
        deb = read_ep_debate(folder, annotations=False)
        plan = plan_debate(deb, units="sentences")
        n = len(plan.speech)
        if n < 30 or n > max_speech or not plan.proposals:
            continue
        picks = sorted(rng.sample(range(n), n_sources))
        packet = f"exh-{len(made) + 1:02d}"
        lines, m = _props_block(plan)
        text = [HEADER_EXH.format(packet=packet, topic=plan.topic, n_sources=n_sources), *lines, ""]
        last = picks[-1]
        text.append(f"## The debate up to the last source (speech arguments T1..T{last}, in debate order)\n")
        cur = None
        for i, u in enumerate(plan.speech[:last]):
            if u.document != cur:
                cur = u.document
                text.append(f"\n### Speech {u.intervention_position} — {u.speaker or 'unknown speaker'}\n")
            m[f"T{i + 1}"] = u.id
            text.append(f"[T{i + 1}] {u.text}")
        text.append("\n## Sources to annotate\n")
        sources = {}
        for letter, i in zip("ABCDEFGH", picks):
            u = plan.speech[i]
            speech = [v for v in plan.speech if v.document == u.document]
            ctx = " ".join(("»" + v.text + "«") if v.id == u.id else v.text for v in speech)
            cands = [p.id for p in plan.proposals] + [v.id for v in plan.speech[:i]]
            sources[letter] = {"id": u.id, "position": i, "candidates": cands}
            rng_t = f"T1–T{i}" if i else "none (the source is the first argument of the debate)"
            text.append(
                f"### Source {letter} (speech {u.intervention_position}, {u.speaker or 'unknown speaker'})\n\n"
                f"SOURCE {letter}: {u.text}\n\n"
                f"Candidate targets of {letter}: all provisions P1–P{len(plan.proposals)}; speech arguments {rng_t}.\n\n"
                f"(Context only, not a target: the whole speech, the source between »«: {ctx})\n"
            )
        (out / f"{packet}.md").write_text("\n".join(text) + "\n", encoding="utf-8")
        meta = {"packet": packet, "part": "exhaustive", "debate_id": deb.id, "topic": plan.topic, "n_speech": n,
                "n_proposals": len(plan.proposals), "labels": m, "sources": sources,
                "n_pairs": sum(len(s["candidates"]) for s in sources.values())}
        (out / f"{packet}.map.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        made.append(meta)
    return made


def summary_packets(data: Path, out: Path) -> list[dict]:
    made: list[dict] = []
    for k, (debate_id, variant) in enumerate(sorted(SUMMARY_CHOICE.items()), start=1):
        deb = read_ep_debate(find_ep_debate(data / "ep_debates", debate_id), annotations=False)
        summ = read_summary(data / "ep_summaries" / debate_id / f"{debate_id}_{variant}.json")
        plan = plan_summary(summ, deb, policy=SUMMARY_POLICY_V1)
        packet = f"sum-{k:02d}"
        lines, m = _props_block(plan)
        n = len(plan.speech)
        text = [HEADER_SUM.format(packet=packet, topic=plan.topic, n=n), *lines, "", "## The summary, sentence by sentence\n"]
        sources = {}
        for i, u in enumerate(plan.speech, start=1):
            m[f"S{i}"] = u.id
            text.append(f"[S{i}] {u.text}")
        for i, u in enumerate(plan.speech, start=1):
            cands = [p.id for p in plan.proposals] + [v.id for v in plan.speech if v.id != u.id]
            sources[f"S{i}"] = {"id": u.id, "position": i - 1, "candidates": cands}
        (out / f"{packet}.md").write_text("\n".join(text) + "\n", encoding="utf-8")
        meta = {"packet": packet, "part": "summary", "debate_id": debate_id, "summary_file": f"{debate_id}_{variant}.json",
                "variant": variant, "topic": plan.topic, "n_speech": n, "n_proposals": len(plan.proposals),
                "labels": m, "sources": sources, "n_pairs": sum(len(s["candidates"]) for s in sources.values())}
        (out / f"{packet}.map.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        made.append(meta)
    return made


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--debates", type=int, default=15)
    ap.add_argument("--sources", type=int, default=3)
    ap.add_argument("--max-speech", type=int, default=400)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    ex = exhaustive_packets(a.data, a.out, a.debates, a.sources, a.max_speech)
    su = summary_packets(a.data, a.out)
    for m in ex + su:
        print(f"{m['packet']}  {m['debate_id']}  sources={len(m['sources'])}  pairs={m['n_pairs']}")
    print(f"exhaustive pairs {sum(m['n_pairs'] for m in ex)}; summary pairs {sum(m['n_pairs'] for m in su)}")


if __name__ == "__main__":
    main()
