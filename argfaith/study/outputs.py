"""The study's combined outputs, rebuilt from the per-item row files after every run.

- ``table.csv`` / ``table.json``: one row per summary file (:mod:`argfaith.study.rows`), every
  summary of the corpus included — skipped and failed ones with their reason;
- ``table3.md``: per debate, the paper's Table 3 layout (Q and each summary variant as columns);
- ``variants.md``: the same metrics averaged per summary variant over the debates;
- ``table4.csv`` / ``table4.md``: proposal strengths that moved most, σ in Q vs σ* in Q*;
- ``sensitivity.csv`` / ``sensitivity.md``: Table 6, π_dpc / π_bc / π_εa at every τ;
- ``semantics.csv`` / ``semantics.md`` (with several ``--semantics``): the semantics sweep —
  π_bc / π_εa under each gradual semantics and the provisions that change side;
- ``index.html``: one offline page linking every per-summary report (escaped, no script, no
  fetch: the same Content-Security-Policy as the reports), with the plots embedded;
- ``plots/``: metric distributions per variant (:mod:`argfaith.study.plots`).

With error bars (``--draws``) the per-summary views (``table3.md``, the index's table) show each
metric as ``value [low, high]``; the means per variant and per τ stay point values (a mean of
intervals is not an interval of the mean).
"""

from __future__ import annotations

import base64
import html
import statistics
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from argfaith.study.config import SLOW_DRAWS
from argfaith.study.rows import (
    MOVE_COLUMNS,
    interval_columns,
    SEMANTICS_COLUMNS,
    SENSITIVITY_COLUMNS,
    markdown_table,
    row_columns,
    rows_to_csv,
    skipped_row,
    tau_label,
)
from argfaith.study.store import Manifest, StudyPaths, atomic_write_json, atomic_write_text, read_json_file

if TYPE_CHECKING:
    from argfaith.study.runner import ItemOutcome, PreparedStudy

__all__ = ["CollectedRows", "collect_rows", "write_outputs", "variant_means", "INDEX_CSP"]

#: Nothing may be fetched and no script may run in the index (same policy as the reports).
INDEX_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"

_STATUS_ORDER = {"ok": 0, "skipped": 1, "failed": 2, "error": 3, "missing": 4}


