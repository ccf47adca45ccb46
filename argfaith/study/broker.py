"""One process owns the request budget: shared-budget classifiers (Claude) in distributed runs.

A relation classifier that spends a shared budget — API requests under one account's rate limits,
Message Batches submissions, the persistent request cache — must not be instantiated once per
worker: N workers would send N times the concurrency, submit N small batches instead of one, and
open the sqlite request cache from several hosts (which sqlite does not support on network
filesystems). In a distributed study such a classifier lives in the main process only, as a
:class:`BudgetOwner`; workers hold a :class:`BrokeredClassifier`, which sends each chunk of pairs
to the owner and waits for the labels.

The owner answers every request waiting at the same moment with **one** ``classify`` call over
their union: one concurrency limit, one Batches submission (duplicates across workers judged
once), one cache writer. The labels are the owner classifier's, so a brokered run mines exactly
what a single-process run mines. Classifiers declare that they spend a shared budget with the
class attribute ``shared_budget = True`` (:func:`owns_shared_budget`).

Payloads are plain lists (msgpack-encodable): the transport may be any message queue; the Dask
executor uses the scheduler's named queues (:mod:`argfaith.study.dask_executor`).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from argfaith.errors import ArgfaithError
from argfaith.mining.classifiers.base import PairQuery, Prediction, ProgressCallback, Usage

__all__ = [
    "PAIR_FIELDS",
    "BudgetOwner",
    "BrokeredClassifier",
    "BudgetOwnerError",
    "owns_shared_budget",
    "encode_queries",
    "decode_queries",
    "encode_predictions",
    "decode_predictions",
]

#: The fields of a :class:`PairQuery`, in the order :func:`encode_queries` writes them.
PAIR_FIELDS = tuple(f.name for f in dataclasses.fields(PairQuery))


class BudgetOwnerError(ArgfaithError):
    """The budget owner could not classify a worker's pairs (the message is the owner's error)."""


def owns_shared_budget(classifier: Any) -> bool:
    """True when ``classifier`` (or the classifier it wraps) spends a shared request budget
    (class attribute ``shared_budget``), so that a distributed run must broker its calls."""
    seen = 0
    while classifier is not None and seen < 5:
        if getattr(type(classifier), "shared_budget", False):
            return True
        classifier = classifier.__dict__.get("inner") if hasattr(classifier, "__dict__") else None
        seen += 1
    return False


def encode_queries(pairs: Sequence[PairQuery]) -> list[list[Any]]:
    """Pairs as lists of their fields (:data:`PAIR_FIELDS`)."""
    return [[getattr(p, f) for f in PAIR_FIELDS] for p in pairs]


def decode_queries(rows: Sequence[Sequence[Any]]) -> list[PairQuery]:
    """The inverse of :func:`encode_queries`."""
    return [PairQuery(**dict(zip(PAIR_FIELDS, r, strict=True))) for r in rows]


def encode_predictions(preds: Sequence[Prediction]) -> list[list[Any]]:
    """Predictions as ``[label, confidence, fallback, raw, probabilities, final]`` lists (``final``:
    False for a stand-in label of a refused or failed request, which the next run asks again)."""
    return [[p.label, p.confidence, p.fallback, p.raw, p.probabilities, p.final] for p in preds]


def decode_predictions(rows: Sequence[Sequence[Any]]) -> list[Prediction]:
    """The inverse of :func:`encode_predictions`."""
    return [
        Prediction(label=r[0], confidence=r[1], fallback=bool(r[2]), raw=r[3], probabilities=dict(r[4]) if r[4] is not None else None,
                   final=bool(r[5]) if len(r) > 5 else True)
        for r in rows
    ]


class BudgetOwner:
    """The one classifier of a distributed run that spends the shared budget (see module doc).

    :meth:`answer` takes the requests that were waiting together — ``{"id": ..., "queries":
    encoded pairs}`` — and returns one reply per request, ``{"id", "predictions"}`` or ``{"id",
    "error"}``. Calls are serialised (one job at a time), so the classifier's own concurrency limit
    is the run's.
    """

    def __init__(self, classifier: Any) -> None:
        self.classifier = classifier
        self.requests = 0
        self.jobs = 0
        self.pairs = 0
        self._lock = threading.Lock()

    def answer(self, requests: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        spans: list[tuple[int, int]] = []
        union: list[PairQuery] = []
        for r in requests:
            qs = decode_queries(r["queries"])
            spans.append((len(union), len(union) + len(qs)))
            union.extend(qs)
        with self._lock:
            self.requests += len(requests)
            self.jobs += 1
            self.pairs += len(union)
            try:
                preds = self.classifier.classify(union)
            except Exception as e:  # noqa: BLE001 - sent back to the workers that asked
                return [{"id": r["id"], "error": f"{type(e).__name__}: {e}"} for r in requests]
        if len(preds) != len(union):
            msg = f"classifier returned {len(preds)} predictions for {len(union)} pairs"
            return [{"id": r["id"], "error": msg} for r in requests]
        return [{"id": r["id"], "predictions": encode_predictions(preds[a:b])} for r, (a, b) in zip(requests, spans)]

    def stats(self) -> dict[str, int]:
        """Requests received, classify calls made and pairs classified (for the manifest)."""
        return {"requests": self.requests, "classify_calls": self.jobs, "pairs": self.pairs}


class BrokeredClassifier:
    """A worker's stand-in for the budget owner's classifier.

    Implements :class:`argfaith.mining.classifiers.base.RelationClassifier`; ``name`` and
    ``fingerprint`` are the owner's, so checkpoints and keys are those of a single-process run.
    ``call`` sends one request (the encoded pairs) and returns the owner's reply.
    """

    def __init__(self, name: str, fingerprint: str, call: Callable[[list[list[Any]]], Mapping[str, Any]]) -> None:
        self.name = name
        self.fingerprint = fingerprint
        self._call = call
        self._usage = Usage()

    def classify(self, pairs: Sequence[PairQuery], *, progress: ProgressCallback | None = None) -> list[Prediction]:
        if not pairs:
            return []
        reply = self._call(encode_queries(pairs))
        if "error" in reply:
            raise BudgetOwnerError(f"the main process's classifier {self.name!r} failed: {reply['error']}")
        preds = decode_predictions(reply["predictions"])
        if len(preds) != len(pairs):
            raise BudgetOwnerError(f"the budget owner returned {len(preds)} predictions for {len(pairs)} pairs")
        if progress is not None:
            progress(len(pairs), len(pairs))
        return preds

    @property
    def usage(self) -> Usage:
        """Always zero: the spend is counted by the owner, in the main process."""
        return self._usage

    def __repr__(self) -> str:
        return f"BrokeredClassifier({self.name!r})"
