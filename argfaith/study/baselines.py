"""Text baselines for many summaries of one debate, computing the debate's side once.

The study scores every summary against its debate's whole transcript (tens of thousands of
tokens). :func:`argfaith.metrics.text.rouge_scores` and :func:`~argfaith.metrics.text.bertscore`
process the reference anew for every summary, and ROUGE-L's dynamic-programming table over
(reference × summary) tokens in pure Python takes 10–20 s for one large debate. Measured on
CRE-20060315-ITEM-009 (13,948 reference tokens, 849 summary tokens), under load: ROUGE 20.6 s,
BERTScore 25.4 s per summary.

- :class:`ReferenceRouge` tokenises the reference once and computes ROUGE-1/-2/-L exactly as
  ``rouge-score`` does (same tokenizer, same n-gram and LCS formulas), with the LCS length from
  the bit-parallel algorithm of Allison & Dix (1986) / Hyyrö (2004): one pass over the reference
  with word-sized operations on a bit vector of the summary's positions (Python integers), i.e.
  O(n·⌈m/w⌉) instead of O(n·m) table cells.
- :class:`ReferenceBERTScore` encodes the reference once per debate and scores each summary
  against the cached token embeddings, with the same chunking, encoder and formulas as
  :func:`argfaith.metrics.text.bertscore` (it reuses that module's helpers).

Both are checked against the metrics module's functions in ``tests/study/test_baselines.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

from argfaith.metrics.text import BERTScoreResult, RougeResult, RougeScore, UnicodeTokenizer

__all__ = ["lcs_length", "ReferenceRouge", "ReferenceBERTScore"]


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of a longest common subsequence of ``a`` and ``b`` (bit-parallel).

    Hyyrö (2004), "Bit-parallel LCS-length computation revisited" (after Allison & Dix 1986 and
    Crochemore et al. 2001): with ``M[x]`` the bit mask of the positions of ``x`` in ``b`` and
    ``V`` initially all ones, every element ``x`` of ``a`` updates
    ``U = V & M[x]; V = (V + U) | (V - U)``; the LCS length is the number of zero bits of ``V``.

    Examples
    --------
    >>> lcs_length("ABCBDAB", "BDCABA")
    4
    """
    m = len(b)
    if not a or not m:
        return 0
    masks: dict[Hashable, int] = {}
    for i, x in enumerate(b):
        masks[x] = masks.get(x, 0) | (1 << i)
    full = (1 << m) - 1
    v = full
    for x in a:
        u = v & masks.get(x, 0)
        if u:
            v = ((v + u) | (v - u)) & full
    return m - v.bit_count()


def _fmeasure(p: float, r: float) -> float:
    # rouge_score.scoring.fmeasure
    return 2 * p * r / (p + r) if p + r > 0 else 0.0


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _score_ngrams(target: Counter[tuple[str, ...]], prediction: Counter[tuple[str, ...]]) -> RougeScore:
    # rouge_score.rouge_scorer._score_ngrams
    inter = sum(min(c, prediction[g]) for g, c in target.items())
    p = inter / max(sum(prediction.values()), 1)
    r = inter / max(sum(target.values()), 1)
    return RougeScore(p, r, _fmeasure(p, r))


class ReferenceRouge:
    """ROUGE-1/-2/-L of candidates against one fixed reference (the debate's transcript);
    results equal :func:`argfaith.metrics.text.rouge_scores` (``stem=True``)."""

    def __init__(self, reference: str, *, stem: bool = True) -> None:
        self.tokenizer = UnicodeTokenizer(stem)
        self.tokens = self.tokenizer.tokenize(reference)
        self._grams = {n: _ngrams(self.tokens, n) for n in (1, 2)}

    def score(self, candidate: str) -> RougeResult:
        cand = self.tokenizer.tokenize(candidate)
        r1 = _score_ngrams(self._grams[1], _ngrams(cand, 1))
        r2 = _score_ngrams(self._grams[2], _ngrams(cand, 2))
        if not self.tokens or not cand:
            rl = RougeScore(0, 0, 0)
        else:
            k = lcs_length(self.tokens, cand)
            p, r = k / len(cand), k / len(self.tokens)
            rl = RougeScore(p, r, _fmeasure(p, r))
        return RougeResult(r1, r2, rl, n_reference_tokens=len(self.tokens), n_candidate_tokens=len(cand),
                           tokenizer=repr(self.tokenizer))


class ReferenceBERTScore:
    """BERTScore of candidates against one fixed reference, encoding the reference once (lazily,
    at the first :meth:`score`); results equal :func:`argfaith.metrics.text.bertscore`.

    Raises :class:`~argfaith.errors.MissingExtraError` (extra ``embeddings``) when torch /
    transformers / the default model are not installed.
    """

    def __init__(self, reference: str, *, model: str | Path | None = None, batch_size: int = 16) -> None:
        self.reference = reference
        self.model = model
        self.batch_size = batch_size
        self._ref: Any = None

    def _setup(self) -> None:
        from argfaith.metrics import text as T

        torch, _ = T._import_torch_transformers("BERTScore", "embeddings")
        path = T.default_embedding_model_path() if self.model is None else T._check_model_dir(self.model, "BERTScore model")
        tok, enc = T._load_encoder(path)
        budget = T._max_len(tok, enc) - 2  # room for [CLS]/[SEP]
        chunks = T._chunks(self.reference, tok, budget)
        self._ref = (torch, path, tok, enc, budget, len(chunks), T._token_embeddings(chunks, tok, enc, torch, self.batch_size))

    def score(self, candidate: str) -> BERTScoreResult:
        from argfaith.metrics import text as T

        if self._ref is None:
            self._setup()
        torch, path, tok, enc, budget, n_ref_chunks, r = self._ref
        cand_chunks = T._chunks(candidate, tok, budget)
        c = T._token_embeddings(cand_chunks, tok, enc, torch, self.batch_size)
        p, rec, f = T.greedy_match_prf(c, r)
        return BERTScoreResult(precision=p, recall=rec, f1=f, model=path, n_reference_tokens=int(len(r)),
                               n_candidate_tokens=int(len(c)), n_chunks=n_ref_chunks + len(cand_chunks))
