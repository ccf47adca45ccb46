"""The relation label vocabulary shared by loaders, classifiers and benchmarks.

The paper's three classes (PAPER.md §7): ``attack``, ``support``, ``no relation``.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["RelationLabel", "ATTACK", "SUPPORT", "NO_RELATION", "LABELS", "normalise_label"]

RelationLabel = Literal["attack", "support", "no relation"]
ATTACK: RelationLabel = "attack"
SUPPORT: RelationLabel = "support"
NO_RELATION: RelationLabel = "no relation"
#: Canonical order used in confusion matrices and tables.
LABELS: tuple[RelationLabel, ...] = (ATTACK, SUPPORT, NO_RELATION)

_ALIASES = {
    "attack": ATTACK,
    "attacks": ATTACK,
    "support": SUPPORT,
    "supports": SUPPORT,
    "no relation": NO_RELATION,
    "no_relation": NO_RELATION,
    "no-relation": NO_RELATION,
    "norelation": NO_RELATION,
    "none": NO_RELATION,
    "unrelated": NO_RELATION,
}


def normalise_label(raw: str) -> RelationLabel | None:
    """Map common spellings (case, underscores, plurals) to a canonical label; ``None`` if unknown."""
    key = " ".join(str(raw).strip().lower().replace("_", " ").split())
    return _ALIASES.get(key) or _ALIASES.get(key.replace(" ", ""))
