"""What a long command is doing, on stderr.

:class:`StepProgress` is the ``status(step, done, total)`` callback the library accepts
(:data:`argfaith.metrics.evaluate.Status`). Short runs print nothing: a step is announced once it
has run ``after`` seconds, then every ``every`` seconds with its count, and its end with the time
it took. On a terminal the line is rewritten in place; in a log each report is one line.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, TextIO

__all__ = ["StepProgress"]


class StepProgress:
    """``status(step, done, total)`` reporter on stderr (module docstring).

    Use as a context manager: a watchdog thread prints while the main thread works (a numba
    kernel or a JSON encoder gives no chance to print otherwise).
    """

    def __init__(self, *, quiet: bool = False, after: float = 2.0, every: float = 10.0, stream: TextIO | None = None) -> None:
        self.quiet = quiet
        self.after = after
        self.every = every
        self._stream = stream
        self._lock = threading.Lock()
        self._step: str | None = None
        self._done = 0
        self._total = 0
        self._t0 = 0.0
        self._last = 0.0  # when the current step was last reported (0: not yet)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._inline = False

    @property
    def stream(self) -> TextIO:
        return self._stream if self._stream is not None else sys.stderr

    # -- the callback ------------------------------------------------------------------------
    def __call__(self, step: str, done: int = 0, total: int = 0) -> None:
        with self._lock:
            if step != self._step:
                self._finish_locked()
                self._step, self._t0, self._last = step, time.monotonic(), 0.0
            self._done, self._total = done, total

    def step(self, name: str) -> StepProgress:
        """``with progress.step("reading X"):`` — a step without counts."""
        self(name)
        return self

    def done(self) -> None:
        """The current step is over (its end is reported if it was announced)."""
        with self._lock:
            self._finish_locked()
            self._step = None

    # -- context manager ---------------------------------------------------------------------
    def __enter__(self) -> StepProgress:
        if not self.quiet and self._thread is None:
            self._stop = threading.Event()  # reusable: a new watchdog per `with`
            self._thread = threading.Thread(target=self._watch, name="argfaith-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        with self._lock:
            if exc and exc[0] is None:
                self._finish_locked()
            elif self._inline:
                self._write("\n")
            self._step = None

    # -- internals ---------------------------------------------------------------------------
    def _terminal(self) -> bool:
        try:
            return bool(self.stream.isatty())
        except (AttributeError, ValueError):
            return False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed stream must not kill the command
            pass

    def _line(self, now: float, final: bool = False) -> str:
        secs = now - self._t0
        count = f" {self._done:,}/{self._total:,}" if self._total else ""
        return f"{self._step}{count}: {'done in ' if final else ''}{secs:.0f} s"

    def _emit(self, text: str) -> None:
        if self._terminal():
            self._write("\r\x1b[K" + text)
            self._inline = True
        else:
            self._write(text + "\n")

    def _finish_locked(self) -> None:
        if self.quiet or self._step is None or not self._last:
            return
        self._emit(self._line(time.monotonic(), final=True))
        if self._inline:
            self._write("\n")
            self._inline = False

    def _watch(self) -> None:
        while not self._stop.wait(0.25):
            with self._lock:
                if self._step is None:
                    continue
                now = time.monotonic()
                if now - self._t0 < self.after:
                    continue
                if self._last and now - self._last < (1.0 if self._terminal() else self.every):
                    continue
                self._last = now
                self._emit(self._line(now))
