#!/usr/bin/env python
"""Sample EP argument pairs for hand labelling, the way the silver set was built.

Reproducible (fixed seed). Reads the EP debates layout (``<data>/ep_debates/debates/<id>/``),
skips the paper's three annotated debates (their pairs are the silver dev/test sets), and for a
random choice of other debates:

- speech arguments = sentences of the interventions (the President's chairing turns and very
  short or procedural sentences are skipped; the speaker prefix "Name (Group). – " is removed);
- proposal arguments = the numbered paragraphs of the debated resolution;
- for each sampled source sentence: its most lexically similar (TF-IDF cosine) resolution
  paragraph, its most similar EARLIER sentence (temporal constraint, PAPER.md §7), and one random
  target (paragraph or earlier sentence, equally likely).

Output: JSONL of unlabelled pairs in argfaith's generic pair layout (``label`` = null), ready to
be labelled with the paper's class definitions. Usage::

    python scripts/sample_ep_pairs.py --data $ARGFAITH_DATA --out /tmp/ep_pairs_unlabelled.jsonl

© European Union, source: European Parliament (the sentences and paragraphs sampled).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
from collections import Counter
from pathlib import Path

SILVER_DEBATES = {"CRE-20060213-ITEM-013", "CRE-20070905-ITEM-015", "CRE-20080313-ITEM-002"}
_WORD = re.compile(r"[a-z][a-z'-]+")
_STOP = set(
    "the a an of to and in is that for on it this be are we as with by not have has was which will at from "
    "or but our its their they i you he she all there more also can would should these those been were must "
    "very into than so such if what who do does did no any other only about out up them his her my your us "
    "one may because being mr president commissioner madam ladies gentlemen".split()
)
_SENT = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9–-])")
_PROCEDURAL = re.compile(r"^(the debate is closed|the vote will take place|i should like to thank|thank you)", re.I)


def _speaker_free(text: str) -> str:
    # EP verbatim reports start each speech with "Name (Group), role. – "; drop that prefix.
    head = text[:200]
    for sep in (" . – ", ". – ", " – "):
        i = head.find(sep)
        if i != -1:
            return text[i + len(sep):].strip()
    return text.strip()


def sentences(text: str) -> list[str]:
    out = []
    for para in text.split("\n"):
        for s in _SENT.split(para.strip()):
            s = s.strip()
            if s:
                out.append(s)
    return out


def _keep(sentence: str) -> bool:
    n = len(sentence.split())
    return 8 <= n <= 70 and not _PROCEDURAL.match(sentence) and not sentence.endswith(":")


def tokens(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2]


def load_debate(folder: Path) -> dict:
    meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
    paragraphs = []
    for f in sorted((folder / "report_statements").glob("*.json")):
        rep = json.loads(f.read_text(encoding="utf-8"))
        for k, p in enumerate(rep["paragraphs"], start=1):
            p = " ".join(p.split())
            if len(p.split()) >= 5:
                paragraphs.append({"id": f"{folder.name}-PAR-{len(paragraphs) + 1}", "text": p})
    def order(f: Path) -> tuple[int, ...]:
        return tuple(int(x) for x in re.findall(r"\d+", f.stem))
    speech = []
    for f in sorted((folder / "interventions").glob("*.json"), key=order):
        iv = json.loads(f.read_text(encoding="utf-8"))
        if iv.get("speaker", "").strip().lower().startswith("president"):
            continue
        body = _speaker_free(iv.get("english") or "")
        k = 0
        for s in sentences(body):
            k += 1
            if _keep(s):
                speech.append({"id": f"{folder.name}-{iv['intervention_id']}-s{k}", "text": s})
    return {"id": folder.name, "title": meta.get("title", "").removesuffix(" (debate)"), "paragraphs": paragraphs, "speech": speech}


def tfidf_vectors(texts: list[str]) -> list[dict[str, float]]:
    docs = [Counter(tokens(t)) for t in texts]
    df = Counter(w for d in docs for w in d)
    n = len(docs)
    vecs = []
    for d in docs:
        v = {w: (1 + math.log(c)) * math.log((1 + n) / (1 + df[w])) for w, c in d.items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        vecs.append({w: x / norm for w, x in v.items()})
    return vecs


def cosine(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(x * b.get(w, 0.0) for w, x in a.items())


def sample_debate(deb: dict, n_sources: int, rng: random.Random) -> list[dict]:
    pars, speech = deb["paragraphs"], deb["speech"]
    if not pars or len(speech) < 10:
        return []
    units = pars + speech
    vecs = tfidf_vectors([u["text"] for u in units])
    pv, sv = vecs[: len(pars)], vecs[len(pars):]
    candidates = list(range(5, len(speech)))  # leave a few earlier sentences as targets
    chosen = sorted(rng.sample(candidates, min(n_sources, len(candidates))))
    pairs = []
    for i in chosen:
        src = speech[i]
        best_p = max(range(len(pars)), key=lambda j: cosine(sv[i], pv[j]))
        # Earlier sentences only (temporal constraint); skip the source's own intervention neighbours.
        earlier = [j for j in range(i) if speech[j]["id"].rsplit("-s", 1)[0] != src["id"].rsplit("-s", 1)[0]] or list(range(i))
        best_s = max(earlier, key=lambda j: cosine(sv[i], sv[j]))
        picks = [("proposal", best_p, "similar"), ("speech", best_s, "similar")]
        if rng.random() < 0.5:
            picks.append(("proposal", rng.choice([j for j in range(len(pars)) if j != best_p] or [best_p]), "random"))
        else:
            picks.append(("speech", rng.choice([j for j in earlier if j != best_s] or [best_s]), "random"))
        for kind, j, how in picks:
            tgt = pars[j] if kind == "proposal" else speech[j]
            pairs.append({
                "debate_id": deb["id"], "topic": deb["title"], "source_id": src["id"], "source": src["text"],
                "target_id": tgt["id"], "target": tgt["text"], "target_kind": kind, "sampling": how, "label": None,
            })
    return pairs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="data directory holding ep_debates/")
    ap.add_argument("--out", required=True)
    ap.add_argument("--debates", type=int, default=12)
    ap.add_argument("--sources-per-debate", type=int, default=10)
    ap.add_argument("--seed", type=int, default=20261129)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    root = Path(args.data) / "ep_debates" / "debates"
    folders = sorted(p for p in root.iterdir() if p.is_dir() and p.name not in SILVER_DEBATES)
    rng.shuffle(folders)
    out, used = [], 0
    for folder in folders:
        if used >= args.debates:
            break
        pairs = sample_debate(load_debate(folder), args.sources_per_debate, rng)
        if pairs:
            out.extend(pairs)
            used += 1
    # De-duplicate (a similar target can also be drawn at random) and shuffle so labelling order is blind.
    seen, uniq = set(), []
    for p in out:
        key = (p["source_id"], p["target_id"])
        if key not in seen:
            seen.add(key)
            uniq.append(p)
    rng.shuffle(uniq)
    with open(args.out, "w", encoding="utf-8") as fh:
        for k, p in enumerate(uniq, start=1):
            fh.write(json.dumps({"pair_id": f"llm-{k:04d}", **p}, ensure_ascii=False) + "\n")
    print(f"{len(uniq)} pairs from {used} debates -> {args.out}")


if __name__ == "__main__":
    main()
