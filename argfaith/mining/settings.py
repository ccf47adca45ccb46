"""Settings of mining documents into QBAFs, as one frozen object (``argfaith evaluate`` builds it
from its mining options; see :mod:`argfaith.metrics.settings` for the others).

>>> MiningSettings().max_pairs
1000000
>>> MiningSettings(max_pairs=0)
Traceback (most recent call last):
...
argfaith.errors.ConfigurationError: max_pairs: 0 must be an integer >= 1 (or None for no limit)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from argfaith.errors import ConfigurationError
from argfaith.mining.candidates import DEFAULT_SUMMARY_PAIRS
from argfaith.mining.guards import DEFAULT_MAX_PAIRS

__all__ = ["MiningSettings"]


@dataclass(frozen=True)
class MiningSettings:
    """How documents become QBAFs.

    ``classifier``: a spec of :mod:`argfaith.mining.classifiers.registry` (None: Claude with
    ``ANTHROPIC_API_KEY``, else offline); ``candidates``: the candidate-pair strategy of
    :func:`argfaith.mining.candidates.parse_candidates`; ``mined_dir``: where mined QBAFs and
    their resumable checkpoints go (None: the cache folder); ``max_pairs``: the pair budget per
    document (:mod:`argfaith.mining.guards`; None = no limit); ``summary_pairs``: the summary
    candidate policy (:func:`argfaith.mining.candidates.summary_candidates`); ``summary_units``: the
    summary unit policy (:data:`argfaith.mining.units.SUMMARY_UNIT_POLICIES`).
    """

    classifier: str | None = None
    candidates: str = "all"
    mined_dir: Path | None = None
    max_pairs: int | None = DEFAULT_MAX_PAIRS
    summary_pairs: str = DEFAULT_SUMMARY_PAIRS  # summary candidate policy (issue 21): all | ordered | proposals
    summary_units: str = "default"  # summary unit policy: default | rules | v1

    def __post_init__(self) -> None:
        from argfaith.mining.candidates import SUMMARY_PAIR_POLICIES
        from argfaith.mining.units import summary_unit_policy

        if self.summary_pairs not in SUMMARY_PAIR_POLICIES:
            raise ConfigurationError(f"summary_pairs: {self.summary_pairs!r} is not one of {', '.join(SUMMARY_PAIR_POLICIES)}")
        summary_unit_policy(self.summary_units)
        if self.max_pairs is not None and (isinstance(self.max_pairs, bool) or not isinstance(self.max_pairs, int) or self.max_pairs < 1):
            raise ConfigurationError(f"max_pairs: {self.max_pairs!r} must be an integer >= 1 (or None for no limit)")
        if not str(self.candidates).strip():
            raise ConfigurationError("candidates: empty candidate strategy (e.g. all, topk:10)")
