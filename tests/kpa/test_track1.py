"""KPA 2021 Track 1 scorer: a hand-computed example (ties, undecided pairs, unpredicted and
unknown ids), the AP definition against scikit-learn, and the whole procedure against a
reference written after the official script."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argfaith.datasets.kpa import KeyPoint, KPAData, KPArgument, load_kpa
from argfaith.errors import DataFormatError
from argfaith.kpa.track1 import (
    average_precision,
    best_key_points,
    kpa_track1_score,
    load_kpa_predictions,
    save_kpa_predictions,
    scaled_average_precision,
    validate_kpa_predictions,
)

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "kpa"


@pytest.fixture(scope="module")
def data() -> KPAData:
    return load_kpa(FIX, "dev")


@pytest.fixture(scope="module")
def preds() -> dict[str, dict[str, float]]:
    return load_kpa_predictions(FIX / "predictions_dev.json")


# --- the hand-computed example (tests/fixtures/kpa; derivation in the comments) ------------------
#
# Group (Topic A, +1): 8 arguments, keep floor(8/2) = 4.
#   best key points: a1 k1 .9 (label 0); a2 k1 .8 (k1/k2 tie -> k1, first in file; label 1);
#   a3 k2 .7 (undecided); a4 k2 .7 (1); a5 k1 .7 (0); a6 k1 .5 (1); a7 none (0); a8 k1 .4 (1;
#   its k3 and kX scores are ignored). Sorted: a1 .9, a2 .8, {a3, a4, a5} .7 -> kept a1 a2 a3 a4
#   (file order inside the .7 block; a5 dropped: tied_at_cut = 1).
#   strict labels 0 1 0 1: thresholds .9 (P 0, R 0), .8 (P 1/2, R 1/2), .7 (P 2/4, R 1)
#     AP = 1/2*1/2 + 1/2*1/2 = 1/2; scaled = 1/2 * 2/4 = 1/4
#   relaxed 0 1 1 1: .8 (P 1/2, R 1/3), .7 (P 3/4, R 1): AP = 1/6 + 2/3*3/4 = 2/3; scaled 2/3*3/4 = 1/2
# Group (Topic A, -1): 4 arguments, keep 2. b1 k3 .6 (k3/k4 tie -> k3, undecided), b2 k3 .5 (1),
#   b3 k4 .6 (0), b4 k3 .1 (0). Kept b1 b3 (the .6 block, no tie at the cut).
#   strict 0 0 -> AP 0 (no positive); relaxed 1 0 at one threshold: AP = 1/2; scaled 1/4
# Group (Topic B, +1): 3 arguments, keep 1. c1 .3 (1), c2 .3 (0), c3 .2 (1): kept c1 -> AP 1.
# Group (Topic B, -1): key point only, no arguments -> skipped.
HAND = {
    ("Topic A", 1): (1 / 2, 2 / 3, 1 / 4, 1 / 2),
    ("Topic A", -1): (0.0, 1 / 2, 0.0, 1 / 4),
    ("Topic B", 1): (1.0, 1.0, 1.0, 1.0),
}


def test_hand_computed_group_values(data: KPAData, preds: dict) -> None:
    s = kpa_track1_score(preds, data)
    got = {
        (g.topic, g.stance): (g.ap_strict, g.ap_relaxed, g.ap_strict_scaled, g.ap_relaxed_scaled)
        for g in s.groups
    }
    assert got.keys() == HAND.keys()
    for key, expected in HAND.items():
        assert got[key] == pytest.approx(expected, abs=1e-12), key


def test_hand_computed_map_both_variants(data: KPAData, preds: dict) -> None:
    s = kpa_track1_score(preds, data)
    assert s.map_strict == pytest.approx((1 / 2 + 0 + 1) / 3)
    assert s.map_relaxed == pytest.approx((2 / 3 + 1 / 2 + 1) / 3)
    assert s.map_strict_scaled == pytest.approx((1 / 4 + 0 + 1) / 3)
    assert s.map_relaxed_scaled == pytest.approx((1 / 2 + 1 / 4 + 1) / 3)
    assert s.map(relaxed=True, variant="scaled") == s.map_relaxed_scaled


def test_hand_computed_diagnostics(data: KPAData, preds: dict) -> None:
    s = kpa_track1_score(preds, data)
    assert s.unpredicted_arguments == ("a7",)
    assert s.unknown_arguments == ("zz",)
    assert s.ignored_pairs == 2  # a8 -> k3 (other stance) and a8 -> kX (unknown)
    assert s.tied_best == 2  # a2, b1
    assert (s.n_arguments, s.n_predicted_arguments) == (15, 14)
    g1, g2, g3 = s.groups
    assert [p.arg_id for p in g1.pairs if p.kept] == ["a1", "a2", "a3", "a4"]
    assert (g1.tied_at_cut, g2.tied_at_cut, g3.tied_at_cut) == (1, 0, 1)
    assert (g1.n_kept, g1.n_positive_strict, g1.n_positive_relaxed, g1.n_undecided_kept) == (4, 2, 3, 1)
    by_arg = {p.arg_id: p for p in g1.pairs + g2.pairs}
    assert by_arg["a2"].kp_id == "k1" and by_arg["b1"].kp_id == "k3"  # ties -> first in key point file
    assert by_arg["a7"].kp_id is None and by_arg["a7"].label_relaxed == 0
    assert by_arg["a8"].kp_id == "k1"
    d = s.to_dict()
    assert "pairs" not in d["groups"][0] and json.dumps(d)
    assert len(s.to_dict(pairs=True)["groups"][0]["pairs"]) == 8


def test_result_does_not_depend_on_prediction_order(data: KPAData, preds: dict) -> None:
    base = kpa_track1_score(preds, data)
    rng = random.Random(7)
    for _ in range(5):
        items = list(preds.items())
        rng.shuffle(items)
        shuffled = {}
        for a, kps in items:
            kp_items = list(kps.items())
            rng.shuffle(kp_items)
            shuffled[a] = dict(kp_items)
        s = kpa_track1_score(shuffled, data)
        assert (s.map_strict, s.map_relaxed, s.map_strict_scaled, s.map_relaxed_scaled) == (
            base.map_strict, base.map_relaxed, base.map_strict_scaled, base.map_relaxed_scaled)


def test_gold_predictions_are_perfect_on_fixture(data: KPAData) -> None:
    s = kpa_track1_score(data.gold_predictions(), data)
    assert (s.map_strict, s.map_relaxed) == (1.0, 1.0)
    # every group has at least n/2 arguments with a match, so even the scaled variant reaches 1
    assert (s.map_strict_scaled, s.map_relaxed_scaled) == (1.0, 1.0)


def test_top_fraction_one_keeps_everything(data: KPAData, preds: dict) -> None:
    s = kpa_track1_score(preds, data, top_fraction=1.0)
    assert all(g.n_kept == g.n_arguments and g.tied_at_cut == 0 for g in s.groups)
    with pytest.raises(ValueError, match="top_fraction"):
        kpa_track1_score(preds, data, top_fraction=0)


def test_unlabelled_split_is_refused(tmp_path: Path, data: KPAData) -> None:
    bare = KPAData("x", data.arguments, data.key_points, {}, labelled=False)
    with pytest.raises(DataFormatError, match="without labels"):
        kpa_track1_score({}, bare)


# --- AP ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("labels", "scores", "expected"),
    [
        ([1, 0, 1], [0.9, 0.8, 0.7], (1 + 2 / 3) / 2),
        ([0, 1], [0.5, 0.5], 0.5),
        ([1, 1], [0.1, 0.2], 1.0),
        ([0, 0], [0.1, 0.2], 0.0),
        ([], [], 0.0),
        ([0, 1, 1, 0], [0.9, 0.7, 0.7, 0.1], 2 / 3),
    ],
)
def test_average_precision_golden(labels: list[int], scores: list[float], expected: float) -> None:
    assert average_precision(labels, scores) == pytest.approx(expected)


def test_scaled_average_precision() -> None:
    assert scaled_average_precision([1, 0, 1, 0], [4, 3, 2, 1]) == pytest.approx((1 + 2 / 3) / 2 * 2 / 4)
    assert scaled_average_precision([], []) == 0.0
    with pytest.raises(ValueError):
        average_precision([1], [0.1, 0.2])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 6)), min_size=1, max_size=30))
def test_average_precision_equals_sklearn_with_ties(pairs: list[tuple[int, int]]) -> None:
    sk = pytest.importorskip("sklearn.metrics")
    labels = [y for y, _ in pairs]
    scores = [s / 6 for _, s in pairs]  # few distinct values: many ties
    if sum(labels) == 0:
        assert average_precision(labels, scores) == 0.0
        return
    assert average_precision(labels, scores) == pytest.approx(sk.average_precision_score(labels, scores), abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 6)), min_size=1, max_size=30))
def test_average_precision_equals_threshold_definition(pairs: list[tuple[int, int]]) -> None:
    labels = [y for y, _ in pairs]
    scores = [s / 6 for _, s in pairs]
    pos = sum(labels)
    expected, prev_r = 0.0, 0.0
    for t in sorted(set(scores), reverse=True):  # one precision/recall point per distinct score
        sel = [y for y, s in zip(labels, scores) if s >= t]
        r = sum(sel) / pos if pos else 0.0
        expected += (r - prev_r) * (sum(sel) / len(sel))
        prev_r = r
    assert average_precision(labels, scores) == pytest.approx(expected, abs=1e-12)


# --- whole procedure against a reference after the official script (e09636f) ------------------

def _ap_without_ties(y: list[int], scores: list[float]) -> float:
    """Textbook AP for distinct scores: mean over positives of the precision at their rank."""
    ranked = [lab for _, lab in sorted(zip(scores, y), key=lambda t: -t[0])]
    hits, total = 0, 0.0
    for i, lab in enumerate(ranked, 1):
        if lab:
            hits += 1
            total += hits / i
    return total / hits if hits else 0.0


def _official_reference(preds: dict, data: KPAData, scaled: bool, ap=_ap_without_ties) -> tuple[float, float]:
    """All same-group pairs, unpredicted = 0, best per argument, top floor(n/2), AP with the
    all-negative guard; the scaled variant multiplies by positives/kept. Ties are excluded by
    the caller (the official script breaks them at random)."""
    out = []
    for relaxed in (False, True):
        aps = []
        for (_t, _s), (arg_ids, kp_ids) in data.groups.items():
            if not arg_ids:
                continue
            rows = []
            for a in arg_ids:
                cands = [(preds.get(a, {}).get(k, 0.0), k) for k in kp_ids]
                score, k = max(cands)
                lab = data.labels.get((a, k))
                rows.append((score, (1 if relaxed else 0) if lab is None else lab))
            rows.sort(key=lambda r: -r[0])
            top = rows[: int(len(rows) * 0.5)]
            y = [r[1] for r in top]
            if all(v == 0 for v in y):
                aps.append(0.0)
                continue
            a_p = ap(y, [r[0] for r in top])
            aps.append(a_p * sum(y) / len(y) if scaled else a_p)
        out.append(sum(aps) / len(aps))
    return out[0], out[1]


@st.composite
def _kpa_problems(draw: st.DrawFn) -> tuple[KPAData, dict]:
    n_groups = draw(st.integers(1, 3))
    args, kps, labels, preds = {}, {}, {}, {}
    counter = 0
    for g in range(n_groups):
        topic, stance = f"T{g // 2}", 1 if g % 2 == 0 else -1
        n_kp = draw(st.integers(1, 4))
        n_arg = draw(st.integers(1, 12))
        kp_ids = [f"k{g}_{i}" for i in range(n_kp)]
        for k in kp_ids:
            kps[k] = KeyPoint("dev", k, k, topic, stance)
        for i in range(n_arg):
            a = f"a{g}_{i}"
            args[a] = KPArgument("dev", a, a, topic, stance)
            preds[a] = {}
            for k in kp_ids:
                lab = draw(st.sampled_from([0, 1, None]))
                if lab is not None:
                    labels[(a, k)] = lab
                counter += 1
                preds[a][k] = counter  # distinct positive scores: no ties anywhere
    order = draw(st.permutations(list(range(1, counter + 1))))
    for a in preds:
        for k in preds[a]:
            preds[a][k] = order[preds[a][k] - 1] / counter
    return KPAData("dev", args, kps, labels), preds


@settings(max_examples=150, deadline=None)
@given(_kpa_problems())
def test_matches_official_procedure_without_ties(problem: tuple[KPAData, dict]) -> None:
    data, preds = problem
    s = kpa_track1_score(preds, data)
    assert (s.map_strict, s.map_relaxed) == pytest.approx(_official_reference(preds, data, False), abs=1e-12)
    assert (s.map_strict_scaled, s.map_relaxed_scaled) == pytest.approx(
        _official_reference(preds, data, True), abs=1e-12)
    assert s.tied_best == 0 and all(g.tied_at_cut == 0 for g in s.groups)


@settings(max_examples=40, deadline=None)
@given(_kpa_problems())
def test_matches_official_procedure_on_sklearn_ap(problem: tuple[KPAData, dict]) -> None:
    sk = pytest.importorskip("sklearn.metrics")
    data, preds = problem
    s = kpa_track1_score(preds, data)
    ref = _official_reference(preds, data, False, ap=lambda y, sc: float(sk.average_precision_score(y, sc)))
    assert (s.map_strict, s.map_relaxed) == pytest.approx(ref, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(_kpa_problems())
def test_invariants(problem: tuple[KPAData, dict]) -> None:
    data, preds = problem
    s = kpa_track1_score(preds, data)
    for g in s.groups:
        assert 0.0 <= g.ap_strict <= 1.0 + 1e-12 and 0.0 <= g.ap_relaxed <= 1.0 + 1e-12
        assert (g.ap_strict > 0) == (g.n_positive_strict > 0) and (g.ap_relaxed > 0) == (g.n_positive_relaxed > 0)
        assert g.ap_strict_scaled <= g.ap_strict + 1e-12 and g.ap_relaxed_scaled <= g.ap_relaxed + 1e-12
        assert g.n_positive_strict <= g.n_positive_relaxed <= g.n_kept == g.n_arguments // 2
    gold = kpa_track1_score(data.gold_predictions(), data)
    for g in gold.groups:
        # gold ranks every positive first: plain AP is 1 wherever a positive was kept
        assert g.ap_strict == (1.0 if g.n_positive_strict else 0.0)
        assert g.ap_relaxed == (1.0 if g.n_positive_relaxed else 0.0)
        # the scaled variant's ceiling: positives first, so min(#args with a match, kept) of kept
        arg_ids = data.groups[(g.topic, g.stance)][0]
        n_match = sum(1 for a in arg_ids if any(data.labels.get((a, k)) == 1 for k in data.candidate_key_points(a)))
        if g.n_kept:
            assert g.ap_strict_scaled == pytest.approx(min(n_match, g.n_kept) / g.n_kept if n_match else 0.0)
    assert gold.map_strict >= s.map_strict - 1e-12


# --- predictions I/O ----------------------------------------------------------------------------

def test_predictions_roundtrip(tmp_path: Path, preds: dict) -> None:
    p = tmp_path / "p.json"
    save_kpa_predictions(preds, p)
    assert load_kpa_predictions(p) == preds


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([1, 2], "expected a JSON object"),
        ({"a1": [0.5]}, "argument 'a1': expected an object"),
        ({"a1": {"k1": "0.5"}}, "argument 'a1', key point 'k1': score must be a finite number"),
        ({"a1": {"k1": True}}, "key point 'k1': score must be a finite number"),
        ({"a1": {"k1": float("nan")}}, "score must be a finite number, got nan"),
    ],
)
def test_bad_predictions_name_argument_and_key_point(raw: object, message: str) -> None:
    with pytest.raises(DataFormatError, match=message):
        validate_kpa_predictions(raw)


def test_bad_json_names_file_and_line(tmp_path: Path) -> None:
    p = tmp_path / "p.json"
    p.write_text('{"a1":\n {"k1": 0.5,}}')
    with pytest.raises(DataFormatError, match=r"p.json:2:\d+: invalid JSON"):
        load_kpa_predictions(p)
    with pytest.raises(DataFormatError, match="missing.json: no such predictions file"):
        load_kpa_predictions(tmp_path / "missing.json")


def test_best_key_points_only_considers_own_group(data: KPAData) -> None:
    best, ignored, tied = best_key_points({"b2": {"k1": 5.0, "k4": -1.0}}, data)
    assert best["b2"] == ("k4", -1.0)  # negative scores are fine; k1 is of the other stance
    assert (ignored, tied) == (1, 0)
    assert best["a1"] == (None, 0.0)


@pytest.mark.skipif(not os.environ.get("ARGFAITH_DATA"), reason="needs ARGFAITH_DATA with kpa2021/")
def test_real_dev_gold_is_perfect_and_scaled_ceiling() -> None:
    d = load_kpa(None, "dev")
    s = kpa_track1_score(d.gold_predictions(), d)
    assert (s.map_strict, s.map_relaxed, s.map_relaxed_scaled) == (1.0, 1.0, 1.0)
    # (end affirmative action, +1): 45 of 119 arguments have a match; 59 are kept
    assert s.map_strict_scaled == pytest.approx((7 + 45 / 59) / 8)