@dataclass
class CollectedRows:
    """Rows of every summary file plus the Table-4 / Table-6 rows and proposal strengths of the
    evaluated ones."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    moves: list[dict[str, Any]] = field(default_factory=list)
    sensitivity: list[dict[str, Any]] = field(default_factory=list)
    semantics: list[dict[str, Any]] = field(default_factory=list)
    strengths: list[dict[str, Any]] = field(default_factory=list)  # {debate, variant, proposal, sigma, sigma_star}
    sources: dict[str, dict[str, Any]] = field(default_factory=dict)


def collect_rows(prep: PreparedStudy, failed_now: Mapping[str, ItemOutcome]) -> CollectedRows:
    """Read every item's row file (only if it carries the item's current key)."""
    cfg = prep.config
    paths = StudyPaths(cfg.out)
    out = CollectedRows()
    for d in prep.corpus.debates:
        src = read_json_file(paths.source_report(d.debate_id))
        if isinstance(src, dict):
            out.sources[d.debate_id] = src
        for sf in d.summaries:
            saved = read_json_file(paths.row(d.debate_id, sf.variant))
            key = prep.item_keys.get(sf.item_id)
            if isinstance(saved, dict) and saved.get("key") == key and saved.get("status") in ("ok", "skipped"):
                out.rows.append(saved["row"])
                out.moves.extend(saved.get("moves") or [])
                out.sensitivity.extend(saved.get("sensitivity") or [])
                out.semantics.extend(saved.get("semantics") or [])
                st = saved.get("strengths") or {}
                for pid, sig in (st.get("source") or {}).items():
                    out.strengths.append({"debate": sf.debate_id, "variant": sf.variant, "proposal": pid, "sigma": sig,
                                          "sigma_star": (st.get("summary") or {}).get(pid)})
            elif sf.item_id in failed_now:
                out.rows.append(skipped_row(sf, cfg.taus, "failed", failed_now[sf.item_id].note or "failed"))
            else:
                out.rows.append(skipped_row(sf, cfg.taus, "missing", "not evaluated (interrupted run?)"))
    for sf in prep.corpus.orphans:
        where = prep.corpus.debates_root
        out.rows.append(skipped_row(sf, cfg.taus, "skipped", f"no debate folder {sf.debate_id} in {where}"))
    for sf in prep.corpus.unreadable:
        out.rows.append(skipped_row(sf, cfg.taus, "error", sf.error or "unreadable"))
    out.rows.sort(key=lambda r: (str(r["debate"]), str(r["variant"])))
    _fill_wrong_debate(out.rows, prep, paths)
    return out


def _fill_wrong_debate(rows: list[dict[str, Any]], prep: PreparedStudy, paths: StudyPaths) -> None:
    """The wrong-debate baseline of each evaluated row, from ``argfaith selftest``'s control of its
    debate (``OUT/selftest/controls/<debate>.json``) when that control was computed with the same
    classifier, τ = the study's primary τ and the same ε; otherwise the columns stay empty."""
    cfg = prep.config
    cache: dict[str, Any] = {}
    for r in rows:
        if r.get("status") != "ok":
            continue
        did = str(r["debate"])
        if did not in cache:
            ctrl = read_json_file(paths.out / "selftest" / "controls" / f"{did}.json")
            ok = (isinstance(ctrl, dict) and isinstance(ctrl.get("wrong_debate"), dict)
                  and ctrl.get("classifier_fingerprint") == prep.fingerprint
                  and ctrl.get("tau") == cfg.primary_tau and ctrl.get("epsilon") == cfg.epsilon)
            cache[did] = ctrl["wrong_debate"] if ok else None  # type: ignore[index]
        w = cache[did]
        if w is not None:
            r.update(wrong_pi_dpc=w.get("pi_dpc"), wrong_pi_bc=w.get("pi_bc"), wrong_pi_ea=w.get("pi_ea"), wrong_from=w.get("from_debate"))


def _mean(values: Sequence[float | None]) -> float | None:
    vals = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    return statistics.fmean(vals) if vals else None


