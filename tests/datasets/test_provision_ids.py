"""Provision ids follow the printed paragraph numbers; the old positional ids stay accepted through
one mapping (argfaith.datasets.provision_ids) — in the EP reader, in id-keyed data files, in old
QBAF files."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from argfaith.datasets.ep import find_ep_debate, read_ep_debate
from argfaith.datasets.provision_ids import (
    ProvisionIdMap,
    canonical_provision_id,
    is_legacy_provision_id,
    legacy_provision_id,
    printed_label,
    provision_ids,
)
from argfaith.errors import DataFormatError
from argfaith.qbaf import QBAF, Argument

ROOT = Path(__file__).resolve().parents[2]
STUDY = ROOT / "tests" / "fixtures" / "study" / "ep_debates"
DATA = Path(os.environ["ARGFAITH_DATA"]) if os.environ.get("ARGFAITH_DATA") else None
needs_data = pytest.mark.skipif(DATA is None or not (DATA / "ep_debates").is_dir(), reason="needs ARGFAITH_DATA")


def test_printed_labels_and_ids():
    assert printed_label("23.\u00a0\u00a0Calls on") == "23" and printed_label("12..  Asks") == "12"
    assert printed_label("4.2 Introducing life-cycle thinking") == "4.2" and printed_label("Recalls that") is None
    assert provision_ids(["1. A", "2. B", "4. C", "1. Annex", "2. Annex", "Heading", "4. D"]) == [
        "P1", "P2", "P4", "P1(2)", "P2(2)", "U6", "P4(2)"]
    assert is_legacy_provision_id("CRE-20060213-ITEM-013-PAR-22") and not is_legacy_provision_id("CRE-20060213-ITEM-013-P23")


def test_two_report_files_restart_at_one():
    d = read_ep_debate(find_ep_debate(STUDY, "CRE-20990202-ITEM-002"))
    assert [p.id for p in d.provisions] == ["P1", "P2", "P1(2)"]
    assert [p.legacy_id for p in d.provisions] == ["PAR-1", "PAR-2", "PAR-3"]
    assert canonical_provision_id("CRE-20990202-ITEM-002-PAR-3") == "CRE-20990202-ITEM-002-P1(2)"


def test_the_mapping_refuses_an_old_id_past_the_last_paragraph():
    m = ProvisionIdMap.from_texts("D", ["1. A", "3. B"])
    assert m.as_dict() == {"D-PAR-1": "D-P1", "D-PAR-2": "D-P3"}
    with pytest.raises(DataFormatError, match="D-PAR-3.*2 paragraphs"):
        m.canonical("D-PAR-3")
    assert m.canonical("E-PAR-1") == "E-PAR-1"  # another debate's id is not this map's business
    assert canonical_provision_id("NEVER-READ-PAR-1") == "NEVER-READ-PAR-1"


@needs_data
def test_the_papers_debate_where_par_22_is_paragraph_23():
    assert DATA is not None
    d = read_ep_debate(find_ep_debate(DATA / "ep_debates", "CRE-20060213-ITEM-013"))
    by_old = {p.legacy_id: p for p in d.provisions}
    assert by_old["PAR-22"].id == "P23" and by_old["PAR-22"].text.startswith("23.")
    assert canonical_provision_id("CRE-20060213-ITEM-013-PAR-22") == "CRE-20060213-ITEM-013-P23"
    assert legacy_provision_id("CRE-20060213-ITEM-013-P23") == "CRE-20060213-ITEM-013-PAR-22"


@needs_data
def test_the_written_distortions_keep_naming_their_provisions():
    """data/distortions names provisions by old ids; each maps to a provision of its debate whose
    printed number is the annotators' label (P33 etc., which they read off the text)."""
    assert DATA is not None
    rows = [json.loads(x) for x in (ROOT / "data" / "distortions" / "manifest.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    for r in rows:
        d = read_ep_debate(find_ep_debate(DATA / "ep_debates", r["debate_id"]), annotations=False)
        new = canonical_provision_id(r["provision"])
        assert new in {f"{d.id}-{p.id}" for p in d.provisions}, r["id"]


def test_an_old_qbaf_file_is_compared_with_a_new_one():
    from argfaith.metrics.evaluate import evaluate, evaluate_many

    def q(ids: list[str], name: str) -> QBAF:
        args = [Argument(i, "proposal", 0.5, text=t) for i, t in zip(ids, ["1. A", "3. B"])] + [Argument(f"{name}-s", text="x")]
        return QBAF.from_arguments(args, supports=[(f"{name}-s", ids[1])], debate=True, name=name)

    old = q(["D-PAR-1", "D-PAR-2"], "old")
    new = q(["D-P1", "D-P3"], "new")
    r = evaluate(old, new, explain=False)
    assert r.proposals.shared == ["D-P1", "D-P3"] and r.pairwise.balance_consistency == 1.0
    suite = evaluate_many(new, [old], explain=False)
    assert list(suite.reports[0].summary.strengths) == ["D-P1", "D-P3"]
    # Both old: nothing to harmonise, the ids are kept as they are (hand-written QBAFs may use PAR-n).
    assert evaluate(old, old, explain=False).proposals.shared == ["D-PAR-1", "D-PAR-2"]
