"""Waiting for a long-running answer that reports progress: the wait ends in `IdleTimeout` only when nothing has
been heard for `idle_s`, however long the whole takes. A robot at hardware speed that makes room for a step (two
neighbours set aside before its own pick) is slow but alive; a controller that hangs goes quiet."""
from __future__ import annotations

import threading
import time


class IdleTimeout(TimeoutError):
    """No progress was reported for the idle limit."""


class ProgressWait:
    """`touch()` from whatever reports progress (action feedback); `wait(done)` until `done` is set."""

    def __init__(self, idle_s: float, clock=time.monotonic) -> None:
        if not idle_s > 0:
            raise ValueError(f"idle_s must be > 0, got {idle_s!r}")
        self.idle_s = idle_s
        self._clock = clock
        self._last = clock()
        self._lock = threading.Lock()

    def touch(self) -> None:
        with self._lock:
            self._last = self._clock()

    def idle(self) -> float:
        with self._lock:
            return self._clock() - self._last

    def wait(self, done: threading.Event, poll_s: float = 0.5) -> None:
        while not done.is_set():
            left = self.idle_s - self.idle()
            if left <= 0:
                raise IdleTimeout(f"no progress for {self.idle_s:.0f} s")
            done.wait(min(poll_s, left))
