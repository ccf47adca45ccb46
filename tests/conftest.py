"""Shared fixtures: paths to the project's own example files."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="session")
def paper_dir() -> Path:
    """The worked example of PAPER.md §6 (Q, Qa*, Qb*)."""
    return EXAMPLES / "paper"


#: Uncertain candidate pairs of the paper's frameworks (issue 23's error bars), as mining stores
#: them in a QBAF's metadata: [source, target, p_attack, p_support]; s4 → s1 and s4 → p1 are edges
#: of the files, made uncertain.
UNCERTAIN_PAIRS = {
    "q": [["s6", "p1", 0.3, 0.3], ["s4", "s1", 0.6, 0.1]],
    "qa": [["s6", "p1", 0.2, 0.5], ["s4", "p1", 0.1, 0.6]],
    "qb": [["s6", "p1", 0.45, 0.15]],
}


@pytest.fixture(scope="session")
def uncertain_paper_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The worked example's q.json, qa.json, qb.json with :data:`UNCERTAIN_PAIRS` as their
    ``relation_distribution`` metadata: QBAFs whose relations a classifier was unsure of."""
    import json

    out = tmp_path_factory.mktemp("uncertain_paper")
    for name, pairs in UNCERTAIN_PAIRS.items():
        d = json.loads((EXAMPLES / "paper" / f"{name}.json").read_text(encoding="utf-8"))
        d["metadata"] = {"relation_distribution": {"pairs": pairs, "fixed_at": 0.99}}
        (out / f"{name}.json").write_text(json.dumps(d, indent=1), encoding="utf-8")
    return out


# numba compiles (or loads from its cache) a kernel on first use; on a fresh clone that first call
# can take seconds, which hypothesis' per-example deadline would misreport as a flaky failure.
from hypothesis import settings as _hsettings  # noqa: E402

_hsettings.register_profile("argfaith", deadline=None)
_hsettings.load_profile("argfaith")
