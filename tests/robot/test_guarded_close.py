"""The Dex3 guarded close (memora_core.robot.hand.guarded_close_step): every digit moves toward the closed
posture at the same pace, a digit on the object stays where it met it, and nothing goes past the closed
posture or outside the joint ranges, on either hand."""
import pytest

from memora_core.robot.hand import (CLOSE_S, DIGITS, FINGER_JOINTS, HandPostures, Side, guarded_close_step,
                                    joint_ranges)


def _index(digit):
    return [FINGER_JOINTS.index(j) for j in DIGITS[digit]]


@pytest.mark.parametrize("side", list(Side))
def test_each_free_digit_moves_its_share_of_the_travel(side):
    p = HandPostures()
    opened, closed = p.open(side), p.closed(side)
    q = guarded_close_step(side, opened, set(), CLOSE_S / 4, p)
    for i in range(len(FINGER_JOINTS)):
        assert q[i] == pytest.approx(opened[i] + 0.25 * (closed[i] - opened[i]))


@pytest.mark.parametrize("side", list(Side))
def test_a_digit_on_the_object_keeps_its_target(side):
    p = HandPostures()
    start = p.shaped(side, 0.3, 0.3)
    q = guarded_close_step(side, start, {"middle"}, 0.05, p)
    for i in _index("middle"):
        assert q[i] == start[i]
    for digit in ("thumb", "index"):
        for i in _index(digit):
            assert abs(q[i] - start[i]) > 1e-3  # still closing
    assert q[FINGER_JOINTS.index("thumb_0")] == start[FINGER_JOINTS.index("thumb_0")]  # turns, does not flex


@pytest.mark.parametrize("side", list(Side))
def test_never_past_the_closed_posture(side):
    p = HandPostures()
    q = p.open(side)
    for _ in range(100):  # far longer than CLOSE_S
        q = guarded_close_step(side, q, set(), 0.05, p)
    assert q == pytest.approx(p.closed(side))
    for v, (lo, hi) in zip(q, joint_ranges(side).values()):
        assert lo <= v <= hi


def test_no_time_no_motion():
    p = HandPostures()
    start = p.open("right")
    assert guarded_close_step("right", start, set(), 0.0, p) == start
    assert guarded_close_step("right", start, set(), -1.0, p) == start


def test_tactile_pads_tell_which_digits_touch():
    from memora_core.robot.hand import PRESS_PADS, pad_load, touching_digits

    none = [[0.0] * 12 for _ in PRESS_PADS]
    assert touching_digits(none, 0.3) == set()  # a hand without pads (or touching nothing) reads all zeros
    press = [list(c) for c in none]
    press[PRESS_PADS.index(("thumb", "pad"))] = [0.05] * 12        # 0.6 summed over the pad's cells
    press[PRESS_PADS.index(("middle", "tip"))] = [0.02] * 12       # 0.24: below the threshold
    assert touching_digits(press, 0.3) == {"thumb"}
    assert touching_digits(press, 0.2) == {"thumb", "middle"}
    # Garbage cells add nothing; more pads than the layout names, or fewer, are fine.
    assert pad_load([float("nan"), float("inf"), -5.0, 0.4]) == pytest.approx(0.4)
    assert touching_digits(press + [[9.0] * 12] * 3, 0.3) == {"thumb"}
    assert touching_digits(press[:1], 0.3) == set()
    # Another pad order (a config's dex3.press_pads) reads the same cells as other digits.
    assert touching_digits(press, 0.3, tuple(reversed(PRESS_PADS))) == {"middle"}
