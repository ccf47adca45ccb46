"""`argfaith mine` through the real entry point (subprocess) and typer's CliRunner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "mining"
DEBATE = FIX / "ep_debates" / "debates" / "CRE-20990101-ITEM-001"
SUMMARY = FIX / "ep_summaries" / "CRE-20990101-ITEM-001" / "CRE-20990101-ITEM-001_claude_structured_en.json"
NULL_SUMMARY = FIX / "ep_summaries" / "CRE-20990101-ITEM-001" / "CRE-20990101-ITEM-001_claude_org_zero_shot.json"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    e = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "argfaith", "mine", *args], capture_output=True, text=True, env=e, timeout=120)


@pytest.fixture
def labels(tmp_path: Path) -> Path:
    """Recorded labels for a few fixture pairs (everything else: no relation)."""
    d = "CRE-20990101-ITEM-001"
    rows = [
        {"source_id": f"{d}-1-011-1", "target_id": f"{d}-1-010-1", "label": "attack"},
        {"source_id": f"{d}-1-011-2", "target_id": f"{d}-PAR-1", "label": "attack"},
        {"source_id": f"{d}-1-012-1", "target_id": f"{d}-PAR-2", "label": "support"},
        {"source_id": f"{d}-1-010-3", "target_id": f"{d}-1-010-2", "label": "support"},
    ]
    f = tmp_path / "labels.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return f


def test_mine_debate_with_recorded_labels_and_resume(tmp_path: Path, labels: Path):
    out = tmp_path / "q.json"
    r = run(str(DEBATE), "--classifier", f"recorded:{labels}?unknown=no-relation", "--out", str(out), "--tau", "0.25")
    assert r.returncode == 0, r.stderr
    q = json.loads(out.read_text(encoding="utf-8"))
    d = "CRE-20990101-ITEM-001"
    assert sorted(map(tuple, q["attacks"])) == [(f"{d}-1-011-1", f"{d}-1-010-1"), (f"{d}-1-011-2", f"{d}-P1")]  # recorded under the old id PAR-1
    assert sorted(map(tuple, q["supports"])) == [(f"{d}-1-010-3", f"{d}-1-010-2"), (f"{d}-1-012-1", f"{d}-P2")]
    meta = q["metadata"]
    assert meta["units"] == "spans" and meta["candidates"] == "all" and meta["tau"] == 0.25
    assert meta["counts"]["candidate_pairs_all"] == 6 * 5 // 2 + 6 * 3
    assert meta["classifier"] == "recorded:labels.jsonl"
    speech = [a for a in q["arguments"] if a["kind"] == "speech"]
    assert all("speaker" in a and "position" in a and "start" in a["metadata"] for a in speech)
    assert "wrote" in r.stderr and "0 resumed" in r.stderr
    ckpt = tmp_path / "q.pairs.jsonl"
    assert ckpt.exists()
    # Rerun: everything comes from the checkpoint.
    r2 = run(str(DEBATE), "--classifier", f"recorded:{labels}?unknown=no-relation", "--out", str(out), "--tau", "0.25")
    assert r2.returncode == 0, r2.stderr
    assert "(33 resumed" in r2.stderr
    assert json.loads(out.read_text(encoding="utf-8"))["attacks"] == q["attacks"]


def test_mine_summary_and_dry_run(tmp_path: Path, labels: Path):
    out = tmp_path / "s.json"
    r = run(str(DEBATE), "--summary", str(SUMMARY), "--classifier", f"recorded:{labels}?unknown=no-relation", "--out", str(out), "-q")
    assert r.returncode == 0, r.stderr
    q = json.loads(out.read_text(encoding="utf-8"))
    assert [a["id"] for a in q["arguments"] if a["kind"] == "proposal"] == [f"CRE-20990101-ITEM-001-P{i}" for i in (1, 2, 4)]
    assert q["metadata"]["kind"] == "summary" and q["metadata"]["summary_variant"] == "claude_structured_en"
    dry = run(str(DEBATE), "--dry-run", "--format", "json", "--units", "sentences", "--candidates", "topk:3")
    assert dry.returncode == 0, dry.stderr
    info = json.loads(dry.stdout)
    assert info["candidates"] == "topk:3" and info["n_candidates"] <= 3 * info["n_speech"]
    assert info["units"] == "sentences:rules"


def test_errors_exit_2_with_a_message(tmp_path: Path, labels: Path):
    # Through the real entry point: one line "error: ...", status 2, no traceback.
    r = run(str(tmp_path / "nope"), "--out", str(tmp_path / "q.json"), "--classifier", f"recorded:{labels}")
    assert r.returncode == 2 and r.stderr.startswith("error: ") and "nope" in r.stderr and "Traceback" not in r.stderr
    r = run(str(DEBATE), "--out", str(tmp_path / "q.json"), "--classifier", f"recorded:{labels}")  # unknown pairs → error policy
    assert r.returncode == 2 and "no recorded label for pair" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize(
    "args, exc, message",
    [
        (["--summary", str(NULL_SUMMARY), "--out", "{tmp}/q.json"], "DataFormatError", "key 'summary' is null"),
        ([], "ConfigurationError", "--out FILE is required"),
        (["--candidates", "nearest:3", "--dry-run"], "ConfigurationError", "unknown candidate strategy"),
        (["--units", "spans", "--dry-run", "--summary", str(SUMMARY)], None, None),  # spans ignored for summaries
    ],
)
def test_error_cases_raise_the_documented_errors(tmp_path: Path, labels: Path, args, exc, message):
    from typer.testing import CliRunner

    from argfaith.cli import app

    argv = ["mine", str(DEBATE), "--classifier", f"recorded:{labels}", *[a.replace("{tmp}", str(tmp_path)) for a in args]]
    res = CliRunner().invoke(app, argv)
    if exc is None:
        assert res.exit_code == 0, res.output
        return
    assert type(res.exception).__name__ == exc and message in str(res.exception)


def test_without_key_and_classifier_the_offline_choice_is_loud(tmp_path: Path):
    r = run(str(DEBATE), "--out", str(tmp_path / "q.json"), "-q")
    assert "OFFLINE" in r.stderr and "ANTHROPIC_API_KEY" in r.stderr
    assert r.returncode == 0, r.stderr
    q = json.loads((tmp_path / "q.json").read_text())
    assert q["metadata"]["classifier_spec"] == "offline" and q["metadata"]["classifier"] == "offline"


def test_cascade_dry_run_uses_the_offline_model(tmp_path: Path):
    r = run(str(DEBATE), "--dry-run", "--format", "json", "--candidates", "cascade:0.5")
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert info["candidates"] == "cascade:0.5"
    assert info["n_candidates"] <= info["n_candidates_all"] == 33
    assert info["estimates"] and info["estimates"][0]["pairs"] == info["n_candidates"]


def test_cli_runner_transcript_and_sentences(tmp_path: Path, labels: Path):
    from typer.testing import CliRunner

    from argfaith.cli import app

    t = tmp_path / "t.txt"
    t.write_text(
        "# title: Uniforms (debate)\n[PAR-1] Provision: 1. Requires uniforms;\n"
        "[1] Alice: Uniforms reduce bullying. They save time.\n[2] Bob: I disagree. They cost money.\n",
        encoding="utf-8",
    )
    rec = tmp_path / "r.jsonl"
    rec.write_text(json.dumps({"source": "I disagree.", "target": "Uniforms reduce bullying.", "label": "attack"}) + "\n", encoding="utf-8")
    out = tmp_path / "u.json"
    res = CliRunner().invoke(app, ["mine", str(t), "--classifier", f"recorded:{rec}?unknown=no-relation", "--out", str(out), "--unit-filter", "none"])
    assert res.exit_code == 0, res.output
    q = json.loads(out.read_text(encoding="utf-8"))
    assert q["attacks"] == [["t-2-1", "t-1-1"]]
    assert q["metadata"]["unit_policy"]["min_words"] == 0


def _big_debate(path: Path, n_speeches: int = 25, per_speech: int = 8) -> Path:
    """A self-written debate large enough (200 sentences, ~21k pairs) to interrupt mid-run."""
    import random

    rng = random.Random(7)
    topics = ["school meals", "fishing quotas", "rail freight", "energy prices", "farm subsidies", "data privacy"]
    verbs = ["will improve", "cannot fix", "threatens", "supports", "undermines", "requires"]
    objs = ["local jobs", "public budgets", "small firms", "consumer safety", "the single market", "rural areas"]
    speeches = []
    for i in range(n_speeches):
        sents = [f"{rng.choice(topics).capitalize()} {rng.choice(verbs)} {rng.choice(objs)} in region {rng.randint(1, 99)}." for _ in range(per_speech)]
        speeches.append({"id": f"1-{i:03d}", "speaker": f"Member {i}", "text": " ".join(sents)})
    data = {"id": "big", "title": "A long debate (debate)", "provisions": [f"{k}. Calls for action on {t};" for k, t in enumerate(topics, 1)], "interventions": speeches}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.slow
def test_ctrl_c_then_rerun_resumes(tmp_path: Path):
    import signal
    import time

    debate = _big_debate(tmp_path / "big.json")
    out = tmp_path / "q.json"
    ckpt = tmp_path / "q.pairs.jsonl"
    cmd = [sys.executable, "-m", "argfaith", "mine", str(debate), "--classifier", "features", "--out", str(out), "--chunk-size", "300", "-q"]
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        if ckpt.exists() and len(ckpt.read_bytes().splitlines()) > 301:  # header + at least one chunk
            p.send_signal(signal.SIGINT)
            break
        time.sleep(0.05)
    _, err = p.communicate(timeout=120)
    if p.returncode == 0:
        pytest.skip("the run finished before it could be interrupted (machine too fast for this size)")
    assert p.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert not out.exists()
    saved = len(ckpt.read_text(encoding="utf-8").splitlines()) - 1
    assert saved >= 300
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"({saved:,} resumed" in r.stderr
    q = json.loads(out.read_text(encoding="utf-8"))
    assert q["metadata"]["counts"]["candidate_pairs_classified"] == 200 * 199 // 2 + 200 * 6


def test_mine_reports_density_against_labelled_data(tmp_path: Path) -> None:
    from argfaith.cli.mine import density_line
    from argfaith.metrics.degeneracy import REFERENCE_DENSITY

    debate = Path(__file__).resolve().parents[1] / "fixtures" / "study" / "ep_debates" / "debates" / "CRE-20990201-ITEM-001"
    r = run(str(debate), "--classifier", "features", "--out", str(tmp_path / "q.json"))
    assert r.returncode == 0, r.stderr
    assert "relation density:" in r.stderr and "exhaustively labelled EP debate pairs" in r.stderr
    ref = REFERENCE_DENSITY["debate"]["related"]
    assert "within" in density_line("debate", 0, int(round(ref * 1000)), 1000)
    assert "OUTSIDE" in density_line("debate", 300, 300, 1000)
    assert "summary pairs" in density_line("summary", 1, 1, 10)


def test_without_key_claude_names_what_the_whole_run_needs(tmp_path: Path):
    """The error counts every request of the run (here: more than one chunk of --chunk-size 5),
    not only the first chunk's, and matches the dry run's single-pair plan."""
    dry = run(str(DEBATE), "--classifier", "claude", "--dry-run", "--format", "json", env={"ARGFAITH_CACHE": str(tmp_path / "c")})
    plan = json.loads(dry.stdout)
    n = plan["n_candidates"]
    single = next(e for e in plan["estimates"] if e["strategy"] == "single")
    assert single["requests"] == n > 5
    r = run(str(DEBATE), "--classifier", "claude?mode=single", "--chunk-size", "5", "--out", str(tmp_path / "q.json"), "-q",
            env={"ARGFAITH_CACHE": str(tmp_path / "c")})
    assert r.returncode == 2
    assert r.stderr.strip() == (
        f"error: ANTHROPIC_API_KEY is not set: this run needs {n:,} request(s) to Claude for {n:,} pair(s), {n:,} of them "
        "not in the request cache (plus single-pair re-asks of any garbled multi-target answer); export the key, or price "
        "the run with --dry-run, or use an offline classifier"
    )
    assert not (tmp_path / "q.json").exists()
