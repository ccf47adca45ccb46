#!/usr/bin/env python
"""Collect the argument-unit labels (``unit-NN`` packets): validate, Cohen's κ (A vs B),
adjudication packet for disagreements (``adju-NN``, both options shown, unattributed), and the
final file ``data/summary_units/units.jsonl.gz`` (+ ``stats.json``).

Folders under ``--work``: ``packets/``, ``ann/A-unit-NN/unit-NN.json``, ``ann/B-unit-NN/...``,
``ann/C-adju-NN/adju-NN.json`` (adjudicator).

    python scripts/relcorpus2/collect_units.py --work WORK status
    python scripts/relcorpus2/collect_units.py --work WORK adjudication
    python scripts/relcorpus2/collect_units.py --work WORK final --out data/summary_units
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from pathlib import Path

LAB = ("ARG", "NON")


def kappa(a: list[str], b: list[str]) -> float:
    n = len(a)
    po = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    return (po - pe) / (1 - pe) if pe < 1 else 1.0


def load(work: Path):
    maps = {p.name[:-9]: json.loads(p.read_text()) for p in sorted((work / "packets").glob("unit-*.map.json"))}
    ann: dict[str, dict[str, dict[str, str]]] = {}
    problems = []
    for packet, meta in maps.items():
        for who in ("A", "B"):
            f = work / "ann" / f"{who}-{packet}" / f"{packet}.json"
            if not f.exists():
                continue
            labels = json.loads(f.read_text()).get("labels", {})
            got = {}
            for k in meta["items"]:
                v = str(labels.get(k, "")).strip().upper()
                if v not in LAB:
                    problems.append(f"{f}: {k}: {labels.get(k)!r}")
                    continue
                got[k] = v
            ann.setdefault(packet, {})[who] = got
    adj: dict[str, str] = {}
    for f in sorted((work / "ann").glob("C-adju-*/adju-*.json")):
        idx = json.loads((work / "packets" / f"{f.stem}.map.json").read_text())["items"]
        for k, v in json.loads(f.read_text()).get("labels", {}).items():
            v = str(v).strip().upper()
            if k in idx and v in LAB:
                adj[idx[k]] = v
    return maps, ann, adj, problems


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("cmd", choices=("status", "adjudication", "final"))
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    maps, ann, adj, problems = load(a.work)
    for p in problems:
        print("problem:", p)
    allA, allB = [], []
    dis = []
    for packet, meta in maps.items():
        got = ann.get(packet, {})
        if "A" not in got or "B" not in got:
            print(packet, "has", sorted(got))
            continue
        keys = [k for k in meta["items"] if k in got["A"] and k in got["B"]]
        la, lb = [got["A"][k] for k in keys], [got["B"][k] for k in keys]
        allA += la
        allB += lb
        print(f"{packet}: {len(keys)} items, agreement {sum(x == y for x, y in zip(la, lb)) / len(keys):.3f}, kappa {kappa(la, lb):.3f}, "
              f"ARG A {la.count('ARG')} B {lb.count('ARG')}")
        dis += [(packet, k) for k in keys if got["A"][k] != got["B"][k]]
    if allA:
        print(f"ALL: {len(allA)} items, agreement {sum(x == y for x, y in zip(allA, allB)) / len(allA):.3f}, kappa {kappa(allA, allB):.3f}, disagreements {len(dis)}")
    if a.cmd == "adjudication":
        rng = random.Random(5)
        rng.shuffle(dis)
        lines = ["# Adjudication packet adju-01 — argument units\n",
                 "Two annotators disagreed on whether each segment below is an argument unit (ARG) or not (NON).",
                 "Read the guidelines (units_guidelines.md) first. For each item you see the segment, the two",
                 "segments before and after it in its summary (context only) and the debate topic. Decide ARG or NON.\n",
                 'Answer: {"packet": "adju-01", "labels": {"d1": "ARG", "d2": "NON", ...}} with every key.\n']
        idx = {}
        for i, (packet, k) in enumerate(dis, start=1):
            md = (a.work / "packets" / f"{packet}.md").read_text().splitlines()
            pos = next(j for j, l in enumerate(md) if l.startswith(f"[{k}] "))
            head = next(l for l in reversed(md[:pos]) if l.startswith("## Summary"))
            ctx = [l for l in md[max(0, pos - 2) : pos + 3] if l.startswith("[U")]
            key = f"d{i}"
            idx[key] = maps[packet]["items"][k]["id"]
            lines.append(f"### {key}\n{head[3:]}\nContext:\n" + "\n".join("  " + c for c in ctx) + f"\nSEGMENT TO LABEL: {md[pos]}\n")
        (a.work / "packets" / "adju-01.md").write_text("\n".join(lines), encoding="utf-8")
        (a.work / "packets" / "adju-01.map.json").write_text(json.dumps({"packet": "adju-01", "items": idx}), encoding="utf-8")
        print("adju-01:", len(idx), "items")
    if a.cmd == "final":
        a.out.mkdir(parents=True, exist_ok=True)
        rows = []
        for packet, meta in maps.items():
            got = ann[packet]
            for k, it in meta["items"].items():
                la, lb = got["A"][k], got["B"][k]
                if la == lb:
                    lab, agr = la, "2/2"
                else:
                    lab, agr = adj.get(it["id"]), "adjudicated"
                    if lab is None:
                        raise SystemExit(f"unadjudicated disagreement {it['id']}")
                rows.append({"unit_id": it["id"], "summary_file": it["summary_file"], "k": it["k"],
                             "segment_kind": it["segment_kind"], "label": lab, "agreement": agr,
                             "annotations": {"A": la, "B": lb, **({"C": adj[it["id"]]} if agr == "adjudicated" else {})}})
        import gzip

        with gzip.open(a.out / "units.jsonl.gz", "wt", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        st = {"items": len(rows), "summaries": len({r["summary_file"] for r in rows}), "labels": dict(Counter(r["label"] for r in rows)),
              "agreement": round(sum(x == y for x, y in zip(allA, allB)) / len(allA), 4), "kappa": round(kappa(allA, allB), 3),
              "adjudicated": sum(r["agreement"] == "adjudicated" for r in rows)}
        (a.out / "stats.json").write_text(json.dumps(st, indent=1) + "\n", encoding="utf-8")
        print(st)


if __name__ == "__main__":
    main()
