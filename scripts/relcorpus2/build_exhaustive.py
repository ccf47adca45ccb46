#!/usr/bin/env python
"""Build the v2 *exhaustive* evaluation packets (``exh2-NN``): new debates, each with a few
source arguments paired with EVERY candidate target ``argfaith mine`` sends for them (all
provisions + all earlier sentence units: the temporal constraint).

Debates are drawn at random (seeded) among those with no pair in ``data/ep_relations_llm``, not
one of the paper's three, not reserved for independent evaluation, not one of the 12 summary
debates, with 60-``--max-speech`` sentence units and at least one *critical* speech (an
opposition cue, ``common.CRITICAL``). Per debate ``--sources`` sources: half drawn uniformly
among the units of critical speeches, half among all units. Annotators also say whether each
source's speech criticises the report (recorded as ``criticises_report``).

Usage::

    python scripts/relcorpus2/build_exhaustive.py --data $ARGFAITH_DATA --out WORK/packets

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

SEED = 20261203

HEADER = """# Annotation packet {packet} — exhaustive candidates

TOPIC (debate title): {topic}

You will label {n_sources} SOURCE arguments (sentences of speeches in this debate). Each source is
compared with EVERY candidate target listed for it: all provisions of the resolution ([P1] ...)
and every earlier sentence of the debate ([T1] ... up to the sentence just before the source).
Read the guidelines (guidelines.md) first. Labels: support / attack / no relation.

Your answer is a JSON file (path given in your task) of the form

    {{"packet": "{packet}", "labels": {{"A": {{"P3": "support", "T12": "attack"}}, "B": {{}}, ...}},
      "criticises_report": {{"A": "yes", "B": "no", ...}}, "notes": "..."}}

`labels` lists, for each source (A, B, ...), ONLY the targets it supports or attacks; every
candidate you do not list is "no relation". Every source key must be present (an empty object
when the source relates to nothing). Only use target labels from that source's candidate range.
`criticises_report`: for each source, does the SPEECH it comes from criticise the report /
resolution under debate (or a substantial part of it)? "yes" or "no".

## Provisions of the resolution (proposal arguments)

