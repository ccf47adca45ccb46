#!/usr/bin/env python
"""Build the v2 *summary → provision* packets (``sum2-NN``): summary files of ``ep_summaries`` that
are neither in ``data/ep_relations_llm`` (v1 summary part) nor in ``data/distortions`` (the
self-test's written development set); every summary sentence (``plan_summary`` units) against
EVERY provision of the debated resolution. Sentence → sentence pairs are not asked (v1 labelled
them for 12 summaries). Annotators list only support / attack targets (unlisted = no relation).

Usage::

    python scripts/relcorpus2/build_summary.py --data $ARGFAITH_DATA --out WORK/packets [--per-packet 5]

© European Union, source: European Parliament; summaries: github.com/parliview/debate-summ-cross-lingual.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path

from argfaith.datasets.ep import find_ep_debate, read_ep_debate
from argfaith.datasets.summaries import read_summary
from argfaith.errors import DataFormatError
from argfaith.mining.pipeline import plan_summary
from argfaith.mining.units import SUMMARY_POLICY_V1  # the units these packets were built with

HEADER = """# Annotation packet {packet} — summary sentences × provisions

This packet holds {n} LLM-written summaries of European Parliament debates. For each summary you
see the numbered provisions of the resolution debated ([P1] ...) and the summary split into
sentences ([S1] ...). For EVERY summary sentence, decide its relation to EVERY provision of that
debate (only provisions are targets here, not other sentences). Read the guidelines
(guidelines.md) first — note 6 on reported speech. Labels: support / attack / no relation.
Labels restart in each summary, so answers are grouped by summary number.

Your answer is a JSON file (path given in your task) of the form

    {{"packet": "{packet}", "labels": {{"1": {{"S1": {{"P3": "support"}}, "S2": {{}}, ...}}, "2": {{...}}}}, "notes": "..."}}

listing, for each summary sentence, ONLY the provisions it supports or attacks; every provision
you do not list is "no relation". Every sentence key of every summary must be present (an empty
object when the sentence relates to no provision).
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, default=Path("data/ep_relations_llm/pairs.jsonl.gz"))
    ap.add_argument("--distortions", type=Path, default=Path("data/distortions/manifest.jsonl"))
    ap.add_argument("--per-packet", type=int, default=5)
    a = ap.parse_args()
    used = {json.loads(l).get("summary_file") for l in gzip.open(a.corpus, "rt", encoding="utf-8")}
    used |= {json.loads(l)["summary_file"] for l in a.distortions.read_text(encoding="utf-8").splitlines() if l.strip()}
    todo = []
    for f in sorted((a.data / "ep_summaries").glob("*/*.json")):
        if f.name in used:
            continue
        try:
            s = read_summary(f)
        except DataFormatError:
            continue
        deb = read_ep_debate(find_ep_debate(a.data / "ep_debates", s.debate_id), annotations=False)
        todo.append((f.name, s.debate_id, plan_summary(s, deb, policy=SUMMARY_POLICY_V1)))
    a.out.mkdir(parents=True, exist_ok=True)
    for c in range(0, len(todo), a.per_packet):
        packet = f"sum2-{c // a.per_packet + 1:02d}"
        group = todo[c : c + a.per_packet]
        lines = [HEADER.format(packet=packet, n=len(group))]
        summaries = {}
        for j, (fname, did, plan) in enumerate(group, start=1):
            lines.append(f"\n# Summary {j} — TOPIC: {plan.topic}\n\n## Provisions\n")
            m = {}
            for i, p in enumerate(plan.proposals, start=1):
                m[f"P{i}"] = p.id
                lines.append(f"[P{i}] {p.text}")
            lines.append("\n## The summary, sentence by sentence\n")
            sources = {}
            for i, u in enumerate(plan.speech, start=1):
                m[f"S{i}"] = u.id
                lines.append(f"[S{i}] {u.text}")
                sources[f"S{i}"] = {"id": u.id, "position": i - 1, "candidates": [p.id for p in plan.proposals]}
            summaries[str(j)] = {"summary_file": fname, "debate_id": did, "labels": m, "sources": sources,
                                 "n_pairs": len(plan.speech) * len(plan.proposals)}
        (a.out / f"{packet}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (a.out / f"{packet}.map.json").write_text(json.dumps({"packet": packet, "part": "summary2", "summaries": summaries}, indent=1), encoding="utf-8")
        print(packet, [(v["summary_file"], v["n_pairs"]) for v in summaries.values()])
    print(len(todo), "summaries")


if __name__ == "__main__":
    main()
