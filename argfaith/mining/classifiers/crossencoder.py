"""A MiniLM relation cross-encoder on onnxruntime: (n, classes) logits for candidate pairs.

The graph (``scripts/relmodel/export.py``) starts from ``inputs_embeds``: token ids come from
:class:`~argfaith.mining.classifiers.pairtext.PairTokenizer`, their word embeddings from the shared
table (:class:`~argfaith.mining.encoder.TokenEmbeddings`), so several MiniLM models ship one copy of
that table. Pairs are sorted by length and batched, so padding stays small; a run is deterministic
for the same input (int8 dynamic quantisation scales activations per batch, so a pair's logits can
move slightly with the batch it falls in).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from argfaith.mining.classifiers.base import PairQuery, ProgressCallback
from argfaith.mining.classifiers.pairtext import PairTokenizer
from argfaith.mining.encoder import ENCODER_FILES, TokenEmbeddings, load_tokenizer, onnx_session

__all__ = ["RelationCrossEncoder"]


class RelationCrossEncoder:
    """Logits of a pair-classifying MiniLM graph (``graph``: its ONNX file in ``model_dir``)."""

    def __init__(self, model_dir: str | Path, graph: str, *, threads: int | None = None, batch_size: int = 64,
                 use_prev: bool = True, use_topic: bool = True, tokens: TokenEmbeddings | None = None) -> None:
        d = Path(model_dir)
        self.tokens = tokens if tokens is not None else TokenEmbeddings(d / ENCODER_FILES["tokens"])
        self.pairs = PairTokenizer(load_tokenizer(d / ENCODER_FILES["tokenizer"], None), use_prev=use_prev, use_topic=use_topic)
        self.session = onnx_session(d / graph, threads)
        self.batch_size = batch_size
        self.n_classes = int(self.session.get_outputs()[0].shape[-1])

    def logits(self, pairs: Sequence[PairQuery], *, progress: ProgressCallback | None = None) -> np.ndarray:
        n = len(pairs)
        out = np.zeros((n, self.n_classes), dtype=np.float32)
        if n == 0:
            return out
        enc = [self.pairs.encode(q) for q in pairs]
        order = np.argsort(np.fromiter((len(e[0]) for e in enc), dtype=np.int64, count=n), kind="stable")
        done = 0
        for start in range(0, n, self.batch_size):
            idx = order[start : start + self.batch_size]
            ids, mask, types = self.pairs.batch([enc[i] for i in idx])
            out[idx] = self.session.run(None, {"inputs_embeds": self.tokens.lookup(ids), "attention_mask": mask,
                                               "token_type_ids": types})[0]
            done += len(idx)
            if progress is not None:
                progress(done, n)
        return out
