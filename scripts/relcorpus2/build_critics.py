#!/usr/bin/env python
"""Find speeches that criticise the report, for the v2 exhaustive evaluation part (issue 20: ≥ 10
exhaustive sources whose speech criticises the report). A reader (``crit-NN`` packet) lists, per
debate, the speeches that criticise the report / resolution or a substantial part of it; sources
are then drawn uniformly from those speeches (``build_exhaustive.py --critic-answers``).

Debates: drawn at random (seeded) among those not used by any part of the corpus (v1 or v2), not
the paper's three, not reserved, not the 12 summary debates, with 80-300 sentence units and at
least three speeches with an opposition cue.

    python scripts/relcorpus2/build_critics.py --data $ARGFAITH_DATA --work WORK
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CRITICAL, PAPER_DEBATES, RESERVED_DEBATES, SUMMARY_DEBATES  # noqa: E402

from argfaith.datasets.ep import list_ep_debates, read_ep_debate  # noqa: E402
from argfaith.mining.pipeline import plan_debate  # noqa: E402

HEADER = """# Reading packet {packet} — which speeches criticise the report?

Below are {n} European Parliament debates, each with the resolution (report) under debate and the
speeches. For each debate, list the speeches (by their number) that CRITICISE the report /
resolution, or a substantial part of it: the speaker argues that provisions are wrong, harmful,
insufficient or go too far, announces a vote against with reasons, or attacks the report's
approach. Do NOT list speeches that only criticise the Commission, the Council, a third country
or the state of the world while agreeing with the report, nor speeches whose only criticism is of
one minor detail.

Answer (JSON, path given in your task):

    {{"packet": "{packet}", "critical": {{"1": [{{"speech": 7, "why": "<= 15 words"}}, ...], "2": [...]}}, "notes": "..."}}
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, default=Path("data/ep_relations_llm/pairs.jsonl.gz"))
    ap.add_argument("--debates", type=int, default=6)
    ap.add_argument("--per-packet", type=int, default=3)
    a = ap.parse_args()
    used = {json.loads(l)["debate_id"] for l in gzip.open(a.corpus, "rt", encoding="utf-8")}
    for p in (a.work / "packets").glob("*.map.json"):
        m = json.loads(p.read_text())
        if "debate_id" in m:
            used.add(m["debate_id"])
        for d in (m.get("debates") or {}).values():
            used.add(d["debate_id"])
    excluded = used | set(PAPER_DEBATES) | set(RESERVED_DEBATES) | set(SUMMARY_DEBATES)
    rng = random.Random(20261207)
    folders = [p for p in list_ep_debates(a.data / "ep_debates") if p.name not in excluded]
    rng.shuffle(folders)
    chosen = []
    for folder in folders:
        if len(chosen) == a.debates:
            break
        deb = read_ep_debate(folder, annotations=False)
        plan = plan_debate(deb, units="sentences")
        n = len(plan.speech)
        if n < 80 or n > 300 or not plan.proposals or sum(1 for iv in deb.interventions if CRITICAL.search(iv.text)) < 3:
            continue
        chosen.append((deb, plan))
    for c in range(0, len(chosen), a.per_packet):
        packet = f"crit-{c // a.per_packet + 1:02d}"
        group = chosen[c : c + a.per_packet]
        lines = [HEADER.format(packet=packet, n=len(group))]
        debates = {}
        for k, (deb, plan) in enumerate(group, start=1):
            lines.append(f"\n# Debate {k} — {plan.topic}\n\n## The resolution's provisions\n")
            lines += [p.text for p in plan.proposals]
            lines.append("\n## Speeches\n")
            docs = {}
            for u in plan.speech:
                docs.setdefault(u.intervention_position, (u.document, u.speaker, []))[2].append(u.text)
            for pos, (doc, spk, texts) in sorted(docs.items()):
                lines.append(f"### Speech {pos} — {spk or 'unknown speaker'}\n{' '.join(texts)}\n")
            debates[str(k)] = {"debate_id": deb.id, "speeches": {str(pos): doc for pos, (doc, _, _) in docs.items()}}
        (a.work / "packets" / f"{packet}.md").write_text("\n".join(lines), encoding="utf-8")
        (a.work / "packets" / f"{packet}.map.json").write_text(json.dumps({"packet": packet, "part": "critics", "debates": debates}, indent=1), encoding="utf-8")
        print(packet, [d["debate_id"] for d in debates.values()])


if __name__ == "__main__":
    main()
