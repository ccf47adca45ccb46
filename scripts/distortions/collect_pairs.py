#!/usr/bin/env python
"""Collect the labels of the pairs written distortions create (``dpair-NN`` packets of
``build_pair_packets.py``): validate, Cohen's κ (A vs B over every candidate pair), adjudication
packet for disagreements (``dadj-NN``), and the final recorded-label file of issue 21's ceiling.

For each new sentence N of an edited version, the candidates are: N → every provision, N → every
summary sentence the version keeps, N → every other new sentence of the version (``out``), and
every kept summary sentence / other new sentence → N (``in``). A summary sentence the version
replaces is not in it (both annotators treated it so). Unlisted = no relation.

    python scripts/distortions/collect_pairs.py --data $ARGFAITH_DATA --work WORK/dist status|adjudication|final --out DIR
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter, defaultdict
from pathlib import Path

LABELS = ("attack", "support", "no relation")


def kappa(a: list[str], b: list[str]) -> float:
    n = len(a)
    po = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    return (po - pe) / (1 - pe) if pe < 1 else 1.0


def norm(x: object) -> str | None:
    s = str(x).strip().lower()
    return {"supports": "support", "attacks": "attack"}.get(s, s) if s in ("support", "attack", "supports", "attacks") else None


def candidates(manifest: dict[str, dict], sm: dict) -> dict[tuple[str, str], dict]:
    """(source key, target key) -> info, keys being P/S/N labels of one summary of a packet."""
    out: dict[tuple[str, str], dict] = {}
    labels = sm["labels"]
    P = [k for k in labels if k.startswith("P")]
    S = [k for k in labels if k.startswith("S")]
    by_version: dict[int, list[str]] = defaultdict(list)
    for nk, n in sm["new"].items():
        by_version[n["version"]].append(nk)
    for v, ns in by_version.items():
        d = manifest[sm["new"][ns[0]]["distortion"]]
        gone = {f"S{e['sentence']}" for e in d["edits"] if e["op"] in ("delete", "replace")}
        kept = [s for s in S if s not in gone]
        for nk in ns:
            for t in P + kept + [m for m in ns if m != nk]:
                out[(nk, t)] = {"version": v, "distortion": d["id"]}
            for s in kept:
                out[(s, nk)] = {"version": v, "distortion": d["id"]}
    return out


def read(path: Path, cands: dict, sk: str, problems: list[str]) -> dict[tuple[str, str], str]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    given = (doc.get("labels") or {}).get(sk) or {}
    lab = {k: "no relation" for k in cands}
    for nk, d in given.items():
        for direction in ("out", "in"):
            for other, l in ((d or {}).get(direction) or {}).items():
                key = (nk, other) if direction == "out" else (other, nk)
                if key not in cands or norm(l) is None:
                    problems.append(f"{path.name} summary {sk}: {direction} {key} = {l!r} dropped")
                    continue
                lab[key] = norm(l)  # type: ignore[assignment]
    return lab


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("cmd", choices=("status", "adjudication", "final"))
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    manifest = {json.loads(l)["id"]: json.loads(l) for l in (a.work / "manifest" / "manifest.jsonl").read_text().splitlines() if l.strip()}
    problems: list[str] = []
    pairs: dict[tuple[str, str, str, str], dict] = {}  # (packet, summary key, src, tgt) -> info + labels
    for mp in sorted((a.work / "pairs").glob("dpair-*.map.json")):
        m = json.loads(mp.read_text())
        for sk, sm in m["summaries"].items():
            cands = candidates(manifest, sm)
            got = {}
            for who in ("A", "B"):
                f = a.work / "ann" / f"{who}-{m['packet']}" / f"{m['packet']}.json"
                if f.exists():
                    got[who] = read(f, cands, sk, problems)
            for k, info in cands.items():
                pairs[(m["packet"], sk, *k)] = {**info, **{w: g[k] for w, g in got.items()}, "summary": sm}
    adj: dict[tuple, str] = {}
    for f in sorted((a.work / "ann").glob("C-dadj-*/dadj-*.json")):
        idx = json.loads((a.work / "pairs" / f"{f.stem}.map.json").read_text())["items"]
        for k, l in json.loads(f.read_text()).get("labels", {}).items():
            n = norm(l) or ("no relation" if str(l).strip().lower() in ("no relation", "none") else None)
            if k in idx and n:
                adj[tuple(idx[k])] = n
    both = [k for k, v in pairs.items() if "A" in v and "B" in v]
    la, lb = [pairs[k]["A"] for k in both], [pairs[k]["B"] for k in both]
    dis = [k for k in both if pairs[k]["A"] != pairs[k]["B"]]
    for p in problems[:20]:
        print("problem:", p)
    print(f"pairs {len(pairs)}, with A and B {len(both)}: agreement {sum(x == y for x, y in zip(la, lb)) / max(1, len(both)):.4f}, "
          f"kappa {kappa(la, lb) if both else float('nan'):.3f}; A {dict(Counter(la))}; B {dict(Counter(lb))}; disagreements {len(dis)}, "
          f"adjudicated {sum(k in adj for k in dis)}")

    if a.cmd == "adjudication":
        from argfaith.datasets.ep import find_ep_debate, read_ep_debate
        from argfaith.datasets.summaries import read_summary
        from argfaith.mining.units import EDIT_POLICY, proposal_units, summary_units

        cache: dict = {}

        def texts_of(sm: dict) -> dict[str, str]:
            f = sm["summary_file"]
            if f not in cache:
                deb = read_ep_debate(find_ep_debate(a.data / "ep_debates", sm["debate_id"]), annotations=False)
                t = {f"P{i}": p.text for i, p in enumerate(proposal_units(deb), start=1)}
                t |= {f"S{i}": u.text for i, u in enumerate(summary_units(read_summary(a.data / "ep_summaries" / sm["debate_id"] / f),
                                                                                     policy=EDIT_POLICY).units, start=1)}
                t |= {nk: n["text"] for nk, n in sm["new"].items()}
                cache[f] = (t, deb.topic)
            return cache[f]

        todo = [k for k in dis if k not in adj]
        random.Random(3).shuffle(todo)
        lines = ["# Adjudication packet dadj-01\n",
                 "Two annotators disagreed on each pair below (sentences of LLM summaries of European Parliament debates, "
                 "provisions of the resolution, and new sentences written into edited summaries). Read the guidelines "
                 "(guidelines.md) first. Decide the relation FROM the source TO the target: support / attack / no relation.\n",
                 'Answer: {"packet": "dadj-01", "labels": {"d1": "support", "d2": "no relation", ...}} with every key.\n']
        idx = {}
        for i, k in enumerate(todo, start=1):
            sm = pairs[k]["summary"]
            t, topic = texts_of(sm)
            kind = {"P": "provision of the resolution", "S": "summary sentence", "N": "summary sentence"}[k[3][0]]
            lines.append(f"### d{i}\nTOPIC: {topic}\nSOURCE (summary sentence): {t[k[2]]}\nTARGET ({kind}): {t[k[3]]}\n"
                         f"The two annotators chose: {' / '.join(sorted({pairs[k]['A'], pairs[k]['B']}))}\n")
            idx[f"d{i}"] = list(k)
        (a.work / "pairs" / "dadj-01.md").write_text("\n".join(lines), encoding="utf-8")
        (a.work / "pairs" / "dadj-01.map.json").write_text(json.dumps({"items": idx}), encoding="utf-8")
        print("dadj-01:", len(idx))
    if a.cmd == "final":
        a.out.mkdir(parents=True, exist_ok=True)
        rows = []
        unresolved = 0
        for k, v in pairs.items():
            if "A" not in v or "B" not in v:
                continue
            if v["A"] == v["B"]:
                lab, agr = v["A"], "2/2"
            elif k in adj:
                lab, agr = adj[k], "adjudicated"
            else:
                unresolved += 1
                continue
            sm = v["summary"]

            def side(key: str, role: str) -> dict:
                # summary sentences and provisions by argfaith unit id (no shared text stored); new sentences by their text (ours)
                return {f"{role}_text": sm["new"][key]["text"]} if key.startswith("N") else {f"{role}_id": sm["labels"][key]}

            rows.append({"summary_file": sm["summary_file"], "debate_id": sm["debate_id"], "distortion": v["distortion"],
                         **side(k[2], "source"), **side(k[3], "target"),
                         "target_kind": "proposal" if k[3].startswith("P") else "speech", "label": lab, "agreement": agr,
                         "annotations": {"A": v["A"], "B": v["B"], **({"C": adj[k]} if agr == "adjudicated" else {})}})
        with open(a.out / "pairs.jsonl", "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        st = {"pairs": len(rows), "labels": dict(Counter(r["label"] for r in rows)), "unresolved": unresolved,
              "agreement": round(sum(x == y for x, y in zip(la, lb)) / len(both), 4), "kappa": round(kappa(la, lb), 3),
              "adjudicated": sum(r["agreement"] == "adjudicated" for r in rows)}
        (a.out / "pairs_stats.json").write_text(json.dumps(st, indent=1) + "\n", encoding="utf-8")
        print(st)


if __name__ == "__main__":
    main()
