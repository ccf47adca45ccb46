#!/usr/bin/env python
"""Packets for writing the development distortion set (``data/distortions``) by LLM annotators.

For each of the 12 debates of ``ep_summaries``, up to two summary files are chosen (seeded) among
those NOT used for the relation corpus (``scripts/relcorpus/build_packets.py`` SUMMARY_CHOICE), so
the stance model never saw their sentences. A packet shows the debate title, the provisions
``[P1..]`` and the summary split exactly as argfaith segments it ``[S1..]``; the writer produces
the four distortions (omit, fabricate_support, fabricate_attack, invert) as edits of those
sentences. ``collect.py`` turns the answers into ``data/distortions/manifest.jsonl``.

    python scripts/distortions/build_packets.py --data $ARGFAITH_DATA --out /work/annot/dist

© European Union, source: European Parliament (the provisions); the summaries are from
github.com/parliview/debate-summ-cross-lingual (shown to the writer, not stored).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts" / "relcorpus"))

from build_packets import SUMMARY_CHOICE  # noqa: E402

from argfaith.datasets.ep import find_ep_debate, read_ep_debate  # noqa: E402
from argfaith.datasets.summaries import read_summary  # noqa: E402
from argfaith.errors import DataFormatError  # noqa: E402
from argfaith.mining.units import EDIT_POLICY, proposal_units, summary_units  # noqa: E402

SEED = 20261205

HEADER = """# Distortion-writing packet {packet}

TOPIC (debate title): {topic}
SUMMARY FILE: {summary_file}

Below are the numbered provisions of the resolution debated ([P1] ...) and an LLM-written summary of
the debate split into sentences ([S1] ...). Write FOUR distortions of this summary, each about ONE
provision, as edits of the sentences (read the instructions in your task).

## Provisions of the resolution

"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--per-debate", type=int, default=2)
    ap.add_argument("--corpus-summaries", action="store_true",
                    help="instead: the 12 summary files whose pairs ARE fully labelled in data/ep_relations_llm "
                         "(packets cdist-NN; issue 21's ceiling with annotator relations)")
    a = ap.parse_args()
    rng = random.Random(SEED)
    a.out.mkdir(parents=True, exist_ok=True)
    n = 0
    for folder in sorted((a.data / "ep_summaries").iterdir()):
        did = folder.name
        used = f"{did}_{SUMMARY_CHOICE.get(did)}.json"
        files = []
        for f in sorted(folder.glob("*.json")):
            if (f.name == used) != a.corpus_summaries:
                continue
            try:
                s = read_summary(f)
            except DataFormatError:
                continue  # text-less file
            files.append((f, s))
        rng.shuffle(files)
        deb = read_ep_debate(find_ep_debate(a.data / "ep_debates", did), annotations=False)
        props = proposal_units(deb)
        for f, s in files[: a.per_debate]:
            n += 1
            packet = f"{'cdist' if a.corpus_summaries else 'dist'}-{n:02d}"
            units = summary_units(s, policy=EDIT_POLICY).units
            lines = [HEADER.format(packet=packet, topic=deb.topic, summary_file=f.name)]
            lines += [f"[P{i}] {p.text}" for i, p in enumerate(props, start=1)]
            lines += ["", "## The summary, sentence by sentence", ""]
            lines += [f"[S{i}] {u.text}" for i, u in enumerate(units, start=1)]
            (a.out / f"{packet}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
            meta = {"packet": packet, "debate_id": did, "summary_file": f.name, "n_sentences": len(units),
                    "provisions": {f"P{i}": p.id for i, p in enumerate(props, start=1)}}
            (a.out / f"{packet}.map.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
            print(packet, did, f.name, len(units), "sentences", len(props), "provisions")


if __name__ == "__main__":
    main()
