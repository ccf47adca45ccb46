"""The offline/embedding classifiers' ``fingerprint`` covers their weights, not only provenance.

A mining checkpoint is keyed by this fingerprint (``run_fingerprint``): weights retrained on the
same files (same provenance string) must not resume from labels of the old weights.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from argfaith.bench.relations import pair_query
from argfaith.datasets.relations import load_relation_pairs
from argfaith.mining.classifiers._linear import LinearModel
from argfaith.mining.classifiers.offline import (
    IdfTable,
    OfflineRelationClassifier,
    default_idf_path,
    load_idf,
    train_offline_classifier,
)
from argfaith.mining.classifiers.registry import make_classifier

ROOT = Path(__file__).resolve().parents[2]
PAIRS = ROOT / "tests" / "fixtures" / "relations" / "pairs.jsonl"


def _trained(l2: float) -> OfflineRelationClassifier:
    pairs = load_relation_pairs(PAIRS)
    clf = train_offline_classifier([pair_query(p) for p in pairs], [p.label for p in pairs], load_idf(default_idf_path()), l2=l2)
    clf.metadata = {"provenance": "trained on pairs.jsonl (weight 1.0)"}  # same files, as after retraining
    return clf


def test_same_weights_same_fingerprint_and_loading_twice_agrees() -> None:
    a, b = make_classifier("features"), make_classifier("features")
    assert a.fingerprint == b.fingerprint and a.weights_digest == b.weights_digest
    assert "weights=" + a.weights_digest[:20] in a.fingerprint


def test_retraining_on_the_same_files_changes_the_fingerprint() -> None:
    a, b = _trained(0.01), _trained(1.0)
    assert a.metadata == b.metadata
    assert a.fingerprint != b.fingerprint
    assert _trained(0.01).fingerprint == a.fingerprint  # deterministic training, same weights


def test_each_weight_component_changes_the_fingerprint() -> None:
    base = make_classifier("features")
    fp = base.fingerprint
    c = make_classifier("features")
    c.model = dataclasses.replace(c.model, coef=c.model.coef + 1e-9)
    assert c.fingerprint != fp
    c = make_classifier("features")
    c.model = dataclasses.replace(c.model, impute=c.model.impute + 1e-9)
    assert c.fingerprint != fp
    c = make_classifier("features")
    c.reference_scores = c.reference_scores.copy()
    c.reference_scores[0, 0] += 1
    assert c.fingerprint != fp
    c = make_classifier("features")
    c.featurizer.idf = IdfTable(dict(c.featurizer.idf.idf, zzzz=1.0), c.featurizer.idf.default)
    assert c.fingerprint != fp
    c = make_classifier("features")
    c.featurizer.idf.idf = dict(c.featurizer.idf.idf, zzzz=1.0)  # the table's dict replaced in place
    assert c.fingerprint != fp
    assert base.fingerprint == fp  # memo of the untouched instance still right


def test_weights_file_round_trip_keeps_the_digest(tmp_path: Path) -> None:
    a = _trained(0.1)
    f = tmp_path / "w.npz"
    a.model.save(f, provenance="x")
    b = OfflineRelationClassifier(LinearModel.load(f)[0], a.featurizer.idf)
    assert b.weights_digest == a.weights_digest
    # A file with other weights under the same name: another digest.
    _trained(0.2).model.save(f, provenance="x")
    assert OfflineRelationClassifier(LinearModel.load(f)[0], a.featurizer.idf).weights_digest != a.weights_digest


def test_prior_changes_fingerprint_not_weights_digest() -> None:
    raw = make_classifier("features")
    twin = raw.with_prior("all-pairs")
    assert twin.weights_digest == raw.weights_digest and twin.fingerprint != raw.fingerprint


def test_embedding_fingerprint_covers_projections_and_encoder_without_torch() -> None:
    from argfaith.mining.classifiers.embedding import EmbeddingRelationClassifier, embedding_feature_names

    rng = np.random.default_rng(0)
    names = embedding_feature_names(2, 2)
    model = LinearModel(("attack", "support", "no relation"), rng.normal(size=(3, len(names))), np.zeros(3), names)

    def enc(texts):  # a stand-in encoder: no torch needed
        return np.ones((len(texts), 4))

    pp, sp = rng.normal(size=(4, 2)), rng.normal(size=(4, 2))
    a = EmbeddingRelationClassifier(model, pp, sp, encoder=enc)
    assert a.fingerprint == EmbeddingRelationClassifier(model, pp.copy(), sp.copy(), encoder=enc).fingerprint
    assert a.fingerprint != EmbeddingRelationClassifier(model, pp + 1e-9, sp, encoder=enc).fingerprint
    assert a.fingerprint != EmbeddingRelationClassifier(model, pp, sp + 1e-9, encoder=enc).fingerprint

    class OtherEncoder:
        def __call__(self, texts):
            return np.ones((len(texts), 4))

    assert a.fingerprint != EmbeddingRelationClassifier(model, pp, sp, encoder=OtherEncoder()).fingerprint
