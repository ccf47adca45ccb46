"""Which debates and summary files a study covers.

:func:`discover_study` pairs every summary file below the summaries folder (layout of
github.com/parliview/debate-summ-cross-lingual: ``<debate id>/<debate id>_<model>_<variant>.json``)
with its debate folder below the debates folder (layout of github.com/eoghancunn/ep_argumentation).
Nothing is skipped silently: summaries whose debate folder is missing (*orphans*), files that do
not parse (*unreadable*) and summaries without text (``"summary": null``) are all kept, with the
reason, so the study can report them.

A variant name such as ``claude_structured_org`` or ``claude_en_zero_shot`` is described by
:class:`SummaryFile`: model family (``claude`` / ``gpt``), prompt style (``structured`` /
``zero_shot``) and language (``en`` = summarised from the English translation, ``org`` = from
the original languages).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from argfaith.datasets.ep import ep_debates_root, is_ep_debate_dir
from argfaith.datasets.summaries import list_summary_files, read_summary
from argfaith.errors import ArgfaithError, ConfigurationError, DataFormatError

__all__ = ["SummaryFile", "DebateItem", "StudyCorpus", "discover_study", "describe_summary", "file_digest", "debate_digest"]


@dataclass(frozen=True)
class SummaryFile:
    """One summary file of the corpus, described without mining anything.

    Attributes
    ----------
    path : Path
    debate_id : str or None
        From the file name (None when the name has no EP debate id).
    variant : str
        The file name after the debate id, e.g. ``claude_structured_org``.
    family : str or None
        Producing model family (``src_model`` in the file, else the variant's first word).
    model : str or None
        ``model_name`` in the file, e.g. ``claude-sonnet-4-20250514``.
    style : {"structured", "zero_shot"} or None
    lang : {"en", "org"} or None
    missing_text : bool
        The file has ``"summary": null`` (reported and skipped by the study).
    error : str or None
        Why the file could not be read (reported; the study goes on).
    digest : str
        sha256 of the file's bytes (part of the item's resume key).
    n_chars : int
        Length of the summary text.
    """

    path: Path
    debate_id: str | None
    variant: str
    family: str | None = None
    model: str | None = None
    style: str | None = None
    lang: str | None = None
    missing_text: bool = False
    error: str | None = None
    digest: str = ""
    n_chars: int = 0

    @property
    def item_id(self) -> str:
        """``<debate id>/<variant>``: the item's name in the manifest and the tables."""
        return f"{self.debate_id or '?'}/{self.variant}"


@dataclass(frozen=True)
class DebateItem:
    """A debate folder with the summaries to evaluate against it."""

    debate_id: str
    path: Path
    summaries: tuple[SummaryFile, ...]


@dataclass(frozen=True)
class StudyCorpus:
    """Debates with summaries, plus the summary files that cannot be evaluated and why."""

    debates: tuple[DebateItem, ...]
    orphans: tuple[SummaryFile, ...] = ()  # no debate folder for them
    unreadable: tuple[SummaryFile, ...] = ()  # could not be parsed
    debates_root: Path | None = None
    summaries_root: Path | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def summaries(self) -> tuple[SummaryFile, ...]:
        """Every summary file attached to a debate (text-less ones included)."""
        return tuple(s for d in self.debates for s in d.summaries)

    @property
    def n_files(self) -> int:
        return len(self.summaries) + len(self.orphans) + len(self.unreadable)


def file_digest(path: str | Path) -> str:
    """sha256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def debate_digest(folder: str | Path) -> str:
    """sha256 over every file of a debate folder (relative name + bytes), in name order: changes
    whenever a speech, a provision, an annotation or the title changes."""
    root = Path(folder)
    h = hashlib.sha256()
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(f.relative_to(root).as_posix().encode() + b"\x00")
        h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def _style(structured: bool | None, variant: str) -> str | None:
    if structured is not None:
        return "structured" if structured else "zero_shot"
    v = variant.lower()
    if "structured" in v:
        return "structured"
    if "zero_shot" in v or "zero-shot" in v:
        return "zero_shot"
    return None


def _lang(lang: str | None, variant: str) -> str | None:
    if lang is not None:
        return lang
    parts = variant.lower().split("_")
    return "org" if "org" in parts else "en" if "en" in parts else None


def describe_summary(path: str | Path) -> SummaryFile:
    """Read one summary file's metadata (no mining). Never raises for a bad file: the reason is
    in :attr:`SummaryFile.error`."""
    from argfaith.datasets.summaries import summary_variant

    p = Path(path)
    debate_id, variant = summary_variant(p)
    try:
        digest = file_digest(p)
        s = read_summary(p, missing_text="empty")
    except (ArgfaithError, OSError) as e:
        return SummaryFile(p, debate_id, variant, error=str(e), digest="")
    family = s.metadata.get("src_model") or (variant.split("_")[0] if "_" in variant else None)
    return SummaryFile(
        path=p,
        debate_id=debate_id,
        variant=variant,
        family=str(family) if family else None,
        model=s.model,
        style=_style(s.structured, variant),
        lang=_lang(s.lang, variant),
        missing_text=bool(s.metadata.get("missing_text")),
        digest=digest,
        n_chars=len(s.text),
    )


def discover_study(
    debates: str | Path,
    summaries: str | Path,
    *,
    only: Sequence[str] | None = None,
) -> StudyCorpus:
    """Pair the summary files with their debate folders.

    Parameters
    ----------
    debates
        The EP debates folder (``ep_debates``, its ``debates`` sub-folder, or a data directory
        containing ``ep_debates``).
    summaries
        The summaries folder (``ep_summaries`` or a data directory containing it).
    only
        Restrict to these debate ids.

    Raises
    ------
    DataFormatError
        A folder does not exist or holds no debates / no summary files.
    """
    droot = ep_debates_root(debates)
    files = list_summary_files(summaries)
    if not files:
        raise DataFormatError(f"{summaries}: no summary files (*.json) found")
    wanted = set(only) if only else None
    by_debate: dict[str, list[SummaryFile]] = {}
    orphans: list[SummaryFile] = []
    unreadable: list[SummaryFile] = []
    for f in files:
        sf = describe_summary(f)
        if wanted is not None and sf.debate_id not in wanted:
            continue
        if sf.error is not None:
            unreadable.append(sf)
        elif sf.debate_id is None or not is_ep_debate_dir(droot / sf.debate_id):
            orphans.append(sf)
        else:
            by_debate.setdefault(sf.debate_id, []).append(sf)
    items = tuple(
        DebateItem(did, droot / did, tuple(sorted(fs, key=lambda s: s.variant))) for did, fs in sorted(by_debate.items())
    )
    notes: list[str] = []
    if wanted is not None:
        seen = {sf.debate_id for sf in (*orphans, *unreadable)} | set(by_debate)
        missing = sorted(wanted - seen)
        if missing:
            # A mistyped id must not run an empty study that exits 0 with "0 summaries".
            known = sorted({describe_summary(f).debate_id or "" for f in files} - {""})
            hint = ", ".join(known[:6]) + (f" and {len(known) - 6} more" if len(known) > 6 else "")
            raise ConfigurationError(
                f"--only: no summary file of debate(s) {', '.join(missing)} in {summaries} (debates with summaries: {hint})"
            )
    sroot = Path(summaries)
    if (sroot / "ep_summaries").is_dir():
        sroot = sroot / "ep_summaries"
    return StudyCorpus(items, tuple(orphans), tuple(unreadable), droot, sroot, tuple(notes))
