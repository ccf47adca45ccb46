#!/usr/bin/env python
"""Flatten a relation corpus into the arrays the v2 relation-model trials use (cached as a pickle).

Every pair becomes a dict: ``id, part, group (debate), label, genre, target_kind, eval_only,
source, target, topic, prev`` (the sentence before the source in its speech / summary, "" when
it opens it), ``speech_open`` (the first sentence of the source's speech), ``same_speech``,
``rewrite`` (contrast pairs) and the PairQuery itself (``q``) for the pair-feature model.

    python scripts/relmodel/prep.py --data $ARGFAITH_DATA --corpus data/ep_relations_llm/pairs.jsonl.gz --out /tmp/rel_v1.pkl
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from argfaith.bench.corpus import _plans, load_ep_relation_corpus  # noqa: E402

RESERVED = {
    "CRE-20061026-ITEM-003", "CRE-20060404-ITEM-007", "CRE-20060404-ITEM-013", "CRE-20060406-ITEM-004",
    "CRE-20060406-ITEM-005", "CRE-20060426-ITEM-012", "CRE-20060427-ITEM-003",
}


def neighbours(plan) -> dict[str, tuple[str, str]]:  # noqa: ANN001
    """unit id -> (previous unit's text in the same document, the document's first unit text)."""
    out: dict[str, tuple[str, str]] = {}
    prev_doc, prev_text, first = None, "", ""
    for u in plan.speech:
        if u.document != prev_doc:
            prev_doc, prev_text, first = u.document, "", u.text
        out[u.id] = (prev_text, first)
        prev_text = u.text
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, action="append", required=True)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    plan_of = _plans(a.data)
    rows = []
    for corpus in a.corpus:
        for cp in load_ep_relation_corpus(corpus, a.data):
            if cp.debate_id in RESERVED:
                continue  # reserved for independent evaluation (the brief): never trained or tuned on
            q = cp.query
            summary_file = None
            if q.genre == "summary":
                summary_file = cp.pair_id  # placeholder; resolved below
            rows.append({"id": cp.pair_id, "part": cp.part, "group": cp.debate_id, "label": cp.label, "q": q,
                         "genre": q.genre or "debate", "target_kind": q.target_kind, "eval_only": cp.eval_only,
                         "source": q.source, "target": q.target, "topic": q.topic or "", "rewrite": cp.rewrite,
                         "same_speech": bool(q.source_position is not None and q.source_position == q.target_position),
                         "agreement": cp.agreement, "packet": cp.packet})
    # neighbours from the mining plans (the loader cached them)
    import gzip
    import json

    files = {}
    for corpus in a.corpus:
        op = gzip.open if corpus.suffix == ".gz" else open
        with op(corpus, "rt", encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                files[r["pair_id"]] = r.get("summary_file")
    nb_cache: dict = {}
    for r in rows:
        key = files.get(r["id"]) or r["group"]
        if key not in nb_cache:
            nb_cache[key] = neighbours(plan_of(r["group"], files.get(r["id"])))
        prev, first = nb_cache[key].get(r["q"].source_id, ("", ""))
        r["prev"], r["speech_open"] = prev, first
        r["summary_file"] = files.get(r["id"])
    with open(a.out, "wb") as f:
        pickle.dump(rows, f)
    print(len(rows), "pairs ->", a.out)


if __name__ == "__main__":
    main()