def variant_means(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> list[dict[str, Any]]:
    """Mean of ``columns`` per summary variant over the evaluated rows (status ``ok``), with ``n``
    the number of debates contributing; undefined values are left out of each mean."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for r in rows:
        if r.get("status") == "ok":
            groups.setdefault(str(r["variant"]), []).append(r)
    out = []
    for v in sorted(groups):
        g = groups[v]
        out.append({"variant": v, "n": len(g), **{c: _mean([r.get(c) for r in g]) for c in columns}})
    return out


# ---------------------------------------------------------------------------- markdown views
def _flagged(value: Any, empty: Any, text: str | None = None) -> Any:
    """A metric value (or its ``text``), marked in words when it is not better than the empty summary's."""
    from argfaith.metrics.baselines import beats

    if beats(value, empty) is False:
        return f"{text if text is not None else _fmt(value)} (not better than the empty summary)"
    return text if text is not None else value


def _with_interval(row: Mapping[str, Any], key: str) -> str | None:
    """``value [low, high]`` when the row has error bars for ``key`` (issue 23), else None."""
    lo, hi = (row.get(c) for c in interval_columns(key))
    if not isinstance(lo, (int, float)) or not isinstance(hi, (int, float)):
        return None
    return f"{_fmt(row.get(key))} [{lo:.2f}, {hi:.2f}]"


def _interval_note(rows: Sequence[Mapping[str, Any]]) -> str:
    """What ``[low, high]`` means, when some row has error bars ("" otherwise)."""
    from argfaith.metrics.evaluate import INTERVAL_COVERS

    draws = sorted({r["draws"] for r in rows if r.get("status") == "ok" and r.get("draws")})
    if not draws:
        return ""
    slow = f" (π_dpc, π_ar and π_pcr over the first {SLOW_DRAWS})" if max(draws) > SLOW_DRAWS else ""
    return (f"value [low, high]: the value of the mined relations and the central 90% interval over "
            f"{', '.join(map(str, draws))} labellings sampled from the relation classifier's probabilities{slow}; "
            f"the intervals cover {INTERVAL_COVERS}.")


def _table3_md(collected: CollectedRows, primary: float, taus: Sequence[float]) -> str:
    lab = tau_label(primary)
    pairwise = {f"pi_dpc@{lab}", f"pi_bc@{lab}", f"pi_ea@{lab}"}
    metrics = [
        ("R-1 F", "rouge1_f", None), ("R-2 F", "rouge2_f", None), ("R-L F", "rougeL_f", None),
        ("BERTScore F1", "bertscore_f1", None), ("NLI", "nli", None),
        ("π_ar", "pi_ar", "source_pi_ar"), ("mean π_pcr", "mean_pi_pcr", "source_mean_pi_pcr"),
        (f"π_dpc (τ={lab})", f"pi_dpc@{lab}", None), ("↳ the empty summary", f"empty_pi_dpc@{lab}", None),
        ("↳ a summary of another debate", "wrong_pi_dpc", None),
        (f"π_bc (τ={lab})", f"pi_bc@{lab}", None), ("↳ the empty summary", f"empty_pi_bc@{lab}", None),
        ("↳ a summary of another debate", "wrong_pi_bc", None),
        (f"π_εa (τ={lab})", f"pi_ea@{lab}", None), ("↳ the empty summary", f"empty_pi_ea@{lab}", None),
        ("↳ a summary of another debate", "wrong_pi_ea", None),
        ("|X_s|", "summary_n_speech", "source_n_speech"), ("attacks", "summary_n_attacks", "source_n_attacks"),
        ("supports", "summary_n_supports", "source_n_supports"),
    ]
    by_debate: dict[str, list[Mapping[str, Any]]] = {}
    for r in collected.rows:
        if r.get("status") == "ok":
            by_debate.setdefault(str(r["debate"]), []).append(r)
    parts = [f"# Table 3 per debate (τ = {lab} for the σ-based metrics)\n",
             "Q = the debate's QBAF; one column per summary variant. n/a = undefined or not computed. Each pairwise metric "
             "is followed by the value of the empty summary (no argument at all) and, when `argfaith selftest` ran with the "
             "same classifier and τ, of a summary of another debate; a summary that does not beat the empty summary is "
             "marked in words.\n"]
    if note := _interval_note(collected.rows):
        parts.append(f"\n{note}\n")
    for did, rs in sorted(by_debate.items()):
        rs = sorted(rs, key=lambda r: str(r["variant"]))
        cols = ["metric", "Q", *[str(r["variant"]) for r in rs]]
        table_rows = []
        for name, key, src_key in metrics:
            if key.startswith("wrong_") and all(r.get(key) is None for r in rs):
                continue
            q = None
            if src_key:
                q = _with_interval(rs[0], src_key)
                q = rs[0].get(src_key) if q is None else q
            row: dict[str, Any] = {"metric": name, "Q": q}
            for r in rs:
                v = r.get(key)
                text = _with_interval(r, key)
                row[str(r["variant"])] = _flagged(v, r.get(f"empty_{key}"), text) if key in pairwise else (v if text is None else text)
            table_rows.append(row)
        units = rs[0].get("units")
        parts.append(f"\n## {did}\n\nsource units: {units}; proposals: {rs[0].get('source_n_proposals')}\n\n")
        if rs[0].get("debate_note"):
            parts.append(f"Warnings about the debate's QBAF (all its summaries): {rs[0]['debate_note']}\n\n")
        parts.append(markdown_table(table_rows, cols))
    return "".join(parts)


def _variants_md(rows: Sequence[Mapping[str, Any]], primary: float, taus: Sequence[float]) -> str:
    lab = tau_label(primary)
    cols = ["rouge2_f", "bertscore_f1", "nli", "pi_ar", "mean_pi_pcr", f"pi_dpc@{lab}", f"pi_bc@{lab}", f"pi_ea@{lab}",
            "summary_n_speech", "source_mean_pi_pcr"]
    heads = ["variant", "n", "R-2 F", "BERTScore F1", "NLI", "π_ar", "mean π_pcr", "π_dpc", "π_bc", "π_εa", "|X_s*|", "Q mean π_pcr"]
    means = variant_means(rows, cols)
    ivs = ("Means of the values of the mined relations; the per-summary intervals of the error bars are in table3.md.\n\n"
           if _interval_note(rows) else "")
    return (f"# Means per summary variant over debates (τ = {lab})\n\n" + ivs
            + markdown_table(means, ["variant", "n", *cols], heads))


def _table4_md(moves: Sequence[Mapping[str, Any]], limit: int = 25) -> str:
    top = sorted(moves, key=lambda m: -abs(m.get("difference") or 0.0))[:limit]
    rows = []
    for m in top:
        t = m.get("text") or ""
        rows.append({**m, "text": t if len(t) <= 90 else t[:89] + "…"})
    cols = ["debate", "variant", "proposal", "sigma_source", "sigma_summary", "difference", "balance_consistent", "text"]
    heads = ["debate", "variant", "proposal", "σ (Q)", "σ* (Q*)", "σ* − σ", "same side of 0.5", "provision"]
    return ("# Table 4 view: proposal strengths that moved most (σ in the debate vs σ* in the summary)\n\n"
            + markdown_table(rows, cols, heads, digits=3))


def _sensitivity_md(sens: Sequence[Mapping[str, Any]], taus: Sequence[float]) -> str:
    groups: dict[tuple[str, float], list[Mapping[str, Any]]] = {}
    for s in sens:
        groups.setdefault((str(s["variant"]), float(s["tau"])), []).append(s)
    variants = sorted({v for v, _ in groups})
    rows = []
    for v in variants:
        row: dict[str, Any] = {"variant": v}
        for t in taus:
            g = groups.get((v, float(t)), [])
            for m in ("pi_dpc", "pi_bc", "pi_ea"):
                row[f"{m}@{tau_label(t)}"] = _mean([x.get(m) for x in g])
        rows.append(row)
    cols = ["variant", *[f"{m}@{tau_label(t)}" for m in ("pi_bc", "pi_ea", "pi_dpc") for t in taus]]
    heads = ["variant", *[f"{sym} τ={tau_label(t)}" for sym in ("π_bc", "π_εa", "π_dpc") for t in taus]]
    return ("# Table 6 view: sensitivity to the speech base score τ (means over debates)\n\n"
            + markdown_table(rows, cols, heads))


def _semantics_md(rows: Sequence[Mapping[str, Any]], tau: float, order: Sequence[str]) -> str:
    """The semantics sweep at the primary τ: per semantics, mean π_bc / π_εa over the evaluated
    summaries, and how many provisions change side relative to the first semantics — in the
    debates' QBAFs Q (each debate's provisions counted once) and in the summaries' Q*."""
    at = [r for r in rows if r.get("tau") is not None and abs(float(r["tau"]) - tau) < 1e-12]
    first = order[0] if order else ""
    table = []
    for sem in order:
        g = [r for r in at if r["semantics"] == sem]
        ok = [r for r in g if not r.get("skipped")]
        src_changes = {(r["debate"], p) for r in ok for p in (r.get("source_side_changes") or "").split()}
        src_total = {r["debate"] for r in ok}
        table.append({
            "semantics": sem, "evaluated": len(ok), "skipped": len(g) - len(ok),
            "pi_bc": _mean([r.get("pi_bc") for r in ok]), "pi_ea": _mean([r.get("pi_ea") for r in ok]),
            "source_changes": len(src_changes), "debates": len(src_total),
            "summary_changes": sum(r.get("n_summary_side_changes") or 0 for r in ok),
            "verdict_changes": sum(r.get("n_bc_verdict_changes") or 0 for r in ok),
        })
    cols = ["semantics", "evaluated", "skipped", "pi_bc", "pi_ea", "source_changes", "summary_changes", "verdict_changes"]
    heads = ["semantics", "summaries evaluated", "skipped (outside the domain)", "mean π_bc", "mean π_εa",
             f"provisions of Q changing side vs {first}", f"proposals of Q* changing side vs {first}",
             f"π_bc verdicts changing vs {first}"]
    per_variant: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for r in at:
        if not r.get("skipped"):
            per_variant.setdefault((str(r["variant"]), r["semantics"]), []).append(r)
    variants = sorted({v for v, _ in per_variant})
    vrows = []
    for v in variants:
        row: dict[str, Any] = {"variant": v}
        for sem in order:
            g = per_variant.get((v, sem), [])
            row[f"bc@{sem}"] = _mean([x.get("pi_bc") for x in g])
            row[f"ea@{sem}"] = _mean([x.get("pi_ea") for x in g])
        vrows.append(row)
    vcols = ["variant", *[f"bc@{s}" for s in order], *[f"ea@{s}" for s in order]]
    vheads = ["variant", *[f"π_bc {s}" for s in order], *[f"π_εa {s}" for s in order]]
    skipped = sorted({(r["semantics"], r["skipped"]) for r in at if r.get("skipped")})
    notes = "".join(f"- {sem}: skipped where {why}\n" for sem, why in skipped)
    return (f"# Semantics sweep at τ = {tau_label(tau)}: do the findings survive another gradual semantics?\n\n"
            + markdown_table(table, cols, heads)
            + "\nπ_dpc does not depend on σ (d-preferred acceptance) and is the same under every semantics.\n\n"
            + "## Means per summary variant\n\n" + markdown_table(vrows, vcols, vheads)
            + (("\n## Skipped\n\n" + notes) if notes else ""))


# ---------------------------------------------------------------------------- index.html
def _fmt(v: Any) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.2f}"
    return str(v)


