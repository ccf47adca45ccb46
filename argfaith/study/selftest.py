"""``argfaith selftest``: can this evaluator be trusted on this corpus?

For every summary of a corpus (debates + summaries, the layout of ``argfaith study``) the
self-test

1. mines the debate's QBAF Q (shared with ``study``: same cache folder and key) and the
   summary's QBAF Q*;
2. distorts the summary about a few provisions (:mod:`argfaith.mining.distort`: ``omit``,
   ``fabricate_support``, ``fabricate_attack``, ``invert``; offline rules, or a written set of
   distortions), mines each distorted summary and records whether the metrics moved the expected
   way — σ*(p) of the targeted provision p, and the summary's π_bc, π_εa and π_dpc, which a
   distortion should not improve;
3. evaluates two controls per debate: the **empty summary** (no speech arguments) and a
   **wrong-debate summary** (a summary of another debate, mined against this debate's
   provisions); a real summary should beat both on π_bc and π_εa.

Outcomes are counted, never tuned: ``detected`` (moved the expected way by more than 1e-9),
``unchanged`` and ``wrong`` (moved the other way). ``invert`` expects σ* to move towards the other
side of 0.5 from where it was; when σ* was exactly 0.5 the expected direction is unknown for
rule-based inversions (counted as ``unknown`` unless the written manifest gives it).

Resumable: every finished summary writes ``OUT/selftest/items/<debate>/<variant>.json`` with a key
of everything it depends on; a rerun skips finished items. Pair labels are cached by text
(``OUT/selftest/cache/<classifier tag>/<debate>.jsonl``), so a distorted summary only classifies
the pairs its edits created, and an interrupted run re-pays nothing it finished.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from argfaith.datasets.labels import NO_RELATION
from argfaith.errors import ConfigurationError, DataFormatError
from argfaith.mining.candidates import DEFAULT_SUMMARY_PAIRS
from argfaith.mining.classifiers.base import PairQuery, Prediction, ProgressCallback, RelationClassifier, Usage
from argfaith.mining.units import SUMMARY_UNITS_VERSION
from argfaith.mining.distort import EXPECTED, KINDS, Distortion, SummaryEdit, apply_edits, rule_distortions, sentences_about
from argfaith.study.config import StudyConfig, digest_json
from argfaith.study.corpus import SummaryFile, debate_digest, discover_study
from argfaith.study.fingerprint import FingerprintedClassifier, classifier_fingerprint, fingerprint_tag
from argfaith.study.store import atomic_write_json, atomic_write_text, read_json_file

__all__ = [
    "SelftestConfig",
    "CachedPairClassifier",
    "sigma_outcome",
    "metric_outcome",
    "control_outcome",
    "choose_provisions",
    "load_written_distortions",
    "plan_llm_distortions",
    "run_selftest",
    "aggregate_selftest",
    "render_selftest_markdown",
    "render_selftest_html",
    "SUMMARY_METRICS",
]

SELFTEST_FORMAT_VERSION = 2  # 2: cached predictions keep their class probabilities (confident detection)
#: A distortion is detected *with confidence* when P(σ*(p) moved the expected way) ≥ this (issue 23).
CONFIDENT = 0.9
#: Summary-level metrics the self-test tracks (report keys of :class:`PairwiseReport`).
SUMMARY_METRICS = {"pi_bc": "balance_consistency", "pi_ea": "epsilon_accuracy", "pi_dpc": "d_preferability_consistency"}
EPS = 1e-9

Emit = Callable[[tuple[Any, ...]], None]


# ---------------------------------------------------------------------------- outcomes (pure)
def sigma_outcome(expected: str, before: float, after: float, *, base: float = 0.5, eps: float = EPS) -> str:
    """Did σ*(p) move the ``expected`` way (``up``, ``down``, ``toward_base``, ``cross``)?

    Returns ``detected``, ``unchanged``, ``wrong`` or (``cross`` from exactly the base score, where
    the right direction is unknown) ``unknown``.
    """
    d = after - before
    if abs(d) <= eps:
        return "unchanged"
    if expected == "up":
        return "detected" if d > 0 else "wrong"
    if expected == "down":
        return "detected" if d < 0 else "wrong"
    if expected == "toward_base":
        return "detected" if abs(after - base) < abs(before - base) - eps else "wrong"
    if expected == "cross":
        if before > base + eps:
            return "detected" if d < 0 else "wrong"
        if before < base - eps:
            return "detected" if d > 0 else "wrong"
        return "unknown"
    raise ConfigurationError(f"unknown expected direction {expected!r}")


def _pcr_outcome(expected: str, before: float | None, after: float | None) -> str:
    """π_pcr(p) should rise with fabricated support, fall with fabricated opposition; the other
    kinds have no fixed direction for a ratio (``n/a``)."""
    if expected not in ("up", "down"):
        return "n/a"
    if before is None or after is None:
        return "undefined"
    return sigma_outcome(expected, before, after)


def metric_outcome(before: float | None, after: float | None, *, eps: float = EPS) -> str:
    """A distortion should make a summary-level metric worse: ``detected`` when it decreased."""
    if before is None or after is None:
        return "undefined"
    if after < before - eps:
        return "detected"
    if after > before + eps:
        return "wrong"
    return "unchanged"


def control_outcome(real: float | None, control: float | None, *, eps: float = EPS) -> str:
    """``win`` when the real summary scores higher than the control, ``tie``, or ``loss``."""
    if real is None or control is None:
        return "undefined"
    if real > control + eps:
        return "win"
    if real < control - eps:
        return "loss"
    return "tie"


# ---------------------------------------------------------------------------- label cache
def _pair_key(q: PairQuery) -> str:
    same = q.source_position is not None and q.source_position == q.target_position
    blob = json.dumps([q.source, q.target, q.topic, q.target_kind, q.genre, same], ensure_ascii=False)
    return hashlib.sha1(blob.encode("utf-8")).hexdigest()[:20]


class CachedPairClassifier:
    """Answers a query whose texts were already classified from a cache (optionally a JSONL file
    that survives interruptions); sends only new pairs to ``inner``. The inner classifier must
    already be configured as mining runs it (its prior is not changed again)."""

    def __init__(self, inner: RelationClassifier, path: Path | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.fingerprint = getattr(inner, "fingerprint", None)
        self.prior_explicit = True  # never re-wrapped by mining_classifier
        self.path = path
        self.cache: dict[str, Prediction] = {}
        self.hits = 0
        self.misses = 0
        #: Labels standing in for refused or failed requests (``Prediction.final`` False): returned,
        #: never cached, so the next run asks for them again.
        self.unanswered = 0
        if path is not None and path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    r = json.loads(line)
                    self.cache[r["k"]] = Prediction(r["label"], r.get("c"), probabilities=r.get("p"))
                except (ValueError, KeyError):
                    continue  # a torn last line from an interrupted run

    def classify(self, pairs: Sequence[PairQuery], *, progress: ProgressCallback | None = None) -> list[Prediction]:
        keys = [_pair_key(q) for q in pairs]
        todo = [i for i, k in enumerate(keys) if k not in self.cache]
        self.hits += len(pairs) - len(todo)
        self.misses += len(todo)
        if todo:
            preds = self.inner.classify([pairs[i] for i in todo], progress=progress)
            lines = []
            stand_in: dict[int, Prediction] = {}
            for i, p in zip(todo, preds, strict=True):
                if not p.final:
                    stand_in[i] = p
                    continue
                # the class probabilities too: the error bars and confident detection sample from them
                probs = dict(p.probabilities) if p.probabilities else None
                self.cache[keys[i]] = Prediction(p.label, p.confidence, probabilities=probs)
                lines.append(json.dumps({"k": keys[i], "label": p.label, "c": p.confidence, **({"p": probs} if probs else {})}))
            self.unanswered += len(stand_in)
            if self.path is not None and lines:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with open(self.path, "a", encoding="utf-8") as f:
                    f.write("\n".join(lines) + "\n")
                    f.flush()
            if stand_in:
                return [stand_in[i] if i in stand_in else self.cache[k] for i, k in enumerate(keys)]
        elif progress is not None:
            progress(len(pairs), len(pairs))
        return [self.cache[k] for k in keys]

    @property
    def usage(self) -> Usage:
        return self.inner.usage


# ---------------------------------------------------------------------------- configuration
@dataclass(frozen=True)
class SelftestConfig:
    """What a self-test run depends on.

    ``provisions``: per summary, the number of provisions it discusses (most sentences about
    them first) that are distorted, plus ``undiscussed`` provisions it does not discuss (seeded
    random choice; fabrications only apply there). ``distortions``: ``rules`` (offline) or
    ``written:DIR`` (a manifest of written distortions, e.g. ``data/distortions``).
    """

    debates: Path
    summaries: Path
    out: Path
    classifier: str = "offline"
    distortions: str = "rules"
    kinds: tuple[str, ...] = KINDS
    provisions: int = 2
    undiscussed: int = 1
    tau: float = 0.2
    epsilon: float = 0.1
    tolerance: float = 1e-9
    controls: bool = True
    only: tuple[str, ...] = ()
    seed: int = 0
    chunk_size: int = 2000
    summary_pairs: str = DEFAULT_SUMMARY_PAIRS
    summary_units: str = "default"
    #: Sampled labellings per distortion for P(σ*(p) moved the expected way) (issue 23); 0 = off.
    draws: int = 100

    def __post_init__(self) -> None:
        from argfaith.mining.candidates import SUMMARY_PAIR_POLICIES
        from argfaith.mining.units import summary_unit_policy

        summary_unit_policy(self.summary_units)
        if self.summary_pairs not in SUMMARY_PAIR_POLICIES:
            raise ConfigurationError(f"--summary-pairs must be one of {', '.join(SUMMARY_PAIR_POLICIES)}, got {self.summary_pairs!r}")
        for k in self.kinds:
            if k not in KINDS:
                raise ConfigurationError(f"--kinds: unknown distortion kind {k!r}; one of {', '.join(KINDS)}")
        if self.draws < 0:
            raise ConfigurationError(f"--draws must be >= 0, got {self.draws}")
        if self.provisions < 0 or self.undiscussed < 0:
            raise ConfigurationError("--provisions and --undiscussed must be >= 0")
        if not 0.0 <= self.tau <= 1.0:
            raise ConfigurationError(f"--tau must be in [0, 1], got {self.tau}")
        if not (0.0 < self.epsilon <= 1.0):
            raise ConfigurationError(f"--epsilon must be in (0, 1], got {self.epsilon}")
        d = self.distortions
        if not (d == "rules" or d.startswith("written:") or d == "llm" or d.startswith("llm:")):
            raise ConfigurationError(f"--distortions must be 'rules', 'llm[:MODEL]' or 'written:DIR', got {d!r}")

    def key(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if k not in ("debates", "summaries", "out", "only", "classifier", "chunk_size")}
        d["kinds"] = list(self.kinds)
        d["v"] = SELFTEST_FORMAT_VERSION
        d["summary_units_version"] = SUMMARY_UNITS_VERSION
        if self.summary_pairs == "all":
            del d["summary_pairs"]  # the paper's policy: results written before the option existed stay valid
        if self.summary_units == "default":
            del d["summary_units"]  # the default policy: covered by summary_units_version
        if self.distortions.startswith("written:"):
            man = Path(self.distortions.split(":", 1)[1]) / "manifest.jsonl"
            d["written_digest"] = hashlib.sha256(man.read_bytes()).hexdigest()[:16] if man.exists() else None
        return d


def choose_provisions(about: dict[str, list[int]], n_discussed: int, n_undiscussed: int, seed: str) -> tuple[list[str], list[str]]:
    """(discussed, undiscussed) provisions to distort: the ``n_discussed`` with most sentences
    about them (ties: resolution order), and ``n_undiscussed`` drawn (seeded) among the others."""
    order = list(about)
    disc = sorted((p for p in order if about[p]), key=lambda p: (-len(about[p]), order.index(p)))[:n_discussed]
    rest = [p for p in order if not about[p]]
    rng = random.Random(seed)
    und = rng.sample(rest, min(n_undiscussed, len(rest)))
    return disc, und


def load_written_distortions(folder: Path) -> dict[str, list[Distortion]]:
    """``manifest.jsonl`` of a written distortion set → distortions per summary file name.

    Each line: ``{"summary_file", "kind", "provision", "edits": [{"op", "sentence", "text"}],
    "expected"?}`` (sentence numbers are 1-based over the summary's kept sentences).
    """
    man = folder / "manifest.jsonl"
    if not man.is_file():
        raise DataFormatError(f"{man}: no manifest of written distortions")
    out: dict[str, list[Distortion]] = defaultdict(list)
    for n, line in enumerate(man.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            r = json.loads(line)
            edits = tuple(SummaryEdit(e["op"], int(e["sentence"]), e.get("text")) for e in r["edits"])
            d = Distortion(r["kind"], r["provision"], edits, "written", expected=r.get("expected") or EXPECTED[r["kind"]],
                           notes=tuple(filter(None, [r.get("note")])))
        except (ValueError, KeyError, TypeError, ConfigurationError) as e:
            raise DataFormatError(f"{man}:{n}: {e}") from None
        out[Path(r["summary_file"]).name].append(d)
    return dict(out)


# ---------------------------------------------------------------------------- running
def _noop(_e: tuple[Any, ...]) -> None:
    return None


def _pairwise(report: Any) -> dict[str, Any]:
    pw = report.pairwise
    return {k: getattr(pw, attr) for k, attr in SUMMARY_METRICS.items()}


def _pcr(qbaf: Any, proposals: Sequence[str] | None = None) -> dict[str, Any]:
    """Mean π_pcr (and per-proposal ratios) under the walk and the simple-path reading."""
    from argfaith.metrics.faithfulness import mean_pro_con_ratio
    from argfaith.qbaf import pro_con_sets
    from argfaith.qbaf.simple_paths import simple_pro_con_sets

    props = tuple(proposals) if proposals is not None else qbaf.proposals
    walk = mean_pro_con_ratio(qbaf, props, procon=pro_con_sets(qbaf, props))
    simple_sets = simple_pro_con_sets(qbaf, props)
    simple = mean_pro_con_ratio(qbaf, props, procon=simple_sets)  # type: ignore[arg-type]
    wv = [r.value for r in walk.ratios.values() if r.value is not None]
    return {
        "walk": walk.value, "simple": simple.value,
        "simple_complete": all(r.complete for r in simple_sets.values()),
        "walk_all_one": bool(wv) and all(v == 1.0 for v in wv),
        "ratios": {p: {"walk": walk.ratios[p].value, "simple": simple.ratios[p].value} for p in props},
    }


def _saturation(qs: Any, tau: float) -> dict[str, Any]:
    """Saturation of a summary QBAF at τ (issue 21): speech arguments at σ ≥ 0.99, σ* at 0.5 / 1.0."""
    from argfaith.metrics.degeneracy import saturation
    from argfaith.qbaf import dfquad_strengths

    q = qs.with_speech_base_score(tau)
    return saturation(q, dfquad_strengths(q))


def sigma_detection_probability(before: Any, after: Any, provision: str, expected: str, *, tau: float,
                                draws: int, seed: int = 0) -> float | None:
    """P(σ*(p) moved the ``expected`` way) over ``draws`` sampled labellings of the summary before
    and after the distortion (issue 23; :func:`argfaith.metrics.uncertainty.sample_side`). The two
    are drawn with common random numbers keyed by pair text, so a pair both QBAFs share gets the
    same label in draw k and only what the edit changed (and its own uncertainty) moves σ*(p).
    None when σ*(p) is undefined or the direction is unknown (as for the point estimate)."""
    import numpy as np

    from argfaith.metrics.uncertainty import pair_uniforms, relation_distribution, sample_side, side_draws

    rows = []
    for q in (before, after):
        qt = q.with_speech_base_score(tau)
        if provision not in qt.index:
            return None
        dist = relation_distribution(qt)
        u = pair_uniforms(qt, dist, draws, seed) if dist is not None and len(dist) else None
        side = sample_side(qt, dist, draws, np.random.default_rng(seed), uniforms=u)
        rows.append(side_draws(side, [provision]).sigma[:, 0])
    outcomes = [sigma_outcome(expected, float(b), float(a)) for b, a in zip(rows[0], rows[1], strict=True)]
    known = [o for o in outcomes if o != "unknown"]
    if not known:
        return None
    return round(sum(o == "detected" for o in known) / len(known), 4)


def _mine_summary(summary: Any, debate: Any, clf: Any, name: str, chunk: int, pairs: str = "all", units: str = "default") -> Any:
    from argfaith.mining.pipeline import plan_summary, run_plan
    from argfaith.mining.units import summary_unit_policy

    plan = plan_summary(summary, debate, name=name, pairs=pairs, policy=summary_unit_policy(units))  # type: ignore[arg-type]
    return run_plan(plan, clf, chunk_size=chunk).qbaf


def _source_qbaf(debate: Any, folder: Path, cfg: SelftestConfig, clf: Any, fp: str, tag: str, emit: Emit) -> Any:
    """The debate's QBAF from the study cache (same folder and key as ``argfaith study``), mined
    (with a resumable checkpoint) when absent."""
    from argfaith.mining.pipeline import plan_debate, run_fingerprint, run_plan
    from argfaith.qbaf import QBAFError, load_qbaf, save_qbaf

    scfg = StudyConfig(debates=cfg.debates, summaries=cfg.summaries, out=cfg.out, classifier=cfg.classifier)
    key = scfg.source_key(fp, debate_digest(folder))
    mined = cfg.out / "mined" / tag / debate.id
    qpath, ckpt = mined / "source.json", mined / "source.pairs.jsonl"
    if qpath.exists():
        try:
            q = load_qbaf(qpath)
            if q.info.get("study_key") == key:
                return q
        except QBAFError:
            pass
    emit(("phase", debate.id, "mining the source"))
    plan = plan_debate(debate, units=scfg.units)  # type: ignore[arg-type]
    restart = False
    if ckpt.exists():
        head = ckpt.read_text(encoding="utf-8").split("\n", 1)[0]
        try:
            restart = json.loads(head).get("fingerprint") != run_fingerprint(plan, clf)
        except ValueError:
            restart = True

    def progress(done: int, total: int) -> None:
        emit(("pairs", debate.id, "source", done, total))

    res = run_plan(plan, clf, tau=cfg.tau, checkpoint=ckpt, restart=restart, progress=progress, chunk_size=cfg.chunk_size,
                   info={"study_key": key, "classifier_spec": cfg.classifier, "classifier_fingerprint": fp})
    save_qbaf(res.qbaf, qpath)
    return res.qbaf


def _distortions_for(cfg: SelftestConfig, sf: SummaryFile, summ: Any, debate: Any, written: dict[str, list[Distortion]] | None,
                     llm: Any = None) -> tuple[list[Distortion], dict[str, list[int]]]:
    from argfaith.mining.units import EDIT_POLICY, proposal_units, summary_units

    units = list(summary_units(summ, policy=EDIT_POLICY).units)
    about = sentences_about(units, proposal_units(debate))
    if written is not None:
        # Written sets name provisions by the old positional ids (<debate>-PAR-<n>): one mapping.
        from dataclasses import replace as _replace

        from argfaith.datasets.provision_ids import canonical_provision_id

        return [_replace(d, provision=canonical_provision_id(d.provision)) for d in written.get(Path(sf.path).name, [])
                if d.kind in cfg.kinds], about
    disc, und = choose_provisions(about, cfg.provisions, cfg.undiscussed, f"{cfg.seed}:{sf.item_id}")
    fab = [k for k in cfg.kinds if k.startswith("fabricate")]
    make = llm.distortions if llm is not None else (lambda s, d, ps, kinds: rule_distortions(s, d, ps, kinds=kinds))
    out = make(summ, debate, disc, list(cfg.kinds))
    if und and fab:
        out += make(summ, debate, und, fab)
    return out, about


def plan_llm_distortions(cfg: SelftestConfig, distorter: Any) -> list[Any]:
    """Every request ``--distortions llm`` would send (for the dry run; nothing is sent)."""
    from argfaith.datasets.documents import load_debate, load_summary
    from argfaith.mining.units import EDIT_POLICY, proposal_units, summary_units

    reqs = []
    for item in discover_study(cfg.debates, cfg.summaries, only=cfg.only or None).debates:
        debate = None
        for sf in item.summaries:
            if sf.missing_text or sf.error is not None:
                continue
            debate = debate or load_debate(item.path)
            summ = load_summary(sf.path)
            about = sentences_about(list(summary_units(summ, policy=EDIT_POLICY).units), proposal_units(debate))
            disc, und = choose_provisions(about, cfg.provisions, cfg.undiscussed, f"{cfg.seed}:{sf.item_id}")
            reqs += [p.request for p in distorter.plan(summ, debate, disc, list(cfg.kinds))]
            fab = [k for k in cfg.kinds if k.startswith("fabricate")]
            if und and fab:
                reqs += [p.request for p in distorter.plan(summ, debate, und, fab)]
    return reqs


def _wrong_partner(items: Sequence[Any], i: int) -> tuple[Any, SummaryFile] | None:
    """The wrong-debate control of debate ``i``: the next debate's summary (same variant when it
    has one), in sorted order, wrapping around."""
    n = len(items)
    mine = {s.variant for s in items[i].summaries if not s.missing_text and s.error is None}
    for step in range(1, n):
        other = items[(i + step) % n]
        ok = [s for s in other.summaries if not s.missing_text and s.error is None]
        if ok:
            same = [s for s in ok if s.variant in mine]
            return other, (same or ok)[0]
    return None


def run_selftest(
    cfg: SelftestConfig,
    classifier: RelationClassifier,
    *,
    emit: Emit = _noop,
    distorter: Any = None,
) -> dict[str, Any]:
    """Run (or resume) the self-test; returns the aggregate (also written to ``OUT/selftest``)."""
    from argfaith.datasets.documents import load_debate, load_summary
    from argfaith.metrics.evaluate import evaluate_many
    from argfaith.mining.classifiers.prior import mining_classifier
    from argfaith.qbaf import QBAF

    t0 = time.perf_counter()
    corpus = discover_study(cfg.debates, cfg.summaries, only=cfg.only or None)
    written = load_written_distortions(Path(cfg.distortions.split(":", 1)[1])) if cfg.distortions.startswith("written:") else None
    llm = distorter if cfg.distortions.startswith("llm") else None
    if llm is None and cfg.distortions.startswith("llm"):
        from argfaith.mining.distort_llm import LLMDistorter

        llm = LLMDistorter(cfg.distortions.split(":", 1)[1] if ":" in cfg.distortions else None)
    inner = mining_classifier(classifier)
    fp = classifier_fingerprint(inner)
    clf_fp = FingerprintedClassifier(inner, fp)
    tag = fingerprint_tag(inner.name, fp)
    root = cfg.out / "selftest"
    cfg_key = cfg.key()
    items = list(corpus.debates)
    todo_total = sum(1 for it in items for s in it.summaries if not s.missing_text and s.error is None)
    # Which summaries are already done, before anything is announced: the first line of progress
    # says how many are reused, and it is true on a first run (0) as on a resumed one.
    plan: list[tuple[int, Any, str, list[tuple[Any, str]], list[Any]]] = []
    for i, item in enumerate(items):
        ok = [s for s in item.summaries if not s.missing_text and s.error is None]
        if not ok:
            continue
        ddig = debate_digest(item.path)
        pending, reused = [], []
        for sf in ok:
            key = digest_json({"cfg": cfg_key, "clf": fp, "debate": ddig, "summary": sf.digest})
            got = read_json_file(root / "items" / item.debate_id / f"{sf.variant}.json") or {}
            if got.get("key") == key and got.get("final", True):
                reused.append(sf)
            else:
                pending.append((sf, key))
        plan.append((i, item, ddig, pending, reused))
    n_reused = sum(len(p[4]) for p in plan)
    emit(("start", todo_total, n_reused))
    done = 0
    for i, item, ddig, pending, reused in plan:
        for sf in reused:
            done += 1
            emit(("item", item.debate_id, sf.variant, "reused", done))
        partner = _wrong_partner(items, i) if cfg.controls else None
        ckey = digest_json({"cfg": cfg_key, "clf": fp, "debate": ddig,
                            "partner": [partner[1].digest] if partner else None})
        ctrl_path = root / "controls" / f"{item.debate_id}.json"
        need_ctrl = cfg.controls and (read_json_file(ctrl_path) or {}).get("key") != ckey
        if not pending and not need_ctrl:
            continue
        debate = load_debate(item.path)
        q = _source_qbaf(debate, item.path, cfg, clf_fp, fp, tag, emit)
        cached = CachedPairClassifier(clf_fp, root / "cache" / tag / f"{item.debate_id}.p.jsonl")
        for sf, key in pending:
            emit(("phase", item.debate_id, f"{sf.variant}: mining and distorting"))
            ts = time.perf_counter()
            unanswered0 = cached.unanswered
            refused0 = llm.refused if llm is not None else 0
            summ = load_summary(sf.path)
            if llm is not None:
                llm.problems = []
            dists, about = _distortions_for(cfg, sf, summ, debate, written, llm)
            qs0 = _mine_summary(summ, debate, cached, f"{item.debate_id}-{sf.variant}", cfg.chunk_size, cfg.summary_pairs, cfg.summary_units)
            qds: list[QBAF] = []
            applied: list[Distortion] = []
            notes: list[str] = []
            for d in dists:
                try:
                    sd = apply_edits(summ, d.edits)
                except ConfigurationError as e:
                    notes.append(f"{d.name}: {e}")
                    continue
                qds.append(_mine_summary(sd, debate, cached, f"{item.debate_id}-{sf.variant}-{d.name}", cfg.chunk_size, cfg.summary_pairs, cfg.summary_units))
                applied.append(d)
            suite = evaluate_many(q, [qs0, *qds], taus=[cfg.tau], epsilon=cfg.epsilon, tolerance=cfg.tolerance,
                                  explain=False, include_qbafs=False, coverage_k=None)
            rep0, reps = suite.reports[0], suite.reports[1:]
            pcr0 = _pcr(qs0)
            rows = []
            for d, r in zip(applied, reps, strict=True):
                s0 = rep0.summary.strengths.get(d.provision)
                s1 = r.summary.strengths.get(d.provision)
                row: dict[str, Any] = {
                    "distortion": d.name, "kind": d.kind, "provision": d.provision, "method": d.method,
                    "expected": d.expected, "edits": [asdict(e) for e in d.edits], "about": list(d.about),
                    "sigma_source": rep0.source.strengths.get(d.provision), "sigma_before": s0, "sigma_after": s1,
                    "sigma": sigma_outcome(d.expected, s0, s1) if s0 is not None and s1 is not None else "undefined",
                    "edges_before": len(qs0.attacks) + len(qs0.supports),
                }
                if cfg.draws and s0 is not None and s1 is not None:
                    row["sigma_p_detected"] = sigma_detection_probability(
                        qs0, qds[len(rows)], d.provision, d.expected, tau=cfg.tau, draws=cfg.draws, seed=cfg.seed)
                before, after = _pairwise(rep0), _pairwise(r)
                for m in SUMMARY_METRICS:
                    row[m] = {"before": before[m], "after": after[m], "outcome": metric_outcome(before[m], after[m])}
                pcr1 = _pcr(qds[len(rows)])
                row["pcr"] = {"mean_before": {k: pcr0[k] for k in ("walk", "simple")}, "mean_after": {k: pcr1[k] for k in ("walk", "simple")}}
                for reading in ("walk", "simple"):
                    b, a = pcr0["ratios"][d.provision][reading], pcr1["ratios"][d.provision][reading]
                    row["pcr"][f"p_{reading}"] = {"before": b, "after": a,
                                                  "outcome": _pcr_outcome(d.expected, b, a)}
                rows.append(row)
            record = {
                "argfaith_selftest_item": SELFTEST_FORMAT_VERSION, "key": key, "debate": item.debate_id, "variant": sf.variant,
                "summary_file": str(sf.path), "metrics": _pairwise(rep0), "warnings": list(rep0.warnings),
                "pcr": {k: pcr0[k] for k in ("walk", "simple", "simple_complete", "walk_all_one")},
                "source_pcr": {k: v for k, v in _pcr(q).items() if k != "ratios"},
                "n_sentences": len(qs0.speech_arguments), "n_edges": len(qs0.attacks) + len(qs0.supports),
                "saturation": _saturation(qs0, cfg.tau),
                "discussed": {p: v for p, v in about.items() if v}, "distortions": rows,
                "notes": notes + (llm.problems if llm is not None else []),
                "seconds": round(time.perf_counter() - ts, 2), "cache": {"hits": cached.hits, "misses": cached.misses},
                # built on stand-in labels (refused / failed requests): redone by the next run
                "final": cached.unanswered == unanswered0 and (llm is None or llm.refused == refused0),
            }
            atomic_write_json(root / "items" / item.debate_id / f"{sf.variant}.json", record)
            done += 1
            emit(("item", item.debate_id, sf.variant, "ok", done))
        if need_ctrl:
            emit(("phase", item.debate_id, "controls"))
            empty = _empty_summary_qbaf(q, item.debate_id)
            ctrl: dict[str, Any] = {"key": ckey, "debate": item.debate_id, "tau": cfg.tau, "epsilon": cfg.epsilon,
                                    "classifier_fingerprint": fp}
            rep_e = evaluate_many(q, [empty], taus=[cfg.tau], epsilon=cfg.epsilon, tolerance=cfg.tolerance, explain=False,
                                  include_qbafs=False, coverage_k=None).reports[0]
            ctrl["empty"] = {**_pairwise(rep_e), "pcr": {k: v for k, v in _pcr(empty).items() if k != "ratios"}}
            if partner is not None:
                other, osf = partner
                wrong = replace(load_summary(osf.path), debate_id=item.debate_id)
                qw = _mine_summary(wrong, debate, cached, f"{item.debate_id}-wrong-{other.debate_id}-{osf.variant}", cfg.chunk_size, cfg.summary_pairs, cfg.summary_units)
                rep_w = evaluate_many(q, [qw], taus=[cfg.tau], epsilon=cfg.epsilon, tolerance=cfg.tolerance, explain=False,
                                      include_qbafs=False, coverage_k=None).reports[0]
                ctrl["wrong_debate"] = {**_pairwise(rep_w), "summary_file": str(osf.path), "from_debate": other.debate_id,
                                        "pcr": {k: v for k, v in _pcr(qw).items() if k != "ratios"}}
            atomic_write_json(ctrl_path, ctrl)
    mine = {(item.debate_id, sf.variant) for _, item, _, pending, reused in plan for sf in [*(p[0] for p in pending), *reused]}
    agg = aggregate_selftest(cfg.out, classifier=inner.name, fingerprint=fp, config=cfg, items=mine)
    agg["seconds"] = round(time.perf_counter() - t0, 1)
    atomic_write_json(root / "selftest.json", agg)
    atomic_write_text(root / "selftest.md", render_selftest_markdown(agg))
    atomic_write_text(root / "selftest.html", render_selftest_html(agg, standalone=True))
    return agg


def _empty_summary_qbaf(q: Any, debate_id: str) -> Any:
    from argfaith.qbaf import qbaf_from_dict, qbaf_to_dict

    d = qbaf_to_dict(q)
    props = set(q.proposals)
    d["arguments"] = [a for a in d["arguments"] if a["id"] in props]
    d["attacks"], d["supports"] = [], []
    d["name"] = f"{debate_id}-empty"
    d.pop("info", None)
    d.pop("metadata", None)
    return qbaf_from_dict(d)


# ---------------------------------------------------------------------------- aggregation
def _rate(c: Counter[str], good: str) -> float | None:
    n = sum(v for k, v in c.items() if k not in ("undefined", "unknown"))
    return round(c[good] / n, 4) if n else None


def _warning_kind(w: str) -> str:
    """``relation density [source]``: the warning's name and the side it is about."""
    from argfaith.metrics.degeneracy import is_debate_warning

    head = w.split(":")[0]
    if is_debate_warning(w):
        return f"{head} [source]"
    if "summary QBAF" in w or "summary's QBAF" in w:
        return f"{head} [summary]"
    return head


