"""The dependency rules of docs/ARCHITECTURE.md, checked on the source: every ``import`` of an
argfaith module anywhere in a module (top level or inside a function; imports under
``if TYPE_CHECKING:`` do not run and are left out) is an edge of the module graph."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

PKG = Path(__file__).resolve().parent.parent / "argfaith"


def _modules() -> dict[str, Path]:
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        parts = list(p.relative_to(PKG.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _imports(name: str, path: Path, mods: dict[str, Path]) -> set[str]:
    """argfaith modules imported by module ``name`` (executed imports only)."""
    pkg = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for n in node.orelse:
                visit(n)
            return
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in mods:
                    found.add(a.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            for a in node.names:
                sub = f"{base}.{a.name}"
                if sub in mods:
                    found.add(sub)
                elif base in mods:
                    found.add(base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    found.discard(name)
    return found


@pytest.fixture(scope="module")
def graph() -> nx.DiGraph:
    mods = _modules()
    g = nx.DiGraph()
    g.add_nodes_from(mods)
    for name, path in mods.items():
        for t in _imports(name, path, mods):
            g.add_edge(name, t)
    return g


def _part(mod: str) -> str:
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_the_graph_is_read(graph: nx.DiGraph) -> None:
    # The checks below would pass vacuously on an empty graph.
    assert graph.number_of_nodes() > 100
    assert graph.has_edge("argfaith.cli.evaluate", "argfaith.cli._app")
    assert graph.has_edge("argfaith.kpa.matchers", "argfaith.datasets.kpa")


def test_no_library_module_imports_the_cli(graph: nx.DiGraph) -> None:
    entry = {"argfaith.__main__"}  # `python -m argfaith` is the command itself
    bad = sorted((a, b) for a, b in graph.edges if _part(b) == "cli" and _part(a) != "cli" and a not in entry)
    assert bad == [], f"library modules importing the CLI: {bad}"


def test_no_import_cycles(graph: nx.DiGraph) -> None:
    cycles = sorted(sorted(c) for c in nx.simple_cycles(graph))
    assert cycles == [], f"import cycles (move the shared piece down a floor): {cycles}"


@pytest.mark.parametrize(
    ("part", "forbidden"),
    [
        ("qbaf", {"metrics", "mining", "datasets", "llm", "kpa", "study", "bench", "cli", "textio", "errors"}),
        ("metrics", {"mining", "kpa", "study", "bench", "cli"}),
        ("datasets", {"mining", "metrics", "kpa", "study", "bench", "cli"}),
        ("llm", {"mining", "metrics", "kpa", "study", "bench", "cli", "qbaf"}),
        ("kpa", {"mining", "study", "bench", "cli", "qbaf"}),
        ("mining", {"kpa", "study", "bench", "cli"}),
    ],
)
def test_dependency_rule(graph: nx.DiGraph, part: str, forbidden: set[str]) -> None:
    bad = sorted((a, b) for a, b in graph.edges if _part(a) == part and _part(b) in forbidden)
    assert bad == [], f"{part} must not import {sorted(forbidden)}: {bad}"