"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, default=Path("data/ep_relations_llm/pairs.jsonl.gz"))
    ap.add_argument("--debates", type=int, default=8)
    ap.add_argument("--sources", type=int, default=4)
    ap.add_argument("--max-speech", type=int, default=300)
    ap.add_argument("--critics", type=Path, nargs="*", default=[],
                    help="reader answers of crit-NN packets (ann/R-crit-NN/crit-NN.json): draw every source from the "
                         "speeches listed as criticising the report, in those debates only")
    ap.add_argument("--start", type=int, default=1, help="number of the first packet (exh2-NN)")
    a = ap.parse_args()
    if a.critics:
        return critic_packets(a)
    in_corpus = {json.loads(l)["debate_id"] for l in gzip.open(a.corpus, "rt", encoding="utf-8")}
    excluded = set(PAPER_DEBATES) | set(RESERVED_DEBATES) | set(SUMMARY_DEBATES) | in_corpus
    rng = random.Random(SEED)
    folders = [p for p in list_ep_debates(a.data / "ep_debates") if p.name not in excluded]
    rng.shuffle(folders)
    a.out.mkdir(parents=True, exist_ok=True)
    made = 0
    for folder in folders:
        if made == a.debates:
            break
        deb = read_ep_debate(folder, annotations=False)
        plan = plan_debate(deb, units="sentences")
        n = len(plan.speech)
        if n < 60 or n > a.max_speech or not plan.proposals:
            continue
        critical_docs = {iv.id for iv in deb.interventions if CRITICAL.search(iv.text)}
        crit = [i for i, u in enumerate(plan.speech) if u.document in critical_docs and i >= 5]
        if len(crit) < a.sources // 2:
            continue
        made += 1
        picks = set(rng.sample(crit, a.sources // 2))
        rest = [i for i in range(n) if i not in picks]
        picks |= set(rng.sample(rest, a.sources - len(picks)))
        picks_l = sorted(picks)
        packet = f"exh2-{made:02d}"
        m: dict[str, str] = {}
        text = [HEADER.format(packet=packet, topic=plan.topic, n_sources=len(picks_l))]
        for i, p in enumerate(plan.proposals, start=1):
            m[f"P{i}"] = p.id
            text.append(f"[P{i}] {p.text}")
        last = picks_l[-1]
        text.append(f"\n## The debate up to the last source (speech arguments T1..T{last}, in debate order)\n")
        cur = None
        for i, u in enumerate(plan.speech[:last]):
            if u.document != cur:
                cur = u.document
                text.append(f"\n### Speech {u.intervention_position} — {u.speaker or 'unknown speaker'}\n")
            m[f"T{i + 1}"] = u.id
            text.append(f"[T{i + 1}] {u.text}")
        text.append("\n## Sources to annotate\n")
        sources = {}
        for letter, i in zip("ABCDEFGH", picks_l):
            u = plan.speech[i]
            speech = [v for v in plan.speech if v.document == u.document]
            ctx = " ".join(("»" + v.text + "«") if v.id == u.id else v.text for v in speech)
            cands = [p.id for p in plan.proposals] + [v.id for v in plan.speech[:i]]
            sources[letter] = {"id": u.id, "position": i, "candidates": cands, "critical_cue": u.document in critical_docs}
            rng_t = f"T1–T{i}" if i else "none (the source is the first argument of the debate)"
            text.append(
                f"### Source {letter} (speech {u.intervention_position}, {u.speaker or 'unknown speaker'})\n\n"
                f"SOURCE {letter}: {u.text}\n\n"
                f"Candidate targets of {letter}: all provisions P1–P{len(plan.proposals)}; speech arguments {rng_t}.\n\n"
                f"(Context only, not a target: the whole speech, the source between »«: {ctx})\n"
            )
        (a.out / f"{packet}.md").write_text("\n".join(text) + "\n", encoding="utf-8")
        meta = {"packet": packet, "part": "exhaustive2", "debate_id": deb.id, "topic": plan.topic, "n_speech": n,
                "n_proposals": len(plan.proposals), "labels": m, "sources": sources,
                "n_pairs": sum(len(s["candidates"]) for s in sources.values())}
        (a.out / f"{packet}.map.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        print(packet, deb.id, n, "units", len(plan.proposals), "provisions", meta["n_pairs"], "pairs")


def write_packet(a: argparse.Namespace, packet: str, deb, plan, picks_l: list[int], critical_docs: set[str], how: str) -> None:  # noqa: ANN001
    n = len(plan.speech)
    m: dict[str, str] = {}
    text = [HEADER.format(packet=packet, topic=plan.topic, n_sources=len(picks_l))]
    for i, p in enumerate(plan.proposals, start=1):
        m[f"P{i}"] = p.id
        text.append(f"[P{i}] {p.text}")
    last = picks_l[-1]
    text.append(f"\n## The debate up to the last source (speech arguments T1..T{last}, in debate order)\n")
    cur = None
    for i, u in enumerate(plan.speech[:last]):
        if u.document != cur:
            cur = u.document
            text.append(f"\n### Speech {u.intervention_position} — {u.speaker or 'unknown speaker'}\n")
        m[f"T{i + 1}"] = u.id
        text.append(f"[T{i + 1}] {u.text}")
    text.append("\n## Sources to annotate\n")
    sources = {}
    for letter, i in zip("ABCDEFGH", picks_l):
        u = plan.speech[i]
        speech = [v for v in plan.speech if v.document == u.document]
        ctx = " ".join(("»" + v.text + "«") if v.id == u.id else v.text for v in speech)
        cands = [p.id for p in plan.proposals] + [v.id for v in plan.speech[:i]]
        sources[letter] = {"id": u.id, "position": i, "candidates": cands, "critical_cue": u.document in critical_docs}
        rng_t = f"T1–T{i}" if i else "none (the source is the first argument of the debate)"
        text.append(
            f"### Source {letter} (speech {u.intervention_position}, {u.speaker or 'unknown speaker'})\n\n"
            f"SOURCE {letter}: {u.text}\n\n"
            f"Candidate targets of {letter}: all provisions P1–P{len(plan.proposals)}; speech arguments {rng_t}.\n\n"
            f"(Context only, not a target: the whole speech, the source between »«: {ctx})\n"
        )
    (a.out / f"{packet}.md").write_text("\n".join(text) + "\n", encoding="utf-8")
    meta = {"packet": packet, "part": "exhaustive2", "debate_id": deb.id, "topic": plan.topic, "n_speech": n,
            "n_proposals": len(plan.proposals), "labels": m, "sources": sources, "selection": how,
            "n_pairs": sum(len(s["candidates"]) for s in sources.values())}
    (a.out / f"{packet}.map.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    print(packet, deb.id, n, "units", len(plan.proposals), "provisions", meta["n_pairs"], "pairs", how)


def critic_packets(a: argparse.Namespace) -> None:
    """Sources drawn uniformly among the units of speeches a reader listed as criticising the report."""
    from argfaith.datasets.ep import find_ep_debate

    rng = random.Random(SEED + 1)
    k = a.start
    for ans_path in a.critics:
        ans = json.loads(ans_path.read_text(encoding="utf-8"))
        meta = json.loads((a.out / f"{ans['packet']}.map.json").read_text(encoding="utf-8"))
        for dk, d in meta["debates"].items():
            listed = {d["speeches"][str(x["speech"])] for x in ans["critical"].get(dk, []) if str(x["speech"]) in d["speeches"]}
            deb = read_ep_debate(find_ep_debate(a.data / "ep_debates", d["debate_id"]), annotations=False)
            plan = plan_debate(deb, units="sentences")
            pool = [i for i, u in enumerate(plan.speech) if u.document in listed and i >= 5 and len(u.text.split()) >= 6]
            if len(pool) < a.sources:
                continue
            picks = sorted(rng.sample(pool, a.sources))
            write_packet(a, f"exh2-{k:02d}", deb, plan, picks, listed, "critical speech (reader-listed)")
            k += 1


if __name__ == "__main__":
    main()
