#!/usr/bin/env python
"""Collect the v2 relation annotations: validate every answer, measure agreement (Cohen's κ, A vs
B, per part), build the adjudication packets (``adj2-NN``: the A/B disagreements, both options
shown unattributed) and write the final corpus (``data/ep_relations_v2``).

Parts and answer files under ``--work`` (each annotator works in its own folder):

- ``exhaustive2`` — packets ``exh2-NN`` (``build_exhaustive.py``), answers
  ``ann/{A,B}-exh2*/exh2-NN.json`` (``labels``: per source the targets it supports / attacks;
  unlisted = no relation; ``criticises_report``: yes / no per source);
- ``summary2`` — packets ``sum2-NN`` (``build_summary.py``), answers ``ann/{A,B}-sum2-NN/sum2-NN.json``
  (``labels``: per summary, per sentence, the provisions it supports / attacks);
- ``found`` — packets ``vfy-NN`` (``build_verify.py``: finder pairs + decoys), answers
  ``ann/{A,B}-vfy-NN/vfy-NN.json`` (a label for every item);
- adjudication: ``ann/C-adj2-NN/adj2-NN.json``.

    python scripts/relcorpus2/collect.py --work WORK status
    python scripts/relcorpus2/collect.py --work WORK adjudication [--chunk 300]
    python scripts/relcorpus2/collect.py --work WORK final --out data/ep_relations_v2
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
from collections import Counter, defaultdict
from pathlib import Path
from argfaith.datasets.provision_ids import is_provision_id  # either id scheme (P23 or the old PAR-22)

LABELS = ("attack", "support", "no relation")
ALIASES = {"none": "no relation", "no_relation": "no relation", "no-relation": "no relation", "norelation": "no relation",
           "supports": "support", "attacks": "attack"}


def norm(x: object) -> str | None:
    if not isinstance(x, str):
        return None
    s = ALIASES.get(x.strip().lower(), x.strip().lower())
    return s if s in LABELS else None


def kappa(a: list[str], b: list[str]) -> float:
    n = len(a)
    if not n:
        return float("nan")
    po = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    return (po - pe) / (1 - pe) if pe < 1 else 1.0


def sha(text: str) -> str:
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:10]


def find_answer(work: Path, who: str, packet: str) -> Path | None:
    hits = sorted((work / "ann").glob(f"{who}-*/{packet}.json"))
    return hits[0] if hits else None


class Pair(dict):
    """One candidate pair: key (source_id, target_id) + metadata."""


def gather(work: Path, problems: list[str]) -> tuple[dict[tuple[str, str], dict], dict[tuple[str, str], dict[str, str]]]:
    """(pairs by key with metadata, labels by key: {"A": .., "B": ..})."""
    meta: dict[tuple[str, str], dict] = {}
    labs: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    pk = work / "packets"
    for mp in sorted(pk.glob("exh2-*.map.json")):
        m = json.loads(mp.read_text())
        packet = m["packet"]
        for src_key, src in m["sources"].items():
            for t in src["candidates"]:
                meta[(src["id"], t)] = {"part": "exhaustive2", "packet": packet, "debate_id": m["debate_id"],
                                        "target_kind": "proposal" if is_provision_id(t) else "speech", "source_key": src_key}
        for who in ("A", "B"):
            f = find_answer(work, who, packet)
            if f is None:
                continue
            doc = json.loads(f.read_text())
            given = doc.get("labels", {})
            crit = doc.get("criticises_report", {})
            for src_key, src in m["sources"].items():
                for t in src["candidates"]:
                    labs[(src["id"], t)][who] = "no relation"
                    meta[(src["id"], t)].setdefault("criticises_report", {})[who] = str(crit.get(src_key, "")).lower() or None
                if src_key not in given:
                    problems.append(f"{f}: source {src_key} missing (all no relation)")
                    continue
                allowed = set(src["candidates"])
                for short, lab in given[src_key].items():
                    tid = m["labels"].get(short)
                    if tid is None or tid not in allowed or norm(lab) is None:
                        problems.append(f"{f}: {src_key} -> {short} = {lab!r} dropped")
                        continue
                    labs[(src["id"], tid)][who] = norm(lab)  # type: ignore[assignment]
    for mp in sorted(pk.glob("sum2-*.map.json")):
        m = json.loads(mp.read_text())
        packet = m["packet"]
        for sk, sm in m["summaries"].items():
            for src_key, src in sm["sources"].items():
                for t in src["candidates"]:
                    meta[(src["id"], t)] = {"part": "summary2", "packet": packet, "debate_id": sm["debate_id"],
                                            "summary_file": sm["summary_file"], "target_kind": "proposal"}
        for who in ("A", "B"):
            f = find_answer(work, who, packet)
            if f is None:
                continue
            given_all = json.loads(f.read_text()).get("labels", {})
            for sk, sm in m["summaries"].items():
                given = given_all.get(sk, {})
                if not given:
                    problems.append(f"{f}: summary {sk} missing")
                for src_key, src in sm["sources"].items():
                    for t in src["candidates"]:
                        labs[(src["id"], t)][who] = "no relation"
                    for short, lab in (given.get(src_key) or {}).items():
                        tid = sm["labels"].get(short)
                        if tid is None or tid not in src["candidates"] or norm(lab) is None:
                            problems.append(f"{f}: {sk}/{src_key} -> {short} = {lab!r} dropped")
                            continue
                        labs[(src["id"], tid)][who] = norm(lab)  # type: ignore[assignment]
    for mp in sorted(pk.glob("vfy-*.map.json")):
        m = json.loads(mp.read_text())
        packet = m["packet"]
        for key, it in m["items"].items():
            meta[(it["source_id"], it["target_id"])] = {"part": "found", "packet": packet, "debate_id": it["debate_id"],
                                                       "target_kind": it["target_kind"], "origin": it["origin"],
                                                       "found_as": it["found_as"]}
        for who in ("A", "B"):
            f = find_answer(work, who, packet)
            if f is None:
                continue
            given = json.loads(f.read_text()).get("labels", {})
            for key, it in m["items"].items():
                lab = norm(given.get(key))
                if lab is None:
                    problems.append(f"{f}: {key} = {given.get(key)!r} (missing or invalid)")
                    continue
                labs[(it["source_id"], it["target_id"])][who] = lab
    return meta, labs


def adjudications(work: Path) -> dict[tuple[str, str], str]:
    out = {}
    for f in sorted((work / "ann").glob("C-adj2-*/adj2-*.json")):
        idx = json.loads((work / "packets" / f"{f.stem}.map.json").read_text())["items"]
        for k, lab in json.loads(f.read_text()).get("labels", {}).items():
            if k in idx and norm(lab):
                out[tuple(idx[k])] = norm(lab)  # type: ignore[index]
    return out


def status(meta, labs) -> dict:  # noqa: ANN001
    by_part: dict[str, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    for k, m in meta.items():
        l = labs.get(k, {})
        if "A" in l and "B" in l:
            by_part[m["part"]][0].append(l["A"])
            by_part[m["part"]][1].append(l["B"])
    out = {}
    for part, (a, b) in sorted(by_part.items()):
        out[part] = {"pairs": len(a), "raw_agreement": round(sum(x == y for x, y in zip(a, b)) / len(a), 4),
                     "kappa": round(kappa(a, b), 3), "A": dict(Counter(a)), "B": dict(Counter(b))}
        print(f"PART {part}: {out[part]}")
    return out


ADJ_HEADER = """# Adjudication packet {packet}

