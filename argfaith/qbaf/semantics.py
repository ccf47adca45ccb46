"""Gradual semantics as data: aggregation × influence (Mossakowski & Neuhaus 2018; Potyka 2019).

A *modular* gradual semantics computes the strength of an argument x from its base score
w = τ(x) and the strengths of its attackers and supporters in two steps:

    σ(x) = ι(w, α(σ(Att(x)), σ(Sup(x))))

where the *aggregation* α folds the attackers' and supporters' strengths into one real number
and the *influence* ι moves the base score up or down by it (Mossakowski & Neuhaus, "Modular
semantics and characteristics for bipolar weighted argumentation graphs", arXiv:1807.06685,
2018; Potyka, "Extending modular semantics for bipolar weighted argumentation", AAMAS 2019).
argfaith writes every aggregation as α = S − A, with one *polarity aggregate* per side:

============  ==========================  ===================================================
aggregation   polarity aggregate g(V)      α(att, sup)
============  ==========================  ===================================================
``sum``       Σ v                          Σ σ(sup) − Σ σ(att)
``product``   1 − ∏ (1 − v)                ∏(1 − σ(att)) − ∏(1 − σ(sup))  (Potyka 2019)
``top``       max V (0 for V = ∅)          max σ(sup) − max σ(att)
============  ==========================  ===================================================

============================  ==============================================================
influence                     ι(w, α)
============================  ==============================================================
``linear(k)``                 w − (w/k)·max(0, −α) + ((1 − w)/k)·max(0, α)
``p-max(p, k)``               w − w·h(−α/k) + (1 − w)·h(α/k),  h(x) = max(0, x)^p / (1 + max(0, x)^p)
``euler``                     1 − (1 − w²) / (1 + w·e^α)
``logistic`` (MLP)            φ(ln(w / (1 − w)) + α),  φ(z) = 1 / (1 + e^−z);  w ∈ {0, 1} ↦ w
``h-categorizer``             w / (1 − α)  (attack-only: α = −Σ σ(att) ≤ 0)
``quad`` (not modular)        QuAD's combination of w, A = g(att), S = g(sup) (see :data:`QUAD`)
============================  ==============================================================

Named instances (:data:`NAMED`), each with the paper it comes from:

=========================  ===========================  =====================================
name                       aggregation × influence      source
=========================  ===========================  =====================================
``dfquad``                 product × linear(1)          Rago, Toni, Aurisicchio & Baroni 2016
``quad``                   product × QuAD combination   Baroni, Romano, Toni, Aurisicchio & Bertanza 2015
``quadratic-energy``       sum × 2-max(1)               Potyka 2018 (KR)
``euler-based``            sum × euler                  Amgoud & Ben-Naim 2018 (IJCAI)
``restricted-euler-based`` sum × euler, acyclic only    Amgoud & Ben-Naim 2017 (ECSQARU); REB in Baroni, Rago & Toni 2019
``mlp-based``              sum × logistic               Potyka 2021 (AAAI)
``weighted-h-categorizer`` sum × h-categorizer          Amgoud, Ben-Naim, Doder & Vesic 2017 (IJCAI); attack-only
=========================  ===========================  =====================================

Users compose their own pair with :func:`compose` (``compose("top", Euler())``) or the string
form ``"top:euler"`` / ``"sum:pmax(2,1)"`` / ``"product:linear(2)"`` accepted wherever a
semantics name is (:func:`get_semantics`).

A :class:`GradualSemantics` can be handed to the principle checks of
:mod:`argfaith.qbaf.principles` directly (they evaluate it with default solver options); a plain
callable ``QBAF -> {id: σ}`` is :func:`argfaith.qbaf.gradual.strength_function`. Strengths with
diagnostics come from :func:`argfaith.qbaf.gradual.gradual_strengths`. (This module holds the
data only and imports no solver: the solver imports it.)

Domains. ``restricted-euler-based`` is defined on acyclic frameworks only (that is what
"restricted" means in Amgoud & Ben-Naim 2017); ``weighted-h-categorizer`` on frameworks without
supports. Outside its domain a semantics raises :class:`SemanticsDomainError` naming the
offending argument or edge, instead of inventing a value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from argfaith.qbaf.errors import QBAFError

if TYPE_CHECKING:
    from argfaith.qbaf.framework import QBAF

__all__ = [
    "Aggregation",
    "Influence",
    "Linear",
    "PMax",
    "Euler",
    "Logistic",
    "HCategorizer",
    "QuADCombination",
    "GradualSemantics",
    "SemanticsDomainError",
    "SUM",
    "PRODUCT",
    "TOP",
    "AGGREGATIONS",
    "DFQUAD",
    "QUAD",
    "QUADRATIC_ENERGY",
    "EULER_BASED",
    "RESTRICTED_EULER_BASED",
    "MLP_BASED",
    "WEIGHTED_H_CATEGORIZER",
    "NAMED",
    "compose",
    "get_semantics",
    "semantics_names",
]


class SemanticsDomainError(QBAFError):
    """A semantics was applied outside its domain (a cycle for a restricted semantics, a support
    for an attack-only one)."""


# ------------------------------------------------------------------------------ aggregation
@dataclass(frozen=True)
class Aggregation:
    """How the strengths of one polarity (attackers, or supporters) are folded: α = g(sup) − g(att).

    ``code`` is the kernel's number for it; :meth:`polarity` is the plain-Python definition.
    """

    name: str
    code: int
    formula: str
    citation: str

    def polarity(self, values: Sequence[float]) -> float:
        """g(V) for one polarity, as defined in the module docstring (plain Python, in order)."""
        if self.code == 0:
            acc = 0.0
            for v in values:
                acc += v
            return acc
        if self.code == 1:
            prod = 1.0
            for v in values:
                prod *= 1.0 - v
            return 1.0 - prod
        top = 0.0
        for v in values:
            top = max(top, v)
        return top

    def __call__(self, attackers: Sequence[float], supporters: Sequence[float]) -> float:
        """α(att, sup) = g(sup) − g(att)."""
        return self.polarity(supporters) - self.polarity(attackers)

    def __str__(self) -> str:
        return self.name


SUM = Aggregation("sum", 0, "Σ σ(sup) − Σ σ(att)", "Amgoud & Ben-Naim 2018; Mossakowski & Neuhaus 2018")
PRODUCT = Aggregation("product", 1, "∏(1 − σ(att)) − ∏(1 − σ(sup))", "Rago et al. 2016; Mossakowski & Neuhaus 2018")
TOP = Aggregation("top", 2, "max σ(sup) − max σ(att)", "Mossakowski & Neuhaus 2018")
AGGREGATIONS: Mapping[str, Aggregation] = {a.name: a for a in (SUM, PRODUCT, TOP)}


# -------------------------------------------------------------------------------- influence
class Influence:
    """ι(w, α): how the aggregate moves the base score. Subclasses give the kernel ``code``, the
    parameters ``k`` (conservativeness) and ``p`` (exponent) where they have them, and a
    plain-Python :meth:`__call__` written from the defining paper."""

    code: ClassVar[int] = -1
    k: float = 1.0
    p: float = 1.0

    @property
    def name(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def __call__(self, w: float, alpha: float) -> float:  # pragma: no cover - overridden
        raise NotImplementedError

    def __str__(self) -> str:
        return self.name

    def _check(self) -> None:
        if not (isinstance(self.k, (int, float)) and math.isfinite(self.k) and self.k > 0):
            raise ValueError(f"{type(self).__name__}: conservativeness k must be a finite number > 0, got {self.k!r}")
        if not (isinstance(self.p, (int, float)) and math.isfinite(self.p) and self.p > 0):
            raise ValueError(f"{type(self).__name__}: exponent p must be a finite number > 0, got {self.p!r}")


@dataclass(frozen=True)
class Linear(Influence):
    """linear(k): ι(w, α) = w − (w/k)·max(0, −α) + ((1 − w)/k)·max(0, α) (Mossakowski &
    Neuhaus 2018, Def. of linear influence; k = 1 with product aggregation is DF-QuAD)."""

    code: ClassVar[int] = 0
    k: float = 1.0
    p: float = 1.0

    def __post_init__(self) -> None:
        self._check()

    @property
    def name(self) -> str:
        return f"linear({self.k:g})"

    def __call__(self, w: float, alpha: float) -> float:
        if alpha <= 0.0:
            return w - (w / self.k) * (-alpha)
        return w + ((1.0 - w) / self.k) * alpha


@dataclass(frozen=True)
class PMax(Influence):
    """p-max(k): ι(w, α) = w − w·h(−α/k) + (1 − w)·h(α/k), h(x) = max(0, x)^p / (1 + max(0, x)^p)
    (Potyka 2019; 2-max(1) with sum aggregation is the quadratic energy model, Potyka 2018)."""

    code: ClassVar[int] = 1
    p: float = 2.0
    k: float = 1.0

    def __post_init__(self) -> None:
        self._check()

    @property
    def name(self) -> str:
        return f"{self.p:g}-max({self.k:g})"

    def __call__(self, w: float, alpha: float) -> float:
        if alpha <= 0.0:
            x = -alpha / self.k
            xp = x * x if self.p == 2.0 else x**self.p
            return w - w * (xp / (1.0 + xp))
        x = alpha / self.k
        xp = x * x if self.p == 2.0 else x**self.p
        return w + (1.0 - w) * (xp / (1.0 + xp))


def _exp(x: float) -> float:
    # math.exp raises OverflowError past ~709.78; the kernels (libm) return inf there.
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


@dataclass(frozen=True)
class Euler(Influence):
    """Euler-based influence ι(w, α) = 1 − (1 − w²)/(1 + w·e^α) (Amgoud & Ben-Naim 2017, 2018).

    w = 0 gives 0 for every α (the formula's value; computed directly so that an overflowing
    e^α cannot turn 0·∞ into NaN)."""

    code: ClassVar[int] = 2

    @property
    def name(self) -> str:
        return "euler"

    def __call__(self, w: float, alpha: float) -> float:
        if w == 0.0:
            return 0.0
        return 1.0 - (1.0 - w * w) / (1.0 + w * _exp(alpha))


@dataclass(frozen=True)
class Logistic(Influence):
    """MLP-based influence ι(w, α) = φ(ln(w/(1 − w)) + α), φ the logistic function (Potyka 2021,
    the semantics of a multi-layer perceptron read as a QBAF). w = 0 and w = 1 are the limits
    0 and 1 (ln(w/(1 − w)) = ∓∞)."""

    code: ClassVar[int] = 3

    @property
    def name(self) -> str:
        return "logistic"

    def __call__(self, w: float, alpha: float) -> float:
        if w == 0.0 or w == 1.0:
            return w
        z = math.log(w / (1.0 - w)) + alpha
        return 1.0 / (1.0 + _exp(-z))


@dataclass(frozen=True)
class HCategorizer(Influence):
    """Weighted h-categorizer influence ι(w, α) = w / (1 − α), for attack-only frameworks where
    α = −Σ σ(att): σ(x) = w / (1 + Σ σ(att)) (Amgoud, Ben-Naim, Doder & Vesic 2017)."""

    code: ClassVar[int] = 4

    @property
    def name(self) -> str:
        return "h-categorizer"

    def __call__(self, w: float, alpha: float) -> float:
        return w / (1.0 - alpha)


@dataclass(frozen=True)
class QuADCombination(Influence):
    """QuAD's combination (Baroni, Romano, Toni, Aurisicchio & Bertanza 2015), which is not a
    function of α alone: the attack value folds f_att(v0, v) = v0·(1 − v) over the attackers from
    v0 = w, so F_att = w·∏(1 − σ(att)); the support value folds f_supp(v0, v) = v0 + (1 − v0)·v,
    so F_sup = 1 − (1 − w)·∏(1 − σ(sup)); σ = w with neither, F_att with attackers only, F_sup
    with supporters only, (F_att + F_sup)/2 with both."""

    code: ClassVar[int] = 5

    @property
    def name(self) -> str:
        return "quad"

    def combine(self, w: float, attackers: Sequence[float], supporters: Sequence[float]) -> float:
        """σ from w and the attackers' and supporters' strengths, folded in the given order."""
        fa = w
        for v in attackers:
            fa = fa * (1.0 - v)
        fs = w
        for v in supporters:
            fs = fs + (1.0 - fs) * v
        if not supporters:
            return fa
        if not attackers:
            return fs
        return (fa + fs) / 2.0

    def __call__(self, w: float, alpha: float) -> float:
        raise TypeError("QuAD's combination needs both sides; use combine(w, attackers, supporters)")


# -------------------------------------------------------------------------------- semantics
@dataclass(frozen=True)
class GradualSemantics:
    """A gradual semantics given as data: an :class:`Aggregation` and an :class:`Influence`.

    Attributes
    ----------
    name : str
        The name used on the command line and in reports.
    aggregation, influence :
        The modular parts (module docstring).
    citation : str
        Where the semantics is defined.
    acyclic_only : bool
        Defined on acyclic frameworks only (raises :class:`SemanticsDomainError` on a cycle).
    attack_only : bool
        Defined on frameworks without supports only.
    title : str
        A human-readable name ("Quadratic energy").
    """

    name: str
    aggregation: Aggregation
    influence: Influence
    citation: str = "user-composed"
    acyclic_only: bool = False
    attack_only: bool = False
    title: str = ""

    # -- the definition, in plain Python ------------------------------------------------------
    def polarity_aggregate(self, values: Sequence[float]) -> float:
        """The semantics' own g for one polarity (what Balance / Monotonicity compare)."""
        return self.aggregation.polarity(values)

    def update(self, w: float, attackers: Sequence[float], supporters: Sequence[float]) -> float:
        """σ(x) from τ(x) = w and the strengths of its attackers and supporters, literally."""
        if isinstance(self.influence, QuADCombination):
            return self.influence.combine(w, attackers, supporters)
        return self.influence(w, self.aggregation(attackers, supporters))

    # -- domain -------------------------------------------------------------------------------
    def check_domain(self, qbaf: QBAF) -> None:
        """Raise :class:`SemanticsDomainError` if ``qbaf`` lies outside the semantics' domain."""
        if self.attack_only and qbaf.support_array.shape[0]:
            s, t = (int(v) for v in qbaf.support_array[0])
            raise SemanticsDomainError(
                f"the {self.title or self.name} semantics is defined for attack-only frameworks, but "
                f"{qbaf.support_array.shape[0]} support(s) are present (first: {qbaf._id(s)!r} -> {qbaf._id(t)!r})"
            )
        if self.acyclic_only:
            from argfaith.qbaf.graph import strongly_connected_components

            if not qbaf.is_acyclic():
                comp = next(c for c in strongly_connected_components(qbaf) if c.size > 1 or _self_loop(qbaf, int(c[0])))
                hint = " Use 'euler-based', which iterates the same update on cycles." if isinstance(self.influence, Euler) else ""
                raise SemanticsDomainError(
                    f"the {self.title or self.name} semantics is defined on acyclic frameworks only "
                    f"({self.citation}); argument {qbaf._id(int(comp[0]))!r} lies on a cycle "
                    f"({comp.size} argument(s) in its strongly connected component).{hint}"
                )

    def applies_to(self, qbaf: QBAF) -> bool:
        try:
            self.check_domain(qbaf)
        except SemanticsDomainError:
            return False
        return True

    @property
    def is_dfquad(self) -> bool:
        """product × linear(1): solved by the DF-QuAD instance of the solver, whose rule is fixed
        at compile time (bit-identical to the modular instance on the same pair)."""
        return self.aggregation.code == 1 and isinstance(self.influence, Linear) and self.influence.k == 1.0

    @property
    def kernel_codes(self) -> tuple[int, int, float, float]:
        """``(agg, inf, k, p)``: the modular rule of :mod:`argfaith.qbaf._gradual_kernels`
        (QuAD's combination folds from w, so it takes the aggregation code 3)."""
        inf = self.influence
        agg = 3 if isinstance(inf, QuADCombination) else self.aggregation.code
        return agg, type(inf).code, float(inf.k), float(inf.p)

    @property
    def spec(self) -> str:
        """``"aggregation:influence"``, the string :func:`get_semantics` parses back."""
        inf = self.influence
        if isinstance(inf, Linear):
            i = f"linear({inf.k:g})"
        elif isinstance(inf, PMax):
            i = f"pmax({inf.p:g},{inf.k:g})"
        else:
            i = inf.name
        return f"{self.aggregation.name}:{i}"

    def __str__(self) -> str:
        return self.name


