"""Reader for European Parliament debates in the layout of github.com/eoghancunn/ep_argumentation.

One debate is a folder ``<CRE-YYYYMMDD-ITEM-NNN>/`` holding

- ``metadata.json``: ``{"title", "url"}``;
- ``interventions/<session>-<nnn>.json``: one speech each, ``{"speaker", "english", "lang",
  "original", "agenda_item", "debate_id", "intervention_id"}``; the debate order is the order of
  the intervention ids (compared numerically: ``1-99`` before ``1-100``);
- ``report_statements/<A-6-YYYY-NNNN>.json``: ``{"url", "report_id", "paragraphs": [...]}``, the
  numbered paragraphs of the resolution debated — the *proposal arguments* (PAPER.md §1, §7);
- optionally ``annotations/<intervention>_annotations.json``: human argument spans
  ``{"annotations": [{"text", "start", "end", ["type"]}]}`` with offsets into ``english``.

Provision identifiers follow the printed paragraph numbers (:mod:`argfaith.datasets.provision_ids`:
``P23`` is the paragraph printed ``23.``; repeated numbers get ``P4(2)``, unnumbered paragraphs
``U<n>``); the old positional ids of the project's silver relation data (``PAR-<n>``, the n-th
paragraph over the report files in file-name order) are kept as ``Provision.legacy_id`` and the
debate's mapping is registered, so files keyed by them keep loading. A provision's text is the
paragraph stripped of surrounding whitespace. Human spans
are trimmed of surrounding whitespace, so ``span.text == intervention.text[span.start:span.end]``.

Source of the data: EP verbatim reports (CRE) and A6 report texts, © European Union, source:
European Parliament.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from argfaith.datasets._jsonio import read_json, require
from argfaith.datasets.doctypes import ArgumentSpan, Debate, Intervention, Provision
from argfaith.datasets.provision_ids import ProvisionIdMap, provision_ids, register_provision_ids
from argfaith.errors import DataFormatError

__all__ = [
    "read_ep_debate",
    "iter_ep_debates",
    "list_ep_debates",
    "find_ep_debate",
    "is_ep_debate_dir",
    "ep_debates_root",
    "intervention_sort_key",
    "provision_number",
]

_INTERVENTION_RE = re.compile(r"^(\d+)-(\d+)$")
_NUMBER_RE = re.compile(r"^\s*(\d+)\s*\.")


def intervention_sort_key(intervention_id: str) -> tuple[int, int, str]:
    """Debate order of an EP intervention id ``<session>-<nnn>`` (numeric, then textual)."""
    m = _INTERVENTION_RE.match(intervention_id)
    if m:
        return (int(m.group(1)), int(m.group(2)), intervention_id)
    # Unknown shapes sort after the EP ones, in text order, rather than failing.
    return (1 << 30, 1 << 30, intervention_id)


def provision_number(text: str) -> int | None:
    """The printed number of a resolution paragraph (``"12.   Calls on ..."`` → 12), if any."""
    m = _NUMBER_RE.match(text)
    return int(m.group(1)) if m else None


def is_ep_debate_dir(path: str | Path) -> bool:
    """True if ``path`` looks like one EP debate folder (has ``interventions/``)."""
    p = Path(path)
    return p.is_dir() and (p / "interventions").is_dir()


def ep_debates_root(path: str | Path) -> Path:
    """The folder whose sub-folders are debates, given it, its parent ``ep_debates/`` or the data
    directory that contains ``ep_debates/``."""
    p = Path(path)
    for cand in (p, p / "debates", p / "ep_debates" / "debates"):
        if cand.is_dir() and any(is_ep_debate_dir(c) for c in cand.iterdir()):
            return cand
    raise DataFormatError(f"{p}: no EP debate folders found (expected <id>/interventions/*.json below it)")


def list_ep_debates(root: str | Path) -> list[Path]:
    """All debate folders below ``root`` (see :func:`ep_debates_root`), sorted by id."""
    base = ep_debates_root(root)
    return sorted((c for c in base.iterdir() if is_ep_debate_dir(c)), key=lambda c: c.name)


def find_ep_debate(root: str | Path, debate_id: str) -> Path:
    """The folder of debate ``debate_id`` below ``root``; a clear error if it is not there."""
    base = ep_debates_root(root)
    p = base / debate_id
    if not is_ep_debate_dir(p):
        raise DataFormatError(f"{base}: no debate {debate_id!r} (no folder {p.name}/interventions)")
    return p


def iter_ep_debates(root: str | Path, *, annotations: bool = True) -> Iterator[Debate]:
    """Read every debate below ``root`` in id order (lazily, one at a time)."""
    for p in list_ep_debates(root):
        yield read_ep_debate(p, annotations=annotations)


def _read_provisions(folder: Path) -> tuple[tuple[Provision, ...], list[str], list[str]]:
    """Paragraphs in file-name order, with printed-number ids (module docstring)."""
    raw, report_ids, urls = _read_paragraphs(folder)
    ids = provision_ids([t for t, _ in raw])
    provisions = tuple(
        Provision(id=pid, text=t, number=provision_number(t), report_id=rid, legacy_id=f"PAR-{n}")
        for n, (pid, (t, rid)) in enumerate(zip(ids, raw), start=1)
    )
    return provisions, report_ids, urls


def _read_paragraphs(folder: Path) -> tuple[list[tuple[str, str]], list[str], list[str]]:
    rdir = folder / "report_statements"
    files = sorted(rdir.glob("*.json")) if rdir.is_dir() else []
    provisions: list[tuple[str, str]] = []
    report_ids: list[str] = []
    urls: list[str] = []
    for f in files:
        data = read_json(f)
        where = str(f)
        paragraphs = require(data, "paragraphs", list, where)
        report_id = require(data, "report_id", str, where, optional=True) or f.stem
        url = require(data, "url", str, where, optional=True)
        report_ids.append(report_id)
        if url:
            urls.append(url)
        for j, par in enumerate(paragraphs):
            if not isinstance(par, str):
                raise DataFormatError(f"{where}: paragraphs[{j}] must be a string, got {type(par).__name__}")
            text = par.strip()
            if not text:
                raise DataFormatError(f"{where}: paragraphs[{j}] is empty")
            provisions.append((text, report_id))
    return provisions, report_ids, urls


def _read_interventions(folder: Path, debate_id: str) -> tuple[Intervention, ...]:
    idir = folder / "interventions"
    files = sorted(idir.glob("*.json"), key=lambda f: intervention_sort_key(f.stem))
    if not files:
        raise DataFormatError(f"{idir}: no intervention files (*.json)")
    out: list[Intervention] = []
    for f in files:
        data = read_json(f)
        where = str(f)
        iid = require(data, "intervention_id", str, where, optional=True) or f.stem
        if iid != f.stem:
            raise DataFormatError(f"{where}: intervention_id {iid!r} does not match the file name {f.name!r}")
        did = require(data, "debate_id", str, where, optional=True)
        if did is not None and did != debate_id:
            raise DataFormatError(f"{where}: debate_id {did!r} does not match the debate folder {debate_id!r}")
        text = require(data, "english", str, where)
        speaker = require(data, "speaker", str, where, optional=True) or ""
        out.append(
            Intervention(
                id=iid,
                speaker=speaker.strip(),
                text=text,
                position=len(out),
                lang=require(data, "lang", str, where, optional=True),
                original=require(data, "original", str, where, optional=True),
            )
        )
    return tuple(out)


def _read_annotations(folder: Path, interventions: tuple[Intervention, ...]) -> tuple[ArgumentSpan, ...] | None:
    adir = folder / "annotations"
    if not adir.is_dir():
        return None
    by_id = {iv.id: iv for iv in interventions}
    spans: list[tuple[int, ArgumentSpan]] = []
    for f in sorted(adir.glob("*_annotations.json")):
        data = read_json(f)
        where = str(f)
        iid = require(data, "intervention_id", str, where, optional=True) or f.name[: -len("_annotations.json")]
        iv = by_id.get(iid)
        if iv is None:
            raise DataFormatError(f"{where}: intervention {iid!r} is not in {folder / 'interventions'}")
        items = require(data, "annotations", list, where)
        for j, a in enumerate(items):
            loc = f"{where}: annotations[{j}]"
            start = require(a, "start", int, loc)
            end = require(a, "end", int, loc)
            text = require(a, "text", str, loc)
            if not 0 <= start < end <= len(iv.text):
                raise DataFormatError(f"{loc}: offsets [{start}, {end}) outside the speech text (length {len(iv.text)})")
            raw = iv.text[start:end]
            if raw.strip() != text.strip():
                raise DataFormatError(
                    f"{loc}: text does not match the speech at [{start}, {end}): "
                    f"annotation {text[:40]!r}... vs speech {raw[:40]!r}..."
                )
            # Trim to the stripped text so text == intervention.text[start:end] holds exactly.
            lead = len(raw) - len(raw.lstrip())
            s, e = start + lead, start + lead + len(raw.strip())
            kind = require(a, "type", str, loc, optional=True)
            spans.append((iv.position, ArgumentSpan(iid, s, e, iv.text[s:e], kind)))
    spans.sort(key=lambda t: (t[0], t[1].start, t[1].end))
    return tuple(sp for _, sp in spans)


def read_ep_debate(path: str | Path, *, annotations: bool = True) -> Debate:
    """Read one EP debate folder.

    Parameters
    ----------
    path
        The debate folder (``.../debates/CRE-20060213-ITEM-013``).
    annotations
        Read the human argument spans when the folder has ``annotations/`` (else ``spans`` is
        ``None``).

    Returns
    -------
    Debate
        Provisions with printed-number ids (``P1``, ``P2``, ``P4`` …), interventions in debate order, human spans (or ``None``);
        ``metadata`` holds ``report_ids`` and ``report_urls``.

    Raises
    ------
    DataFormatError
        Missing folder/file, invalid JSON (file:line:col), missing or mistyped key, annotation
        offsets that do not match the speech text — always naming the file and item.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise DataFormatError(f"{folder}: not a directory (expected an EP debate folder)")
    if not (folder / "interventions").is_dir():
        raise DataFormatError(f"{folder}: no interventions/ folder; not an EP debate folder")
    debate_id = folder.name
    meta_path = folder / "metadata.json"
    title, url = debate_id, None
    if meta_path.exists():
        meta = read_json(meta_path)
        title = require(meta, "title", str, str(meta_path), optional=True) or debate_id
        url = require(meta, "url", str, str(meta_path), optional=True)
    provisions, report_ids, report_urls = _read_provisions(folder)
    register_provision_ids(ProvisionIdMap(debate_id, tuple(f"{debate_id}-{p.id}" for p in provisions)))
    interventions = _read_interventions(folder, debate_id)
    spans = _read_annotations(folder, interventions) if annotations else None
    return Debate(
        id=debate_id,
        title=title,
        provisions=provisions,
        interventions=interventions,
        spans=spans,
        url=url,
        source_path=str(folder),
        metadata={"format": "ep", "report_ids": report_ids, "report_urls": report_urls},
    )
