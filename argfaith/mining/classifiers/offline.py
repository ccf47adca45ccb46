"""The default offline relation classifier: hand-built pair features + logistic regression.

Light install: numpy only, no network, weights shipped as a small ``.npz`` in ``argfaith/data``.
Trained by ``scripts/train_offline.py`` on EP debate pairs (see ``docs/classifiers.md``).

Features of a pair (source → target), following the cues that separate the paper's three ARC
classes (PAPER.md §7: attack = contradicts/undermines, support = strengthens/agrees):

- the target's kind (resolution paragraph vs earlier speech argument);
- lexical relatedness: TF-IDF cosine over crude stems (IDF table shipped, estimated on EP
  sentences), stem Jaccard, shared rare stems, containment, and relatedness to the debate topic;
- per-text cue rates from small lexicons: negation, contrast, negative and positive evaluation,
  obligation, politeness (thanks/congratulations), references to the report/rapporteur,
  questions, numbers, first person;
- interactions of relatedness with the source's polarity (an attack is a related pair whose
  source disagrees), and the polarity product of source and target;
- debate context when the query carries it (:mod:`argfaith.mining.classifiers.context`: same
  speech / speaker, distance, speaker roles, speech stance); unknown context is imputed with the
  training mean, so context-free inputs still work.

Deployment prior: the model is trained class-balanced on sampled pairs; ``prior=`` (a name of
:mod:`argfaith.mining.classifiers.prior` or explicit probabilities) corrects its posteriors for the
class mix it is used on (Saerens et al. 2002). Without ``prior`` the posteriors are the model's own
(balanced); mining (``run_plan``) switches such a classifier to the all-pairs prior.

Every text is analysed once per classifier instance (cache keyed by the text), so classifying
many pairs over few distinct arguments costs little more than the distinct texts.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from argfaith.datasets.labels import LABELS, RelationLabel
from argfaith.errors import ConfigurationError, DataFormatError
from argfaith.mining.classifiers._linear import LinearModel, fit_logistic_regression
from argfaith.mining.classifiers.base import PairQuery, Prediction, ProgressCallback, Usage
from argfaith.mining.classifiers.context import CONTEXT_FEATURE_NAMES, ContextFeaturizer
from argfaith.mining.classifiers.prior import BALANCED, ClassPrior, MatchResult, match_offsets, resolve_prior

__all__ = [
    "TextProfile",
    "PairFeaturizer",
    "IdfTable",
    "OfflineRelationClassifier",
    "train_offline_classifier",
    "default_weights_path",
    "default_idf_path",
    "load_idf",
    "load_offline_model",
    "FEATURE_NAMES",
    "BASE_FEATURE_NAMES",
    "model_train_prior",
    "predictions_from_proba",
    "PriorAwareClassifier",
    "DEFAULT_L2",
]

#: L2 penalty of the shipped offline model, chosen by grouped CV on the EP silver dev pairs
#: (benchmarks/relations.md; the grid is flat within noise).
DEFAULT_L2 = 0.003

_WORD = re.compile(r"[a-z][a-z'’-]*|\d+(?:[.,]\d+)*")
_STOP = frozenset(
    """the a an of to and in is that for on it this be are we as with by have has was which will at from or
    its their they i you he she all there more also can would should these those been were into than so such
    if what who do does did any other only about out up them his her my your us one may being our very
    mr madam president commissioner ladies gentlemen would could""".split()
)

# Cue lexicons; entries ending in '*' match as prefixes. Kept small and domain-neutral on purpose.
_LEXICONS: dict[str, tuple[str, ...]] = {
    "negation": ("not", "no", "never", "nothing", "none", "cannot", "can't", "don't", "doesn't", "isn't",
                 "aren't", "won't", "neither", "nor", "without", "n't", "nobody", "hardly"),
    "contrast": ("but", "however", "although", "though", "yet", "nevertheless", "whereas", "despite",
                 "instead", "rather", "nonetheless", "while", "contrary", "notwithstanding"),
    "negative": ("wrong*", "fail*", "erroneous", "mistake*", "regret*", "unfortunate*", "problem*", "concern*",
                 "danger*", "threat*", "risk*", "unacceptab*", "deplor*", "critic*", "oppos*", "reject*",
                 "against", "doubt*", "worr*", "disappoint*", "weak*", "poor*", "insufficient", "lack*", "bad",
                 "harm*", "damag*", "impossible", "useless", "absurd", "cynical", "untenable", "misguided",
                 "excessive*", "burden*", "costly", "sacrific*", "difficult*", "shelved", "delay*", "nonsense"),
    "positive": ("welcom*", "support*", "agree*", "good", "excellent", "important", "right", "rightly",
                 "success*", "benefit*", "positive*", "essential", "necessary", "vital", "pleased", "glad",
                 "appreciat*", "valuable", "effective*", "useful", "improv*", "progress*", "opportunit*",
                 "endorse*", "praise*", "commend*", "constructive", "timely", "best", "great"),
    "obligation": ("must", "should", "need*", "necessary", "call*", "urge*", "ask*", "require*", "demand*",
                   "insist*"),
    "politeness": ("thank*", "congratulat*", "grateful", "gratitude", "colleague*", "honour*", "privilege"),
    "report": ("report*", "rapporteur*", "resolution*", "paragraph*", "amendment*", "proposal*", "text",
               "committee*", "commission*", "communication"),
    "first_person": ("i", "we", "my", "our", "me", "us"),
}
_CUES = tuple(_LEXICONS)


def _compile_lexicon(words: Iterable[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    exact = frozenset(w for w in words if not w.endswith("*"))
    prefixes = tuple(w[:-1] for w in words if w.endswith("*"))
    return exact, prefixes


_COMPILED = {k: _compile_lexicon(v) for k, v in _LEXICONS.items()}


def _stem(word: str) -> str:
    # Crude but robust prefix stemming: "regulation"/"regulations"/"regulate" -> "regula".
    return word[:6]


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens (apostrophes normalised)."""
    return _WORD.findall(text.lower().replace("’", "'"))


