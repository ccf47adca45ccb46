"""ArgKP / KPA 2021 loaders: the fixture layout, (split, id) keys, and errors naming file:line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from argfaith.datasets.kpa import find_kpa_dir, load_kpa, load_kpa_labels
from argfaith.errors import ConfigurationError, DataFormatError

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "kpa"


def test_fixture_loads_with_groups_in_file_order() -> None:
    d = load_kpa(FIX, "dev")
    assert d.split == "dev"
    assert list(d.arguments)[:3] == ["a1", "a2", "a3"]
    assert d.arguments["a1"].key == ("dev", "a1")
    assert d.key_points["k3"].stance == -1
    assert list(d.groups) == [("Topic A", 1), ("Topic A", -1), ("Topic B", 1), ("Topic B", -1)]
    assert d.groups[("Topic A", -1)] == (("b1", "b2", "b3", "b4"), ("k3", "k4"))
    assert d.groups[("Topic B", -1)] == ((), ("k6",))  # key points without arguments are kept
    assert d.candidate_key_points("a5") == ("k1", "k2")
    assert len(list(d.candidate_pairs())) == 8 * 2 + 4 * 2 + 3 * 1
    assert d.label("a2", "k1") == 1 and d.label("a2", "k2") == 0 and d.label("a3", "k2") is None


def test_multiline_quoted_field_keeps_physical_line_numbers() -> None:
    d = load_kpa(FIX, "dev")
    assert "\n" in d.arguments["a3"].text
    assert d.arguments["a3"].line == 4
    assert d.arguments["a4"].line == 6  # a3 spans lines 4-5


def test_gold_predictions_cover_every_candidate_pair() -> None:
    d = load_kpa(FIX, "dev")
    g = d.gold_predictions(undecided=0.25)
    assert g["a2"] == {"k1": 1.0, "k2": 0.0}
    assert g["a3"] == {"k1": 0.25, "k2": 0.25}
    assert sum(len(v) for v in g.values()) == len(list(d.candidate_pairs()))


def test_same_ids_in_two_splits_are_kept_apart(tmp_path: Path) -> None:
    for split in ("dev", "test"):
        for name in ("arguments", "key_points", "labels"):
            (tmp_path / f"{name}_{split}.csv").write_text((FIX / f"{name}_dev.csv").read_text())
    dev, test = load_kpa(tmp_path, "dev"), load_kpa(tmp_path, "test")
    assert dev.arguments["a1"].key != test.arguments["a1"].key
    assert {dev.arguments["a1"].key, test.arguments["a1"].key} == {("dev", "a1"), ("test", "a1")}


def test_find_kpa_dir_understands_repo_and_data_root_layouts(tmp_path: Path) -> None:
    for sub in ("kpm_data", "test_data", "kpa2021/kpm_data"):
        (tmp_path / sub).mkdir(parents=True)
    (tmp_path / "kpm_data" / "arguments_dev.csv").write_text("x")
    (tmp_path / "test_data" / "arguments_test.csv").write_text("x")
    assert find_kpa_dir(tmp_path, "dev") == tmp_path / "kpm_data"
    assert find_kpa_dir(tmp_path, "test") == tmp_path / "test_data"
    root = tmp_path / "data"
    (root / "kpa2021" / "kpm_data").mkdir(parents=True)
    (root / "kpa2021" / "kpm_data" / "arguments_train.csv").write_text("x")
    assert find_kpa_dir(root, "train") == root / "kpa2021" / "kpm_data"
    with pytest.raises(ConfigurationError, match="no KPA split 'nope'"):
        find_kpa_dir(tmp_path, "nope")


def test_find_kpa_dir_uses_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "kpa2021" / "kpm_data").mkdir(parents=True)
    (tmp_path / "kpa2021" / "kpm_data" / "arguments_dev.csv").write_text("x")
    monkeypatch.setenv("ARGFAITH_DATA", str(tmp_path))
    assert find_kpa_dir(None, "dev") == tmp_path / "kpa2021" / "kpm_data"
    monkeypatch.delenv("ARGFAITH_DATA")
    with pytest.raises(ConfigurationError, match="ARGFAITH_DATA"):
        find_kpa_dir(None, "dev")


def _split(tmp_path: Path, args: str | None = None, kps: str | None = None, labels: str | None = None) -> Path:
    for name, content in (("arguments", args), ("key_points", kps), ("labels", labels)):
        text = (FIX / f"{name}_dev.csv").read_text() if content is None else content
        (tmp_path / f"{name}_dev.csv").write_text(text)
    return tmp_path


@pytest.mark.parametrize(
    ("which", "content", "message"),
    [
        ("args", "arg_id,argument,topic\na,b,c\n", r"arguments_dev.csv:1: missing column\(s\) stance"),
        ("args", "arg_id,argument,topic,stance\na,text,T,0\n", r"arguments_dev.csv:2: stance must be 1 or -1, got '0'"),
        ("args", "arg_id,argument,topic,stance\na,text,T,1\nb,t,T,1\na,x,T,1\n", r"arguments_dev.csv:4: duplicate arg_id 'a' \(first on line 2\)"),
        ("args", "arg_id,argument,topic,stance\na,,T,1\n", r"arguments_dev.csv:2: empty argument"),
        ("args", "arg_id,argument,topic,stance\na,text,T,1,extra\n", r"arguments_dev.csv:2: more fields"),
        ("args", "arg_id,argument,topic,stance\na,text,T\n", r"arguments_dev.csv:2: fewer fields"),
        ("args", "", r"arguments_dev.csv: empty file"),
        ("kps", "key_point_id,key_point,topic,stance\nk1,x,Topic A,1\nk1,y,Topic A,1\n", r"key_points_dev.csv:3: duplicate key_point_id 'k1'"),
        ("labels", "arg_id,key_point_id,label\na1,k1,2\n", r"labels_dev.csv:2: label must be 0 or 1, got '2' for \(a1, k1\)"),
        ("labels", "arg_id,key_point_id,label\na1,k1,1\na1,k1,0\n", r"labels_dev.csv:3: duplicate label for \(a1, k1\)"),
        ("labels", "arg_id,key_point_id,label\nnope,k1,1\n", r"labels_dev.csv:2: unknown arg_id 'nope'"),
        ("labels", "arg_id,key_point_id,label\na1,k9,1\n", r"labels_dev.csv:2: unknown key_point_id 'k9'"),
        ("labels", "arg_id,key_point_id,label\na1,k3,1\n", r"labels_dev.csv:2: \(a1, k3\) pairs an argument and a key point of different topic/stance"),
    ],
)
def test_malformed_files_name_file_and_line(tmp_path: Path, which: str, content: str, message: str) -> None:
    d = _split(tmp_path, **{which: content})
    with pytest.raises(DataFormatError, match=message):
        load_kpa(d, "dev")


def test_stance_spellings_and_bom(tmp_path: Path) -> None:
    args = "\ufeffarg_id,argument,topic,stance\na,text,T,1.0\nb,text,T,-1\n"
    d = _split(tmp_path, args=args, kps="key_point_id,key_point,topic,stance\nk,x,T,1\n", labels="arg_id,key_point_id,label\na,k,1.0\n")
    data = load_kpa(d, "dev")
    assert [a.stance for a in data.arguments.values()] == [1, -1]
    assert data.labels == {("a", "k"): 1}


def test_unlabelled_split_and_system_key_points(tmp_path: Path) -> None:
    d = _split(tmp_path)
    (d / "labels_dev.csv").unlink()
    with pytest.raises(ConfigurationError, match="labels file not found"):
        load_kpa(d, "dev")
    bare = load_kpa(d, "dev", labels=False)
    assert bare.labels == {} and not bare.labelled and load_kpa(FIX, "dev").labelled
    sys_kps = tmp_path / "mine.csv"
    sys_kps.write_text("key_point_id,key_point,topic,stance\nnew1,Something,Topic A,1\n")
    data = load_kpa(d, "dev", key_points_file=sys_kps)
    assert list(data.key_points) == ["new1"] and data.labels == {} and not data.labelled


def test_labels_without_context_only_check_values(tmp_path: Path) -> None:
    p = tmp_path / "labels.csv"
    p.write_text("arg_id,key_point_id,label\nx,y,0\n")
    assert load_kpa_labels(p) == {("x", "y"): 0}


@pytest.mark.skipif(not os.environ.get("ARGFAITH_DATA"), reason="needs ARGFAITH_DATA with kpa2021/")
def test_real_kpm_data_dev_shape() -> None:
    d = load_kpa(None, "dev")
    assert (len(d.arguments), len(d.key_points), len(d.labels), len(d.groups)) == (932, 36, 3458, 8)