def aggregate_selftest(out: Path, *, classifier: str = "", fingerprint: str = "", config: SelftestConfig | None = None,
                       items: set[tuple[str, str]] | None = None) -> dict[str, Any]:
    """Read the item and control files below ``OUT/selftest`` and count outcomes per distortion
    kind × metric, the controls' win rates, and the warnings fired. ``items``: only these
    (debate, variant) results — a run's own summaries, not files left by an earlier run over
    other summaries; files of another item format are never counted."""
    root = out / "selftest"
    per_kind: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    real: dict[str, list[dict[str, Any]]] = defaultdict(list)
    warnings: Counter[str] = Counter()
    debate_warned: dict[str, set[str]] = {}
    n_items = 0
    pcr_groups: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    all_one: Counter[str] = Counter()
    sat: Counter[str] = Counter()
    for f in sorted((root / "items").glob("*/*.json")):
        r = read_json_file(f) or {}
        if "distortions" not in r or r.get("argfaith_selftest_item") != SELFTEST_FORMAT_VERSION:
            continue
        if items is not None and (r.get("debate"), r.get("variant")) not in items:
            continue
        n_items += 1
        for k, v in (r.get("saturation") or {}).items():
            if isinstance(v, int):
                sat[k] += v
        if (r.get("saturation") or {}).get("saturated_share") is not None:
            sat["summaries_measured"] += 1
            sat["summaries_over_fifth"] += int(r["saturation"]["saturated_share"] > 0.2)
        real[r["debate"]].append({**r["metrics"], "pcr": r.get("pcr", {}), "source_pcr": r.get("source_pcr", {})})
        for reading in ("walk", "simple"):
            v = (r.get("pcr") or {}).get(reading)
            if v is not None:
                pcr_groups["real"][reading].append(v)
            for d in r["distortions"]:
                v = ((d.get("pcr") or {}).get("mean_after") or {}).get(reading)
                if v is not None:
                    pcr_groups["distorted"][reading].append(v)
        all_one["real"] += int(bool((r.get("pcr") or {}).get("walk_all_one")))
        for d in r["distortions"]:
            for reading in ("walk", "simple"):
                o = ((d.get("pcr") or {}).get(f"p_{reading}") or {}).get("outcome")
                if o and o != "n/a":
                    per_kind[d["kind"]][f"pcr_p_{reading}"][o] += 1
        for w in set(_warning_kind(w) for w in r.get("warnings", [])):
            if w.endswith("[source]"):  # about the debate: counted once per debate, not once per summary
                debate_warned.setdefault(w, set()).add(r["debate"])
            else:
                warnings[w] += 1
        for d in r["distortions"]:
            per_kind[d["kind"]]["sigma"][d["sigma"]] += 1
            per_kind["all"]["sigma"][d["sigma"]] += 1
            if d.get("sigma_p_detected") is not None:
                conf = "detected" if d["sigma_p_detected"] >= CONFIDENT else "not_confident"
                per_kind[d["kind"]]["sigma_confident"][conf] += 1
                per_kind["all"]["sigma_confident"][conf] += 1
            for m in SUMMARY_METRICS:
                per_kind[d["kind"]][m][d[m]["outcome"]] += 1
                per_kind["all"][m][d[m]["outcome"]] += 1
    kinds: dict[str, Any] = {}
    for k in (*KINDS, "all"):
        if k not in per_kind:
            continue
        kinds[k] = {m: {"counts": dict(c), "detected": _rate(c, "detected"), "n": sum(c.values())} for m, c in per_kind[k].items()}
    stance, stance_conf = Counter(), Counter()
    for k in ("invert", "fabricate_attack"):
        stance.update(per_kind.get(k, {}).get("sigma", Counter()))
        stance_conf.update(per_kind.get(k, {}).get("sigma_confident", Counter()))
    controls: dict[str, dict[str, Counter[str]]] = {"empty": defaultdict(Counter), "wrong_debate": defaultdict(Counter)}
    for f in sorted((root / "controls").glob("*.json")):
        c = read_json_file(f) or {}
        for ctl in ("empty", "wrong_debate"):
            for reading in ("walk", "simple"):
                v = ((c.get(ctl) or {}).get("pcr") or {}).get(reading)
                if v is not None:
                    pcr_groups[ctl][reading].append(v)
        for metrics in real.get(c.get("debate", ""), []):
            for ctl in ("empty", "wrong_debate"):
                if ctl in c:
                    for m in SUMMARY_METRICS:
                        controls[ctl][m][control_outcome(metrics.get(m), c[ctl].get(m))] += 1
                    # π_pcr: is the real summary's mean ratio closer to the debate's than the control's?
                    for reading in ("walk", "simple"):
                        src = (metrics.get("source_pcr") or {}).get(reading)
                        rv = (metrics.get("pcr") or {}).get(reading)
                        cv = ((c[ctl].get("pcr") or {})).get(reading)
                        if None not in (src, rv, cv):
                            controls[ctl][f"pcr_{reading}_closer"][control_outcome(-abs(rv - src), -abs(cv - src))] += 1
    ctl_out = {ctl: {m: {"counts": dict(cnt), "win_rate": _rate(cnt, "win")} for m, cnt in ms.items()} for ctl, ms in controls.items()}
    return {
        "argfaith_selftest": SELFTEST_FORMAT_VERSION,
        "classifier": classifier,
        "classifier_fingerprint": fingerprint,
        "config": {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(config).items()} if config else None,
        "summaries": n_items,
        "kinds": kinds,
        "stance_sigma_detected": _rate(stance, "detected"),
        "stance_sigma_confident": _rate(stance_conf, "detected"),
        "controls": ctl_out,
        "warnings": dict(warnings),
        "debate_warnings": {w: len(ds) for w, ds in sorted(debate_warned.items())},
        "debates": len(real),
        "pcr": {g: {reading: {"n": len(v), "mean": round(sum(v) / len(v), 4) if v else None,
                              "share_one": round(sum(1 for x in v if x == 1.0) / len(v), 4) if v else None}
                    for reading, v in rs.items()} for g, rs in pcr_groups.items()},
        "pcr_all_one_real": all_one["real"],
        "saturation": {
            **dict(sat),
            "saturated_share": round(sat["saturated"] / sat["speech_arguments"], 4) if sat["speech_arguments"] else None,
            "sigma_at_half_share": round(sat["sigma_at_half"] / sat["proposals"], 4) if sat["proposals"] else None,
            "sigma_at_one_share": round(sat["sigma_at_one"] / sat["proposals"], 4) if sat["proposals"] else None,
        },
    }


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.0f}%"


