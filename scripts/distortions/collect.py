#!/usr/bin/env python
"""Turn the writers' answers into ``data/distortions/manifest.jsonl`` (and a verification packet).

Each answer (``<work>/out/dist-NN.json``) lists four distortions with provisions as packet labels
(``P7``); the manifest stores the provision's argument id, the summary file name, the debate id, the
kind, the expected movement of σ*(p) and the edits (sentence numbers over the summary's kept
sentences, as ``argfaith.mining.distort.apply_edits`` reads them). Every distortion is applied to
the real summary here, so a manifest line that does not apply (bad sentence number, a sentence
edited twice) is reported and left out. ``--verify-packets`` also writes packets for a second
annotator, who judges each distortion blind to nothing but its claimed kind (before/after texts).

    python scripts/distortions/collect.py --data $ARGFAITH_DATA --work /work/annot/dist --out data/distortions
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from argfaith.datasets.summaries import read_summary
from argfaith.errors import ConfigurationError
from argfaith.mining.distort import EXPECTED, KINDS, SummaryEdit, apply_edits
from argfaith.mining.units import EDIT_POLICY, summary_units

VERIFY_HEADER = """# Verification packet {packet}

Each item shows a distortion of an LLM-written debate summary about ONE provision of the resolution:
its kind, the provision, and the summary sentences before and after the edit. Judge whether the edit
does what its kind requires:

- omit: every part of the summary that argued about the provision is gone, and nothing else changed;
- invert: every sentence that argued about the provision now states the opposite stance on it;
- fabricate_support / fabricate_attack: the inserted text claims speakers backed / opposed the
  provision, with a reason, and is not already stated in the summary;
- and for invert, whether the original summary supported ("down" expected) or opposed ("up") it.

Answer a JSON object {{"packet": "{packet}", "verdicts": {{"v1": {{"ok": "yes"|"partly"|"no", "why": "..."}}, ...}}}}
with every item key. ("partly": right direction but something missed or extra changed.)

## Items
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--verify-packets", type=int, default=0, help="write this many verification packets")
    ap.add_argument("--prefix", default="dist", help="packet prefix: dist (the development set) | cdist (issue 21's ceiling set)")
    ap.add_argument("--answers", type=Path, nargs="*", default=None,
                    help="folders holding the writers' answer files (default WORK/out); packet maps are read from "
                         "WORK (dist) or WORK/packets (when present)")
    a = ap.parse_args()
    rows, problems = [], []
    answer_dirs = a.answers or [a.work / "out"]
    maps_dir = a.work / "packets" if (a.work / "packets").is_dir() else a.work
    answers = sorted(f for d in answer_dirs for f in d.glob(f"{a.prefix}-*.json"))
    for ans in answers:
        meta = json.loads((maps_dir / f"{ans.stem}.map.json").read_text(encoding="utf-8"))
        summ = read_summary(a.data / "ep_summaries" / meta["debate_id"] / meta["summary_file"])
        units = summary_units(summ, policy=EDIT_POLICY).units
        for d in json.loads(ans.read_text(encoding="utf-8")):
            kind, plabel = d.get("kind"), d.get("provision")
            if kind not in KINDS or plabel not in meta["provisions"]:
                problems.append(f"{ans.name}: bad kind/provision {kind!r} {plabel!r}")
                continue
            try:
                edits = [SummaryEdit(e["op"], int(e["sentence"]), e.get("text")) for e in d["edits"]]
                apply_edits(summ, edits, units=units)
            except (ConfigurationError, KeyError, ValueError, TypeError) as e:
                problems.append(f"{ans.name} {kind} {plabel}: {e}")
                continue
            expected = d.get("expected") or EXPECTED[kind]
            if kind == "invert" and expected not in ("up", "down"):
                problems.append(f"{ans.name} invert {plabel}: expected {expected!r}, taken as 'cross'")
                expected = "cross"
            rid = f"{ans.stem}-{kind}" if a.prefix == "dist" else f"{ans.stem}-{kind}-{plabel}"
            if any(r["id"] == rid for r in rows):
                problems.append(f"{ans.name}: {rid} twice (second left out)")
                continue
            rows.append({
                "id": rid, "debate_id": meta["debate_id"], "summary_file": meta["summary_file"],
                "kind": kind, "provision": meta["provisions"][plabel], "provision_label": plabel, "expected": expected,
                "edits": [{"op": e.op, "sentence": e.sentence, **({"text": e.text} if e.text else {})} for e in edits],
                "note": d.get("note", ""), "_before": {e.sentence: units[e.sentence - 1].text for e in edits if 1 <= e.sentence <= len(units)},
            })
    # the second annotator's verdicts (verify-NN.answer.json), when present, go into the manifest
    verdict: dict[str, dict] = {}
    for ans in sorted(a.work.glob("verify-*.answer.json")):
        idx = json.loads((a.work / ans.name.replace(".answer.json", ".map.json")).read_text(encoding="utf-8"))
        for k, v in json.loads(ans.read_text(encoding="utf-8"))["verdicts"].items():
            verdict[idx[k]] = {"ok": v["ok"], "why": v["why"]}
    for r in rows:
        r["check"] = verdict.get(r["id"])
    a.out.mkdir(parents=True, exist_ok=True)
    with open(a.out / "manifest.jsonl", "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps({k: v for k, v in r.items() if not k.startswith("_")}, ensure_ascii=False) + "\n")
    for p in problems:
        print("problem:", p, file=sys.stderr)
    print(f"{len(rows)} distortions written to {a.out / 'manifest.jsonl'}; {len(problems)} problems")
    if a.verify_packets:
        from argfaith.datasets.ep import find_ep_debate, read_ep_debate
        from argfaith.mining.units import proposal_units

        props: dict[str, dict[str, str]] = {}
        chunk = -(-len(rows) // a.verify_packets)
        for c in range(a.verify_packets):
            name = f"verify-{c + 1:02d}"
            lines = [VERIFY_HEADER.format(packet=name)]
            idx = {}
            for i, r in enumerate(rows[c * chunk:(c + 1) * chunk], start=1):
                if r["debate_id"] not in props:
                    deb = read_ep_debate(find_ep_debate(a.data / "ep_debates", r["debate_id"]), annotations=False)
                    props[r["debate_id"]] = {p.id: p.text for p in proposal_units(deb)}
                idx[f"v{i}"] = r["id"]
                lines.append(f"### v{i}\nKIND: {r['kind']}   (claimed original stance for invert: {r['expected']})\n"
                             f"PROVISION: {props[r['debate_id']][r['provision']]}\n")
                for e in r["edits"]:
                    before = r["_before"].get(e["sentence"], "(start of summary)")
                    if e["op"] == "delete":
                        lines.append(f"- DELETED S{e['sentence']}: {before}")
                    elif e["op"] == "replace":
                        lines.append(f"- S{e['sentence']} BEFORE: {before}\n  S{e['sentence']} AFTER:  {e['text']}")
                    else:
                        lines.append(f"- INSERTED after S{e['sentence']}: {e['text']}")
                lines.append("")
            (a.work / f"{name}.md").write_text("\n".join(lines), encoding="utf-8")
            (a.work / f"{name}.map.json").write_text(json.dumps(idx), encoding="utf-8")
            print(name, len(idx))


if __name__ == "__main__":
    main()
