"""Principles (postulates) of gradual semantics as objects you can run against ANY semantics.

A *gradual semantics* here is any callable ``QBAF -> Mapping[id, float]``: every
:class:`~argfaith.qbaf.semantics.GradualSemantics` is one (``NAMED["quadratic-energy"]``), and
:func:`dfquad_semantics` wraps DF-QuAD with solver options. A semantics that declares a domain
(``attack_only``, ``acyclic_only``, ``applies_to``) is only checked inside it: frameworks
outside are "not applicable", and the dynamic principles make no edit that would leave it (no
new supports for an attack-only semantics, no new cycle for a restricted one). A :class:`Principle` has a ``name``, a ``citation``,
:meth:`~Principle.is_applicable` and :meth:`~Principle.check`, which returns a
:class:`PrincipleResult` with a :class:`Counterexample` when the principle fails — the design of
TweetyProject's ``arg.rankings.postulates`` (``isApplicable`` / ``isSatisfied``).

Principles checked (statements as implemented; σ is the semantics, τ the base score,
Att(x)/Sup(x) the attackers/supporters of x, g an aggregation of a multiset of strengths —
by default DF-QuAD's g(V) = 1 − ∏(1 − v)):

==================  ==========================================================================
Stability           Att(x) = Sup(x) = ∅ ⇒ σ(x) = τ(x).
Neutrality          Deleting an edge (y, x) whose source has σ(y) = 0 leaves σ(x) unchanged.
Directionality      Adding an edge (a, b) leaves σ(x) unchanged for every x not reachable from b.
Anonymity           Relabelling/reordering arguments and edges (an isomorphism) maps σ along.
Independence        In a disjoint union Q ⊎ Q', every argument keeps its strength from its part.
Balance             g(σ(Att(x))) = g(σ(Sup(x))) ⇒ σ(x) = τ(x); attackers prevail ⇒ σ(x) < τ(x);
                    supporters prevail ⇒ σ(x) > τ(x) (the strict parts where τ leaves room).
Monotonicity        τ(a) = τ(b), g(Att a) ≤ g(Att b), g(Sup a) ≥ g(Sup b) ⇒ σ(a) ≥ σ(b);
                    strictly when one inequality is strict and 0 < τ < 1.
Resilience          0 < τ(x) < 1 ⇒ 0 < σ(x) < 1.
Franklin            Adding to x one attacker and one supporter of equal strength leaves σ(x) unchanged.
Strict counting     Adding an attacker of positive strength strictly lowers σ(x) when σ(x) > 0;
                    adding a supporter of positive strength strictly raises σ(x) when σ(x) < 1.
Equivalence         τ(a) = τ(b) and strength-preserving bijections Att(a) → Att(b), Sup(a) → Sup(b)
                    ⇒ σ(a) = σ(b).
Duality             An argument x' with τ(x') = 1 − τ(x) whose attackers are x's supporters and
                    whose supporters are x's attackers has σ(x') = 1 − σ(x).
Open-mindedness     Enough new attackers (supporters) of base score 1 bring σ(x) within ε of 0 (1).
==================  ==========================================================================

Sources: Amgoud & Ben-Naim, "Weighted bipolar argumentation graphs: axioms and semantics"
(IJCAI 2018) and "Evaluation of arguments in weighted bipolar graphs" (IJAR 2018) for
stability, neutrality, directionality, anonymity, independence, resilience, Franklin and
counting; Baroni, Rago & Toni, "From fine-grained properties to broad principles for gradual
argumentation: a principled spectrum" (IJAR 2019) for balance and monotonicity, whose
comparison of attacker/supporter multisets is a parameter (here the aggregation ``g``, by
default the semantics' own polarity aggregate, else DF-QuAD's); Amgoud & Ben-Naim 2018 for
(bi-variate) equivalence; Potyka, "Continuous dynamical systems for weighted bipolar
argumentation" (KR 2018) for duality and "Extending modular semantics for bipolar weighted
argumentation" (AAMAS 2019) for open-mindedness. DF-QuAD satisfies the first seven on acyclic
QBAFs and violates resilience, Franklin and strict counting; see
:func:`dfquad_violation_examples` for explicit frameworks, and :mod:`argfaith.qbaf.matrix` for
every named semantics × every principle.

Neutrality, Franklin, strict counting, duality and open-mindedness are checked in their
*dynamic* form (edit the framework, compare the strengths before and after), which is how a
property test can exercise them on random frameworks. Open-mindedness quantifies over every
ε > 0; the check fixes ε (default 0.01) and tries up to ``max_new`` (default 1024) new
arguments, doubling their number — "violated" means no such number reached ε.

Numerical policy: two reals are equal when they differ by at most ``atol`` (default 1e-6). A
strict inequality is demanded only when its premise holds with a margin larger than ``atol``
(aggregates differing by more than ``atol``, τ farther than ``atol`` from 0 or 1); the strict
inequality itself is then compared exactly. Rounding noise is so never mistaken for a violation.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from argfaith.qbaf.framework import QBAF
from argfaith.qbaf.gradual import gradual_strengths
from argfaith.qbaf.semantics import GradualSemantics

__all__ = [
    "Semantics",
    "Counterexample",
    "PrincipleResult",
    "Principle",
    "Stability",
    "Neutrality",
    "Directionality",
    "Anonymity",
    "Independence",
    "Balance",
    "Monotonicity",
    "Resilience",
    "Franklin",
    "StrictCounting",
    "Equivalence",
    "Duality",
    "OpenMindedness",
    "DFQUAD_SATISFIED",
    "DFQUAD_VIOLATED",
    "ALL_PRINCIPLES",
    "dfquad_semantics",
    "product_aggregation",
    "check_principles",
    "dfquad_violation_examples",
]

#: A gradual semantics: QBAF → {argument id: strength}.
Semantics = Callable[[QBAF], Mapping[str, float]]


def product_aggregation(values: Sequence[float]) -> float:
    """DF-QuAD's aggregation g(v1..vn) = 1 − ∏(1 − vi), g(()) = 0 (PAPER.md §2)."""
    prod = 1.0
    for v in values:
        prod *= 1.0 - v
    return 1.0 - prod


