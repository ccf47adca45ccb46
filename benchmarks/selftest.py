#!/usr/bin/env python
"""The evaluator self-test as a benchmark: written and rule-based distortions, controls,
saturation, per summary candidate policy — and the ceiling with annotator relations (issue 21).

Runs ``argfaith.study.selftest.run_selftest`` on the 12 debates of ``ep_summaries`` for each
classifier × distortion set × summary candidate policy (``--summary-pairs``), prints one table per
run and writes ``benchmarks/results/selftest.json`` (key ``<classifier>/<set>/<policy>``; the
policy ``all`` keeps the old ``<classifier>/<set>`` key). Sets:

- ``written``: the development set ``data/distortions`` (92 LLM-written distortions of 23 summaries);
- ``rules``: the offline rule distortions (``--provisions 2 --undiscussed 1``);
- ``ceiling``: ``data/ceiling`` (96 written distortions of the 12 summaries whose every pair is
  labelled), restricted to those 12 summaries, with the v1 summary units the labels key. The
  classifier ``ceiling`` replays the annotators' labels on the summary side (v1 corpus + the
  labels of the pairs the edits create) and uses the offline model on the debate side.

Output folders (mined QBAFs, label caches) go under ``--work`` and are reused by a rerun.

    ARGFAITH_DATA=../shared/data python benchmarks/selftest.py --classifiers offline --sets written,rules \\
        --summary-pairs all,ordered,proposals
    ARGFAITH_DATA=../shared/data python benchmarks/selftest.py --classifiers ceiling,offline --sets ceiling \\
        --summary-pairs all,proposals
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from argfaith.mining.classifiers.registry import make_classifier  # noqa: E402
from argfaith.study.selftest import SelftestConfig, render_selftest_markdown, run_selftest  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "selftest.json"
CEILING = ROOT / "data" / "ceiling"


def ceiling_summaries(data: Path, work: Path) -> Path:
    """A summaries folder with only the 12 summary files of the ceiling set (symlinks)."""
    files = {json.loads(l)["summary_file"] for l in (CEILING / "manifest.jsonl").read_text().splitlines() if l.strip()}
    out = work / "ceiling-summaries"
    for f in files:
        did = f.split("_")[0]
        (out / did).mkdir(parents=True, exist_ok=True)
        link = out / did / f
        if not link.exists():
            link.symlink_to((data / "ep_summaries" / did / f).resolve())
    return out


def written_summaries(data: Path, work: Path, manifest: Path, name: str) -> Path:
    """A summaries folder with only the summary files a written set distorts (symlinks): the other
    summaries of a debate have nothing to detect and only cost mining time."""
    files = {json.loads(l)["summary_file"] for l in manifest.read_text().splitlines() if l.strip()}
    out = work / name
    for f in files:
        did = f.split("_")[0]
        (out / did).mkdir(parents=True, exist_ok=True)
        link = out / did / f
        if not link.exists():
            link.symlink_to((data / "ep_summaries" / did / f).resolve())
    return out


def share_sources(folder: Path, shared: Path) -> None:
    """Point ``folder/mined`` at one shared folder: the debates' QBAFs do not depend on the summary
    policy, so every policy's run reuses the first one's (same study key, checked on load)."""
    shared.mkdir(parents=True, exist_ok=True)
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / "mined"
    if not link.exists() and not link.is_symlink():
        link.symlink_to(shared.resolve(), target_is_directory=True)


def seed_ceiling_sources(offline_mined: Path, folder: Path, data: Path, summaries: Path, cspec: str, clf) -> int:  # type: ignore[no-untyped-def]
    """Reuse the offline run's mined debates for the ceiling run. The ceiling classifier is
    ``recorded:LABELS?fallback=offline`` with labels of summary pairs only, so every debate pair
    falls back to ``offline`` and the source QBAF is the offline one; only its study key (which
    names the classifier) differs. Copies each source QBAF under the ceiling run's key; returns how many."""
    from argfaith.mining.classifiers.prior import mining_classifier
    from argfaith.qbaf import load_qbaf, qbaf_from_dict, save_qbaf
    from argfaith.study.config import StudyConfig
    from argfaith.study.corpus import debate_digest
    from argfaith.study.fingerprint import classifier_fingerprint, fingerprint_tag

    inner = mining_classifier(clf)
    fp = classifier_fingerprint(inner)
    tag = fingerprint_tag(inner.name, fp)
    scfg = StudyConfig(debates=data / "ep_debates", summaries=summaries, out=folder, classifier=cspec)
    n = 0
    for src in sorted(offline_mined.glob("*/*/source.json")):
        did = src.parent.name
        dst = folder / "mined" / tag / did / "source.json"
        if dst.exists():
            continue
        d = json.loads(src.read_text(encoding="utf-8"))
        meta = dict(d.get("metadata") or {})
        meta["study_key"] = scfg.source_key(fp, debate_digest(data / "ep_debates" / "debates" / did))
        meta["classifier_spec"] = cspec
        meta["classifier_fingerprint"] = fp
        meta["seeded_from"] = str(src)
        d["metadata"] = meta
        dst.parent.mkdir(parents=True, exist_ok=True)
        save_qbaf(qbaf_from_dict(d), dst)
        assert load_qbaf(dst).info.get("study_key") == meta["study_key"]
        n += 1
    return n


