"""Exports of a QBAF for other tools: the set-attack Dung AF in ICCMA format, and Graphviz DOT.

* ICCMA (the format of the International Competition on Computational Models of Argumentation,
  2023 edition): a header line ``p af n``, then one line ``i j`` per attack, arguments numbered
  1..n in framework order; lines starting with ``#`` are comments. :func:`to_iccma` writes the
  set-attack relation R of PAPER.md §4, so any ICCMA solver computes d-preferred (and other)
  extensions of the bipolar framework; :func:`parse_iccma` reads the format back.
* DOT: proposal arguments are boxes, speech arguments ellipses; attacks are red solid edges with
  a flat ("tee") head, supports green dashed edges with an arrow head. Argument ids and text are
  untrusted: they are escaped so that a quote, a backslash or a Graphviz escape such as ``\\N``
  in a transcript can neither end the string nor be interpreted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from argfaith.qbaf.errors import QBAFFormatError

if TYPE_CHECKING:
    from argfaith.qbaf.bipolar import SetAttacks
    from argfaith.qbaf.framework import QBAF

__all__ = ["to_iccma", "write_iccma", "parse_iccma", "read_iccma", "to_dot", "dot_escape"]


def to_iccma(framework: QBAF | SetAttacks, *, comments: bool = False) -> str:
    """The set-attack Dung AF (X, R) in ICCMA 2023 format (``p af n`` + ``i j`` lines, 1-based).

    Parameters
    ----------
    framework : QBAF or SetAttacks
        A bipolar framework (its set-attack relation is computed) or a precomputed relation.
    comments : bool
        Add ``# <number> <id>`` lines mapping numbers to argument ids (ids JSON-quoted, so an id
        with a newline cannot break the format).

    Returns
    -------
    str
        The file content; attacks sorted by (attacker, target).
    """
    from argfaith.qbaf.bipolar import _as_set_attacks

    sa = _as_set_attacks(framework)
    n = sa.n_arguments
    lines = [f"p af {n}"]
    if comments:
        lines.extend(f"# {i + 1} {json.dumps(a, ensure_ascii=False)}" for i, a in enumerate(sa.ids))
    pairs = sa.index_pairs()
    if pairs.shape[0]:
        pairs = pairs[(pairs[:, 0] * max(n, 1) + pairs[:, 1]).argsort(kind="stable")] + 1
        lines.extend(f"{i} {j}" for i, j in pairs.tolist())
    return "\n".join(lines) + "\n"


def write_iccma(framework: QBAF | SetAttacks, path: str | Path, *, comments: bool = False) -> None:
    """Write :func:`to_iccma` to ``path`` (UTF-8)."""
    Path(path).write_text(to_iccma(framework, comments=comments), encoding="utf-8")


def parse_iccma(text: str, *, source: str = "<string>") -> tuple[int, list[tuple[int, int]]]:
    """Read an ICCMA 2023 AF: returns ``(n, attacks)`` with 1-based ``(i, j)`` pairs.

    Errors (:class:`QBAFFormatError`) name ``source`` and the line: a missing or malformed
    ``p af n`` header, a line that is not two integers, an argument number outside 1..n.
    """
    n: int | None = None
    attacks: list[tuple[int, int]] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if n is None:
            if len(parts) != 3 or parts[0] != "p" or parts[1] != "af" or not parts[2].isdigit():
                raise QBAFFormatError(f"{source}:{lineno}: expected the header 'p af <n>', got {line!r}")
            n = int(parts[2])
            continue
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise QBAFFormatError(f"{source}:{lineno}: expected an attack '<i> <j>', got {line!r}")
        i, j = int(parts[0]), int(parts[1])
        for v in (i, j):
            if not 1 <= v <= n:
                raise QBAFFormatError(f"{source}:{lineno}: argument {v} outside 1..{n}")
        attacks.append((i, j))
    if n is None:
        raise QBAFFormatError(f"{source}: no 'p af <n>' header")
    return n, attacks


def read_iccma(path: str | Path) -> tuple[int, list[tuple[int, int]]]:
    """:func:`parse_iccma` of a file; errors name the file and line."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise QBAFFormatError(f"{p}: no such file") from None
    except UnicodeDecodeError as e:
        line = e.object[: e.start].count(b"\n") + 1
        raise QBAFFormatError(f"{p}, line {line}: not UTF-8 text ({e.reason} at byte {e.start})") from None
    return parse_iccma(text, source=str(p))


def dot_escape(text: str) -> str:
    """Escape ``text`` for a double-quoted DOT string used as a label.

    Backslashes are doubled (Graphviz would otherwise expand ``\\N``, ``\\G``, ``\\l`` ...),
    quotes are backslash-escaped, and line breaks become the label escape ``\\n``.
    """
    return (
        text.replace("\\", "\\\\")
        .replace('"', '\\"')
        .replace("\r\n", "\n")
        .replace("\r", "\n")
        .replace("\n", "\\n")
    )


def _shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


def to_dot(qbaf: QBAF, *, text_width: int = 60, name: str | None = None) -> str:
    """The QBAF as a Graphviz DOT digraph.

    Parameters
    ----------
    qbaf : QBAF
    text_width : int
        Argument text is shown under the id, whitespace-collapsed and cut to this many characters
        (0 = ids only).
    name : str, optional
        Graph label; default the framework's name.

    Returns
    -------
    str
        ``digraph`` source: proposals as boxes, speech arguments as ellipses, attacks red/solid
        with a "tee" head, supports green/dashed; node tooltips carry τ.
    """
    title = name if name is not None else qbaf.name
    out = ["digraph qbaf {", '  graph [rankdir="BT"];']
    if title:
        out.append(f'  label="{dot_escape(title)}";')
    out.append('  node [fontname="Helvetica", fontsize=10];')
    for a in qbaf.arguments:
        label = a.id
        if text_width > 0 and a.text:
            label += "\n" + _shorten(a.text, text_width)
        shape = "box" if a.is_proposal else "ellipse"
        out.append(
            f'  "{dot_escape(a.id)}" [label="{dot_escape(label)}", shape={shape}, '
            f'tooltip="{dot_escape(f"{a.kind}, τ = {a.base_score:g}")}"];'
        )
    for s, t in qbaf.attacks:
        out.append(f'  "{dot_escape(s)}" -> "{dot_escape(t)}" [color="#c0392b", style=solid, arrowhead=tee];')
    for s, t in qbaf.supports:
        out.append(f'  "{dot_escape(s)}" -> "{dot_escape(t)}" [color="#27ae60", style=dashed, arrowhead=normal];')
    out.append("}")
    return "\n".join(out) + "\n"
