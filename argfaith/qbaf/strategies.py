"""Hypothesis strategies for QBAFs, for your own property tests of argumentation semantics.

Examples
--------
>>> from hypothesis import given
>>> from argfaith.qbaf.strategies import qbafs
>>> @given(qbafs(max_size=6, acyclic=True))
... def test_in_unit_interval(q):
...     from argfaith.qbaf import dfquad_strengths
...     assert all(0.0 <= v <= 1.0 for v in dfquad_strengths(q).values)
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from argfaith.qbaf.framework import QBAF

__all__ = ["base_scores", "qbafs", "acyclic_qbafs", "cyclic_qbafs", "debate_qbafs"]


def base_scores(*, interior: bool = False) -> st.SearchStrategy[float]:
    """Base scores in [0, 1], biased towards the interesting values 0, 0.5, 1 and the paper's τ.

    ``interior=True`` keeps them inside [0.01, 0.99] (no argument certain or void), to tell a
    principle's violations at the bounds from those inside."""
    if interior:
        return st.one_of(
            st.sampled_from([0.15, 0.2, 0.25, 0.5, 0.75]),
            st.floats(min_value=0.01, max_value=0.99, allow_nan=False),
        )
    return st.one_of(
        st.sampled_from([0.0, 0.15, 0.2, 0.25, 0.5, 1.0]),
        st.floats(min_value=0.0, max_value=1.0, allow_nan=False),
    )


@st.composite
def qbafs(
    draw: Any,
    *,
    min_size: int = 0,
    max_size: int = 8,
    acyclic: bool | None = None,
    max_edges: int | None = None,
    scores: st.SearchStrategy[float] | None = None,
    attack_only: bool = False,
) -> QBAF:
    """Random bipolar frameworks (all arguments of kind ``speech``, so any edge is allowed).

    ``acyclic=True`` gives DAGs (edges go from a higher to a lower position in a random order);
    ``acyclic=False`` guarantees at least one directed cycle (needs ``min_size >= 1``);
    ``None`` draws freely (self-loops included). ``attack_only=True`` makes every edge an
    attack (for attack-only semantics such as the weighted h-categorizer).
    """
    n = draw(st.integers(min_value=max(min_size, 1 if acyclic is False else 0), max_value=max_size))
    sc = scores if scores is not None else base_scores()
    bs = draw(st.lists(sc, min_size=n, max_size=n))
    if n == 0:
        return QBAF.from_arrays(bs)
    pairs = [(s, t) for s in range(n) for t in range(n)]
    if acyclic is True:
        order = draw(st.permutations(range(n)))
        rank = {v: i for i, v in enumerate(order)}
        pairs = [(s, t) for s, t in pairs if rank[s] > rank[t]]
    limit = max_edges if max_edges is not None else 3 * n
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=min(limit, len(pairs)))) if pairs else []
    if acyclic is False:
        cycle_len = draw(st.integers(min_value=1, max_value=min(n, 4)))
        nodes = draw(st.permutations(range(n)))[:cycle_len]
        cyc = [(nodes[i], nodes[(i + 1) % cycle_len]) for i in range(cycle_len)]
        chosen = list(dict.fromkeys(chosen + cyc))
    if attack_only:
        return QBAF.from_arrays(bs, chosen)
    rels = draw(st.lists(st.booleans(), min_size=len(chosen), max_size=len(chosen)))
    att = [e for e, a in zip(chosen, rels) if a]
    sup = [e for e, a in zip(chosen, rels) if not a]
    return QBAF.from_arrays(bs, att, sup)


def acyclic_qbafs(**kw: Any) -> st.SearchStrategy[QBAF]:
    """:func:`qbafs` restricted to DAGs."""
    return qbafs(acyclic=True, **kw)


def cyclic_qbafs(**kw: Any) -> st.SearchStrategy[QBAF]:
    """:func:`qbafs` with at least one directed cycle."""
    return qbafs(acyclic=False, **kw)


@st.composite
def debate_qbafs(
    draw: Any,
    *,
    max_proposals: int = 3,
    max_speech: int = 8,
    acyclic: bool | None = True,
    speech_tau: float | None = 0.2,
) -> QBAF:
    """Debate QBAFs (Definition 1): proposals with τ = 0.5, speech arguments with τ = ``speech_tau``
    (drawn when None); edges only leave speech arguments. ``acyclic=True`` mimics a source QBAF
    (temporal constraint: later speech arguments point to earlier ones or to proposals)."""
    n_p = draw(st.integers(min_value=1, max_value=max_proposals))
    n_s = draw(st.integers(min_value=0, max_value=max_speech))
    ids = [f"p{i + 1}" for i in range(n_p)] + [f"s{i + 1}" for i in range(n_s)]
    tau = [0.5] * n_p + [speech_tau if speech_tau is not None else draw(base_scores()) for _ in range(n_s)]
    pairs = []
    for si in range(n_s):
        s = n_p + si
        for t in range(n_p + n_s):
            if t == s and acyclic:
                continue
            if acyclic and t >= n_p and t > s:
                continue  # temporal constraint: only earlier speech arguments
            pairs.append((s, t))
    chosen = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=min(len(pairs), 3 * n_s))) if pairs else []
    rels = draw(st.lists(st.booleans(), min_size=len(chosen), max_size=len(chosen)))
    att = [e for e, a in zip(chosen, rels) if a]
    sup = [e for e, a in zip(chosen, rels) if not a]
    return QBAF.from_arrays(tau, att, sup, is_proposal=[True] * n_p + [False] * n_s, ids=ids, tau=0.2, debate=True)
