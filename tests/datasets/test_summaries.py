"""EP summary reader: fixture files, the null-summary policy, malformed input, the real corpus."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from argfaith.datasets.documents import load_summary
from argfaith.datasets.summaries import iter_summaries, list_summary_files, read_summary, summary_variant
from argfaith.errors import ConfigurationError, DataFormatError

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "mining"
SDIR = FIX / "ep_summaries" / "CRE-20990101-ITEM-001"
STRUCT = SDIR / "CRE-20990101-ITEM-001_claude_structured_en.json"
NULL = SDIR / "CRE-20990101-ITEM-001_claude_org_zero_shot.json"


def test_read_structured_summary():
    s = read_summary(STRUCT)
    assert s.debate_id == "CRE-20990101-ITEM-001"
    assert s.variant == "claude_structured_en"
    assert s.model == "claude-sonnet-4-20250514"
    assert s.structured is True and s.lang == "en"
    assert s.metadata["prompt_style"] == "structured"
    assert s.metadata["src_model"] == "claude"
    # Verbatim text: markdown and citations are kept (segmentation handles them).
    assert s.text.startswith("# Executive Summary") and "[Example, 2099-01-01]" in s.text


def test_null_summary_policy():
    with pytest.raises(DataFormatError, match=r"zero_shot\.json: key 'summary' is null"):
        read_summary(NULL)
    s = read_summary(NULL, missing_text="empty")
    assert s.text == "" and s.metadata["missing_text"] is True and s.lang == "org"
    with pytest.raises(ConfigurationError):
        read_summary(NULL, missing_text="skip")  # type: ignore[arg-type]


def test_iteration_and_listing():
    files = list_summary_files(FIX)  # a data dir holding ep_summaries/
    assert [f.name for f in files] == [NULL.name, STRUCT.name]
    assert list_summary_files(SDIR) == files
    assert list_summary_files(FIX, "CRE-nope") == []
    got = list(iter_summaries(FIX))
    assert [s.metadata.get("missing_text", False) for s in got] == [True, False]


def test_variant_from_name():
    assert summary_variant("x/CRE-20060213-ITEM-013_gpt_structured_org.json") == ("CRE-20060213-ITEM-013", "gpt_structured_org")
    assert summary_variant("my_summary.json") == (None, "my_summary")


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"summary": 5}', "key 'summary' must be str"),
        ('[1, 2]', "expected a JSON object"),
        ('{"summary": "x", "lang": "klingon"}', "key 'lang' must be 'english' or 'original'"),
        ('{"summary": "x", "contributions": 3}', "key 'contributions' must be a list"),
        ('{"summary": "x",\n\n "lang": }', r":3:\d+: invalid JSON"),
    ],
)
def test_malformed(tmp_path: Path, content: str, message: str):
    f = tmp_path / "CRE-20990101-ITEM-001_claude_en_zero_shot.json"
    f.write_text(content, encoding="utf-8")
    with pytest.raises(DataFormatError, match=message):
        read_summary(f)


def test_not_utf8(tmp_path: Path):
    f = tmp_path / "s.json"
    f.write_bytes(b'{"summary": "caf\xe9"}')
    with pytest.raises(DataFormatError, match="not UTF-8"):
        read_summary(f)


def test_load_summary_dispatch(tmp_path: Path):
    assert load_summary(STRUCT).variant == "claude_structured_en"
    t = tmp_path / "mine.md"
    t.write_text("The report was broadly welcomed.\n", encoding="utf-8")
    assert load_summary(t).text.startswith("The report")
    j = tmp_path / "mine.json"
    j.write_text(json.dumps({"text": "Short.", "model": "me"}), encoding="utf-8")
    assert load_summary(j).model == "me"
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    with pytest.raises(DataFormatError, match="needs a 'summary'"):
        load_summary(bad)
    with pytest.raises(DataFormatError, match="no such file"):
        load_summary(tmp_path / "absent.txt")


def test_every_real_summary_file_reads():
    raw = os.environ.get("ARGFAITH_DATA")
    if not raw or not (Path(raw) / "ep_summaries").is_dir():
        pytest.skip("set ARGFAITH_DATA to the shared data folder to run the corpus test")
    got = list(iter_summaries(raw))
    assert len(got) == 56
    assert len({s.debate_id for s in got}) == 12
    missing = [s for s in got if s.metadata.get("missing_text")]
    assert len(missing) == 2  # two files of the public data have "summary": null
    assert {s.lang for s in got} == {"en", "org"}