def _self_loop(q: QBAF, v: int) -> bool:
    ptr, src, _ = q.in_csr
    return bool((src[ptr[v] : ptr[v + 1]] == v).any())


DFQUAD = GradualSemantics(
    "dfquad", PRODUCT, Linear(1.0), "Rago, Toni, Aurisicchio & Baroni, KR 2016", title="DF-QuAD"
)
QUAD = GradualSemantics(
    "quad", PRODUCT, QuADCombination(),
    "Baroni, Romano, Toni, Aurisicchio & Bertanza, Argument & Computation 2015", title="QuAD",
)
QUADRATIC_ENERGY = GradualSemantics(
    "quadratic-energy", SUM, PMax(2.0, 1.0), "Potyka, KR 2018", title="Quadratic energy"
)
EULER_BASED = GradualSemantics(
    "euler-based", SUM, Euler(), "Amgoud & Ben-Naim, IJCAI 2018", title="Euler-based"
)
RESTRICTED_EULER_BASED = GradualSemantics(
    "restricted-euler-based", SUM, Euler(), "Amgoud & Ben-Naim, ECSQARU 2017 / IJAR 2018",
    acyclic_only=True, title="Restricted Euler-based",
)
MLP_BASED = GradualSemantics("mlp-based", SUM, Logistic(), "Potyka, AAAI 2021", title="MLP-based")
WEIGHTED_H_CATEGORIZER = GradualSemantics(
    "weighted-h-categorizer", SUM, HCategorizer(), "Amgoud, Ben-Naim, Doder & Vesic, IJCAI 2017",
    attack_only=True, title="Weighted h-categorizer",
)

