"""EP debate reader: the fixture debate, malformed inputs, and (with ARGFAITH_DATA) the real corpus."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from argfaith.datasets.documents import load_debate
from argfaith.datasets.ep import (
    ep_debates_root,
    find_ep_debate,
    intervention_sort_key,
    iter_ep_debates,
    list_ep_debates,
    provision_number,
    read_ep_debate,
)
from argfaith.errors import DataFormatError

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "mining"
DEBATE = FIX / "ep_debates" / "debates" / "CRE-20990101-ITEM-001"


def test_fixture_debate_structure():
    d = read_ep_debate(DEBATE)
    assert d.id == "CRE-20990101-ITEM-001"
    assert d.title == "Healthy school meals (debate)"
    assert d.topic == "Healthy school meals"
    # Ids follow the printed numbers (the third paragraph is numbered 4); the old positional ids
    # (PAR-n = the n-th paragraph) are kept and still accepted.
    assert [p.id for p in d.provisions] == ["P1", "P2", "P4"]
    assert [p.legacy_id for p in d.provisions] == ["PAR-1", "PAR-2", "PAR-3"]
    from argfaith.datasets.provision_ids import canonical_provision_id, legacy_provision_id

    assert canonical_provision_id("CRE-20990101-ITEM-001-PAR-3") == "CRE-20990101-ITEM-001-P4"
    assert legacy_provision_id("CRE-20990101-ITEM-001-P4") == "CRE-20990101-ITEM-001-PAR-3"
    assert [p.number for p in d.provisions] == [1, 2, 4]
    assert d.provisions[0].text.startswith("1.   Calls on") and not d.provisions[0].text.endswith("\n")
    assert d.provisions[0].report_id == "A-9-2099-0001"
    assert [iv.id for iv in d.interventions] == ["1-009", "1-010", "1-011", "1-012", "1-013", "1-100"]
    assert [iv.position for iv in d.interventions] == list(range(6))
    assert d.interventions[1].speaker == "Anna Example (PSE),"
    assert d.interventions[3].lang == "EL"
    assert d.metadata["report_ids"] == ["A-9-2099-0001"]


def test_fixture_spans_are_exact_and_sorted():
    d = read_ep_debate(DEBATE)
    assert d.spans is not None and len(d.spans) == 6
    by_iv = {iv.id: iv for iv in d.interventions}
    for s in d.spans:
        assert by_iv[s.intervention_id].text[s.start : s.end] == s.text
        assert s.text == s.text.strip()
    # 1-011's spans are listed out of order in the file: the reader sorts them by offset.
    k11 = [s.text for s in d.spans if s.intervention_id == "1-011"]
    assert k11 == ["I disagree with the rapporteur.", "Menus are a matter for local authorities, not for Brussels."]
    assert [s.type for s in d.spans if s.intervention_id == "1-010"] == [None, "claim", None]


def test_without_annotations():
    assert read_ep_debate(DEBATE, annotations=False).spans is None


def test_root_resolution_and_listing():
    assert ep_debates_root(FIX / "ep_debates") == FIX / "ep_debates" / "debates"
    assert ep_debates_root(FIX) == FIX / "ep_debates" / "debates"  # a data dir holding ep_debates/
    assert ep_debates_root(FIX / "ep_debates" / "debates") == FIX / "ep_debates" / "debates"
    assert [p.name for p in list_ep_debates(FIX / "ep_debates")] == ["CRE-20990101-ITEM-001"]
    assert find_ep_debate(FIX / "ep_debates", "CRE-20990101-ITEM-001") == DEBATE
    with pytest.raises(DataFormatError, match="no debate 'CRE-nope'"):
        find_ep_debate(FIX / "ep_debates", "CRE-nope")
    assert [d.id for d in iter_ep_debates(FIX / "ep_debates")] == ["CRE-20990101-ITEM-001"]
    assert load_debate(DEBATE).id == "CRE-20990101-ITEM-001"


def test_sort_key_is_numeric():
    ids = ["2-001", "1-100", "1-99", "1-009"]
    assert sorted(ids, key=intervention_sort_key) == ["1-009", "1-99", "1-100", "2-001"]
    assert provision_number("12.   Calls on") == 12
    assert provision_number("Calls on") is None


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    dst = tmp_path / "CRE-20990101-ITEM-001"
    shutil.copytree(DEBATE, dst)
    return dst


def test_invalid_json_names_file_and_line(broken: Path):
    f = broken / "interventions" / "1-011.json"
    f.write_text('{"speaker": "x",\n "english": }', encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"1-011\.json:2:\d+: invalid JSON"):
        read_ep_debate(broken)


def test_missing_key_names_file_and_key(broken: Path):
    f = broken / "interventions" / "1-012.json"
    data = json.loads(f.read_text(encoding="utf-8"))
    del data["english"]
    f.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"1-012\.json: key 'english' is missing"):
        read_ep_debate(broken)


def test_mismatched_intervention_id(broken: Path):
    f = broken / "interventions" / "1-012.json"
    data = json.loads(f.read_text(encoding="utf-8"))
    data["intervention_id"] = "1-077"
    f.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataFormatError, match="does not match the file name"):
        read_ep_debate(broken)


def test_annotation_offsets_must_match_text(broken: Path):
    f = broken / "annotations" / "1-010_annotations.json"
    data = json.loads(f.read_text(encoding="utf-8"))
    data["annotations"][1]["start"] += 3
    f.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"1-010_annotations\.json: annotations\[1\]: text does not match"):
        read_ep_debate(broken)


def test_annotation_offsets_out_of_range(broken: Path):
    f = broken / "annotations" / "1-012_annotations.json"
    data = json.loads(f.read_text(encoding="utf-8"))
    data["annotations"][0]["end"] = 10_000
    f.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"annotations\[0\]: offsets .* outside the speech"):
        read_ep_debate(broken)


def test_annotation_for_unknown_intervention(broken: Path):
    (broken / "annotations" / "9-999_annotations.json").write_text(
        json.dumps({"intervention_id": "9-999", "annotations": []}), encoding="utf-8"
    )
    with pytest.raises(DataFormatError, match="intervention '9-999' is not in"):
        read_ep_debate(broken)


def test_bad_paragraph_type(broken: Path):
    f = broken / "report_statements" / "A-9-2099-0001.json"
    data = json.loads(f.read_text(encoding="utf-8"))
    data["paragraphs"][1] = 7
    f.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"A-9-2099-0001\.json: paragraphs\[1\] must be a string"):
        read_ep_debate(broken)


def test_not_a_debate_folder(tmp_path: Path):
    with pytest.raises(DataFormatError, match="no interventions/ folder"):
        read_ep_debate(tmp_path)
    with pytest.raises(DataFormatError, match="not a directory"):
        read_ep_debate(tmp_path / "missing")


# ---------------------------------------------------------------- the real corpus (opt-in)
def _data() -> Path:
    raw = os.environ.get("ARGFAITH_DATA")
    if not raw or not (Path(raw) / "ep_debates").is_dir():
        pytest.skip("set ARGFAITH_DATA to the shared data folder to run the corpus test")
    return Path(raw)


@pytest.mark.slow
def test_every_real_debate_reads():
    data = _data()
    n = 0
    spans = 0
    for d in iter_ep_debates(data):
        n += 1
        assert d.provisions and d.interventions
        if d.spans is not None:
            spans += len(d.spans)
    assert n == 309
    assert spans == 432  # 107 + 127 + 198 human spans (data README)


def test_real_ids_match_the_silver_pairs():
    data = _data()
    rows = [json.loads(x) for x in (data / "ep_relations_silver" / "dev.jsonl").read_text().splitlines() if x]
    debates = {i: read_ep_debate(find_ep_debate(data, i)) for i in {r["debate_id"] for r in rows}}
    texts: dict[str, str] = {}
    for d in debates.values():
        for p in d.provisions:
            texts[f"{d.id}-{p.id}"] = p.text
        counters: dict[str, int] = {}
        for s in d.spans or ():
            counters[s.intervention_id] = counters.get(s.intervention_id, 0) + 1
            texts[f"{d.id}-{s.intervention_id}-{counters[s.intervention_id]}"] = s.text
    from argfaith.datasets.provision_ids import canonical_provision_id

    for r in rows:  # the silver pairs name provisions by the old positional ids: one mapping
        assert texts[canonical_provision_id(r["source_id"])] == r["source"].strip()
        assert texts[canonical_provision_id(r["target_id"])] == r["target"].strip()
