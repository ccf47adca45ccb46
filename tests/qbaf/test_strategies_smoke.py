"""The shipped strategies produce what they promise."""

from hypothesis import given, settings

from argfaith.qbaf.strategies import acyclic_qbafs, cyclic_qbafs, debate_qbafs


@given(acyclic_qbafs(max_size=7))
def test_acyclic_is_acyclic(q):
    assert q.is_acyclic()


@given(cyclic_qbafs(max_size=7))
def test_cyclic_has_cycle(q):
    assert not q.is_acyclic()


@settings(max_examples=50)
@given(debate_qbafs())
def test_debate_shape(q):
    assert q.debate and len(q.proposals) >= 1
    assert q.is_acyclic()
