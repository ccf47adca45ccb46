"""On-disk state of a study: atomic writes and the manifest.

Every per-item output (mined QBAF, report JSON/HTML, table row) is written to a temporary file in
the same folder and renamed over the target (``os.replace`` is atomic on POSIX and Windows), so an
interrupted run leaves either the old file or the new one, never half of one. The manifest
(``study.json``) indexes what is finished; it is rewritten atomically after every finished item.
Resuming does not trust the manifest alone: an item is finished when its row file exists *and*
carries the item's current key (see :mod:`argfaith.study.keys`).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from argfaith.errors import DataFormatError

__all__ = ["StudyPaths", "atomic_write_text", "atomic_write_bytes", "atomic_write_json", "read_json_file", "Manifest", "MANIFEST_NAME"]

MANIFEST_NAME = "study.json"


def _default_mode() -> int:
    # mkstemp creates files 0600; outputs get the mode an ordinary open() would give them.
    um = os.umask(0)
    os.umask(um)
    return 0o666 & ~um


_FILE_MODE = _default_mode()


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file in the same folder + rename)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    # A unique temporary name: two processes never share one (mkstemp), so parallel workers are safe.
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _FILE_MODE)
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write UTF-8 ``text`` atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | Path, obj: Any, *, indent: int | None = 1) -> None:
    """Write ``obj`` as UTF-8 JSON atomically."""
    atomic_write_text(path, json.dumps(obj, ensure_ascii=False, indent=indent) + "\n")


def read_json_file(path: str | Path, *, missing_ok: bool = True) -> Any:
    """Parse a JSON file written by this package; ``None`` if it does not exist (``missing_ok``).

    Raises
    ------
    DataFormatError
        The file exists but is not valid JSON (names file, line and column).
    """
    from argfaith.textio import read_json

    p = Path(path)
    if missing_ok and not p.exists():
        return None
    return read_json(p)


class Manifest:
    """The study's index ``OUT/study.json``: configuration, classifier and per-item status.

    Layout::

        {"argfaith_study": 1, "mode": "study", "config": {...}, "classifier": {...},
         "items": {"<debate>/<variant>": {"status": "ok"|"skipped"|"failed", "key", "row", ...}},
         "sources": {"<debate>": {...}}, "runs": [{"started", "finished", "interrupted", ...}]}

    Only the main process writes it (workers return their results), so there is one writer.
    """

    VERSION = 1

    def __init__(self, path: str | Path, data: dict[str, Any] | None = None) -> None:
        self.path = Path(path)
        self.data: dict[str, Any] = data or {"argfaith_study": self.VERSION, "items": {}, "sources": {}, "runs": []}

    @classmethod
    def load(cls, out_dir: str | Path) -> Manifest:
        """The manifest of ``out_dir`` (empty if there is none yet)."""
        path = Path(out_dir) / MANIFEST_NAME
        data = read_json_file(path)
        if data is None:
            return cls(path)
        if not isinstance(data, dict) or "argfaith_study" not in data:
            raise DataFormatError(f"{path}: not an argfaith study manifest (is --out the right folder?)")
        data.setdefault("items", {})
        data.setdefault("sources", {})
        data.setdefault("runs", [])
        return cls(path, data)

    @property
    def items(self) -> dict[str, Any]:
        return self.data["items"]

    @property
    def sources(self) -> dict[str, Any]:
        return self.data["sources"]

    def start_run(self, **info: Any) -> dict[str, Any]:
        run = {"started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **info}
        self.data["runs"].append(run)
        return run

    def save(self) -> None:
        self.data["updated"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        atomic_write_json(self.path, self.data)


@dataclass(frozen=True)
class StudyPaths:
    """Where everything of a study lives below ``out``."""

    out: Path

    def mined(self, tag: str, debate_id: str) -> Path:
        return self.out / "mined" / tag / debate_id

    def source_qbaf(self, tag: str, debate_id: str) -> Path:
        return self.mined(tag, debate_id) / "source.json"

    def source_checkpoint(self, tag: str, debate_id: str) -> Path:
        return self.mined(tag, debate_id) / "source.pairs.jsonl"

    def summary_qbaf(self, tag: str, debate_id: str, variant: str) -> Path:
        return self.mined(tag, debate_id) / f"{variant}.json"

    def summary_checkpoint(self, tag: str, debate_id: str, variant: str) -> Path:
        return self.mined(tag, debate_id) / f"{variant}.pairs.jsonl"

    def report(self, debate_id: str, variant: str, suffix: str = ".json") -> Path:
        return self.out / "reports" / debate_id / f"{variant}{suffix}"

    def source_report(self, debate_id: str) -> Path:
        return self.out / "reports" / debate_id / "source.json"

    def row(self, debate_id: str, variant: str) -> Path:
        return self.out / "rows" / debate_id / f"{variant}.json"