def dfquad_semantics(method: str = "sync", **options: Any) -> Semantics:
    """DF-QuAD (:func:`argfaith.qbaf.dfquad_strengths`) as a ``QBAF -> {id: σ}`` callable."""
    from argfaith.qbaf.dfquad import dfquad_strengths

    def semantics(q: QBAF) -> dict[str, float]:
        return dfquad_strengths(q, method=method, **options).as_dict()  # type: ignore[arg-type]

    semantics.__name__ = f"dfquad_{method}"
    return semantics


@dataclass(frozen=True)
class Counterexample:
    """Why a principle failed: the framework(s), the arguments involved and their strengths."""

    description: str
    qbaf: QBAF = field(repr=False)
    arguments: tuple[str, ...]
    strengths: Mapping[str, float] = field(repr=False)
    modified: QBAF | None = field(default=None, repr=False)
    modified_strengths: Mapping[str, float] | None = field(default=None, repr=False)

    def __str__(self) -> str:
        return self.description

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the description, the framework(s) in the interchange format and strengths."""
        from argfaith.qbaf.io import qbaf_to_dict

        out: dict[str, Any] = {
            "description": self.description,
            "arguments": list(self.arguments),
            "qbaf": _compact(qbaf_to_dict(self.qbaf)),
            "strengths": {k: float(v) for k, v in self.strengths.items()},
        }
        if self.modified is not None and self.modified.n <= 64:  # an open-mindedness edit adds up to 1024
            out["modified_qbaf"] = _compact(qbaf_to_dict(self.modified))
            out["modified_strengths"] = {k: float(v) for k, v in (self.modified_strengths or {}).items()}
        elif self.modified is not None:
            out["modified_qbaf"] = {"n_arguments": self.modified.n, "n_edges": self.modified.n_edges}
        return out


def _compact(d: dict[str, Any]) -> dict[str, Any]:
    return {
        "base_scores": {a["id"]: a["base_score"] for a in d["arguments"]},
        "attacks": d["attacks"],
        "supports": d["supports"],
    }


@dataclass(frozen=True)
class PrincipleResult:
    """Outcome of :meth:`Principle.check` on one framework.

    ``satisfied`` is True when no instance of the principle failed (vacuously so when the
    principle is not applicable or had no instance: see ``applicable`` and ``cases``).
    """

    principle: str
    satisfied: bool
    applicable: bool = True
    cases: int = 0
    counterexample: Counterexample | None = None

    def __bool__(self) -> bool:
        return self.satisfied


# ------------------------------------------------------------------------- framework edits
def _fresh_id(q: QBAF, stem: str, taken: set[str] | None = None) -> str:
    taken = taken or set()
    k = 0
    while f"{stem}{k}" in q.index or f"{stem}{k}" in taken:
        k += 1
    return f"{stem}{k}"


def _build(
    q: QBAF,
    ids: Sequence[str],
    is_proposal: Sequence[bool],
    tau: Sequence[float],
    attacks: Iterable[tuple[int, int]],
    supports: Iterable[tuple[int, int]],
) -> QBAF:
    return QBAF(
        list(ids),
        np.asarray(is_proposal, dtype=np.bool_),
        np.asarray(tau, dtype=np.float64),
        np.asarray(list(attacks), dtype=np.int64).reshape(-1, 2),
        np.asarray(list(supports), dtype=np.int64).reshape(-1, 2),
        tau=q.tau,
        debate=q.debate,
        name=q.name,
    )


def _edges(q: QBAF) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    return [tuple(e) for e in q.attack_array.tolist()], [tuple(e) for e in q.support_array.tolist()]  # type: ignore[misc]


def with_new_sources(q: QBAF, target: str, new: Sequence[tuple[str, float]]) -> tuple[QBAF, list[str]]:
    """``q`` plus fresh unattacked speech arguments, each attacking ("attack") or supporting
    ("support") ``target`` with the given base score: ``new = [(relation, τ), ...]``."""
    att, sup = _edges(q)
    ids, prop, tau = list(q.ids), q.is_proposal.tolist(), q.base_scores.tolist()
    t = q.idx(target)
    added: list[str] = []
    k = 0
    for rel, score in new:
        while f"_new{k}" in q.index:
            k += 1
        nid = f"_new{k}"
        k += 1
        added.append(nid)
        ids.append(nid)
        prop.append(False)
        tau.append(score)
        (att if rel == "attack" else sup).append((len(ids) - 1, t))
    return _build(q, ids, prop, tau, att, sup), added


def without_edge(q: QBAF, source: int, target: int) -> QBAF:
    """``q`` without the edge (source, target) (whichever relation holds it)."""
    att, sup = _edges(q)
    return _build(
        q, q.ids, q.is_proposal.tolist(), q.base_scores.tolist(),
        [e for e in att if e != (source, target)], [e for e in sup if e != (source, target)],
    )


def with_edge(q: QBAF, source: int, target: int, relation: str) -> QBAF:
    """``q`` plus the edge (source, target) in ``relation`` ("attack" | "support")."""
    att, sup = _edges(q)
    (att if relation == "attack" else sup).append((source, target))
    return _build(q, q.ids, q.is_proposal.tolist(), q.base_scores.tolist(), att, sup)


def relabelled(q: QBAF, order: Sequence[int], prefix: str = "r", edge_seed: int = 0) -> tuple[QBAF, dict[str, str]]:
    """An isomorphic copy: argument ``order[i]`` of ``q`` becomes argument ``i`` with id
    ``f"{prefix}{i}"``; edges are listed in a shuffled order. Returns the copy and the id map."""
    new_pos = {old: i for i, old in enumerate(order)}
    ids = [f"{prefix}{i}" for i in range(q.n)]
    mapping = {q.ids[old]: ids[i] for i, old in enumerate(order)}
    rng = random.Random(edge_seed)
    att, sup = _edges(q)
    att = [(new_pos[s], new_pos[t]) for s, t in att]
    sup = [(new_pos[s], new_pos[t]) for s, t in sup]
    rng.shuffle(att)
    rng.shuffle(sup)
    prop = [bool(q.is_proposal[old]) for old in order]
    tau = [float(q.base_scores[old]) for old in order]
    return _build(q, ids, prop, tau, att, sup), mapping


def disjoint_union(q1: QBAF, q2: QBAF, prefixes: tuple[str, str] = ("L:", "R:")) -> QBAF:
    """Q1 ⊎ Q2 with ids prefixed to keep them apart (``"L:x"``, ``"R:x"``)."""
    att1, sup1 = _edges(q1)
    att2, sup2 = _edges(q2)
    k = q1.n
    ids = [prefixes[0] + a for a in q1.ids] + [prefixes[1] + a for a in q2.ids]
    return QBAF(
        ids,
        np.concatenate([q1.is_proposal, q2.is_proposal]),
        np.concatenate([q1.base_scores, q2.base_scores]),
        np.asarray(att1 + [(s + k, t + k) for s, t in att2], dtype=np.int64).reshape(-1, 2),
        np.asarray(sup1 + [(s + k, t + k) for s, t in sup2], dtype=np.int64).reshape(-1, 2),
        tau=q1.tau,
        debate=q1.debate and q2.debate,
    )


def _reachable_from(q: QBAF, start: int) -> set[int]:
    optr, odst, _ = q.out_csr
    seen = {start}
    todo = [start]
    while todo:
        v = todo.pop()
        for w in odst[optr[v] : optr[v + 1]].tolist():
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def _incoming(q: QBAF, sigma: Mapping[str, float], x: int) -> tuple[list[float], list[float]]:
    ptr, src, att = q.in_csr
    ids = q.ids
    a, s = [], []
    for u, is_a in zip(src[ptr[x] : ptr[x + 1]].tolist(), att[ptr[x] : ptr[x + 1]].tolist()):
        (a if is_a else s).append(sigma[ids[u]])
    return a, s


# ---------------------------------------------------------------------------------- base class
class Principle(ABC):
    """A property of gradual semantics, checkable on one framework at a time.

    Parameters
    ----------
    atol : float
        Tolerance of the numerical policy (module docstring).
    acyclic_only : bool, optional
        Restrict :meth:`is_applicable` to acyclic frameworks (the setting of the cited papers;
        the default depends on the principle).
    max_cases : int
        Upper bound on the number of framework edits a dynamic principle tries (a seeded random
        sample is taken beyond it).
    seed : int
        Seed for that sample and for relabellings.
    """

    #: Short name, as in the literature.
    name: ClassVar[str] = ""
    #: Where the principle comes from.
    citation: ClassVar[str] = ""
    #: Default of ``acyclic_only``.
    default_acyclic_only: ClassVar[bool] = True

    def __init__(self, *, atol: float = 1e-6, acyclic_only: bool | None = None, max_cases: int = 200, seed: int = 0) -> None:
        self.atol = float(atol)
        self.acyclic_only = self.default_acyclic_only if acyclic_only is None else bool(acyclic_only)
        self.max_cases = int(max_cases)
        self.seed = int(seed)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(atol={self.atol:g}, acyclic_only={self.acyclic_only})"

    def is_applicable(self, qbaf: QBAF) -> bool:
        """Whether the principle says anything about ``qbaf`` (acyclicity when required)."""
        return not self.acyclic_only or qbaf.is_acyclic()

    def applies_to_semantics(self, semantics: Semantics) -> bool:
        """Whether the principle can be stated inside the semantics' domain (a principle that
        adds supporters says nothing about an attack-only semantics)."""
        return True

    def check(self, semantics: Semantics | GradualSemantics, qbaf: QBAF) -> PrincipleResult:
        """Check every instance of the principle in ``qbaf``; stop at the first failure."""
        if not self.is_applicable(qbaf) or not self.applies_to_semantics(semantics) or not _applies(semantics, qbaf):
            return PrincipleResult(self.name, True, applicable=False)
        sigma = _evaluate(semantics, qbaf)
        cases = 0
        for cases, failure in enumerate(self._instances(semantics, qbaf, sigma), start=1):
            if failure is not None:
                return PrincipleResult(self.name, False, cases=cases, counterexample=failure)
        return PrincipleResult(self.name, True, cases=cases)

    @abstractmethod
    def _instances(self, semantics: Semantics, q: QBAF, sigma: Mapping[str, float]) -> Iterable[Counterexample | None]:
        """Yield one item per instance checked: None if it holds, a Counterexample if not."""

    # helpers --------------------------------------------------------------------------------
    def _eq(self, a: float, b: float) -> bool:
        return abs(a - b) <= self.atol

    def _sample(self, items: list[Any]) -> list[Any]:
        if len(items) <= self.max_cases:
            return items
        return random.Random(self.seed).sample(items, self.max_cases)


def _attack_only(semantics: Semantics) -> bool:
    return bool(getattr(semantics, "attack_only", False))


def _acyclic_only(semantics: Semantics) -> bool:
    return bool(getattr(semantics, "acyclic_only", False))


def _applies(semantics: Semantics, q: QBAF) -> bool:
    f = getattr(semantics, "applies_to", None)
    return True if f is None else bool(f(q))


def _own_aggregate(semantics: Semantics) -> Callable[[Sequence[float]], float]:
    """The semantics' polarity aggregate g (GradualSemantics), else DF-QuAD's 1 − ∏(1 − v)."""
    return getattr(semantics, "polarity_aggregate", product_aggregation)


def _evaluate(semantics: Semantics | GradualSemantics, q: QBAF) -> Mapping[str, float]:
    if isinstance(semantics, GradualSemantics):
        out: Mapping[str, float] = gradual_strengths(q, semantics).as_dict()
    else:
        out = semantics(q)
    missing = [a for a in q.ids if a not in out]
    if missing:
        raise ValueError(f"the semantics returned no strength for argument {missing[0]!r}")
    return MappingProxyType({a: float(out[a]) for a in q.ids})


# ------------------------------------------------------------------------ satisfied by DF-QuAD
class Stability(Principle):
    """Att(x) = Sup(x) = ∅ ⇒ σ(x) = τ(x)."""

    name = "stability"
    citation = "Amgoud & Ben-Naim, IJCAI 2018 / IJAR 2018 (Stability)"
    default_acyclic_only = False

    def _instances(self, semantics, q, sigma):
        ptr, _, _ = q.in_csr
        for x in np.flatnonzero(np.diff(ptr) == 0).tolist():
            a, t = q.ids[x], float(q.base_scores[x])
            ok = self._eq(sigma[a], t)
            yield None if ok else Counterexample(
                f"{a!r} has no attackers or supporters but σ = {sigma[a]:.6g} ≠ τ = {t:.6g}", q, (a,), sigma
            )


class Neutrality(Principle):
    """Deleting an edge (y, x) with σ(y) = 0 leaves σ(x) unchanged."""

    name = "neutrality"
    citation = "Amgoud & Ben-Naim, IJCAI 2018 / IJAR 2018 (Neutrality), dynamic form"

    def _instances(self, semantics, q, sigma):
        ids = q.ids
        edges = [(s, t) for s, t in q.attack_array.tolist() + q.support_array.tolist() if sigma[ids[s]] == 0.0]
        for s, t in self._sample(edges):
            q2 = without_edge(q, s, t)
            s2 = _evaluate(semantics, q2)
            ok = self._eq(s2[ids[t]], sigma[ids[t]])
            yield None if ok else Counterexample(
                f"removing the edge {ids[s]!r} -> {ids[t]!r} from a source of strength 0 changes σ({ids[t]!r}) "
                f"from {sigma[ids[t]]:.6g} to {s2[ids[t]]:.6g}",
                q, (ids[s], ids[t]), sigma, q2, s2,
            )


class Directionality(Principle):
    """Adding an edge (a, b) leaves σ(x) unchanged for every x not reachable from b."""

    name = "directionality"
    citation = "Amgoud & Ben-Naim, IJCAI 2018 / IJAR 2018 (Bi-variate Directionality); Baroni, Rago & Toni 2019"
    default_acyclic_only = False

    def _instances(self, semantics, q, sigma):
        ids = q.ids
        present = set(map(tuple, q.attack_array.tolist() + q.support_array.tolist()))
        reach = {b: _reachable_from(q, b) for b in range(q.n)}
        cands = []
        for a in range(q.n):
            for b in range(q.n):
                if (a, b) in present:
                    continue
                if (self.acyclic_only or _acyclic_only(semantics)) and a in reach[b]:
                    continue  # would create a cycle
                if q.debate and q.is_proposal[a]:
                    continue  # a debate QBAF has no edge leaving a proposal
                cands += [(a, b, "attack")] if _attack_only(semantics) else [(a, b, "attack"), (a, b, "support")]
        for a, b, rel in self._sample(cands):
            q2 = with_edge(q, a, b, rel)
            s2 = _evaluate(semantics, q2)
            unaffected = [x for x in range(q.n) if x not in _reachable_from(q2, b)]
            bad = [x for x in unaffected if not self._eq(s2[ids[x]], sigma[ids[x]])]
            yield None if not bad else Counterexample(
                f"adding the {rel} {ids[a]!r} -> {ids[b]!r} changes σ({ids[bad[0]]!r}) from {sigma[ids[bad[0]]]:.6g} "
                f"to {s2[ids[bad[0]]]:.6g}, although {ids[bad[0]]!r} is not reachable from {ids[b]!r}",
                q, (ids[a], ids[b], ids[bad[0]]), sigma, q2, s2,
            )


class Anonymity(Principle):
    """Strengths are invariant under isomorphism (relabelling ids, reordering arguments and edges)."""

    name = "anonymity"
    citation = "Amgoud & Ben-Naim, IJCAI 2018 / IJAR 2018 (Anonymity)"
    default_acyclic_only = False

    def __init__(self, *, relabellings: int = 3, **kw: Any) -> None:
        super().__init__(**kw)
        self.relabellings = int(relabellings)

    def _instances(self, semantics, q, sigma):
        rng = random.Random(self.seed)
        orders = [list(range(q.n))[::-1]]
        for _ in range(max(0, self.relabellings - 1)):
            o = list(range(q.n))
            rng.shuffle(o)
            orders.append(o)
        for i, order in enumerate(orders):
            q2, mapping = relabelled(q, order, edge_seed=self.seed + i)
            s2 = _evaluate(semantics, q2)
            bad = [a for a in q.ids if not self._eq(s2[mapping[a]], sigma[a])]
            yield None if not bad else Counterexample(
                f"after relabelling, {bad[0]!r} (now {mapping[bad[0]]!r}) has σ = {s2[mapping[bad[0]]]:.6g} "
                f"instead of {sigma[bad[0]]:.6g}",
                q, (bad[0],), sigma, q2, s2,
            )


class Independence(Principle):
    """In a disjoint union Q ⊎ Q', every argument keeps the strength it has in its own part."""

    name = "independence"
    citation = "Amgoud & Ben-Naim, IJCAI 2018 / IJAR 2018 (Bi-variate Independence)"
    default_acyclic_only = False

    def __init__(self, *, other: QBAF | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.other = other

    def _instances(self, semantics, q, sigma):
        others = [self.other] if self.other is not None else [q, QBAF.from_arrays([0.5, 0.5], attacks=[(0, 1)])]
        for other in others:
            s_other = _evaluate(semantics, other)
            u = disjoint_union(q, other)
            su = _evaluate(semantics, u)
            bad = [("L:" + a, sigma[a]) for a in q.ids if not self._eq(su["L:" + a], sigma[a])]
            bad += [("R:" + a, s_other[a]) for a in other.ids if not self._eq(su["R:" + a], s_other[a])]
            yield None if not bad else Counterexample(
                f"in the disjoint union with a {other.n}-argument framework, {bad[0][0][2:]!r} (there {bad[0][0]!r}) "
                f"has σ = {su[bad[0][0]]:.6g} instead of {bad[0][1]:.6g}",
                q, (bad[0][0][2:],), sigma, u, su,
            )


class Balance(Principle):
    """Baroni, Rago & Toni's Balance, with attackers and supporters compared through ``aggregate``
    (default: the semantics' own polarity aggregate g, DF-QuAD's for a plain callable).

    For every x with g_A = g(σ(Att(x))) and g_S = g(σ(Sup(x))):
    g_A = g_S ⇒ σ(x) = τ(x); g_A > g_S ⇒ σ(x) ≤ τ(x), strictly if τ(x) > 0;
    g_A < g_S ⇒ σ(x) ≥ τ(x), strictly if τ(x) < 1 (``strict=False`` drops the strict parts).
    """

    name = "balance"
    citation = "Baroni, Rago & Toni, IJAR 2019 (Balance; strict balance with strict=True)"

    def __init__(self, *, aggregate: Callable[[Sequence[float]], float] | None = None, strict: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.aggregate = aggregate
        self.strict = strict

    def _instances(self, semantics, q, sigma):
        g = self.aggregate or _own_aggregate(semantics)
        for x, a in enumerate(q.ids):
            att, sup = _incoming(q, sigma, x)
            ga, gs = g(att), g(sup)
            t, s = float(q.base_scores[x]), sigma[a]
            why = None
            if self._eq(ga, gs):
                if not self._eq(s, t):
                    why = f"attackers and supporters balance (g = {ga:.6g}) but σ = {s:.6g} ≠ τ = {t:.6g}"
            elif ga > gs:
                if s > t + self.atol:
                    why = f"attackers prevail ({ga:.6g} > {gs:.6g}) but σ = {s:.6g} > τ = {t:.6g}"
                elif self.strict and ga - gs > self.atol and t > self.atol and not s < t:
                    why = f"attackers prevail ({ga:.6g} > {gs:.6g}) but σ = {s:.6g} is not below τ = {t:.6g}"
            else:
                if s < t - self.atol:
                    why = f"supporters prevail ({gs:.6g} > {ga:.6g}) but σ = {s:.6g} < τ = {t:.6g}"
                elif self.strict and gs - ga > self.atol and t < 1 - self.atol and not s > t:
                    why = f"supporters prevail ({gs:.6g} > {ga:.6g}) but σ = {s:.6g} is not above τ = {t:.6g}"
            yield None if why is None else Counterexample(f"{a!r}: {why}", q, (a,), sigma)


class Monotonicity(Principle):
    """Baroni, Rago & Toni's Monotonicity over pairs of arguments with equal base scores
    (``aggregate`` as in :class:`Balance`).

    τ(a) = τ(b), g(σ(Att(a))) ≤ g(σ(Att(b))) and g(σ(Sup(a))) ≥ g(σ(Sup(b))) ⇒ σ(a) ≥ σ(b);
    with ``strict=True`` also σ(a) > σ(b) when one of the two comparisons is strict and
    0 < τ < 1.
    """

    name = "monotonicity"
    citation = "Baroni, Rago & Toni, IJAR 2019 (Monotonicity; strict monotonicity with strict=True)"

    def __init__(self, *, aggregate: Callable[[Sequence[float]], float] | None = None, strict: bool = True, **kw: Any) -> None:
        super().__init__(**kw)
        self.aggregate = aggregate
        self.strict = strict

    def _instances(self, semantics, q, sigma):
        ids = q.ids
        agg = self.aggregate or _own_aggregate(semantics)
        g = []
        for x in range(q.n):
            att, sup = _incoming(q, sigma, x)
            g.append((agg(att), agg(sup)))
        tau = q.base_scores.tolist()
        for a in range(q.n):
            for b in range(q.n):
                if a == b or tau[a] != tau[b]:
                    continue
                (ga_a, gs_a), (ga_b, gs_b) = g[a], g[b]
                if not (ga_a <= ga_b and gs_a >= gs_b):
                    continue  # premises compared exactly: borderline pairs are not instances
                sa, sb = sigma[ids[a]], sigma[ids[b]]
                why = None
                if sa < sb - self.atol:
                    why = f"σ({ids[a]!r}) = {sa:.6g} < σ({ids[b]!r}) = {sb:.6g}"
                elif (
                    self.strict
                    and (ga_b - ga_a > self.atol or gs_a - gs_b > self.atol)
                    and self.atol < tau[a] < 1 - self.atol
                    and not sa > sb
                ):
                    why = f"σ({ids[a]!r}) = {sa:.6g} is not above σ({ids[b]!r}) = {sb:.6g}"
                yield None if why is None else Counterexample(
                    f"{ids[a]!r} and {ids[b]!r} have τ = {tau[a]:.6g}; {ids[a]!r} has weaker attackers "
                    f"({ga_a:.6g} ≤ {ga_b:.6g}) and stronger supporters ({gs_a:.6g} ≥ {gs_b:.6g}), but {why}",
                    q, (ids[a], ids[b]), sigma,
                )


# ------------------------------------------------------------------------- violated by DF-QuAD
class Resilience(Principle):
    """0 < τ(x) < 1 ⇒ 0 < σ(x) < 1: no argument is completely defeated or made certain.

    The premise is read with the module's margin (atol < τ < 1 − atol): a base score of 1e-300
    can underflow to a strength of 0 in floating point however resilient the semantics is."""

    name = "resilience"
    citation = "Amgoud & Ben-Naim, IJCAI 2018 / IJAR 2018 (Resilience)"

    def _instances(self, semantics, q, sigma):
        for x, a in enumerate(q.ids):
            t, s = float(q.base_scores[x]), sigma[a]
            if self.atol < t < 1.0 - self.atol:  # premise with a margin (numerical policy)
                yield None if 0.0 < s < 1.0 else Counterexample(
                    f"{a!r} has τ = {t:.6g} in (0, 1) but σ = {s:.6g}", q, (a,), sigma
                )


class Franklin(Principle):
    """Adding to x one new attacker and one new supporter of equal strength leaves σ(x) unchanged."""

    name = "franklin"
    citation = "Amgoud & Ben-Naim, IJCAI 2018 / IJAR 2018 (Franklin), dynamic form"

    def __init__(self, *, strength: float = 0.5, **kw: Any) -> None:
        super().__init__(**kw)
        self.strength = float(strength)

    def applies_to_semantics(self, semantics: Semantics) -> bool:
        return not _attack_only(semantics)

    def _instances(self, semantics, q, sigma):
        for a in self._sample(list(q.ids)):
            q2, (x, y) = with_new_sources(q, a, [("attack", self.strength), ("support", self.strength)])
            s2 = _evaluate(semantics, q2)
            if not self._eq(s2[x], s2[y]):
                continue  # the semantics gave the two new arguments different strengths: no instance
            yield None if self._eq(s2[a], sigma[a]) else Counterexample(
                f"adding an attacker and a supporter of equal strength {s2[x]:.6g} to {a!r} changes its "
                f"strength from {sigma[a]:.6g} to {s2[a]:.6g}",
                q, (a,), sigma, q2, s2,
            )


class StrictCounting(Principle):
    """Every new attacker of positive strength strictly lowers σ(x) when σ(x) > 0; every new
    supporter of positive strength strictly raises σ(x) when σ(x) < 1 (premises read with the
    module's margin ``atol``)."""

    name = "strict counting"
    citation = "Amgoud & Ben-Naim, IJCAI 2018 / IJAR 2018 (Counting, strict bipolar form), dynamic form"

    def __init__(self, *, strength: float = 0.5, **kw: Any) -> None:
        super().__init__(**kw)
        self.strength = float(strength)

    def _instances(self, semantics, q, sigma):
        rels = ("attack",) if _attack_only(semantics) else ("attack", "support")
        for a in self._sample(list(q.ids)):
            for rel in rels:
                # premises with the module's margin: a strength of 5e-324 cannot visibly drop
                if (rel == "attack" and not sigma[a] > self.atol) or (rel == "support" and not sigma[a] < 1.0 - self.atol):
                    continue
                q2, (x,) = with_new_sources(q, a, [(rel, self.strength)])
                s2 = _evaluate(semantics, q2)
                if not s2[x] > self.atol:
                    continue
                ok = s2[a] < sigma[a] if rel == "attack" else s2[a] > sigma[a]
                yield None if ok else Counterexample(
                    f"adding a{'n' if rel == 'attack' else ''} {rel}er of strength {s2[x]:.6g} to {a!r} leaves its "
                    f"strength at {s2[a]:.6g} (was {sigma[a]:.6g})",
                    q, (a,), sigma, q2, s2,
                )


# ------------------------------------------------------------------------ further principles
class Equivalence(Principle):
    """Amgoud & Ben-Naim's (bi-variate) Equivalence: τ(a) = τ(b), and the attackers of a and of
    b, and their supporters, have the same multisets of strengths ⇒ σ(a) = σ(b).

    The bijections of the definition exist iff the sorted strength lists match (within ``atol``)."""

    name = "equivalence"
    citation = "Amgoud & Ben-Naim, IJCAI 2018 / IJAR 2018 (Bi-variate Equivalence)"

    def _instances(self, semantics, q, sigma):
        ids = q.ids
        tau = q.base_scores.tolist()
        profile = []
        for x in range(q.n):
            att, sup = _incoming(q, sigma, x)
            profile.append((sorted(att), sorted(sup)))
        for a in range(q.n):
            for b in range(a + 1, q.n):
                if tau[a] != tau[b]:
                    continue
                (aa, sa), (ab, sb) = profile[a], profile[b]
                if len(aa) != len(ab) or len(sa) != len(sb):
                    continue
                if not all(self._eq(u, v) for u, v in zip(aa + sa, ab + sb)):
                    continue
                ok = self._eq(sigma[ids[a]], sigma[ids[b]])
                yield None if ok else Counterexample(
                    f"{ids[a]!r} and {ids[b]!r} have τ = {tau[a]:.6g} and attackers / supporters of equal strengths "
                    f"({_fmt(aa)} / {_fmt(sa)}) but σ = {sigma[ids[a]]:.6g} and {sigma[ids[b]]:.6g}",
                    q, (ids[a], ids[b]), sigma,
                )


def _fmt(vals: Sequence[float]) -> str:
    return "[" + ", ".join(f"{v:.6g}" for v in vals) + "]"


def with_mirror(q: QBAF, target: str) -> tuple[QBAF, str]:
    """``q`` plus a fresh argument x' with τ(x') = 1 − τ(x) whose attackers are the supporters of
    x = ``target`` and whose supporters are its attackers (Duality's dual of x)."""
    att, sup = _edges(q)
    ids, prop, tau = list(q.ids), q.is_proposal.tolist(), q.base_scores.tolist()
    t = q.idx(target)
    nid = _fresh_id(q, "_dual")
    ids.append(nid)
    prop.append(False)
    tau.append(1.0 - tau[t])
    m = len(ids) - 1
    new_att = [(s, m) for s, v in sup if v == t]
    new_sup = [(s, m) for s, v in att if v == t]
    return _build(q, ids, prop, tau, att + new_att, sup + new_sup), nid


class Duality(Principle):
    """Potyka's Duality: attack and support act symmetrically. For each x, a fresh x' is added
    with τ(x') = 1 − τ(x), attacked by x's supporters and supported by x's attackers (nothing
    else changes: x' has no outgoing edge); then σ(x') = 1 − σ(x) must hold."""

    name = "duality"
    citation = "Potyka, KR 2018 (Duality); Potyka, AAMAS 2019 (in the modular framework), dynamic form"

    def applies_to_semantics(self, semantics: Semantics) -> bool:
        return not _attack_only(semantics)

    def _instances(self, semantics, q, sigma):
        for a in self._sample(list(q.ids)):
            q2, d = with_mirror(q, a)
            s2 = _evaluate(semantics, q2)
            ok = self._eq(s2[d], 1.0 - s2[a])
            yield None if ok else Counterexample(
                f"{a!r} (τ = {q.base_score(a):.6g}) has σ = {s2[a]:.6g}, but its dual (τ = {1 - q.base_score(a):.6g}, "
                f"attackers and supporters swapped) has σ = {s2[d]:.6g} ≠ 1 − {s2[a]:.6g}",
                q, (a,), sigma, q2, s2,
            )


class OpenMindedness(Principle):
    """Potyka's Open-mindedness: adding enough fresh attackers (supporters) of base score 1 to x
    brings σ(x) within ``epsilon`` of 0 (of 1). Tries 1, 2, 4, … up to ``max_new`` new arguments
    (module docstring: a bounded form of "for every ε there is an N")."""

    name = "open-mindedness"
    citation = "Potyka, AAMAS 2019 (Open-Mindedness), dynamic bounded form"

    def __init__(self, *, epsilon: float = 0.01, max_new: int = 1024, **kw: Any) -> None:
        super().__init__(**kw)
        self.epsilon = float(epsilon)
        self.max_new = int(max_new)

    def _instances(self, semantics, q, sigma):
        rels = ("attack",) if _attack_only(semantics) else ("attack", "support")
        for a in self._sample(list(q.ids)):
            for rel in rels:
                goal = (lambda v: v <= self.epsilon) if rel == "attack" else (lambda v: v >= 1.0 - self.epsilon)
                k, reached, last = 1, False, sigma[a]
                q2, s2 = q, sigma
                while k <= self.max_new:
                    q2, _ = with_new_sources(q, a, [(rel, 1.0)] * k)
                    s2 = _evaluate(semantics, q2)
                    last = s2[a]
                    if goal(last):
                        reached = True
                        break
                    k *= 2
                yield None if reached else Counterexample(
                    f"{self.max_new} new {rel}ers of base score 1 leave {a!r} (τ = {q.base_score(a):.6g}) at σ = {last:.6g}, "
                    f"not within ε = {self.epsilon:g} of {0 if rel == 'attack' else 1}",
                    q, (a,), sigma, q2, s2,
                )


#: Principles DF-QuAD satisfies on acyclic QBAFs (property-tested in tests/qbaf/test_principles.py).
DFQUAD_SATISFIED: tuple[type[Principle], ...] = (
    Stability, Neutrality, Directionality, Anonymity, Independence, Balance, Monotonicity, Equivalence, Duality,
)
#: Principles DF-QuAD violates (see :func:`dfquad_violation_examples`).
DFQUAD_VIOLATED: tuple[type[Principle], ...] = (Resilience, Franklin, StrictCounting, OpenMindedness)
ALL_PRINCIPLES: tuple[type[Principle], ...] = (
    Stability, Neutrality, Directionality, Anonymity, Independence, Equivalence, Balance, Monotonicity,
    Resilience, Franklin, StrictCounting, Duality, OpenMindedness,
)


def check_principles(
    semantics: Semantics, qbaf: QBAF, principles: Iterable[Principle | type[Principle]] = ALL_PRINCIPLES
) -> dict[str, PrincipleResult]:
    """Run several principles (instances or classes, instantiated with defaults) on one framework."""
    out: dict[str, PrincipleResult] = {}
    for p in principles:
        inst = p() if isinstance(p, type) else p
        out[inst.name] = inst.check(semantics, qbaf)
    return out


def dfquad_violation_examples() -> dict[str, QBAF]:
    """Small acyclic QBAFs on which DF-QuAD violates resilience, Franklin, strict counting and
    open-mindedness.

    * resilience: ``a`` (τ = 1) attacks ``x`` (τ = 0.5); c(0.5, 1, 0) = 0, so σ(x) = 0.
    * franklin: ``b`` (τ = 0.5) attacks ``x`` (τ = 0.5), σ(x) = 0.25; a new attacker and a new
      supporter of strength 0.5 give F_att = 0.75, F_sup = 0.5 and σ(x) = 0.375.
    * strict counting: ``a`` attacks and ``s`` supports ``x``, all τ = 1 for a and s: both
      aggregates are saturated at 1, σ(x) = τ(x) = 0.5, and a further attacker of strength 0.5
      leaves F_att = 1, so σ(x) stays 0.5.
    * open-mindedness: ``s`` (τ = 1) supports ``x`` (τ = 0.5): F_sup = 1, so however many
      attackers are added, F_att ≤ F_sup and σ(x) never drops below 0.5.
    """
    return {
        "resilience": QBAF.from_arrays([0.5, 1.0], attacks=[(1, 0)], ids=["x", "a"], name="resilience"),
        "franklin": QBAF.from_arrays([0.5, 0.5], attacks=[(1, 0)], ids=["x", "b"], name="franklin"),
        "strict counting": QBAF.from_arrays(
            [0.5, 1.0, 1.0], attacks=[(1, 0)], supports=[(2, 0)], ids=["x", "a", "s"], name="strict counting"
        ),
        "open-mindedness": QBAF.from_arrays([0.5, 1.0], supports=[(1, 0)], ids=["x", "s"], name="open-mindedness"),
    }
