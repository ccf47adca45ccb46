"""Per-worker-process state of the Dask executor: classifier objects installed by the worker
plugin (:mod:`argfaith.study._dask_plugin`), the classifier built from the spec, the debate in
use. A module of its own, below both the plugin and :mod:`argfaith.study.dask_executor`, so
neither imports the other."""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["STATE", "STATE_LOCK"]

#: Keyed by ``("shipped", name)`` (plugin-installed objects) and ``("debate", ...)``.
STATE: dict[Any, Any] = {}
#: Held while reading or changing :data:`STATE` (a worker may run several threads).
STATE_LOCK = threading.Lock()
