"""The fault matrix of the Claude path: fault × command → survived / results lost / requests re-paid.

Usage::

    python benchmarks/llm_faults.py [--before REV] [--jobs 2] [--commands mine,kpa] [--faults refusal,...]

Every Claude-using command (mine, summarize, evaluate --align llm, kpa match --matcher claude,
study, selftest) runs through its real entry point in a subprocess against the strict fake API of
:mod:`argfaith.llm.testing` (served on 127.0.0.1, deterministic answers from
:class:`~argfaith.llm.testing.ArgfaithModel`), once with a fault injected and once more without it
(the "rerun" a user would do). The code under test is this checkout ("after") and, with
``--before REV``, the code of ``REV`` exported with ``git archive`` ("before"; default: the merge
base with ``main``). Each cell records:

* the first run's outcome: ``ok`` (exit 0), ``error`` (a one-line ``error:``, exit 2),
  ``traceback`` or ``hang`` (killed after ``--timeout`` seconds);
* whether the output after the rerun equals that of a fault-free run (else: results lost);
* re-paid requests: billed generations of a request billed before (the fake counts them).

Cell codes in the tables: ``S`` survived (the first run's output is correct), ``R`` recovered by
the rerun (the first run ended with a one-line error, was killed, or finished with refusals
flagged), ``T`` recovered by the rerun after a traceback, ``H`` the first run hung, ``L`` results
lost (the output after the rerun is still wrong or missing); then ``·n``: requests re-paid. Prints both tables and
writes ``benchmarks/results/llm_faults.json``.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from argfaith.llm.testing import ArgfaithModel, Fail, FakeAnthropicAPI  # noqa: E402
from tests.cli.claude_commands import FIX, command  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "llm_faults.json"
KEY = "sk-ant-benchmark-fake"
FAST = {"retry-after-ms": "10"}  # the SDK's backoff is not what is measured here

COMMANDS = ("mine", "summarize", "evaluate", "kpa", "study", "selftest")
BATCH_COMMANDS = ("mine", "evaluate", "kpa", "study", "selftest")


def argv(name: str, tmp: Path, *, batch: bool) -> list[str]:
    """The test suite's command line for ``name``, its Claude spec polling batches every 20 ms."""
    return command(name, tmp, batch=batch, options="&poll_interval=0.02")


def _drop_volatile(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _drop_volatile(v) for k, v in x.items()
                if not re.search(r"seconds|elapsed|time|usage|cost|requests|cache|fingerprint|classifier_spec|checkpoint|details|^key$|summary_file", k)}
    if isinstance(x, list):
        return [_drop_volatile(v) for v in x]
    return x


def output(name: str, tmp: Path, stdout: str) -> Any:
    """The command's result, normalised (paths, timings, usage and request counts removed)."""
    try:
        if name == "mine":
            q = json.loads((tmp / "q.json").read_text())
            return {k: q[k] for k in ("arguments", "attacks", "supports")}
        if name == "summarize":
            return json.loads((tmp / "summary.json").read_text())["text"]
        if name == "evaluate":
            d = json.loads(stdout)
            return _drop_volatile({"alignment": d["alignment"]["pairs"], "pairwise": d["pairwise"]})
        if name == "kpa":
            return json.loads((tmp / "p.json").read_text())
        if name == "study":
            return _drop_volatile(json.loads((tmp / "study" / "table.json").read_text())["rows"])
        if name == "selftest":
            items = sorted((tmp / "selftest" / "selftest" / "items").glob("*/*.json"))
            return [_drop_volatile(json.loads(p.read_text())) for p in items] or None
    except (OSError, ValueError, KeyError, TypeError):
        return None
    raise ValueError(name)


@dataclass(frozen=True)
class Fault:
    name: str
    route: str  # "direct" | "batch"
    what: str
    setup: Callable[[FakeAnthropicAPI, ArgfaithModel, str], None]


def _markers(command: str) -> str:
    """A substring found in one (or a few) prompts of each command."""
    if command == "summarize":
        return "Transcript:"
    if command == "evaluate":
        return "Summary statement: stocking parts"
    if command == "kpa":
        import csv

        with open(FIX / "kpa" / "arguments_dev.csv", encoding="utf-8") as f:
            return "Argument: " + next(csv.DictReader(f))["argument"]
    return "[SOURCE]: Our inspectors are overworked"


def _set(attr: str, value: Any) -> Callable[[FakeAnthropicAPI, ArgfaithModel, str], None]:
    return lambda api, model, cmd: setattr(api, attr, value() if callable(value) else value)


