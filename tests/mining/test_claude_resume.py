"""kill -9 half-way through a Claude classification run; the rerun sends only the missing requests."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

from argfaith.llm import RequestCache
from argfaith.llm.testing import FakeAnthropicAPI
from argfaith.mining.classifiers.claude import ClaudeRelationClassifier
from tests.llm.helpers import FAKE_KEY, api_key  # noqa: F401
from tests.mining.test_claude_classifier import debate_pairs, gold, oracle

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = textwrap.dedent(
    """
    import sys
    from argfaith.mining.classifiers.claude import ClaudeRelationClassifier
    from tests.mining.test_claude_classifier import debate_pairs
    c = ClaudeRelationClassifier("claude-haiku-4-5", cache=sys.argv[1], max_concurrency=2)
    c.classify(debate_pairs(3, 8))
    """
)


def test_kill_9_mid_run_then_rerun_makes_only_the_missing_calls(api_key, tmp_path):
    pairs = debate_pairs(3, 8)  # 3*8 + 28 = 52 single-pair requests
    answered = 0
    gate = threading.Event()
    lock = threading.Lock()

    def slow_after_20(body):
        nonlocal answered
        with lock:
            answered += 1
            n = answered
        if n > 20:
            gate.wait(30)  # hold the rest until the client has been killed
        return oracle(body)

    api = FakeAnthropicAPI(slow_after_20)
    cache_path = tmp_path / "cache.sqlite"
    with api.serve() as url:
        env = {**os.environ, "ANTHROPIC_API_KEY": FAKE_KEY, "ANTHROPIC_BASE_URL": url, "PYTHONPATH": ROOT}
        p = subprocess.Popen([sys.executable, "-c", SCRIPT, str(cache_path)], env=env, cwd=ROOT)
        deadline = time.time() + 120
        while len(api.message_calls()) < 22 and time.time() < deadline and p.poll() is None:
            time.sleep(0.05)
        time.sleep(0.3)  # let the client store the answers it has received
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        gate.set()
    assert p.returncode == -signal.SIGKILL
    done = len(RequestCache(cache_path))
    assert 15 <= done <= 20, done

    api2 = FakeAnthropicAPI(oracle)
    c = ClaudeRelationClassifier("claude-haiku-4-5", cache=cache_path, http_client=api2.http_client())
    preds = c.classify(pairs)
    assert len(api2.message_calls()) == len(pairs) - done  # only the missing calls
    assert c.usage.cache_hits == done
    assert [x.label for x in preds] == [gold(q.source, q.target) for q in pairs]
