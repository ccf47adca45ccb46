"""The shipped strategies produce what they promise."""

from hypothesis import given, settings

from argfaith.qbaf.strategies import acyclic_qbafs, cyclic_qbafs, debate_qbafs, base_scores, qbafs

# No deadline: the first example of a fresh process may compile (or load) numba kernels.
NO_DEADLINE = settings(deadline=None)


@NO_DEADLINE
@given(acyclic_qbafs(max_size=7))
def test_acyclic_is_acyclic(q):
    assert q.is_acyclic()


@NO_DEADLINE
@given(cyclic_qbafs(max_size=7))
def test_cyclic_has_cycle(q):
    assert not q.is_acyclic()


@settings(max_examples=50, deadline=None)
@given(debate_qbafs())
def test_debate_shape(q):
    assert q.debate and len(q.proposals) >= 1
    assert q.is_acyclic()


@NO_DEADLINE
@given(qbafs(max_size=7, attack_only=True), qbafs(max_size=7, scores=base_scores(interior=True)))
def test_attack_only_and_interior_scores(q, r):
    assert q.support_array.shape[0] == 0
    assert ((r.base_scores >= 0.01) & (r.base_scores <= 0.99)).all()
