"""Error bars in the renderers (issue 23): reports evaluated with ``draws`` show every metric as
``value [low, high]``, σ whiskers, verdict probabilities and P(better); reports without error bars
render byte for byte as before issue 23 (golden files in ``tests/fixtures/metrics/render``,
rendered by the renderers before error bars existed).

After a deliberate change of the renderers, rewrite the golden files with
``ARGFAITH_UPDATE_GOLDEN=1 python -m pytest tests/metrics/test_render_intervals.py`` and read the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from argfaith.metrics.alignment import FileAligner
from argfaith.metrics.evaluate import evaluate_many
from argfaith.metrics.render import render
from argfaith.qbaf import load_qbaf

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "fixtures" / "metrics" / "render"
PAPER = ROOT / "examples" / "paper"
DEBATE = ROOT / "examples" / "debate"


def _paper_suite():  # type: ignore[no-untyped-def]
    q, qa, qb = (load_qbaf(PAPER / f"{n}.json") for n in ("q", "qa", "qb"))
    return evaluate_many(q, [qa, qb], source_path="q.json", summary_paths=["qa.json", "qb.json"])


def _debate_suite():  # type: ignore[no-untyped-def]
    src = load_qbaf(DEBATE / "source.json")
    variants = ("faithful", "distorted")
    return evaluate_many(
        src, [load_qbaf(DEBATE / f"summary_{v}.json") for v in variants],
        alignments=[FileAligner(DEBATE / f"alignment_{v}.csv") for v in variants], taus=[0.15, 0.2],
        source_path="source.json", summary_paths=[f"summary_{v}.json" for v in variants],
    )


@pytest.mark.parametrize("name, fmt", [
    ("paper_suite.txt", "table"), ("paper_suite.md", "markdown"), ("paper_suite.html", "html"), ("paper_suite.json", "json"),
    ("debate_suite.txt", "table"), ("debate_suite.md", "markdown"), ("debate_suite.html", "html"),
])
def test_reports_without_error_bars_render_as_before(name, fmt):
    suite = _paper_suite() if name.startswith("paper") else _debate_suite()
    got = render(suite, fmt)
    path = GOLDEN / name
    if os.environ.get("ARGFAITH_UPDATE_GOLDEN"):
        path.write_text(got, encoding="utf-8")
    assert got == path.read_text(encoding="utf-8")
