"""Batch DF-QuAD: one kernel call over many frameworks == one call per framework."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from argfaith.qbaf import (
    QBAF,
    BaseScoreError,
    ConflictingEdgeError,
    DuplicateEdgeError,
    NotConvergedError,
    QBAFError,
    UnknownArgumentError,
    dfquad_strengths,
)
from argfaith.qbaf.batch import QBAFBatch, dfquad_batch
from argfaith.qbaf.strategies import qbafs

SETTINGS = settings(deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow])


def as_arrays(qs):
    """The concatenated-array layout of a list of QBAFs, built by hand (independent of from_qbafs)."""
    bs, att, sup, noff, aoff, soff = [], [], [], [0], [0], [0]
    for q in qs:
        bs += q.base_scores.tolist()
        att += q.attack_array.tolist()
        sup += q.support_array.tolist()
        noff.append(noff[-1] + q.n)
        aoff.append(aoff[-1] + len(q.attack_array))
        soff.append(soff[-1] + len(q.support_array))
    return dict(base_scores=bs, node_offsets=noff, attacks=att, attack_offsets=aoff, supports=sup, support_offsets=soff)


@SETTINGS
@given(st.lists(qbafs(max_size=7), max_size=8), st.sampled_from(["sync", "rk4"]), st.sampled_from([5, 500]))
def test_batch_equals_one_by_one(qs, method, max_iter):
    for batch in (QBAFBatch.from_qbafs(qs), QBAFBatch.from_arrays(**as_arrays(qs))):
        r = dfquad_batch(batch, method=method, max_iter=max_iter)
        assert len(r) == len(qs) == len(batch)
        for f, q in enumerate(qs):
            one = dfquad_strengths(q, method=method, max_iter=max_iter)
            assert np.array_equal(r.strengths(f), one.values)
            assert bool(r.converged[f]) == one.converged
            assert int(r.iterations[f]) == one.iterations
            assert float(r.residual[f]) == one.residual
            assert int(r.cyclic_components[f]) == one.cyclic_components
            back = r.result(f)
            assert back.not_converged == one.not_converged  # strategies use the default ids a0, a1, ...
            assert np.array_equal(back.values, one.values) and back.converged == one.converged
            assert batch.qbaf(f) == q


def test_results_carry_ids_from_source_qbafs():
    q1 = QBAF.from_arrays([1.0, 1.0], attacks=[(0, 1), (1, 0)], ids=["x", "y"])
    q2 = QBAF.from_arrays([0.5, 0.2], attacks=[(1, 0)], ids=["p", "s"])
    r = dfquad_batch(QBAFBatch.from_qbafs([q1, q2]), max_iter=20)
    assert r.converged.tolist() == [False, True] and not r.all_converged
    assert r.result(0).not_converged == ("x", "y")
    assert r.result(1).as_dict() == {"p": 0.4, "s": 0.2}
    with pytest.raises(NotConvergedError, match=r"1 framework\(s\) of the batch: 0 "):
        dfquad_batch(QBAFBatch.from_qbafs([q1, q2]), max_iter=20, strict=True)
    assert dfquad_batch(QBAFBatch.from_qbafs([q1, q2]), method="rk4", strict=True).all_converged


def test_empty_batches_and_empty_frameworks():
    r = dfquad_batch(QBAFBatch.from_arrays([], [0]))
    assert len(r) == 0 and r.values.shape == (0,) and r.all_converged
    r = dfquad_batch(QBAFBatch.from_qbafs([]))
    assert len(r) == 0
    b = QBAFBatch.from_arrays([0.3], [0, 0, 1, 1])
    r = dfquad_batch(b)
    assert len(r) == 3 and r.strengths(0).size == 0 and r.strengths(1).tolist() == [0.3] and r.strengths(2).size == 0
    assert b.sizes.tolist() == [0, 1, 0] and b.qbaf(0).n == 0


BASE = dict(base_scores=[0.5, 0.2, 0.5, 0.2, 0.2], node_offsets=[0, 2, 5])


@pytest.mark.parametrize(
    "override, error, message",
    [
        ({"base_scores": [0.5, 0.2, 0.5, float("nan"), 0.2]}, BaseScoreError, r"framework 1: argument 1 \(global 3\).*nan"),
        ({"base_scores": [0.5, 1.2, 0.5, 0.2, 0.2]}, BaseScoreError, r"framework 0: argument 1 .*1\.2"),
        ({"attacks": [[1, 0], [2, 0]], "attack_offsets": [0, 2, 2]}, UnknownArgumentError, r"framework 0: attacks\[1\].*\(2, 0\) outside 0\.\.1"),
        ({"attacks": [[1, 0], [1, 0]], "attack_offsets": [0, 0, 2]}, DuplicateEdgeError, r"framework 1: attacks: edge \(1, 0\)"),
        (
            {"attacks": [[2, 1]], "attack_offsets": [0, 0, 1], "supports": [[2, 1]], "support_offsets": [0, 0, 1]},
            ConflictingEdgeError,
            r"framework 1: edge \(2, 1\) .*both an attack and a support",
        ),
        ({"node_offsets": [0, 3, 4]}, QBAFError, r"node_offsets must start at 0 and end at 5"),
        ({"node_offsets": [0, 3, 2, 5]}, QBAFError, r"node_offsets decreases at framework 1"),
        ({"attacks": [[1, 0]], "attack_offsets": [0, 1]}, QBAFError, r"attack_offsets has 2 entries, expected 3"),
        ({"attacks": [1, 0]}, QBAFError, r"attacks: expected an \(m, 2\) array"),
    ],
)
def test_validation_errors_name_the_framework(override, error, message):
    kw = {**BASE, **override}
    with pytest.raises(error, match=message):
        QBAFBatch.from_arrays(**kw)


def test_large_random_batch_matches_one_by_one_on_a_sample():
    rng = np.random.default_rng(3)
    n_fw, size = 2000, 12
    bs = rng.random(n_fw * size)
    s = rng.integers(0, size, size=(n_fw, 30))
    t = rng.integers(0, size, size=(n_fw, 30))
    fw = np.repeat(np.arange(n_fw), 30)
    code = np.unique(fw * size * size + s.ravel() * size + t.ravel())  # dedupe inside frameworks
    f, rest = np.divmod(code, size * size)
    e = np.stack(np.divmod(rest, size), axis=1)
    is_att = rng.random(len(e)) < 0.5
    counts_a = np.bincount(f[is_att], minlength=n_fw)
    counts_s = np.bincount(f[~is_att], minlength=n_fw)
    b = QBAFBatch.from_arrays(
        bs,
        np.arange(0, n_fw * size + 1, size),
        e[is_att],
        np.concatenate([[0], np.cumsum(counts_a)]),
        e[~is_att],
        np.concatenate([[0], np.cumsum(counts_s)]),
    )
    r = dfquad_batch(b, max_iter=200)
    for k in rng.choice(n_fw, 50, replace=False):
        one = dfquad_strengths(b.qbaf(int(k)), max_iter=200)
        assert np.array_equal(r.strengths(int(k)), one.values)
        assert (bool(r.converged[k]), int(r.iterations[k]), float(r.residual[k])) == (one.converged, one.iterations, one.residual)
    assert r.cyclic_components.sum() > 0  # random frameworks with self-loops and cycles