#: The named instances, by name.
NAMED: Mapping[str, GradualSemantics] = {
    s.name: s
    for s in (DFQUAD, QUAD, QUADRATIC_ENERGY, EULER_BASED, RESTRICTED_EULER_BASED, MLP_BASED, WEIGHTED_H_CATEGORIZER)
}

_INFLUENCES = {"euler": Euler, "logistic": Logistic, "mlp": Logistic, "h-categorizer": HCategorizer, "quad": QuADCombination}
_SPEC = re.compile(r"^\s*(?P<agg>[a-z]+)\s*[:×x*]\s*(?P<inf>[a-z-]+)\s*(\((?P<args>[^)]*)\))?\s*$")


def semantics_names() -> tuple[str, ...]:
    """Names of the named instances, in the order of the module docstring."""
    return tuple(NAMED)


def compose(aggregation: str | Aggregation, influence: Influence, *, name: str | None = None, **kw: Any) -> GradualSemantics:
    """A user-composed modular semantics: ``compose("top", Euler())``, ``compose("sum", PMax(2, 1))``.

    ``attack_only=True`` / ``acyclic_only=True`` restrict its domain; the default name is the
    ``"aggregation:influence"`` spec.
    """
    agg = AGGREGATIONS.get(aggregation) if isinstance(aggregation, str) else aggregation
    if agg is None:
        raise ValueError(f"unknown aggregation {aggregation!r}; use one of {', '.join(AGGREGATIONS)}")
    if not isinstance(influence, Influence):
        raise TypeError(f"influence must be an Influence (Linear, PMax, Euler, Logistic, HCategorizer), got {type(influence).__name__}")
    if isinstance(influence, QuADCombination) and agg is not PRODUCT:
        raise ValueError("QuAD's combination is defined with product aggregation only")
    sem = GradualSemantics(name or "", agg, influence, **kw)
    return sem if name else GradualSemantics(sem.spec, agg, influence, **kw)


