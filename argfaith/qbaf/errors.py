"""Exceptions raised by the QBAF engine.

Every error names the offending item (argument id, edge, file and JSON location) and, where it
helps, what to do about it. All derive from :class:`QBAFError`, itself a :class:`ValueError`.
"""

from __future__ import annotations

__all__ = [
    "QBAFError",
    "DuplicateArgumentError",
    "UnknownArgumentError",
    "DuplicateEdgeError",
    "ConflictingEdgeError",
    "BaseScoreError",
    "ProposalEdgeError",
    "QBAFFormatError",
    "NotConvergedError",
]


class QBAFError(ValueError):
    """Base class of every validation / format error of a QBAF."""


class DuplicateArgumentError(QBAFError):
    """Two arguments share one id."""


class UnknownArgumentError(QBAFError):
    """An edge or query names an argument id that is not in the framework."""


class DuplicateEdgeError(QBAFError):
    """The same (source, target) pair is listed twice in one relation."""


class ConflictingEdgeError(QBAFError):
    """The same (source, target) pair is both an attack and a support (A ∩ S must be empty)."""


class BaseScoreError(QBAFError):
    """A base score is NaN or outside [0, 1]."""


class ProposalEdgeError(QBAFError):
    """An edge leaves a proposal argument of a debate QBAF (Definition 1 forbids it)."""


class QBAFFormatError(QBAFError):
    """A QBAF file is not valid JSON or does not follow the interchange format."""


class NotConvergedError(RuntimeError):
    """Strict mode: the iterative DF-QuAD solver did not reach the tolerance on a cyclic component."""