FAULTS: tuple[Fault, ...] = (
    Fault("429", "direct", "3 × HTTP 429 rate_limit_error with retry-after", _set("failures", lambda: [Fail(429, "rate_limit_error", "slow down", FAST)] * 3)),
    Fault("529", "direct", "3 × HTTP 529 overloaded_error", _set("failures", lambda: [Fail(529, headers=FAST)] * 3)),
    Fault("timeout", "direct", "2 × no answer in time", _set("failures", lambda: [Fail(timeout=True, headers=FAST)] * 2)),
    Fault("lost answer", "direct", "an answer generated (billed), then the connection drops", _set("failures", lambda: [Fail(lost=True)])),
    Fault("refusal", "direct", "stop_reason: refusal on the prompts with a marker", lambda api, m, c: m.refuse.add(_markers(c))),
    Fault("max_tokens", "direct", "stop_reason: max_tokens (half an answer) at the first budget", lambda api, m, c: m.truncate.add(_markers(c))),
    Fault("lost batch create", "batch", "batch created, the response to POST /v1/messages/batches lost", _set("batch_create_failures", lambda: [Fail(lost=True)])),
    Fault("results cut", "batch", "the results stream drops after 1 line", _set("results_cuts", lambda: [1])),
    Fault("archived", "batch", "the first batch ends archived (results gone)", _set("batch_fates", lambda: ["archived"])),
    Fault("no results_url", "batch", "the first batch ends with results_url null", _set("batch_fates", lambda: ["no_results_url"])),
    Fault("expired", "batch", "every request of the first batch expires", _set("batch_fates", lambda: ["expired"])),
    Fault("over 8 kB", "batch", "the API's batch size limit is 8,000 bytes (413 above; it persists across the rerun)", _set("max_batch_bytes", 8_000)),
    Fault("poll errors", "batch", "every poll fails (HTTP 500) until the rerun", _set("poll_failures", lambda: [Fail(500, "api_error", "boom", FAST)] * 100_000)),
    Fault("killed", "batch", "the process is killed while its batch runs; rerun", lambda api, m, c: None),
)


def _clear(api: FakeAnthropicAPI, model: ArgfaithModel) -> None:
    api.failures, api.batch_create_failures, api.results_cuts, api.batch_fates, api.poll_failures = [], [], [], [], []
    api.batch_polls_before_end = 0  # (a batch size limit is the API's, not a passing fault: it stays)
    model.refuse, model.truncate = set(), set()


def _run(pythonpath: Path, args: list[str], env: dict[str, str], cwd: Path, timeout: float) -> tuple[str, str]:
    p = subprocess.Popen([sys.executable, "-m", "argfaith", *args], env={**env, "PYTHONPATH": str(pythonpath)}, cwd=cwd,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return "hang", ""
    if p.returncode == 0:
        return "ok", out
    return ("traceback" if "Traceback" in err else "error"), out


def cell(code: Path, command: str, fault: Fault | None, batch: bool, timeout: float) -> dict[str, Any]:
    """Run one cell (fault None: the fault-free reference)."""
    tmp = Path(tempfile.mkdtemp(prefix="argfaith-fault-"))
    model = ArgfaithModel()
    api = FakeAnthropicAPI(model, batch_polls_before_end=0)
    try:
        with api.serve() as url:
            env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "ARGFAITH_"))}
            env.update(ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=url, ARGFAITH_CACHE=str(tmp / "cache"), ARGFAITH_BATCH_POLL_SECONDS="0.02")
            args = argv(command, tmp, batch=batch)
            if fault is not None and fault.name == "killed":
                api.batch_polls_before_end = 10**9
                p = subprocess.Popen([sys.executable, "-m", "argfaith", *args], env={**env, "PYTHONPATH": str(code)}, cwd=tmp,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
                deadline = time.time() + timeout
                while time.time() < deadline and p.poll() is None and not any(
                    r.method == "GET" and r.path.startswith("/v1/messages/batches/") for r in api.requests
                ):
                    time.sleep(0.05)
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                first, first_out = "killed", None
            else:
                if fault is not None:
                    fault.setup(api, model, command)
                first, stdout = _run(code, args, env, tmp, timeout)
                first_out = output(command, tmp, stdout) if first == "ok" else None
            _clear(api, model)
            second, stdout = _run(code, args, env, tmp, timeout)
            final = output(command, tmp, stdout) if second == "ok" else None
            text = json.dumps([first_out, final], default=str).replace(str(tmp), "<TMP>")
            first_out, final = json.loads(text)
            return {"first": first, "second": second, "first_output": first_out, "final_output": final,
                    "paid": api.paid_count(), "repaid": api.repaid_count(), "batches": api.batches_created()}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def code_of(first: str, first_ok_correct: bool, lost: bool) -> str:
    if lost:
        return "L"
    if first == "ok" and first_ok_correct:
        return "S"
    if first == "hang":
        return "H"
    if first == "traceback":
        return "T"
    return "R"  # a clean error (or a kill) and the rerun recovered


def export(rev: str) -> Path:
    """The argfaith package of ``rev`` (git archive), for the "before" runs."""
    dest = Path(tempfile.mkdtemp(prefix="argfaith-before-"))
    data = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, "argfaith"], capture_output=True, check=True).stdout
    tar_path = dest / "src.tar"
    tar_path.write_bytes(data)
    with tarfile.open(tar_path) as t:
        t.extractall(dest, filter="data")
    return dest