class IdfTable:
    """Inverse document frequencies of stems; unknown stems get ``default``.

    Estimated by ``scripts/train_offline.py`` on EP debate sentences (document = sentence).
    """

    def __init__(self, idf: dict[str, float], default: float) -> None:
        self.idf = idf
        self.default = default

    @classmethod
    def fit(cls, texts: Iterable[str], *, min_df: int = 2) -> IdfTable:
        """Smoothed IDF log((1 + N) / (1 + df)) + 1 over content stems of ``texts``."""
        df: Counter[str] = Counter()
        n = 0
        for t in texts:
            n += 1
            df.update(set(_content_stems(tokenize(t))))
        idf = {s: math.log((1 + n) / (1 + c)) + 1.0 for s, c in df.items() if c >= min_df}
        return cls(idf, math.log((1 + n) / (1 + min_df - 1)) + 1.0)

    def to_json(self) -> dict:
        return {"default": self.default, "idf": {k: round(v, 4) for k, v in sorted(self.idf.items())}}

    @classmethod
    def from_json(cls, obj: dict) -> IdfTable:
        return cls({str(k): float(v) for k, v in obj["idf"].items()}, float(obj["default"]))


def _content_stems(tokens: Sequence[str]) -> list[str]:
    return [_stem(t) for t in tokens if t not in _STOP and len(t) > 2 and not t[0].isdigit()]


@dataclass(frozen=True, slots=True)
class TextProfile:
    """What the featurizer needs to know about one text (computed once per distinct text)."""

    vector: dict[str, float]  # unit-length TF-IDF over content stems
    stems: frozenset[str]
    cues: tuple[float, ...]  # one rate per lexicon in _CUES, then question, number
    n_tokens: int


def _cue_rates(tokens: Sequence[str], text: str) -> tuple[float, ...]:
    n = max(1, len(tokens))
    out = []
    for name in _CUES:
        exact, prefixes = _COMPILED[name]
        c = sum(1 for t in tokens if t in exact or (prefixes and t.startswith(prefixes)))
        # Saturating rate: presence matters more than count in one sentence.
        out.append(min(1.0, 3.0 * c / n) if c else 0.0)
    out.append(1.0 if "?" in text else 0.0)
    out.append(1.0 if any(t[0].isdigit() for t in tokens) else 0.0)
    return tuple(out)