def render_selftest_markdown(agg: dict[str, Any]) -> str:
    """The self-test tables as Markdown (also printed by the CLI)."""
    lines = [f"# Evaluator self-test — {agg.get('classifier', '')} ({str(agg.get('classifier_fingerprint', ''))[:10]})", "",
             f"{agg['summaries']} summaries. A distortion is *detected* by a metric when it moved the expected way "
             "(σ*(p): towards the base score for omit, up / down for fabricated support / opposition, towards the other "
             "side for invert; π_bc, π_εa, π_dpc of the summary: down).", "",
             f"*σ*(p), P ≥ {CONFIDENT}*: detected with confidence — the share of draws of the relation model's "
             "labellings in which σ*(p) moved the expected way reaches 0.9 (classifier uncertainty only).", "",
             "| distortion | n | σ*(p) | σ*(p), P ≥ 0.9 | π_bc | π_εa | π_dpc |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for k, v in agg["kinds"].items():
        s = v.get("sigma", {})
        lines.append(f"| {k} | {s.get('n', 0)} | {_fmt(s.get('detected'))} | {_fmt(v.get('sigma_confident', {}).get('detected'))} | "
                     + " | ".join(_fmt(v.get(m, {}).get("detected")) for m in SUMMARY_METRICS) + " |")
    lines += ["", f"Stance distortions (invert, fabricate_attack) detected by σ*(p): {_fmt(agg.get('stance_sigma_detected'))}"
              f" (with P ≥ {CONFIDENT}: {_fmt(agg.get('stance_sigma_confident'))})", "",
              "| control: the real summary beats … | π_bc | π_εa | π_dpc |", "| --- | ---: | ---: | ---: |"]
    for ctl, name in (("empty", "the empty summary"), ("wrong_debate", "a summary of another debate")):
        ms = agg["controls"].get(ctl, {})
        lines.append(f"| {name} | " + " | ".join(_fmt(ms.get(m, {}).get("win_rate")) for m in SUMMARY_METRICS) + " |")
    if agg.get("pcr"):
        lines += ["", "Mean π_pcr of the summaries (share exactly 1.0), paths read as walks vs simple paths:", "",
                  "| summaries | walk | simple |", "| --- | ---: | ---: |"]
        for g in ("real", "distorted", "wrong_debate", "empty"):
            v = agg["pcr"].get(g)
            if v:
                cell = lambda r: "—" if not v.get(r) or v[r]["mean"] is None else f"{v[r]['mean']:.2f} ({_fmt(v[r]['share_one'])})"  # noqa: E731
                lines.append(f"| {g} | {cell('walk')} | {cell('simple')} |")
    if agg.get("debate_warnings"):
        lines += ["", f"Degeneracy warnings about the {agg.get('debates', '?')} debates' QBAFs (debates with the warning, each counted once):", ""]
        lines += [f"- {w}: {n}" for w, n in sorted(agg["debate_warnings"].items(), key=lambda x: -x[1])]
    if agg.get("warnings"):
        lines += ["", f"Degeneracy warnings fired on the {agg['summaries']} real summaries (summaries with the warning):", ""]
        lines += [f"- {w}: {n}" for w, n in sorted(agg["warnings"].items(), key=lambda x: -x[1])]
    return "\n".join(lines) + "\n"


def render_selftest_html(agg: dict[str, Any], *, standalone: bool = False) -> str:
    """The self-test tables as an HTML fragment (the study index's section) or a whole offline
    page (``OUT/selftest/selftest.html``); every string is escaped."""
    import html as _html

    e = _html.escape
    rows = []
    for k, v in agg.get("kinds", {}).items():
        s = v.get("sigma", {})
        cells = "".join(f"<td class='num'>{e(_fmt(v.get(m, {}).get('detected')))}</td>" for m in SUMMARY_METRICS)
        rows.append(f"<tr><td>{e(k)}</td><td class='num'>{s.get('n', 0)}</td><td class='num'>{e(_fmt(s.get('detected')))}</td>"
                    f"<td class='num'>{e(_fmt(v.get('sigma_confident', {}).get('detected')))}</td>{cells}</tr>")
    ctl = []
    for key, name in (("empty", "the empty summary"), ("wrong_debate", "a summary of another debate")):
        ms = agg.get("controls", {}).get(key, {})
        ctl.append(f"<tr><td>{e(name)}</td>" + "".join(f"<td class='num'>{e(_fmt(ms.get(m, {}).get('win_rate')))}</td>" for m in SUMMARY_METRICS) + "</tr>")
    warns = "".join(f"<li>{e(w)} ({n} debate(s))</li>" for w, n in sorted(agg.get("debate_warnings", {}).items(), key=lambda x: -x[1]))
    warns += "".join(f"<li>{e(w)} ({n}×)</li>" for w, n in sorted(agg.get("warnings", {}).items(), key=lambda x: -x[1]))
    body = f"""<h2>Evaluator self-test</h2>
<p>{agg.get('summaries', 0)} summaries, classifier <code>{e(str(agg.get('classifier', '')))}</code>
(fingerprint {e(str(agg.get('classifier_fingerprint', ''))[:10])}). A distortion is <em>detected</em> when the metric moved the
expected way (docs/selftest.md in argfaith). Stance distortions detected by σ*(p):
{e(_fmt(agg.get('stance_sigma_detected')))} (with P ≥ {CONFIDENT}: {e(_fmt(agg.get('stance_sigma_confident')))}).
<em>P ≥ {CONFIDENT}</em>: σ*(p) moved the expected way in at least 90% of sampled labellings of the relation model
(classifier uncertainty only, pairs independent).</p>
<table><thead><tr><th>distortion</th><th>n</th><th>σ*(p)</th><th>σ*(p), P ≥ {CONFIDENT}</th><th>π_bc</th><th>π_εa</th><th>π_dpc</th></tr></thead>
<tbody>{''.join(rows)}</tbody></table>
<table><thead><tr><th>the real summary beats …</th><th>π_bc</th><th>π_εa</th><th>π_dpc</th></tr></thead>
<tbody>{''.join(ctl)}</tbody></table>
{('<p>Degeneracy warnings on the real summaries:</p><ul>' + warns + '</ul>') if warns else ''}"""
    if not standalone:
        return body
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>argfaith self-test</title>
<style>body {{ font-family: system-ui, sans-serif; margin: 1.5em; }} table {{ border-collapse: collapse; margin-bottom: 1em; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.5em; }} td.num {{ text-align: right; }}</style></head><body>
{body}
</body></html>
"""
