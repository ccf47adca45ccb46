#!/usr/bin/env python
"""Build the *finder* packets (``fnd-NN``) of the v2 relation corpus: whole debates shown to a
finder who lists likely attack / support pairs (``finder_brief.md``). Finder output is only a
SELECTION of pairs for training (selection bias is fine there, issue 20): every listed pair is
then labelled blind by two annotators (``build_verify.py``), with decoys mixed in.

Debates: drawn at random (seeded) among those that are not the paper's three, not reserved for
independent evaluation, not one of the 12 summary debates and not an exhaustive debate (v1 or
v2), with 80-``--max-speech`` sentence units and at least ``--min-critical`` speeches with an
opposition cue (debates with disagreement yield attacks).

Usage::

    python scripts/relcorpus2/build_finder.py --data $ARGFAITH_DATA --out WORK/packets --work WORK

© European Union, source: European Parliament (the texts in the packets).
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

SEED = 20261205

HEADER = """# Finder packet {packet}

Read the brief (finder_brief.md) first. This packet holds {n} debates; sentence and provision
labels restart in each debate, so give the debate number with every relation.
"""


def debate_block(k: int, plan) -> tuple[list[str], dict[str, str]]:
    m: dict[str, str] = {}
    lines = [f"\n# Debate {k} — TOPIC: {plan.topic}\n", "## Provisions of the resolution\n"]
    for i, p in enumerate(plan.proposals, start=1):
        m[f"P{i}"] = p.id
        lines.append(f"[P{i}] {p.text}")
    lines.append("\n## The debate, in order\n")
    cur = None
    for i, u in enumerate(plan.speech, start=1):
        if u.document != cur:
            cur = u.document
            lines.append(f"\n### Speech {u.intervention_position} — {u.speaker or 'unknown speaker'}\n")
        m[f"T{i}"] = u.id
        lines.append(f"[T{i}] {u.text}")
    return lines, m


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, default=Path("data/ep_relations_llm/pairs.jsonl.gz"))
    ap.add_argument("--debates", type=int, default=32)
    ap.add_argument("--per-packet", type=int, default=2)
    ap.add_argument("--max-speech", type=int, default=320)
    ap.add_argument("--min-critical", type=int, default=3)
    ap.add_argument("--start", type=int, default=1, help="number of the first packet (fnd-NN); earlier packets' debates are skipped")
    a = ap.parse_args()
    exh = {json.loads(l)["debate_id"] for l in gzip.open(a.corpus, "rt", encoding="utf-8") if '"exhaustive"' in l}
    exh |= {json.loads(p.read_text())["debate_id"] for p in a.out.glob("exh2-*.map.json")}
    excluded = set(PAPER_DEBATES) | set(RESERVED_DEBATES) | set(SUMMARY_DEBATES) | exh
    for mp in a.out.glob("*.map.json"):  # debates already in a packet of another part (finder, critics)
        m = json.loads(mp.read_text())
        excluded |= {d["debate_id"] for d in (m.get("debates") or {}).values()}
    rng = random.Random(SEED)
    folders = [p for p in list_ep_debates(a.data / "ep_debates") if p.name not in excluded]
    rng.shuffle(folders)
    chosen = []
    for folder in folders:
        if len(chosen) == a.debates:
            break
        deb = read_ep_debate(folder, annotations=False)
        plan = plan_debate(deb, units="sentences")
        n = len(plan.speech)
        n_crit = sum(1 for iv in deb.interventions if CRITICAL.search(iv.text))
        if n < 80 or n > a.max_speech or not plan.proposals or n_crit < a.min_critical:
            continue
        chosen.append((deb.id, plan))
    for c in range(0, len(chosen), a.per_packet):
        packet = f"fnd-{a.start + c // a.per_packet:02d}"
        group = chosen[c : c + a.per_packet]
        lines = [HEADER.format(packet=packet, n=len(group))]
        debates = {}
        for k, (did, plan) in enumerate(group, start=1):
            bl, m = debate_block(k, plan)
            lines += bl
            debates[str(k)] = {"debate_id": did, "labels": m, "n_speech": len(plan.speech), "n_proposals": len(plan.proposals)}
        (a.out / f"{packet}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (a.out / f"{packet}.map.json").write_text(json.dumps({"packet": packet, "part": "finder", "debates": debates}, indent=1), encoding="utf-8")
        print(packet, [(d["debate_id"], d["n_speech"], d["n_proposals"]) for d in debates.values()])


if __name__ == "__main__":
    main()
