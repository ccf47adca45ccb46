#!/usr/bin/env python
"""Build the argument-unit annotation packets (``unit-NN``): every segment of every shared LLM
summary (``ep_summaries``), as argfaith segments it with no unit filter (``KEEP_ALL``), shown in
summary order with its raw markdown; annotators label each ARG / NON (``units_guidelines.md``).

Ids: a segment is ``<summary name>-<k>`` (k = 1-based segment index, the id mining gives the
unit whatever filter is applied), so the labels key the units ``argfaith mine`` produces.

Usage::

    python scripts/relcorpus2/build_units.py --data $ARGFAITH_DATA --out WORK/packets [--packets 3]

© European Union, source: European Parliament; summaries: github.com/parliview/debate-summ-cross-lingual.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from argfaith.datasets.summaries import read_summary
from argfaith.errors import DataFormatError
from argfaith.mining.units import KEEP_ALL, summary_name, summary_units

HEADER = """# Argument-unit packet {packet}

Below are {n_sum} LLM-written summaries of European Parliament plenary debates, each split into
numbered segments [U1] ... (sentences, headings, list lines; shown with their markdown marks).
Read the guidelines (units_guidelines.md) first. Label EVERY segment: ARG or NON.

Your answer is a JSON file (path given in your task) of the form

    {{"packet": "{packet}", "labels": {{"U1": "NON", "U2": "ARG", ...}}, "notes": "..."}}

with every key U1 ... U{n} present.
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--packets", type=int, default=3)
    a = ap.parse_args()
    docs = []
    for f in sorted((a.data / "ep_summaries").glob("*/*.json")):
        try:
            s = read_summary(f)
        except DataFormatError:
            continue  # two files carry no summary text
        ex = summary_units(s, policy=KEEP_ALL)
        title = json.loads((a.data / "ep_debates" / "debates" / s.debate_id / "metadata.json").read_text(encoding="utf-8"))["title"]
        docs.append((f.name, s, ex.units, title))
    total = sum(len(d[2]) for d in docs)
    target = total / a.packets
    groups: list[list] = [[]]
    size = 0
    for d in docs:
        if size >= target * len(groups) and len(groups) < a.packets:
            groups.append([])
        groups[-1].append(d)
        size += len(d[2])
    a.out.mkdir(parents=True, exist_ok=True)
    for gi, group in enumerate(groups, start=1):
        packet = f"unit-{gi:02d}"
        n = sum(len(g[2]) for g in group)
        lines = [HEADER.format(packet=packet, n_sum=len(group), n=n)]
        items = {}
        i = 0
        for j, (fname, s, units, title) in enumerate(group, start=1):
            lines.append(f"\n## Summary {j} — debate: {title}\n")
            for u in units:
                i += 1
                raw = " ".join(s.text[u.start : u.end].split())
                items[f"U{i}"] = {"summary_file": fname, "k": u.k, "id": u.id, "segment_kind": u.segment_kind}
                lines.append(f"[U{i}] {raw}")
        (a.out / f"{packet}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        meta = {"packet": packet, "part": "units", "items": items, "summaries": [g[0] for g in group],
                "names": {g[0]: summary_name(g[1]) for g in group}}
        (a.out / f"{packet}.map.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        print(packet, len(group), "summaries", n, "segments")


if __name__ == "__main__":
    main()
