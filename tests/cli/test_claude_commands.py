"""Every Claude-using command end to end (real entry point, subprocess) against the strict fake API.

mine, summarize, evaluate --align llm, kpa match --matcher claude, study, selftest: they run,
refusals are flagged and asked again by a rerun (never cached), long answers are re-asked with a
larger budget, a lost batch-creation response costs nothing extra, and a run killed while its batch
is being processed resumes with zero duplicate paid requests (counted by the fake).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from argfaith.llm import RequestCache
from argfaith.llm.testing import ArgfaithModel, Fail, FakeAnthropicAPI
from argfaith.llm.testing.model import SUMMARY_TEXT
from tests.cli.claude_commands import DEBATE, FIX, ROOT, command
from tests.llm.helpers import FAKE_KEY

class Harness:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.model = ArgfaithModel()
        self.api = FakeAnthropicAPI(self.model)
        self.url = ""

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
        env.update(ANTHROPIC_API_KEY=FAKE_KEY, ANTHROPIC_BASE_URL=self.url, ARGFAITH_CACHE=str(self.tmp / "cache"),
                   PYTHONPATH=str(ROOT), ARGFAITH_BATCH_POLL_SECONDS="0.02")
        return env

    def run(self, args: list[str]) -> subprocess.CompletedProcess[str]:
        r = subprocess.run([sys.executable, "-m", "argfaith", *args], capture_output=True, text=True,
                           env=self.env(), cwd=self.tmp, timeout=600)
        assert "Traceback" not in r.stderr, r.stderr
        assert FAKE_KEY not in r.stdout + r.stderr
        return r


@pytest.fixture
def h(tmp_path: Path):
    harness = Harness(tmp_path)
    with harness.api.serve() as url:
        harness.url = url
        yield harness


@pytest.mark.parametrize("name", ["mine", "summarize", "evaluate", "kpa", "study", "selftest"])
def test_each_command_runs_then_reruns_for_free(h, name):
    r = h.run(command(name, h.tmp, batch=False))
    assert r.returncode == 0, r.stderr
    paid = h.api.paid_count()
    assert paid > 0 and h.api.repaid_count() == 0
    r2 = h.run(command(name, h.tmp, batch=False))
    assert r2.returncode == 0, r2.stderr
    assert h.api.paid_count() == paid  # answered from the request cache / checkpoints


@pytest.mark.parametrize("name", ["mine", "evaluate", "kpa", "study", "selftest"])
def test_killed_while_the_batch_runs_resumes_with_zero_duplicate_paid_requests(h, name):
    h.api.batch_polls_before_end = 10**9  # the batch "runs" until we say so
    p = subprocess.Popen([sys.executable, "-m", "argfaith", *command(name, h.tmp, batch=True)], env=h.env(), cwd=h.tmp,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 300
    polled = lambda: [r for r in h.api.requests if r.method == "GET" and r.path.startswith("/v1/messages/batches/")]  # noqa: E731
    while not polled() and time.time() < deadline and p.poll() is None:
        time.sleep(0.05)
    assert polled(), "the command never polled a batch"
    os.killpg(p.pid, signal.SIGKILL)  # the whole process group (study runs worker processes)
    p.wait()
    created = h.api.batches_created()
    assert created >= 1
    h.api.batch_polls_before_end = 0
    r = h.run(command(name, h.tmp, batch=True))
    assert r.returncode == 0, r.stderr
    assert h.api.repaid_count() == 0 and h.api.paid_count() > 0
    # The batch submitted before the kill was collected, not submitted again.
    first = {x["custom_id"] for c in h.api.batch_creates()[:created] for x in c.body["requests"]}
    later = {x["custom_id"] for c in h.api.batch_creates()[created:] for x in c.body["requests"]}
    assert not first & later


def test_mine_lost_batch_creation_and_a_refusal(h):
    h.api.batch_create_failures = [Fail(lost=True)]
    # The refused multi-target request judges every target of one source argument.
    h.model.refuse = {"[SOURCE]: Our inspectors are overworked"}
    r = h.run(command("mine", h.tmp, batch=True))
    assert r.returncode == 0, r.stderr
    assert h.api.batches_created() == 1 and h.api.repaid_count() == 0
    assert "refusals" in r.stderr and "rerun the same command to ask for them again" in r.stderr
    ckpt = h.tmp / "q.pairs.jsonl"
    saved = sum(1 for _ in open(ckpt, encoding="utf-8")) - 1
    q = json.loads((h.tmp / "q.json").read_text())
    assert q["metadata"]["counts"]["unanswered"] > 0
    assert saved == q["metadata"]["counts"]["candidate_pairs_classified"] - q["metadata"]["counts"]["unanswered"]
    h.model.refuse = set()
    paid = h.api.paid_count()
    r = h.run(command("mine", h.tmp, batch=True))
    assert r.returncode == 0 and "unanswered" not in json.loads((h.tmp / "q.json").read_text())["metadata"]["counts"]
    assert h.api.paid_count() == paid + 1 and h.api.repaid_count() == 1  # only the refused request, asked again


def test_summarize_refusal_is_an_error_not_a_cached_answer_and_truncation_is_re_asked(h):
    h.model.refuse = {"Transcript:"}
    r = h.run(command("summarize", h.tmp, batch=False))
    assert r.returncode == 2 and "declined to summarise" in r.stderr and "rerun" in r.stderr
    assert len(RequestCache(h.tmp / "cache" / "llm-requests.sqlite")) == 0
    h.model.refuse = set()
    r = h.run(command("summarize", h.tmp, batch=False))
    assert r.returncode == 0 and json.loads((h.tmp / "summary.json").read_text())["text"] == SUMMARY_TEXT
    # A budget too small for the answer: asked again with twice the budget.
    r = h.run(["summarize", str(DEBATE), "--max-tokens", "16", "--no-title"])
    assert r.returncode == 0 and r.stdout.strip() == SUMMARY_TEXT and "truncated" not in r.stderr
    calls = [c.body["max_tokens"] for c in h.api.message_calls()]
    assert calls[-2:] == [16, 32] and len(SUMMARY_TEXT) // 4 > 16  # 16 was too small; 32 fits


def test_evaluate_llm_alignment_counts_refusals_and_asks_them_again(h):
    h.model.refuse = {"repairability index"}
    r = h.run(command("evaluate", h.tmp, batch=False))
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)["alignment"]["details"]
    assert d["refused"] >= 1 and d["requests"] == 14
    h.model.refuse = set()
    r = h.run(command("evaluate", h.tmp, batch=False))
    assert json.loads(r.stdout)["alignment"]["details"]["refused"] == 0
    assert h.api.repaid_count() == d["refused"]


def test_study_redoes_what_was_built_on_refused_pairs(h):
    h.model.refuse = {"[SOURCE]: Our inspectors are overworked"}
    r = h.run(command("study", h.tmp, batch=False))
    assert r.returncode == 0, r.stderr
    rows = sorted((h.tmp / "study" / "rows").rglob("*.json"))
    assert any(json.loads(p.read_text()).get("final") is False for p in rows)
    h.model.refuse = set()
    paid = h.api.paid_count()
    r = h.run(command("study", h.tmp, batch=False))
    assert r.returncode == 0, r.stderr
    assert h.api.paid_count() == paid + 1 and h.api.repaid_count() == 1  # only the refused request, asked again
    assert all(json.loads(p.read_text()).get("final", True) for p in rows)


def selftest_llm(tmp: Path, out: str, *, batch: bool) -> list[str]:
    """`argfaith selftest --distortions llm`: Claude writes the distortions; the relations are mined offline
    (`features`, so that this test is about the distortion requests only)."""
    return ["selftest", "--debates", str(FIX / "study" / "ep_debates"), "--summaries", str(FIX / "study" / "ep_summaries"),
            "--out", str(tmp / out), "--classifier", "features", "--distortions", "llm:claude-haiku-4-5", "--no-controls",
            "--format", "json", "-q", *(["--llm-batch"] if batch else [])]


def _notes(out: Path) -> list[str]:
    return [n for p in sorted((out / "selftest" / "items").rglob("*.json")) for n in json.loads(p.read_text())["notes"]]


@pytest.mark.parametrize("batch", [False, True], ids=["direct", "batch"])
def test_selftest_llm_distortions_run_then_rerun_for_free(h, batch):
    r = h.run(selftest_llm(h.tmp, "st1", batch=batch))
    assert r.returncode == 0, r.stderr
    asked = h.model.calls.get("distortion", 0)
    assert asked > 0 and h.api.paid_count() == asked and h.api.repaid_count() == 0
    assert set(json.loads(r.stdout)["kinds"]) - {"all"} == {"omit", "invert", "fabricate_support", "fabricate_attack"}
    assert not [n for n in _notes(h.tmp / "st1") if "skipped" in n]  # every answer parsed into applicable edits
    assert (h.api.batches_created() > 0) == batch
    # A fresh self-test folder: the distortions come from the request cache, nothing is paid again.
    r = h.run(selftest_llm(h.tmp, "st2", batch=batch))
    assert r.returncode == 0, r.stderr
    assert h.api.paid_count() == asked and h.model.calls["distortion"] == asked


def test_selftest_llm_distortion_refusals_are_reported_and_not_cached(h):
    h.model.refuse = {"TASK (invert)"}
    r = h.run(selftest_llm(h.tmp, "st1", batch=False))
    assert r.returncode == 0, r.stderr
    refused = [n for n in _notes(h.tmp / "st1") if "declined" in n]
    assert refused and all(n.startswith("invert about ") for n in refused)
    assert "invert" not in json.loads(r.stdout)["kinds"]
    h.model.refuse = set()
    paid = h.api.paid_count()
    # the same output folder: items with a declined distortion are not final, so they are redone
    r = h.run(selftest_llm(h.tmp, "st1", batch=False))
    assert r.returncode == 0, r.stderr
    assert "invert" in json.loads(r.stdout)["kinds"] and not [n for n in _notes(h.tmp / "st1") if "declined" in n]
    # only the refused requests were asked again (a refusal is billed, so each is re-paid once)
    assert h.api.paid_count() == paid + len(refused) and h.api.repaid_count() == len(refused)
