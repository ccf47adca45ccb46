"""The QBAF model: an immutable quantitative bipolar argumentation framework.

A QBAF is ⟨X, A, S, τ⟩ (PAPER.md §1): finite arguments X, attacks A ⊆ X×X, supports S ⊆ X×X with
A ∩ S = ∅, and base scores τ: X → [0, 1]. A *debate QBAF* (Definition 1) additionally splits X
into proposal arguments X_p (one per provision of the resolution, τ = 0.5) and speech arguments
X_s, and no edge leaves a proposal argument.

The model is array-first: ids, kinds and base scores are arrays, edges are ``(m, 2)`` integer
arrays, and the incoming-edge CSR arrays used by the numba kernels are built once on demand. The
per-argument :class:`Argument` objects (with text, speaker, position, metadata) are a view built
lazily, so a 10^6-argument framework never pays for 10^6 Python objects unless asked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any, Literal

import numpy as np

from argfaith.qbaf.errors import (
    BaseScoreError,
    ConflictingEdgeError,
    DuplicateArgumentError,
    DuplicateEdgeError,
    ProposalEdgeError,
    QBAFError,
    UnknownArgumentError,
)

__all__ = [
    "Argument",
    "ArgumentKind",
    "QBAF",
    "PROPOSAL",
    "SPEECH",
    "DEFAULT_PROPOSAL_BASE_SCORE",
    "DEFAULT_SPEECH_BASE_SCORE",
]

ArgumentKind = Literal["proposal", "speech"]
PROPOSAL: ArgumentKind = "proposal"
SPEECH: ArgumentKind = "speech"

#: τ of every proposal argument (Definition 1).
DEFAULT_PROPOSAL_BASE_SCORE = 0.5
#: The paper's default τ for speech arguments (Table 6 also uses 0.15 and 0.25).
DEFAULT_SPEECH_BASE_SCORE = 0.2

_EMPTY_META: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument of a QBAF.

    Attributes
    ----------
    id : str
        Unique, non-empty identifier.
    kind : {"proposal", "speech"}
        Proposal arguments stand for provisions of the debated resolution; speech arguments are
        mined from a transcript or a summary.
    base_score : float
        τ(x) in [0, 1].
    text, speaker, position :
        Optional provenance (argument text, who said it, order in the debate).
    metadata :
        Any further JSON-serialisable provenance (offsets, intervention id, ...).
    """

    id: str
    kind: ArgumentKind = SPEECH
    base_score: float = DEFAULT_SPEECH_BASE_SCORE
    text: str | None = None
    speaker: str | None = None
    position: int | None = None
    metadata: Mapping[str, Any] = field(default_factory=lambda: _EMPTY_META)

    @property
    def is_proposal(self) -> bool:
        return self.kind == PROPOSAL


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _as_edge_array(edges: Any, n: int, relation: str) -> np.ndarray:
    arr = np.asarray(edges, dtype=np.int64)
    if arr.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise QBAFError(f"{relation}: expected an (m, 2) array of argument indices, got shape {arr.shape}")
    return arr


