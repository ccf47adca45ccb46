"""argfaith.metrics — QBAFs → numbers: the paper's faithfulness metrics, alignment-based
supplementary metrics, text baselines, explanations and the evaluation report.

The most used names are re-exported here; coverage and classification metrics live in their own
modules (:mod:`argfaith.metrics.coverage`, ...); key point analysis is a part of its own,
:mod:`argfaith.kpa`. Heavy optional dependencies (torch,
sentence-transformers) are imported only inside the functions that need them.
"""

from argfaith.metrics.alignment import (
    AlignedPair,
    Aligner,
    AlignItem,
    Alignment,
    EmbeddingAligner,
    ExactTextAligner,
    FileAligner,
    IdAligner,
    LexicalAligner,
    align_qbafs,
    load_alignment,
    save_alignment,
)
from argfaith.metrics.aligners import ALIGNMENT_METHODS, make_aligner
from argfaith.metrics.evaluate import evaluate, evaluate_many
from argfaith.metrics.explain import ArgumentInfluence, ProposalExplanation, argument_influences, explain_proposals
from argfaith.metrics.faithfulness import (
    DEFAULT_EPSILON,
    DEFAULT_TOLERANCE,
    MeanProConRatio,
    PairwiseResult,
    ProConRatio,
    RelevanceResult,
    argument_relevance,
    balance_consistency,
    d_preferability_consistency,
    epsilon_accuracy,
    mean_pro_con_ratio,
    pro_con_ratio,
    pro_con_ratios,
)
from argfaith.metrics.proposals import ProposalMatch, ProposalMismatchError, match_proposals
from argfaith.metrics.report import EvaluationReport, EvaluationSuite, load_report
from argfaith.metrics.supplementary import pro_con_consistency, supplementary_precision, supplementary_recall
from argfaith.metrics.text import bertscore, nli_score, rouge_scores

__all__ = [
    # the paper's metrics (PAPER.md §5)
    "argument_relevance", "pro_con_ratio", "pro_con_ratios", "mean_pro_con_ratio",
    "d_preferability_consistency", "balance_consistency", "epsilon_accuracy",
    "RelevanceResult", "ProConRatio", "MeanProConRatio", "PairwiseResult",
    "DEFAULT_EPSILON", "DEFAULT_TOLERANCE",
    "match_proposals", "ProposalMatch", "ProposalMismatchError",
    # supplementary metrics and alignment
    "supplementary_precision", "supplementary_recall", "pro_con_consistency",
    "AlignItem", "AlignedPair", "Alignment", "Aligner", "IdAligner", "ExactTextAligner", "LexicalAligner",
    "EmbeddingAligner", "FileAligner", "ALIGNMENT_METHODS", "make_aligner", "align_qbafs", "load_alignment",
    "save_alignment",
    # text baselines
    "rouge_scores", "bertscore", "nli_score",
    # explanations, orchestration, report
    "argument_influences", "explain_proposals", "ArgumentInfluence", "ProposalExplanation",
    "evaluate", "evaluate_many", "EvaluationReport", "EvaluationSuite", "load_report",
]
