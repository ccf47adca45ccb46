"""Renderers: terminal table, Markdown, HTML (escaping, self-containment, headless Chromium)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from argfaith.metrics.alignment import IdAligner
from argfaith.metrics.evaluate import evaluate, evaluate_many
from argfaith.metrics.render import render
from argfaith.metrics.render.layout import layout_qbaf_dict
from argfaith.metrics.render.markdown import md_escape
from argfaith.qbaf import QBAF, Argument, load_qbaf, qbaf_to_dict

EVIL = "<script>document.title='pwned'</script> [bold red]rich[/bold red] | [x](http://evil.example) *em* `code` & more"
TITLE = "argfaith evaluation report"


@pytest.fixture(scope="module")
def paper(paper_dir):
    return {n: load_qbaf(paper_dir / f"{n}.json") for n in ("q", "qa", "qb")}


@pytest.fixture(scope="module")
def evil_pair():
    """Source and summary whose texts, speakers and names carry markup of every kind."""
    src_args = [
        Argument("p1", "proposal", 0.5, text="Provision " + EVIL),
        Argument("p2", "proposal", 0.5, text="Second provision"),
        Argument("s1", text="Attack " + EVIL, speaker="<img src=x onerror=\"document.title='pwned'\">"),
        Argument("s2", text="Support text"),
        Argument("s3", text="Unrelated"),
    ]
    src = QBAF.from_arguments(src_args, attacks=[("s1", "p1")], supports=[("s2", "p1")], debate=True, name="<script>document.title='pwned'</script>")
    sum_args = [Argument("p1", "proposal", 0.5), Argument("p2", "proposal", 0.5), Argument("s1", text="Summary " + EVIL), Argument("t9", text="new")]
    summ = QBAF.from_arguments(sum_args, supports=[("s1", "p1"), ("t9", "s1")], attacks=[("t9", "p2")], debate=True, name="summary <b>bold</b>")
    return src, summ


def test_table_values_and_literal_markup(paper, evil_pair):
    out = render(evaluate(paper["q"], paper["qa"]), "table")
    for s in ("π_ar", "0.83", "0.75", "π_dpc", "0.50", "Proposal strengths", "p1", "0.32", "0.60", "Explanations"):
        assert s in out
    out = render(evaluate(*evil_pair), "table", width=200)
    assert "[bold red]rich[/bold red]" in out  # rich markup shown literally, not interpreted


def test_table_sensitivity_layout(paper):
    suite = evaluate_many(paper["q"], [paper["qa"], paper["qb"]], taus=[0.15, 0.2, 0.25], explain=False)
    out = render(suite, "table", width=200)
    assert "Sensitivity" in out and "π_bc τ=0.15" in out and "π_εa τ=0.25" in out


def test_markdown_escapes_untrusted_text(evil_pair):
    md = render(evaluate(*evil_pair), "markdown")
    assert "<script>" not in md and "<img" not in md and "<b>" not in md
    assert "&lt;script&gt;" in md
    assert "](http" not in md  # the link is broken by escaping
    # Every table row has as many unescaped pipes as its header.
    lines = md.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("| ") and i + 1 < len(lines) and lines[i + 1].startswith("| ---"):
            n = len(re.findall(r"(?<!\\)\|", line))
            j = i + 2
            while j < len(lines) and lines[j].startswith("| "):
                assert len(re.findall(r"(?<!\\)\|", lines[j])) == n, lines[j]
                j += 1


def test_md_escape():
    assert md_escape("a|b") == "a\\|b"
    assert md_escape("x\ny") == "x y"
    assert md_escape("<i>") == "&lt;i&gt;"
    assert md_escape("[l](u)") == "\\[l\\]\\(u\\)"


def test_html_self_contained_and_escaped(evil_pair):
    html = render(evaluate(*evil_pair, alignment=IdAligner()), "html")
    assert "<script" not in html.lower()
    assert "<img" not in html.lower()
    assert "&lt;script&gt;" in html
    import html as htmllib

    assert 'http-equiv="Content-Security-Policy"' in html and "default-src 'none'" in htmllib.unescape(html)
    # Nothing is fetched: no external URLs other than the SVG namespace, no links/imports.
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", html))
    # the evil link only as escaped text (possibly cut to its first words: "http://ev…")
    assert all(u == "http://www.w3.org/2000/svg" or "http://evil.example".startswith(u.rstrip("…")) or u == "http://evil.example" for u in urls), urls
    assert not re.search(r"<[^>]*\s(src|xlink:href)\s*=", html)  # no attribute that fetches
    assert set(re.findall(r'\shref="([^"]*)"', html)) <= {f"#prop-{i}" for i in (1, 2)}  # in-page links only
    assert "<link" not in html and "@import" not in html and "url(http" not in html
    assert html.count('class="qbaf-graph"') == 2  # the full graphs of Q and Q* (small: included)
    assert html.count('class="card ') == 2  # one card per provision


def test_layout_layers_and_cycles(paper):
    g = layout_qbaf_dict(qbaf_to_dict(paper["q"]))
    ys = {n.id: n.y for n in g.nodes}
    assert ys["p1"] == ys["p2"] < ys["s1"] == ys["s2"] == ys["s5"] < ys["s3"] == ys["s4"] < ys["s6"]
    assert {n.id for n in g.nodes if n.unconnected} == {"s6"}
    assert len(g.edges) == 5 and {e.relation for e in g.edges} == {"attack", "support"}
    # Cyclic framework with a self-loop still lays out.
    q = QBAF.from_arguments([Argument("p1", "proposal", 0.5), Argument("a"), Argument("b")],
                            attacks=[("a", "b"), ("b", "a"), ("a", "p1")], supports=[("b", "b")], debate=True)
    g = layout_qbaf_dict(qbaf_to_dict(q))
    assert len(g.nodes) == 3 and len(g.edges) == 4
    # Wide layers wrap.
    many = QBAF.from_arguments([Argument("p1", "proposal", 0.5)] + [Argument(f"s{i}") for i in range(40)],
                               attacks=[(f"s{i}", "p1") for i in range(40)], debate=True)
    g = layout_qbaf_dict(qbaf_to_dict(many), max_per_row=18)
    assert len({n.y for n in g.nodes}) == 1 + 3


# ---------------------------------------------------------------------------- headless Chromium
def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


@pytest.mark.browser
def test_html_in_headless_chromium(evil_pair, tmp_path):
    exe = _chromium()
    if exe is None:
        if os.environ.get("ARGFAITH_REQUIRE_BROWSER") == "1":
            pytest.fail("headless Chromium is required (ARGFAITH_REQUIRE_BROWSER=1) but was not found")
        pytest.skip("chromium not installed")
    page = tmp_path / "report.html"
    page.write_text(render(evaluate(*evil_pair, alignment=IdAligner()), "html"), encoding="utf-8")
    cmd = [
        exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
        "--dump-dom", page.as_uri(),
    ]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    dom = res.stdout
    assert res.returncode == 0 and "</html>" in dom, res.stderr[-2000:]
    # Both graphs are in the live DOM, with nodes and edges.
    assert re.search(r'<svg[^>]*class="qbaf-graph"[^>]*data-role="source"', dom)
    assert re.search(r'<svg[^>]*class="qbaf-graph"[^>]*data-role="summary"', dom)
    assert len(re.findall(r'class="node proposal[ "]', dom)) >= 4 and 'class="edge attack' in dom and 'class="edge support' in dom
    # The injected scripts did not run: the title is unchanged and no script element exists.
    # (the title names the debate, whose name here is the escaped script text itself)
    assert f"<title>{TITLE}: &lt;script&gt;document.title='pwned'&lt;/script&gt;</title>" in dom
    assert "<title>pwned</title>" not in dom
    assert "<script" not in dom.lower() and "<img" not in dom.lower()
    assert "&lt;script&gt;document.title='pwned'&lt;/script&gt;" in dom


def test_strengths_table_uses_one_tau_per_column(paper):
    """σ depends on τ: with a τ sweep the Table-4 view shows the source and the summaries at the
    primary τ (0.2), never a source column computed at another τ than the summary columns."""
    from argfaith.metrics.render.common import strength_rows

    suite = evaluate_many(paper["q"], [paper["qa"]], taus=[0.15, 0.2, 0.25], explain=False)
    labels, rows = strength_rows(list(suite.reports))
    assert labels[0].endswith("τ=0.2") and len(labels) == 2 and labels[1].endswith("τ=0.2")
    row = dict((p, (a, vals)) for p, a, vals in rows)
    assert row["p1"] == ("0.32", ["0.60"])  # PAPER.md §6 values, which hold at τ = 0.2
    suite15 = evaluate_many(paper["q"], [paper["qa"]], taus=[0.15, 0.25], explain=False)
    labels, rows = strength_rows(list(suite15.reports))
    assert labels[0].endswith("τ=0.15") and labels[1].endswith("τ=0.15")
    assert dict((p, a) for p, a, _ in rows)["p1"] == f"{0.5 - 0.5 * (1 - 0.85 ** 2):.2f}"
    md = render(suite, "markdown")
    assert "Settings: τ = 0.15, 0.2, 0.25," in md
    strengths_header = md.split("## Proposal strengths")[1].splitlines()[2]
    assert strengths_header.count("τ=0.2") == 2 and "τ=0.15" not in strengths_header
    assert "Settings: τ = 0.15, 0.2, 0.25," in render(suite, "html")


# ---------------------------------------------------------------------------- names and widths
def _variants(paper, tmp_path):
    """Two summaries whose file names share their first 28+ characters (EP variant names)."""
    from argfaith.qbaf import save_qbaf

    paths = []
    for v in ("claude_structured_en", "claude_structured_org"):
        p = tmp_path / f"CRE-20060213-ITEM-013_{v}.json"
        save_qbaf(paper["qa"], p)
        paths.append(p)
    return paths


def test_summary_names_are_distinct_everywhere(paper, tmp_path):
    from argfaith.metrics.render.common import column_labels, framework_names

    paths = _variants(paper, tmp_path)
    suite = evaluate_many(paper["q"], [load_qbaf(p) for p in paths], summary_paths=[str(p) for p in paths], taus=[0.15, 0.2], explain=False)
    labels = column_labels(list(suite.reports))
    assert labels[1:] == ["Q* claude_structured_en τ=0.15", "Q* claude_structured_en τ=0.2",
                          "Q* claude_structured_org τ=0.15", "Q* claude_structured_org τ=0.2"]
    assert {r.summary for r in suite.sensitivity} == {"claude_structured_en", "claude_structured_org"}  # two Table-6 rows, not one
    assert [lab for lab, _ in framework_names(list(suite.reports))][1:] == ["Q* claude_structured_en", "Q* claude_structured_org"]
    for fmt_ in ("markdown", "html"):
        out = render(suite, fmt_).replace("\\_", "_")  # Markdown escapes underscores
        assert "claude_structured_org" in out and "CRE-20060213-ITEM-013_claud…" not in out


@pytest.mark.parametrize("width", [80, 100, 160])
def test_terminal_headers_never_break_inside_a_name(paper, tmp_path, width):
    paths = _variants(paper, tmp_path)
    suite = evaluate_many(paper["q"], [load_qbaf(p) for p in paths], summary_paths=[str(p) for p in paths], taus=[0.15, 0.2], explain=False)
    out = render(suite, "table", width=width)
    assert max(len(ln) for ln in out.splitlines()) <= width
    header = out.split("Faithfulness metrics")[1].split("┡")[0]  # the metric table's header rows
    if "Q*1" in header:  # compact headers, explained by the key
        assert "Q*1: claude_structured_en — " in out and "Q*2: claude_structured_org — " in out
    else:
        assert "Q* claude_structured_org" in header
    for frag in ("claude_struc\n", "ructured_o", "summa "):
        assert frag not in header


# ---------------------------------------------------------------------------- the HTML views
def test_labels_are_speaker_and_first_words():
    from argfaith.metrics.render.views import argument_label, clean_speaker, short_ids

    assert clean_speaker("Zita Pleštinská (PPE-DE). –") == "Zita Pleštinská (PPE-DE)"
    assert clean_speaker("Edit Herczog (PSE),") == "Edit Herczog (PSE)"
    text = "What should the European Union do to stand up to the competition of the USA and vast, rapidly growing, Asian economies?"
    assert argument_label(text, "Zita Pleštinská (PPE-DE). –", "x") == (
        "Zita Pleštinská (PPE-DE): What should the European Union do to stand up to the competition…"
    )
    assert argument_label(None, None, "1-143-5") == "1-143-5"
    ids = ["CRE-20060213-ITEM-013-1-143-5", "CRE-20060213-ITEM-013-1-144-1"]
    assert short_ids(ids) == {ids[0]: "143-5", ids[1]: "144-1"}
    assert short_ids([*ids, "CRE-20060213-ITEM-013-2-001-1"])[ids[0]] == "1-143-5"
    props = ["CRE-20060213-ITEM-013-PAR-1", "CRE-20060213-ITEM-013-PAR-22"]
    assert short_ids(props, keep_word=True) == {props[0]: "PAR-1", props[1]: "PAR-22"}


def test_cards_pair_aligned_arguments_in_rows(paper):
    """Paper example, Qa* against Q with the id alignment: on p2, s5 supports in both, so the
    debate's s5 and the summary's s5 share a row; the summary's s7 (no partner) gets its own."""
    from argfaith.metrics.render.views import proposal_cards

    r = evaluate(paper["q"], paper["qa"], alignment=IdAligner())
    cards = {c.id: c for c in proposal_cards([r])}
    assert set(cards) == {"p1", "p2"} and cards["p1"].aligned
    pro = dict(cards["p2"].groups)["pro"]
    paired = [row for row in pro if row[0] is not None and row[1] is not None]
    assert [(row[0].id, row[1].id) for row in paired] == [("s5", "s5")]
    assert any(row[0] is None and row[1] is not None and row[1].id == "s7" for row in pro)
    # p1: the debate's attackers s1, s2 lower σ; the summary has only the supporter s4
    con = dict(cards["p1"].groups)["con"]
    assert {row[0].id for row in con if row[0]} == {"s1", "s2", "s3"}
    assert [h.sigma for h in cards["p1"].heads] == [pytest.approx(0.6)] and not cards["p1"].ok


