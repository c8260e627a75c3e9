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
