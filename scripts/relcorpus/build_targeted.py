#!/usr/bin/env python
"""Build the *stance-enriched* annotation packets (``tgt-NN``) of the EP relation corpus.

Exhaustive candidates give the real prior, but attacks are rare there (about 1% of pairs), too
few to learn stance from. This part samples pairs where disagreement is likely, and labels them
the same way (two independent annotators, a third on disagreements):

- debates of ``ep_debates`` drawn at random (seeded), never the paper's three annotated debates;
- per debate, ``--per-debate`` source sentences (8-60 words): half drawn among sentences of
  *critical* speeches (a speech with an opposition cue: "vote against", "cannot support",
  "reject", "oppose", "regret", "unacceptable", "criticis..."), half among all sentences;
- per source, a shortlist of candidate targets that mining would send (temporal constraint):
  its ``--props`` most similar provisions (TF-IDF cosine), its ``--earlier`` most similar earlier
  sentences of OTHER speakers, and two random candidates.

These pairs are a biased sample on purpose (more related, more attacks); they are marked
``part: targeted`` in the corpus and never used to estimate the all-pairs prior.

Usage::

    python scripts/relcorpus/build_targeted.py --data $ARGFAITH_DATA --out /work/annot/packets

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
SEED = 20261203
_CRITICAL = re.compile(
    r"\b(vote[sd]? against|voting against|cannot support|can not support|reject|oppos|regret|unacceptable|"
    r"criticis|criticiz|disagree|not acceptable|abstain)",
    re.I,
)

HEADER = """# Annotation packet {packet} — shortlisted candidates

Each block below is one SOURCE argument (a sentence of a speech in a European Parliament debate)
with a shortlist of candidate TARGETS from the same debate: provisions of the resolution ([P..])
and sentences spoken earlier by other speakers ([T..]). Read the guidelines (guidelines.md)
first. Labels: support / attack / no relation.

Your answer is a JSON file (path given in your task) of the form

    {{"packet": "{packet}", "labels": {{"Q1": {{"Q1.3": "support", "Q1.7": "attack"}}, "Q2": {{}}, ...}}, "notes": "..."}}

listing, for each source (Q1, Q2, ...), ONLY the shortlisted targets it supports or attacks;
every target you do not list is "no relation". Every source key must be present (an empty
object when the source relates to none of its targets).

"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--debates", type=int, default=36)
    ap.add_argument("--per-debate", type=int, default=10)
    ap.add_argument("--props", type=int, default=6)
    ap.add_argument("--earlier", type=int, default=4)
    ap.add_argument("--debates-per-packet", type=int, default=3)
    a = ap.parse_args()
    rng = random.Random(SEED)
    folders = [p for p in list_ep_debates(a.data / "ep_debates") if p.name not in PAPER_DEBATES]
    rng.shuffle(folders)
    blocks: list[tuple[str, dict, list[str]]] = []  # (debate, meta, lines)
    used = 0
    for folder in folders:
        if used == a.debates:
            break
        deb = read_ep_debate(folder, annotations=False)
        plan = plan_debate(deb, units="sentences")
        n, npr = len(plan.speech), len(plan.proposals)
        if n < 60 or not npr:
            continue
        used += 1
        critical_docs = {iv.id for iv in deb.interventions if _CRITICAL.search(iv.text)}
        ok = [i for i, u in enumerate(plan.speech) if 8 <= len(u.text.split()) <= 60 and i > 5]
        crit = [i for i in ok if plan.speech[i].document in critical_docs]
        k_crit = min(len(crit), a.per_debate // 2)
        picks = set(rng.sample(crit, k_crit))
        rest = [i for i in ok if i not in picks]
        picks |= set(rng.sample(rest, min(len(rest), a.per_debate - k_crit)))
        vecs = tfidf_vectors([p.text for p in plan.proposals] + [u.text for u in plan.speech])

        def cos(i: int, j: int) -> float:
            x, y = vecs[i], vecs[j]
            if len(x) > len(y):
                x, y = y, x
            return sum(v * y.get(k, 0.0) for k, v in x.items())

        sources = []
        for si in sorted(picks):
            s = plan.speech[si]
            props = sorted(range(npr), key=lambda j: -cos(npr + si, j))[: a.props]
            earlier = [j for j in range(si) if plan.speech[j].speaker != s.speaker]
            earl = sorted(earlier, key=lambda j: -cos(npr + si, npr + j))[: a.earlier]
            chosen = [("proposal", j) for j in props] + [("speech", j) for j in earl]
            pool = [("proposal", j) for j in range(npr)] + [("speech", j) for j in range(si)]
            pool = [c for c in pool if c not in chosen]
            chosen += rng.sample(pool, min(2, len(pool)))
            rng.shuffle(chosen)
            tgts = [plan.proposals[j] if k == "proposal" else plan.speech[j] for k, j in chosen]
            sources.append((s, tgts, s.document in critical_docs))
        blocks.append((deb.id, {"topic": plan.topic}, sources))  # type: ignore[arg-type]
    a.out.mkdir(parents=True, exist_ok=True)
    total = 0
    for c in range(0, len(blocks), a.debates_per_packet):
        packet = f"tgt-{c // a.debates_per_packet + 1:02d}"
        lines = [HEADER.format(packet=packet)]
        labels: dict[str, str] = {}
        srcs: dict[str, dict] = {}
        q = 0
        for debate_id, meta, sources in blocks[c : c + a.debates_per_packet]:
            lines.append(f"## Debate: {meta['topic']}\n")
            for s, tgts, critical in sources:
                q += 1
                key = f"Q{q}"
                lines.append(f"### {key} — SOURCE ({s.speaker or 'unknown speaker'}): {s.text}\n")
                cands = []
                for t_i, t in enumerate(tgts, start=1):
                    short = f"{key}.{t_i}"
                    labels[short] = t.id
                    cands.append(t.id)
                    who = "provision of the resolution" if t.kind == "proposal" else f"earlier sentence, {t.speaker or 'unknown speaker'}"
                    lines.append(f"- [{short}] ({who}) {t.text}")
                lines.append("")
                srcs[key] = {"id": s.id, "candidates": cands, "debate_id": debate_id, "critical_speech": critical}
                total += len(cands)
        (a.out / f"{packet}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (a.out / f"{packet}.map.json").write_text(
            json.dumps({"packet": packet, "part": "targeted", "labels": labels, "sources": srcs,
                        "debate_ids": [b[0] for b in blocks[c : c + a.debates_per_packet]],
                        "n_pairs": sum(len(v["candidates"]) for v in srcs.values())}, indent=1),
            encoding="utf-8")
        print(packet, len(srcs), "sources", sum(len(v["candidates"]) for v in srcs.values()), "pairs")
    print(f"{total} pairs from {used} debates")


if __name__ == "__main__":
    main()
