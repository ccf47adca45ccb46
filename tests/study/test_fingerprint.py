"""Classifier fingerprints: cached labels of a different classifier are never reused."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from argfaith.mining.classifiers.registry import make_classifier
from argfaith.mining.pipeline import plan_debate, run_fingerprint
from argfaith.study.fingerprint import FingerprintedClassifier, classifier_fingerprint, fingerprint_tag

from .conftest import DEBATE_B, CountingClassifier


def test_offline_weights_change_the_fingerprint() -> None:
    a = make_classifier("features")
    b = make_classifier("features")
    assert classifier_fingerprint(a) == classifier_fingerprint(b)
    # Same provenance string and prior, other weights (e.g. retrained with another l2): the offline
    # classifier's own fingerprint names provenance and prior only; the study's must differ.
    model = a.model
    b.model = dataclasses.replace(model, coef=model.coef + 1e-6)
    assert classifier_fingerprint(a) != classifier_fingerprint(b)


def test_idf_and_settings_change_the_fingerprint() -> None:
    a = make_classifier("features")
    b = make_classifier("features")
    b.featurizer.idf.idf = dict(b.featurizer.idf.idf, zzzz=1.0)
    assert classifier_fingerprint(a) != classifier_fingerprint(b)
    assert classifier_fingerprint(make_classifier("lexical?threshold=0.1")) != classifier_fingerprint(make_classifier("lexical?threshold=0.2"))


def test_usage_does_not_change_the_fingerprint() -> None:
    from argfaith.mining.classifiers.base import PairQuery

    a = make_classifier("features")
    before = classifier_fingerprint(a)
    a.classify([PairQuery("We support this.", "1. Welcomes the report;", topic="t")])
    assert classifier_fingerprint(a) == before


def test_recorded_file_content_is_fingerprinted(tmp_path: Path) -> None:
    f = tmp_path / "labels.jsonl"
    f.write_text('{"source_id": "a", "target_id": "b", "label": "support"}\n')
    one = classifier_fingerprint(make_classifier(f"recorded:{f}"))
    f.write_text('{"source_id": "a", "target_id": "b", "label": "attack"}\n')
    assert classifier_fingerprint(make_classifier(f"recorded:{f}")) != one


def test_wrapper_feeds_the_mining_checkpoint_fingerprint(corpus: Path) -> None:
    from argfaith.datasets.documents import load_debate

    plan = plan_debate(load_debate(corpus / "ep_debates" / "debates" / DEBATE_B))
    c1, c2 = CountingClassifier(fingerprint="x"), CountingClassifier(fingerprint="y")
    w1, w2 = FingerprintedClassifier(c1), FingerprintedClassifier(c2)
    assert run_fingerprint(plan, w1) != run_fingerprint(plan, w2)
    assert w1.name == "counting" and w1.usage is c1.usage
    assert w1.classify(plan.queries()[:3]) == c1.classify(plan.queries()[:3])


def test_tag_is_a_safe_folder_name() -> None:
    tag = fingerprint_tag("claude:claude-haiku-5-5 (zero-shot, single)", "ab" * 32)
    assert tag == "claude-claude-haiku-5-5-abababab" + "ab"
    assert "/" not in fingerprint_tag("recorded:../../x.jsonl", "0" * 64)


def test_numpy_state_is_hashed() -> None:
    c = CountingClassifier()
    c.weights = np.zeros(3)  # type: ignore[attr-defined]
    a = classifier_fingerprint(c)
    c.weights = np.ones(3)  # type: ignore[attr-defined]
    assert classifier_fingerprint(c) != a
