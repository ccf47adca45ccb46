"""Relation-pair loaders: layouts, options, and every malformed-input case naming file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.datasets.labels import LABELS
from argfaith.datasets.relations import (
    AMELIA_COLUMNS,
    PairColumns,
    RelationPair,
    label_counts,
    load_amelia_pairs,
    load_relation_pairs,
    save_relation_pairs,
)
from argfaith.errors import ConfigurationError, DataFormatError

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "relations"


def test_generic_layouts_agree():
    j = load_relation_pairs(FIX / "pairs.jsonl")
    c = load_relation_pairs(FIX / "pairs.csv")
    t = load_relation_pairs(FIX / "pairs.tsv")
    assert len(j) == len(c) == len(t) == 12
    strip = lambda ps: [p.to_dict() for p in ps]  # noqa: E731 - line numbers differ only by layout
    assert strip(j) == strip(c) == strip(t)
    p = j[2]
    assert (p.label, p.source_id, p.target_kind, p.topic, p.corpus, p.pair_id, p.line) == (
        "attack", "s2", "speech", "uniforms", "debate-a", "p03", 3)
    assert c[2].line == 4  # header is line 1
    assert label_counts(j) == {"attack": 3, "support": 5, "no relation": 4}


def test_amelia_layout_detected_and_explicit():
    a = load_amelia_pairs(FIX / "amelia_small.csv")
    auto = load_relation_pairs(FIX / "amelia_small.csv")
    assert a == auto
    assert [p.corpus for p in a] == ["mtp1", "pe", "pe", "comarg", "comarg"]
    assert a[0].source.startswith("Shops should open") and a[0].target.startswith("Hence")
    assert a[3].source == "Multi-line\nsource text, quoted." and a[3].line == 5
    assert a[4].line == 7  # the quoted newline makes the previous record two lines long
    assert all(p.topic is None and p.target_kind is None for p in a)


def test_limit_and_corpus_default(tmp_path):
    assert len(load_relation_pairs(FIX / "pairs.jsonl", limit=3)) == 3
    assert load_relation_pairs(FIX / "pairs.jsonl", limit=0) == []
    f = tmp_path / "p.csv"
    f.write_text("source,target,label\na,b,support\n", encoding="utf-8")
    assert load_relation_pairs(f, corpus="mine")[0].corpus == "mine"
    with pytest.raises(ConfigurationError):
        load_relation_pairs(f, limit=-1)


def test_label_map_and_custom_columns(tmp_path):
    f = tmp_path / "pairs.tsv"
    f.write_text("premise\tclaim\trel\tdataset\nA\tB\t1\tx\nC\tD\t-1\tx\nE\tF\t0\ty\n", encoding="utf-8")
    cols = PairColumns(source="premise", target="claim", label="rel", corpus="dataset")
    pairs = load_relation_pairs(f, columns=cols, label_map={"1": "support", "-1": "attack", "0": "no relation"})
    assert [(p.source, p.target, p.label, p.corpus) for p in pairs] == [
        ("A", "B", "support", "x"), ("C", "D", "attack", "x"), ("E", "F", "no relation", "y")]


def test_label_spellings_are_normalised(tmp_path):
    f = tmp_path / "p.jsonl"
    rows = [{"source": "a", "target": "b", "label": lab} for lab in ("Attack", "SUPPORTS", "no_relation", "['attack']", "none")]
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n", encoding="utf-8")  # trailing blank lines ok
    assert [p.label for p in load_relation_pairs(f)] == ["attack", "support", "no relation", "attack", "no relation"]


def test_bom_is_tolerated(tmp_path):
    f = tmp_path / "p.csv"
    f.write_bytes("\ufeffsource,target,label\na,b,support\n".encode())
    assert load_relation_pairs(f)[0].source == "a"


# -- malformed inputs: each error names the file and the line -------------------------------------


def _err(path: Path, **kw) -> str:
    with pytest.raises(DataFormatError) as e:
        load_relation_pairs(path, **kw)
    return str(e.value)


def test_bad_label_names_file_and_line(tmp_path):
    f = tmp_path / "bad_label.csv"
    f.write_text("source,target,label\na,b,support\nc,d,agrees\n", encoding="utf-8")
    msg = _err(f)
    assert "bad_label.csv, line 3" in msg and "'agrees'" in msg and "no relation" in msg


def test_bad_label_after_mapping_mentions_the_mapping(tmp_path):
    f = tmp_path / "m.jsonl"
    f.write_text(json.dumps({"source": "a", "target": "b", "label": "2"}) + "\n", encoding="utf-8")
    msg = _err(f, label_map={"1": "support"})
    assert "m.jsonl, line 1" in msg and "label mapping" in msg


def test_missing_column(tmp_path):
    f = tmp_path / "nolabel.tsv"
    f.write_text("source\ttarget\trelation\na\tb\tsupport\n", encoding="utf-8")
    msg = _err(f)
    assert "nolabel.tsv, line 1" in msg and "'label'" in msg and "'relation'" in msg


def test_missing_field_in_a_json_line(tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text(json.dumps({"source": "a", "target": "b", "label": "support"}) + "\n"
                 + json.dumps({"source": "a", "label": "support"}) + "\n", encoding="utf-8")
    msg = _err(f)
    assert "p.jsonl, line 2" in msg and "'target'" in msg


def test_wrong_encoding_names_the_line(tmp_path):
    f = tmp_path / "latin.csv"
    f.write_bytes("source,target,label\na,b,support\nd\xe9bat,b,support\n".encode("latin-1"))
    msg = _err(f)
    assert "latin.csv, line 3" in msg and "utf-8" in msg
    assert load_relation_pairs(f, encoding="latin-1")[1].source == "débat"


def test_malformed_json_line(tmp_path):
    f = tmp_path / "broken.jsonl"
    f.write_text(json.dumps({"source": "a", "target": "b", "label": "support"}) + "\n{\"source\": \"a\",\n", encoding="utf-8")
    msg = _err(f)
    assert "broken.jsonl, line 2" in msg and "malformed JSON" in msg


def test_json_line_that_is_not_an_object(tmp_path):
    f = tmp_path / "list.jsonl"
    f.write_text("[1, 2]\n", encoding="utf-8")
    assert "list.jsonl, line 1" in _err(f)


def test_wrong_number_of_fields(tmp_path):
    f = tmp_path / "ragged.csv"
    f.write_text("source,target,label\na,b,support\na,b,support,extra\n", encoding="utf-8")
    msg = _err(f)
    assert "ragged.csv, line 3" in msg and "expected 3 fields" in msg


def test_empty_source_text(tmp_path):
    f = tmp_path / "empty.csv"
    f.write_text("source,target,label\n  ,b,support\n", encoding="utf-8")
    msg = _err(f)
    assert "empty.csv, line 2" in msg and "source" in msg


def test_json_source_of_the_wrong_type(tmp_path):
    f = tmp_path / "t.jsonl"
    f.write_text(json.dumps({"source": ["a"], "target": "b", "label": "support"}) + "\n", encoding="utf-8")
    assert "t.jsonl, line 1" in _err(f)


def test_unknown_extension_missing_file_and_empty_file(tmp_path):
    f = tmp_path / "pairs.txt"
    f.write_text("x", encoding="utf-8")
    assert "pairs.txt" in _err(f) and "format" in _err(f)
    assert "file not found" in _err(tmp_path / "nope.jsonl")
    e = tmp_path / "empty.csv"
    e.write_text("", encoding="utf-8")
    assert "empty.csv" in _err(e) and "empty file" in _err(e)


def test_amelia_bad_row_is_reported_at_its_physical_line(tmp_path):
    lines = (FIX / "amelia_small.csv").read_bytes().decode("utf-8").splitlines(keepends=True)
    assert len(lines) == 7  # header + 5 records, one of them spanning two lines
    f = tmp_path / "amelia_bad.csv"
    f.write_text("".join(lines[:6]) + "comarg,sample,rebuttal,Uniforms are expensive.,['x'],Uniforms are good.\n", encoding="utf-8")
    msg = _err(f, columns=AMELIA_COLUMNS)
    assert "amelia_bad.csv, line 7" in msg and "'rebuttal'" in msg


# -- writer ---------------------------------------------------------------------------------------

_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40).filter(lambda s: s.strip() == s and s)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_text, _text, st.sampled_from(LABELS), st.none() | _text), min_size=1, max_size=8))
def test_save_then_load_round_trips(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("rt") / "pairs.jsonl"
    pairs = [RelationPair(s, t, lab, topic=top) for s, t, lab, top in rows]
    assert save_relation_pairs(pairs, path, extra=[{"annotator": "test"}] * len(pairs)) == len(pairs)
    back = load_relation_pairs(path)
    assert [p.to_dict() for p in back] == [p.to_dict() for p in pairs]
    assert all(json.loads(line)["annotator"] == "test" for line in path.read_text(encoding="utf-8").splitlines())
