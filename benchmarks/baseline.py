"""Import argfaith as it was at another git revision, beside the current one, for before/after
timings in one process (``--baseline REV`` of ``benchmarks/engine.py`` and
``benchmarks/semantics.py``).

:func:`load_baseline` extracts the package at ``REV`` with ``git archive`` (without its model
data) into ``<tmp>/argfaith-baseline-<sha>/argfaith_<sha>/``, renames every ``argfaith`` import
in it to that package name, and imports it. Both versions then run on the same arrays, in the
same process, alternately — the machine's load hits both alike. The extracted copy is kept and
reused (numba caches its kernels there), never committed: nothing of the old code enters the
repository.

    from baseline import load_baseline
    old = load_baseline("main")          # a module: old.qbaf, old.qbaf.gradual, ...
"""

from __future__ import annotations

import importlib
import io
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["load_baseline", "paired"]

ROOT = Path(__file__).resolve().parents[1]
_IMPORT = re.compile(r"\bargfaith(?=[.\s])")


def load_baseline(rev: str, *, root: Path = ROOT) -> ModuleType:
    """The ``argfaith`` package at git revision ``rev`` of ``root``, imported as ``argfaith_<sha>``."""
    sha = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=10", rev], check=True, capture_output=True, text=True).stdout.strip()
    name = f"argfaith_{sha}"
    home = Path(tempfile.gettempdir()) / f"argfaith-baseline-{sha}"
    pkg = home / name
    if not (pkg / "__init__.py").exists():
        home.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", sha, "argfaith"], check=True, capture_output=True).stdout
        tmp = home / "extract"
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            members = [m for m in tar.getmembers() if not m.name.startswith("argfaith/data/")]
            tar.extractall(tmp, members=members, filter="data")
        for py in (tmp / "argfaith").rglob("*.py"):
            text = py.read_text(encoding="utf-8")
            py.write_text(_IMPORT.sub(name, text), encoding="utf-8")
        (tmp / "argfaith").rename(pkg)
        tmp.rmdir()
    if str(home) not in sys.path:
        sys.path.insert(0, str(home))
    return importlib.import_module(name)


def paired(new: Callable[[], Any], old: Callable[[], Any], repeat: int, timer: Callable[[Callable[[], Any]], tuple[float, float, Any]]
           ) -> tuple[tuple[float, float, Any], tuple[float, float, Any], float]:
    """Time two callables in ``repeat`` adjacent pairs, the order alternating (new-old, old-new,
    ...) so that neither always runs on the caches the other warmed: ``(best new, best old,
    median of the per-pair ratios new / old)``, a best being ``(wall, cpu, output)`` as
    ``timer(fn)`` returns it. The median of pair ratios follows load changes that the two bests
    may straddle."""
    best_new = best_old = (float("inf"), float("inf"), None)
    ratios = []
    for r in range(repeat):
        first, second = (new, old) if r % 2 == 0 else (old, new)
        t1, t2 = timer(first), timer(second)
        tn, to = (t1, t2) if r % 2 == 0 else (t2, t1)
        best_new = min(best_new, tn, key=lambda t: t[0])
        best_old = min(best_old, to, key=lambda t: t[0])
        ratios.append(tn[0] / to[0] if to[0] > 0 else float("nan"))
    return best_new, best_old, statistics.median(ratios)
