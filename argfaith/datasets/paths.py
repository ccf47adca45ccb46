"""Data and cache directory conventions.

``ARGFAITH_DATA`` points at a folder laid out like the project's shared data (``ep_debates/``,
``arc_pairs/amelia/``, ``ep_relations_silver/``, ``kpa2021/``); every loader still takes an explicit
path, and CLI ``--data`` options win over the environment. ``ARGFAITH_CACHE`` is where users keep
downloaded public originals and where argfaith keeps derived caches; it defaults to the platform's
per-user cache directory (XDG on Linux, ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on
Windows). Nothing here touches the network, and nothing is created at import time.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from argfaith.errors import ConfigurationError

__all__ = ["DATA_ENV", "CACHE_ENV", "data_dir", "cache_dir", "resolve_data_path"]

DATA_ENV = "ARGFAITH_DATA"
CACHE_ENV = "ARGFAITH_CACHE"


def data_dir(explicit: str | os.PathLike[str] | None = None, *, required: bool = True) -> Path | None:
    """The data directory: ``explicit`` if given, else ``$ARGFAITH_DATA``.

    Parameters
    ----------
    explicit
        A path given by the caller (e.g. a ``--data`` option); wins over the environment.
    required
        If True (default), raise :class:`ConfigurationError` when neither is set; otherwise
        return None.

    Raises
    ------
    ConfigurationError
        Nothing configured (when ``required``), or the configured path is not a directory.
    """
    raw = explicit if explicit is not None else os.environ.get(DATA_ENV)
    if raw is None or str(raw).strip() == "":
        if required:
            raise ConfigurationError(
                f"no data directory: pass a path (e.g. --data DIR) or set {DATA_ENV}=DIR"
            )
        return None
    path = Path(raw).expanduser()
    if not path.is_dir():
        origin = "given path" if explicit is not None else f"${DATA_ENV}"
        raise ConfigurationError(f"data directory {path} ({origin}) does not exist or is not a directory")
    return path


def _platform_cache_root() -> Path:
    # Follow each platform's convention without depending on platformdirs.
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "argfaith" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "argfaith"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "argfaith"


def cache_dir(explicit: str | os.PathLike[str] | None = None, *, create: bool = False) -> Path:
    """The cache directory: ``explicit``, else ``$ARGFAITH_CACHE``, else the user cache dir.

    Parameters
    ----------
    explicit
        A path given by the caller; wins over the environment.
    create
        Create the directory (and parents) if missing. Never done implicitly at import time.
    """
    raw = explicit if explicit is not None else os.environ.get(CACHE_ENV)
    path = Path(raw).expanduser() if raw not in (None, "") else _platform_cache_root()
    if create:
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ConfigurationError(f"cannot create cache directory {path}: {e}") from e
    return path


def resolve_data_path(path: str | os.PathLike[str], *, data: str | os.PathLike[str] | None = None) -> Path:
    """Resolve a file path: as given if it exists, else relative to the data directory.

    ``resolve_data_path("ep_relations_silver/dev.jsonl")`` finds the file under
    ``$ARGFAITH_DATA`` when it is not found relative to the working directory.

    Raises
    ------
    ConfigurationError
        The path exists neither as given nor under the data directory.
    """
    p = Path(path).expanduser()
    if p.exists():
        return p
    root = data_dir(data, required=False)
    if root is not None and not p.is_absolute() and (root / p).exists():
        return root / p
    where = f" nor under {root}" if root is not None else f" (and {DATA_ENV} is not set)"
    raise ConfigurationError(f"file not found: {p}{where}")
