#!/usr/bin/env python
"""Packets for labelling the relation pairs that written distortions CREATE (issue 21's ceiling):
every new sentence text (inserted or replacing one) × every provision, × every sentence of the
original summary (both directions), and × the other new sentences of the same distortion (both
directions). With the summary's own pairs labelled in ``data/ep_relations_llm`` (all ordered pairs
of these 12 summaries), every pair of every distorted summary then has an annotator label.

Annotators list only support / attack (unlisted = no relation); they are not told which kind of
distortion a new sentence belongs to.

    python scripts/distortions/build_pair_packets.py --data $ARGFAITH_DATA --manifest M/manifest.jsonl --out WORK/pairs
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from argfaith.datasets.ep import find_ep_debate, read_ep_debate
from argfaith.datasets.summaries import read_summary
from argfaith.mining.units import EDIT_POLICY, proposal_units, summary_units

HEADER = """# Labelling packet {packet} — new sentences of edited summaries

This packet holds {n} LLM-written summaries of European Parliament debates. For each you see the
provisions of the resolution debated ([P..]), the summary's sentences ([S..]) and some NEW
sentences ([N..]) that were written into edited versions of the summary (each new sentence belongs
to one edited version, named in brackets; sentences of the same version can relate to each other).
Read the guidelines (guidelines.md) first (note 6: reported speech counts as the argument it reports).

For EVERY new sentence N, list:
- `out`: the provisions P, summary sentences S and same-version new sentences N that it SUPPORTS or ATTACKS;
- `in`: the summary sentences S and same-version new sentences N that support or attack IT.
Unlisted = no relation. Every N key must be present (empty objects when it relates to nothing).

Answer (JSON, path in your task):

    {{"packet": "{packet}", "labels": {{"1": {{"N1": {{"out": {{"P3": "support", "S4": "attack"}}, "in": {{"S9": "support"}}}}, ...}}, "2": {{...}}}}, "notes": "..."}}

(outer keys = summary number in this packet).
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--manifest", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--per-packet", type=int, default=4)
    a = ap.parse_args()
    rows = [json.loads(l) for l in a.manifest.read_text(encoding="utf-8").splitlines() if l.strip()]
    by_file: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_file[r["summary_file"]].append(r)
    files = sorted(by_file)
    a.out.mkdir(parents=True, exist_ok=True)
    for c in range(0, len(files), a.per_packet):
        packet = f"dpair-{c // a.per_packet + 1:02d}"
        lines = [HEADER.format(packet=packet, n=len(files[c : c + a.per_packet]))]
        summaries = {}
        for j, fname in enumerate(files[c : c + a.per_packet], start=1):
            did = by_file[fname][0]["debate_id"]
            deb = read_ep_debate(find_ep_debate(a.data / "ep_debates", did), annotations=False)
            props = proposal_units(deb)
            units = summary_units(read_summary(a.data / "ep_summaries" / did / fname), policy=EDIT_POLICY).units
            lines.append(f"\n# Summary {j} — TOPIC: {deb.topic}\n\n## Provisions\n")
            m: dict[str, object] = {}
            for i, p in enumerate(props, start=1):
                m[f"P{i}"] = p.id
                lines.append(f"[P{i}] {p.text}")
            lines.append("\n## The summary\n")
            for i, u in enumerate(units, start=1):
                m[f"S{i}"] = u.id
                lines.append(f"[S{i}] {u.text}")
            lines.append("\n## New sentences (of edited versions)\n")
            news: dict[str, dict] = {}
            k = 0
            for v, r in enumerate(by_file[fname], start=1):
                for e in r["edits"]:
                    if e["op"] == "delete":
                        continue
                    k += 1
                    where = f"replaces S{e['sentence']}" if e["op"] == "replace" else f"inserted after S{e['sentence']}"
                    news[f"N{k}"] = {"distortion": r["id"], "text": e["text"], "version": v}
                    lines.append(f"[N{k}] (version {v}; {where}) {e['text']}")
            summaries[str(j)] = {"summary_file": fname, "debate_id": did, "labels": m, "new": news}
        (a.out / f"{packet}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (a.out / f"{packet}.map.json").write_text(json.dumps({"packet": packet, "summaries": summaries}, indent=1), encoding="utf-8")
        print(packet, [(s["summary_file"], len(s["new"])) for s in summaries.values()])


if __name__ == "__main__":
    main()