def get_semantics(spec: str | GradualSemantics) -> GradualSemantics:
    """A named instance (``"quadratic-energy"``; ``_`` and ``-`` interchangeable, case-insensitive)
    or a composition ``"aggregation:influence"`` such as ``"top:euler"``, ``"sum:pmax(2,1)"``,
    ``"product:linear(2)"``. Unknown names raise ``ValueError`` listing the valid ones."""
    if isinstance(spec, GradualSemantics):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"expected a semantics name or GradualSemantics, got {type(spec).__name__}")
    key = spec.strip().lower().replace("_", "-")
    if key in NAMED:
        return NAMED[key]
    m = _SPEC.match(key)
    if m is not None and m.group("agg") in AGGREGATIONS:
        inf_name, args = m.group("inf"), m.group("args")
        try:
            nums = [float(a) for a in args.split(",")] if args else []
        except ValueError:
            raise ValueError(f"semantics {spec!r}: influence parameters must be numbers, got ({args})") from None
        inf: Influence
        if inf_name == "linear":
            if len(nums) > 1:
                raise ValueError(f"semantics {spec!r}: linear takes one parameter k")
            inf = Linear(*nums)
        elif inf_name in ("pmax", "p-max"):
            if len(nums) > 2:
                raise ValueError(f"semantics {spec!r}: pmax takes (p, k)")
            inf = PMax(*nums)
        elif inf_name in _INFLUENCES and not nums:
            inf = _INFLUENCES[inf_name]()
        else:
            raise ValueError(
                f"semantics {spec!r}: unknown influence {inf_name!r}; use linear(k), pmax(p,k), euler, logistic, h-categorizer"
            )
        return compose(m.group("agg"), inf, attack_only=isinstance(inf, HCategorizer))
    raise ValueError(
        f"unknown semantics {spec!r}; use one of {', '.join(NAMED)} or 'aggregation:influence' "
        f"(aggregations {', '.join(AGGREGATIONS)}; influences linear(k), pmax(p,k), euler, logistic, h-categorizer)"
    )
