"""Corpus discovery: variants described from the files, nothing skipped silently, and every
summary file of the shared data handled (markdown, quotes, citations, org variants, nulls)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from argfaith.errors import ConfigurationError, DataFormatError
from argfaith.study.corpus import debate_digest, describe_summary, discover_study

from .conftest import DEBATE_A, DEBATE_B


def test_discover_fixture(corpus: Path) -> None:
    c = discover_study(corpus / "ep_debates", corpus / "ep_summaries")
    assert [d.debate_id for d in c.debates] == [DEBATE_A, DEBATE_B]
    assert c.n_files == 6 and not c.orphans and not c.unreadable
    by = {s.item_id: s for s in c.summaries}
    s = by[f"{DEBATE_B}/gpt_structured_en"]
    assert (s.family, s.model, s.style, s.lang, s.missing_text) == ("gpt", "gpt-4o-2024-08-06", "structured", "en", False)
    s = by[f"{DEBATE_A}/claude_structured_org"]
    assert (s.family, s.style, s.lang) == ("claude", "structured", "org")
    s = by[f"{DEBATE_A}/claude_org_zero_shot"]
    assert (s.style, s.lang, s.missing_text, s.n_chars) == ("zero_shot", "org", True, 0)


def test_data_directory_layouts(corpus: Path) -> None:
    # the data folder itself, or the ep_debates/debates level, are accepted too
    a = discover_study(corpus, corpus)
    b = discover_study(corpus / "ep_debates" / "debates", corpus / "ep_summaries")
    assert [d.debate_id for d in a.debates] == [d.debate_id for d in b.debates]


def test_only_and_missing_ids(corpus: Path) -> None:
    c = discover_study(corpus / "ep_debates", corpus / "ep_summaries", only=[DEBATE_B])
    assert [d.debate_id for d in c.debates] == [DEBATE_B]
    # An id with no summary file is an error naming it (not an empty run that exits 0).
    with pytest.raises(ConfigurationError, match=r"--only: no summary file of debate\(s\) CRE-20000101-ITEM-001 .*" + DEBATE_A):
        discover_study(corpus / "ep_debates", corpus / "ep_summaries", only=[DEBATE_B, "CRE-20000101-ITEM-001"])


def test_orphans_and_unreadable_are_kept(corpus: Path) -> None:
    d = corpus / "ep_summaries" / "CRE-20990909-ITEM-009"
    d.mkdir()
    (d / "CRE-20990909-ITEM-009_claude_en_zero_shot.json").write_text(json.dumps({"summary": "x"}))
    (corpus / "ep_summaries" / DEBATE_A / f"{DEBATE_A}_claude_en_zero_shot.json").write_text('{"summary": 3}')
    c = discover_study(corpus / "ep_debates", corpus / "ep_summaries")
    assert [s.item_id for s in c.orphans] == ["CRE-20990909-ITEM-009/claude_en_zero_shot"]
    assert len(c.unreadable) == 1 and "'summary' must be str" in (c.unreadable[0].error or "")
    assert str(c.unreadable[0].path) in (c.unreadable[0].error or "")


def test_empty_or_wrong_folders(tmp_path: Path, corpus: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataFormatError, match="no summary files"):
        discover_study(corpus / "ep_debates", tmp_path / "empty")
    with pytest.raises(DataFormatError, match="no EP debate folders"):
        discover_study(tmp_path / "empty", corpus / "ep_summaries")


def test_debate_digest_follows_content(corpus: Path) -> None:
    folder = corpus / "ep_debates" / "debates" / DEBATE_B
    a = debate_digest(folder)
    assert debate_digest(folder) == a
    f = folder / "interventions" / "2-011.json"
    d = json.loads(f.read_text())
    d["english"] += " Indeed."
    f.write_text(json.dumps(d))
    assert debate_digest(folder) != a


def test_describe_never_raises(tmp_path: Path) -> None:
    p = tmp_path / "CRE-20990101-ITEM-001_claude_en_zero_shot.json"
    p.write_bytes(b"\xff\xfe not utf-8")
    s = describe_summary(p)
    assert s.error and "UTF-8" in s.error and s.debate_id == "CRE-20990101-ITEM-001"


_DATA = os.environ.get("ARGFAITH_DATA")


@pytest.mark.skipif(not _DATA or not (Path(_DATA) / "ep_summaries").is_dir(), reason="needs ARGFAITH_DATA with ep_summaries/")
def test_every_shared_summary_file_is_handled() -> None:
    """Issue 5: every summary file of the shared data is read and segmented (markdown headings,
    quotes, citations, non-English org variants) or reported as text-less — no crash."""
    from argfaith.datasets.documents import load_debate, load_summary
    from argfaith.mining.pipeline import plan_summary

    root = Path(_DATA)  # type: ignore[arg-type]
    c = discover_study(root, root)
    assert not c.orphans and not c.unreadable
    assert len(c.summaries) == 56 and len(c.debates) == 12
    nulls = sorted(s.item_id for s in c.summaries if s.missing_text)
    assert nulls == ["CRE-20060322-ITEM-016/claude_en_zero_shot", "CRE-20060322-ITEM-016/claude_org_zero_shot"]
    assert {s.lang for s in c.summaries} == {"en", "org"}
    for d in c.debates:
        deb = load_debate(d.path)
        for s in d.summaries:
            if s.missing_text:
                continue
            plan = plan_summary(load_summary(s.path), deb)
            assert plan.speech, s.item_id
            # no markdown heading or citation-only fragment survives as an argument
            assert not any(u.text.lstrip().startswith("#") for u in plan.speech), s.item_id
            assert not any(u.text.strip().startswith("[") and u.text.strip().endswith("]") for u in plan.speech), s.item_id
