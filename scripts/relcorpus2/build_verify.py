#!/usr/bin/env python
"""Build the blind *verification* packets (``vfy-NN``) of the v2 relation corpus from the finders'
answers (``ann/F-fnd-NN/fnd-NN.json``): every pair a finder listed, plus decoys, each labelled
later by two independent annotators who see neither the finder's label nor which items are decoys.

Per debate of a finder packet:

- every finder pair (source → target), finder label kept only in the map (``found_as``);
- *hard decoys*: for every second source that has finder pairs, its most TF-IDF-similar candidate
  target the finder did not list;
- *negated sources*: up to ``--negated`` sources the finder did not use whose sentence carries a
  negation cue (not / no / never / cannot / without / nor / neither / n't), each with its two most
  similar candidate targets — so that negated *no relation* and negated *support* pairs are well
  represented (issue 20: negation must stop predicting attack).

Items are grouped by source (debate order), targets shuffled within a source (seeded).

    python scripts/relcorpus2/build_verify.py --data $ARGFAITH_DATA --work WORK fnd-01 fnd-02 ...

© European Union, source: European Parliament (the texts in the packets).
"""

from __future__ import annotations

import argparse
import json
import random
import re
from pathlib import Path

from argfaith.datasets.ep import find_ep_debate, read_ep_debate
from argfaith.mining.candidates import tfidf_vectors
from argfaith.mining.pipeline import plan_debate

NEG = re.compile(r"\b(not|no|never|cannot|without|nor|neither|none|nothing)\b|n't\b", re.I)

HEADER = """# Labelling packet {packet}

Each block below is one SOURCE argument (a sentence of a speech in a European Parliament debate,
with its neighbouring sentences as context) and a short list of TARGETS from the same debate:
provisions of the resolution under debate, or sentences spoken EARLIER in the debate. Read the
guidelines (guidelines.md) first. For EVERY target, label the relation FROM the source TO the
target: support / attack / no relation.

Your answer is a JSON file (path given in your task) of the form

    {{"packet": "{packet}", "labels": {{"Q1.1": "support", "Q1.2": "no relation", "Q2.1": "attack", ...}}, "notes": "..."}}

with EVERY item key present ({n} items).
"""


def cos(x: dict, y: dict) -> float:
    if len(x) > len(y):
        x, y = y, x
    return sum(v * y.get(k, 0.0) for k, v in x.items())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--negated", type=int, default=10)
    ap.add_argument("finders", nargs="+")
    a = ap.parse_args()
    for fnd in a.finders:
        meta = json.loads((a.work / "packets" / f"{fnd}.map.json").read_text())
        ans = json.loads((a.work / "ann" / f"F-{fnd}" / f"{fnd}.json").read_text())
        packet = "vfy-" + fnd.split("-")[1]
        rng = random.Random(f"{packet}-2026")
        lines: list[str] = []
        items: dict[str, dict] = {}
        q = 0
        problems = []
        for dk, dmeta in meta["debates"].items():
            deb = read_ep_debate(find_ep_debate(a.data / "ep_debates", dmeta["debate_id"]), annotations=False)
            plan = plan_debate(deb, units="sentences")
            lab = dmeta["labels"]
            pos = {u.id: i for i, u in enumerate(plan.speech)}
            units = plan.units
            found: dict[str, dict[str, str]] = {}
            for r in ans["relations"]:
                if str(r.get("debate")) != dk:
                    continue
                s, t = lab.get(r.get("source")), lab.get(r.get("target"))
                if s is None or t is None or (t in pos and pos[t] >= pos[s]) or r.get("label") not in ("attack", "support"):
                    problems.append(r)
                    continue
                found.setdefault(s, {})[t] = r["label"]
            npr = len(plan.proposals)
            vecs = tfidf_vectors([p.text for p in plan.proposals] + [u.text for u in plan.speech])
            vid = {p.id: vecs[i] for i, p in enumerate(plan.proposals)} | {u.id: vecs[npr + i] for i, u in enumerate(plan.speech)}

            def cands(s: str) -> list[str]:
                return [p.id for p in plan.proposals] + [u.id for u in plan.speech[: pos[s]]]

            block: dict[str, list[tuple[str, str, str | None]]] = {}  # source -> [(target, origin, found_as)]
            for k, (s, tg) in enumerate(sorted(found.items(), key=lambda kv: pos[kv[0]])):
                block[s] = [(t, "found", l) for t, l in tg.items()]
                if k % 2 == 0:
                    rest = [c for c in cands(s) if c not in tg]
                    if rest:
                        best = max(rest, key=lambda c: cos(vid[s], vid[c]))
                        block[s].append((best, "decoy_similar", None))
            neg = [u.id for u in plan.speech if u.id not in found and pos[u.id] >= 3 and NEG.search(u.text) and len(u.text.split()) >= 6]
            for s in rng.sample(neg, min(a.negated, len(neg))):
                best = sorted(cands(s), key=lambda c: -cos(vid[s], vid[c]))[:2]
                block[s] = [(c, "negated_source", None) for c in best]
            lines.append(f"\n## Debate {dk}: {plan.topic}\n")
            for s in sorted(block, key=lambda x: pos[x]):
                su = units[s]
                i = pos[s]
                prev = plan.speech[i - 1].text if i > 0 and plan.speech[i - 1].document == su.document else ""
                nxt = plan.speech[i + 1].text if i + 1 < len(plan.speech) and plan.speech[i + 1].document == su.document else ""
                q += 1
                lines.append(f"### Q{q} — SOURCE ({su.speaker or 'unknown speaker'}): {su.text}")
                ctx = []
                if prev:
                    ctx.append(f"previous sentence: «{prev}»")
                if nxt:
                    ctx.append(f"next sentence: «{nxt}»")
                if ctx:
                    lines.append("(context only, same speech — " + "; ".join(ctx) + ")")
                tg = block[s]
                rng.shuffle(tg)
                for j, (t, origin, fas) in enumerate(tg, start=1):
                    tu = units[t]
                    key = f"Q{q}.{j}"
                    who = "provision of the resolution" if tu.kind == "proposal" else (
                        f"earlier sentence, same speech" if tu.document == su.document else f"earlier sentence, {tu.speaker or 'unknown speaker'}")
                    lines.append(f"- [{key}] ({who}) {tu.text}")
                    items[key] = {"debate_id": dmeta["debate_id"], "source_id": s, "target_id": t,
                                  "target_kind": tu.kind, "origin": origin, "found_as": fas}
                lines.append("")
        text = HEADER.format(packet=packet, n=len(items)) + "\n".join(lines) + "\n"
        (a.work / "packets" / f"{packet}.md").write_text(text, encoding="utf-8")
        (a.work / "packets" / f"{packet}.map.json").write_text(json.dumps({"packet": packet, "part": "found", "finder": fnd, "items": items}, indent=1), encoding="utf-8")
        from collections import Counter
        print(packet, len(items), "items", dict(Counter(v["origin"] for v in items.values())),
              dict(Counter(v["found_as"] for v in items.values() if v["found_as"])), f"{len(problems)} finder problems", f"{len(text)//1000} kB")


if __name__ == "__main__":
    main()
