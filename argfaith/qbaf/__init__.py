"""argfaith.qbaf — the QBAF engine: model, DF-QuAD and other gradual semantics, paths, bipolar semantics.

Pure: no text processing and no I/O beyond (de)serialising a QBAF.
"""

from argfaith.qbaf.bipolar import (
    AcceptanceResult,
    ArgumentDecision,
    FrameworkTooLargeError,
    SetAttacks,
    credulous_acceptance,
    d_preferred_extensions,
    defends,
    grounded_extension,
    is_conflict_free,
    is_d_admissible,
    set_attacks,
)
from argfaith.qbaf.batch import BatchStrengthResult, QBAFBatch, dfquad_batch
from argfaith.qbaf.dfquad import StrengthResult, dfquad_strengths
from argfaith.qbaf.gradual import gradual_batch, gradual_strengths
from argfaith.qbaf.semantics import GradualSemantics, SemanticsDomainError, get_semantics
from argfaith.qbaf.errors import (
    BaseScoreError,
    ConflictingEdgeError,
    DuplicateArgumentError,
    DuplicateEdgeError,
    NotConvergedError,
    ProposalEdgeError,
    QBAFError,
    QBAFFormatError,
    UnknownArgumentError,
)
from argfaith.qbaf.framework import (
    DEFAULT_PROPOSAL_BASE_SCORE,
    DEFAULT_SPEECH_BASE_SCORE,
    PROPOSAL,
    QBAF,
    SPEECH,
    Argument,
    ArgumentKind,
)
from argfaith.qbaf.io import (
    from_networkx,
    load_qbaf,
    qbaf_from_dict,
    qbaf_json_schema,
    qbaf_to_dict,
    save_qbaf,
    to_networkx,
)
from argfaith.qbaf.paths import ProCon, con_arguments, pro_arguments, pro_con, pro_con_sets, relevant_arguments
from argfaith.qbaf.paths import ProConIndex, pro_con_index, relevance_mask

__all__ = [
    "QBAF", "Argument", "ArgumentKind", "PROPOSAL", "SPEECH",
    "DEFAULT_PROPOSAL_BASE_SCORE", "DEFAULT_SPEECH_BASE_SCORE",
    "StrengthResult", "dfquad_strengths", "QBAFBatch", "BatchStrengthResult", "dfquad_batch",
    "GradualSemantics", "SemanticsDomainError", "get_semantics", "gradual_strengths", "gradual_batch",
    "ProConIndex", "pro_con_index", "relevance_mask",
    "ProCon", "pro_con", "pro_arguments", "con_arguments", "pro_con_sets", "relevant_arguments",
    "AcceptanceResult", "set_attacks", "credulous_acceptance", "d_preferred_extensions",
    "SetAttacks", "ArgumentDecision", "FrameworkTooLargeError", "is_conflict_free", "defends",
    "is_d_admissible", "grounded_extension",
    "load_qbaf", "save_qbaf", "qbaf_from_dict", "qbaf_to_dict", "qbaf_json_schema", "to_networkx", "from_networkx",
    "QBAFError", "QBAFFormatError", "DuplicateArgumentError", "UnknownArgumentError", "DuplicateEdgeError",
    "ConflictingEdgeError", "BaseScoreError", "ProposalEdgeError", "NotConvergedError",
]
