"""KPA structure metrics: global cluster precision, uniqueness, true unmatched rate."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.datasets.kpa import load_kpa
from argfaith.errors import DataFormatError
from argfaith.kpa.track1 import load_kpa_predictions
from argfaith.kpa.structure import (
    assignments_from_predictions,
    global_cluster_precision,
    kpa_structure,
    load_assignments,
    load_duplicate_judgements,
    load_unmatched_judgements,
    true_unmatched_rate,
    uniqueness,
    unmatched_judgements_from_labels,
)

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "kpa"


def test_cluster_precision_by_hand() -> None:
    assign = {"a": ["k1"], "b": ["k1", "k2"], "c": ["k2"], "d": [], "e": ["k3"]}
    judged = {("a", "k1"): 1, ("b", "k1"): 0, ("b", "k2"): 1, ("c", "k2"): 1}  # (e, k3) unjudged
    cp = global_cluster_precision(assign, judged)
    assert (cp.n_matched_pairs, cp.n_judged, cp.n_correct, cp.n_unjudged) == (5, 4, 3, 1)
    assert cp.value == 0.75
    assert cp.per_key_point == {"k1": (1, 2), "k2": (2, 2), "k3": (0, 0)}
    assert cp.macro == pytest.approx((0.5 + 1.0) / 2)
    assert global_cluster_precision({"a": []}, {}).value is None


def test_uniqueness_by_hand_and_transitive() -> None:
    u = uniqueness(["k1", "k2", "k3", "k4"], [("k2", "k1"), ("k3", "k2")])
    assert (u.n_key_points, u.n_distinct, u.value) == (4, 2, 0.5)
    assert u.clusters == (("k1", "k2", "k3"),)
    assert uniqueness([], []).value is None
    with pytest.raises(DataFormatError, match="unknown key point 'k9'"):
        uniqueness(["k1"], [("k1", "k9")])


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 8).flatmap(lambda n: st.tuples(st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=12))))
def test_uniqueness_equals_connected_components(case: tuple[int, list[tuple[int, int]]]) -> None:
    n, edges = case
    kps = [f"k{i}" for i in range(n)]
    g = nx.Graph()
    g.add_nodes_from(kps)
    g.add_edges_from((kps[a], kps[b]) for a, b in edges)
    u = uniqueness(kps, [(kps[a], kps[b]) for a, b in edges])
    assert u.n_distinct == nx.number_connected_components(g)
    assert sorted(map(sorted, u.clusters)) == sorted(sorted(c) for c in nx.connected_components(g) if len(c) > 1)


def test_true_unmatched_rate_by_hand() -> None:
    assign = {"a": ["k1"], "b": [], "c": [], "d": [], "e": []}
    r = true_unmatched_rate(assign, {"b": True, "c": False, "d": True, "a": False})
    assert (r.n_unmatched, r.n_judged, r.n_truly_unmatched, r.n_unjudged) == (4, 3, 2, 1)
    assert r.value == pytest.approx(2 / 3)


def test_derived_unmatched_judgements_from_fixture_labels() -> None:
    d = load_kpa(FIX, "dev")
    cands = {a: d.candidate_key_points(a) for a in d.arguments}
    j = unmatched_judgements_from_labels(d.labels, cands)
    assert j["a7"] is True  # both key points labelled 0
    assert j["a1"] is False  # (a1, k2) = 1
    assert "a3" not in j  # unlabelled: unjudged
    assert "b4" not in j  # (b4, k3) = 0 but (b4, k4) unlabelled: unjudged


def test_assignments_from_predictions_and_full_structure() -> None:
    d = load_kpa(FIX, "dev")
    p = load_kpa_predictions(FIX / "predictions_dev.json")
    cands = {a: d.candidate_key_points(a) for a in d.arguments}
    assign = assignments_from_predictions(p, 0.5, candidates=cands)
    assert "zz" not in assign and len(assign) == 15
    assert assign["a2"] == ["k1"]  # tie k1/k2 at .8 -> first candidate
    assert assign["a7"] == [] and assign["c1"] == [] and assign["a6"] == ["k1"]
    assert assign["a8"] == []  # its k3 (other stance) and kX (unknown) scores do not count
    multi = assignments_from_predictions(p, 0.5, best_only=False, candidates=cands)
    assert multi["a2"] == ["k1", "k2"]
    raw = assignments_from_predictions(p, 0.5)
    assert raw["a8"] == ["kX"] and raw["zz"] == ["k1"]  # without candidates nothing is filtered
    s = kpa_structure(assign, match_judgements=d.labels, key_points=list(d.key_points), duplicates=[("k5", "k6")],
                      unmatched_judgements=unmatched_judgements_from_labels(d.labels, {a: d.candidate_key_points(a) for a in d.arguments}))
    # matched: a1 k1 (0), a2 k1 (1), a3 k2 (?), a4 k2 (1), a5 k1 (0), a6 k1 (1), b1 k3 (?), b2 k3 (1), b3 k4 (0)
    assert (s.cluster_precision.n_judged, s.cluster_precision.n_correct) == (7, 4)  # type: ignore[union-attr]
    assert s.uniqueness.value == pytest.approx(5 / 6)  # type: ignore[union-attr]
    # unmatched: a7 (truly), a8 (no: a8 k1 = 1), b4 (unjudged), c1 c2 c3 (c1, c3 matchable; c2 truly)
    assert (s.unmatched.n_unmatched, s.unmatched.n_judged, s.unmatched.n_truly_unmatched) == (6, 5, 2)  # type: ignore[union-attr]
    assert s.to_dict()["cluster_precision"]["per_key_point"]["k1"] == [2, 4]


def test_loaders_and_their_errors(tmp_path: Path) -> None:
    a = tmp_path / "a.csv"
    a.write_text("arg_id,key_point_id\nx,k1\nx,k2\ny,\n")
    assert load_assignments(a) == {"x": ["k1", "k2"], "y": []}
    a.write_text("arg_id,key_point_id\nx,k1\nx,k1\n")
    with pytest.raises(DataFormatError, match=r"a.csv:3: \(x, k1\) listed twice"):
        load_assignments(a)
    dup = tmp_path / "d.csv"
    dup.write_text("key_point_id_1,key_point_id_2,same\nk1,k2,1\nk2,k3,0\nk3,k4,true\n")
    assert load_duplicate_judgements(dup) == [("k1", "k2"), ("k3", "k4")]
    dup.write_text("key_point_id_1,key_point_id_2,same\nk1,k2,maybe\n")
    with pytest.raises(DataFormatError, match=r"d.csv:2: same must be 0/1"):
        load_duplicate_judgements(dup)
    u = tmp_path / "u.csv"
    u.write_text("arg_id,truly_unmatched\nx,1\ny,0\n")
    assert load_unmatched_judgements(u) == {"x": True, "y": False}
    u.write_text("arg_id,unmatched\nx,1\n")
    with pytest.raises(DataFormatError, match="missing column"):
        load_unmatched_judgements(u)
