"""Build the example's QBAF files from its hand-made annotations.

    python examples/debate/build.py          # (re)write source.json, summary_*.json
    python examples/debate/build.py --check  # exit 1 if the committed JSONs are out of date

Inputs (all in this folder, all written for argfaith — not taken from any dataset):

* ``debate.json`` — the debate in argfaith's hand-written JSON debate format: four provisions
  (the proposal arguments PAR-1..PAR-4) and six speeches; its ``spans`` are the speech arguments,
  numbered a1, a2, ... in debate order;
* ``summary_<name>.txt`` + ``arguments_<name>.jsonl`` — a summary and its argument units
  (``{"id", "text"}``; each text is a verbatim part of the summary);
* ``relations_<source|name>.jsonl`` — hand-made relation annotations
  ``{"source_id", "target_id", "label"}`` with label attack / support (the layout of mining's
  recorded-label classifier). The source relations obey the paper's temporal constraint (a speech
  argument only targets proposals and earlier arguments), so the source QBAF is acyclic; summary
  relations may form cycles.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from argfaith.qbaf import QBAF, Argument, qbaf_to_dict

HERE = Path(__file__).resolve().parent
TAU = 0.2
SUMMARIES = ("faithful", "distorted")


def _jsonl(path: Path) -> list[tuple[int, dict]]:
    rows = []
    for ln, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append((ln, json.loads(line)))
            except json.JSONDecodeError as e:
                sys.exit(f"{path.name}:{ln}: invalid JSON: {e.msg}")
    return rows


def _relations(path: Path, ids: set[str], order: dict[str, int] | None) -> tuple[list, list]:
    att, sup = [], []
    for ln, r in _jsonl(path):
        s, t, lab = r.get("source_id"), r.get("target_id"), r.get("label")
        for x in (s, t):
            if x not in ids:
                sys.exit(f"{path.name}:{ln}: unknown argument {x!r}")
        if order is not None and t in order and not order[t] < order[s]:
            sys.exit(f"{path.name}:{ln}: {s} -> {t} breaks the temporal constraint (targets must come earlier)")
        if lab == "attack":
            att.append((s, t))
        elif lab == "support":
            sup.append((s, t))
        elif lab != "no relation":
            sys.exit(f"{path.name}:{ln}: label must be attack / support / no relation, got {lab!r}")
    return att, sup


def build() -> dict[str, dict]:
    debate = json.loads((HERE / "debate.json").read_text(encoding="utf-8"))
    speeches = {iv["id"]: iv for iv in debate["interventions"]}
    props = [Argument(p["id"], "proposal", 0.5, text=p["text"]) for p in debate["provisions"]]
    speech = []
    for k, span in enumerate(debate["spans"]):
        iv = speeches[span["intervention"]]
        if span["text"] not in iv["text"]:
            sys.exit(f"debate.json: spans[{k}] is not part of intervention {iv['id']}")
        speech.append(Argument(f"a{k + 1}", text=span["text"], speaker=iv["speaker"], position=k, base_score=TAU,
                               metadata={"intervention": iv["id"]}))
    ids = {a.id for a in props + speech}
    att, sup = _relations(HERE / "relations_source.jsonl", ids, {a.id: a.position for a in speech})
    src = QBAF.from_arguments(props + speech, att, sup, tau=TAU, debate=True, name="Right to repair — debate",
                              info={"built_from": ["debate.json", "relations_source.jsonl"]})
    out = {"source.json": qbaf_to_dict(src)}
    for name in SUMMARIES:
        text = (HERE / f"summary_{name}.txt").read_text(encoding="utf-8")
        units = []
        for ln, r in _jsonl(HERE / f"arguments_{name}.jsonl"):
            pos = text.find(r["text"])
            if pos < 0:
                sys.exit(f"arguments_{name}.jsonl:{ln}: text is not part of summary_{name}.txt")
            units.append(Argument(r["id"], text=r["text"], position=pos, base_score=TAU))
        p2 = [Argument(p.id, "proposal", 0.5, text=p.text) for p in props]
        ids = {a.id for a in p2 + units}
        att, sup = _relations(HERE / f"relations_{name}.jsonl", ids, None)
        q = QBAF.from_arguments(p2 + units, att, sup, tau=TAU, debate=True, name=f"Right to repair — {name} summary",
                                info={"built_from": [f"summary_{name}.txt", f"arguments_{name}.jsonl", f"relations_{name}.jsonl"]})
        out[f"summary_{name}.json"] = qbaf_to_dict(q)
    return out


def _dump(d: dict) -> str:
    return json.dumps(d, ensure_ascii=False, indent=1) + "\n"


def main(argv: list[str]) -> int:
    files = build()
    if "--check" in argv:
        stale = [n for n, d in files.items() if not (HERE / n).exists() or (HERE / n).read_text(encoding="utf-8") != _dump(d)]
        if stale:
            print(f"out of date: {', '.join(stale)}; run python examples/debate/build.py", file=sys.stderr)
            return 1
        return 0
    for n, d in files.items():
        (HERE / n).write_text(_dump(d), encoding="utf-8")
        print(f"wrote {HERE / n}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
