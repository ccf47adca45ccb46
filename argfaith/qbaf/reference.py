"""Plain-Python reference implementations of the engine's semantics.

These follow the definitions of PAPER.md §2–4 as literally as possible, with no NumPy tricks and
no numba, so that tests and benchmarks can check the fast kernels against them. They are not
meant for large inputs (the brute-force ones are exponential).

The other gradual semantics (:mod:`argfaith.qbaf.semantics`) each have their update written from
their paper (:data:`UPDATE_REFERENCES`), solved by :func:`gradual_reference` with the same scheme.

Conventions shared with the fast engine (:mod:`argfaith.qbaf.dfquad`, :mod:`argfaith.qbaf.gradual`):

* DF-QuAD's aggregation F(v1..vn) = 1 − ∏(1 − vi); every sum, product or maximum over attackers
  or supporters is taken in input order;
* iterative solvers start from σ⁰ = τ and stop at the first iterate σ̂ whose fixed-point
  residual ‖f(σ̂) − σ̂‖∞ is ≤ tol, which is then the reported residual;
* ``iterations`` is the largest number of sweeps (synchronous) or steps (RK4) used by any
  cyclic component, 0 when the graph is acyclic.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from itertools import combinations
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from argfaith.qbaf.framework import QBAF

__all__ = [
    "aggregate_reference",
    "combine_reference",
    "dfquad_reference",
    "dfquad_update_reference",
    "quad_update_reference",
    "quadratic_energy_update_reference",
    "euler_update_reference",
    "mlp_update_reference",
    "h_categorizer_update_reference",
    "UPDATE_REFERENCES",
    "gradual_reference",
    "pro_con_reference",
    "pro_con_sets_reference",
    "set_attacks_reference",
    "admissible_sets_reference",
    "d_preferred_reference",
    "credulous_reference",
    "grounded_reference",
    "credulous_sat_reference",
]


def aggregate_reference(values: list[float]) -> float:
    """F(()) = 0, F(v1..vn) = 1 − ∏(1 − vi) (PAPER.md §2)."""
    prod = 1.0
    for v in values:
        prod *= 1.0 - v
    return 1.0 - prod


def combine_reference(v0: float, va: float, vs: float) -> float:
    """c(v0, va, vs) = v0 − v0·(va − vs) if va ≥ vs, else v0 + (1 − v0)·(vs − va) (PAPER.md §2)."""
    if va >= vs:
        return v0 - v0 * (va - vs)
    return v0 + (1.0 - v0) * (vs - va)


def _incoming(qbaf: QBAF) -> tuple[list[list[int]], list[list[int]]]:
    n = qbaf.n
    att: list[list[int]] = [[] for _ in range(n)]
    sup: list[list[int]] = [[] for _ in range(n)]
    for s, t in qbaf.attack_array.tolist():
        att[t].append(s)
    for s, t in qbaf.support_array.tolist():
        sup[t].append(s)
    return att, sup


def _sccs(n: int, succ: list[list[int]]) -> list[list[int]]:
    """Components in topological order (Kosaraju, iterative)."""
    seen = [False] * n
    finish: list[int] = []
    for r in range(n):
        if seen[r]:
            continue
        seen[r] = True
        stack = [(r, 0)]
        while stack:
            v, i = stack[-1]
            if i < len(succ[v]):
                stack[-1] = (v, i + 1)
                w = succ[v][i]
                if not seen[w]:
                    seen[w] = True
                    stack.append((w, 0))
            else:
                stack.pop()
                finish.append(v)
    pred: list[list[int]] = [[] for _ in range(n)]
    for v in range(n):
        for w in succ[v]:
            pred[w].append(v)
    comp = [-1] * n
    comps: list[list[int]] = []
    for r in reversed(finish):
        if comp[r] != -1:
            continue
        c = len(comps)
        comps.append([])
        comp[r] = c
        todo = [r]
        while todo:
            v = todo.pop()
            comps[c].append(v)
            for w in pred[v]:
                if comp[w] == -1:
                    comp[w] = c
                    todo.append(w)
    return [sorted(c) for c in comps]


def dfquad_reference(
    qbaf: QBAF, *, method: str = "sync", max_iter: int = 10_000, tol: float = 1e-9, step: float = 0.5
) -> tuple[list[float], bool, int, float]:
    """DF-QuAD strengths σ (PAPER.md §2): ``(values, converged, iterations, residual)``.

    Acyclic parts are computed exactly in topological order; each cyclic strongly connected
    component is iterated with the values of its (already final) predecessors fixed:
    ``method="sync"`` is the synchronous (Jacobi) update σ ← f(σ); ``method="rk4"`` integrates the
    continuous model dσ/dt = f(σ) − σ with classical Runge–Kutta steps of size ``step``.
    """
    return _solve_reference(qbaf, dfquad_update_reference, method=method, max_iter=max_iter, tol=tol, step=step)


# ------------------------------------------------------------------ other gradual semantics
def dfquad_update_reference(w: float, att: list[float], sup: list[float]) -> float:
    """DF-QuAD (Rago, Toni, Aurisicchio & Baroni 2016): c(w, F(att), F(sup)) (PAPER.md §2)."""
    return combine_reference(w, aggregate_reference(att), aggregate_reference(sup))


def quad_update_reference(w: float, att: list[float], sup: list[float]) -> float:
    """QuAD (Baroni, Romano, Toni, Aurisicchio & Bertanza 2015), literally: the attack function
    applied one attacker at a time, f_att(v0, v) = v0·(1 − v), starting from v0 = w; the support
    function f_supp(v0, v) = v0 + (1 − v0)·v likewise; σ = w with neither, the attack value
    with attackers only, the support value with supporters only, their mean with both."""
    if not att and not sup:
        return w
    va = w
    for v in att:
        va = va * (1.0 - v)
    vs = w
    for v in sup:
        vs = vs + (1.0 - vs) * v
    if not sup:
        return va
    if not att:
        return vs
    return (va + vs) / 2.0


def _energy(att: list[float], sup: list[float]) -> float:
    """E = Σ σ(sup) − Σ σ(att), each sum in input order."""
    s = 0.0
    for v in sup:
        s += v
    a = 0.0
    for v in att:
        a += v
    return s - a


def quadratic_energy_update_reference(w: float, att: list[float], sup: list[float]) -> float:
    """Quadratic energy model (Potyka 2018): with E the energy Σ sup − Σ att and
    h(E) = E²/(1 + E²): σ = w − w·h(E) if E ≤ 0, else w + (1 − w)·h(E)."""
    e = _energy(att, sup)
    h = (e * e) / (1.0 + e * e)
    if e <= 0.0:
        return w - w * h
    return w + (1.0 - w) * h


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:  # libm returns inf; Python raises
        return math.inf


def euler_update_reference(w: float, att: list[float], sup: list[float]) -> float:
    """Euler-based semantics (Amgoud & Ben-Naim 2017, 2018): σ = 1 − (1 − w²)/(1 + w·e^E),
    E = Σ sup − Σ att (w = 0 gives 0 for every E)."""
    if w == 0.0:
        return 0.0
    return 1.0 - (1.0 - w * w) / (1.0 + w * _exp(_energy(att, sup)))


def mlp_update_reference(w: float, att: list[float], sup: list[float]) -> float:
    """MLP-based semantics (Potyka 2021): σ = φ(ln(w/(1 − w)) + E), φ(z) = 1/(1 + e^−z),
    E = Σ sup − Σ att (unit edge weights); w = 0 and w = 1 are the limits 0 and 1."""
    if w == 0.0 or w == 1.0:
        return w
    z = math.log(w / (1.0 - w)) + _energy(att, sup)
    return 1.0 / (1.0 + _exp(-z))


def h_categorizer_update_reference(w: float, att: list[float], sup: list[float]) -> float:
    """Weighted h-categorizer (Amgoud, Ben-Naim, Doder & Vesic 2017): σ = w / (1 + Σ σ(att));
    defined for attack-only frameworks."""
    if sup:
        raise ValueError("the weighted h-categorizer is defined for attack-only frameworks")
    a = 0.0
    for v in att:
        a += v
    return w / (1.0 + a)


#: The update of each named semantics, written from its paper (not from the modular pieces).
UPDATE_REFERENCES: dict[str, Callable[[float, list[float], list[float]], float]] = {
    "dfquad": dfquad_update_reference,
    "quad": quad_update_reference,
    "quadratic-energy": quadratic_energy_update_reference,
    "euler-based": euler_update_reference,
    "restricted-euler-based": euler_update_reference,
    "mlp-based": mlp_update_reference,
    "weighted-h-categorizer": h_categorizer_update_reference,
}


def gradual_reference(
    qbaf: QBAF,
    semantics: str | Any = "dfquad",
    *,
    method: str = "sync",
    max_iter: int = 10_000,
    tol: float = 1e-9,
    step: float = 0.5,
) -> tuple[list[float], bool, int, float]:
    """Strengths under a gradual semantics by the scheme of :func:`dfquad_reference`:
    ``(values, converged, iterations, residual)``. A named instance uses its paper's update from
    :data:`UPDATE_REFERENCES`; a user composition its modular definition
    (:meth:`~argfaith.qbaf.semantics.GradualSemantics.update`)."""
    from argfaith.qbaf.semantics import get_semantics

    sem = get_semantics(semantics)
    update = UPDATE_REFERENCES.get(sem.name, sem.update)
    return _solve_reference(qbaf, update, method=method, max_iter=max_iter, tol=tol, step=step)


def _solve_reference(
    qbaf: QBAF,
    update: Callable[[float, list[float], list[float]], float],
    *,
    method: str,
    max_iter: int,
    tol: float,
    step: float,
) -> tuple[list[float], bool, int, float]:
    if method not in ("sync", "rk4"):
        raise ValueError(f"unknown method {method!r}; use 'sync' or 'rk4'")
    n = qbaf.n
    tau = qbaf.base_scores.tolist()
    att, sup = _incoming(qbaf)
    succ: list[list[int]] = [[] for _ in range(n)]
    for v in range(n):
        for u in att[v] + sup[v]:
            succ[u].append(v)
    sigma = list(tau)

    def f(v: int, s: list[float]) -> float:
        return update(tau[v], [s[u] for u in att[v]], [s[u] for u in sup[v]])

    converged, iterations, residual = True, 0, 0.0
    for comp in _sccs(n, succ):
        v0 = comp[0]
        if len(comp) == 1 and v0 not in succ[v0]:
            sigma[v0] = f(v0, sigma)
            continue
        it, res = 0, 0.0
        while True:
            new = {v: f(v, sigma) for v in comp}
            res = max(abs(new[v] - sigma[v]) for v in comp)
            if res <= tol or it >= max_iter:
                break
            it += 1
            if method == "sync":
                for v in comp:
                    sigma[v] = new[v]
            else:
                base = {v: sigma[v] for v in comp}
                k1 = {v: new[v] - base[v] for v in comp}
                for v in comp:
                    sigma[v] = base[v] + 0.5 * step * k1[v]
                k2 = {v: f(v, sigma) - sigma[v] for v in comp}
                for v in comp:
                    sigma[v] = base[v] + 0.5 * step * k2[v]
                k3 = {v: f(v, sigma) - sigma[v] for v in comp}
                for v in comp:
                    sigma[v] = base[v] + step * k3[v]
                k4 = {v: f(v, sigma) - sigma[v] for v in comp}
                for v in comp:
                    sigma[v] = min(1.0, max(0.0, base[v] + step / 6.0 * (k1[v] + 2 * k2[v] + 2 * k3[v] + k4[v])))
        iterations = max(iterations, it)
        residual = max(residual, res)
        if res > tol:
            converged = False
    return sigma, converged, iterations, residual


def pro_con_reference(qbaf: QBAF, target: str) -> tuple[frozenset[str], frozenset[str]]:
    """(pro(x), con(x)) by breadth-first search over (node, parity) states backwards from x.

    A path y → … → x is a non-empty walk of A ∪ S edges; y ∈ pro(x) iff some such walk has an
    even number of attacks, y ∈ con(x) iff some has an odd number (PAPER.md §3).
    """
    x = qbaf.idx(target)
    att, sup = _incoming(qbaf)
    return _pro_con_bfs(qbaf, att, sup, x)


def pro_con_sets_reference(qbaf: QBAF, targets: list[str] | tuple[str, ...] | None = None) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """:func:`pro_con_reference` for several targets (default: every proposal), sharing one
    adjacency build — the fair plain-Python baseline for the multi-target kernel."""
    ts = qbaf.proposals if targets is None else tuple(targets)
    att, sup = _incoming(qbaf)
    return {t: _pro_con_bfs(qbaf, att, sup, qbaf.idx(t)) for t in ts}


def _pro_con_bfs(qbaf: QBAF, att: list[list[int]], sup: list[list[int]], x: int) -> tuple[frozenset[str], frozenset[str]]:
    seen: set[tuple[int, int]] = set()
    queue: deque[tuple[int, int]] = deque()
    for u in att[x]:
        if (u, 1) not in seen:
            seen.add((u, 1))
            queue.append((u, 1))
    for u in sup[x]:
        if (u, 0) not in seen:
            seen.add((u, 0))
            queue.append((u, 0))
    while queue:
        v, p = queue.popleft()
        for u in att[v]:
            st = (u, 1 - p)
            if st not in seen:
                seen.add(st)
                queue.append(st)
        for u in sup[v]:
            st = (u, p)
            if st not in seen:
                seen.add(st)
                queue.append(st)
    ids = qbaf.ids
    return frozenset(ids[v] for v, p in seen if p == 0), frozenset(ids[v] for v, p in seen if p == 1)


def set_attacks_reference(qbaf: QBAF) -> frozenset[tuple[str, str]]:
    """The set-attack relation of the bipolar framework (PAPER.md §4): direct attacks, supported
    attacks (a support chain, then one attack) and indirect attacks (one attack, then a support
    chain); no mixing. Derived self-attacks are kept."""
    n = qbaf.n
    sup_succ: list[list[int]] = [[] for _ in range(n)]
    for s, t in qbaf.support_array.tolist():
        sup_succ[s].append(t)
    reach: list[set[int]] = []
    for x in range(n):
        seen: set[int] = set()
        todo = list(sup_succ[x])
        while todo:
            v = todo.pop()
            if v not in seen:
                seen.add(v)
                todo.extend(sup_succ[v])
        reach.append(seen)  # S+: reachable by >= 1 support edge
    attacks = qbaf.attack_array.tolist()
    rel = {(s, t) for s, t in attacks}
    for x in range(n):
        for s, t in attacks:
            if s in reach[x]:
                rel.add((x, t))  # supported attack: x S+ s, s A t
    for s, t in attacks:
        for y in reach[t]:
            rel.add((s, y))  # indirect attack: s A t, t S+ y
    ids = qbaf.ids
    return frozenset((ids[a], ids[b]) for a, b in rel)


def admissible_sets_reference(qbaf: QBAF) -> list[frozenset[str]]:
    """Every d-admissible set, by enumerating all 2^|X| subsets (small frameworks only)."""
    ids = qbaf.ids
    rel = set_attacks_reference(qbaf)
    attackers: dict[str, set[str]] = {a: set() for a in ids}
    for a, b in rel:
        attackers[b].add(a)
    out: list[frozenset[str]] = []
    for k in range(len(ids) + 1):
        for subset in combinations(ids, k):
            s = frozenset(subset)
            if any((a, b) in rel for a in s for b in s):
                continue
            if all(any((d, z) in rel for d in s) for y in s for z in attackers[y]):
                out.append(s)
    return out


def d_preferred_reference(qbaf: QBAF) -> list[frozenset[str]]:
    """All d-preferred extensions (⊆-maximal d-admissible sets), brute force, sorted."""
    adm = admissible_sets_reference(qbaf)
    maximal = [s for s in adm if not any(s < t for t in adm)]
    return sorted(maximal, key=lambda s: (len(s), sorted(s)))


def credulous_reference(qbaf: QBAF) -> frozenset[str]:
    """Arguments in at least one d-preferred extension (brute force)."""
    out: set[str] = set()
    for s in d_preferred_reference(qbaf):
        out |= s
    return frozenset(out)


def grounded_reference(qbaf: QBAF) -> frozenset[str]:
    """The grounded extension of (X, R): iterate F(T) = {y | T defends y} from ∅ to its least
    fixed point (Dung 1995, Def. 20), literally, on the brute-force set-attack relation."""
    rel = set_attacks_reference(qbaf)
    attackers: dict[str, set[str]] = {a: set() for a in qbaf.ids}
    for a, b in rel:
        attackers[b].add(a)
    t: frozenset[str] = frozenset()
    while True:
        nxt = frozenset(y for y in qbaf.ids if all(any((d, z) in rel for d in t) for z in attackers[y]))
        if nxt == t:
            return t
        t = nxt


def credulous_sat_reference(qbaf: QBAF, arguments: list[str] | tuple[str, ...]) -> frozenset[str]:
    """Credulous d-preferred acceptance by the textbook SAT encoding over the explicit
    set-attack relation, one fresh solver per query and no shortcuts (a baseline, not fast).

    Variables in_a; conflict-freeness ¬in_a ∨ ¬in_b for every (b, a) ∈ R; defence
    in_a ⇒ ∨_{c R b} in_c for every (b, a) ∈ R (Besnard & Doutre 2004). Its size grows with
    Σ_a Σ_{b R a} |attackers(b)|, cubic once R is dense (FINDINGS §4).
    """
    from pysat.solvers import Solver

    ids = list(qbaf.ids)
    var = {a: i + 1 for i, a in enumerate(ids)}
    rel = set_attacks_reference(qbaf)
    attackers: dict[str, list[str]] = {a: [] for a in ids}
    for a, b in sorted(rel):
        attackers[b].append(a)
    clauses: list[list[int]] = []
    for b, a in sorted(rel):
        clauses.append([-var[a], -var[b]])
        clauses.append([-var[a]] + [var[c] for c in attackers[b]])
    out = set()
    for x in arguments:
        with Solver(name="glucose4", bootstrap_with=clauses) as s:
            if s.solve(assumptions=[var[x]]):
                out.add(x)
    return frozenset(out)
