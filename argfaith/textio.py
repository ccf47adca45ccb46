"""Reading user files with errors that name the file (and line): one implementation for every
loader outside :mod:`argfaith.qbaf` (which stays self-contained).

A missing file, a directory, text that is not in the expected encoding and JSON syntax errors all
become :class:`~argfaith.errors.DataFormatError` — never a bare ``FileNotFoundError`` /
``UnicodeDecodeError`` / ``JSONDecodeError`` traceback.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from argfaith.errors import ConfigurationError, DataFormatError

__all__ = ["read_text", "read_json"]


def _article(what: str) -> str:
    return "an" if what[:1].lower() in "aeiou" else "a"


def read_text(path: str | os.PathLike[str], *, what: str = "file", encoding: str = "utf-8") -> str:
    """The text of ``path`` decoded with ``encoding`` (a UTF-8 byte-order mark is dropped).

    ``what`` names the kind of file in messages ("alignment file", "pair file", ...). Errors:
    ``<path>: no such <what> (file not found)``, ``<path>: is a directory, expected a <what>``,
    ``<path>, line <n>: not UTF-8 text (...)`` naming the line of the first undecodable byte.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise DataFormatError(f"{p}: no such {what} (file not found)") from None
    except IsADirectoryError:
        raise DataFormatError(f"{p}: is a directory, expected {_article(what)} {what}") from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        utf8 = encoding.lower().replace("_", "-") in ("utf-8", "utf8")
        kind = "not UTF-8 text" if utf8 else f"not valid {encoding} text"
        raise DataFormatError(
            f"{p}, line {line}: {kind} (byte 0x{data[e.start]:02x} at offset {e.start} is not valid {encoding}); "
            "re-save the file as UTF-8 or pass the right encoding"
        ) from None
    except LookupError:
        raise ConfigurationError(f"unknown text encoding {encoding!r}") from None
    return text.removeprefix("\ufeff")


def read_json(path: str | os.PathLike[str], *, what: str = "file") -> Any:
    """Parse a JSON file; syntax errors name ``<path>:<line>:<column>``."""
    text = read_text(path, what=what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise DataFormatError(f"{Path(path)}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
