"""A layered drawing of a QBAF for the HTML report, computed in Python (no JS, no Graphviz).

Layering (a simple Sugiyama-style scheme that also works on cyclic summary QBAFs):

* layer 0 holds the proposal arguments;
* a speech argument's layer is 1 + its shortest edge distance to any proposal (breadth-first
  search backwards from the proposals), so direct attackers/supporters sit in layer 1;
* arguments with no path to a proposal go to a last "unconnected" layer;
* long layers wrap onto several rows of at most ``max_per_row`` nodes;
* within a layer nodes are ordered by the barycentre of the x positions of their targets in the
  layers above (one downward sweep), ties by framework order — which keeps each proposal's
  argument tree roughly under it.

The result is plain data (:class:`GraphLayout`); the Jinja template turns it into SVG.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["NodeBox", "EdgePath", "GraphLayout", "layout_qbaf_dict", "sigma_fill", "text_fill", "contrast_ratio"]


@dataclass(frozen=True)
class NodeBox:
    id: str
    kind: str  # "proposal" | "speech"
    x: float
    y: float
    r: float  # radius (speech) or half height (proposal)
    w: float  # half width (proposal boxes)
    label: str
    title: str  # hover text (escaped by the template)
    sigma: float | None
    fill: str
    unconnected: bool
    ink: str = "#000000"  # label colour: the one of dark / white with more contrast on ``fill``


@dataclass(frozen=True)
class EdgePath:
    source: str
    target: str
    relation: str  # "attack" | "support"
    d: str  # SVG path data (numbers only)


@dataclass(frozen=True)
class GraphLayout:
    width: float
    height: float
    nodes: tuple[NodeBox, ...]
    edges: tuple[EdgePath, ...]
    n_layers: int


def sigma_fill(sigma: float | None) -> str:
    """White (σ = 0) to a saturated blue (σ = 1); grey when unknown."""
    if sigma is None:
        return "#dddddd"
    s = min(1.0, max(0.0, sigma))
    r = round(255 - s * (255 - 33))
    g = round(255 - s * (255 - 102))
    b = round(255 - s * (255 - 172))
    return f"#{r:02x}{g:02x}{b:02x}"


def _luminance(hex_colour: str) -> float:
    """WCAG 2 relative luminance of ``#rrggbb``."""
    def ch(x: int) -> float:
        c = x / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i: i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b)