def test_full_graph_is_opt_in_above_the_legible_size(paper):
    from argfaith.metrics.render.views import GRAPH_AUTO_LIMIT

    big = QBAF.from_arguments(
        [Argument("p1", "proposal", 0.5)] + [Argument(f"s{i}", text=f"argument {i}", speaker=f"MEP {i % 7}") for i in range(GRAPH_AUTO_LIMIT + 5)],
        attacks=[(f"s{i}", "p1") for i in range(0, GRAPH_AUTO_LIMIT + 5, 2)],
        supports=[(f"s{i}", f"s{i - 1}") for i in range(1, GRAPH_AUTO_LIMIT + 5, 2)],
        debate=True,
    )
    r = evaluate(big, big, explain=False)
    auto = render(r, "html")
    # No whole drawing; the debate is drawn per provision in its card (one provision here).
    assert auto.count('class="qbaf-graph"') == 1 and '<details class="pgraph">' in auto
    assert "ask for it with --full-graph" in auto and "too dense to read whole" in auto
    forced = render(r, "html", full_graph=True)
    assert forced.count('class="qbaf-graph"') == 2
    assert 'id="g0-p0"' in forced and 'id="g0-s6"' in forced  # proposal and speaker filters
    assert "class=\"node speech pp0" in forced
    assert 'class="qbaf-graph"' not in render(r, "html", full_graph=False)
    assert "(--no-full-graph)" in render(r, "html", full_graph=False)
