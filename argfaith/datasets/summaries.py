"""Reader for LLM debate summaries in the layout of github.com/parliview/debate-summ-cross-lingual.

Layout: ``<debate id>/<debate id>_<src model>_<variant>.json`` with keys ``summary`` (markdown
text), ``src_model``, ``model_name`` (e.g. ``claude-sonnet-4-20250514``), ``structured``,
``lang`` (``english`` = summarised from the English translation, ``original`` = from the original
languages), ``prompt`` and ``contributions`` (per-speech material of the structured variant).

The summary text is kept verbatim (markdown headings, bold, lists, quotes and citations such as
``[Herczog, 2006-02-13]`` included): segmentation handles the markup and keeps offsets into this
text. ``lang`` is normalised to ``"en"`` / ``"org"`` as in the file names.

Missing text: two files of the public data have ``"summary": null`` (the producing run left no
summary). :func:`read_summary` raises :class:`DataFormatError` for them by default
(``missing_text="error"``); with ``missing_text="empty"`` it returns a :class:`Summary` with
``text == ""`` and ``metadata["missing_text"] = True`` so a corpus run can record and skip it
explicitly rather than crash or evaluate garbage.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from argfaith.datasets._jsonio import read_json, require
from argfaith.datasets.doctypes import Summary
from argfaith.errors import ConfigurationError, DataFormatError

__all__ = ["read_summary", "iter_summaries", "list_summary_files", "summary_variant", "MissingText"]

MissingText = Literal["error", "empty"]

_LANGS = {"english": "en", "en": "en", "original": "org", "org": "org"}
_DEBATE_ID_RE = re.compile(r"^(CRE-\d{8}-ITEM-\d+)_(.+)$")


def summary_variant(path: str | Path) -> tuple[str | None, str]:
    """``(debate id, variant)`` from a summary file name: ``CRE-…-ITEM-013_claude_en_zero_shot.json``
    → ``("CRE-…-ITEM-013", "claude_en_zero_shot")``; without an EP id the debate id is ``None``
    and the variant is the file stem."""
    stem = Path(path).stem
    m = _DEBATE_ID_RE.match(stem)
    if m:
        return m.group(1), m.group(2)
    return None, stem


def read_summary(path: str | Path, *, missing_text: MissingText = "error") -> Summary:
    """Read one summary JSON file.

    Parameters
    ----------
    path
        ``<debate id>_<model>_<variant>.json``.
    missing_text
        ``"error"`` (default): a null/absent ``summary`` raises :class:`DataFormatError`.
        ``"empty"``: return ``text=""`` with ``metadata["missing_text"] = True``.

    Returns
    -------
    Summary
        ``debate_id`` and ``variant`` from the file name, ``model`` = ``model_name``,
        ``structured``, ``lang`` in {"en", "org"}; other flags in ``metadata``.
    """
    if missing_text not in ("error", "empty"):
        raise ConfigurationError(f"missing_text must be 'error' or 'empty', got {missing_text!r}")
    p = Path(path)
    data = read_json(p)
    where = str(p)
    if not isinstance(data, dict):
        raise DataFormatError(f"{where}: expected a JSON object, got {type(data).__name__}")
    text = require(data, "summary", str, where, optional=True)
    meta: dict[str, object] = {"format": "ep_summary"}
    if text is None:
        if missing_text == "error":
            what = "is null" if "summary" in data else "is missing"
            raise DataFormatError(f"{where}: key 'summary' {what} (no summary text in this file)")
        text = ""
        meta["missing_text"] = True
    debate_id, variant = summary_variant(p)
    raw_lang = require(data, "lang", str, where, optional=True)
    lang = None
    if raw_lang is not None:
        lang = _LANGS.get(raw_lang.strip().lower())
        if lang is None:
            raise DataFormatError(f"{where}: key 'lang' must be 'english' or 'original', got {raw_lang!r}")
    structured = require(data, "structured", bool, where, optional=True)
    for k in ("src_model", "model_type"):
        v = require(data, k, str, where, optional=True)
        if v is not None:
            meta[k] = v
    for k in ("incremental", "hierarchical", "grouped", "shuffle", "prompt"):
        v = data.get(k)
        if isinstance(v, (bool, str)):
            meta[k] = v
    contributions = data.get("contributions")
    if contributions is not None and not isinstance(contributions, list):
        raise DataFormatError(f"{where}: key 'contributions' must be a list, got {type(contributions).__name__}")
    meta["n_contributions"] = len(contributions or [])
    if structured is not None:
        meta["prompt_style"] = "structured" if structured else "zero_shot"
    return Summary(
        debate_id=debate_id,
        text=text,
        model=require(data, "model_name", str, where, optional=True),
        variant=variant,
        structured=structured,
        lang=lang,
        source_path=where,
        metadata=meta,
    )


def list_summary_files(root: str | Path, debate_id: str | None = None) -> list[Path]:
    """Summary files below ``root`` (the ``ep_summaries`` folder, a data directory containing it,
    or one debate's folder), sorted; only debate ``debate_id`` if given."""
    p = Path(root)
    if (p / "ep_summaries").is_dir():
        p = p / "ep_summaries"
    if not p.is_dir():
        raise DataFormatError(f"{p}: not a directory (expected the ep_summaries folder)")
    files = sorted(f for f in p.rglob("*.json") if f.is_file())
    if debate_id is not None:
        files = [f for f in files if summary_variant(f)[0] == debate_id]
    return files


def iter_summaries(
    root: str | Path, debate_id: str | None = None, *, missing_text: MissingText = "empty"
) -> Iterator[Summary]:
    """Read every summary below ``root`` (see :func:`list_summary_files`).

    Corpus iteration defaults to ``missing_text="empty"`` so one text-less file does not stop a
    whole run; such summaries carry ``metadata["missing_text"] = True``.
    """
    for f in list_summary_files(root, debate_id):
        yield read_summary(f, missing_text=missing_text)
