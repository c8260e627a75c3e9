"""The demo driver waits for a plan's result as long as the controller reports progress, and gives up only after
`idle_s` of silence (a whole-goal deadline from the step count cut off a G1 making room at hardware speed)."""
import threading

import pytest

from memora_core.runtime.progress_wait import IdleTimeout, ProgressWait


class _Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_progress_keeps_the_wait_alive_past_the_idle_limit():
    clock, done = _Clock(), threading.Event()
    wait = ProgressWait(10.0, clock=clock)
    ticks = iter(range(100))

    class _Done(threading.Event):
        def wait(self, timeout=None):  # each poll, 4 s pass and progress is reported; done after 60 s
            clock.t += 4.0
            wait.touch()
            if next(ticks) == 14:
                done.set()
            return done.is_set()

        def is_set(self):
            return done.is_set()

    wait.wait(_Done())
    assert clock.t >= 60.0 > wait.idle_s


def test_silence_for_the_idle_limit_times_out():
    clock = _Clock()
    wait = ProgressWait(10.0, clock=clock)

    class _Never(threading.Event):
        def wait(self, timeout=None):
            clock.t += timeout
            return False

    with pytest.raises(IdleTimeout):
        wait.wait(_Never())
    assert 10.0 <= clock.t <= 10.5
    assert issubclass(IdleTimeout, TimeoutError)


def test_a_real_event_ends_the_wait():
    wait, done = ProgressWait(5.0), threading.Event()
    threading.Timer(0.1, done.set).start()
    wait.wait(done, poll_s=0.05)


def test_a_non_positive_limit_is_refused():
    with pytest.raises(ValueError):
        ProgressWait(0.0)
