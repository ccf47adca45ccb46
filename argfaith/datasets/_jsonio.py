"""Small helpers shared by the document readers: read JSON and fetch typed keys with errors that
name the file and the key (never a bare ``KeyError`` / ``JSONDecodeError`` traceback)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from argfaith.errors import DataFormatError

__all__ = ["read_json", "require", "read_text"]


def read_text(path: Path) -> str:
    """Read a UTF-8 text file; errors name the file."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataFormatError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise DataFormatError(f"{path}: is a directory, expected a file") from None
    except UnicodeDecodeError as e:
        raise DataFormatError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None


def read_json(path: Path) -> Any:
    """Parse a JSON file; syntax errors name ``file:line:column``."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise DataFormatError(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None


def require(obj: Any, key: str, kind: type | tuple[type, ...], where: str, *, optional: bool = False) -> Any:
    """``obj[key]`` checked to be of type ``kind``; ``where`` names the file (and item) in errors.

    With ``optional=True`` a missing key or a JSON ``null`` gives ``None``.
    """
    if not isinstance(obj, dict):
        raise DataFormatError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    if key not in obj or obj[key] is None:
        if optional:
            return None
        what = "is null" if key in obj else "is missing"
        raise DataFormatError(f"{where}: key {key!r} {what}")
    v = obj[key]
    # bool is an int subclass: never accept true/false where a number is expected.
    if not isinstance(v, kind) or (isinstance(v, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,))):
        names = "/".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise DataFormatError(f"{where}: key {key!r} must be {names}, got {type(v).__name__}")
    return v