def contrast_ratio(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two ``#rrggbb`` colours (1 to 21; text needs ≥ 4.5)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_fill(fill: str) -> str:
    """The label colour for a node filled with ``fill``: near-black or white, whichever contrasts
    more (every σ colour of :func:`sigma_fill` then reaches WCAG AA, ≥ 4.5:1)."""
    dark, light = "#000000", "#ffffff"  # with pure black every fill reaches 4.5:1 with one of the two
    return dark if contrast_ratio(fill, dark) >= contrast_ratio(fill, light) else light


def _short(text: str, n: int) -> str:
    t = " ".join(text.split())
    return t if len(t) <= n else t[: n - 1] + "…"


def layout_qbaf_dict(
    qbaf: Mapping[str, Any],
    strengths: Mapping[str, float] | None = None,
    *,
    max_per_row: int = 18,
    dx: float = 46.0,
    dy: float = 78.0,
    margin: float = 28.0,
    labels: Mapping[str, str] | None = None,
    titles: Mapping[str, str] | None = None,
    label_chars: int = 7,
) -> GraphLayout:
    """Lay out a QBAF given in argfaith's JSON interchange format (``qbaf_to_dict``).

    ``labels`` (short text drawn on a node, default its id, cut to ``label_chars`` characters)
    and ``titles`` (hover text, default id, speaker, τ, σ and text) override per argument. Speech
    arguments whose label is longer than a circle holds are drawn as pills (``w`` > ``r``)."""
    args = list(qbaf.get("arguments", []))
    ids = [a["id"] for a in args]
    kind = {a["id"]: a.get("kind", "speech") for a in args}
    order = {a: i for i, a in enumerate(ids)}
    edges = [(s, t, "attack") for s, t in qbaf.get("attacks", [])] + [(s, t, "support") for s, t in qbaf.get("supports", [])]
    out_adj: dict[str, list[str]] = {a: [] for a in ids}
    in_adj: dict[str, list[str]] = {a: [] for a in ids}
    for s, t, _ in edges:
        out_adj[s].append(t)
        in_adj[t].append(s)
    # Shortest distance to a proposal, by BFS backwards from all proposals at once.
    dist: dict[str, int] = {a: 0 for a in ids if kind[a] == "proposal"}
    queue = deque(a for a in ids if kind[a] == "proposal")
    while queue:
        v = queue.popleft()
        for u in in_adj[v]:
            if u not in dist:
                dist[u] = dist[v] + 1
                queue.append(u)
    max_d = max(dist.values(), default=0)
    unconnected = [a for a in ids if a not in dist]
    layers: list[list[str]] = [[] for _ in range(max_d + 1)]
    for a in ids:
        if a in dist:
            layers[dist[a]].append(a)
    if unconnected:
        layers.append(unconnected)
    # Barycentre ordering, one downward sweep.
    xpos: dict[str, float] = {}
    rows: list[list[str]] = []
    row_layer: list[int] = []
    for li, layer in enumerate(layers):
        if li > 0:
            def bary(a: str) -> tuple[float, int]:
                xs = [xpos[t] for t in out_adj[a] if t in xpos]
                return (sum(xs) / len(xs) if xs else float("inf"), order[a])

            layer = sorted(layer, key=bary)
        for k in range(0, max(len(layer), 1), max_per_row):
            chunk = layer[k : k + max_per_row]
            if not chunk:
                continue
            rows.append(chunk)
            row_layer.append(li)
            for j, a in enumerate(chunk):
                xpos[a] = j - (len(chunk) - 1) / 2.0
    shown_label = {a: _short((labels or {}).get(a, a), label_chars) for a in ids}
    # Long labels (a summary sentence's first words) need wider slots than initials + a number.
    slot = max(dx, max((5.6 * len(shown_label[a]) + 14 for a in ids if kind[a] != "proposal"), default=dx))
    dx = slot
    widest = max((len(r) for r in rows), default=1)
    prop_w = 30.0
    width = max(widest * dx, 160.0) + 2 * margin + prop_w
    height = max(len(rows), 1) * dy + 2 * margin
    cx = width / 2
    pos: dict[str, tuple[float, float]] = {}
    for ri, row in enumerate(rows):
        y = margin + 20 + ri * dy
        for a in row:
            pos[a] = (cx + xpos[a] * dx, y)
    sig = strengths or {}
    by_id = {a["id"]: a for a in args}
    nodes = []
    for a in ids:
        x, y = pos[a]
        info = by_id[a]
        s = sig.get(a)
        parts = [f"{a} ({kind[a]})"]
        if info.get("speaker"):
            parts.append(f"speaker: {info['speaker']}")
        bs = info.get("base_score")
        parts.append(f"τ = {bs:.3g}" if isinstance(bs, (int, float)) else "τ = ?")
        if s is not None:
            parts.append(f"σ = {s:.3f}")
        if info.get("text"):
            parts.append(_short(str(info["text"]), 400))
        is_prop = kind[a] == "proposal"
        lab = shown_label[a]
        half = 11.0 if is_prop or len(lab) <= 5 else 5.6 * len(lab) / 2 + 6
        fill = sigma_fill(s)
        nodes.append(
            NodeBox(
                id=a,
                kind=kind[a],
                x=round(x, 2),
                y=round(y, 2),
                r=13.0 if is_prop else 11.0,
                w=prop_w / 2 + 6 if is_prop else half,
                label=lab,
                title=(titles or {}).get(a) or "\n".join(parts),
                sigma=s,
                fill=fill,
                unconnected=a in unconnected,
                ink=text_fill(fill),
            )
        )
    paths = []
    for s, t, rel in edges:
        (x1, y1), (x2, y2) = pos[s], pos[t]
        if s == t:  # self-loop: a small arc to the right
            d = f"M{x1 + 9:.1f},{y1 - 6:.1f} C{x1 + 40:.1f},{y1 - 30:.1f} {x1 + 40:.1f},{y1 + 30:.1f} {x1 + 9:.1f},{y1 + 6:.1f}"
        else:
            # Shorten the segment so the arrow head ends at the node border.
            vx, vy = x2 - x1, y2 - y1
            ln = max((vx * vx + vy * vy) ** 0.5, 1e-9)
            r_t = 15.0 if kind[t] == "proposal" else 12.0
            sx, sy = x1 + vx / ln * 11.0, y1 + vy / ln * 11.0
            ex, ey = x2 - vx / ln * r_t, y2 - vy / ln * r_t
            # Curve edges that stay in one row or go downwards (cycles) so they do not overlap.
            bend = 0.0 if y2 < y1 - 1 else 0.35
            mx, my = (sx + ex) / 2 - (ey - sy) * bend, (sy + ey) / 2 + (ex - sx) * bend
            d = f"M{sx:.1f},{sy:.1f} Q{mx:.1f},{my:.1f} {ex:.1f},{ey:.1f}"
        paths.append(EdgePath(s, t, rel, d))
    return GraphLayout(round(width, 1), round(height, 1), tuple(nodes), tuple(paths), len(layers))
