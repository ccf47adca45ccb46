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
from argfaith.datasets.provision_ids import is_provision_id  # either id scheme (P23 or the old PAR-22)

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
        if meta.get("part") not in ("exhaustive", "summary", "targeted"):
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


def units_for(meta: dict, debate_id: str, data: Path, cache: dict) -> dict:
    """Argument units (by id) of the document a packet's source comes from (plans rebuilt once)."""
    from argfaith.datasets.ep import find_ep_debate, read_ep_debate
    from argfaith.datasets.summaries import read_summary
    from argfaith.mining.pipeline import plan_debate, plan_summary
    from argfaith.mining.units import SUMMARY_POLICY_V1  # the units these packets were built with

    key = meta.get("summary_file") or debate_id
    if key not in cache:
        deb = read_ep_debate(find_ep_debate(data / "ep_debates", debate_id), annotations=False)
        if meta.get("summary_file"):
            plan = plan_summary(read_summary(data / "ep_summaries" / debate_id / meta["summary_file"]), deb, policy=SUMMARY_POLICY_V1)
        else:
            plan = plan_debate(deb, units="sentences")
        cache[key] = (plan.topic, plan.units)
    return cache[key]


def cmd_adjudication(work: Path, chunk: int) -> None:
    """Packets for the third annotator: every pair where the two labels disagree (A vs B; for the
    contrasts, the writer's intended label vs the blind checker)."""
    import os

    data = Path(os.environ.get("ARGFAITH_DATA", "../shared/data"))
    maps, ann, problems = gather(work)
    done = set(adjudications(work))
    for mf in (work / "packets").glob("adj-*.map.json"):
        done |= {tuple(v) for v in json.loads(mf.read_text(encoding="utf-8"))["items"].values()}
    cache: dict = {}
    items: list[dict] = []
    for packet in sorted(ann):
        a, b = ann[packet].get("A"), ann[packet].get("B")
        if not (a and b):
            continue
        meta = maps[packet]
        for src in meta["sources"].values():
            debate_id = src.get("debate_id", meta.get("debate_id"))
            for t in src["candidates"]:
                k = (src["id"], t)
                if a[k] == b[k] or k in done:
                    continue
                topic, units = units_for(meta, debate_id, data, cache)
                su, tu = units[src["id"]], units[t]
                items.append({"key": [src["id"], t], "topic": topic, "source": su.text, "source_speaker": su.speaker,
                              "target": tu.text, "target_kind": tu.kind, "target_speaker": tu.speaker,
                              "options": sorted({a[k], b[k]})})
    chk = checker_labels(work)
    for r in writer_items(work, problems):
        k = (r["item"], r["rewrite"])
        ck = (f"contrast:{r['item']}", r["rewrite"])
        if k in chk and chk[k] != r["intended"] and ck not in done:
            items.append({"key": list(ck), "topic": r["topic"], "source": r["text"], "source_speaker": None,
                          "target": r["target"], "target_kind": r["target_kind"], "target_speaker": None,
                          "options": sorted({chk[k], r["intended"]})})
    rng = random.Random(7)
    rng.shuffle(items)
    n_old = len(list((work / "packets").glob("adj-*.md")))
    for c in range(0, len(items), chunk):
        name = f"adj-{n_old + c // chunk + 1:02d}"
        lines = [ADJ_HEADER.format(packet=name)]
        idx = {}
        for i, it in enumerate(items[c : c + chunk], start=1):
            key = f"d{i}"
            idx[key] = it["key"]
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
    for p in problems:
        print("problem:", p)
    print(f"{len(items)} disagreements in new packets")


CHECK_HEADER = """# Checking packet {packet}

Each item below is a pair from a European Parliament debate: a SOURCE argument and a TARGET (a
numbered provision of the resolution, or an earlier sentence of the debate), with the debate title
as TOPIC. Some sources were edited by hand; judge each pair exactly as written. Read the
guidelines (guidelines.md) first, then label every item: support / attack / no relation.

Answer: a JSON object {{"packet": "{packet}", "labels": {{"k1": "support", "k2": "no relation", ...}}}}
with EVERY item key.

## Items
"""


