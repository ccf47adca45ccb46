"""Bipolar set-attacks and d-preferred semantics (PAPER.md §4; Cayrol & Lagasquie-Schiex 2005).

The set-attack relation
-----------------------
For a path x1 → … → xn of the bipolar framework ⟨X, A, S⟩, a *supported attack* from x1 on xn
is supports all the way and then one final attack; an *indirect attack* is one attack first and
then supports all the way. {x} *set-attacks* y iff there is a direct, supported or indirect attack
from x on y. Writing S* for the reflexive-transitive closure of S,

    R = {(x, y) | x S* s, (s, y) ∈ A}  ∪  {(s, y) | (s, t) ∈ A, t S* y}.

A support chain on *both* sides of an attack is neither (no mixing), and derived self-attacks are
kept: a supports b, b attacks a gives (a, a) ∈ R. The d-admissible / d-preferred sets of the
bipolar framework are exactly the admissible / preferred extensions of the Dung framework (X, R)
(Cayrol & Lagasquie-Schiex 2005, Def. 9–12), so everything below is Dung semantics on (X, R).
:func:`set_attacks` computes R as a :class:`SetAttacks` object in numba: by bitsets over the
condensation of the support graph (dense closures), or by per-target backward searches (very
large sparse frameworks).

Credulous acceptance
--------------------
x is credulously accepted under d-preferred semantics iff x belongs to some d-preferred
extension, iff x belongs to some admissible set of (X, R) (every admissible set extends to a
preferred one; Dung 1995, Thm. 11). :func:`credulous_acceptance` decides this per query with
sound shortcuts first:

1. *Self-attack*: (x, x) ∈ R ⇒ x is in no conflict-free set ⇒ rejected.
2. *Grounded extension* G (least fixed point of the characteristic function): x ∈ G ⇒ accepted
   (G is admissible). x attacked by G ⇒ rejected: an admissible set T ∋ x lies in a preferred
   extension E, which is complete, so G ⊆ E, and E would contain g ∈ G and x with (g, x) ∈ R.
3. *Ancestor restriction*: let U be any set that contains x and is closed under attackers
   (y ∈ U, (z, y) ∈ R ⇒ z ∈ U). Then x is in an admissible set of (X, R) iff it is in one of
   (U, R ∩ U²). (⇒) for admissible T ∋ x, T ∩ U is conflict-free, and an attacker z of
   y ∈ T ∩ U lies in U and is attacked by some d ∈ T, which then lies in U as well. (⇐) an
   admissible T ⊆ U of the restriction is admissible in (X, R): the attackers of its members are
   all in U, so they are the same attackers in both frameworks (directionality of admissibility,
   Baroni & Giacomin 2007). The SAT encoding below is built on the bipolar graph, so we take for
   U the ancestors of the queries in the graph (X, A ∪ S): every pair of R is witnessed by a
   graph path, so U is closed under R-attackers; and every node of a witness path ending in U is
   in U, so the set-attack relation of the induced sub-framework is exactly R ∩ U².
4. *SAT*: "some admissible set contains x", one incremental solver over U for all queries, each
   query one ``solve(assumptions=[in_x])``. The model of a satisfiable query is returned as a
   witness (an admissible set containing x), which the tests check independently.

The encoding (why it stays small)
---------------------------------
The textbook encoding of admissibility over R needs a clause per pair of R for conflict-freeness
and, without auxiliary variables, Σ_y Σ_{z→y} |attackers(z)| literals for defence — cubic once
R gets dense, which is what made a naive encoding take 39 s at 1,000 arguments (FINDINGS §4).
Here R is never encoded. Instead the support graph restricted to U is condensed into strongly
connected components C (Tarjan), and per component / argument we introduce

* ``P_C``  ⇔ some member of the set reaches C by supports (x S* c),
* ``I_C``  ⇔ some member of the set attacks some t with t S* c,
* ``T_z``  ⇔ the set set-attacks z  ⇔ ∨_{(s,z)∈A} P_{C(s)} ∨ I_{C(z)},
* ``AS_C`` ⇒ every argument of S*-ancestors(C) is set-attacked (the supported attackers),
* ``IO_C`` ⇒ every s with (s, t) ∈ A, t ∈ S*-ancestors(C) is set-attacked (indirect attackers),

with P and I defined by their Clark completion over the condensation (a DAG, so the completion
has exactly the intended model; on a raw support cycle it would let a cycle justify itself).
Conflict-freeness is ¬in_z ∨ ¬T_z; defence of y is in_y ⇒ AS_{C(s)} for each (s, y) ∈ A and
in_y ⇒ IO_{C(y)}. The formula has O(|U| + |A| + |S|) clauses and literals however dense R is.

Only the "justification" half of the completions (T_z ⇒ a reason; P_C ⇒ a member or a
predecessor; likewise I_C) is needed for soundness: if every attacker of a member must have a
true T, and a true T means "really set-attacked", then a member z attacking a member y would need
T_z and ¬T_z at once, so conflict-freeness follows from defence. The "forcing" half
(in_v ⇒ P_C(v), P ⇒ T, ...) is kept because it lets unit propagation rule out conflicting
arguments early; the tests check both variants against brute force.
Units fix G in and G's targets and self-attackers out: sound, because for an admissible T ∋ x,
T ∪ G is admissible (both lie in one preferred extension and each defends itself) and contains no
argument attacked by G. The solver is told to prefer in_v = true, so a model is a large
admissible set and every argument in it is accepted without a query of its own.

d-preferred extensions
----------------------
:func:`d_preferred_extensions` enumerates ⊆-maximal admissible sets with the same encoding
(the PrefSAT scheme of Cerutti, Dunne, Giacomin & Vallati 2013): find an admissible set not
contained in any extension found so far, grow it while a strictly larger admissible superset
exists, record it, block its subsets, repeat until unsatisfiable.

Examples
--------
>>> from argfaith.qbaf import QBAF
>>> q = QBAF.from_arrays([0.5, 0.2, 0.2], attacks=[(1, 0)], supports=[(2, 1)])
>>> sorted(set_attacks(q))
[('a1', 'a0'), ('a2', 'a0')]
>>> sorted(credulous_acceptance(q, ["a0", "a1"]).accepted)
['a1']
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Mapping, Set
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from argfaith.qbaf.errors import QBAFError, UnknownArgumentError

if TYPE_CHECKING:
    from argfaith.qbaf.framework import QBAF

__all__ = [
    "SetAttacks",
    "ArgumentDecision",
    "AcceptanceResult",
    "FrameworkTooLargeError",
    "Decision",
    "DEFAULT_SAT_SOLVER",
    "DEFAULT_MAX_ARGUMENTS",
    "DEFAULT_MAX_EXTENSIONS",
    "set_attacks",
    "is_conflict_free",
    "defends",
    "is_d_admissible",
    "grounded_extension",
    "credulous_acceptance",
    "d_preferred_extensions",
]

#: pysat solver used by default. CaDiCaL 1.5.3 is incremental (assumptions, clauses added
#: between calls) and honours the preferred phases we set, so its models are large admissible
#: sets that answer many later queries at once; Glucose 4 and MiniSat ignore them here and were
#: 2–30x slower on the benchmark frameworks (benchmarks/engine_bipolar.md).
DEFAULT_SAT_SOLVER = "cadical153"
#: Largest framework :func:`d_preferred_extensions` enumerates by default.
DEFAULT_MAX_ARGUMENTS = 200
#: Most extensions :func:`d_preferred_extensions` returns before giving up.
DEFAULT_MAX_EXTENSIONS = 1000

Decision = Literal["self-attacking", "grounded", "attacked-by-grounded", "sat", "search"]
_METHODS = ("auto", "sat", "search")


class FrameworkTooLargeError(QBAFError):
    """A framework (or its number of extensions) exceeds the limit of an exponential task."""


# ---------------------------------------------------------------------------------- relation
def _csr(n: int, edges: np.ndarray, by_target: bool) -> tuple[np.ndarray, np.ndarray]:
    """(ptr, idx) CSR of an (m, 2) edge array, grouped by target (or by source)."""
    key, val = (1, 0) if by_target else (0, 1)
    if edges.shape[0] == 0:
        return np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64)
    order = np.argsort(edges[:, key], kind="stable")
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(edges[:, key], minlength=n), out=ptr[1:])
    return ptr, np.ascontiguousarray(edges[order, val], dtype=np.int64)


@dataclass(frozen=True, eq=False)
class SetAttacks(Set):
    """The set-attack relation R of a bipolar framework: the Dung AF (X, R) (PAPER.md §4).

    Behaves as a read-only set of ``(attacker id, attacked id)`` pairs (so it compares equal to
    a ``frozenset`` of the same pairs) and carries the index arrays solvers need.

    Attributes
    ----------
    qbaf : QBAF
        The bipolar framework R was derived from.
    attacker_ptr, attacker_idx : numpy.ndarray
        Incoming CSR: the set-attackers of argument ``v`` (by index) are
        ``attacker_idx[attacker_ptr[v]:attacker_ptr[v + 1]]``, sorted.
    """

    qbaf: QBAF = field(repr=False)
    attacker_ptr: np.ndarray = field(repr=False)
    attacker_idx: np.ndarray = field(repr=False)

    # -- Set protocol
    def __len__(self) -> int:
        return int(self.attacker_idx.shape[0])

    def __iter__(self) -> Iterator[tuple[str, str]]:
        ids = self.qbaf.ids
        ptr = self.attacker_ptr.tolist()
        src = self.attacker_idx.tolist()
        for y in range(self.qbaf.n):
            for j in range(ptr[y], ptr[y + 1]):
                yield ids[src[j]], ids[y]

    def __contains__(self, pair: object) -> bool:
        try:
            a, b = pair  # type: ignore[misc]
        except (TypeError, ValueError):
            return False
        index = self.qbaf.index
        if a not in index or b not in index:
            return False
        x, y = index[a], index[b]
        row = self.attacker_idx[self.attacker_ptr[y] : self.attacker_ptr[y + 1]]
        k = int(np.searchsorted(row, x))
        return k < row.shape[0] and int(row[k]) == x

    def __repr__(self) -> str:
        return f"<SetAttacks: {self.qbaf.n} arguments, {len(self)} set-attacks>"

    # -- views
    @property
    def ids(self) -> tuple[str, ...]:
        return self.qbaf.ids

    @property
    def n_arguments(self) -> int:
        return self.qbaf.n

    @cached_property
    def pairs(self) -> frozenset[tuple[str, str]]:
        """R as a frozenset of id pairs."""
        return frozenset(self)

    def index_pairs(self) -> np.ndarray:
        """R as an ``(|R|, 2)`` int64 array of (attacker, attacked) indices, target-major."""
        tgt = np.repeat(np.arange(self.qbaf.n, dtype=np.int64), np.diff(self.attacker_ptr))
        return np.stack([self.attacker_idx.astype(np.int64), tgt], axis=1)

    @cached_property
    def target_csr(self) -> tuple[np.ndarray, np.ndarray]:
        """Outgoing CSR ``(ptr, idx)``: the arguments ``v`` set-attacks, sorted."""
        from argfaith.qbaf._bipolar_kernels import transpose_csr

        ptr, idx = transpose_csr(self.qbaf.n, self.attacker_ptr, self.attacker_idx)
        ptr.setflags(write=False)
        idx.setflags(write=False)
        return ptr, idx

    def attackers(self, arg_id: str) -> tuple[str, ...]:
        """Set-attackers of ``arg_id``, in framework order."""
        y = self.qbaf.idx(arg_id)
        ids = self.qbaf.ids
        return tuple(ids[v] for v in self.attacker_idx[self.attacker_ptr[y] : self.attacker_ptr[y + 1]].tolist())

    def targets(self, arg_id: str) -> tuple[str, ...]:
        """Arguments that ``arg_id`` set-attacks, in framework order."""
        x = self.qbaf.idx(arg_id)
        ptr, idx = self.target_csr
        ids = self.qbaf.ids
        return tuple(ids[v] for v in idx[ptr[x] : ptr[x + 1]].tolist())

    @cached_property
    def self_attacking_mask(self) -> np.ndarray:
        """Boolean array: True for arguments with (x, x) ∈ R."""
        n = self.qbaf.n
        mask = np.zeros(n, dtype=np.bool_)
        if len(self):
            tgt = np.repeat(np.arange(n), np.diff(self.attacker_ptr))
            mask[tgt[self.attacker_idx == tgt]] = True
        mask.setflags(write=False)
        return mask

    @property
    def self_attacking(self) -> tuple[str, ...]:
        """Ids of the self-attacking arguments (never in a conflict-free set)."""
        ids = self.qbaf.ids
        return tuple(ids[v] for v in np.flatnonzero(self.self_attacking_mask).tolist())

    @cached_property
    def grounded_labels(self) -> np.ndarray:
        """Grounded labelling aligned with the ids: 1 in, -1 out (attacked by G), 0 undecided."""
        from argfaith.qbaf._bipolar_kernels import grounded_labels

        tptr, tidx = self.target_csr
        lab = grounded_labels(self.qbaf.n, self.attacker_ptr, self.attacker_idx, tptr, tidx)
        lab.setflags(write=False)
        return lab


def set_attacks(qbaf: QBAF, *, algorithm: str = "auto") -> SetAttacks:
    """The set-attack relation R of a bipolar framework (PAPER.md §4).

    (x, y) ∈ R iff x attacks y directly, by a supported attack (x S+ s, s A y) or by an indirect
    attack (x A t, t S+ y); chains with supports on both sides are not set-attacks, and derived
    self-attacks such as (a, a) from a S b, b A a are kept (Cayrol & Lagasquie-Schiex 2005).

    Parameters
    ----------
    qbaf : QBAF
        Base scores and argument kinds are ignored; only A and S matter.
    algorithm : {"auto", "bitset", "search"}
        ``"bitset"``: condense the support graph into strongly connected components (Tarjan)
        and propagate two n-bit sets per component (S*-ancestors, and the sources of attacks on
        them) in topological order; each row of R is then an OR of a few bitsets. Cost
        O((|A| + |S| + n) · n/64 + |R|), memory 2 · components · n/8 bytes — the fast path when
        the closure is dense. ``"search"``: per target, two backward searches along supports
        with visit stamps; memory O(n + |R|), for very large sparse frameworks. ``"auto"``:
        bitsets while their memory stays under 64 MB, else search.

    Returns
    -------
    SetAttacks
        A set of (attacker id, attacked id) pairs that also exposes CSR index arrays. It is
        computed once per framework: later calls (with any ``algorithm``: the relation is the
        same) return the same object, and every function here taking a QBAF reuses it.
    """
    from argfaith.qbaf import _bipolar_kernels as K

    if algorithm not in ("auto", "bitset", "search"):
        raise ValueError(f"unknown algorithm {algorithm!r}; use 'auto', 'bitset' or 'search'")
    cached = qbaf.__dict__.get(_CACHE_KEY)
    if cached is not None:
        return cached  # R depends only on A and S, which a QBAF never changes
    n = qbaf.n
    sptr, ssrc = _csr(n, qbaf.support_array, by_target=True)
    aptr, asrc = _csr(n, qbaf.attack_array, by_target=True)
    use_bitset = algorithm == "bitset"
    comp = n_comp = None
    if algorithm != "search":
        optr, odst = _csr(n, qbaf.support_array, by_target=False)
        comp, n_comp = K.scc_labels(n, optr, odst, np.ones(n, dtype=np.bool_))
        use_bitset = use_bitset or 2 * n_comp * ((n + 63) // 64) * 8 <= _BITSET_BYTES
    if use_bitset:
        ptr, idx, self_attack = K.set_attack_csr_bitset(n, sptr, ssrc, aptr, asrc, comp, n_comp)
    else:
        ptr, idx, self_attack = K.set_attack_csr(n, sptr, ssrc, aptr, asrc)
    for a in (ptr, idx, self_attack):
        a.setflags(write=False)
    sa = SetAttacks(qbaf, ptr, idx)
    sa.__dict__["self_attacking_mask"] = self_attack  # the kernel has it already: seed the cache
    qbaf.__dict__[_CACHE_KEY] = sa
    return sa


#: Memory budget of the bitset algorithm of :func:`set_attacks` under ``algorithm="auto"``.
_BITSET_BYTES = 64 * 2**20
#: Where a QBAF keeps its set-attack relation once computed (QBAFs are immutable, so the
#: relation — and its grounded labelling and transposed CSR, cached on it — is computed once
#: per framework and shared by credulous_acceptance, d_preferred_extensions, the Dung checks
#: and the ICCMA export).
_CACHE_KEY = "_set_attacks"


def _as_set_attacks(framework: QBAF | SetAttacks) -> SetAttacks:
    if isinstance(framework, SetAttacks):
        return framework
    from argfaith.qbaf.framework import QBAF

    if not isinstance(framework, QBAF):
        raise TypeError(f"expected a QBAF or SetAttacks, got {type(framework).__name__}")
    return set_attacks(framework)


def _indices(qbaf: QBAF, arguments: Iterable[str], what: str = "arguments") -> list[int]:
    if isinstance(arguments, str):
        raise TypeError(f"{what}: expected a collection of argument ids, got the string {arguments!r}")
    out = []
    for a in arguments:
        if a not in qbaf.index:
            raise UnknownArgumentError(f"{what}: unknown argument {a!r}")
        out.append(qbaf.index[a])
    return out


# ---------------------------------------------------------------------------------- Dung checks
def is_conflict_free(framework: QBAF | SetAttacks, arguments: Iterable[str]) -> bool:
    """True iff no member of ``arguments`` set-attacks a member (d-conflict-free, PAPER.md §4).

    ``framework`` is a QBAF or a precomputed :class:`SetAttacks`; unknown ids raise
    :class:`UnknownArgumentError`.
    """
    sa = _as_set_attacks(framework)
    members = set(_indices(sa.qbaf, arguments))
    ptr, idx = sa.attacker_ptr, sa.attacker_idx
    return not any(int(z) in members for y in members for z in idx[ptr[y] : ptr[y + 1]])


def defends(framework: QBAF | SetAttacks, arguments: Iterable[str], argument: str) -> bool:
    """True iff the set ``arguments`` defends ``argument``: every set-attacker of it is
    set-attacked by some member (PAPER.md §4; Dung 1995, Def. 6)."""
    sa = _as_set_attacks(framework)
    members = set(_indices(sa.qbaf, arguments))
    y = _indices(sa.qbaf, [argument], "argument")[0]
    return _defends(sa, members, y)


def _defends(sa: SetAttacks, members: set[int], y: int) -> bool:
    ptr, idx = sa.attacker_ptr, sa.attacker_idx
    for z in idx[ptr[y] : ptr[y + 1]].tolist():
        if not any(int(d) in members for d in idx[ptr[z] : ptr[z + 1]]):
            return False
    return True


def is_d_admissible(framework: QBAF | SetAttacks, arguments: Iterable[str]) -> bool:
    """True iff ``arguments`` is d-admissible: conflict-free and defends each of its members
    (PAPER.md §4; Cayrol & Lagasquie-Schiex 2005, Def. 10)."""
    sa = _as_set_attacks(framework)
    members = set(_indices(sa.qbaf, arguments))
    ptr, idx = sa.attacker_ptr, sa.attacker_idx
    if any(int(z) in members for y in members for z in idx[ptr[y] : ptr[y + 1]]):
        return False
    return all(_defends(sa, members, y) for y in members)


def grounded_extension(framework: QBAF | SetAttacks) -> frozenset[str]:
    """The grounded extension of (X, R): the least fixed point of F(T) = {y | T defends y}
    (Dung 1995, Def. 20), computed by counter propagation in O(n + |R|). It is d-admissible and
    contained in every d-preferred extension."""
    sa = _as_set_attacks(framework)
    ids = sa.qbaf.ids
    return frozenset(ids[v] for v in np.flatnonzero(sa.grounded_labels == 1).tolist())


# ---------------------------------------------------------------------------------- SAT encoding
class _AdmissibleEncoding:
    """CNF whose models are the admissible sets of (U, R ∩ U²) containing G ∩ U — see the module
    docstring for the variables and why the encoding is linear in |U| + |A| + |S|."""

    def __init__(self, sa: SetAttacks, mask: np.ndarray, *, units: bool = True, forcing: bool = True) -> None:
        from argfaith.qbaf._bipolar_kernels import scc_labels

        q = sa.qbaf
        n = q.n
        self.n = n
        self.mask = mask
        att = q.attack_array
        sup = q.support_array
        # U is closed under graph predecessors, so an edge is inside U iff its target is.
        att = att[mask[att[:, 1]]] if att.shape[0] else att
        sup = sup[mask[sup[:, 1]]] if sup.shape[0] else sup
        optr, odst = _csr(n, sup, by_target=False)
        comp, nc = scc_labels(n, optr, odst, mask)
        comp_l = comp.tolist()
        self.n_components = int(nc)

        def IN(v: int) -> int:
            return v + 1

        P0, I0, AS0, IO0, T0 = n + 1, n + 1 + nc, n + 1 + 2 * nc, n + 1 + 3 * nc, n + 1 + 4 * nc
        self.n_vars = n + 4 * nc + n
        cl: list[list[int]] = []
        members: list[list[int]] = [[] for _ in range(nc)]
        att_into: list[list[int]] = [[] for _ in range(nc)]  # sources of attacks into C
        preds: list[set[int]] = [set() for _ in range(nc)]
        u_nodes = np.flatnonzero(mask).tolist()
        for v in u_nodes:
            c = comp_l[v]
            members[c].append(v)
            cl.append([-IN(v), -(T0 + v)])  # conflict-free: not both in and set-attacked
            cl.append([-(AS0 + c), T0 + v])  # AS_C ⇒ every member of C is set-attacked
            cl.append([-IN(v), IO0 + c])  # in_y ⇒ IO_C(y): indirect attackers are attacked
            if forcing:
                cl.append([-IN(v), P0 + c])  # in_v ⇒ P_C(v)
                cl.append([-(I0 + c), T0 + v])  # I_C(z) ⇒ T_z
        for u, v in sup.tolist():
            cu, cv = comp_l[u], comp_l[v]
            if cu != cv:
                preds[cv].add(cu)
        t_reasons: dict[int, list[int]] = {v: [I0 + comp_l[v]] for v in u_nodes}
        for s, t in att.tolist():
            cs, ct = comp_l[s], comp_l[t]
            att_into[ct].append(s)
            cl.append([-(IO0 + ct), T0 + s])  # IO_C(t) ⇒ s is set-attacked
            cl.append([-IN(t), AS0 + cs])  # in_t ⇒ all supported attackers via s are attacked
            if forcing:
                cl.append([-IN(s), I0 + ct])  # s in, (s, t) ∈ A ⇒ I_C(t)
                cl.append([-(P0 + cs), T0 + t])  # supported / direct attack on t
            t_reasons[t].append(P0 + cs)
        for c in range(nc):
            ps = sorted(preds[c])
            for c2 in ps:
                cl.append([-(AS0 + c), AS0 + c2])
                cl.append([-(IO0 + c), IO0 + c2])
                if forcing:
                    cl.append([-(P0 + c2), P0 + c])
                    cl.append([-(I0 + c2), I0 + c])
            # Completions (justification direction): well-founded because the condensation is a DAG.
            cl.append([-(P0 + c)] + [IN(v) for v in members[c]] + [P0 + c2 for c2 in ps])
            cl.append([-(I0 + c)] + [IN(s) for s in dict.fromkeys(att_into[c])] + [I0 + c2 for c2 in ps])
        for v, reasons in t_reasons.items():
            cl.append([-(T0 + v)] + list(dict.fromkeys(reasons)))
        if units:  # sound (module docstring): G in, G's targets and self-attackers out
            lab = sa.grounded_labels
            selfatt = sa.self_attacking_mask
            for v in u_nodes:
                if lab[v] == 1:
                    cl.append([IN(v)])
                elif lab[v] == -1 or selfatt[v]:
                    cl.append([-IN(v)])
        self.clauses = cl
        self.u_nodes = u_nodes

    def members_of(self, model: list[int]) -> list[int]:
        """Arguments of U set to in by a model (variables outside U are unconstrained)."""
        return np.flatnonzero((np.asarray(model[: self.n]) > 0) & self.mask).tolist()


def _new_solver(name: str, clauses: list[list[int]]) -> Any:
    try:
        from pysat.solvers import Solver
    except ImportError as e:  # pragma: no cover - python-sat is a core dependency
        raise ImportError("SAT-based acceptance needs python-sat (pip install python-sat)") from e
    try:
        s = Solver(name=name)
    except Exception as e:  # pysat raises NotImplementedError / ValueError for bad names
        raise ValueError(f"unknown SAT solver {name!r} (any pysat solver name, e.g. 'glucose4', 'cadical153')") from e
    s.append_formula(clauses)
    return s


# ---------------------------------------------------------------------------------- acceptance
@dataclass(frozen=True)
class ArgumentDecision:
    """How the acceptance of one queried argument was decided.

    Attributes
    ----------
    argument : str
    accepted : bool
    reason : {"self-attacking", "grounded", "attacked-by-grounded", "sat", "search"}
        Which step of the pipeline decided it (module docstring, steps 1–4).
    seconds : float
        Time spent on this argument's own query (0.0 for the shortcuts).
    witness : frozenset of str or None
        For accepted arguments, a d-admissible set containing it (a certificate).
    """

    argument: str
    accepted: bool
    reason: Decision
    seconds: float = 0.0
    witness: frozenset[str] | None = None


@dataclass(frozen=True)
class AcceptanceResult:
    """Credulous acceptance under d-preferred semantics of the queried arguments.

    Attributes
    ----------
    accepted : frozenset of str
        The queried arguments in at least one d-preferred extension.
    queried : tuple of str
    method : str
        ``"sat:<solver>"`` or ``"search"``, or ``"shortcuts"`` when no query was left for either.
    decisions : Mapping[str, ArgumentDecision]
        Per-argument diagnostics.
    solver_calls : int
        Number of SAT ``solve`` calls (or search runs).
    seconds : float
        Total wall time, including the set-attack relation.
    n_set_attacks : int
        |R|.
    n_encoded : int
        Arguments in the ancestor restriction U handed to the SAT solver / search (0 if none).
    n_clauses : int
        Size of the CNF (0 without SAT).
    framework_ids : tuple of str
        The framework's argument ids, in order: :meth:`is_accepted` also takes a position, and
        :meth:`accepted_mask` is aligned with them.
    """

    accepted: frozenset[str]
    queried: tuple[str, ...]
    method: str = "sat:" + DEFAULT_SAT_SOLVER
    decisions: Mapping[str, ArgumentDecision] = field(default_factory=lambda: MappingProxyType({}))
    solver_calls: int = 0
    seconds: float = 0.0
    n_set_attacks: int = 0
    n_encoded: int = 0
    n_clauses: int = 0
    framework_ids: tuple[str, ...] | None = field(default=None, repr=False, compare=False)

    def is_accepted(self, arg_id: str | int) -> bool:
        """Whether ``arg_id`` — an id, or the position of an argument in the framework
        (``framework.ids[i]``) — was queried and accepted."""
        if isinstance(arg_id, (int, np.integer)) and not isinstance(arg_id, bool):
            ids = self.framework_ids
            if ids is None:
                raise TypeError("this result does not know its framework's argument order; ask by id")
            if not -len(ids) <= int(arg_id) < len(ids):
                raise IndexError(f"argument position {int(arg_id)} out of range for {len(ids)} arguments")
            return ids[int(arg_id)] in self.accepted
        return arg_id in self.accepted

    def accepted_mask(self) -> np.ndarray:
        """Boolean array aligned with the framework's arguments: True for accepted ones (arguments
        not queried are False)."""
        ids = self.framework_ids
        if ids is None:
            raise TypeError("this result does not know its framework's argument order")
        return np.fromiter((a in self.accepted for a in ids), dtype=np.bool_, count=len(ids))

    @property
    def rejected(self) -> frozenset[str]:
        return frozenset(self.queried) - self.accepted

    def reason_counts(self) -> dict[str, int]:
        """How many queries each pipeline step decided."""
        out: dict[str, int] = {}
        for d in self.decisions.values():
            out[d.reason] = out.get(d.reason, 0) + 1
        return out


def credulous_acceptance(
    framework: QBAF | SetAttacks,
    arguments: Iterable[str] | Literal["all", "proposals"] | None = None,
    *,
    method: str = "auto",
    solver: str = DEFAULT_SAT_SOLVER,
    shortcuts: bool = True,
) -> AcceptanceResult:
    """Credulous acceptance under d-preferred semantics (PAPER.md §4).

    x is accepted iff it belongs to at least one d-preferred extension, i.e. to some d-admissible
    set. Pipeline (proofs in the module docstring): self-attack ⇒ rejected; grounded extension
    shortcut; ancestor restriction; then one SAT query (or search) per remaining argument.

    Parameters
    ----------
    framework : QBAF or SetAttacks
        The bipolar framework (or its precomputed set-attack relation).
    arguments : iterable of str, "all", "proposals" or None
        Arguments to query: ids (unknown ones raise :class:`UnknownArgumentError`), ``"all"``
        (every argument of the framework), ``"proposals"`` (every proposal argument). The default
        ``None`` is the proposals when the framework has any, else every argument — a framework
        without proposals is never silently answered for no argument at all.
    method : {"auto", "sat", "search"}
        ``"sat"``: incremental pysat solver over the linear encoding; ``"search"``: a pure-Python
        backtracking search for an admissible set (sound and complete, exponential worst case);
        ``"auto"``: SAT when python-sat imports, else search.
    solver : str
        pysat solver name for ``"sat"`` (default :data:`DEFAULT_SAT_SOLVER`).
    shortcuts : bool
        False skips steps 1–2 (self-attack, grounded) and their unit clauses, so every query
        goes to the SAT solver / search; for differential tests and benchmarks.

    Returns
    -------
    AcceptanceResult
    """
    t_start = time.perf_counter()
    if method not in _METHODS:
        raise ValueError(f"unknown method {method!r}; use one of {', '.join(_METHODS)}")
    sa = _as_set_attacks(framework)
    q = sa.qbaf
    if arguments is None:
        arguments = "proposals" if q.is_proposal.any() else "all"
    if isinstance(arguments, str) and arguments in ("all", "proposals"):
        queried = q.ids if arguments == "all" else q.proposals
    else:
        queried = tuple(dict.fromkeys(_checked_ids(q, arguments)))
    ids = q.ids
    lab = sa.grounded_labels
    selfatt = sa.self_attacking_mask
    g = frozenset(ids[v] for v in np.flatnonzero(lab == 1).tolist())
    decisions: dict[str, ArgumentDecision] = {}
    pending: list[int] = []
    for a in queried:
        v = q.index[a]
        if not shortcuts:
            pending.append(v)
        elif selfatt[v]:
            decisions[a] = ArgumentDecision(a, False, "self-attacking")
        elif lab[v] == 1:
            decisions[a] = ArgumentDecision(a, True, "grounded", witness=g)
        elif lab[v] == -1:
            decisions[a] = ArgumentDecision(a, False, "attacked-by-grounded")
        else:
            pending.append(v)
    calls = n_encoded = n_clauses = 0
    used = "shortcuts"
    if pending:
        if method == "auto":
            try:
                import pysat.solvers  # noqa: F401

                method = "sat"
            except ImportError:  # pragma: no cover - python-sat is a core dependency
                method = "search"
        if method == "sat":
            calls, n_encoded, n_clauses = _decide_sat(sa, pending, solver, decisions, shortcuts)
            used = f"sat:{solver}"
        else:
            calls, n_encoded = _decide_search(sa, pending, decisions, shortcuts)
            used = "search"
    ordered = {a: decisions[a] for a in queried}
    return AcceptanceResult(
        accepted=frozenset(a for a in queried if decisions[a].accepted),
        queried=queried,
        method=used,
        decisions=MappingProxyType(ordered),
        solver_calls=calls,
        seconds=time.perf_counter() - t_start,
        n_set_attacks=len(sa),
        n_encoded=n_encoded,
        n_clauses=n_clauses,
        framework_ids=q.ids,
    )


def _checked_ids(q: QBAF, arguments: Iterable[str]) -> list[str]:
    ids = q.ids
    return [ids[v] for v in _indices(q, arguments)]


def _ancestor_mask(q: QBAF, seeds: list[int]) -> np.ndarray:
    from argfaith.qbaf._kernels import reach_backward

    ptr, src, _ = q.in_csr
    return reach_backward(q.n, ptr, src, np.asarray(seeds, dtype=np.int64))


def _decide_sat(
    sa: SetAttacks, pending: list[int], solver: str, out: dict[str, ArgumentDecision], units: bool
) -> tuple[int, int, int]:
    q = sa.qbaf
    ids = q.ids
    mask = _ancestor_mask(q, pending)
    enc = _AdmissibleEncoding(sa, mask, units=units)
    s = _new_solver(solver, enc.clauses)
    # Prefer "in" when the solver guesses: models then hold large admissible sets, and every
    # member of a model is accepted with the same witness, without a call of its own.
    s.set_phases([v + 1 for v in enc.u_nodes])
    calls = 0
    covered: dict[int, frozenset[str]] = {}
    try:
        for v in pending:
            if v in covered:
                out[ids[v]] = ArgumentDecision(ids[v], True, "sat", 0.0, covered[v])
                continue
            t0 = time.perf_counter()
            ok = s.solve(assumptions=[v + 1])
            calls += 1
            witness = None
            if ok:
                members = enc.members_of(s.get_model())
                witness = frozenset(ids[w] for w in members)
                for w in members:
                    covered.setdefault(w, witness)
            out[ids[v]] = ArgumentDecision(ids[v], bool(ok), "sat", time.perf_counter() - t0, witness)
    finally:
        s.delete()
    return calls, len(enc.u_nodes), len(enc.clauses)


def _decide_search(
    sa: SetAttacks, pending: list[int], out: dict[str, ArgumentDecision], use_grounded: bool
) -> tuple[int, int]:
    ids = sa.qbaf.ids
    explored: set[int] = set()
    covered: dict[int, frozenset[str]] = {}
    runs = 0
    for v in pending:
        if v in covered:
            out[ids[v]] = ArgumentDecision(ids[v], True, "search", 0.0, covered[v])
            continue
        t0 = time.perf_counter()
        found, touched = _admissible_containing(sa, v, use_grounded)
        runs += 1
        explored |= touched
        witness = None
        if found is not None:
            witness = frozenset(ids[w] for w in found)
            for w in found:
                covered.setdefault(w, witness)
        out[ids[v]] = ArgumentDecision(ids[v], found is not None, "search", time.perf_counter() - t0, witness)
    return runs, len(explored)


def _admissible_containing(sa: SetAttacks, x: int, use_grounded: bool = True) -> tuple[set[int] | None, set[int]]:
    """Backtracking search for an admissible set containing x (pure Python).

    State: a conflict-free set T ⊇ G ∪ {x} (T ⊇ {x} without ``use_grounded``) and a set of excluded arguments. Pick an attacker z
    of T that T does not attack yet (fewest candidate defenders first); branch on which defender
    d of z joins T, excluding each tried d in the later branches. Sound: T only ever grows
    conflict-free, and is returned once it attacks all its attackers. Complete: if an admissible
    T* ⊇ T avoids the excluded set, T* contains some candidate defender of z, and the first such
    branch keeps the invariant. Everything it adds is an R-ancestor of x, so the ancestor
    restriction is implicit.
    """
    ptr = sa.attacker_ptr.tolist()
    src = sa.attacker_idx.tolist()
    tptr_a, tidx_a = sa.target_csr
    tptr, tidx = tptr_a.tolist(), tidx_a.tolist()
    lab = sa.grounded_labels.tolist() if use_grounded else [0] * sa.qbaf.n
    selfatt = sa.self_attacking_mask.tolist()
    attackers = lambda v: src[ptr[v] : ptr[v + 1]]  # noqa: E731
    targets = lambda v: tidx[tptr[v] : tptr[v + 1]]  # noqa: E731
    base = {v for v, lv in enumerate(lab) if lv == 1}
    base.add(x)
    touched = set(base)

    def next_choice(t: set[int], t_plus: set[int], excluded: set[int]) -> tuple[bool, list[int] | None]:
        """(done, candidates): done when T attacks all its attackers; else the candidate
        defenders of the most constrained undefended attacker (empty list = dead end)."""
        best: list[int] | None = None
        for y in t:
            for z in attackers(y):
                if z in t_plus:
                    continue
                # z ∉ T⁺, so no member of T attacks z; a defender must be able to join T.
                cands = [
                    d
                    for d in attackers(z)
                    if d not in excluded and d not in t_plus and not selfatt[d] and lab[d] != -1
                    and not any(w in t for w in targets(d))
                ]
                if best is None or len(cands) < len(best):
                    best = cands
                    if not cands:
                        return False, best
        return best is None, best

    def t_plus_of(t: set[int]) -> set[int]:
        return {w for v in t for w in targets(v)}

    # Explicit stack of (T, excluded, remaining candidates): no recursion limit on long chains.
    t0 = set(base)
    tp0 = t_plus_of(t0)
    if t0 & tp0:
        return None, touched
    stack: list[tuple[set[int], set[int], list[int]]] = []
    done, cands = next_choice(t0, tp0, set())
    if done:
        return t0, touched
    stack.append((t0, set(), list(cands or [])))
    while stack:
        t, excluded, cands = stack[-1]
        if not cands:
            stack.pop()
            continue
        d = cands.pop(0)
        branch_excluded = set(excluded)
        excluded.add(d)  # later siblings exclude d
        t2 = t | {d}
        touched.add(d)
        tp2 = t_plus_of(t2)
        if t2 & tp2:
            continue
        done, nxt = next_choice(t2, tp2, branch_excluded)
        if done:
            return t2, touched
        if nxt:
            stack.append((t2, branch_excluded, list(nxt)))
    return None, touched


# ---------------------------------------------------------------------------------- d-preferred
def d_preferred_extensions(
    framework: QBAF | SetAttacks,
    *,
    max_arguments: int | None = DEFAULT_MAX_ARGUMENTS,
    max_extensions: int | None = DEFAULT_MAX_EXTENSIONS,
    solver: str = DEFAULT_SAT_SOLVER,
) -> list[frozenset[str]]:
    """All d-preferred extensions: the ⊆-maximal d-admissible sets (PAPER.md §4).

    SAT-based enumeration of maximal admissible sets (PrefSAT, Cerutti et al. 2013) over the
    linear encoding of the module docstring. Strict-definition edge case: a supports b and
    b attacks a make a self-attack, and then the only d-preferred extension of {a, b} is ∅.

    Parameters
    ----------
    framework : QBAF or SetAttacks
    max_arguments : int or None
        Refuse frameworks with more arguments (:class:`FrameworkTooLargeError`); None = no limit.
    max_extensions : int or None
        Stop with :class:`FrameworkTooLargeError` once more extensions than this are found
        (there can be exponentially many); None = no limit.
    solver : str
        pysat solver name.

    Returns
    -------
    list of frozenset of str
        Sorted by size, then by sorted ids; always non-empty (∅ is admissible).
    """
    sa = _as_set_attacks(framework)
    q = sa.qbaf
    if max_arguments is not None and q.n > max_arguments:
        raise FrameworkTooLargeError(
            f"d-preferred enumeration is exponential; the framework has {q.n} arguments, more than "
            f"max_arguments={max_arguments} (raise the limit, or use credulous_acceptance for per-argument answers)"
        )
    mask = np.ones(q.n, dtype=np.bool_)
    enc = _AdmissibleEncoding(sa, mask)
    s = _new_solver(solver, enc.clauses)
    s.set_phases([v + 1 for v in range(q.n)])  # large models: fewer growth steps
    top = enc.n_vars
    ids = q.ids
    found: list[frozenset[int]] = []
    try:
        while s.solve():
            ext = set(enc.members_of(s.get_model()))
            while True:  # grow to a ⊆-maximal admissible set
                rest = [v + 1 for v in range(q.n) if v not in ext]
                if not rest:
                    break
                top += 1
                s.add_clause([-top] + rest)  # activation literal: "one more argument"
                ok = s.solve(assumptions=[top] + [v + 1 for v in ext])
                if ok:
                    ext = set(enc.members_of(s.get_model()))
                s.add_clause([-top])  # retire the activation literal
                if not ok:
                    break
            found.append(frozenset(ext))
            if max_extensions is not None and len(found) > max_extensions:
                raise FrameworkTooLargeError(
                    f"more than max_extensions={max_extensions} d-preferred extensions; raise the limit"
                )
            block = [v + 1 for v in range(q.n) if v not in ext]
            if not block:
                break
            s.add_clause(block)  # later extensions are not subsets of this one
    finally:
        s.delete()
    exts = [frozenset(ids[v] for v in e) for e in found]
    return sorted(exts, key=lambda e: (len(e), sorted(e)))
