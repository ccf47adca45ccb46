"""The principles matrix: every gradual semantics × every principle, decided by property search.

For one semantics and one principle (:mod:`argfaith.qbaf.principles`), :func:`principle_matrix`
looks for a framework on which the principle fails:

1. the hand-made frameworks of :func:`principle_examples` (small corner cases: a certain
   attacker, a strength-0 supporter, saturated aggregates, ...), fitted to the semantics' domain;
2. then a property search with hypothesis over random *acyclic* frameworks (the setting of the
   published tables) of up to ``max_size`` arguments, ``examples`` of them, derandomized so a run
   is reproducible; a failure is *shrunk* to a minimal framework.

A cell is ``"satisfied"`` when neither finds a failure (an empirical verdict over the frameworks
tried, as a property test gives), ``"violated"`` with the counterexample otherwise, and
``"violated-at-bounds"`` when every failure found needs a base score of exactly 0 or 1 (a
second search with base scores in [0.01, 0.99] finds none) — the corner where several
semantics are degenerate (Euler-based and MLP-based fix σ = 1 at τ = 1). ``"not applicable"``:
the principle cannot be stated in the semantics' domain (Franklin, duality adding supporters
to the attack-only h-categorizer).

Examples
--------
>>> m = principle_matrix(["dfquad"], ["stability", "resilience"], examples=20)
>>> m.verdict("dfquad", "stability"), m.verdict("dfquad", "resilience")
('satisfied', 'violated')
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from argfaith.qbaf.framework import QBAF
from argfaith.qbaf.principles import ALL_PRINCIPLES, Counterexample, Principle, dfquad_violation_examples
from argfaith.qbaf.semantics import NAMED, GradualSemantics, get_semantics

__all__ = [
    "Verdict",
    "MatrixCell",
    "PrincipleMatrix",
    "principle_matrix",
    "principle_examples",
    "get_principle",
    "principle_names",
]

Verdict = Literal["satisfied", "violated", "violated-at-bounds", "not applicable"]
#: Short marks for tables.
MARKS: dict[str, str] = {"satisfied": "✓", "violated": "✗", "violated-at-bounds": "✗ᵇ", "not applicable": "n/a"}


def principle_names() -> tuple[str, ...]:
    """Names of the principles in :data:`argfaith.qbaf.principles.ALL_PRINCIPLES`, in order."""
    return tuple(p.name for p in ALL_PRINCIPLES)


def get_principle(name: str) -> type[Principle]:
    """The principle class called ``name`` (case-insensitive; ``-``, ``_`` and space alike)."""
    key = name.strip().lower().replace("_", " ").replace("-", " ")
    for p in ALL_PRINCIPLES:
        if p.name.replace("-", " ") == key:
            return p
    raise ValueError(f"unknown principle {name!r}; use one of {', '.join(principle_names())}")


def principle_examples() -> dict[str, QBAF]:
    """Small acyclic corner cases tried before the random search (ids name the roles)."""
    ex = dict(dfquad_violation_examples())
    ex.update(
        {
            "attacked and supported": QBAF.from_arrays(
                [0.5, 0.5, 0.5], attacks=[(1, 0)], supports=[(2, 0)], ids=["x", "a", "s"]
            ),
            "strength-0 supporter": QBAF.from_arrays(
                [0.5, 1.0, 0.0], attacks=[(1, 0)], supports=[(2, 0)], ids=["x", "a", "z"]
            ),
            "certain argument attacked": QBAF.from_arrays([1.0, 0.5], attacks=[(1, 0)], ids=["x", "a"]),
            "void argument supported": QBAF.from_arrays([0.0, 0.5], supports=[(1, 0)], ids=["x", "s"]),
            "chain": QBAF.from_arrays(
                [0.5, 0.4, 0.3, 0.0], attacks=[(1, 0), (3, 0)], supports=[(2, 1)], ids=["x", "a", "s", "z"]
            ),
            "equal base scores": QBAF.from_arrays([0.5, 0.5, 0.4], attacks=[(2, 0)], ids=["x", "y", "a"]),
            "equal attackers, a strength-0 supporter": QBAF.from_arrays(
                [0.5, 0.5, 1.0, 0.0], attacks=[(2, 0), (2, 1)], supports=[(3, 1)], ids=["x", "y", "a", "z"]
            ),
            "two attackers": QBAF.from_arrays([0.5, 0.5, 0.5], attacks=[(1, 0), (2, 0)], ids=["x", "a", "b"]),
        }
    )
    return ex


@dataclass(frozen=True)
class MatrixCell:
    """One semantics × one principle.

    Attributes
    ----------
    verdict : {"satisfied", "violated", "violated-at-bounds", "not applicable"}
    counterexample : Counterexample or None
        The (shrunk) framework on which the principle fails, for the violations.
    interior_counterexample : Counterexample or None
        For ``"violated"``: a counterexample whose base scores all lie in [0.01, 0.99], when the
        first one needed a bound.
    frameworks : int
        Frameworks the principle was checked on (catalogue and search).
    seconds : float
    """

    semantics: str
    principle: str
    verdict: Verdict
    counterexample: Counterexample | None = None
    interior_counterexample: Counterexample | None = None
    frameworks: int = 0
    seconds: float = 0.0

    @property
    def mark(self) -> str:
        return MARKS[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "semantics": self.semantics,
            "principle": self.principle,
            "verdict": self.verdict,
            "frameworks": self.frameworks,
        }
        ce = self.interior_counterexample or self.counterexample
        if ce is not None:
            out["counterexample"] = ce.to_dict()
        return out


@dataclass(frozen=True)
class PrincipleMatrix:
    """The matrix: ``cells[(semantics, principle)]``, plus the settings of the search."""

    semantics: tuple[str, ...]
    principles: tuple[str, ...]
    cells: dict[tuple[str, str], MatrixCell] = field(repr=False)
    examples: int = 100
    max_size: int = 6
    seconds: float = 0.0

    def cell(self, semantics: str, principle: str) -> MatrixCell:
        return self.cells[(semantics, principle)]

    def verdict(self, semantics: str, principle: str) -> Verdict:
        return self.cells[(semantics, principle)].verdict

    def violations(self) -> list[MatrixCell]:
        return [c for c in self.cells.values() if c.verdict in ("violated", "violated-at-bounds")]

    def to_dict(self) -> dict[str, Any]:
        return {
            "semantics": list(self.semantics),
            "principles": list(self.principles),
            "examples": self.examples,
            "max_size": self.max_size,
            "seconds": self.seconds,
            "matrix": {s: {p: self.verdict(s, p) for p in self.principles} for s in self.semantics},
            "cells": [self.cells[(s, p)].to_dict() for s in self.semantics for p in self.principles],
        }


def _fit(q: QBAF, sem: GradualSemantics) -> QBAF | None:
    if sem.attack_only and q.support_array.shape[0]:
        q = QBAF.from_arrays(q.base_scores, q.attack_array, ids=q.ids, name=q.name)
    return q if sem.applies_to(q) else None


def _search(sem: GradualSemantics, principle: Principle, *, examples: int, max_size: int, interior: bool, counter: list[int]) -> QBAF | None:
    from hypothesis import HealthCheck, find, settings
    from hypothesis.errors import NoSuchExample, Unsatisfiable

    from argfaith.qbaf.strategies import acyclic_qbafs, base_scores

    strategy = acyclic_qbafs(max_size=max_size, attack_only=sem.attack_only, scores=base_scores(interior=interior))

    def fails(q: QBAF) -> bool:
        counter[0] += 1
        return not principle.check(sem, q).satisfied

    cfg = settings(
        max_examples=examples, derandomize=True, database=None, deadline=None,
        suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
    )
    try:
        return find(strategy, fails, settings=cfg)
    except (NoSuchExample, Unsatisfiable):
        return None


def _cell(sem: GradualSemantics, principle: Principle, *, examples: int, max_size: int) -> MatrixCell:
    t0 = time.perf_counter()
    if not principle.applies_to_semantics(sem):
        return MatrixCell(sem.name, principle.name, "not applicable", seconds=time.perf_counter() - t0)
    counter = [0]
    found: Counterexample | None = None
    for q in principle_examples().values():
        fq = _fit(q, sem)
        if fq is None:
            continue
        counter[0] += 1
        r = principle.check(sem, fq)
        if not r.satisfied:
            found = r.counterexample
            break
    if found is None:
        q = _search(sem, principle, examples=examples, max_size=max_size, interior=False, counter=counter)
        if q is not None:
            found = principle.check(sem, q).counterexample
    if found is None:
        return MatrixCell(sem.name, principle.name, "satisfied", frameworks=counter[0], seconds=time.perf_counter() - t0)
    interior = None
    if _needs_bound(found):
        q = _search(sem, principle, examples=examples, max_size=max_size, interior=True, counter=counter)
        if q is None:
            return MatrixCell(
                sem.name, principle.name, "violated-at-bounds", found, frameworks=counter[0], seconds=time.perf_counter() - t0
            )
        interior = principle.check(sem, q).counterexample
    return MatrixCell(sem.name, principle.name, "violated", found, interior, frameworks=counter[0], seconds=time.perf_counter() - t0)


def _needs_bound(ce: Counterexample) -> bool:
    bs = ce.qbaf.base_scores
    return bool(((bs < 0.01) | (bs > 0.99)).any())


def principle_matrix(
    semantics: Iterable[str | GradualSemantics] | None = None,
    principles: Iterable[str | type[Principle] | Principle] | None = None,
    *,
    examples: int = 100,
    max_size: int = 6,
    progress: Callable[[int, int, MatrixCell], None] | None = None,
) -> PrincipleMatrix:
    """Decide every (semantics, principle) cell (module docstring).

    Parameters
    ----------
    semantics : iterable of names or GradualSemantics, optional
        Default: every named instance of :data:`argfaith.qbaf.semantics.NAMED`.
    principles : iterable of names, classes or instances, optional
        Default: :data:`argfaith.qbaf.principles.ALL_PRINCIPLES` with default settings.
    examples : int
        Random frameworks per search (the hypothesis ``max_examples``).
    max_size : int
        Largest random framework.
    progress : callable, optional
        ``progress(done, total, cell)`` after each cell.
    """
    if not isinstance(examples, int) or examples < 1:
        raise ValueError(f"examples must be a positive integer, got {examples!r}")
    if not isinstance(max_size, int) or max_size < 1:
        raise ValueError(f"max_size must be a positive integer, got {max_size!r}")
    sems = [get_semantics(s) for s in (semantics if semantics is not None else NAMED.values())]
    ps: list[Principle] = []
    for p in principles if principles is not None else ALL_PRINCIPLES:
        if isinstance(p, str):
            p = get_principle(p)
        ps.append(p() if isinstance(p, type) else p)
    t0 = time.perf_counter()
    cells: dict[tuple[str, str], MatrixCell] = {}
    total = len(sems) * len(ps)
    for s in sems:
        for p in ps:
            c = _cell(s, p, examples=examples, max_size=max_size)
            cells[(s.name, p.name)] = c
            if progress is not None:
                progress(len(cells), total, c)
    return PrincipleMatrix(
        semantics=tuple(s.name for s in sems),
        principles=tuple(p.name for p in ps),
        cells=cells,
        examples=examples,
        max_size=max_size,
        seconds=time.perf_counter() - t0,
    )

