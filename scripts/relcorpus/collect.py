#!/usr/bin/env python
"""Collect the annotations of the EP relation corpus: validate, measure agreement, build the
adjudication and checking packets, and write the final corpus.

Folders (``--work``, default ``/work/annot``): ``packets/`` (from ``build_packets.py`` and
``contrast_items.py``), ``out/A`` and ``out/B`` (two independent annotators), ``out/C``
(adjudicator), ``out/W`` (contrast writers), ``out/K`` (blind contrast checkers).

Subcommands::

    python scripts/relcorpus/collect.py status                # what is annotated, agreement so far
    python scripts/relcorpus/collect.py adjudication          # packets adj-*.md for A/B disagreements
    python scripts/relcorpus/collect.py checking              # blind checker packets con-k-*.md
    python scripts/relcorpus/collect.py final --out data/ep_relations_llm   # pairs.jsonl + stats.json

Every answer file is validated: an unknown source key, a target outside the source's candidate
range or a label outside the three classes is reported (and that entry dropped), never silently
kept. Agreement is Cohen's kappa over all candidate pairs of a part (unlisted = no relation).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

LABELS = ("attack", "support", "no relation")
ALIASES = {"none": "no relation", "no_relation": "no relation", "norelation": "no relation", "no-relation": "no relation",
           "supports": "support", "attacks": "attack"}


def norm_label(x: object) -> str | None:
    if not isinstance(x, str):
        return None
    s = x.strip().lower()
    s = ALIASES.get(s, s)
    return s if s in LABELS else None


def cohen_kappa(a: list[str], b: list[str]) -> float:
    n = len(a)
    if n == 0:
        return float("nan")
    po = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    pe = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    return (po - pe) / (1 - pe) if pe < 1 else 1.0


def load_maps(packets: Path) -> dict[str, dict]:
    return {p.name[: -len(".map.json")]: json.loads(p.read_text(encoding="utf-8")) for p in sorted(packets.glob("*.map.json"))}


def read_answer(path: Path, meta: dict, problems: list[str]) -> dict[tuple[str, str], str] | None:
    """Per-pair labels of one annotator for one packet (every candidate pair; unlisted = no relation)."""
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        problems.append(f"{path}: invalid JSON ({e})")
        return None
    labels = doc.get("labels", doc)
    out: dict[tuple[str, str], str] = {}
    for key, src in meta["sources"].items():
        cands = src["candidates"]
        for t in cands:
            out[(src["id"], t)] = "no relation"
        given = labels.get(key)
        if given is None:
            problems.append(f"{path}: source key {key} missing (taken as all no relation)")
            continue
        allowed = set(cands)
        for short, lab in given.items():
            tid = meta["labels"].get(short)
            lab_n = norm_label(lab)
            if tid is None or tid not in allowed:
                problems.append(f"{path}: {key} -> {short}: not a candidate target of this source (dropped)")
                continue
            if lab_n is None:
                problems.append(f"{path}: {key} -> {short}: label {lab!r} not one of {LABELS} (dropped)")
                continue
            out[(src["id"], tid)] = lab_n
    extra = set(labels) - set(meta["sources"]) if isinstance(labels, dict) else set()
    for k in sorted(extra):
        if k not in ("packet", "notes"):
            problems.append(f"{path}: unknown source key {k!r} (ignored)")
    return out


def gather(work: Path) -> tuple[dict[str, dict], dict[str, dict[str, dict]], list[str]]:
    maps = load_maps(work / "packets")
    problems: list[str] = []
    ann: dict[str, dict[str, dict]] = defaultdict(dict)
    for packet, meta in maps.items():
        if meta.get("part") not in ("exhaustive", "summary"):
            continue
        for who in ("A", "B"):
            got = read_answer(work / "out" / who / f"{packet}.json", meta, problems)
            if got is not None:
                ann[packet][who] = got
    return maps, ann, problems


def adjudications(work: Path) -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    for f in sorted((work / "out" / "C").glob("adj-*.json")):
        doc = json.loads(f.read_text(encoding="utf-8"))
        idx = json.loads((work / "packets" / f"{f.stem}.map.json").read_text(encoding="utf-8"))
        for k, lab in doc.get("labels", doc).items():
            if k in idx["items"] and norm_label(lab):
                s, t = idx["items"][k]
                out[(s, t)] = norm_label(lab)  # type: ignore[assignment]
    return out


def cmd_status(work: Path) -> None:
    maps, ann, problems = gather(work)
    for p in problems:
        print("problem:", p)
    by_part: dict[str, tuple[list[str], list[str]]] = defaultdict(lambda: ([], []))
    for packet in sorted(ann):
        a, b = ann[packet].get("A"), ann[packet].get("B")
        got = {k: Counter(v.values()) for k, v in ann[packet].items()}
        line = f"{packet}: " + "  ".join(f"{k}: att {c['attack']} sup {c['support']} of {sum(c.values())}" for k, c in sorted(got.items()))
        if a and b:
            keys = sorted(a)
            la, lb = [a[k] for k in keys], [b[k] for k in keys]
            part = maps[packet]["part"]
            by_part[part][0].extend(la)
            by_part[part][1].extend(lb)
            rel = [k for k in keys if a[k] != "no relation" or b[k] != "no relation"]
            line += f"  kappa {cohen_kappa(la, lb):.2f}  disagree {sum(x != y for x, y in zip(la, lb))}  related-by-either {len(rel)}"
        print(line)
    for part, (la, lb) in by_part.items():
        print(f"PART {part}: pairs {len(la)}  raw agreement {sum(x == y for x, y in zip(la, lb)) / len(la):.3f}  kappa {cohen_kappa(la, lb):.3f}")


def _speech_context(data: Path, unit_id: str, cache: dict) -> str:
    return ""


def cmd_adjudication(work: Path, chunk: int) -> None:
    """Packets for the third annotator: every pair where A and B disagree (texts resolved here)."""
    from argfaith.datasets.ep import find_ep_debate, read_ep_debate
    from argfaith.datasets.summaries import read_summary
    from argfaith.mining.pipeline import plan_debate, plan_summary

    import os

    data = Path(os.environ.get("ARGFAITH_DATA", "../shared/data"))
    maps, ann, problems = gather(work)
    done = set(adjudications(work))
    items: list[dict] = []
    for packet in sorted(ann):
        a, b = ann[packet].get("A"), ann[packet].get("B")
        if not (a and b):
            continue
        dis = [k for k in sorted(a) if a[k] != b[k] and k not in done]
        if not dis:
            continue
        meta = maps[packet]
        deb = read_ep_debate(find_ep_debate(data / "ep_debates", meta["debate_id"]), annotations=False)
        if meta["part"] == "summary":
            plan = plan_summary(read_summary(data / "ep_summaries" / meta["debate_id"] / meta["summary_file"]), deb)
        else:
            plan = plan_debate(deb, units="sentences")
        units = plan.units
        for s, t in dis:
            su, tu = units[s], units[t]
            items.append({"packet": packet, "topic": plan.topic, "source_id": s, "target_id": t,
                          "source": su.text, "source_speaker": su.speaker, "target": tu.text,
                          "target_kind": tu.kind, "target_speaker": tu.speaker,
                          "options": sorted({a[(s, t)], b[(s, t)]})})
    rng = random.Random(7)
    rng.shuffle(items)
    n_old = len(list((work / "packets").glob("adj-*.md")))
    for c in range(0, len(items), chunk):
        name = f"adj-{n_old + c // chunk + 1:02d}"
        lines = [ADJ_HEADER.format(packet=name)]
        idx = {}
        for i, it in enumerate(items[c : c + chunk], start=1):
            key = f"d{i}"
            idx[key] = [it["source_id"], it["target_id"]]
            kind = {"proposal": "provision of the resolution"}.get(it["target_kind"], "argument of the debate or summary")
            who_s = f" ({it['source_speaker']})" if it["source_speaker"] else ""
            who_t = f" ({it['target_speaker']})" if it["target_speaker"] else ""
            lines.append(
                f"### {key}\nTOPIC: {it['topic']}\nSOURCE{who_s}: {it['source']}\nTARGET — {kind}{who_t}: {it['target']}\n"
                f"The two annotators chose: {' / '.join(it['options'])}\n"
            )
        (work / "packets" / f"{name}.md").write_text("\n".join(lines), encoding="utf-8")
        (work / "packets" / f"{name}.map.json").write_text(json.dumps({"packet": name, "part": "adjudication", "items": idx}), encoding="utf-8")
        print(name, len(idx))
    print(f"{len(items)} disagreements in new packets; problems: {len(problems)}")


ADJ_HEADER = """# Adjudication packet {packet}

Two independent annotators labelled each pair below differently. You decide. Read the guidelines
(guidelines.md) first. For each item, read the SOURCE and the TARGET and choose the label the
class definitions give: support / attack / no relation — usually one of the two options shown,
but choose the third if that is what the pair really is.

Answer: a JSON object {{"packet": "{packet}", "labels": {{"d1": "support", "d2": "no relation", ...}}}}
with EVERY item key.

## Items
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cmd", choices=["status", "adjudication", "checking", "final"])
    ap.add_argument("--work", type=Path, default=Path("/work/annot"))
    ap.add_argument("--chunk", type=int, default=150)
    ap.add_argument("--out", type=Path)
    a = ap.parse_args()
    if a.cmd == "status":
        cmd_status(a.work)
    elif a.cmd == "adjudication":
        cmd_adjudication(a.work, a.chunk)
    else:
        print(f"{a.cmd}: not yet", file=sys.stderr)


if __name__ == "__main__":
    main()