def _link(rel: str) -> str:
    # Each path segment percent-encoded: a file name can never break out of the attribute.
    return "/".join(urllib.parse.quote(seg) for seg in rel.split("/"))


def _index_html(prep: PreparedStudy, collected: CollectedRows, plots: Mapping[str, Path], out: Path) -> str:
    cfg = prep.config
    lab = tau_label(cfg.primary_tau)
    e = html.escape
    cols = [("debate", "debate"), ("variant", "variant"), ("model", "model"), ("status", "status"),
            ("summary_n_speech", "|X_s*|"), ("pi_ar", "π_ar"), ("mean_pi_pcr", "mean π_pcr"),
            (f"pi_dpc@{lab}", "π_dpc"), (f"pi_bc@{lab}", "π_bc"), (f"pi_ea@{lab}", "π_εa"),
            ("rouge2_f", "R-2 F"), ("bertscore_f1", "BERTScore"), ("nli", "NLI"), ("note", "note")]
    head = "".join(f"<th>{e(h)}</th>" for _, h in cols)
    body = []
    for r in collected.rows:
        cells = []
        for k, _ in cols:
            v = r.get(k)
            if k == "variant" and r.get("report"):
                cells.append(f'<td><a href="{e(_link(str(r["report"])))}">{e(str(v))}</a></td>')
            elif k == "note":
                cells.append(f'<td class="note">{e(str(v)) if v else ""}</td>')
            elif k.startswith("pi_") and "@" in k and r.get(f"empty_{k}") is not None:
                from argfaith.metrics.baselines import beats

                flag = beats(v, r.get(f"empty_{k}")) is False
                words = f'<br><span class="flag">not better than the empty summary ({_fmt(r.get(f"empty_{k}"))})</span>' if flag else ""
                cells.append(f'<td class="num">{e(_with_interval(r, k) or _fmt(v))}{words}</td>')
            elif (text := _with_interval(r, k)) is not None:
                cells.append(f'<td class="num">{e(text)}</td>')
            else:
                cells.append(f'<td class="{"num" if isinstance(v, (int, float)) and not isinstance(v, bool) else ""}">{e(_fmt(v))}</td>')
        body.append(f'<tr class="st-{e(str(r.get("status")))}">' + "".join(cells) + "</tr>")
    moves = sorted(collected.moves, key=lambda m: -abs(m.get("difference") or 0.0))[:20]
    mrows = "".join(
        f"<tr><td>{e(str(m['debate']))}</td><td>{e(str(m['variant']))}</td><td>{e(str(m['proposal']))}</td>"
        f"<td class='num'>{_fmt(m['sigma_source'])}</td><td class='num'>{_fmt(m['sigma_summary'])}</td>"
        f"<td class='num'>{m['difference']:+.2f}</td><td>{e((m.get('text') or '')[:160])}</td></tr>"
        for m in moves
    )
    imgs = []
    for name, p in plots.items():
        if p.suffix == ".png" and p.exists():
            data = base64.b64encode(p.read_bytes()).decode()
            svg = p.with_suffix(".svg")
            link = f' (<a href="{e(_link(str(svg.relative_to(out))))}">SVG</a>)' if svg.exists() else ""
            imgs.append(f'<figure><img alt="{e(name)}" src="data:image/png;base64,{data}"><figcaption>{e(name)}{link}</figcaption></figure>')
    n_ok = sum(1 for r in collected.rows if r["status"] == "ok")
    debate_notes = {str(r["debate"]): r["debate_note"] for r in collected.rows if r.get("debate_note")}
    notes = "".join(f"<li>{e(n)}</li>" for n in (*prep.baseline_notes, *prep.corpus.notes))
    notes += "".join(f"<li><strong>{e(d)}</strong> (the debate, all its summaries): {e(n)}</li>" for d, n in sorted(debate_notes.items()))
    clf = prep.classifier.name
    ivnote = f'\n<p class="ivnote">{e(iv)}</p>' if (iv := _interval_note(collected.rows)) else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{INDEX_CSP}">
