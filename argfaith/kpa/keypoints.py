"""Generated key points against reference key points: soft precision / recall / F1 and ROUGE.

Soft precision / recall / F1 (PAPER.md §9, as used for key point generation on ArgCMV; Li et al.
2023 "Do You Hear The People Sing?" propose this set-level evaluation), for generated key points
G and reference key points R and a similarity ``sim`` in [0, 1]:

- sP = (1/|G|) Σ_{g∈G} max_{r∈R} sim(g, r)     (is every generated key point a real one?)
- sR = (1/|R|) Σ_{r∈R} max_{g∈G} sim(g, r)     (is every reference key point found?)
- sF1 = 2·sP·sR / (sP + sR)                    (0 when sP = sR = 0)

Undefined cases are explicit: sP is None when G is empty, sR is None when R is empty, and sF1
is None when either is (a max over an empty set counts as 0, so with R empty and G not, sP = 0). The similarity is pluggable: any function ``(generated, reference) ->
|G|×|R| matrix``, or a name — ``token-f1`` (default, offline: multiset token-overlap F1 of
Porter-stemmed words, i.e. a per-pair ROUGE-1 F), ``tfidf`` (cosine of TF-IDF vectors fitted on
both sets), ``embedding`` (all-MiniLM-L6-v2 cosine, clipped to [0, 1]; extra ``embeddings``),
``bertscore`` (per-pair BERTScore F1 over all-MiniLM-L6-v2 token embeddings,
:func:`argfaith.metrics.text.bertscore_matrix`; extra ``embeddings``) — the learned, BLEURT-like
option that runs here: BLEURT's own checkpoints are not in any package of the index this project
installs from. Other learned metrics plug in the same way as a function.

ROUGE on concatenated key points: the generated key points joined by newlines scored against
the joined reference key points with :func:`argfaith.metrics.text.rouge_scores`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from argfaith.errors import ConfigurationError
from argfaith.metrics.text import RougeResult, rouge_scores

__all__ = [
    "SimilarityFn",
    "SIMILARITIES",
    "SoftPRF",
    "KeyPointGroupScore",
    "KeyPointSetScore",
    "similarity_function",
    "soft_precision_recall_f1",
    "key_point_rouge",
    "evaluate_key_points",
]

#: ``(generated, reference) -> array of shape (len(generated), len(reference))`` with values in [0, 1].
SimilarityFn = Callable[[Sequence[str], Sequence[str]], np.ndarray]
SIMILARITIES: tuple[str, ...] = ("token-f1", "tfidf", "embedding", "bertscore")


def similarity_function(name: str, **options: Any) -> SimilarityFn:
    """The similarity called ``name`` (see :data:`SIMILARITIES`); ``options`` go to the
    embedding encoder (``model``, ``cache``)."""
    from argfaith.metrics.alignment import tfidf_cosine, token_f1

    if name == "token-f1":
        return lambda g, r: token_f1(g, r, stem=True)
    if name == "tfidf":
        return lambda g, r: tfidf_cosine(g, r, stem=True)
    if name == "embedding":
        from argfaith.kpa.matchers import SentenceEncoder

        enc = SentenceEncoder(options.get("model"), cache=options.get("cache"))

        def emb(g: Sequence[str], r: Sequence[str]) -> np.ndarray:
            if not g or not r:
                return np.zeros((len(g), len(r)))
            e = enc.encode(list(g) + list(r))
            return np.clip(np.array([e[t] for t in g]) @ np.array([e[t] for t in r]).T, 0.0, 1.0)

        return emb
    if name == "bertscore":
        from argfaith.metrics.text import bertscore_matrix

        return lambda g, r: bertscore_matrix(g, r, model=options.get("model"))
    raise ConfigurationError(f"unknown similarity {name!r}; choose one of {', '.join(SIMILARITIES)} or pass a function")


@dataclass(frozen=True)
class SoftPRF:
    """Soft precision / recall / F1 of one generated key point set against one reference set.

    ``best_reference[i]`` is the index of the reference closest to generated key point i (the
    first on ties); ``best_generated[j]`` likewise for reference key point j.
    """

    soft_precision: float | None
    soft_recall: float | None
    soft_f1: float | None
    n_generated: int
    n_reference: int
    best_reference: tuple[int, ...]
    best_generated: tuple[int, ...]
    similarity: str


def _similarity_matrix(sim: SimilarityFn, generated: Sequence[str], reference: Sequence[str]) -> np.ndarray:
    m = np.asarray(sim(list(generated), list(reference)), dtype=float)
    if m.shape != (len(generated), len(reference)):
        raise ConfigurationError(f"similarity returned shape {m.shape}, expected {(len(generated), len(reference))}")
    if m.size and (not np.isfinite(m).all() or m.min() < -1e-9 or m.max() > 1 + 1e-9):
        raise ConfigurationError("similarity values must be finite and in [0, 1]")
    return np.clip(m, 0.0, 1.0)


def soft_precision_recall_f1(
    generated: Sequence[str],
    reference: Sequence[str],
    *,
    similarity: str | SimilarityFn = "token-f1",
) -> SoftPRF:
    """sP, sR and sF1 (module docstring) of ``generated`` against ``reference`` key points.

    Examples
    --------
    >>> r = soft_precision_recall_f1(["uniforms reduce bullying"], ["uniforms reduce bullying", "uniforms save money"])
    >>> r.soft_precision, r.soft_recall
    (1.0, 0.6666666666666666)
    """
    name = similarity if isinstance(similarity, str) else getattr(similarity, "__name__", "custom")
    sim = similarity_function(similarity) if isinstance(similarity, str) else similarity
    m = _similarity_matrix(sim, generated, reference) if generated and reference else np.zeros((len(generated), len(reference)))
    sp: float | None = float(m.max(axis=1).mean()) if len(generated) and len(reference) else (0.0 if generated else None)
    sr: float | None = float(m.max(axis=0).mean()) if len(generated) and len(reference) else (0.0 if reference else None)
    if sp is None or sr is None:
        f1 = None
    else:
        f1 = 0.0 if sp + sr == 0 else 2 * sp * sr / (sp + sr)
    return SoftPRF(
        soft_precision=sp,
        soft_recall=sr,
        soft_f1=f1,
        n_generated=len(generated),
        n_reference=len(reference),
        best_reference=tuple(int(i) for i in m.argmax(axis=1)) if m.size else (),
        best_generated=tuple(int(i) for i in m.argmax(axis=0)) if m.size else (),
        similarity=str(name),
    )


def key_point_rouge(generated: Sequence[str], reference: Sequence[str]) -> RougeResult:
    """ROUGE-1/2/L of the generated key points, concatenated, against the concatenated references."""
    return rouge_scores("\n".join(reference), "\n".join(generated))


@dataclass(frozen=True)
class KeyPointGroupScore:
    """Scores of one (topic, stance) group (``group`` is ``None`` for ungrouped input)."""

    group: tuple[str, int] | None
    soft: SoftPRF
    rouge: RougeResult


@dataclass(frozen=True)
class KeyPointSetScore:
    """Per-group scores and their unweighted means over groups where a value is defined.

    ``undefined_groups`` names groups whose sF1 is undefined (no generated or no reference key
    point) and were left out of the means.
    """

    groups: tuple[KeyPointGroupScore, ...]
    soft_precision: float | None
    soft_recall: float | None
    soft_f1: float | None
    rouge1: float | None
    rouge2: float | None
    rougeL: float | None
    undefined_groups: tuple[tuple[str, int] | None, ...]
    similarity: str

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)


def _mean(values: Sequence[float | None]) -> float | None:
    v = [x for x in values if x is not None]
    return sum(v) / len(v) if v else None


def evaluate_key_points(
    generated: Mapping[tuple[str, int] | None, Sequence[str]],
    reference: Mapping[tuple[str, int] | None, Sequence[str]],
    *,
    similarity: str | SimilarityFn = "token-f1",
) -> KeyPointSetScore:
    """Soft P/R/F1 and ROUGE per (topic, stance) group, and their macro averages.

    Groups are the union of both mappings' keys (a group missing on one side has an empty set
    there). ROUGE F-measures are averaged over groups with both sides non-empty.
    """
    sim = similarity_function(similarity) if isinstance(similarity, str) else similarity
    name = similarity if isinstance(similarity, str) else getattr(similarity, "__name__", "custom")
    keys = list(dict.fromkeys(list(reference) + list(generated)))
    groups = []
    for k in keys:
        g, r = list(generated.get(k, ())), list(reference.get(k, ()))
        soft = soft_precision_recall_f1(g, r, similarity=sim)
        soft = replace(soft, similarity=str(name))
        groups.append(KeyPointGroupScore(k, soft, key_point_rouge(g, r)))
    both = [x for x in groups if x.soft.soft_f1 is not None]
    return KeyPointSetScore(
        groups=tuple(groups),
        soft_precision=_mean([x.soft.soft_precision for x in both]),
        soft_recall=_mean([x.soft.soft_recall for x in both]),
        soft_f1=_mean([x.soft.soft_f1 for x in both]),
        rouge1=_mean([x.rouge.rouge1.fmeasure for x in both]),
        rouge2=_mean([x.rouge.rouge2.fmeasure for x in both]),
        rougeL=_mean([x.rouge.rougeL.fmeasure for x in both]),
        undefined_groups=tuple(x.group for x in groups if x.soft.soft_f1 is None),
        similarity=str(name),
    )