_CUE_NAMES = (*_CUES, "question", "number")


def profile_text(text: str, idf: IdfTable) -> TextProfile:
    """Analyse one text: TF-IDF vector, stem set, cue rates, length."""
    tokens = tokenize(text)
    stems = _content_stems(tokens)
    tf = Counter(stems)
    vec = {s: (1.0 + math.log(c)) * idf.idf.get(s, idf.default) for s, c in tf.items()}
    norm = math.sqrt(sum(v * v for v in vec.values())) or 1.0
    return TextProfile({s: v / norm for s, v in vec.items()}, frozenset(stems), _cue_rates(tokens, text), len(tokens))


def _cos(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(k, 0.0) for k, v in a.items())


def _pair_names() -> tuple[str, ...]:
    names = ["is_proposal", "cos", "jaccard", "shared_log", "shared_rare_log", "containment",
             "src_topic_cos", "tgt_topic_cos", "src_len_log", "tgt_len_log"]
    names += [f"src_{c}" for c in _CUE_NAMES] + [f"tgt_{c}" for c in _CUE_NAMES]
    names += ["cos_x_src_negative", "cos_x_src_positive", "cos_x_src_contrast", "cos_x_src_negation",
              "cos_x_proposal", "polarity_product", "proposal_x_src_positive", "proposal_x_src_negative",
              "proposal_x_src_report", "proposal_x_src_politeness"]
    return tuple(names)


BASE_FEATURE_NAMES: tuple[str, ...] = _pair_names()
FEATURE_NAMES: tuple[str, ...] = (*BASE_FEATURE_NAMES, *CONTEXT_FEATURE_NAMES)
_IDX = {c: i for i, c in enumerate(_CUE_NAMES)}


class PairFeaturizer:
    """Turns :class:`PairQuery` objects into feature rows, caching each distinct text's profile.

    Thread-safe for reads; the cache grows with the distinct texts seen (bounded by
    ``max_cache``, after which it is cleared — texts are cheap to re-profile).
    """

    def __init__(self, idf: IdfTable, *, max_cache: int = 200_000) -> None:
        self.idf = idf
        self.max_cache = max_cache
        self._cache: dict[str, TextProfile] = {}
        self._lock = threading.Lock()
        self.profiled = 0  # distinct texts analysed (diagnostic for the speed benchmark)
        self.context = ContextFeaturizer()

    def profile(self, text: str) -> TextProfile:
        p = self._cache.get(text)
        if p is None:
            p = profile_text(text, self.idf)
            with self._lock:
                if len(self._cache) >= self.max_cache:
                    self._cache.clear()
                self._cache[text] = p
                self.profiled += 1
        return p

    def features(self, pair: PairQuery) -> np.ndarray:
        s = self.profile(pair.source)
        t = self.profile(pair.target)
        topic = self.profile(pair.topic) if pair.topic else None
        kind = pair.target_kind
        if kind is None:
            # Resolution paragraphs start with their number ("12.  Calls on ..."); speech does not.
            kind = "proposal" if re.match(r"^\s*\d+\s*\.", pair.target) else "speech"
        is_prop = 1.0 if kind == "proposal" else 0.0
        cos = _cos(s.vector, t.vector)
        shared = s.stems & t.stems
        union = s.stems | t.stems
        rare = sum(1 for x in shared if self.idf.idf.get(x, self.idf.default) > 0.75 * self.idf.default)
        sc, tc = s.cues, t.cues
        src_pol = sc[_IDX["positive"]] - sc[_IDX["negative"]] - 0.5 * sc[_IDX["negation"]]
        tgt_pol = tc[_IDX["positive"]] - tc[_IDX["negative"]] - 0.5 * tc[_IDX["negation"]]
        row = [
            is_prop,
            cos,
            len(shared) / len(union) if union else 0.0,
            math.log1p(len(shared)),
            math.log1p(rare),
            len(shared) / len(s.stems) if s.stems else 0.0,
            _cos(s.vector, topic.vector) if topic else 0.0,
            _cos(t.vector, topic.vector) if topic else 0.0,
            math.log1p(s.n_tokens),
            math.log1p(t.n_tokens),
            *sc,
            *tc,
            cos * sc[_IDX["negative"]],
            cos * sc[_IDX["positive"]],
            cos * sc[_IDX["contrast"]],
            cos * sc[_IDX["negation"]],
            cos * is_prop,
            src_pol * tgt_pol,
            is_prop * sc[_IDX["positive"]],
            is_prop * sc[_IDX["negative"]],
            is_prop * sc[_IDX["report"]],
            is_prop * sc[_IDX["politeness"]],
            *self.context.features(pair, is_prop == 1.0),
        ]
        return np.asarray(row, dtype=np.float64)

    def matrix(self, pairs: Sequence[PairQuery]) -> np.ndarray:
        """Feature rows (:data:`FEATURE_NAMES`); unknown context features are NaN."""
        if not pairs:
            return np.zeros((0, len(FEATURE_NAMES)))
        return np.vstack([self.features(p) for p in pairs])