<title>argfaith case study</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }}
table {{ border-collapse: collapse; font-size: 0.85em; margin-bottom: 1.5em; }}
th, td {{ border: 1px solid #ccc; padding: 0.25em 0.5em; vertical-align: top; }}
th {{ background: #f2f2f2; }} td.num {{ text-align: right; font-variant-numeric: tabular-nums; }}
td.note {{ max-width: 28em; font-size: 0.9em; color: #555; }}
.flag {{ color: #b42318; font-size: 0.8em; font-weight: 600; }}
tr.st-skipped td, tr.st-failed td, tr.st-error td, tr.st-missing td {{ background: #fff6e5; }}
figure {{ display: inline-block; margin: 0 1em 1em 0; }} img {{ max-width: 46em; border: 1px solid #ddd; }}
</style></head><body>
<h1>argfaith case study</h1>
<p>{n_ok} of {len(collected.rows)} summary files evaluated; relation classifier <code>{e(clf)}</code>
(fingerprint {e(prep.fingerprint[:10])}); candidates <code>{e(cfg.candidates)}</code>; units <code>{e(cfg.units)}</code>;
τ = {e(", ".join(tau_label(t) for t in cfg.taus))} (tables at τ = {e(lab)}); ε = {cfg.epsilon:g};
gradual semantics {e(", ".join(cfg.semantics))}.</p>
<ul>{notes}</ul>{ivnote}
<p>Tables: <a href="table.csv">table.csv</a>, <a href="table.json">table.json</a>, <a href="table3.md">table3.md</a>,
<a href="variants.md">variants.md</a>, <a href="table4.md">table4.md</a>, <a href="sensitivity.md">sensitivity.md</a>{', <a href="semantics.md">semantics.md</a> (semantics sweep)' if collected.semantics else ''}.</p>
<h2>Summaries</h2>
<table><thead><tr>{head}</tr></thead><tbody>
{"".join(body)}
</tbody></table>
<h2>Proposal strengths that moved most (τ = {e(lab)})</h2>
<table><thead><tr><th>debate</th><th>variant</th><th>proposal</th><th>σ (Q)</th><th>σ* (Q*)</th><th>σ* − σ</th><th>provision</th></tr></thead>
<tbody>{mrows}</tbody></table>
<h2>Plots</h2>
{"".join(imgs) or "<p>(no plots)</p>"}
{_selftest_section(out)}
</body></html>
"""


def _selftest_section(out: Path) -> str:
    """The self-test's tables when ``argfaith selftest`` has run on this output folder."""
    from argfaith.study.selftest import render_selftest_html

    agg = read_json_file(out / "selftest" / "selftest.json")
    if not isinstance(agg, dict) or "kinds" not in agg:
        return '<h2>Evaluator self-test</h2><p>Not run on this folder: <code>argfaith selftest --out</code> this folder, then rerun the study (it reuses everything) to show it here.</p>'
    return render_selftest_html(agg) + '<p><a href="selftest/selftest.html">selftest/selftest.html</a>, <a href="selftest/selftest.json">selftest.json</a></p>'


# ---------------------------------------------------------------------------- all outputs
def write_outputs(prep: PreparedStudy, collected: CollectedRows, manifest: Manifest | None = None) -> dict[str, str]:
    """Write every combined output (module docstring); returns {name: path}."""
    cfg = prep.config
    out = cfg.out
    taus = cfg.taus
    cols = row_columns(taus, intervals=cfg.draws > 0)
    written: dict[str, Path] = {}

    def put(name: str, text: str) -> None:
        atomic_write_text(out / name, text)
        written[name] = out / name

    put("table.csv", rows_to_csv(collected.rows, cols))
    atomic_write_json(out / "table.json", {
        "columns": cols, "rows": collected.rows, "primary_tau": cfg.primary_tau, "taus": list(taus),
        "classifier": {"name": prep.classifier.name, "fingerprint": prep.fingerprint, "spec": cfg.classifier},
        "candidates": cfg.candidates, "units": cfg.units, "baselines": list(prep.baselines),
        "notes": list(prep.baseline_notes) + list(prep.corpus.notes),
        "sources": {k: {kk: v.get(kk) for kk in ("units", "counts", "dropped_units", "qbaf")} for k, v in collected.sources.items()},
    })
    written["table.json"] = out / "table.json"
    put("table3.md", _table3_md(collected, cfg.primary_tau, taus))
    put("variants.md", _variants_md(collected.rows, cfg.primary_tau, taus))
    put("table4.csv", rows_to_csv(collected.moves, MOVE_COLUMNS))
    put("table4.md", _table4_md(collected.moves))
    put("sensitivity.csv", rows_to_csv(collected.sensitivity, SENSITIVITY_COLUMNS))
    put("sensitivity.md", _sensitivity_md(collected.sensitivity, taus))
    if collected.semantics:
        put("semantics.csv", rows_to_csv(collected.semantics, SEMANTICS_COLUMNS))
        put("semantics.md", _semantics_md(collected.semantics, cfg.primary_tau, list(cfg.semantics)))
    plots: dict[str, Path] = {}
    if cfg.plots:
        from argfaith.study.plots import write_plots

        plots = write_plots(out / "plots", collected, taus, cfg.primary_tau)
        written.update({f"plots/{p.name}": p for p in plots.values()})
        written.update({f"plots/{p.with_suffix('.svg').name}": p.with_suffix(".svg") for p in plots.values()})
    if cfg.html:
        put("index.html", _index_html(prep, collected, plots, out))
    return {k: str(v) for k, v in written.items()}

