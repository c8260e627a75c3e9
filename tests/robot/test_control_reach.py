"""Choosing by reach: arms and put-down spots ordered by the reachability map, without MuJoCo."""
import numpy as np

from memora_core.robot.control.reach import arms_by_reach, reaches, spots_by_reach
from memora_core.robot.motion.reachability import ReachabilityMap


def _map() -> ReachabilityMap:
    """A 3 x 3 x 2 grid over x 0-0.2, y -0.1-0.1, z 0.9-1.0: the left arm reaches only y >= 0, the right arm
    everywhere except the x = 0.2 row."""
    axes = (np.array([0.0, 0.1, 0.2]), np.array([-0.1, 0.0, 0.1]), np.array([0.9, 1.0]))
    left = np.zeros((3, 3, 2))
    left[:, 0, :] = np.inf
    right = np.zeros((3, 3, 2))
    right[2, :, :] = np.inf
    ones = np.ones((3, 3, 2))
    return ReachabilityMap(axes, {"left": left, "right": right}, {"left": ones, "right": ones}, tolerance=0.01)


def test_an_arm_the_map_says_reaches_goes_first_and_the_side_order_stays_otherwise():
    reach = _map()
    # At x 0.15 only the left arm reaches (its y >= 0 half): it goes first although the side rule said right.
    assert arms_by_reach(reach, (0.15, 0.05, 0.95), ["right", "left"]) == ["left", "right"]
    # Both reach (x 0.05, y 0.05): the side order is kept.
    assert arms_by_reach(reach, (0.05, 0.05, 0.95), ["right", "left"]) == ["right", "left"]
    assert arms_by_reach(reach, (0.05, 0.05, 0.95), ["left", "right"]) == ["left", "right"]
    # Neither reaches (outside the grid): kept as well; without a map, always kept.
    assert arms_by_reach(reach, (0.5, 0.0, 0.95), ["right", "left"]) == ["right", "left"]
    assert arms_by_reach(None, (0.15, 0.05, 0.95), ["right", "left"]) == ["right", "left"]
    assert reaches(None, (0.0, 0.0, 0.95), "left") is None
    assert reaches(reach, (0.0, 0.0, 0.95), "thumb") is None


def test_spots_the_arm_reaches_come_first_in_their_own_order():
    reach = _map()
    near, far_row, second = np.array([0.15, 0.0]), np.array([0.05, 0.05]), np.array([0.02, -0.05])
    # The right arm does not reach the x 0.15 cell (its x = 0.2 corners): that spot moves behind the others.
    got = spots_by_reach(reach, [near, far_row, second], "right", 0.95)
    assert [tuple(s) for s in got] == [tuple(far_row), tuple(second), tuple(near)]
    # The left arm reaches y >= 0 only: the y -0.05 spot goes last, the others keep their order.
    got = spots_by_reach(reach, [near, far_row, second], "left", 0.95)
    assert [tuple(s) for s in got] == [tuple(near), tuple(far_row), tuple(second)]
