"""The v1 two-stage offline classifier, selectable as ``stance`` (relatedness x stance; argfaith.mining.classifiers.stance).

The stance contrasts below were written before the shipped weights existed (they are not taken
from the training corpus and were not tuned to the model): the same provision, one sentence that
supports it and a minimal rewrite that attacks it. A stance-aware model must give the attacking
rewrite the larger attack margin.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from argfaith.errors import ConfigurationError
from argfaith.mining.classifiers.base import PairQuery
from argfaith.mining.classifiers.registry import make_classifier
from argfaith.mining.classifiers.stance import (
    MAX_LENGTH,
    STANCE_FILES,
    StanceRelationClassifier,
    default_stance_dir,
    pair_texts,
)

PAPER_DEBATES = {"CRE-20060213-ITEM-013", "CRE-20070905-ITEM-015", "CRE-20080313-ITEM-002"}

# (provision, supporting sentence, attacking rewrite of the same sentence)
CONTRASTS = [
    ("5. Calls on the Commission to introduce a ban on the export of mercury by 2011;",
     "I welcome the ban on mercury exports, which will protect the health of millions of people.",
     "I reject the ban on mercury exports, which will destroy jobs and protect the health of no one."),
    ("12. Supports the extension of the maternity leave to twenty weeks on full pay;",
     "Twenty weeks of fully paid maternity leave is a fair and necessary step for working mothers.",
     "Twenty weeks of fully paid maternity leave is an unaffordable burden that small businesses cannot carry."),
    ("3. Calls for the opening of accession negotiations with Croatia without further delay;",
     "Croatia has met every condition, so negotiations should open now.",
     "Croatia has not met the conditions, so opening negotiations now would be a serious mistake."),
    ("8. Calls on the Member States to reduce greenhouse gas emissions by 30% by 2020;",
     "A 30% reduction is ambitious but achievable, and our group will vote for it.",
     "A 30% reduction is unrealistic and would ruin our industry, so our group will vote against it."),
    ("17. Believes that the services directive should apply the country-of-origin principle;",
     "The country-of-origin principle is the only way to create a real internal market for services.",
     "The country-of-origin principle would lead to social dumping and must be removed from the directive."),
    ("2. Welcomes the Commission's proposal to liberalise postal services by 2009;",
     "Opening postal markets will bring lower prices and better service to consumers.",
     "Opening postal markets will bring job losses and worse service to rural consumers."),
]


@pytest.fixture(scope="module")
def clf() -> StanceRelationClassifier:
    return StanceRelationClassifier(threads=1)


def _q(source: str, target: str, **kw) -> PairQuery:
    return PairQuery(source=source, target=target, target_kind=kw.pop("target_kind", "proposal"), **kw)


def test_shipped_files_meta_and_size() -> None:
    d = default_stance_dir()
    total = 0
    for name in STANCE_FILES.values():
        p = d / name
        assert p.is_file(), p
        total += p.stat().st_size
    assert total <= 60 * 2**20  # the size limit for weights in the package
    meta = json.loads((d / STANCE_FILES["meta"]).read_text(encoding="utf-8"))
    assert set(meta["trained"]["excluded_debates"]) == PAPER_DEBATES  # evaluation debates never trained on
    assert meta["stance_classes"] == ["attack", "support"]
    for genre in ("debate", "summary"):
        rule = meta["all_pairs"][genre]
        assert 0.0 < rule["density"] < 0.5 and 0.0 < rule["attack_share"] < 1.0
        assert 0.0 < rule["related_threshold"] < 1.0


def test_registry_stance_is_the_v1_model() -> None:
    c = make_classifier("stance")
    assert isinstance(c, StanceRelationClassifier)
    assert c.name == "stance" and c.fingerprint.startswith("stance-")
    assert make_classifier("stance?prior=all-pairs").fingerprint != c.fingerprint


def test_stance_contrasts_move_the_attack_margin(clf: StanceRelationClassifier) -> None:
    pairs = []
    for target, sup, att in CONTRASTS:
        pairs += [_q(sup, target), _q(att, target)]
    z = clf.stance_logits(pairs).astype(np.float64)
    margin = z[:, 0] - z[:, 1]  # attack minus support
    sup_m, att_m = margin[0::2], margin[1::2]
    assert (att_m > sup_m).all(), list(zip(sup_m.round(2), att_m.round(2)))
    # and on the right side of each other's decision, not only ordered
    assert (att_m > 0).sum() >= len(CONTRASTS) - 1 and (sup_m < 0).sum() >= len(CONTRASTS) - 1


def test_results_do_not_depend_on_batching_or_order(clf: StanceRelationClassifier) -> None:
    pairs = [_q(s, t) for t, a, b in CONTRASTS for s in (a, b)]
    pairs += [_q(a, b, target_kind="speech", genre="debate") for _, a, b in CONTRASTS]
    ref = clf.stance_logits(pairs)
    small = StanceRelationClassifier(threads=1, batch_size=3)
    rev = small.stance_logits(pairs[::-1])[::-1]
    # dynamic int8 quantisation scales activations per batch, so the padding and the other rows
    # of a batch move the logits a little (measured: up to ~0.3); the attention mask must hold
    assert np.abs(ref - rev).max() < 0.5
    assert ((ref[:, 0] > ref[:, 1]) == (rev[:, 0] > rev[:, 1])).mean() >= 0.9


def test_cross_encoder_runs_only_on_pairs_decided_related(clf: StanceRelationClassifier, monkeypatch) -> None:
    mined = clf.with_prior("all-pairs")
    pairs = [_q(s, t) for t, a, b in CONTRASTS for s in (a, b)]
    pairs += [_q("The weather in Strasbourg was pleasant this week.", t) for t, _, _ in CONTRASTS]
    seen: list[int] = []
    real = StanceRelationClassifier.stance_logits

    def counting(self, ps, **kw):
        seen.append(len(ps))
        return real(self, ps, **kw)

    monkeypatch.setattr(StanceRelationClassifier, "stance_logits", counting)
    preds = mined.classify(pairs)
    n_related = sum(p.label != "no relation" for p in preds)
    assert sum(seen) == n_related
    for p in preds:
        assert abs(sum(p.probabilities.values()) - 1.0) < 1e-6
        assert p.label == "no relation" or p.probabilities["no relation"] < 1.0
    assert mined.usage.extra["stance_pairs"] == n_related


def test_custom_prior_sets_the_related_share_on_the_reference_sample(clf: StanceRelationClassifier) -> None:
    c = clf.with_prior("attack=0.04;support=0.06;no relation=0.9")
    with np.load(default_stance_dir() / STANCE_FILES["reference"]) as z:
        p_rel = z["debate_p_related"].astype(np.float64)
    t, _ = c.rule["debate"]
    assert abs((p_rel >= t).mean() - 0.10) < 0.01


def test_pair_texts_and_truncation(clf: StanceRelationClassifier) -> None:
    src, tgt = pair_texts(_q("  We   oppose\nthis. ", "5. A provision."))
    assert src == "We oppose this." and tgt == "provision: 5. A provision."
    assert pair_texts(_q("a", "b", target_kind="speech", genre="summary"))[1] == "summary: b"
    long = _q("word " * 400, "other " * 400)
    enc = clf.tokenizer.encode(*pair_texts(long))
    assert len(enc.ids) == MAX_LENGTH


def test_missing_weight_file_is_a_configuration_error(tmp_path: Path) -> None:
    for name in STANCE_FILES.values():
        shutil.copy(default_stance_dir() / name, tmp_path / name)
    (tmp_path / STANCE_FILES["model"]).unlink()
    with pytest.raises(ConfigurationError, match="stance_model.onnx"):
        StanceRelationClassifier(tmp_path)


def test_default_threads_follow_omp_num_threads(monkeypatch) -> None:
    """Workers of a study (pool or Dask) run with OMP_NUM_THREADS=1: the cross-encoder keeps to one
    thread there instead of taking every core once per worker."""
    from argfaith.mining.classifiers.stance import default_threads

    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert default_threads() == 3
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert default_threads() == 1
    assert StanceRelationClassifier().session.get_session_options().intra_op_num_threads == 1
    assert StanceRelationClassifier(threads=2).session.get_session_options().intra_op_num_threads == 2  # an explicit choice wins
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    for unset in ("", "0", "two"):
        monkeypatch.setenv("OMP_NUM_THREADS", unset)
        assert default_threads() == cores
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert default_threads() == cores


def test_labels_do_not_depend_on_the_thread_count(clf: StanceRelationClassifier) -> None:
    """The fingerprint leaves the thread count out (``stance`` and ``stance?threads=1`` share mined
    folders), so the logits must not depend on it."""
    pairs = [_q(s, t) for t, a, b in CONTRASTS for s in (a, b)]
    pairs += [_q(a, b, target_kind="speech", genre="debate") for _, a, b in CONTRASTS]
    two = StanceRelationClassifier(threads=2)
    np.testing.assert_allclose(clf.stance_logits(pairs), two.stance_logits(pairs), rtol=0, atol=1e-5)