Two annotators disagreed on the relation of each pair below (European Parliament debates and LLM
summaries of them). Read the guidelines (guidelines.md) first. For each item, decide the relation
FROM the source TO the target: support / attack / no relation (you may choose either option shown
or the third one). Context sentences are shown where available.

Answer: {{"packet": "{packet}", "labels": {{"d1": "support", "d2": "no relation", ...}}, "notes": "..."}} with EVERY key.

## Items
"""


def texts(data: Path, meta_item: dict, cache: dict) -> tuple:
    from argfaith.datasets.ep import find_ep_debate, read_ep_debate
    from argfaith.datasets.summaries import read_summary
    from argfaith.mining.pipeline import plan_debate, plan_summary
    from argfaith.mining.units import SUMMARY_POLICY_V1  # the units these packets were built with

    key = meta_item.get("summary_file") or meta_item["debate_id"]
    if key not in cache:
        deb = read_ep_debate(find_ep_debate(data / "ep_debates", meta_item["debate_id"]), annotations=False)
        if meta_item.get("summary_file"):
            plan = plan_summary(read_summary(data / "ep_summaries" / meta_item["debate_id"] / meta_item["summary_file"]), deb, policy=SUMMARY_POLICY_V1)
        else:
            plan = plan_debate(deb, units="sentences")
        prev = {}
        last = None
        for u in plan.speech:
            prev[u.id] = last.text if last is not None and last.document == u.document else ""
            last = u
        cache[key] = (plan.topic, plan.units, prev)
    return cache[key]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("cmd", choices=("status", "adjudication", "final"))
    ap.add_argument("--out", type=Path)
    ap.add_argument("--chunk", type=int, default=300)
    a = ap.parse_args()
    data = Path(os.environ.get("ARGFAITH_DATA", "../shared/data"))
    problems: list[str] = []
    meta, labs = gather(a.work, problems)
    for p in problems[:30]:
        print("problem:", p)
    if len(problems) > 30:
        print(f"... {len(problems)} problems")
    st = status(meta, labs)
    adj = adjudications(a.work)
    dis = [k for k, l in labs.items() if "A" in l and "B" in l and l["A"] != l["B"]]
    print(f"disagreements {len(dis)}, adjudicated {sum(k in adj for k in dis)}")
    if a.cmd == "adjudication":
        asked = set()
        for mf in (a.work / "packets").glob("adj2-*.map.json"):
            asked |= {tuple(v) for v in json.loads(mf.read_text())["items"].values()}
        todo = [k for k in dis if k not in adj and k not in asked]
        rng = random.Random(17)
        rng.shuffle(todo)
        cache: dict = {}
        n_old = len(list((a.work / "packets").glob("adj2-*.map.json")))
        for c in range(0, len(todo), a.chunk):
            name = f"adj2-{n_old + c // a.chunk + 1:02d}"
            lines = [ADJ_HEADER.format(packet=name)]
            idx = {}
            for i, k in enumerate(todo[c : c + a.chunk], start=1):
                topic, units, prev = texts(data, meta[k], cache)
                su, tu = units[k[0]], units[k[1]]
                key = f"d{i}"
                idx[key] = list(k)
                kind = "provision of the resolution" if tu.kind == "proposal" else (
                    "summary sentence" if meta[k].get("summary_file") else f"earlier sentence ({tu.speaker or 'unknown speaker'})")
                ctx = f"\n(context, the sentence before the source: «{prev.get(k[0])}»)" if prev.get(k[0]) else ""
                who = f" ({su.speaker})" if su.speaker else (" (summary sentence)" if meta[k].get("summary_file") else "")
                opts = " / ".join(sorted({labs[k]["A"], labs[k]["B"]}))
                lines.append(f"### {key}\nTOPIC: {topic}\nSOURCE{who}: {su.text}{ctx}\nTARGET — {kind}: {tu.text}\n"
                             f"The two annotators chose: {opts}\n")
            (a.work / "packets" / f"{name}.md").write_text("\n".join(lines), encoding="utf-8")
            (a.work / "packets" / f"{name}.map.json").write_text(json.dumps({"packet": name, "items": idx}), encoding="utf-8")
            print(name, len(idx))
    if a.cmd == "final":
        from argfaith.datasets.ep import find_ep_debate  # noqa: F401  (data must be present)

        a.out.mkdir(parents=True, exist_ok=True)
        cache = {}
        records = []
        unresolved = 0
        for k, m in sorted(meta.items(), key=lambda kv: (kv[1]["part"], kv[1]["packet"], kv[0])):
            l = labs.get(k, {})
            if "A" not in l or "B" not in l:
                continue
            if l["A"] == l["B"]:
                lab, agr = l["A"], "2/2"
            elif k in adj:
                lab, agr = adj[k], "adjudicated"
            else:
                unresolved += 1
                continue
            topic, units, _ = texts(data, m, cache)
            r = {"pair_id": f"v2:{k[0]}->{k[1]}", "part": m["part"], "packet": m["packet"], "debate_id": m["debate_id"],
                 "source_id": k[0], "target_id": k[1], "target_kind": m["target_kind"], "label": lab, "agreement": agr,
                 "annotations": {**l, **({"C": adj[k]} if agr == "adjudicated" else {})},
                 "source_sha": sha(units[k[0]].text), "target_sha": sha(units[k[1]].text)}
            for extra in ("summary_file", "origin", "found_as"):
                if m.get(extra) is not None:
                    r[extra] = m[extra]
            if m.get("criticises_report"):
                r["criticises_report"] = m["criticises_report"]
            records.append(r)
        with gzip.open(a.out / "pairs.jsonl.gz", "wt", encoding="utf-8") as f:
            for r in records:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        stats = {}
        for part in sorted({r["part"] for r in records}):
            rs = [r for r in records if r["part"] == part]
            stats[part] = {**st.get(part, {}), "final": dict(Counter(r["label"] for r in rs)),
                           "adjudicated": sum(r["agreement"] == "adjudicated" for r in rs),
                           "debates": len({r["debate_id"] for r in rs})}
            if part == "found":
                stats[part]["by_origin"] = {o: dict(Counter(r["label"] for r in rs if r.get("origin") == o))
                                            for o in sorted({r.get("origin") for r in rs})}
                stats[part]["finder_confirmed"] = {fa: dict(Counter(r["label"] for r in rs if r.get("found_as") == fa))
                                                   for fa in ("attack", "support")}
        stats["total"] = {"pairs": len(records), "labels": dict(Counter(r["label"] for r in records)), "unresolved": unresolved}
        (a.out / "stats.json").write_text(json.dumps(stats, indent=1) + "\n", encoding="utf-8")
        print(json.dumps(stats["total"]), f"-> {a.out}")


if __name__ == "__main__":
    main()
