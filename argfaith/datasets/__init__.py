"""argfaith.datasets: loaders for debates, summaries, relation-pair corpora and KPA data.

Every loader takes a path; :mod:`argfaith.datasets.paths` holds the ``ARGFAITH_DATA`` /
``ARGFAITH_CACHE`` conventions. Nothing here touches the network.
"""

from argfaith.datasets.paths import cache_dir, data_dir, resolve_data_path
from argfaith.datasets.relations import (
    PairColumns,
    RelationPair,
    load_amelia_pairs,
    load_relation_pairs,
    save_relation_pairs,
)

__all__ = [
    "cache_dir",
    "data_dir",
    "resolve_data_path",
    "PairColumns",
    "RelationPair",
    "load_amelia_pairs",
    "load_relation_pairs",
    "save_relation_pairs",
]
