"""The token ids a relation cross-encoder reads for one candidate pair (training and inference
share this module, so they cannot drift apart).

    [CLS] source (≤ 48 tokens) | before: previous sentence of its speech (≤ 20) [SEP]
          <kind>: target (≤ 48) | topic: debate title (≤ 10) [SEP]

``<kind>`` is ``provision``, ``summary`` (another summary sentence), ``same speech`` or
``speech``. Each piece is truncated from its end; whitespace is collapsed. The neighbouring
sentence carries the stance of many sources ("Some say X. That is wrong."), the topic disambiguates
short provisions (issue 20).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from argfaith.mining.classifiers.base import PairQuery

__all__ = ["PairTokenizer", "kind_tag", "BUDGET"]

#: Tokens per piece.
BUDGET = {"source": 48, "prev": 20, "target": 48, "topic": 10}


def kind_tag(q: PairQuery) -> str:
    """The target's kind as the cross-encoder reads it."""
    if q.target_kind == "proposal":
        return "provision"
    if q.genre == "summary":
        return "summary"
    if q.source_position is not None and q.source_position == q.target_position:
        return "same speech"
    return "speech"


class PairTokenizer:
    """Token ids / type ids of pairs for a BERT-style cross-encoder (``tokenizers`` WordPiece)."""

    def __init__(self, tokenizer, *, use_prev: bool = True, use_topic: bool = True, max_cache: int = 200_000) -> None:  # noqa: ANN001
        self.tok = tokenizer
        self.tok.no_padding()
        self.tok.no_truncation()
        self.use_prev, self.use_topic = use_prev, use_topic
        self.cls, self.sep = self.tok.token_to_id("[CLS]"), self.tok.token_to_id("[SEP]")
        self._cache: dict[str, list[int]] = {}
        self.max_cache = max_cache

    def _ids(self, text: str, n: int) -> list[int]:
        v = self._cache.get(text)
        if v is None:
            if len(self._cache) >= self.max_cache:
                self._cache.clear()
            v = self._cache[text] = self.tok.encode(" ".join(text.split()), add_special_tokens=False).ids[:64]
        return v[:n]

    def encode(self, q: PairQuery) -> tuple[list[int], list[int]]:
        a = self._ids(q.source, BUDGET["source"])
        if self.use_prev and q.source_prev:
            a = a + self._ids("| before:", 4) + self._ids(q.source_prev, BUDGET["prev"])
        b = self._ids(kind_tag(q) + ":", 4) + self._ids(q.target, BUDGET["target"])
        if self.use_topic and q.topic:
            b = b + self._ids("| topic:", 4) + self._ids(q.topic, BUDGET["topic"])
        ids = [self.cls, *a, self.sep, *b, self.sep]
        return ids, [0] * (len(a) + 2) + [1] * (len(b) + 1)

    def batch(self, encoded: Sequence[tuple[list[int], list[int]]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Padded (ids, attention mask, type ids) arrays of a batch."""
        w = max(len(e[0]) for e in encoded)
        ids = np.zeros((len(encoded), w), dtype=np.int64)
        types = np.zeros_like(ids)
        mask = np.zeros_like(ids)
        for r, (i, t) in enumerate(encoded):
            ids[r, : len(i)] = i
            types[r, : len(t)] = t
            mask[r, : len(i)] = 1
        return ids, mask, types
