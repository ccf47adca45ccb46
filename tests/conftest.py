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


# numba compiles (or loads from its cache) a kernel on first use; on a fresh clone that first call
# can take seconds, which hypothesis' per-example deadline would misreport as a flaky failure.
from hypothesis import settings as _hsettings  # noqa: E402

_hsettings.register_profile("argfaith", deadline=None)
_hsettings.load_profile("argfaith")
