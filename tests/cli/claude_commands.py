"""The command lines of the Claude-using commands, shared by ``tests/cli/test_claude_commands.py``
and ``benchmarks/llm_faults.py`` (no pytest here: the benchmark imports it)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "tests" / "fixtures"
DEBATE = FIX / "study" / "ep_debates" / "debates" / "CRE-20990201-ITEM-001"
EXAMPLE = ROOT / "examples" / "debate"


def command(name: str, tmp: Path, *, batch: bool, options: str = "") -> list[str]:
    """The command line of one Claude-using command (batch: through the Message Batches API);
    ``options`` are appended to the Claude classifier spec (e.g. ``"&poll_interval=0.02"``)."""
    clf = "claude?mode=multi" + options + ("&batch=true" if batch else "")
    study_args = ["--debates", str(FIX / "study" / "ep_debates"), "--summaries", str(FIX / "study" / "ep_summaries")]
    return {
        "mine": ["mine", str(DEBATE), "--classifier", clf, "--out", str(tmp / "q.json"), "-q"],
        "summarize": ["summarize", str(DEBATE), "--out", str(tmp / "summary.json")],
        "evaluate": ["evaluate", "--source", str(EXAMPLE / "source.json"), "--summary", str(EXAMPLE / "summary_faithful.json"),
                     "--align", "llm", "--format", "json", "--no-qbafs", *(["--llm-batch"] if batch else [])],
        "kpa": ["kpa", "match", "--data", str(FIX / "kpa"), "--matcher", "claude", "-o", str(tmp / "p.json"), *(["--batch"] if batch else [])],
        "study": ["study", *study_args, "--out", str(tmp / "study"), "--classifier", clf, "--no-plots"],
        "selftest": ["selftest", *study_args, "--out", str(tmp / "selftest"), "--classifier", clf, "--no-controls"],
    }[name]
