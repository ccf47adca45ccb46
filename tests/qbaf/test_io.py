"""JSON interchange, its JSON Schema, and networkx round trips."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import HealthCheck, given, settings

from argfaith.qbaf import (
    QBAF,
    ConflictingEdgeError,
    DuplicateArgumentError,
    DuplicateEdgeError,
    ProposalEdgeError,
    QBAFError,
    QBAFFormatError,
    UnknownArgumentError,
    from_networkx,
    load_qbaf,
    qbaf_from_dict,
    qbaf_json_schema,
    qbaf_to_dict,
    save_qbaf,
    to_networkx,
)
from argfaith.qbaf.io import qbaf_json_schema_text
from argfaith.qbaf.strategies import debate_qbafs, qbafs

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = settings(deadline=None, max_examples=100, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

GOOD = {
    "name": "tiny",
    "tau": 0.25,
    "arguments": [
        {"id": "p1", "kind": "proposal", "text": "Welcomes <b>x</b>"},
        {"id": "s1", "speaker": "MEP A", "position": 0},
        {"id": "s2", "base_score": 0.9, "metadata": {"span": [0, 5]}},
    ],
    "attacks": [["s1", "p1"]],
    "supports": [["s2", "s1"]],
}


def write(tmp_path: Path, text: str, name: str = "q.json") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_defaults_and_provenance():
    q = qbaf_from_dict(GOOD)
    assert q.debate and q.name == "tiny" and q.tau == 0.25
    assert q.base_scores.tolist() == [0.5, 0.25, 0.9]  # proposal 0.5, speech default = file tau
    assert q.argument("s1").speaker == "MEP A" and q.argument("s2").metadata["span"] == [0, 5]
    assert qbaf_from_dict(GOOD, tau=0.15).base_score("s1") == 0.15  # caller's tau overrides the file's
    assert not qbaf_from_dict({"arguments": [{"id": "a"}]}).debate  # no proposals → not a debate QBAF


def test_file_round_trip(tmp_path):
    q = qbaf_from_dict(GOOD)
    save_qbaf(q, tmp_path / "sub" / "out.json")
    back = load_qbaf(tmp_path / "sub" / "out.json")
    assert back == q and back.name == q.name and back.tau == q.tau and back.arguments == q.arguments
    assert not (tmp_path / "sub" / "out.json.tmp").exists()


@SETTINGS
@given(q=qbafs(max_size=8))
def test_dict_and_networkx_round_trips(q):
    back = qbaf_from_dict(json.loads(json.dumps(qbaf_to_dict(q))))
    assert back == q and back.debate == q.debate
    g = to_networkx(q)
    assert set(g.nodes) == set(q.ids)
    assert {(u, v) for u, v, d in g.edges(data=True) if d["relation"] == "attack"} == set(q.attacks)
    back = from_networkx(g)
    assert back == q


@SETTINGS
@given(q=debate_qbafs())
def test_debate_round_trips_keep_kinds(q):
    assert from_networkx(to_networkx(q)).proposals == q.proposals
    assert qbaf_from_dict(qbaf_to_dict(q)).debate


def test_empty_framework_everywhere(tmp_path):
    q = qbaf_from_dict({"arguments": []})
    assert q.n == 0
    save_qbaf(q, tmp_path / "e.json")
    assert load_qbaf(tmp_path / "e.json") == q
    assert from_networkx(to_networkx(q)) == q and to_networkx(q).number_of_nodes() == 0


@pytest.mark.parametrize(
    "text, error, message",
    [
        ('{"arguments": [\n {"id": "p1",}\n]}', QBAFFormatError, r"q\.json:2:14: invalid JSON"),
        ("", QBAFFormatError, r"q\.json:1:1: invalid JSON"),
        ('{"arguments": [{"id": "s1", "base_score": NaN}]}', QBAFFormatError, r"arguments\[0\] \(argument 's1'\)\.base_score: base score is NaN"),
        ('{"arguments": [{"id": "s1", "base_score": 1.5}]}', QBAFFormatError, r"\(argument 's1'\)\.base_score: base score 1\.5 is not in \[0, 1\]"),
        ('{"tau": -1, "arguments": []}', QBAFFormatError, r"tau: tau -1\.0 is not in \[0, 1\]"),
        ('{"arguments": [{"id": "s1", "kind": "claim"}]}', QBAFFormatError, r"\(argument 's1'\)\.kind"),
        ('{"arguments": [], "atacks": []}', QBAFFormatError, r"atacks: Extra inputs are not permitted"),
        ('{"attacks": []}', QBAFFormatError, r"arguments: Field required"),
        ("[1, 2]", QBAFFormatError, r"<root>: Input should be a valid dictionary"),
        ('{"arguments": [{"id": "a"}], "attacks": [["a", "a", "a"]]}', QBAFFormatError, r"attacks\[0\]"),
        ('{"arguments": [{"id": "p1", "kind": "proposal"}, {"id": "s1"}], "attacks": [["s1", "p9"]]}', UnknownArgumentError, r"q\.json: attacks\[0\] \('s1' -> 'p9'\): unknown argument 'p9'"),
        ('{"arguments": [{"id": "p1"}, {"id": "p1"}]}', DuplicateArgumentError, r"q\.json: duplicate argument id 'p1'"),
        ('{"arguments": [{"id": "a"}, {"id": "b"}], "supports": [["a", "b"], ["a", "b"]]}', DuplicateEdgeError, r"supports\[0\] and supports\[1\]: edge \('a' -> 'b'\)"),
        ('{"arguments": [{"id": "a"}, {"id": "b"}], "attacks": [["a", "b"]], "supports": [["a", "b"]]}', ConflictingEdgeError, r"edge \('a' -> 'b'\) is both"),
        ('{"arguments": [{"id": "p1", "kind": "proposal"}, {"id": "s1"}], "attacks": [["p1", "s1"]]}', ProposalEdgeError, r"leaves proposal argument 'p1'"),
    ],
)
def test_load_errors_name_file_and_item(tmp_path, text, error, message):
    with pytest.raises(error, match=message):
        load_qbaf(write(tmp_path, text))


def test_file_level_errors(tmp_path):
    with pytest.raises(QBAFFormatError, match="missing.json: no such file"):
        load_qbaf(tmp_path / "missing.json")
    with pytest.raises(QBAFFormatError, match="is a directory"):
        load_qbaf(tmp_path)
    p = tmp_path / "latin1.json"
    p.write_bytes('{"arguments": [{"id": "é"}]}'.encode("latin-1"))
    with pytest.raises(QBAFFormatError, match="latin1.json, line 1: not UTF-8"):
        load_qbaf(p)


def test_networkx_errors_name_the_edge_or_node():
    g = nx.DiGraph()
    g.add_edge("a", "b", relation="attack")
    g.add_edge("b", "c")
    with pytest.raises(QBAFError, match=r"edge \('b' -> 'c'\): attribute 'relation' must be 'attack' or 'support', got None"):
        from_networkx(g)
    g = nx.DiGraph()
    g.add_node(1)
    with pytest.raises(QBAFError, match="node 1: argument ids must be strings"):
        from_networkx(g)


def test_schema_file_is_up_to_date():
    checked_in = (ROOT / "docs" / "qbaf.schema.json").read_text(encoding="utf-8")
    assert checked_in == qbaf_json_schema_text(), (
        "docs/qbaf.schema.json is stale; regenerate it with: python -c \"from argfaith.qbaf.io import "
        "qbaf_json_schema_text as s; print(s(), end='')\" > docs/qbaf.schema.json"
    )


def test_schema_describes_the_format():
    s = qbaf_json_schema()
    assert s["$schema"].endswith("2020-12/schema") and s["required"] == ["arguments"]
    arg = s["$defs"]["ArgumentModel"]
    assert arg["required"] == ["id"] and arg["properties"]["kind"]["enum"] == ["proposal", "speech"]
    assert arg["properties"]["base_score"]["minimum"] == 0.0 and arg["properties"]["base_score"]["maximum"] == 1.0
    assert s["additionalProperties"] is False and arg["additionalProperties"] is False
    # The shipped examples are accepted by the model the schema is exported from.
    for f in sorted((ROOT / "examples" / "paper").glob("*.json")):
        assert isinstance(load_qbaf(f), QBAF)
