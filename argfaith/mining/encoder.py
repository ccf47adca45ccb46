"""MiniLM text encoders on onnxruntime, sharing one token-embedding table.

argfaith's offline models read text with all-MiniLM-L6-v2 (Wang et al. 2020, MiniLM; the
sentence-transformers release, Apache-2.0): a *sentence encoder* (mean-pooled, L2-normalised
sentence embeddings — the model's own pooling — for relatedness features and the
argumentativeness filter) and cross-encoders that read a pair of texts. None of them updates the
word-embedding matrix in training, so the matrix is stored once
(``minilm_token_embeddings.npz``: int8 rows with one fp32 scale each) and looked up here in numpy;
each ONNX graph starts from ``inputs_embeds`` (position and token-type embeddings and everything
after them are inside the graph, int8 dynamically quantised per channel). No torch, no network.

:class:`SentenceEncoder` caches the embedding of every text it has seen (bounded), so a debate's
units are encoded once per classifier.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

import numpy as np

from argfaith.errors import ConfigurationError

__all__ = ["TokenEmbeddings", "SentenceEncoder", "default_model_dir", "ENCODER_FILES", "onnx_session", "default_threads"]

#: Files of the shared MiniLM parts in a model directory.
ENCODER_FILES = {
    "tokens": "minilm_token_embeddings.npz",
    "tokenizer": "minilm_tokenizer.json",
    "encoder": "sentence_encoder.onnx",
}
#: Tokens per sentence (the encoder's truncation).
MAX_TOKENS = 128


def default_model_dir() -> Path:
    """The package's shipped model directory (``argfaith/data``)."""
    return Path(str(resources.files("argfaith") / "data"))


def default_threads() -> int:
    """onnxruntime intra-op threads when the caller names none: ``OMP_NUM_THREADS`` if it is a
    positive integer (a study's pool and Dask workers set it to 1), else the cores this process
    may use."""
    env = os.environ.get("OMP_NUM_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def onnx_session(path: Path, threads: int | None = None):  # noqa: ANN201
    """A CPU onnxruntime session with ``threads`` intra-op threads (default :func:`default_threads`)."""
    try:
        import onnxruntime as ort
    except ImportError:  # a core dependency; a broken install names it
        raise ConfigurationError("argfaith's offline models need onnxruntime (a dependency of argfaith): pip install onnxruntime") from None
    if not path.is_file():
        raise ConfigurationError(f"model file {path} not found")
    so = ort.SessionOptions()
    so.intra_op_num_threads = int(threads or default_threads())
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


class TokenEmbeddings:
    """The shared word-embedding table: ``table[id] * scale[id]`` (int8 rows, fp32 scales)."""

    def __init__(self, path: Path) -> None:
        if not path.is_file():
            raise ConfigurationError(f"token embeddings {path} not found")
        with np.load(path) as z:
            self.table = z["table"]
            self.scale = z["scale"].astype(np.float32)
        if self.table.dtype != np.int8 or self.table.ndim != 2 or self.scale.shape != (self.table.shape[0],):
            raise ConfigurationError(f"{path}: not an int8 token-embedding table with per-row scales")

    @property
    def dim(self) -> int:
        return int(self.table.shape[1])

    def lookup(self, ids: np.ndarray) -> np.ndarray:
        """(b, t) token ids → (b, t, dim) float32 embeddings."""
        return self.table[ids].astype(np.float32) * self.scale[ids][..., None]

    @staticmethod
    def quantise(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Symmetric per-row int8 quantisation (training/export side): (table, scale)."""
        m = np.asarray(matrix, dtype=np.float32)
        scale = np.abs(m).max(axis=1) / 127.0
        scale[scale == 0] = 1.0
        return np.clip(np.rint(m / scale[:, None]), -127, 127).astype(np.int8), scale.astype(np.float32)


def load_tokenizer(path: Path, max_tokens: int | None = MAX_TOKENS):  # noqa: ANN201
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise ConfigurationError("argfaith's offline models need tokenizers (a dependency of argfaith): pip install tokenizers") from None
    if not path.is_file():
        raise ConfigurationError(f"tokenizer {path} not found")
    tok = Tokenizer.from_file(str(path))
    tok.no_padding()
    if max_tokens:
        tok.enable_truncation(max_tokens)
    else:
        tok.no_truncation()
    return tok


class SentenceEncoder:
    """all-MiniLM-L6-v2 sentence embeddings (mean pooling, L2-normalised), int8 ONNX.

    Parameters
    ----------
    model_dir
        Folder with :data:`ENCODER_FILES` (default: the shipped weights in ``argfaith/data``).
    threads
        onnxruntime intra-op threads (default :func:`default_threads`).
    batch_size
        Sentences per ONNX call (sorted by length, so padding stays small).
    """

    def __init__(self, model_dir: str | Path | None = None, *, threads: int | None = None, batch_size: int = 64,
                 max_cache: int = 100_000, tokens: TokenEmbeddings | None = None) -> None:
        d = Path(model_dir) if model_dir is not None else default_model_dir()
        self.tokens = tokens if tokens is not None else TokenEmbeddings(d / ENCODER_FILES["tokens"])
        self.tokenizer = load_tokenizer(d / ENCODER_FILES["tokenizer"])
        self.session = onnx_session(d / ENCODER_FILES["encoder"], threads)
        self.batch_size = batch_size
        self.max_cache = max_cache
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return self.tokens.dim

    def _run(self, texts: Sequence[str]) -> np.ndarray:
        encs = self.tokenizer.encode_batch(list(texts))
        lengths = np.fromiter((len(e.ids) for e in encs), dtype=np.int64, count=len(encs))
        out = np.zeros((len(encs), self.dim), dtype=np.float32)
        order = np.argsort(lengths, kind="stable")
        for start in range(0, len(encs), self.batch_size):
            idx = order[start : start + self.batch_size]
            w = int(lengths[idx].max())
            ids = np.zeros((len(idx), w), dtype=np.int64)
            mask = np.zeros_like(ids)
            for r, i in enumerate(idx):
                n = len(encs[i].ids)
                ids[r, :n] = encs[i].ids
                mask[r, :n] = 1
            out[idx] = self.session.run(None, {"inputs_embeds": self.tokens.lookup(ids), "attention_mask": mask})[0]
        return out

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) unit vectors; whitespace is collapsed; an empty text gets the zero vector."""
        keys = [" ".join(t.split()) for t in texts]
        with self._lock:
            todo = sorted({k for k in keys if k and k not in self._cache})
        if todo:
            vecs = self._run(todo)
            with self._lock:
                if len(self._cache) + len(todo) > self.max_cache:
                    self._cache.clear()
                self._cache.update(zip(todo, vecs))
        out = np.zeros((len(keys), self.dim), dtype=np.float32)
        with self._lock:
            for i, k in enumerate(keys):
                if k:
                    v = self._cache.get(k)
                    out[i] = v if v is not None else self._run([k])[0]
        return out
