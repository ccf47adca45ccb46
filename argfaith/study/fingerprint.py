"""What identifies a relation classifier's labels, so that cached results are never reused wrongly.

The mining checkpoints (:func:`argfaith.mining.pipeline.run_fingerprint`) hash the classifier's
``name`` and its optional ``fingerprint`` attribute. The trainable offline classifiers' own
fingerprint covers their loaded weights (``weights_digest``: model, IDF table, reference scores,
projections), but not every classifier has a fingerprint (recorded label files, baselines,
custom classifiers). :func:`classifier_fingerprint` therefore derives a fingerprint from what
determines the labels (the classifier's own fingerprint, plus the weights, the IDF table, a label
file's bytes, scalar settings found on it) and :class:`FingerprintedClassifier` exposes it to the
pipeline, so the checkpoint of a retrained classifier is refused and the study re-mines.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from argfaith.mining.classifiers.base import PairQuery, Prediction, ProgressCallback, RelationClassifier, Usage

__all__ = ["classifier_fingerprint", "FingerprintedClassifier", "fingerprint_tag"]


def _hash_array(h: Any, a: Any) -> None:
    arr = np.ascontiguousarray(np.asarray(a))
    h.update(str(arr.dtype).encode() + str(arr.shape).encode())
    if arr.dtype.kind in "OUS":
        h.update(json.dumps(arr.tolist(), default=str).encode())
    else:
        h.update(arr.tobytes())


#: Attributes that never determine labels: caches, clients, diagnostics counters.
_IGNORED = frozenset(
    {"metadata", "cache", "client", "http_client", "encoder", "unrecorded", "replayed", "id_text_mismatches",
     "encoded", "profiled", "calls", "max_cache"}
)


def _hash_component(h: Any, name: str, obj: Any, depth: int = 0) -> None:
    """Hash the label-determining state of ``obj``: arrays, linear models, IDF tables, label files,
    and (on the classifier itself) scalar settings such as thresholds."""
    leaf = name.rsplit(".", 1)[-1]
    if obj is None or leaf.startswith("_") or leaf in _IGNORED:
        return
    if isinstance(obj, np.ndarray):
        h.update(name.encode())
        _hash_array(h, obj)
        return
    if hasattr(obj, "coef") and hasattr(obj, "intercept"):  # a linear model
        h.update(name.encode())
        for attr in ("classes", "coef", "intercept", "feature_names"):
            if hasattr(obj, attr):
                _hash_array(h, getattr(obj, attr))
        return
    idf = getattr(obj, "idf", None)
    if isinstance(idf, dict) and hasattr(obj, "default"):  # an IDF table
        h.update(name.encode())
        h.update(json.dumps(sorted(idf.items()), default=str).encode())
        h.update(repr(obj.default).encode())
        return
    if isinstance(obj, (str, Path)) and leaf in ("path", "weights", "file", "model_path") and Path(obj).is_file():
        h.update(name.encode())
        h.update(hashlib.sha256(Path(obj).read_bytes()).digest())
        return
    if isinstance(obj, (bool, int, float, str, Path)):
        if depth == 0:  # settings of the classifier itself (threshold, label, model id, ...)
            h.update(f"{name}={obj!r}".encode())
        return
    if isinstance(obj, (tuple, list)) and depth == 0:
        h.update(f"{name}={obj!r}".encode())
        return
    if hasattr(obj, "__dict__") and not isinstance(obj, type) and depth < 1:
        for k, v in sorted(vars(obj).items()):
            _hash_component(h, f"{name}.{k}", v, depth + 1)


def classifier_fingerprint(classifier: RelationClassifier) -> str:
    """A stable digest of what determines ``classifier``'s labels.

    Covers the classifier's class and ``name``, its own ``fingerprint`` attribute when it has one
    (the offline classifiers' covers their weights and class prior), and the
    label-determining state found on it: numpy arrays, linear models' weights, IDF tables, label
    files, scalar settings. Two offline classifiers with different weights get different
    fingerprints; the same weights loaded twice get the same one. Fingerprint a classifier as it
    will label pairs (after :func:`argfaith.mining.classifiers.prior.mining_classifier`).
    """
    inner = getattr(classifier, "inner", classifier)
    own = getattr(inner, "fingerprint", None)
    h = hashlib.sha256()
    h.update(f"{type(inner).__module__}.{type(inner).__qualname__}\x00{inner.name}\x00".encode())
    if isinstance(own, str) and own:
        h.update(b"own\x00" + own.encode() + b"\x00")
    for k, v in sorted(vars(inner).items()) if hasattr(inner, "__dict__") else ():
        _hash_component(h, k, v)
    return h.hexdigest()


def fingerprint_tag(name: str, fingerprint: str) -> str:
    """A short folder name for a classifier: ``offline-1a2b3c4d5e``."""
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in name.split("(")[0].strip())[:40].strip("-")
    return f"{safe or 'classifier'}-{fingerprint[:10]}"


class FingerprintedClassifier:
    """A classifier seen through its :func:`classifier_fingerprint` (what the mining checkpoints
    hash). Everything else is delegated to ``inner``."""

    def __init__(self, inner: RelationClassifier, fingerprint: str | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.fingerprint = fingerprint or classifier_fingerprint(inner)

    def classify(self, pairs: Sequence[PairQuery], *, progress: ProgressCallback | None = None) -> list[Prediction]:
        return self.inner.classify(pairs, progress=progress)

    @property
    def usage(self) -> Usage:
        return self.inner.usage

    def __getattr__(self, name: str) -> Any:
        # Only called for attributes not found normally: predict_proba, model, featurizer, ...
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return f"FingerprintedClassifier({self.name!r}, {self.fingerprint[:10]})"
