"""StepProgress: long steps are reported on stderr (plain lines in logs), short ones not at all."""

from __future__ import annotations

import io
import time

from argfaith.cli._progress import StepProgress


class _Log(io.StringIO):
    def isatty(self) -> bool:
        return False


def test_long_steps_are_reported_with_counts_and_their_end():
    log = _Log()
    with StepProgress(after=0.2, every=0.3, stream=log) as steps:
        steps("quick step")
        steps("slow step", 3, 10)
        time.sleep(0.9)
        steps("slow step", 7, 10)
        time.sleep(0.5)
        steps.done()
    lines = log.getvalue().splitlines()
    assert lines and all(ln.startswith("slow step ") for ln in lines)  # the quick step never shows
    assert lines[0].startswith("slow step 3/10: ") and lines[-1].startswith("slow step 7/10: done in ")
    assert 2 <= len(lines) <= 6  # throttled: not a line per tick


def test_quiet_prints_nothing():
    log = _Log()
    with StepProgress(quiet=True, after=0.0, stream=log) as steps:
        steps("step", 1, 2)
        time.sleep(0.4)
    assert log.getvalue() == ""


def test_an_exception_leaves_no_half_line():
    class Tty(_Log):
        def isatty(self) -> bool:
            return True

    log = Tty()
    try:
        with StepProgress(after=0.0, stream=log) as steps:
            steps("step")
            time.sleep(0.4)
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert log.getvalue().endswith("\n") and "\r\x1b[K" in log.getvalue()


def test_reusable_across_with_blocks():
    log = _Log()
    steps = StepProgress(after=0.1, every=5.0, stream=log)
    for name in ("first", "second"):
        with steps:
            steps(name, 1, 1)
            time.sleep(0.45)
    text = log.getvalue()
    assert "first 1/1: done in" in text and "second 1/1: done in" in text