class QBAF:
    """An immutable QBAF ⟨X, A, S, τ⟩, optionally a debate QBAF (Definition 1).

    Build one with :meth:`from_arguments` (ids and id pairs, full validation) or
    :meth:`from_arrays` (index arrays, vectorised validation; the fast path for large graphs).

    Examples
    --------
    >>> q = QBAF.from_arguments(
    ...     [Argument("p1", "proposal", 0.5), Argument("s1")],
    ...     attacks=[("s1", "p1")], supports=[], debate=True)
    >>> q.attackers("p1")
    ('s1',)
    """

    __slots__ = (
        "_ids",
        "_n",
        "_is_proposal",
        "_base_scores",
        "_attacks",
        "_supports",
        "_texts",
        "_speakers",
        "_positions",
        "_metadata",
        "tau",
        "debate",
        "name",
        "info",
        "__dict__",  # for cached_property
    )

    def __init__(
        self,
        ids: Sequence[str] | None,
        is_proposal: np.ndarray,
        base_scores: np.ndarray,
        attacks: np.ndarray,
        supports: np.ndarray,
        *,
        texts: Sequence[str | None] | None = None,
        speakers: Sequence[str | None] | None = None,
        positions: Sequence[int | None] | None = None,
        metadata: Sequence[Mapping[str, Any] | None] | None = None,
        tau: float = DEFAULT_SPEECH_BASE_SCORE,
        debate: bool = False,
        name: str | None = None,
        info: Mapping[str, Any] | None = None,
        validate: bool = True,
        copy: bool = True,
    ) -> None:
        # ids=None means the default ids "a0".."a{n-1}", materialised only when first asked for:
        # building 10^6 Python strings costs more than the whole DF-QuAD pass.
        self._ids = tuple(ids) if ids is not None else None
        n = len(self._ids) if self._ids is not None else int(np.shape(base_scores)[0])
        self._n = n
        # copy=False: the caller hands over base scores and edge arrays it has just built and
        # keeps no reference to (from_edges); they are made read-only in place, not copied.
        own = (lambda a: a.copy()) if copy else (lambda a: a)
        self._is_proposal = _readonly(np.array(is_proposal, dtype=np.bool_))
        self._base_scores = _readonly(own(np.asarray(base_scores, dtype=np.float64)))
        self._attacks = _readonly(own(_as_edge_array(attacks, n, "attacks")))
        self._supports = _readonly(own(_as_edge_array(supports, n, "supports")))
        self._texts = tuple(texts) if texts is not None else None
        self._speakers = tuple(speakers) if speakers is not None else None
        self._positions = tuple(positions) if positions is not None else None
        self._metadata = tuple(metadata) if metadata is not None else None
        self.tau = float(tau)
        self.debate = bool(debate)
        self.name = name
        #: Free-form provenance of the whole framework (source document, miner, classifier, ...).
        self.info: Mapping[str, Any] = MappingProxyType(dict(info or {}))
        if validate:
            self._validate()

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_arguments(
        cls,
        arguments: Iterable[Argument | Mapping[str, Any]],
        attacks: Iterable[tuple[str, str]] = (),
        supports: Iterable[tuple[str, str]] = (),
        *,
        tau: float = DEFAULT_SPEECH_BASE_SCORE,
        debate: bool = False,
        name: str | None = None,
        info: Mapping[str, Any] | None = None,
    ) -> QBAF:
        """Build a QBAF from arguments and (source id, target id) edges, validating everything.

        Arguments given as mappings may omit ``base_score``: proposals then get 0.5 and speech
        arguments the framework-level ``tau``.
        """
        args: list[Argument] = []
        for i, a in enumerate(arguments):
            if isinstance(a, Argument):
                args.append(a)
                continue
            if not isinstance(a, Mapping):
                raise QBAFError(f"arguments[{i}]: expected an Argument or a mapping, got {type(a).__name__}")
            kind = a.get("kind", SPEECH)
            bs = a.get("base_score")
            if bs is None:
                bs = DEFAULT_PROPOSAL_BASE_SCORE if kind == PROPOSAL else tau
            args.append(
                Argument(
                    id=a.get("id"),  # type: ignore[arg-type]
                    kind=kind,
                    base_score=bs,
                    text=a.get("text"),
                    speaker=a.get("speaker"),
                    position=a.get("position"),
                    metadata=MappingProxyType(dict(a.get("metadata") or {})),
                )
            )
        index: dict[str, int] = {}
        for i, a in enumerate(args):
            if not isinstance(a.id, str) or not a.id:
                raise QBAFError(f"arguments[{i}]: id must be a non-empty string, got {a.id!r}")
            if a.kind not in (PROPOSAL, SPEECH):
                raise QBAFError(f"argument {a.id!r}: kind must be 'proposal' or 'speech', got {a.kind!r}")
            if a.id in index:
                raise DuplicateArgumentError(
                    f"duplicate argument id {a.id!r} (arguments[{index[a.id]}] and arguments[{i}])"
                )
            index[a.id] = i

        def to_idx(edges: Iterable[tuple[str, str]], relation: str) -> np.ndarray:
            out = []
            for k, e in enumerate(edges):
                try:
                    s, t = e
                except (TypeError, ValueError):
                    raise QBAFError(f"{relation}[{k}]: expected a [source, target] pair, got {e!r}") from None
                for end in (s, t):
                    if end not in index:
                        raise UnknownArgumentError(
                            f"{relation}[{k}] ({s!r} -> {t!r}): unknown argument {end!r}"
                        )
                out.append((index[s], index[t]))
            return np.asarray(out, dtype=np.int64).reshape(-1, 2)

        att = to_idx(attacks, "attacks")
        sup = to_idx(supports, "supports")
        meta = [a.metadata if a.metadata else None for a in args]
        return cls(
            [a.id for a in args],
            np.array([a.kind == PROPOSAL for a in args], dtype=np.bool_),
            np.array([_score(a) for a in args], dtype=np.float64),
            att,
            sup,
            texts=[a.text for a in args] if any(a.text is not None for a in args) else None,
            speakers=[a.speaker for a in args] if any(a.speaker is not None for a in args) else None,
            positions=[a.position for a in args] if any(a.position is not None for a in args) else None,
            metadata=meta if any(m is not None for m in meta) else None,
            tau=tau,
            debate=debate,
            name=name,
            info=info,
        )

    @classmethod
    def from_arrays(
        cls,
        base_scores: Any,
        attacks: Any = (),
        supports: Any = (),
        *,
        is_proposal: Any = None,
        ids: Sequence[str] | None = None,
        tau: float = DEFAULT_SPEECH_BASE_SCORE,
        debate: bool = False,
        name: str | None = None,
    ) -> QBAF:
        """Fast constructor from index arrays: ``attacks``/``supports`` are ``(m, 2)`` integer
        arrays of (source, target) indices into ``base_scores``. Ids default to ``"a0".."a{n-1}"``.
        """
        return cls._from_arrays(base_scores, attacks, supports, is_proposal=is_proposal, ids=ids, tau=tau, debate=debate, name=name)

    @classmethod
    def _from_arrays(
        cls,
        base_scores: Any,
        attacks: Any,
        supports: Any,
        *,
        is_proposal: Any,
        ids: Sequence[str] | None,
        tau: float,
        debate: bool,
        name: str | None,
        copy: bool = True,
        unique_ids: bool = False,
    ) -> QBAF:
        """:meth:`from_arrays`; ``copy=False`` hands the arrays over (see :meth:`__init__`),
        ``unique_ids=True`` skips the duplicate-id check (ids that are a mapping's keys)."""
        bs = np.asarray(base_scores, dtype=np.float64)
        if bs.ndim != 1:
            raise QBAFError(f"base_scores must be a 1-d array, got shape {bs.shape}")
        n = bs.shape[0]
        if ids is not None and len(ids) != n:
            raise QBAFError(f"ids has {len(ids)} entries but base_scores has {n}")
        prop = np.zeros(n, dtype=np.bool_) if is_proposal is None else np.asarray(is_proposal, dtype=np.bool_)
        if prop.shape != (n,):
            raise QBAFError(f"is_proposal has shape {prop.shape}, expected ({n},)")
        if ids is not None and not unique_ids and len(set(ids)) != n:
            seen: set[str] = set()
            for i in ids:
                if i in seen:
                    raise DuplicateArgumentError(f"duplicate argument id {i!r}")
                seen.add(i)
        return cls(ids, prop, bs, attacks, supports, tau=tau, debate=debate, name=name, copy=copy)

    @classmethod
    def from_edges(
        cls,
        arguments: Any,
        attacks: Any = (),
        supports: Any = (),
        *,
        ids: Sequence[str] | None = None,
        is_proposal: Any = None,
        tau: float = DEFAULT_SPEECH_BASE_SCORE,
        debate: bool = False,
        name: str | None = None,
    ) -> QBAF:
        """Build a QBAF from plain Python containers, as other libraries are called — fast.

        Parameters
        ----------
        arguments :
            The base scores: a sequence (list, tuple, array) aligned with ``ids`` (default ids
            ``"a0".."a{n-1}"``), or a mapping ``{id: base score}`` (its keys, in order, are the ids).
        attacks, supports :
            ``(source, target)`` pairs, either of positions (ints) or of ids (strings); lists,
            tuples, any iterable, or ``(m, 2)`` integer arrays.

        Pairs of ints are converted with one C-level pass (no per-pair Python objects are
        created); pairs of ids are matched to the ids by object identity (a hash table of their
        addresses), endpoints that are equal but not identical strings by their characters in
        compiled code. Validation is the same as :meth:`from_arrays` (every error names the
        offending item).

        Examples
        --------
        >>> q = QBAF.from_edges({"p": 0.5, "a": 0.2, "s": 0.2}, attacks=[("a", "p")], supports=[("s", "p")])
        >>> q.attackers("p"), QBAF.from_edges([0.5, 0.2], attacks=[(1, 0)]).attack_array.tolist()
        (('a',), [[1, 0]])
        """
        if isinstance(arguments, Mapping):
            if ids is not None:
                raise QBAFError("ids: not with a mapping of arguments (its keys are the ids)")
            ids = list(arguments.keys())
            try:
                bs = np.fromiter(arguments.values(), dtype=np.float64, count=len(ids))
            except (TypeError, ValueError):
                bad = next(k for k, v in arguments.items() if not _is_number(v))
                raise BaseScoreError(f"argument {bad!r}: base score {arguments[bad]!r} is not a number") from None
        else:
            try:
                bs = np.asarray(arguments, dtype=np.float64)
            except (TypeError, ValueError):
                raise QBAFError("arguments: expected base scores (a sequence of numbers) or a mapping {id: base score}") from None
        if bs.ndim != 1:
            raise QBAFError(f"arguments: expected a 1-d sequence of base scores, got shape {bs.shape}")
        if ids is not None:
            ids = list(ids)
            # two C-level passes; the item-by-item scan only to name the bad id they found
            if set(map(type, ids)) - {str} or not all(ids):
                bad_id = next(i for i, a in enumerate(ids) if not isinstance(a, str) or not a)
                raise QBAFError(f"ids[{bad_id}]: an id must be a non-empty string, got {ids[bad_id]!r}")
        matcher: _IdMatcher | None = None

        def lookup() -> _IdMatcher:
            nonlocal matcher
            if ids is None:
                raise QBAFError("edges name arguments by id, but no ids were given (pass ids= or a mapping of arguments)")
            if matcher is None:
                matcher = _IdMatcher(ids)
            return matcher

        att = _pairs_to_array(attacks, "attacks", lookup)
        sup = _pairs_to_array(supports, "supports", lookup)
        # Arrays built here from Python containers are handed over, not copied again (10^7
        # endpoints are 80 MB); anything that may share memory with the caller's data is copied.
        if not isinstance(arguments, (list, tuple, Mapping)):
            bs = bs.copy()
        att = att.copy() if isinstance(attacks, np.ndarray) else att
        sup = sup.copy() if isinstance(supports, np.ndarray) else sup
        return cls._from_arrays(
            bs, att, sup, is_proposal=is_proposal, ids=ids, tau=tau, debate=debate, name=name, copy=False,
            unique_ids=isinstance(arguments, Mapping),
        )

    # ------------------------------------------------------------------ validation
    def _validate(self) -> None:
        n = self._n
        if self._is_proposal.shape != (n,) or self._base_scores.shape != (n,):
            raise QBAFError(
                f"ids, kinds and base scores must have the same length (got {n}, "
                f"{self._is_proposal.shape[0]}, {self._base_scores.shape[0]})"
            )
        bs = self._base_scores
        bad = np.flatnonzero(~((bs >= 0.0) & (bs <= 1.0)))  # NaN fails both comparisons
        if bad.size:
            i = int(bad[0])
            raise BaseScoreError(
                f"argument {self._id(i)!r}: base score {float(bs[i])!r} is not in [0, 1]"
                + (f" ({bad.size} arguments in all)" if bad.size > 1 else "")
            )
        # One O(n + m) counting sort both checks the indices and builds the incoming CSR the
        # kernels need anyway; duplicates and A ∩ S are then found in one marker sweep
        # (sorting 5·10^6 edge codes with np.unique took ~0.8 s per relation).
        ptr, src, att = self._build_csr(by_target=True)
        from argfaith.qbaf._kernels import first_edge_conflict

        j1, j2 = first_edge_conflict(n, ptr, src)
        if j1 >= 0:
            # Error path only: locate the two listings of the pair in the input arrays.
            u, v = int(src[j1]), int(np.searchsorted(ptr, j1, side="right") - 1)
            (r1, i1), (r2, i2) = self._edge_positions(u, v)[:2]
            s, t = self._id(u), self._id(v)
            if r1 == r2:
                raise DuplicateEdgeError(f"{r1}[{i1}] and {r2}[{i2}]: edge ({s!r} -> {t!r}) is listed more than once")
            raise ConflictingEdgeError(
                f"{r1}[{i1}] and {r2}[{i2}]: edge ({s!r} -> {t!r}) is both an attack and a support; "
                "A ∩ S must be empty"
            )
        self.__dict__["in_csr"] = (_readonly(ptr), _readonly(src), _readonly(att))
        if self.debate:
            for rel, e in (("attacks", self._attacks), ("supports", self._supports)):
                if e.size == 0:
                    continue
                leaving = np.flatnonzero(self._is_proposal[e[:, 0]])
                if leaving.size:
                    k = int(leaving[0])
                    s, t = (self._id(int(v)) for v in e[k])
                    raise ProposalEdgeError(
                        f"{rel}[{k}]: edge ({s!r} -> {t!r}) leaves proposal argument "
                        f"{s!r}; in a debate QBAF edges only leave speech arguments (Definition 1)"
                    )

    def _id(self, i: int) -> str:
        """Id of argument index ``i`` without materialising default ids."""
        return self._ids[i] if self._ids is not None else f"a{i}"

    def _edge_ref(self, k: int) -> tuple[str, int]:
        """Position ``k`` in attacks-then-supports order → (relation name, index in it)."""
        ma = self._attacks.shape[0]
        return ("attacks", k) if k < ma else ("supports", k - ma)

    def _edge_positions(self, s: int, t: int) -> list[tuple[str, int]]:
        """Every (relation, index) at which the pair (s, t) is listed, attacks first."""
        out = []
        for rel, e in (("attacks", self._attacks), ("supports", self._supports)):
            if e.size:
                out += [(rel, int(k)) for k in np.flatnonzero((e[:, 0] == s) & (e[:, 1] == t))]
        return out

    def _build_csr(self, by_target: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        from argfaith.qbaf._kernels import build_csr

        bad, ptr, other, att = build_csr(self._n, self._attacks, self._supports, 1 if by_target else 0)
        if bad >= 0:
            rel, k = self._edge_ref(int(bad))
            e = (self._attacks if rel == "attacks" else self._supports)[k]
            raise UnknownArgumentError(
                f"{rel}[{k}]: index pair {(int(e[0]), int(e[1]))} refers to an argument outside 0..{self._n - 1}"
            )
        return ptr, other, att

    # ------------------------------------------------------------------ basic views
    @property
    def n(self) -> int:
        """Number of arguments |X|."""
        return self._n

    def __len__(self) -> int:
        return self._n

    @property
    def ids(self) -> tuple[str, ...]:
        if self._ids is None:
            # Default ids, materialised once on first use (see __init__).
            self._ids = tuple(f"a{i}" for i in range(self._n))
        return self._ids

    @cached_property
    def index(self) -> Mapping[str, int]:
        """Map from argument id to its position in the arrays."""
        return MappingProxyType({a: i for i, a in enumerate(self.ids)})

    def idx(self, arg_id: str) -> int:
        """Index of ``arg_id``; raises :class:`UnknownArgumentError` naming it."""
        try:
            return self.index[arg_id]
        except KeyError:
            raise UnknownArgumentError(f"unknown argument {arg_id!r}") from None

    def __contains__(self, arg_id: object) -> bool:
        return arg_id in self.index

    @property
    def is_proposal(self) -> np.ndarray:
        """Boolean array, True for proposal arguments (read-only)."""
        return self._is_proposal

    @property
    def base_scores(self) -> np.ndarray:
        """τ as a float64 array aligned with :attr:`ids` (read-only)."""
        return self._base_scores

    @property
    def attack_array(self) -> np.ndarray:
        """Attacks as an ``(m, 2)`` array of (source, target) indices (read-only)."""
        return self._attacks

    @property
    def support_array(self) -> np.ndarray:
        """Supports as a ``(k, 2)`` array of (source, target) indices (read-only)."""
        return self._supports

    @property
    def attacks(self) -> tuple[tuple[str, str], ...]:
        ids = self.ids
        return tuple((ids[s], ids[t]) for s, t in self._attacks.tolist())

    @property
    def supports(self) -> tuple[tuple[str, str], ...]:
        ids = self.ids
        return tuple((ids[s], ids[t]) for s, t in self._supports.tolist())

    @property
    def n_edges(self) -> int:
        return int(self._attacks.shape[0] + self._supports.shape[0])

    @property
    def proposals(self) -> tuple[str, ...]:
        """Ids of the proposal arguments X_p, in framework order."""
        return tuple(self._id(int(i)) for i in np.flatnonzero(self._is_proposal))

    @property
    def speech_arguments(self) -> tuple[str, ...]:
        """Ids of the speech arguments X_s, in framework order."""
        return tuple(self._id(int(i)) for i in np.flatnonzero(~self._is_proposal))

    def base_score(self, arg_id: str) -> float:
        return float(self._base_scores[self.idx(arg_id)])

    def argument(self, arg_id: str) -> Argument:
        return self.arguments[self.idx(arg_id)]

    @cached_property
    def arguments(self) -> tuple[Argument, ...]:
        """All arguments as :class:`Argument` objects (built lazily, once)."""
        out = []
        for i, a in enumerate(self.ids):
            meta = self._metadata[i] if self._metadata is not None else None
            out.append(
                Argument(
                    id=a,
                    kind=PROPOSAL if self._is_proposal[i] else SPEECH,
                    base_score=float(self._base_scores[i]),
                    text=self._texts[i] if self._texts is not None else None,
                    speaker=self._speakers[i] if self._speakers is not None else None,
                    position=self._positions[i] if self._positions is not None else None,
                    metadata=MappingProxyType(dict(meta)) if meta else _EMPTY_META,
                )
            )
        return tuple(out)

    # ------------------------------------------------------------------ CSR views for kernels
    @cached_property
    def in_csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Incoming edges in CSR form: ``(ptr, src, is_attack)``.

        The edges entering argument ``v`` are ``src[ptr[v]:ptr[v+1]]``; ``is_attack`` is True for
        attacks and False for supports. Within one target, attacks come before supports, each in
        input order (a stable order, so kernels are deterministic).
        """
        return self._csr(by_target=True)

    @cached_property
    def out_csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Outgoing edges in CSR form: ``(ptr, dst, is_attack)``, like :attr:`in_csr`."""
        return self._csr(by_target=False)

    def _csr(self, by_target: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        ptr, other, att = self._build_csr(by_target)
        return _readonly(ptr), _readonly(other), _readonly(att)

    def attackers(self, arg_id: str) -> tuple[str, ...]:
        """attackers(x) = {y | (y, x) ∈ A}, in input order."""
        ptr, src, att = self.in_csr
        v = self.idx(arg_id)
        sl = slice(ptr[v], ptr[v + 1])
        return tuple(self.ids[s] for s, a in zip(src[sl].tolist(), att[sl].tolist()) if a)

    def supporters(self, arg_id: str) -> tuple[str, ...]:
        """supporters(x) = {y | (y, x) ∈ S}, in input order."""
        ptr, src, att = self.in_csr
        v = self.idx(arg_id)
        sl = slice(ptr[v], ptr[v + 1])
        return tuple(self.ids[s] for s, a in zip(src[sl].tolist(), att[sl].tolist()) if not a)

    # ------------------------------------------------------------------ derived frameworks
    def with_base_scores(self, scores: Mapping[str, float] | np.ndarray) -> QBAF:
        """A copy with some (mapping) or all (array) base scores replaced."""
        if isinstance(scores, Mapping):
            new = self._base_scores.copy()
            for k, v in scores.items():
                new[self.idx(k)] = v
        else:
            new = np.asarray(scores, dtype=np.float64)
        return self._replace(base_scores=new)

    def with_speech_base_score(self, tau: float) -> QBAF:
        """A copy where every speech argument has base score ``tau`` (the paper's Table 6 sweep)."""
        new = np.where(self._is_proposal, self._base_scores, float(tau))
        return self._replace(base_scores=new, tau=float(tau))

    def _replace(self, **changes: Any) -> QBAF:
        kw: dict[str, Any] = dict(
            ids=self._ids,
            is_proposal=self._is_proposal,
            base_scores=self._base_scores,
            attacks=self._attacks,
            supports=self._supports,
            texts=self._texts,
            speakers=self._speakers,
            positions=self._positions,
            metadata=self._metadata,
            tau=self.tau,
            debate=self.debate,
            name=self.name,
            info=self.info,
        )
        kw.update(changes)
        ids = kw.pop("ids")
        return QBAF(ids, kw.pop("is_proposal"), kw.pop("base_scores"), kw.pop("attacks"), kw.pop("supports"), **kw)

    def is_acyclic(self) -> bool:
        """True iff the graph (X, A ∪ S) has no directed cycle (self-loops count as cycles).

        Kahn's algorithm straight on the kernel (as :func:`argfaith.qbaf.graph.topological_order`,
        which imports this module: calling the kernel keeps the two modules out of a cycle)."""
        from argfaith.qbaf._kernels import kahn_order

        iptr, _, _ = self.in_csr
        optr, odst, _ = self.out_csr
        _, k = kahn_order(self.n, iptr, optr, odst)
        return int(k) == self.n

    # ------------------------------------------------------------------ dunder
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, QBAF):
            return NotImplemented
        if self.ids != other.ids:
            return False
        return (
            np.array_equal(self._is_proposal, other._is_proposal)
            and np.array_equal(self._base_scores, other._base_scores)
            and _edge_set(self._attacks) == _edge_set(other._attacks)
            and _edge_set(self._supports) == _edge_set(other._supports)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        kind = "debate QBAF" if self.debate else "QBAF"
        return (
            f"<{kind}{' ' + repr(self.name) if self.name else ''}: {self.n} arguments "
            f"({int(self._is_proposal.sum())} proposals), {len(self._attacks)} attacks, {len(self._supports)} supports>"
        )


def _is_number(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def _pairs_to_array(edges: Any, relation: str, lookup: Any) -> np.ndarray:
    """(source, target) pairs of positions or ids → an (m, 2) int64 array (see
    :meth:`QBAF.from_edges`); errors name the offending pair."""
    import itertools

    if isinstance(edges, np.ndarray):
        return edges
    if not isinstance(edges, (list, tuple)):
        edges = list(edges)
    m = len(edges)
    if m == 0:
        return np.zeros((0, 2), np.int64)
    try:
        pairs = set(map(len, edges)) == {2}  # one C-level pass, no array of lengths
    except TypeError:
        k = next(i for i, e in enumerate(edges) if not hasattr(e, "__len__"))
        raise QBAFError(f"{relation}[{k}]: expected a (source, target) pair, got {edges[k]!r}") from None
    if not pairs:
        k = next(i for i, e in enumerate(edges) if len(e) != 2)
        raise QBAFError(f"{relation}[{k}]: expected a (source, target) pair, got {edges[k]!r}")
    first = edges[0][0]
    if not isinstance(first, (str, int, np.integer)) or isinstance(first, bool):
        raise QBAFError(f"{relation}[0]: expected a pair of argument positions (ints) or ids (strings), got {edges[0]!r}")
    if isinstance(first, str):
        matcher = lookup()
        try:
            out = matcher.positions(edges, m)
        except (KeyError, TypeError):
            index = matcher.index
            for k, (s, t) in enumerate(edges):  # error path: name the pair
                for end in (s, t):
                    if not isinstance(end, str) or end not in index:
                        raise UnknownArgumentError(f"{relation}[{k}] ({s!r} -> {t!r}): unknown argument {end!r}") from None
            raise
    else:
        try:
            out = np.fromiter(itertools.chain.from_iterable(edges), dtype=np.int64, count=2 * m)
        except (TypeError, ValueError, OverflowError):
            for k, e in enumerate(edges):
                if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in e):
                    raise QBAFError(f"{relation}[{k}]: expected a pair of argument positions (ints) or ids (strings), got {e!r}") from None
            raise
    return out if out.ndim == 2 else out.reshape(m, 2)


_ADDRESS_PROBE = 256  # edges whose endpoints decide between matching by address and by characters
_CHARACTER_CHUNK = 1 << 22  # code points per fixed-width copy of endpoints (16 MB)


def _code_points(strings: Sequence[str]) -> np.ndarray:
    """Strings as an (n, width) ``uint32`` array of code points, zero-padded."""
    u = np.array(strings, dtype=str)
    return u.view(np.uint32).reshape(u.shape[0], -1)


class _IdMatcher:
    """Positions of id endpoints, for :meth:`QBAF.from_edges` and :func:`~argfaith.qbaf.io.from_networkx`.

    Most callers name endpoints with the very string objects of their id list (a networkx graph
    yields its node keys; a user builds pairs from their ids), so endpoints are matched by object
    identity first: their addresses (``id()``, which reads no characters) are looked up in a hash
    table of the ids' addresses, built once for both relations
    (:func:`argfaith.qbaf._kernels.address_table`, :func:`~argfaith.qbaf._kernels.match_addresses`).
    Endpoints that are equal but not identical strings (ids read from a file, say) are matched by
    their characters when they are most of them (:meth:`by_characters`), through the dictionary
    ``index`` when they are few. What remains is Python handing out each endpoint once — a
    reference count touched at a random place in memory, about 0.2 µs per endpoint, two thirds of
    the whole job at 10^6 arguments and 5·10^6 edges.
    """

    def __init__(self, ids: Sequence[str]) -> None:
        from argfaith.qbaf._kernels import address_table

        self.ids = ids
        self.table = address_table(np.fromiter(map(id, ids), dtype=np.int64, count=len(ids)))

    @cached_property
    def index(self) -> dict[str, int]:
        return dict(zip(self.ids, range(len(self.ids))))

    @cached_property
    def characters(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The ids as rows of code points (a fixed-width string array viewed as ``uint32``),
        their lengths, and the hash table of the rows (:func:`argfaith.qbaf._kernels.string_table`)."""
        from argfaith.qbaf._kernels import string_table

        codes = _code_points(self.ids)
        lengths = np.fromiter(map(len, self.ids), dtype=np.int64, count=len(self.ids))
        return codes, lengths, string_table(codes)

    def by_characters(self, edges: Sequence[Any], m: int) -> np.ndarray:
        """Positions of endpoints that are equal but not identical strings, matched by their
        characters in compiled code (:func:`argfaith.qbaf._kernels.match_strings`): numpy copies
        each chunk of endpoints into a fixed-width array at C speed, where a dictionary lookup per
        endpoint costs ≈ 0.8 µs of cache misses at 10^6 ids. Anything but plain strings goes
        through the dictionary, which raises for it."""
        import itertools

        from argfaith.qbaf._kernels import match_strings

        flat = list(itertools.chain.from_iterable(edges))
        if set(map(type, flat)) != {str}:
            index = self.index
            return np.fromiter(map(index.__getitem__, flat), dtype=np.int64, count=2 * m).reshape(m, 2)
        codes, lengths, slots = self.characters
        out = np.empty(2 * m, np.int64)
        step = max(1024, _CHARACTER_CHUNK // codes.shape[1])  # bounds the fixed-width copies' memory
        for a in range(0, 2 * m, step):
            out[a : a + step] = match_strings(slots, codes, _code_points(flat[a : a + step]))
        # numpy drops trailing NUL characters: a match counts only with the same length
        sizes = np.fromiter(map(len, flat), dtype=np.int64, count=2 * m)
        for k in np.flatnonzero((out < 0) | (lengths[out] != sizes)).tolist():
            out[k] = self.index[flat[k]]  # KeyError: not an id
        return out.reshape(m, 2)

    def positions(self, edges: Sequence[Any], m: int) -> np.ndarray:
        """The (m, 2) positions of ``edges`` (pairs of ids); KeyError / TypeError for an
        endpoint that is not an id."""
        import itertools

        from argfaith.qbaf._kernels import match_addresses

        def by_address(part: Sequence[Any], k: int) -> np.ndarray:
            return match_addresses(self.table, np.fromiter(map(id, itertools.chain.from_iterable(part)), dtype=np.int64, count=2 * k))

        # The first edges tell whether the endpoints are the id objects themselves; if they are
        # mostly equal-but-not-identical strings, an address pass over all of them is wasted.
        head = min(m, _ADDRESS_PROBE)
        out = by_address(edges[:head], head)
        if head < m and np.count_nonzero(out < 0) <= out.shape[0] // 4:
            out = by_address(edges, m)
        miss = np.flatnonzero(out < 0)
        if miss.size > out.shape[0] // 4:  # mostly equal-but-not-identical strings
            return self.by_characters(edges, m)
        for k in miss.tolist():  # a few equal-but-not-identical strings (or unknown ones)
            end = edges[k // 2][k % 2]
            if not isinstance(end, str):
                raise TypeError(end)
            out[k] = self.index[end]
        return out.reshape(m, 2)


def _edge_set(e: np.ndarray) -> set[tuple[int, int]]:
    return set(map(tuple, e.tolist()))


def _score(a: Argument) -> float:
    try:
        return float(a.base_score)
    except (TypeError, ValueError):
        raise BaseScoreError(f"argument {a.id!r}: base score {a.base_score!r} is not a number") from None
