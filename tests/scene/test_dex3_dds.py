"""Dex3 command/state round trip over real DDS (loopback, domain 1) between the sim bridge process and the
controller-side Dex3Hand client: both hands close and open as commanded, within their joint ranges."""
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("unitree_sdk2py")
pytestmark = pytest.mark.sim


def _run_isolated(body: str) -> None:
    """A fresh interpreter per DDS participant (see tests/sim/test_unitree_bridge.py for why)."""
    repo = Path(__file__).resolve().parents[2]
    res = subprocess.run([sys.executable, "-c", f"import tests.scene.test_dex3_dds as t; t.{body}()"],
                         cwd=repo, capture_output=True, text=True, timeout=240)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]


def test_dex3_cmd_state_round_trip_through_the_bridge():
    _run_isolated("_round_trip")


def _wait(pred, seconds: float, hand) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        hand.command(hand.target)  # a steady command stream, as the hand expects
        if pred():
            return True
        time.sleep(0.02)
    return False


def _round_trip() -> None:
    from unitree_sdk2py.core.channel import ChannelFactoryInitialize

    from memora_core.robot.backends.dex3 import Dex3Hand
    from memora_core.robot.hand import HandPostures, joint_ranges

    bridge = subprocess.Popen([sys.executable, "-m", "sim.unitree_bridge.bridge", "--domain", "1",
                               "--interface", "lo", "--seconds", "90"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        ChannelFactoryInitialize(1, "lo")
        hands = {side: Dex3Hand(side) for side in ("left", "right")}
        for hand in hands.values():
            q0 = hand.wait_for_state(60.0)  # the bridge builds its model first; CPUs are shared
            assert max(abs(v) for v in q0) < 0.1, q0  # the hand starts open

        postures = HandPostures()
        for side, hand in hands.items():
            closed = hand.close()
            assert closed == postures.closed(side)
            near = lambda h=hand, c=closed: max(abs(a - b) for a, b in zip(h.q(), c)) < 0.1  # noqa: E731
            assert _wait(near, 20.0, hand), f"{side} never closed: {hand.q()} vs {closed}"
            assert not hand.grasping() and hand.blocked() == set()  # nothing between the fingers
            for q, (lo, hi) in zip(hand.q(), joint_ranges(side).values()):
                assert lo - 0.01 <= q <= hi + 0.01

            # Out of range is clipped before it is sent: the fingers stop inside their ranges.
            sent = hand.command([5.0] * 7)
            assert all(lo < v < hi for v, (lo, hi) in zip(sent, joint_ranges(side).values()))

            opened = hand.open()
            back = lambda h=hand, o=opened: max(abs(a - b) for a, b in zip(h.q(), o)) < 0.1  # noqa: E731
            assert _wait(back, 20.0, hand), f"{side} never opened: {hand.q()}"
            assert hand.states > 10 and hand.sent > 10
        for hand in hands.values():
            hand.shutdown()
    finally:
        bridge.send_signal(signal.SIGINT)
        out, _ = bridge.communicate(timeout=30)
    assert bridge.returncode == 0, out
