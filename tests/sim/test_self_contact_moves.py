"""With the arm's self check on (motion.arm_self_check), moves whose straight line only the robot's own body is in
the way of go round it rather than fail, on real MuJoCo with the motion library:

- a straight palm line whose IK postures press the upper arm into the torso (a point in front of the chest) is
  refused, typed `self_only`; `ArmMotion.go` then plans the move, and the arm arrives clear of the body;
- the tuck, a configured posture that lies against the leg by design, is reached by its joint line (the arm's
  contacts with the body are not counted going to or from the rest posture); counted, the same line is refused."""
from __future__ import annotations

import numpy as np
import pytest

from memora_core.robot.control import FailureCause, PrimitiveFailure
from memora_core.robot.motion.failures import is_robot_link

pytest.importorskip("ompl")
pytestmark = pytest.mark.sim

OBJS = {"coca-cola bottle": (0.40, -0.25, 0.0), "fanta can": (0.40, -0.05, 0.0), "bread": (0.76, 0.35, 0.0)}


def test_self_only_names_a_path_that_only_the_robot_blocks():
    point = np.array([0.2, 0.0, 0.9])
    assert PrimitiveFailure.blocked("lower", point, ["robot:torso_link"], []).self_only
    assert not PrimitiveFailure.blocked("lower", point, ["robot:torso_link", "fanta can"], ["fanta can"]).self_only
    assert not PrimitiveFailure.blocked("lower", point, ["table"], []).self_only
    assert not PrimitiveFailure.blocked("lower", point, [], []).self_only  # no posture found: nothing named


@pytest.fixture
def checked(ctl):
    ctl.cfg.motion.arm_self_check = True
    assert ctl.robot.config.motion.arm_self_check  # the controller's config is the robot's
    return ctl


def test_a_line_only_the_torso_is_in_the_way_of_is_planned_round_it(checked):
    ctl = checked
    robot, arm, tz = ctl.robot, ctl.c.arm, ctl.c.table_z
    ctl.c.transit.transit(np.array([0.30, -0.20]), set())
    chest = np.array([0.20, -0.02, tz + 0.18])  # in front of the chest, a little left of the right shoulder
    with pytest.raises(PrimitiveFailure) as straight:
        arm.plan_line(chest, set(), "probe")
    f = straight.value
    assert f.cause is FailureCause.PATH_BLOCKED and f.self_only, f.detail  # the control: straight, refused
    before = {o.name: robot.object_pose(o.name)[0].copy() for o in robot.scene_objects()}
    planned_before = len(ctl.c.planned.plan_seconds)
    arm.go(chest, set(), "probe")
    assert len(ctl.c.planned.plan_seconds) > planned_before, "the move was not planned"
    assert np.linalg.norm(robot.hand_position() - chest) < 3 * ctl.cfg.ik.tolerance
    assert not [h for h in robot.clearance(robot.joint_positions(), set()) if is_robot_link(h)]
    assert all(np.linalg.norm(robot.object_pose(n)[0] - p) < 0.005 for n, p in before.items())


def test_the_tuck_is_reached_though_it_lies_against_the_leg(checked):
    ctl = checked
    robot, arm = ctl.robot, ctl.c.arm
    rest = arm.rest_posture(robot.arm)
    assert any(is_robot_link(h) for h in robot.clearance(rest, set()))  # the tuck presses on the leg
    ctl.c.transit.transit(np.array([0.30, -0.20]), set())
    with pytest.raises(PrimitiveFailure) as counted:  # the control: with the body counted, refused
        arm.joint_line(rest, set(), "tuck")
    assert counted.value.cause is FailureCause.PATH_BLOCKED and counted.value.self_only, counted.value.detail
    assert arm.joint_line(rest, set(), "tuck", at_rest=True)  # the same line, the body not counted: clear
    ctl.c.transit.tuck(rest)
    now = robot.joint_positions()
    assert max(abs(now[k] - v) for k, v in rest.items()) < 0.15, {k: round(now[k] - v, 3) for k, v in rest.items()}
