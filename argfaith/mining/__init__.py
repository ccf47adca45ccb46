"""argfaith.mining — from debate and summary texts to QBAFs (PAPER.md §7).

documents (:mod:`argfaith.datasets`) → argument units (:mod:`.units`, :mod:`.segment`) →
candidate pairs (:mod:`.candidates`) → relation classifier (:mod:`.classifiers`) → QBAF
(:mod:`.build`); :mod:`.pipeline` runs the whole chain with progress and resumable checkpoints.
"""

from argfaith.mining.build import (
    Relation,
    RelationError,
    TemporalConstraintError,
    build_source_qbaf,
    build_summary_qbaf,
)
from argfaith.mining.candidates import (
    AllPairs,
    CandidatePair,
    Cascade,
    RandomK,
    TopKLexical,
    count_source_candidates,
    count_summary_candidates,
    parse_candidates,
    source_candidates,
    summary_candidates,
)
from argfaith.mining.classifiers.recorded import RecordedClassifier, UnrecordedPairError
from argfaith.mining.pipeline import (
    MiningPlan,
    MiningResult,
    MiningStats,
    mine_debate,
    mine_summary,
    plan_debate,
    plan_summary,
    run_plan,
)
from argfaith.mining.segment import FunctionSegmenter, LineSegmenter, RuleSegmenter, Segment
from argfaith.mining.segmenters import make_segmenter, segment_sentences
from argfaith.mining.units import (
    KEEP_ALL,
    SENTENCE_POLICY,
    SUMMARY_POLICY,
    ArgumentUnit,
    UnitExtraction,
    UnitPolicy,
    proposal_units,
    speech_units,
    summary_units,
)

__all__ = [
    "Relation", "RelationError", "TemporalConstraintError", "build_source_qbaf", "build_summary_qbaf",
    "AllPairs", "CandidatePair", "Cascade", "RandomK", "TopKLexical", "count_source_candidates",
    "count_summary_candidates", "parse_candidates", "source_candidates", "summary_candidates",
    "RecordedClassifier", "UnrecordedPairError",
    "MiningPlan", "MiningResult", "MiningStats", "mine_debate", "mine_summary", "plan_debate", "plan_summary", "run_plan",
    "FunctionSegmenter", "LineSegmenter", "RuleSegmenter", "Segment", "make_segmenter", "segment_sentences",
    "KEEP_ALL", "SENTENCE_POLICY", "SUMMARY_POLICY", "ArgumentUnit", "UnitExtraction", "UnitPolicy",
    "proposal_units", "speech_units", "summary_units",
]
