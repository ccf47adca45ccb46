#!/usr/bin/env python
"""Train argfaith's offline relation classifiers reproducibly and write their shipped weights.

Default recipe (what ships in ``argfaith/data``):

1. IDF table of crude stems over the sentences and resolution paragraphs of the EP debates in
   ``$ARGFAITH_DATA/ep_debates`` EXCEPT the paper's three annotated debates (unsupervised;
   ``offline_idf.json``).
2. Training pairs: the EP silver dev pairs (``ep_relations_silver/dev.jsonl``, weight 1) and the
   LLM-labelled EP pairs from 12 other debates (``data/ep_pairs_llm/pairs.jsonl``, weight 0.5).
   Any other pair corpus can be given with ``--train FILE[:WEIGHT]`` (repeatable; replaces the
   defaults), e.g. the Amelia train split — but mind its corpora's licences before shipping.
3. ``offline``: class-balanced logistic regression over the hand-built pair features
   (``offline_relation_model.npz``).
4. ``embedding`` (needs the ``embeddings`` extra): the same plus MiniLM features; PCA axes are
   estimated on the training pairs' texts (``embedding_relation_model.npz``).

5. Reference scores for the ``match`` decision rule of the all-pairs prior (mining's default,
   ``argfaith.mining.classifiers.prior``): the fitted model's raw scores on a uniform sample of
   the ALL-PAIRS candidates (sentence units, temporal constraint, as ``argfaith mine`` builds
   them) of ``--ref-debates`` EP debates drawn at random outside the paper's three — unlabelled,
   so no label of any evaluation set is used. Shipped as ``reference_scores`` in each ``.npz``.

Before fitting the final models it reports grouped 5-fold cross-validation on the silver dev
pairs (folds by source argument; extra pairs join every training fold), the number quoted in
docs/classifiers.md. Usage::

    python scripts/train_offline.py --data $ARGFAITH_DATA [--which offline|embedding|both] [--out-dir argfaith/data]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from argfaith.bench.relations import DebateContexts, all_pairs_reference, cross_validate, pair_query  # noqa: E402
from argfaith.datasets.relations import label_counts, load_relation_pairs  # noqa: E402
from argfaith.mining.classifiers.embedding import DEFAULT_EMBEDDING_L2  # noqa: E402  (torch is imported lazily)
from argfaith.mining.classifiers.offline import DEFAULT_L2, IdfTable, train_offline_classifier  # noqa: E402
from sample_ep_pairs import SILVER_DEBATES, load_debate  # noqa: E402

OFFLINE_L2 = DEFAULT_L2
EMBEDDING_L2 = DEFAULT_EMBEDDING_L2
EXTRA_WEIGHT = 0.5
REF_SEED = 20261130
REF_DEBATES = 8
REF_PAIRS = 750


def build_idf(data: Path) -> IdfTable:
    texts: list[str] = []
    root = data / "ep_debates" / "debates"
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name not in SILVER_DEBATES):
        d = load_debate(folder)
        texts += [u["text"] for u in d["speech"]] + [p["text"] for p in d["paragraphs"]]
    print(f"IDF over {len(texts)} EP sentences/paragraphs (silver debates excluded)")
    return IdfTable.fit(texts, min_df=5)


def parse_train(specs: list[str]) -> list[tuple[Path, float]]:
    out = []
    for s in specs:
        path, _, w = s.rpartition(":") if s.rsplit(":", 1)[-1].replace(".", "", 1).isdigit() else (s, "", "1")
        out.append((Path(path), float(w)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, help="data directory (ep_debates/, ep_relations_silver/)")
    ap.add_argument("--out-dir", default=str(ROOT / "argfaith" / "data"))
    ap.add_argument("--which", choices=("offline", "embedding", "both"), default="both")
    ap.add_argument("--train", action="append", default=None, help="pair file[:weight]; repeatable (default: silver dev + ep_pairs_llm)")
    ap.add_argument("--cv-file", default=None, help="pairs to cross-validate on (default: the silver dev pairs)")
    ap.add_argument("--no-cv", action="store_true")
    ap.add_argument("--ref-debates", type=int, default=REF_DEBATES, help="debates sampled for the all-pairs reference scores")
    ap.add_argument("--ref-pairs", type=int, default=REF_PAIRS, help="candidate pairs sampled per reference debate")
    args = ap.parse_args()
    data = Path(args.data)
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    silver = data / "ep_relations_silver" / "dev.jsonl"
    llm = ROOT / "data" / "ep_pairs_llm" / "pairs.jsonl"
    train_specs = parse_train(args.train) if args.train else [(silver, 1.0), (llm, EXTRA_WEIGHT)]
    cv_file = Path(args.cv_file) if args.cv_file else silver

    t0 = time.perf_counter()
    idf = build_idf(data)
    (out / "offline_idf.json").write_text(json.dumps(idf.to_json(), separators=(",", ":")), encoding="utf-8")

    train = [(load_relation_pairs(p), w) for p, w in train_specs]
    for (p, w), (pairs, _) in zip(train_specs, train, strict=True):
        print(f"train: {p} weight {w}: {len(pairs)} pairs {label_counts(pairs)}")
    cv_pairs = [] if args.no_cv else load_relation_pairs(cv_file)
    extra = [pp for (p, w), (pairs, _) in zip(train_specs, train, strict=True) if p.resolve() != cv_file.resolve() for pp in pairs]
    extra_weight = min((w for p, w in train_specs if p.resolve() != cv_file.resolve()), default=1.0)
    provenance = (
        "trained by scripts/train_offline.py on "
        + "; ".join(f"{p.parent.name}/{p.name} (weight {w})" for p, w in train_specs)
        + "; EP texts © European Union, source: European Parliament"
    )
    ctx = DebateContexts(data / "ep_debates")  # speech context of the EP argument ids
    q = [pair_query(pp, ctx) for pairs, _ in train for pp in pairs]
    print(f"debate context found for {ctx.found} speech arguments, missing for {ctx.missing}")
    y = [pp.label for pairs, _ in train for pp in pairs]
    w = np.concatenate([np.full(len(pairs), wt) for pairs, wt in train])
    ref_q, ref_ids = all_pairs_reference(data / "ep_debates", args.ref_debates, args.ref_pairs, seed=REF_SEED, exclude=SILVER_DEBATES)
    print(f"reference sample: {len(ref_q)} all-pairs candidates of {', '.join(ref_ids)}")
    ref_meta = {"reference": f"{len(ref_q)} all-pairs candidates (sentence units) of {', '.join(ref_ids)}"}
    summary: dict = {"reference_debates": ref_ids, "train": {str(p): {"weight": wt, "n": len(pairs), "labels": label_counts(pairs)} for (p, wt), (pairs, _) in zip(train_specs, train, strict=True)}}

    if args.which in ("offline", "both"):
        if not args.no_cv:
            r = cross_validate(cv_pairs, lambda qq, yy, ww: train_offline_classifier(qq, yy, idf, l2=OFFLINE_L2, sample_weight=ww),
                               name="offline", k=5, group_by="source", seed=0, extra_train=extra, extra_weight=extra_weight, contexts=ctx)
            print(f"offline: grouped 5-fold CV on {cv_file.name}: accuracy {r.report.accuracy:.3f} macro-F1 {r.report.macro_f1:.3f} "
                  + " ".join(f"{s.label}={s.f1:.2f}" for s in r.report.per_class))
            summary["offline_cv"] = {"accuracy": r.report.accuracy, "macro_f1": r.report.macro_f1}
        clf = train_offline_classifier(q, y, idf, l2=OFFLINE_L2, sample_weight=w)
        ref = clf._raw_scores(ref_q).astype(np.float16)  # 3 significant digits suffice for class shares
        clf.model.save(out / "offline_relation_model.npz", arrays={"reference_scores": ref}, provenance=provenance,
                       l2=str(OFFLINE_L2), **ref_meta)
        print(f"offline: fitted ({clf.model.iterations} Newton iterations, |grad| {clf.model.grad_norm:.1e}) -> {out / 'offline_relation_model.npz'}")

    if args.which in ("embedding", "both"):
        from argfaith.mining.classifiers.embedding import SentenceEncoder, fit_projections, train_embedding_classifier

        enc = SentenceEncoder()
        texts = list(dict.fromkeys([x.source for x in q] + [x.target for x in q]))
        E = enc.encode(texts).astype(np.float64)
        row = {t: i for i, t in enumerate(texts)}
        st = np.array([E[row[x.source]] * E[row[x.target]] for x in q])
        pair_proj, src_proj = fit_projections(E, st)
        if not args.no_cv:
            r = cross_validate(cv_pairs, lambda qq, yy, ww: train_embedding_classifier(qq, yy, idf, pair_proj, src_proj, encoder=enc, l2=EMBEDDING_L2, sample_weight=ww),
                               name="embedding", k=5, group_by="source", seed=0, extra_train=extra, extra_weight=extra_weight, contexts=ctx)
            print(f"embedding: grouped 5-fold CV on {cv_file.name}: accuracy {r.report.accuracy:.3f} macro-F1 {r.report.macro_f1:.3f} "
                  + " ".join(f"{s.label}={s.f1:.2f}" for s in r.report.per_class))
            summary["embedding_cv"] = {"accuracy": r.report.accuracy, "macro_f1": r.report.macro_f1}
        clf = train_embedding_classifier(q, y, idf, pair_proj, src_proj, encoder=enc, l2=EMBEDDING_L2, sample_weight=w)
        ref = clf._raw_scores(ref_q).astype(np.float16)  # 3 significant digits suffice for class shares
        clf.model.save(out / "embedding_relation_model.npz", arrays={"pair_proj": pair_proj, "src_proj": src_proj, "reference_scores": ref},
                       provenance=provenance + "; all-MiniLM-L6-v2 features (Apache-2.0)", l2=str(EMBEDDING_L2), **ref_meta)
        print(f"embedding: fitted -> {out / 'embedding_relation_model.npz'}")
    print(json.dumps(summary, indent=1))
    print(f"done in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
