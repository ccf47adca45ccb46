"""Small helpers shared by the document readers: typed keys with errors that name the file and
the key (never a bare ``KeyError``); file reading is :mod:`argfaith.textio`, re-exported here."""

from __future__ import annotations

from typing import Any

from argfaith.errors import DataFormatError
from argfaith.textio import read_json, read_text  # re-exported for the readers

__all__ = ["read_json", "require", "read_text"]


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
