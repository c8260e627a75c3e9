"""The planned approach with a guarded final descent, on real MuJoCo: a lowering whose straight line is refused
is reached through a path the motion library plans (OMPL) to above the point, then a slow straight descent
that stops at the first contact. The straight refusal is injected (as a neighbour beside the forearm causes
it) so that the fall-back runs deterministically; the planning and the descent run on the real physics."""
import numpy as np
import pytest

from memora_core.robot.control import FailureCause, PrimitiveFailure
from memora_core.schemas import PlanStep

pytestmark = pytest.mark.sim

OBJS = {"coca-cola bottle": (0.40, -0.25, 0.0), "fanta can": (0.40, -0.05, 0.0), "yellow bowl": (0.45, 0.15, 0.0)}


def _refuse_straight(ctl, what):
    """Every straight move named `what` through `ArmMotion.go` is refused before moving (path blocked)."""
    arm, real, refused = ctl.c.arm, ctl.c.arm.go, []

    def go(point, ignore=None, name="waypoint", *args, **kwargs):
        if name == what:
            refused.append(np.asarray(point, float).copy())
            raise PrimitiveFailure.blocked(what, np.asarray(point, float), ["coca-cola bottle"], ["coca-cola bottle"])
        return real(point, ignore, name, *args, **kwargs)

    arm.go = go
    return refused


def test_a_lowering_refused_straight_is_planned_and_descends_guarded(ctl):
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can")).success
    refused = _refuse_straight(ctl, "lower")
    res = ctl.execute_step(PlanStep(index=1, action="place", object="fanta can", target="in yellow bowl"))
    assert refused, "the straight lowering was never tried"
    assert res.success, res.detail
    assert ctl.c.planned.plan_seconds, "no planned move ran"
    assert res.placement_error_m < ctl.cfg.motion.place_tolerance
    bottle = ctl.robot.object_pose("coca-cola bottle")[1]
    assert bottle[2, 2] > 0.95  # still standing


def test_without_the_guarded_approach_the_refusal_stands(ctl):
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can")).success
    ctl.c.guarded.settings = ctl.c.guarded.settings.model_copy(update={"guarded_approach": False})
    _refuse_straight(ctl, "lower")
    res = ctl.execute_step(PlanStep(index=1, action="place", object="fanta can", target="in yellow bowl"))
    assert not res.success and res.cause is FailureCause.PATH_BLOCKED


def test_the_guarded_descent_stops_on_contact(ctl):
    robot, c = ctl.robot, ctl.c
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can")).success
    held = c.resolver.require("fanta can")
    hand = robot.hand_position().copy()
    bottom = robot.object_pose("fanta can")[0][2] - held.half_height
    # Aim the palm 3 cm lower than where the can's bottom meets the table: the table stops it first.
    goal = hand - np.array([0.0, 0.0, bottom - c.table_z + 0.03])
    c.guarded.descend(goal, {"fanta can", "table"}, "lower")
    now = robot.hand_position()
    assert now[2] > goal[2] + c.guarded.settings.guard_stall, "it pressed on to the end"
    assert now[2] < hand[2] - 0.01, "it did not descend"
    can_z = robot.object_pose("fanta can")[0][2] - held.half_height
    assert abs(can_z - c.table_z) < 0.015  # the can came down onto the table
    assert robot.held_object() == "fanta can" and robot.object_pose("fanta can")[1][2, 2] > 0.95


def test_a_retract_no_straight_rise_solves_is_planned(ctl):
    robot = ctl.robot
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can")).success
    robot.release()
    robot.settle(ctl.cfg.motion.settle_s)
    hand = robot.hand_position().copy()
    refused = []

    def go(point, ignore=None, name="waypoint", *args, **kwargs):  # every straight rise misses its IK
        refused.append(name)
        raise PrimitiveFailure.no_ik(name, np.asarray(point, float), 0.03, ctl.cfg.ik.tolerance)

    ctl.c.arm.go = go
    ctl.c.transit.retract({"fanta can", "table"})
    assert refused and set(refused) == {"retract"}
    assert ctl.c.planned.plan_seconds, "no planned move ran"
    assert robot.hand_position()[2] > hand[2] + ctl.cfg.motion.approach_height - 0.03
    assert np.linalg.norm(robot.hand_position()[:2] - hand[:2]) < 0.03


def test_a_tuck_no_hand_made_way_clears_is_planned(ctl):
    robot, c = ctl.robot, ctl.c
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can")).success
    robot.release()
    robot.settle(ctl.cfg.motion.settle_s)
    c.transit.retract({"fanta can", "table"})
    real = c.arm.joint_line_from

    def refuse(now, goal, ignore, what, end_ignore=None, at_rest=False):  # every hand-made way to the tuck is refused
        if what == "stow":
            raise PrimitiveFailure.blocked(what, robot.hand_position(), ["fanta can"], ["fanta can"], posture=True)
        return real(now, goal, ignore, what, end_ignore, at_rest)

    c.arm.joint_line_from = refuse
    home = c.arm.rest_posture(robot.arm)
    c.transit.tuck(home)
    assert c.planned.plan_seconds, "no planned move was tried"
    q = robot.joint_positions()
    assert max(abs(q[k] - v) for k, v in home.items()) < 0.1, "the arm did not reach its tuck"
    assert robot.object_pose("fanta can")[1][2, 2] > 0.95
