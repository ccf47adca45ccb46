"""Plots of a study (matplotlib, Agg canvas: no display, no global pyplot state).

- ``metrics_by_variant``: per metric, the distribution over debates of each summary variant
  (box + the individual debates as points);
- ``tau_sensitivity``: Table 6 — mean π_bc and π_εa per variant at each τ;
- ``strength_shift``: Table 4 — every proposal's σ in the debate (x) against σ* in the summary
  (y), one colour per variant; points off the diagonal moved, points across the 0.5 lines changed
  side (a π_bc failure).

Each is written as PNG and SVG (SVG without a timestamp, so reruns are byte-identical).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from argfaith.study.rows import tau_label
from argfaith.study.store import atomic_write_bytes

if TYPE_CHECKING:
    from argfaith.study.outputs import CollectedRows

__all__ = ["write_plots", "PLOT_NAMES"]

PLOT_NAMES = ("metrics_by_variant", "tau_sensitivity", "strength_shift")


def _figure(w: float, h: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Any, base: Path) -> Path:
    import matplotlib

    png = base.with_suffix(".png")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})
    atomic_write_bytes(png, buf.getvalue())
    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "argfaith", "svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    atomic_write_bytes(base.with_suffix(".svg"), buf.getvalue())
    return png


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _metrics_plot(rows: Sequence[Mapping[str, Any]], primary: float) -> Any:
    lab = tau_label(primary)
    ok = [r for r in rows if r.get("status") == "ok"]
    variants = sorted({str(r["variant"]) for r in ok})
    metrics = [("pi_ar", "π_ar"), ("mean_pi_pcr", "mean π_pcr"), (f"pi_dpc@{lab}", f"π_dpc (τ={lab})"),
               (f"pi_bc@{lab}", f"π_bc (τ={lab})"), (f"pi_ea@{lab}", f"π_εa (τ={lab})"), ("rouge2_f", "ROUGE-2 F"),
               ("bertscore_f1", "BERTScore F1"), ("nli", "NLI")]
    metrics = [(k, t) for k, t in metrics if any(_num(r.get(k)) is not None for r in ok)] or metrics[:5]
    ncol = 2
    nrow = (len(metrics) + ncol - 1) // ncol
    fig = _figure(11, 2.4 * nrow + 0.6)
    axes = fig.subplots(nrow, ncol, squeeze=False)
    for ax in axes.flat[len(metrics):]:
        ax.set_visible(False)
    for ax, (key, title) in zip(axes.flat, metrics):
        data = [[x for x in (_num(r.get(key)) for r in ok if r["variant"] == v) if x is not None] for v in variants]
        pos = list(range(1, len(variants) + 1))
        nonempty = [(p, d) for p, d in zip(pos, data) if d]
        if nonempty:
            ax.boxplot([d for _, d in nonempty], positions=[p for p, _ in nonempty], widths=0.5, showfliers=False,
                       medianprops={"color": "#c0392b"})
        for p, d in zip(pos, data):
            jitter = [p + 0.12 * ((i % 5) - 2) / 2 for i in range(len(d))]
            ax.scatter(jitter, d, s=12, color="#2c3e50", alpha=0.7, zorder=3)
        ax.set_title(title, fontsize=10)
        ax.set_xticks(pos)
        ax.set_xticklabels(variants, rotation=20, ha="right", fontsize=7)
        ax.set_ylim(-0.05, 1.05)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle(f"Metric distributions per summary variant ({len(ok)} summaries)", fontsize=11)
    return fig


def _tau_plot(sens: Sequence[Mapping[str, Any]], taus: Sequence[float]) -> Any:
    fig = _figure(10, 3.6)
    axes = fig.subplots(1, 3, squeeze=False)[0]
    variants = sorted({str(s["variant"]) for s in sens})
    for ax, (key, title) in zip(axes, (("pi_bc", "π_bc"), ("pi_ea", "π_εa"), ("pi_dpc", "π_dpc"))):
        for v in variants:
            ys = []
            for t in taus:
                vals = [_num(s.get(key)) for s in sens if s["variant"] == v and abs(float(s["tau"]) - t) < 1e-12]
                vals = [x for x in vals if x is not None]
                ys.append(sum(vals) / len(vals) if vals else float("nan"))
            ax.plot(list(taus), ys, marker="o", label=v)
        ax.set_title(f"mean {title} vs τ", fontsize=10)
        ax.set_xlabel("speech base score τ")
        ax.set_xticks(list(taus))
        ax.set_ylim(-0.05, 1.05)
        ax.grid(alpha=0.3)
    axes[-1].legend(fontsize=7, loc="lower right")
    return fig


def _shift_plot(strengths: Sequence[Mapping[str, Any]], primary: float) -> Any:
    fig = _figure(6.4, 6)
    ax = fig.subplots()
    variants = sorted({str(s["variant"]) for s in strengths})
    for v in variants:
        pts = [(_num(s.get("sigma")), _num(s.get("sigma_star"))) for s in strengths if s["variant"] == v]
        pts = [(x, y) for x, y in pts if x is not None and y is not None]
        ax.scatter([x for x, _ in pts], [y for _, y in pts], s=14, alpha=0.6, label=f"{v} ({len(pts)})")
    ax.plot([0, 1], [0, 1], color="#888", lw=1)
    ax.axhline(0.5, color="#bbb", lw=0.8, ls="--")
    ax.axvline(0.5, color="#bbb", lw=0.8, ls="--")
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("σ(x) in the debate QBAF Q")
    ax.set_ylabel("σ*(x) in the summary QBAF Q*")
    ax.set_title(f"Proposal strengths, debate vs summary (τ={tau_label(primary)})", fontsize=10)
    ax.legend(fontsize=7, loc="upper left")
    return fig


def write_plots(folder: Path, collected: CollectedRows, taus: Sequence[float], primary: float) -> dict[str, Path]:
    """Write the plots of :data:`PLOT_NAMES` (PNG + SVG) into ``folder``; returns {name: PNG path}.
    Plots without data (e.g. no evaluated summary) are not written."""
    out: dict[str, Path] = {}
    if not any(r.get("status") == "ok" for r in collected.rows):
        return out
    figs = {
        "metrics_by_variant": _metrics_plot(collected.rows, primary),
        "tau_sensitivity": _tau_plot(collected.sensitivity, taus) if collected.sensitivity else None,
        "strength_shift": _shift_plot(collected.strengths, primary) if collected.strengths else None,
    }
    for name, fig in figs.items():
        if fig is not None:
            out[name] = _save(fig, folder / name)
    return out
