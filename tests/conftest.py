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
