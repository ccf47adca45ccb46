"""Bipolar set-attacks and d-preferred semantics (PAPER.md §4; Cayrol & Lagasquie-Schiex 2005).

{x} set-attacks y iff there is a direct, supported (supports…, then one attack) or indirect
(one attack, then supports…) attack from x on y. d-preferred extensions are the preferred
extensions of the Dung framework whose attack relation is set-attack; an argument is credulously
accepted iff it belongs to some d-admissible set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from argfaith.qbaf import reference as _ref

if TYPE_CHECKING:
    from argfaith.qbaf.framework import QBAF

__all__ = ["AcceptanceResult", "set_attacks", "credulous_acceptance", "d_preferred_extensions"]


@dataclass(frozen=True)
class AcceptanceResult:
    """Credulous acceptance under d-preferred semantics for the queried arguments."""

    accepted: frozenset[str]
    queried: tuple[str, ...]
    method: str = "brute-force"

    def is_accepted(self, arg_id: str) -> bool:
        return arg_id in self.accepted


def set_attacks(qbaf: QBAF) -> frozenset[tuple[str, str]]:
    """The set-attack relation as (attacker id, attacked id) pairs."""
    return _ref.set_attacks_reference(qbaf)


def credulous_acceptance(qbaf: QBAF, arguments: tuple[str, ...] | None = None) -> AcceptanceResult:
    """Credulous acceptance under d-preferred semantics; by default for every proposal argument."""
    qs = qbaf.proposals if arguments is None else tuple(arguments)
    acc = _ref.credulous_reference(qbaf)
    return AcceptanceResult(frozenset(a for a in qs if a in acc), qs)


def d_preferred_extensions(qbaf: QBAF) -> list[frozenset[str]]:
    """All d-preferred extensions (small frameworks)."""
    return _ref.d_preferred_reference(qbaf)