def ceiling_labels(data: Path, work: Path) -> Path:
    """The annotators' labels of every summary pair of the ceiling set, by text: the v1 corpus'
    summary part (the 12 original summaries, all ordered pairs) + ``data/ceiling/pairs.jsonl.gz``."""
    from argfaith.bench.corpus import _plans, load_ep_relation_corpus

    out = work / "ceiling-labels.jsonl"
    if out.exists():
        return out
    rows = []
    for cp in load_ep_relation_corpus(None, data, parts=["summary"]):
        rows.append({"source": cp.query.source, "target": cp.query.target, "label": cp.label})
    plan_of = _plans(data)
    with gzip.open(CEILING / "pairs.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            units = plan_of(r["debate_id"], r["summary_file"]).units

            def text(role: str) -> str:
                if f"{role}_text" in r:
                    return r[f"{role}_text"]
                uid = r[f"{role}_id"]
                if uid not in units:
                    from argfaith.datasets.provision_ids import canonical_provision_id  # old positional ids

                    uid = canonical_provision_id(uid)
                return units[uid].text

            rows.append({"source": text("source"), "target": text("target"), "label": r["label"]})
    work.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=Path(os.environ.get("ARGFAITH_DATA", ROOT.parent / "shared" / "data")))
    ap.add_argument("--classifiers", default="offline")
    ap.add_argument("--sets", default="written,rules")
    ap.add_argument("--summary-pairs", default="all")
    ap.add_argument("--summary-units", default="default")
    ap.add_argument("--work", type=Path, default=ROOT.parent / "selftest-runs")
    ap.add_argument("--provisions", type=int, default=2)
    ap.add_argument("--results", type=Path, default=RESULTS, help="results JSON (merged by key)")
    ap.add_argument("--written-only", action="store_true", help="written set: only the summaries it distorts")
    ap.add_argument("--tag", default="", help="suffix of the result keys (e.g. a model version)")
    a = ap.parse_args()
    res = json.loads(a.results.read_text()) if a.results.exists() else {}
    for spec in a.classifiers.split(","):
        for which in a.sets.split(","):
            summaries = a.data / "ep_summaries"
            units = a.summary_units
            if which == "written":
                dist = f"written:{ROOT / 'data' / 'distortions'}"
                if a.written_only:
                    summaries = written_summaries(a.data, a.work, ROOT / "data" / "distortions" / "manifest.jsonl", "written-summaries")
            elif which == "ceiling":
                dist = f"written:{CEILING}"
                summaries = ceiling_summaries(a.data, a.work)
                units = "v1"  # the units the annotators labelled
            else:
                dist = "rules"
            cspec = spec
            if spec == "ceiling":
                cspec = f"recorded:{ceiling_labels(a.data, a.work)}?key=texts&fallback=offline"
            clf = make_classifier(cspec)
            for policy in a.summary_pairs.split(","):
                key = f"{spec}/{which}" + (f"/{policy}" if policy != "all" else "") + (f"/{units}" if units != "default" else "") + a.tag
                folder = a.work / key.replace("/", "-")
                share_sources(folder, a.work / f"mined-{spec.replace('/', '-').replace(':', '-')}")  # the study key guards it
                if spec == "ceiling":
                    print(f"  seeded {seed_ceiling_sources(a.work / 'mined-offline', folder, a.data, summaries, cspec, clf)} "
                          "debate QBAFs from the offline run", flush=True)
                cfg = SelftestConfig(debates=a.data / "ep_debates", summaries=summaries, out=folder, classifier=cspec,
                                     distortions=dist, provisions=a.provisions, summary_pairs=policy, summary_units=units)
                t0 = time.perf_counter()

                def emit(e: tuple) -> None:  # type: ignore[type-arg]
                    if e[0] in ("item", "phase"):
                        print("  ", *e[1:], flush=True)

                agg = run_selftest(cfg, clf, emit=emit)
                agg["wall_seconds"] = round(time.perf_counter() - t0, 1)
                print(f"\n## {key}\n")
                print(render_selftest_markdown(agg))
                res[key] = agg
                # merged again with what is on disk now: runs of other keys may have finished meanwhile
                disk = json.loads(a.results.read_text()) if a.results.exists() else {}
                disk[key] = agg
                a.results.parent.mkdir(parents=True, exist_ok=True)
                a.results.write_text(json.dumps(disk, indent=1) + "\n")
    print(f"wrote {a.results}")


if __name__ == "__main__":
    main()