def writer_items(work: Path, problems: list[str]) -> list[dict]:
    """Every contrast pair a writer produced: the original pair and its rewrites."""
    items = {}
    with open(work / "packets" / "contrast_items.jsonl", encoding="utf-8") as f:
        for line in f:
            it = json.loads(line)
            items[it["item"]] = it
    out = []
    for wf in sorted((work / "out" / "W").glob("con-w-*.json")):
        for row in json.loads(wf.read_text(encoding="utf-8")):
            it = items.get(row.get("item"))
            if it is None:
                problems.append(f"{wf}: unknown item {row.get('item')!r}")
                continue
            orig = norm_label(row.get("original"))
            if orig is None:
                problems.append(f"{wf}: {it['item']}: original label {row.get('original')!r} invalid")
                continue
            out.append({**it, "rewrite": "original", "text": it["source"], "intended": orig})
            for kind in ("flip", "vanish"):
                txt, lab = row.get(kind), norm_label(row.get(f"{kind}_label"))
                if not isinstance(txt, str) or not txt.strip() or lab is None:
                    problems.append(f"{wf}: {it['item']}: {kind} missing or its label invalid")
                    continue
                if " ".join(txt.split()) == " ".join(it["source"].split()):
                    problems.append(f"{wf}: {it['item']}: {kind} identical to the original (dropped)")
                    continue
                out.append({**it, "rewrite": kind, "text": " ".join(txt.split()), "intended": lab,
                            **({"note": row["note"]} if row.get("note") else {})})
    return out


def checker_labels(work: Path) -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    for f in sorted((work / "out" / "K").glob("con-k-*.json")):
        doc = json.loads(f.read_text(encoding="utf-8"))
        idx = json.loads((work / "packets" / f"{f.stem}.map.json").read_text(encoding="utf-8"))
        for k, lab in doc.get("labels", doc).items():
            if k in idx["items"] and norm_label(lab):
                item, rw = idx["items"][k]
                out[(item, rw)] = norm_label(lab)  # type: ignore[assignment]
    return out


def cmd_checking(work: Path, chunk: int) -> None:
    """Blind checker packets: every writer pair (originals and rewrites shuffled, no labels shown)."""
    problems: list[str] = []
    rows = writer_items(work, problems)
    for p in problems:
        print("problem:", p)
    done = set(checker_labels(work))
    already = set()
    for mf in (work / "packets").glob("con-k-*.map.json"):
        already |= {tuple(v) for v in json.loads(mf.read_text(encoding="utf-8"))["items"].values()}
    rows = [r for r in rows if (r["item"], r["rewrite"]) not in done and (r["item"], r["rewrite"]) not in already]
    rng = random.Random(11)
    rng.shuffle(rows)
    n_old = len(list((work / "packets").glob("con-k-*.md")))
    for c in range(0, len(rows), chunk):
        name = f"con-k-{n_old + c // chunk + 1:02d}"
        lines = [CHECK_HEADER.format(packet=name)]
        idx = {}
        for i, r in enumerate(rows[c : c + chunk], start=1):
            key = f"k{i}"
            idx[key] = [r["item"], r["rewrite"]]
            kind = "provision of the resolution" if r["target_kind"] == "proposal" else "earlier sentence of the debate"
            lines.append(f"### {key}\nTOPIC: {r['topic']}\nSOURCE: {r['text']}\nTARGET ({kind}): {r['target']}\n")
        (work / "packets" / f"{name}.md").write_text("\n".join(lines), encoding="utf-8")
        (work / "packets" / f"{name}.map.json").write_text(json.dumps({"packet": name, "part": "checking", "items": idx}), encoding="utf-8")
        print(name, len(idx))


def _sha(text: str) -> str:
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:10]


