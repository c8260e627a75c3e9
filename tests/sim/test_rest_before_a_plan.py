"""A new plan starts from the rest posture: with the hand empty the arm stows and the waist comes upright, since the
IK seeds from the current posture and would carry the last task's twist into the next (dev regression 75001 in
sequence: the waist 53 deg turned after the pour, then a tea box beside the body out of reach). With something in
the hand nothing moves. Real MuJoCo (the G1 bridge path, without a motion planner, is tests/ros/test_g1_backend.py)."""
import numpy as np
import pytest

from memora_core.robot.primitives import Primitive, PrimitiveCall

pytestmark = pytest.mark.sim

OBJS = {"coca-cola bottle": (0.50, 0.25, 0.0), "yellow bowl": (0.30, -0.20, 0.0)}
BOTTLE = "coca-cola bottle"


def waist(robot) -> np.ndarray:
    q = robot.joint_positions()
    return np.array([v for k, v in q.items() if k.startswith("waist")])


def test_rest_stows_an_empty_arm_with_the_waist_upright(ctl):
    robot = ctl.robot
    ctl.c.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object=BOTTLE))
    ctl.c.putdown.put_back(ctl.c.resolver.require(BOTTLE))
    assert robot.held_object() is None
    robot.command({"waist_yaw_joint": -0.6}, 1.0)  # as a far reach in an earlier task leaves it
    assert np.max(np.abs(waist(robot))) > 0.5
    ctl.rest()
    assert np.max(np.abs(waist(robot))) < 0.05
    assert robot.hand_position()[0] < ctl.cfg.motion.stow_x  # tucked beside the body


def test_rest_leaves_a_holding_arm_where_it_is(ctl):
    robot = ctl.robot
    ctl.c.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object=BOTTLE))
    before = robot.hand_position().copy()
    ctl.rest()
    assert robot.held_object() == BOTTLE
    assert np.linalg.norm(robot.hand_position() - before) < 0.005

