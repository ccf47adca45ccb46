"""The Dask worker plugin that gives every worker one copy of a study's classifier object.

A module of its own because it subclasses ``distributed.WorkerPlugin`` at import time: only
:mod:`argfaith.study.dask_executor` imports it, after checking that the ``dask`` extra is there.
"""

from __future__ import annotations

import pickle
from typing import Any

from distributed import WorkerPlugin

from argfaith.study.dask_executor import _STATE, _STATE_LOCK

__all__ = ["ShippedClassifier"]


class ShippedClassifier(WorkerPlugin):  # type: ignore[misc]
    """Installs one unpickled copy of a classifier object on every worker — also on a worker that
    joins or is restarted later (scattered data, by contrast, is gone once its holders die)."""

    def __init__(self, name: str, blob: bytes) -> None:
        self.name = name
        self.blob = blob

    def setup(self, worker: Any) -> None:
        with _STATE_LOCK:
            _STATE[("shipped", self.name)] = pickle.loads(self.blob)

    def teardown(self, worker: Any) -> None:
        with _STATE_LOCK:
            _STATE.pop(("shipped", self.name), None)