def cmd_final(work: Path, out: Path) -> None:
    """Write ``pairs.jsonl`` (ids, labels of every annotator, final label) and ``stats.json``."""
    import os

    data = Path(os.environ.get("ARGFAITH_DATA", "../shared/data"))
    maps, ann, problems = gather(work)
    adj = adjudications(work)
    records: list[dict] = []
    stats: dict[str, dict] = {}
    cache: dict = {}

    for packet in sorted(ann):
        meta = maps[packet]
        a, b = ann[packet].get("A"), ann[packet].get("B")
        if not (a and b):
            problems.append(f"{packet}: needs both annotators (has {sorted(ann[packet])}); left out")
            continue
        part = meta["part"]
        st = stats.setdefault(part, {"pairs": 0, "agree": 0, "adjudicated": 0, "unresolved": 0, "a": [], "b": []})
        for src_key, src in meta["sources"].items():
            for n, t in enumerate(src["candidates"]):
                key = (src["id"], t)
                la, lb = a[key], b[key]
                st["a"].append(la)
                st["b"].append(lb)
                st["pairs"] += 1
                rec = {"pair_id": f"{packet}-{src_key}-{n + 1:03d}", "part": part, "packet": packet,
                       "debate_id": src.get("debate_id", meta.get("debate_id")), "source_id": src["id"], "target_id": t,
                       "target_kind": "proposal" if is_provision_id(t) else "speech"}
                if meta.get("summary_file"):
                    rec["summary_file"] = meta["summary_file"]
                labels = {"A": la, "B": lb}
                if la == lb:
                    rec["label"], rec["agreement"] = la, "2/2"
                    st["agree"] += 1
                elif key in adj:
                    labels["C"] = adj[key]
                    rec["label"], rec["agreement"] = adj[key], "adjudicated"
                    st["adjudicated"] += 1
                else:
                    st["unresolved"] += 1
                    continue
                rec["annotations"] = labels
                if part == "targeted":
                    rec["critical_speech"] = src.get("critical_speech")
                u = units_for(meta, rec["debate_id"], data, cache)[1]
                rec["source_sha"], rec["target_sha"] = _sha(u[src["id"]].text), _sha(u[t].text)
                records.append(rec)
    # stance contrasts: writer's intended label vs blind checker; adjudicator on disagreement
    rows = writer_items(work, problems)
    chk = checker_labels(work)
    cadj = adjudications(work)
    st = stats.setdefault("contrast", {"pairs": 0, "agree": 0, "adjudicated": 0, "unresolved": 0, "a": [], "b": []})
    for r in rows:
        k = (r["item"], r["rewrite"])
        if k not in chk:
            continue
        st["pairs"] += 1
        st["a"].append(r["intended"])
        st["b"].append(chk[k])
        rec = {"pair_id": f"{r['item']}-{r['rewrite']}", "part": "contrast", "debate_id": r["debate_id"],
               "source_id": r["source_id"], "target_id": r["target_id"], "target_kind": r["target_kind"],
               "rewrite": r["rewrite"], "contrast_of": r["item"], "intended": r["intended"]}
        if r["rewrite"] != "original":
            rec["source_text"] = r["text"]
        labels = {"W": r["intended"], "K": chk[k]}
        ck = (f"contrast:{r['item']}", r["rewrite"])
        if r["intended"] == chk[k]:
            rec["label"], rec["agreement"] = chk[k], "2/2"
            st["agree"] += 1
        elif ck in cadj:
            labels["C"] = cadj[ck]
            rec["label"], rec["agreement"] = cadj[ck], "adjudicated"
            st["adjudicated"] += 1
        else:
            st["unresolved"] += 1
            continue
        rec["annotations"] = labels
        rec["source_sha"], rec["target_sha"] = _sha(r["source"]), _sha(r["target"])
        records.append(rec)
    out.mkdir(parents=True, exist_ok=True)
    import gzip

    # gzip with a fixed mtime: the same labels give the same bytes (no churn in git)
    with open(out / "pairs.jsonl.gz", "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        for rec in records:
            gz.write((json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))
    summary = {}
    for part, st in stats.items():
        la, lb = st.pop("a"), st.pop("b")
        labs = Counter(r["label"] for r in records if r["part"] == part)
        summary[part] = {**st, "kappa": round(cohen_kappa(la, lb), 3) if la else None,
                         "raw_agreement": round(st["agree"] / st["pairs"], 4) if st["pairs"] else None,
                         "labels": dict(labs), "debates": len({r["debate_id"] for r in records if r["part"] == part})}
    summary["total"] = {"pairs": len(records), "labels": dict(Counter(r["label"] for r in records)),
                        "debates": len({r["debate_id"] for r in records})}
    (out / "stats.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    for p in problems:
        print("problem:", p)
    print(json.dumps(summary, indent=1))


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
    elif a.cmd == "checking":
        cmd_checking(a.work, a.chunk)
    else:
        if a.out is None:
            sys.exit("final: --out DIR is required")
        cmd_final(a.work, a.out)


if __name__ == "__main__":
    main()
