"""Shared constants of the v2 annotation scripts (argfaith relation corpus, December 2026)."""

from __future__ import annotations

import re

#: The paper's three annotated debates: evaluation only (the brief's rule).
PAPER_DEBATES = ("CRE-20060213-ITEM-013", "CRE-20070905-ITEM-015", "CRE-20080313-ITEM-002")
#: Reserved for independent evaluation: never labelled, trained or tuned on (the brief's rule).
RESERVED_DEBATES = (
    "CRE-20061026-ITEM-003", "CRE-20060404-ITEM-007", "CRE-20060404-ITEM-013", "CRE-20060406-ITEM-004",
    "CRE-20060406-ITEM-005", "CRE-20060426-ITEM-012", "CRE-20060427-ITEM-003",
)
#: The 12 debates with LLM summaries (case study / self-test debates).
SUMMARY_DEBATES = (
    "CRE-20060213-ITEM-012", "CRE-20060213-ITEM-013", "CRE-20060213-ITEM-015", "CRE-20060214-ITEM-004",
    "CRE-20060214-ITEM-006", "CRE-20060314-ITEM-006", "CRE-20060314-ITEM-022", "CRE-20060315-ITEM-009",
    "CRE-20060322-ITEM-016", "CRE-20060323-ITEM-005", "CRE-20060403-ITEM-012", "CRE-20060404-ITEM-006",
)
#: A speech with an opposition cue (the v1 targeted part's rule).
CRITICAL = re.compile(
    r"\b(vote[sd]? against|voting against|cannot support|can not support|reject|oppos|regret|unacceptable|"
    r"criticis|criticiz|disagree|not acceptable|abstain)",
    re.I,
)
