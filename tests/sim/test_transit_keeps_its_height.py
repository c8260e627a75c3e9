"""An empty hand left above cruise height over what it just let go of (a retract that rose higher than the level
carry) travels at that height: it does not first go down towards the object below it, whose top the fingers
would brush while the arm trails a fast level move (a bottle put back after a pour was dragged along so and
fell). Real MuJoCo."""
import numpy as np
import pytest

from memora_core.robot.primitives import Primitive, PrimitiveCall

pytestmark = pytest.mark.sim

OBJS = {"coca-cola bottle": (0.52, -0.20, 0.0), "yellow bowl": (0.38, -0.17, 0.0), "blue cup": (0.40, 0.25, 0.0)}
BOTTLE, BOWL = "coca-cola bottle", "yellow bowl"


def test_a_hand_above_cruise_height_travels_at_its_height(ctl):
    robot, c = ctl.robot, ctl.c
    c.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object=BOTTLE))
    stood = robot.ground_truth_pose(BOTTLE)[0].copy()
    robot.release()
    robot.settle(0.3)
    assert robot.held_object() is None
    c.state.drop_hold()
    high = c.arm.cruise_z() + 0.03
    hand = robot.hand_position()
    c.arm.go(np.array([hand[0], hand[1], high]), {BOTTLE, "table"}, "retract")
    start = robot.hand_position()[2]
    lowest = [start]
    follow = c.arm.follow

    def watch(path, point, ignore, what, exact=True, duration=None):
        follow(path, point, ignore, what, exact, duration)
        lowest.append(float(robot.hand_position()[2]))

    c.arm.follow = watch
    c.transit.transit(robot.ground_truth_pose(BOWL)[0][:2], {BOWL}, rise_ignore=set())
    assert min(lowest) > start - 0.01  # never went down towards the bottle before arriving
    pos, rot = robot.ground_truth_pose(BOTTLE)
    assert np.linalg.norm(pos[:2] - stood[:2]) < 0.01 and rot[2, 2] > 0.99  # still standing where it was let go
