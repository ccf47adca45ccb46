"""Candidate argument pairs for relation classification, and optional pruning.

PAPER.md §7: every candidate pair (source, target) is classified as attack / support / no
relation.

- Source (debate) QBAF — the *temporal constraint*: a speech argument may only attack or support
  a proposal argument or a speech argument that came earlier in the debate (earlier position,
  the same intervention included). With n speech and p proposal arguments that is
  n(n−1)/2 + n·p pairs, and the resulting QBAF is acyclic by construction.
- Summary QBAF — a summary has no temporal order: every ordered pair of distinct speech arguments,
  plus every speech argument to every proposal: n(n−1) + n·p pairs; cycles are possible.

Pruning (optional; measured, not assumed — FINDINGS.md §2: lexical top-k keeps few real
relations, because they are long-range):

- :class:`TopKLexical` ``topk:K`` keeps, per source, the K candidate targets with the highest
  TF-IDF cosine similarity;
- :class:`RandomK` ``random:K`` keeps K random targets per source (seeded, reproducible);
- :class:`Cascade` ``cascade:P`` runs a cheap classifier on every pair and drops only those it
  gives P(no relation) ≥ P; everything else goes to the expensive classifier.

``benchmarks/mining.py`` measures the recall of related pairs of each on the silver dev pairs.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from argfaith.datasets.labels import NO_RELATION
from argfaith.errors import ConfigurationError
from argfaith.mining.classifiers.base import PairQuery, Prediction, RelationClassifier
from argfaith.mining.units import ArgumentUnit

__all__ = [
    "CandidatePair",
    "PruneResult",
    "Pruner",
    "AllPairs",
    "TopKLexical",
    "RandomK",
    "Cascade",
    "source_candidates",
    "summary_candidates",
    "SUMMARY_PAIR_POLICIES",
    "DEFAULT_SUMMARY_PAIRS",
    "SummaryPairs",
    "count_source_candidates",
    "count_summary_candidates",
    "parse_candidates",
    "to_queries",
    "tfidf_vectors",
    "p_no_relation",
]


@dataclass(frozen=True, slots=True)
class CandidatePair:
    """One pair to classify: does ``source`` attack / support ``target``?"""

    source_id: str
    target_id: str
    target_kind: Literal["proposal", "speech"]


def source_candidates(
    speech: Sequence[ArgumentUnit], proposals: Sequence[ArgumentUnit]
) -> list[CandidatePair]:
    """All pairs allowed by the temporal constraint, source by source in debate order: each
    speech argument → every proposal, then → every earlier speech argument (oldest first).

    ``speech`` must be in debate order (as returned by :func:`~argfaith.mining.units.speech_units`).
    """
    _check_order(speech)
    out: list[CandidatePair] = []
    for i, s in enumerate(speech):
        out.extend(CandidatePair(s.id, p.id, "proposal") for p in proposals)
        out.extend(CandidatePair(s.id, t.id, "speech") for t in speech[:i])
    return out


#: Summary candidate policies (``--summary-pairs``): which pairs of a summary's QBAF are judged.
SUMMARY_PAIR_POLICIES = ("all", "ordered", "proposals")
SummaryPairs = Literal["all", "ordered", "proposals"]
#: The summary candidate policy used unless one is asked for (issue 21: chosen by the self-test's
#: detection rates, benchmarks/selftest.md; "all" is the paper's).
DEFAULT_SUMMARY_PAIRS: SummaryPairs = "ordered"


def summary_candidates(
    speech: Sequence[ArgumentUnit], proposals: Sequence[ArgumentUnit], pairs: SummaryPairs = DEFAULT_SUMMARY_PAIRS
) -> list[CandidatePair]:
    """Candidate pairs of a summary's QBAF, source by source in text order.

    ``pairs`` (the summary candidate policy):

    - ``"all"`` — the paper's reading (PAPER.md §7): each sentence → every proposal and every
      other sentence; cycles are possible;
    - ``"ordered"`` — each sentence → every proposal and every EARLIER sentence, the debate's
      temporal constraint applied to text order (acyclic by construction);
    - ``"proposals"`` — each sentence → every proposal only (no sentence → sentence edges; every
      summary argument keeps its base score).
    """
    if pairs not in SUMMARY_PAIR_POLICIES:
        raise ConfigurationError(f"unknown summary pair policy {pairs!r}; choose one of {', '.join(SUMMARY_PAIR_POLICIES)}")
    out: list[CandidatePair] = []
    for i, s in enumerate(speech):
        out.extend(CandidatePair(s.id, p.id, "proposal") for p in proposals)
        if pairs == "all":
            out.extend(CandidatePair(s.id, t.id, "speech") for t in speech if t.id != s.id)
        elif pairs == "ordered":
            out.extend(CandidatePair(s.id, t.id, "speech") for t in speech[:i])
    return out


def count_source_candidates(n_speech: int, n_proposals: int) -> int:
    """n(n−1)/2 + n·p: the size of :func:`source_candidates` without building it."""
    return n_speech * (n_speech - 1) // 2 + n_speech * n_proposals


def count_summary_candidates(n_speech: int, n_proposals: int, pairs: SummaryPairs = DEFAULT_SUMMARY_PAIRS) -> int:
    """The size of :func:`summary_candidates` under a policy: n(n−1) + n·p (``all``),
    n(n−1)/2 + n·p (``ordered``), n·p (``proposals``)."""
    between = {"all": n_speech * (n_speech - 1), "ordered": n_speech * (n_speech - 1) // 2, "proposals": 0}[pairs]
    return between + n_speech * n_proposals


def _check_order(speech: Sequence[ArgumentUnit]) -> None:
    last = -1
    for u in speech:
        if u.position is None or u.position <= last:
            raise ConfigurationError(
                f"speech arguments must be in debate order with increasing positions (at {u.id!r})"
            )
        last = u.position


def to_queries(
    pairs: Iterable[CandidatePair],
    units: dict[str, ArgumentUnit],
    topic: str | None,
    contexts: Mapping[str, str] | None = None,
) -> list[PairQuery]:
    """The classifier's view of candidate pairs (texts, topic, ids, target kind).

    ``contexts`` maps a speech unit's ``document`` (intervention id) to the full speech text; when
    given, speech units also carry their speech, speaker and speech position (optional
    :class:`PairQuery` context fields that context-aware classifiers use). ``genre`` is
    ``"summary"`` for a summary's sentences, ``"debate"`` otherwise.
    """
    def ctx(u: ArgumentUnit) -> tuple[str | None, str | None, int | None]:
        if not contexts or u.kind != "speech" or u.document not in contexts:
            return None, None, None
        return contexts[u.document], u.speaker, u.intervention_position

    # the unit before each speech unit in its own document (speech or summary), in text order
    prev: dict[str, str] = {}
    by_doc: dict[str, list[ArgumentUnit]] = {}
    for u in units.values():
        if u.kind == "speech":
            by_doc.setdefault(u.document, []).append(u)
    for seq in by_doc.values():
        seq.sort(key=lambda u: (u.start, u.k))
        for a, b in zip(seq, seq[1:]):
            prev[b.id] = a.text

    out = []
    for p in pairs:
        s, t = units[p.source_id], units[p.target_id]
        (sc, ss, sp), (tc, ts, tp) = ctx(s), ctx(t)
        out.append(PairQuery(
            source=s.text,
            target=t.text,
            topic=topic,
            source_id=p.source_id,
            target_id=p.target_id,
            target_kind=p.target_kind,
            source_context=sc,
            target_context=tc,
            source_speaker=ss,
            target_speaker=ts,
            source_position=sp,
            target_position=tp,
            genre="summary" if s.origin == "summary" else "debate",
            source_prev=prev.get(s.id),
        ))
    return out


# ---------------------------------------------------------------------------- pruning
@dataclass(frozen=True)
class PruneResult:
    """Pairs kept by a pruner, with diagnostics (``scores`` of the cheap model, if any)."""

    kept: tuple[CandidatePair, ...]
    n_input: int
    strategy: str
    predictions: dict[tuple[str, str], Prediction] = field(default_factory=dict)

    @property
    def n_kept(self) -> int:
        return len(self.kept)

    @property
    def kept_fraction(self) -> float:
        return self.n_kept / self.n_input if self.n_input else 1.0


class Pruner(Protocol):
    """Selects the candidate pairs that are worth sending to the relation classifier."""

    spec: str

    def prune(
        self,
        pairs: Sequence[CandidatePair],
        units: dict[str, ArgumentUnit],
        *,
        topic: str | None = None,
        contexts: Mapping[str, str] | None = None,
    ) -> PruneResult:
        """The kept pairs; ``contexts`` (intervention id → speech text, as in
        :func:`to_queries`) gives a model-based pruner the debate context mining gives the
        classifier."""
        ...


class AllPairs:
    """No pruning: the paper's protocol (every candidate is classified)."""

    spec = "all"

    def prune(self, pairs, units, *, topic=None, contexts=None) -> PruneResult:  # type: ignore[no-untyped-def]
        return PruneResult(tuple(pairs), len(pairs), self.spec)


