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


_BINARY = (
    (b"%PDF", "a PDF document", "extract its text first (e.g. pdftotext FILE OUT.txt) and pass the text file"),
    (b"PK\x03\x04", "a ZIP archive (a .docx, .xlsx or .odt document is one)", "save the document as plain text and pass that"),
    (b"\xd0\xcf\x11\xe0", "an old Microsoft Office document", "save it as plain text and pass that"),
    (b"{\\rtf", "an RTF document", "save it as plain text and pass that"),
)


def _binary_kind(data: bytes) -> tuple[str, str] | None:
    """(what the file is, what to do) for a file that is not text at all, else None."""
    for magic, kind, fix in _BINARY:
        if data.startswith(magic):
            return kind, fix
    if b"\x00" in data[:4096] and not data.startswith((b"\xff\xfe", b"\xfe\xff")):  # NUL bytes: binary (UTF-16 aside)
        return "a binary file, not text", "pass a text or JSON file"
    return None


def read_text(
    path: str | os.PathLike[str], *, what: str = "file", encoding: str = "utf-8", encoding_option: str | None = None,
) -> str:
    """The text of ``path`` decoded with ``encoding`` (a UTF-8 byte-order mark is dropped).

    ``what`` names the kind of file in messages ("alignment file", "pair file", ...). Errors:
    ``<path>: no such <what> (file not found)``, ``<path>: is a directory, expected a <what>``,
    ``<path>: is a PDF document, not a <what>; extract its text first …`` (and likewise other
    binary formats), ``<path>, line <n>: not UTF-8 text (...)`` naming the line of the first
    undecodable byte. Only a caller whose command has an option for the encoding names it
    (``encoding_option="--encoding"``); other messages never promise an option that is not there.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise DataFormatError(f"{p}: no such {what} (file not found)") from None
    except IsADirectoryError:
        raise DataFormatError(f"{p}: is a directory, expected {_article(what)} {what}") from None
    binary = _binary_kind(data)
    if binary is not None:
        kind, fix = binary
        raise DataFormatError(f"{p}: is {kind}, not {'text' if what == 'file' else _article(what) + ' ' + what}; {fix}")
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        utf8 = encoding.lower().replace("_", "-") in ("utf-8", "utf8")
        kind = "not UTF-8 text" if utf8 else f"not valid {encoding} text"
        raise DataFormatError(
            f"{p}, line {line}: {kind} (byte 0x{data[e.start]:02x} at offset {e.start} is not valid {encoding}); "
            + ("re-save the file as UTF-8" + (f" or pass its encoding with {encoding_option}" if encoding_option else ""))
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
