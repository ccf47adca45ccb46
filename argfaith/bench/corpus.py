"""The EP relation corpus (``data/ep_relations_llm``): labels keyed by argument ids, texts
resolved from the EP data the user has.

The corpus stores no debate text (the shared data must not be copied): each record names its
pair by the ids argfaith's own mining gives the units (``<debate>-<intervention>-<k>``,
``<debate>-PAR-<n>``, ``<debate>-<variant>-<k>`` for summary sentences), plus a short hash of
each text so that a different copy of the data is detected instead of silently mislabelled.
Only the hand-written contrast rewrites carry their own source text.

:func:`load_ep_relation_corpus` rebuilds the mining plan of each debate / summary once and
returns every pair as the :class:`~argfaith.mining.classifiers.base.PairQuery` mining would send
(debate context included), with its label and provenance.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from argfaith.datasets.labels import normalise_label
from argfaith.datasets.provision_ids import canonical_provision_id
from argfaith.errors import DataFormatError
from argfaith.mining.candidates import CandidatePair
from argfaith.mining.classifiers.base import PairQuery
from argfaith.textio import read_text

__all__ = ["CorpusPair", "load_ep_relation_corpus", "default_corpus_path", "PAPER_DEBATES", "text_hash"]

#: The paper's three annotated debates: evaluation only, never training (the brief's rule).
PAPER_DEBATES = ("CRE-20060213-ITEM-013", "CRE-20070905-ITEM-015", "CRE-20080313-ITEM-002")


@dataclass(frozen=True)
class CorpusPair:
    """One labelled pair of the corpus, as the classifier sees it."""

    pair_id: str
    part: str  # exhaustive | summary | targeted | contrast
    debate_id: str
    label: str
    query: PairQuery
    agreement: str  # "2/2" | "adjudicated"
    annotations: dict[str, str] = field(default_factory=dict)
    rewrite: str | None = None  # contrast: original | flip | vanish
    contrast_of: str | None = None
    packet: str | None = None

    @property
    def eval_only(self) -> bool:
        """True for pairs of the paper's three debates (never used for training)."""
        return self.debate_id in PAPER_DEBATES


def text_hash(text: str) -> str:
    """The corpus' 10-hex-digit text check (SHA-1 of the whitespace-normalised text)."""
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:10]


def default_corpus_path() -> Path:
    """``data/ep_relations_llm/pairs.jsonl.gz`` of a source checkout (the corpus is not installed)."""
    return Path(__file__).resolve().parents[2] / "data" / "ep_relations_llm" / "pairs.jsonl.gz"


def _plans(data_root: Path) -> Any:
    from argfaith.datasets.ep import find_ep_debate, read_ep_debate
    from argfaith.datasets.summaries import read_summary
    from argfaith.mining.pipeline import plan_debate, plan_summary
    from argfaith.mining.units import SUMMARY_POLICY_V1

    cache: dict[str, Any] = {}

    def get(debate_id: str, summary_file: str | None) -> Any:
        key = summary_file or debate_id
        if key not in cache:
            deb = read_ep_debate(find_ep_debate(data_root / "ep_debates", debate_id), annotations=False)
            if summary_file:
                # the units the corpus' summary packets were built with (stable ids: k counts every segment)
                cache[key] = plan_summary(read_summary(data_root / "ep_summaries" / debate_id / summary_file), deb,
                                          policy=SUMMARY_POLICY_V1)
            else:
                cache[key] = plan_debate(deb, units="sentences")
        return cache[key]

    return get


def load_ep_relation_corpus(
    path: str | Path | None = None,
    data_root: str | Path | None = None,
    *,
    parts: Iterable[str] | None = None,
) -> list[CorpusPair]:
    """Read the corpus and resolve every pair's texts from ``data_root`` (the folder holding
    ``ep_debates`` and ``ep_summaries``; default ``$ARGFAITH_DATA``).

    Raises :class:`~argfaith.errors.DataFormatError` naming the file and line when a record is
    malformed, an id is not found in the data, or a text hash differs (another copy of the data).
    """
    from argfaith.datasets.paths import data_dir

    p = Path(path) if path is not None else default_corpus_path()
    root = Path(data_root) if data_root is not None else data_dir(required=False)
    if root is None or not (root / "ep_debates").is_dir():
        raise DataFormatError(f"{p}: the corpus needs the EP data folder (ep_debates/); pass data_root or set ARGFAITH_DATA")
    keep = set(parts) if parts is not None else None
    plan_of = _plans(root)
    out: list[CorpusPair] = []
    if p.suffix == ".gz":
        import gzip

        try:
            text = gzip.decompress(p.read_bytes()).decode("utf-8")
        except (OSError, EOFError, UnicodeDecodeError) as e:
            raise DataFormatError(f"{p}: not a readable gzip'ed UTF-8 JSONL file ({e})") from None
    else:
        text = read_text(p)
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{p}:{n}"
        try:
            r = json.loads(line)
        except json.JSONDecodeError as e:
            raise DataFormatError(f"{where}: invalid JSON ({e.msg})") from None
        if keep is not None and r.get("part") not in keep:
            continue
        try:
            label = normalise_label(r["label"])
            plan = plan_of(r["debate_id"], r.get("summary_file"))
            units = plan.units
            # The corpus is keyed by the old positional provision ids (<debate>-PAR-<n>): one mapping.
            r["source_id"], r["target_id"] = canonical_provision_id(r["source_id"]), canonical_provision_id(r["target_id"])
            if r["source_id"] not in units or r["target_id"] not in units:
                missing = r["source_id"] if r["source_id"] not in units else r["target_id"]
                raise DataFormatError(f"{where}: argument {missing!r} is not in the EP data under {root}")
            q = plan.queries([CandidatePair(r["source_id"], r["target_id"], r["target_kind"])])[0]
        except KeyError as e:
            raise DataFormatError(f"{where}: missing field {e.args[0]!r}") from None
        if label is None:
            raise DataFormatError(f"{where}: unknown label {r['label']!r}")
        if text_hash(q.source) != r["source_sha"] or text_hash(q.target) != r["target_sha"]:
            raise DataFormatError(f"{where}: the texts of {r['pair_id']!r} differ from the data the corpus was built on")
        if r.get("source_text"):
            q = replace(q, source=r["source_text"])
        out.append(CorpusPair(
            pair_id=r["pair_id"], part=r["part"], debate_id=r["debate_id"], label=label, query=q,
            agreement=r.get("agreement", ""), annotations=r.get("annotations", {}), rewrite=r.get("rewrite"),
            contrast_of=r.get("contrast_of"), packet=r.get("packet"),
        ))
    return out
