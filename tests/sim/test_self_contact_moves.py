"""With the arm's self check on (motion.arm_self_check), moves whose straight line only the robot's own body is in
the way of go round it rather than fail, on real MuJoCo with the motion library:

- a straight palm line whose IK postures press the upper arm into the torso (a point in front of the chest) is
  refused, typed `self_only`; `ArmMotion.go` then plans the move, and the arm arrives clear of the body;
- a lowering refused for the arm's own body alone hands the object to the other arm (for a neighbour, it does not);
- the tuck, a configured posture that lies against the leg by design, is reached by its joint line (the arm's
  contacts with the body are not counted going to or from the rest posture); counted, the same line is refused."""
from __future__ import annotations

import numpy as np
import pytest

from memora_core.robot.control import FailureCause, PrimitiveFailure
from memora_core.robot.motion.failures import is_robot_link
from memora_core.schemas import PlanStep

pytest.importorskip("ompl")
pytestmark = pytest.mark.sim

OBJS = {"coca-cola bottle": (0.40, -0.25, 0.0), "fanta can": (0.40, -0.05, 0.0), "yellow bowl": (0.45, 0.15, 0.0)}


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


@pytest.mark.parametrize("in_the_way", [["robot:torso_link"], ["coca-cola bottle"]])
def test_a_lowering_only_the_body_is_in_the_way_of_goes_to_the_other_arm(ctl, in_the_way):
    """The first arm's lowering into the bowl is refused (injected, as the self check refuses a posture pressing
    the upper arm into the torso): the other arm takes the can over and puts it in. Refused for a neighbour
    instead (the control), the place fails as before: moving the neighbour aside is the recoveries' business."""
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can")).success
    place, first = ctl.c.skills.place, ctl.robot.arm
    lower_onto, refused = place.lower_onto, []
    bowl = ctl.robot.object_pose("yellow bowl")[0][:2]

    def first_arm_refused(obj, release, goal, ignore, container, guarded=True):
        if ctl.robot.arm == first and np.linalg.norm(np.asarray(goal)[:2] - bowl) < 0.08:  # into the bowl only
            refused.append(first)
            raise PrimitiveFailure.blocked("lower", release, in_the_way, ctl.c.resolver.movable(in_the_way))
        return lower_onto(obj, release, goal, ignore, container, guarded)

    place.lower_onto = first_arm_refused
    ctl.cfg.motion.clear_moves = 0  # no recovery moves the neighbour aside: only the skill's own fall-back acts
    res = ctl.execute_step(PlanStep(index=1, action="place", object="fanta can", target="in yellow bowl"))
    assert refused
    if is_robot_link(in_the_way[0]):
        assert res.success, res.detail
        assert ctl.robot.arm != first
    else:
        assert not res.success and res.cause is FailureCause.PATH_BLOCKED and ctl.robot.arm == first
