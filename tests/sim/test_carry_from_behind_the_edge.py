"""A hand left raised behind the table's edge (an arm no tuck cleared stays up, and no rough move took it out)
still reaches the table: the rise to carry height goes up in the nearest column of the workspace, where
straight up from the hand the target would be refused as outside it. Real MuJoCo."""
import numpy as np
import pytest

from memora_core.robot.limits import WorkspaceBox

pytestmark = pytest.mark.sim

OBJS = {"yellow bowl": (0.45, 0.05, 0.0), "coca-cola bottle": (0.6, 0.3, 0.0)}  # the bottle sets carry height


def test_the_nearest_point_of_the_workspace():
    box = WorkspaceBox(min=(0.1, -0.6, 0.72), max=(0.7, 0.4, 1.3))
    assert box.nearest((0.066, -0.315, 1.0)) == pytest.approx((0.1, -0.315, 1.0))
    assert box.nearest((0.3, 0.5, 0.5)) == pytest.approx((0.3, 0.4, 0.72))
    inside = (0.3, 0.0, 1.0)
    assert box.nearest(inside) == pytest.approx(inside)


def test_a_hand_raised_behind_the_edge_rises_inside_the_workspace(ctl):
    robot, c = ctl.robot, ctl.c
    robot.use_arm("right")
    behind = np.array([0.07, -0.3, 1.0])
    assert not robot.config.limits.workspace.contains(behind)
    q, err = robot.solve_ik(behind)  # the IK itself knows no workspace box
    assert err < robot.config.ik.tolerance
    robot.command_path([q], 2.0)
    robot.settle(0.3)
    hand = robot.hand_position()
    assert hand[0] < robot.config.limits.workspace.min[0] and c.table_z + 0.1 < hand[2] < c.arm.cruise_z() - 0.05, hand
    # Out of the tuck is for an arm beside the hip; this one is up, so the rise is what must not be refused.
    c.transit._out_of_tuck = lambda *args, **kwargs: None
    c.transit.transit(np.array([0.4, -0.2]), set())
    assert np.linalg.norm(robot.hand_position()[:2] - [0.4, -0.2]) < 0.02
