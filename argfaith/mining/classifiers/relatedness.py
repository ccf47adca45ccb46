"""Stage-1 features of the v2 relation model: the pair features of ``features`` (lexical overlap,
cue lexicons, debate context; :class:`~argfaith.mining.classifiers.offline.PairFeaturizer`) plus
sentence-embedding cosines from the shipped MiniLM encoder (:class:`~argfaith.mining.encoder.SentenceEncoder`).

The embedding cosines (FINDINGS §9: an untrained MiniLM bi-encoder already ranks related pairs
better than the pair-feature model on exhaustive candidates) are: source–target, the source's
previous sentence–target, their maximum, source–topic and target–topic. Every distinct text is
encoded once per featurizer (the encoder caches), so a debate costs one encoding per unit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from argfaith.mining.classifiers.base import PairQuery

__all__ = ["EMBEDDING_FEATURES", "RelatednessFeaturizer"]

EMBEDDING_FEATURES = ("emb_cos", "emb_prev_cos", "emb_max_cos", "emb_src_topic", "emb_tgt_topic")


class RelatednessFeaturizer:
    """Rows of [pair features, embedding cosines] for :class:`PairQuery` objects."""

    def __init__(self, pair_featurizer, encoder) -> None:  # noqa: ANN001
        from argfaith.mining.classifiers.offline import FEATURE_NAMES

        self.pairs = pair_featurizer
        self.encoder = encoder
        self.feature_names = tuple(FEATURE_NAMES) + EMBEDDING_FEATURES

    def embedding_matrix(self, queries: Sequence[PairQuery]) -> np.ndarray:
        n = len(queries)
        if n == 0:
            return np.zeros((0, len(EMBEDDING_FEATURES)))
        texts: dict[str, int] = {}
        for q in queries:
            for t in (q.source, q.target, q.source_prev or "", q.topic or ""):
                texts.setdefault(" ".join(t.split()), len(texts))
        keys = list(texts)
        E = self.encoder.encode(keys).astype(np.float64)

        def ix(t: str | None) -> int:
            return texts[" ".join((t or "").split())]

        s = np.array([ix(q.source) for q in queries])
        t = np.array([ix(q.target) for q in queries])
        p = np.array([ix(q.source_prev) for q in queries])
        tp = np.array([ix(q.topic) for q in queries])
        has_prev = np.array([bool(q.source_prev) for q in queries])
        has_topic = np.array([bool(q.topic) for q in queries])
        cst = np.einsum("ij,ij->i", E[s], E[t])
        cpt = np.where(has_prev, np.einsum("ij,ij->i", E[p], E[t]), cst)
        cs_topic = np.where(has_topic, np.einsum("ij,ij->i", E[s], E[tp]), 0.0)
        ct_topic = np.where(has_topic, np.einsum("ij,ij->i", E[t], E[tp]), 0.0)
        return np.stack([cst, cpt, np.maximum(cst, cpt), cs_topic, ct_topic], axis=1)

    def matrix(self, queries: Sequence[PairQuery]) -> np.ndarray:
        """(n, len(feature_names)); unknown context features are NaN (the model imputes them)."""
        return np.hstack([self.pairs.matrix(queries), self.embedding_matrix(queries)])