def table(results: dict[str, dict[str, dict[str, Any]]], commands: list[str], faults: list[Fault]) -> str:
    head = "| fault | " + " | ".join(commands) + " |\n|---|" + "---|" * len(commands)
    rows = [head]
    for f in faults:
        cells = []
        for c in commands:
            r = results.get(f.name, {}).get(c)
            cells.append("n/a" if r is None else r["code"] + ("" if r["first"] == "hang" and r["code"] == "H" and r["repaid"] == 0 else f"·{r['repaid']}"))
        rows.append(f"| {f.name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", default=None, help="revision of the 'before' code (default: merge base with main); 'none' to skip")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=90.0, help="seconds before a run counts as hung")
    ap.add_argument("--commands", default=",".join(COMMANDS))
    ap.add_argument("--faults", default=None, help="comma-separated fault names (default: all)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    commands = [c for c in args.commands.split(",") if c]
    faults = [f for f in FAULTS if args.faults is None or f.name in args.faults.split(",")]
    versions = {"after": ROOT}
    rev = args.before
    if rev != "none":
        rev = rev or subprocess.run(["git", "-C", str(ROOT), "merge-base", "HEAD", "main"], capture_output=True, text=True, check=True).stdout.strip()
        versions = {"before": export(rev), "after": ROOT}
    jobs: list[tuple[str, str, Fault | None, bool]] = []
    for v in versions:
        for c in commands:
            jobs.append((v, c, None, False))
            if c in BATCH_COMMANDS:
                jobs.append((v, c, None, True))
            for f in faults:
                if f.route == "direct" or c in BATCH_COMMANDS:
                    jobs.append((v, c, f, f.route == "batch"))
    t0 = time.time()
    raw: dict[tuple[str, str, str, bool], dict[str, Any]] = {}
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = {ex.submit(cell, versions[v], c, f, b, args.timeout): (v, c, f.name if f else "reference", b) for v, c, f, b in jobs}
        for fut in cf.as_completed(futs):
            raw[futs[fut]] = fut.result()
            print(f"  {len(raw)}/{len(jobs)} {futs[fut][:3]}: {raw[futs[fut]]['first']} / {raw[futs[fut]]['second']} "
                  f"re-paid {raw[futs[fut]]['repaid']}", file=sys.stderr, flush=True)
    results: dict[str, Any] = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
                               "before_revision": rev if rev != "none" else None, "seconds": round(time.time() - t0, 1),
                               "faults": {f.name: {"route": f.route, "what": f.what} for f in faults}, "versions": {}}
    for v in versions:
        vres: dict[str, dict[str, Any]] = {}
        for (vv, c, fname, b), r in raw.items():
            if vv != v or fname == "reference":
                continue
            ref = raw[(v, c, "reference", b)]["final_output"]
            lost = r["final_output"] is None or r["final_output"] != ref
            first_ok = r["first_output"] is not None and r["first_output"] == ref
            r = {k: r[k] for k in ("first", "second", "paid", "repaid", "batches")}
            r.update(lost=lost, first_correct=first_ok, code=code_of(r["first"], first_ok, lost))
            vres.setdefault(fname, {})[c] = r
        results["versions"][v] = vres
        print(f"\n{v}:\n" + table(vres, commands, faults))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    print(f"\nwrote {args.out} ({results['seconds']} s)")


if __name__ == "__main__":
    main()
