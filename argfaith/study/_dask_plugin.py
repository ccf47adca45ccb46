"""Worker-side pieces of the Dask executor: the plugin that gives every worker one copy of a
study's classifier object, and the preload of the workers of a local cluster.

A module of its own because it subclasses ``distributed.WorkerPlugin`` at import time: only
:mod:`argfaith.study.dask_executor` (after checking that the ``dask`` extra is there) and Dask
workers import it.
"""

from __future__ import annotations

import pickle
import signal
from typing import Any

from distributed import WorkerPlugin

from argfaith.study._worker_state import STATE as _STATE
from argfaith.study._worker_state import STATE_LOCK as _STATE_LOCK

__all__ = ["ShippedClassifier", "dask_setup"]


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


def dask_setup(worker: Any) -> None:
    """Preload hook of the workers of a cluster the run starts itself (also of restarted ones):
    Ctrl-C reaches the whole process group, and the main process decides what happens (it stops
    the run and shuts the cluster down) — a worker interrupted on its own only prints tracebacks."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