def default_weights_path() -> Path:
    """The shipped weights (``argfaith/data/offline_relation_model.npz``)."""
    return Path(str(resources.files("argfaith") / "data" / "offline_relation_model.npz"))


def default_idf_path() -> Path:
    """The shipped IDF table (``argfaith/data/offline_idf.json``)."""
    return Path(str(resources.files("argfaith") / "data" / "offline_idf.json"))


def model_train_prior(model: LinearModel) -> ClassPrior:
    """The effective class prior a model was trained under (recorded by
    :func:`~argfaith.mining.classifiers._linear.fit_logistic_regression`); uniform (``balanced``)
    for models saved before it was recorded, which were all trained class-balanced."""
    if model.train_prior is None:
        return BALANCED
    return ClassPrior("training", dict(zip(model.classes, model.train_prior, strict=True)), "effective prior of the training weights")


def predictions_from_proba(proba: np.ndarray, classes: Sequence[str]) -> list[Prediction]:
    """Arg-max predictions carrying their probabilities and confidence."""
    out = []
    for row in proba:
        k = int(np.argmax(row))
        label: RelationLabel = classes[k]  # type: ignore[assignment]
        out.append(Prediction(label=label, confidence=float(row[k]),
                              probabilities={c: float(v) for c, v in zip(classes, row, strict=True)}))
    return out


def _hash_weights(h: Any, obj: object) -> None:
    """Feed ``obj`` (array, LinearModel, IdfTable, str/number, None, or a tuple/list/dict of
    these) into ``h`` deterministically."""
    if obj is None:
        h.update(b"none")
    elif isinstance(obj, np.ndarray):
        arr = np.ascontiguousarray(obj)
        h.update(f"{arr.dtype.str}{arr.shape}".encode())
        h.update(json.dumps(arr.tolist()).encode() if arr.dtype.kind in "OUS" else arr.tobytes())
    elif isinstance(obj, LinearModel):
        for name in ("classes", "coef", "intercept", "feature_names", "impute", "train_prior"):
            v = getattr(obj, name)
            _hash_weights(h, np.asarray(v) if v is not None else None)
    elif isinstance(obj, IdfTable):
        h.update(json.dumps([obj.default, sorted(obj.idf.items())]).encode())
    elif isinstance(obj, dict):
        for k in sorted(obj):
            h.update(str(k).encode() + b"=")
            _hash_weights(h, obj[k])
    elif isinstance(obj, (tuple, list)):
        for v in obj:
            _hash_weights(h, v)
    else:
        h.update(repr(obj).encode())


