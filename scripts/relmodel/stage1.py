"""Stage-1 relatedness features of the v2 trials: the pair features of ``features`` (lexical,
cue lexicons, debate context) plus MiniLM bi-encoder cosines (source–target, previous
sentence–target, their max, source–topic, target–topic)."""

from __future__ import annotations

import numpy as np

EMB_NAMES = ("emb_cos", "emb_prev_cos", "emb_max_cos", "emb_src_topic", "emb_tgt_topic")


def emb_features(rows: list[dict], vec) -> np.ndarray:  # noqa: ANN001
    """``vec(text) -> unit vector`` (None for empty text)."""
    out = np.zeros((len(rows), len(EMB_NAMES)), dtype=np.float64)
    for i, r in enumerate(rows):
        s, t, p, tp = vec(r["source"]), vec(r["target"]), vec(r.get("prev") or ""), vec(r.get("topic") or "")
        cst = float(s @ t)
        cpt = float(p @ t) if p is not None else cst
        out[i] = (cst, cpt, max(cst, cpt), float(s @ tp) if tp is not None else 0.0, float(t @ tp) if tp is not None else 0.0)
    return out
