"""argfaith.kpa — key point analysis (PAPER.md §9), a neighbouring evaluation method with a part
of its own: it scores how arguments map to key points, not how a summary keeps a debate's QBAF.

- :mod:`argfaith.kpa.track1` — the KPA 2021 Track 1 scorer (strict / relaxed mAP, two AP variants)
  and the predictions file format;
- :mod:`argfaith.kpa.matchers` — key point matchers producing Track 1 predictions (TF-IDF,
  learned lexical, embedding, hybrid, a Claude judge);
- :mod:`argfaith.kpa.keypoints` — soft precision / recall / F1 and ROUGE of generated key points;
- :mod:`argfaith.kpa.structure` — structure metrics (global cluster precision, uniqueness, true
  unmatched rate).

Argument coverage π_cov, which reads a summary's QBAF, stays in :mod:`argfaith.metrics.coverage`.
Dependencies: this part reads :mod:`argfaith.datasets` (ArgKP loaders), the text similarities of
:mod:`argfaith.metrics` and :mod:`argfaith.llm`; nothing below it imports it.
"""

from argfaith.kpa.keypoints import KeyPointSetScore, SoftPRF, evaluate_key_points, soft_precision_recall_f1
from argfaith.kpa.structure import KPAStructureScore, kpa_structure
from argfaith.kpa.track1 import KPAScore, kpa_track1_score, load_kpa_predictions, save_kpa_predictions

__all__ = [
    "KPAScore", "kpa_track1_score", "load_kpa_predictions", "save_kpa_predictions",
    "KPAStructureScore", "kpa_structure",
    "KeyPointSetScore", "SoftPRF", "evaluate_key_points", "soft_precision_recall_f1",
]
