#!/usr/bin/env python
"""Draw the real pairs that annotators minimally rewrite into *stance contrasts*.

For ``--debates`` debates of ``ep_debates`` drawn at random (seeded; never the paper's three
annotated debates), ``--per-debate`` pairs each: a source sentence of 10-45 words that carries a
stance cue (welcome / support / oppose / reject / must / fail / concern ...), paired with its most
lexically similar provision (70% of items) or earlier sentence of another speech (30%), kept only
when the TF-IDF cosine is at least 0.12 — pairs on one topic, so that rewriting the source can
flip the stance while the topic stays.

Writers (LLM annotators) then label each original pair and rewrite its source twice, minimally:
once so that the relation flips (support <-> attack; an unrelated original gets a support and an
attack version) and once so that it vanishes (topic kept). Checkers label every pair blind.

Output: ``items.jsonl`` (ids + texts) and writer packets ``con-w-NN.md`` of ``--chunk`` items.

Usage::

    python scripts/relcorpus/contrast_items.py --data $ARGFAITH_DATA --out /work/annot/packets

© European Union, source: European Parliament (the texts in the packets).
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

from argfaith.datasets.ep import list_ep_debates, read_ep_debate
from argfaith.mining.candidates import tfidf_vectors
from argfaith.mining.pipeline import plan_debate

PAPER_DEBATES = ("CRE-20060213-ITEM-013", "CRE-20070905-ITEM-015", "CRE-20080313-ITEM-002")
SEED = 20261202
_CUE = re.compile(
    r"\b(welcome|support|oppos|reject|against|must|should|fail|concern|regret|wrong|right|danger|"
    r"cannot|need|essential|unacceptable|criticis|agree|disagree|insufficient|harm|benefit|problem|vote)",
    re.I,
)

WRITER_HEADER = """# Contrast-writing packet {packet}

Each item is a REAL pair from a European Parliament debate: a SOURCE sentence and a TARGET (a
numbered provision of the resolution, or an earlier sentence of the debate), with the debate
title as TOPIC. Read the guidelines (guidelines.md) first; the class definitions are there.

For every item:
1. `original`: label the real pair (support / attack / no relation) by reading it.
2. Write two MINIMAL rewrites of the SOURCE only (the target never changes):
   - `flip`: change as few words as possible so the relation to the target reverses: a support
     source becomes an attack, an attack source becomes a support. If the original is
     "no relation", write instead a source that SUPPORTS the target (`flip`) and one that ATTACKS
     it (`vanish` below is then replaced by this attack version).
   - `vanish`: change as few words as possible so the source keeps the same topic and words as far
     as possible but no longer supports or attacks the target (e.g. it now speaks about a
     different aspect, or reports a fact without a stance on the target's claim).
   Keep the register of a parliamentary speech; keep length within about ±30%; do not mention
   the target explicitly unless the original does; do not make the rewrite absurd.
3. State the label each rewrite is meant to have with the target (`flip_label`, `vanish_label`).

Answer: a JSON list, one object per item, in item order:

    [{{"item": "c-0001", "original": "support", "flip": "...", "flip_label": "attack",
      "vanish": "...", "vanish_label": "no relation"}}, ...]

## Items
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--debates", type=int, default=40)
    ap.add_argument("--per-debate", type=int, default=8)
    ap.add_argument("--chunk", type=int, default=80)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--batch", type=int, default=1, help="batch number: 2 draws new debates and numbers items after batch 1")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    first_item, first_packet, skip_debates = 1, 1, set()
    if a.batch > 1:  # later batches never reuse a debate or an item/packet number of earlier ones
        prev = [json.loads(x) for x in open(a.out / "contrast_items.jsonl", encoding="utf-8")]
        first_item = len(prev) + 1
        first_packet = len(list(a.out.glob("con-w-*.md"))) + 1
        skip_debates = {x["debate_id"] for x in prev}
    folders = [p for p in list_ep_debates(a.data / "ep_debates") if p.name not in PAPER_DEBATES and p.name not in skip_debates]
    rng.shuffle(folders)
    items: list[dict] = []
    used = 0
    for folder in folders:
        if used == a.debates:
            break
        deb = read_ep_debate(folder, annotations=False)
        plan = plan_debate(deb, units="sentences")
        if len(plan.speech) < 40 or not plan.proposals:
            continue
        used += 1
        texts = [p.text for p in plan.proposals] + [u.text for u in plan.speech]
        vecs = tfidf_vectors(texts)
        nprop = len(plan.proposals)

        def cos(i: int, j: int) -> float:
            a_, b_ = vecs[i], vecs[j]
            if len(a_) > len(b_):
                a_, b_ = b_, a_
            return sum(v * b_.get(k, 0.0) for k, v in a_.items())

        order = list(range(len(plan.speech)))
        rng.shuffle(order)
        got = 0
        for si in order:
            if got == a.per_debate:
                break
            s = plan.speech[si]
            nw = len(s.text.split())
            if not (10 <= nw <= 45) or not _CUE.search(s.text):
                continue
            to_prop = rng.random() < 0.7 or si == 0
            if to_prop:
                pool = list(range(nprop))
            else:
                pool = [nprop + j for j in range(si) if plan.speech[j].document != s.document]
            if not pool:
                continue
            best = max(pool, key=lambda j: cos(nprop + si, j))
            if cos(nprop + si, best) < 0.12:
                continue
            tgt = plan.proposals[best] if best < nprop else plan.speech[best - nprop]
            items.append({"item": f"c-{first_item + len(items):04d}", "debate_id": deb.id, "topic": plan.topic,
                          "source_id": s.id, "source": s.text, "target_id": tgt.id, "target": tgt.text,
                          "target_kind": tgt.kind})
            got += 1
    a.out.mkdir(parents=True, exist_ok=True)
    with open(a.out / "contrast_items.jsonl", "a" if a.batch > 1 else "w", encoding="utf-8") as f:
        for it in items:
            f.write(json.dumps(it, ensure_ascii=False) + "\n")
    for c in range(0, len(items), a.chunk):
        packet = f"con-w-{first_packet + c // a.chunk:02d}"
        lines = [WRITER_HEADER.format(packet=packet)]
        for it in items[c : c + a.chunk]:
            kind = "provision of the resolution" if it["target_kind"] == "proposal" else "earlier sentence of the debate"
            lines.append(f"### {it['item']}\nTOPIC: {it['topic']}\nSOURCE: {it['source']}\nTARGET ({kind}): {it['target']}\n")
        (a.out / f"{packet}.md").write_text("\n".join(lines), encoding="utf-8")
    print(f"{len(items)} items from {used} debates; {len(range(0, len(items), a.chunk))} writer packets")


if __name__ == "__main__":
    main()
