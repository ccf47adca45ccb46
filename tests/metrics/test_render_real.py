"""The HTML report on a real EP debate (CRE-20060213-ITEM-013, 107 human argument spans, three LLM
summaries), mined with the offline classifier through the real command and opened in headless
Chromium. Needs ARGFAITH_DATA (the shared data) and Chromium."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.metrics.test_render import _chromium

DEBATE_ID = "CRE-20060213-ITEM-013"
DATA = Path(os.environ["ARGFAITH_DATA"]) if os.environ.get("ARGFAITH_DATA") else None
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(DATA is None or not (DATA / "ep_debates" / "debates" / DEBATE_ID).is_dir(), reason="needs ARGFAITH_DATA with ep_debates/"),
]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    assert DATA is not None
    tmp = tmp_path_factory.mktemp("real")
    summ = DATA / "ep_summaries" / DEBATE_ID
    docs = [summ / f"{DEBATE_ID}_{v}.json" for v in ("claude_structured_en", "claude_structured_org", "gpt_structured_en")]
    out = tmp / "report.html"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["ARGFAITH_CACHE"] = str(tmp / "cache")
    cmd = [sys.executable, "-m", "argfaith", "evaluate", "--debate", str(DATA / "ep_debates" / "debates" / DEBATE_ID),
           *[a for d in docs for a in ("--summary-doc", str(d))], "--classifier", "offline", "--mined-dir", str(tmp / "mined"),
           "--out", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    assert r.returncode == 0, r.stderr
    return out, out.read_text(encoding="utf-8")


def test_one_offline_file_with_readable_names(report):
    _, html = report
    assert "<script" not in html.lower() and "<link" not in html
    assert not re.search(r"<[^>]*\s(src|xlink:href)\s*=", html)
    # in-page links only: the provision cards, and the note on error bars (mining defaults to --draws 100)
    assert set(re.findall(r'\shref="([^"]*)"', html)) <= {f"#prop-{i}" for i in range(1, 27)} | {"#error-bars"}
    # the input documents are named, not only the cache paths of the QBAFs mined from them
    assert f"ep_debates/debates/{DEBATE_ID}" in html and f"{DEBATE_ID}_claude_structured_org.json" in html
    header = re.search(r'<table class="metrics">.*?</thead>', html, re.S).group(0)
    for name in ("Q* claude_structured_en", "Q* claude_structured_org", "Q* gpt_structured_en"):
        assert f">{name}<" in header  # three distinct, whole column names
    assert "…" not in header


def test_a_card_per_provision_with_speaker_labels(report):
    _, html = report
    assert html.count('<section class="card ') == 26  # the report's 26 numbered paragraphs
    labels = re.findall(r'<summary><span class="infl[^"]*"[^>]*>[^<]*</span>([^<]*)</summary>', html)
    assert labels and all(not lab.startswith("CRE-") for lab in labels)
    assert sum(1 for lab in labels if re.match(r"[A-ZŠŽ][^:]{2,60}: \S", lab)) > 100  # "Speaker: first words…"
    assert "Charlie McCreevy: " in html


def test_graphs_per_provision_and_readable_node_labels(report):
    _, html = report
    # The debate (133 arguments) is drawn per provision in its card; the three summaries whole.
    assert html.count('<details class="pgraph">') == 26 and "too dense to read whole" in html
    assert len(re.findall(r'<svg class="qbaf-graph" data-role="summary"', html)) == 3
    assert 'id="g0-p25"' in html and 'id="g0-direct"' in html and 'id="g0-att"' in html
    pgraphs = re.findall(r'<details class="pgraph">(.*?)</details>', html, re.S)
    labels = [t for g in pgraphs for t in re.findall(r'<text x="[\d.]+" y="[\d.]+" fill="#(?:000000|ffffff)">([^<]*)</text>', g)]
    assert labels and not any(t.startswith("CRE-") for t in labels) and max(len(t) for t in labels) <= 7
    assert "P23" in labels  # the paragraph printed "23." (positionally the 22nd)
    # Summary sentences are labelled by their first words, not by numbers.
    summ = re.search(r'<svg class="qbaf-graph" data-role="summary".*?</svg>', html, re.S).group(0)
    words = re.findall(r'<text x="[\d.]+" y="[\d.]+" fill="#(?:000000|ffffff)">([^<]*)</text>', summ)
    assert sum(1 for t in words if " " in t) > 5


@pytest.mark.browser
def test_in_headless_chromium(report, tmp_path):
    exe = _chromium()
    if exe is None:
        if os.environ.get("ARGFAITH_REQUIRE_BROWSER") == "1":
            pytest.fail("headless Chromium is required (ARGFAITH_REQUIRE_BROWSER=1) but was not found")
        pytest.skip("chromium not installed")
    page, _ = report
    common = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
              "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}"]
    res = subprocess.run([*common, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=180)
    dom = res.stdout
    assert res.returncode == 0 and "</html>" in dom, res.stderr[-2000:]
    assert dom.count('<section class="card ') == 26 and 'id="pf-worst"' in dom and '<table class="matrix">' in dom
    assert len(re.findall(r'<svg[^>]*class="qbaf-graph"', dom)) == 26 + 3
    shot = tmp_path / "report.png"
    res = subprocess.run([*common, "--hide-scrollbars", f"--screenshot={shot}", "--window-size=1400,2000", page.as_uri()],
                         capture_output=True, text=True, timeout=180)
    assert res.returncode == 0 and shot.stat().st_size > 50_000  # a rendered page, not a blank one
