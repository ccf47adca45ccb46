"""Degeneracy warnings (argfaith.metrics.degeneracy) and their presence in every report."""

from __future__ import annotations

from argfaith.metrics.degeneracy import REFERENCE_DENSITY, degeneracy_warnings
from argfaith.metrics.evaluate import analyse_side, evaluate
from argfaith.qbaf import qbaf_from_dict


def qbaf(n_props: int, attacks=(), supports=(), speech=(), info=None):  # type: ignore[no-untyped-def]
    args = [{"id": f"p{i}", "kind": "proposal"} for i in range(1, n_props + 1)]
    args += [{"id": s, "kind": "speech"} for s in speech]
    d = {"name": "q", "arguments": args, "attacks": [list(e) for e in attacks], "supports": [list(e) for e in supports]}
    if info:
        d["metadata"] = info
    return qbaf_from_dict(d)


def kinds(ws: list[str]) -> set[str]:
    return {w.split(":")[0] for w in ws}


def test_no_warning_on_a_healthy_pair() -> None:
    sp = [f"s{i}" for i in range(10)]
    src = qbaf(5, supports=[(f"s{i}", f"p{i % 5 + 1}") for i in range(5)], attacks=[("s5", "p1"), ("s6", "p2")], speech=sp)
    summ = qbaf(5, supports=[(f"s{i}", f"p{i % 5 + 1}") for i in range(5)], attacks=[("s6", "p2")], speech=sp)
    ws = degeneracy_warnings(analyse_side(src), analyse_side(summ))
    assert ws == []


def test_untouched_proposals_and_low_acceptance() -> None:
    sp = [f"s{i}" for i in range(6)]
    # every proposal attacked by an unattacked argument: nothing is accepted in the source
    src = qbaf(6, attacks=[(f"s{i}", f"p{i + 1}") for i in range(6)], speech=sp)
    summ = qbaf(6, speech=sp)  # the summary's graph touches nothing
    ws = degeneracy_warnings(analyse_side(src), analyse_side(summ))
    assert {"source acceptance", "untouched proposals"} <= kinds(ws)
    assert any("0 of 6 proposals" in w for w in ws)


def test_pro_con_ratio_constant() -> None:
    sp = ["a", "b"] + [f"s{i}" for i in range(5)]
    # a -> b -> a attack cycle feeding every proposal: under walks every upstream argument is pro and con
    src = qbaf(5, supports=[(f"s{i}", f"p{i + 1}") for i in range(5)], speech=sp)
    summ = qbaf(5, attacks=[("a", "b"), ("b", "a")], supports=[("a", f"p{i}") for i in range(1, 6)], speech=sp)
    ws = degeneracy_warnings(analyse_side(src), analyse_side(summ))
    assert "pro-con ratio" in kinds(ws)
    assert any("source QBAF" in w for w in ws if w.startswith("pro-con")) is True  # source ratios are all 1 too


def test_density_warning_uses_labelled_reference() -> None:
    sp = [f"s{i}" for i in range(10)]
    edges = [(f"s{i}", f"p{j}") for i in range(10) for j in range(1, 6)]  # 50 edges
    info = {"counts": {"candidate_pairs_classified": 60}}  # 83% of candidates related
    src = qbaf(5, supports=edges, speech=sp, info=info)
    summ = qbaf(5, supports=edges[:5], speech=sp)
    ws = degeneracy_warnings(analyse_side(src), analyse_side(summ))
    dens = [w for w in ws if w.startswith("relation density")]
    assert len(dens) == 1 and "source QBAF" in dens[0]
    ref = REFERENCE_DENSITY["debate"]["related"]
    assert 0.02 < ref < 0.2
    ok_pairs = int(50 / ref)  # a density equal to the labelled one is fine
    src_ok = qbaf(5, supports=edges, speech=sp, info={"counts": {"candidate_pairs_classified": ok_pairs}})
    assert not [w for w in degeneracy_warnings(analyse_side(src_ok), analyse_side(summ)) if w.startswith("relation density")]


def test_small_frameworks_never_warn() -> None:
    # the paper's worked example has two proposals: shares are too coarse to mean anything
    src = qbaf(2, attacks=[("s1", "p1"), ("s2", "p2")], speech=["s1", "s2"])
    summ = qbaf(2, speech=["s1", "s2"])
    assert degeneracy_warnings(analyse_side(src), analyse_side(summ)) == []


def test_warnings_reach_the_report() -> None:
    sp = [f"s{i}" for i in range(6)]
    src = qbaf(6, attacks=[(f"s{i}", f"p{i + 1}") for i in range(6)], speech=sp)
    summ = qbaf(6, speech=sp)
    r = evaluate(src, summ)
    assert any(w.startswith("untouched proposals") for w in r.warnings)