_TOKEN_RE = re.compile(r"[^\W\d_]{2,}")
# Function words that carry no topical signal (English: the texts the classifier reads).
_STOP = frozenset(
    """the a an and or but of to in on for with by at from as is are was were be been being this that
    these those it its we our us you your they their them he she his her i my me not no so than then
    there here which who whom whose what when where why how all any each also very more most such
    can could should would will shall may might must do does did has have had about into over under
    only own same other too just mr mrs madam president commissioner ladies gentlemen""".split()
)


def tfidf_vectors(texts: Sequence[str]) -> list[dict[int, float]]:
    """L2-normalised TF-IDF vectors (sparse dicts) of ``texts``: lower-cased letter tokens of two or
    more characters minus English function words; idf = ln((1 + N) / (1 + df)) + 1 (smoothed)."""
    vocab: dict[str, int] = {}
    counts: list[Counter[int]] = []
    for t in texts:
        c: Counter[int] = Counter()
        for tok in _TOKEN_RE.findall(t.lower()):
            if tok in _STOP:
                continue
            c[vocab.setdefault(tok, len(vocab))] += 1
        counts.append(c)
    df: Counter[int] = Counter()
    for c in counts:
        df.update(c.keys())
    n = len(texts)
    idf = {j: math.log((1 + n) / (1 + d)) + 1.0 for j, d in df.items()}
    out = []
    for c in counts:
        v = {j: (1.0 + math.log(tf)) * idf[j] for j, tf in c.items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        out.append({j: x / norm for j, x in v.items()})
    return out


def _cosine(a: dict[int, float], b: dict[int, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(x * b.get(j, 0.0) for j, x in a.items())


def _group_by_source(pairs: Sequence[CandidatePair]) -> dict[str, list[CandidatePair]]:
    groups: dict[str, list[CandidatePair]] = {}
    for p in pairs:
        groups.setdefault(p.source_id, []).append(p)
    return groups


class TopKLexical:
    """Keep, per source argument, the ``k`` candidate targets most similar to it (TF-IDF cosine over
    the texts of the arguments involved; ties keep candidate order). FINDINGS.md §2: on
    exhaustively labelled EP candidates top-10 keeps ~21% of related pairs."""

    def __init__(self, k: int) -> None:
        if k < 1:
            raise ConfigurationError(f"topk:K needs K >= 1, got {k}")
        self.k = k
        self.spec = f"topk:{k}"

    def prune(self, pairs, units, *, topic=None, contexts=None) -> PruneResult:  # type: ignore[no-untyped-def]
        ids = sorted({p.source_id for p in pairs} | {p.target_id for p in pairs})
        vecs = dict(zip(ids, tfidf_vectors([units[i].text for i in ids]), strict=True))
        kept: list[CandidatePair] = []
        for src, group in _group_by_source(pairs).items():
            v = vecs[src]
            ranked = sorted(range(len(group)), key=lambda j: (-_cosine(v, vecs[group[j].target_id]), j))
            keep = set(ranked[: self.k])
            kept.extend(p for j, p in enumerate(group) if j in keep)
        return PruneResult(tuple(kept), len(pairs), self.spec)


class RandomK:
    """Keep ``k`` random candidate targets per source. The draw for a source depends only on the
    seed and the source id, so it is reproducible and independent of the other sources."""

    def __init__(self, k: int, seed: int = 0) -> None:
        if k < 1:
            raise ConfigurationError(f"random:K needs K >= 1, got {k}")
        self.k = k
        self.seed = seed
        self.spec = f"random:{k}"

    def prune(self, pairs, units, *, topic=None, contexts=None) -> PruneResult:  # type: ignore[no-untyped-def]
        kept: list[CandidatePair] = []
        for src, group in _group_by_source(pairs).items():
            rng = random.Random(f"{self.seed}:{src}")
            # Draw from the targets in id order, so the input order does not change the draw.
            pool = sorted(p.target_id for p in group)
            keep = set(rng.sample(pool, min(self.k, len(pool))))
            kept.extend(p for p in group if p.target_id in keep)
        return PruneResult(tuple(kept), len(pairs), self.spec)


def p_no_relation(pred: Prediction) -> float | None:
    """P(no relation) from a prediction: its probabilities, else its confidence when it predicts
    "no relation" (1 − confidence otherwise); ``None`` if it gives neither."""
    if pred.probabilities and NO_RELATION in pred.probabilities:
        return float(pred.probabilities[NO_RELATION])
    if pred.confidence is not None:
        return float(pred.confidence) if pred.label == NO_RELATION else 1.0 - float(pred.confidence)
    return None


class Cascade:
    """Drop only the pairs a cheap classifier is very sure are "no relation".

    Every candidate is first classified by ``classifier`` (cheap, offline) with the same queries
    mining sends the expensive classifier (topic, ids, target kind and — through ``contexts`` —
    the debate context of speech arguments); pairs with P(no relation) ≥ ``threshold`` are
    dropped (they become "no relation" without an expensive call); all others are kept for the
    expensive classifier. Its recall of related pairs is measured in ``benchmarks/mining.py``.

    ``threshold`` applies to the cheap model's *class-balanced* posterior P(no relation) (the
    model's own output, the scale on which the thresholds of ``benchmarks/mining.md`` were
    measured), not to the all-pairs-corrected scores mining uses for labels: a classifier that
    carries a deployment prior (``offline?prior=...``) is switched back to ``balanced`` here, so
    ``cascade:P`` means the same whatever prior the user gave the cheap model. Only the ranking
    of pairs by P(no relation) and the cut at P matter.
    """

    def __init__(
        self,
        classifier: RelationClassifier | Callable[[], RelationClassifier],
        threshold: float = 0.9,
    ) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ConfigurationError(f"cascade threshold must be in (0, 1], got {threshold}")
        self._classifier = classifier
        self.threshold = float(threshold)
        self.spec = f"cascade:{threshold:g}"

    @property
    def classifier(self) -> RelationClassifier:
        if isinstance(self._classifier, type) or not hasattr(self._classifier, "classify"):
            self._classifier = self._classifier()  # type: ignore[operator]  # lazy factory
        clf = self._classifier
        if getattr(clf, "prior", None) is not None and hasattr(clf, "with_prior"):
            clf = clf.with_prior("balanced")  # P is a threshold on the balanced posterior (see above)
            self._classifier = clf
        return clf  # type: ignore[return-value]

    def prune(self, pairs, units, *, topic=None, contexts=None, progress=None) -> PruneResult:  # type: ignore[no-untyped-def]
        clf = self.classifier
        preds = clf.classify(to_queries(pairs, units, topic, contexts), progress=progress)
        if len(preds) != len(pairs):
            raise ConfigurationError(f"cascade classifier {clf.name!r} returned {len(preds)} predictions for {len(pairs)} pairs")
        kept: list[CandidatePair] = []
        scores: dict[tuple[str, str], Prediction] = {}
        for p, pr in zip(pairs, preds, strict=True):
            pn = p_no_relation(pr)
            if pn is None:
                raise ConfigurationError(
                    f"cascade needs a classifier that reports probabilities or confidence; {clf.name!r} gave neither"
                )
            scores[(p.source_id, p.target_id)] = pr
            if pn < self.threshold:
                kept.append(p)
        return PruneResult(tuple(kept), len(pairs), self.spec, scores)


def parse_candidates(
    spec: str | Pruner | None,
    *,
    cheap_classifier: Callable[[], RelationClassifier] | None = None,
    seed: int = 0,
) -> Pruner:
    """A pruner from its spec: ``all``, ``topk:K``, ``random:K``, ``cascade:P`` (P = the
    P(no relation) at or above which a pair is dropped; needs ``cheap_classifier``)."""
    if spec is None:
        return AllPairs()
    if not isinstance(spec, str):
        return spec
    s = spec.strip().lower()
    if s == "all":
        return AllPairs()
    name, _, arg = s.partition(":")
    if name not in ("topk", "random", "cascade"):
        raise ConfigurationError(f"unknown candidate strategy {spec!r}; choose all, topk:K, random:K or cascade:P")
    try:
        num = float(arg) if name == "cascade" and arg else (0.9 if name == "cascade" else int(arg))
    except ValueError:
        raise ConfigurationError(f"bad candidate strategy {spec!r}: expected e.g. topk:10, random:10, cascade:0.9") from None
    if name == "topk":
        return TopKLexical(int(num))
    if name == "random":
        return RandomK(int(num), seed=seed)
    if cheap_classifier is None:
        raise ConfigurationError("cascade:P needs a cheap classifier (the offline one)")
    return Cascade(cheap_classifier, float(num))