class PriorAwareClassifier:
    """Shared deployment-prior handling of the trainable offline classifiers.

    Subclasses set ``self.model`` (and ``self.reference_scores``, the raw scores of a reference
    sample of all-pairs candidates shipped with the weights, or ``None``) and implement
    ``_raw_scores(pairs)`` (the model's log-scores under its training prior). ``prior`` (see
    :func:`~argfaith.mining.classifiers.prior.resolve_prior`) adapts the decision to the
    deployment class mix; ``prior_explicit`` records whether the user chose it (mining only
    replaces a prior nobody chose).
    """

    name = "features"
    model: LinearModel
    _usage: Usage
    batch_size: int
    reference_scores: np.ndarray | None = None

    def _init_prior(self, prior: str | ClassPrior | None, decision: str | None = None) -> None:
        self.prior: ClassPrior | None = resolve_prior(prior, decision=decision)
        self.prior_explicit = prior is not None
        self.train_prior = model_train_prior(self.model)
        self._offsets: np.ndarray | None = None
        self.match: MatchResult | None = None
        if self.prior is not None:
            shift = np.log(np.maximum(self.prior.vector(self.model.classes), 1e-300)) - np.log(self.train_prior.vector(self.model.classes))
            if self.prior.decision == "match":
                if self.reference_scores is None or len(self.reference_scores) == 0:
                    raise ConfigurationError(
                        f"{self.name}: prior {self.prior.name!r} uses the 'match' decision rule, but these weights ship no "
                        "reference scores; retrain with scripts/train_offline.py or use decision=bayes"
                    )
                self.match = match_offsets(self.reference_scores + shift, self.prior.vector(self.model.classes))
                shift = shift + np.array(self.match.offsets)
            self._offsets = shift

    def _raw_scores(self, pairs: Sequence[PairQuery]) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def with_prior(self, prior: str | ClassPrior, decision: str | None = None) -> PriorAwareClassifier:
        """A sibling classifier with another deployment prior, sharing the model, the per-text
        caches and the usage counters (cheap; used by mining)."""
        import copy

        twin = copy.copy(self)
        twin._init_prior(prior, decision)
        return twin

    def _digest_parts(self) -> dict[str, object]:
        """The label-determining state hashed by :attr:`weights_digest`: the linear model, the
        reference scores of the ``match`` rule and the IDF table (subclasses add theirs)."""
        featurizer = getattr(self, "featurizer", None)
        return {"model": self.model, "reference_scores": self.reference_scores,
                "idf": featurizer.idf if featurizer is not None else None}

    @property
    def weights_digest(self) -> str:
        """SHA-256 of the weights actually loaded (model arrays, reference scores, IDF table, and a
        subclass's extra arrays), memoised per identity of those objects (they are replaced, never
        mutated, when weights change)."""
        parts = self._digest_parts()
        # The memo keeps the objects themselves (not their ids, which could be reused after a
        # replaced object is freed) and compares identities.
        key = tuple((k, v, getattr(v, "idf", None)) for k, v in sorted(parts.items()))
        memo = getattr(self, "_digest_memo", None)
        if memo is not None and len(memo[0]) == len(key) and all(
            a[0] == b[0] and a[1] is b[1] and a[2] is b[2] for a, b in zip(memo[0], key, strict=True)
        ):
            return memo[1]
        h = hashlib.sha256()
        for k, v in sorted(parts.items()):
            h.update(b"\x00" + k.encode() + b"\x01")
            _hash_weights(h, v)
        digest = h.hexdigest()
        self._digest_memo = (key, digest)
        return digest

    @property
    def fingerprint(self) -> str:
        """What determines the labels beyond the texts: the weights (:attr:`weights_digest`, so
        weights retrained on the same files get a new fingerprint), their provenance, the prior."""
        meta = getattr(self, "metadata", {}) or {}
        prior = self.prior.describe() if self.prior is not None else "training"
        return f"{self.name}|{meta.get('provenance', 'custom weights')}|weights={self.weights_digest[:20]}|prior={prior}"

    def predict_proba(self, pairs: Sequence[PairQuery]) -> np.ndarray:
        """Class probabilities in ``self.model.classes`` order. With a ``bayes`` prior they are
        the prior-corrected posteriors; with ``match`` the softmax of the offset scores (decision
        scores whose arg-max is the label, not calibrated probabilities)."""
        S = self._raw_scores(pairs)
        if self._offsets is not None:
            S = S + self._offsets
        S = S - S.max(axis=1, keepdims=True) if len(S) else S
        E = np.exp(S)
        return E / E.sum(axis=1, keepdims=True) if len(S) else E

    def classify(self, pairs: Sequence[PairQuery], *, progress: ProgressCallback | None = None) -> list[Prediction]:
        out: list[Prediction] = []
        total = len(pairs)
        for start in range(0, total, self.batch_size):
            out.extend(predictions_from_proba(self.predict_proba(pairs[start : start + self.batch_size]), self.model.classes))
            if progress is not None:
                progress(len(out), total)
        self._usage.extra["pairs"] = self._usage.extra.get("pairs", 0.0) + total
        return out


class OfflineRelationClassifier(PriorAwareClassifier):
    """Offline attack / support / no-relation classifier (see the module docstring).

    Parameters
    ----------
    model
        A fitted :class:`LinearModel` over :data:`FEATURE_NAMES`; default: the shipped weights.
    idf
        The IDF table; default: the shipped one.
    prior
        Deployment class prior (``"balanced"``, ``"sampled"``, ``"all-pairs"``, explicit
        probabilities, a :class:`~argfaith.mining.classifiers.prior.ClassPrior`); ``None`` = the
        model's own posteriors (class-balanced training), which mining replaces by the all-pairs
        prior.
    decision
        ``bayes`` or ``match`` to override the prior's decision rule.
    reference_scores
        Raw scores of a reference sample of all-pairs candidates (for ``match``); default: the
        ones shipped with the default weights.
    batch_size
        Pairs featurised per progress tick.
    """

    name = "features"

    def __init__(
        self,
        model: LinearModel | None = None,
        idf: IdfTable | None = None,
        *,
        prior: str | ClassPrior | None = None,
        decision: str | None = None,
        reference_scores: np.ndarray | None = None,
        batch_size: int = 2000,
    ) -> None:
        if model is None:
            model, self.metadata = load_offline_model(default_weights_path())
            reference_scores = LinearModel.load_arrays(default_weights_path()).get("reference_scores")
        else:
            self.metadata = {}
        self.reference_scores = reference_scores
        if tuple(model.feature_names) and tuple(model.feature_names) != FEATURE_NAMES:
            raise ConfigurationError(
                "offline model weights do not match this version's features; retrain with scripts/train_offline.py"
            )
        if set(model.classes) != set(LABELS):
            raise ConfigurationError(f"offline model classes {model.classes} are not {LABELS}")
        self.model = model
        self.featurizer = PairFeaturizer(idf if idf is not None else load_idf(default_idf_path()))
        self.batch_size = batch_size
        self._usage = Usage()
        self._init_prior(prior, decision)

    @property
    def usage(self) -> Usage:
        """Offline: no API calls; ``extra`` counts pairs and distinct texts analysed."""
        self._usage.extra["distinct_texts"] = float(self.featurizer.profiled)
        return self._usage

    def _raw_scores(self, pairs: Sequence[PairQuery]) -> np.ndarray:
        return self.model.decision_function(self.featurizer.matrix(pairs))


def load_idf(path: str | Path) -> IdfTable:
    """Read an IDF table written by ``scripts/train_offline.py``."""
    from argfaith.textio import read_json

    if not Path(path).exists():
        raise ConfigurationError(f"offline classifier IDF table not found: {path}")
    raw = read_json(path, what="IDF table")
    try:
        return IdfTable.from_json(raw)
    except (KeyError, TypeError, ValueError) as e:
        raise DataFormatError(f"{path}: not an offline IDF table ({e})") from None


def load_offline_model(path: str | Path) -> tuple[LinearModel, dict[str, str]]:
    """Read offline weights (``.npz``) written by ``scripts/train_offline.py``."""
    try:
        return LinearModel.load(path)
    except FileNotFoundError:
        raise ConfigurationError(f"offline classifier weights not found: {path}") from None
    except (KeyError, ValueError, OSError) as e:
        raise DataFormatError(f"{path}: not an offline classifier weights file ({e})") from None


def train_offline_classifier(
    pairs: Sequence[PairQuery],
    labels: Sequence[str],
    idf: IdfTable,
    *,
    l2: float = DEFAULT_L2,
    sample_weight: np.ndarray | None = None,
) -> OfflineRelationClassifier:
    """Fit the offline classifier on labelled pairs (class-balanced logistic regression).

    Used by ``scripts/train_offline.py`` and by cross-validation in ``argfaith bench relations``.
    """
    featurizer = PairFeaturizer(idf)
    X = featurizer.matrix(pairs)
    model = fit_logistic_regression(X, labels, LABELS, l2=l2, sample_weight=sample_weight, feature_names=FEATURE_NAMES)
    clf = OfflineRelationClassifier(model, idf)
    clf.featurizer = featurizer  # keep the warm cache
    return clf
