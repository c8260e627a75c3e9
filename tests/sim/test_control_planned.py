"""Planned free-space moves (the motion library through `Robot.arm_planner`) inside the controller, on real
MuJoCo: a planned palm move arrives without touching anything, planning failures come back typed, and a
carry whose straight moves all fail is planned instead."""
import numpy as np
import pytest

from memora_core.robot.control import FailureCause, PrimitiveFailure
from memora_core.schemas import PlanStep

pytest.importorskip("ompl")
pytestmark = pytest.mark.sim

OBJS = {"coca-cola bottle": (0.40, -0.25, 0.0), "fanta can": (0.40, -0.05, 0.0), "yellow bowl": (0.45, 0.15, 0.0)}



def test_a_planned_move_reaches_its_point_and_failures_are_typed(ctl):
    robot, planned = ctl.robot, ctl.c.planned
    goal = np.array([0.40, -0.15, ctl.c.table_z + 0.30])
    before = {o.name: robot.object_pose(o.name)[0].copy() for o in robot.scene_objects()}
    planned.move_to(goal, set(), "probe")
    assert np.linalg.norm(robot.hand_position() - goal) < 3 * ctl.cfg.ik.tolerance
    assert all(np.linalg.norm(robot.object_pose(n)[0] - p) < 0.005 for n, p in before.items())
    assert planned.plan_seconds and planned.plan_seconds[-1] > 0
    with pytest.raises(PrimitiveFailure) as far:
        planned.move_to(np.array([0.68, 0.40, 1.0]), set(), "probe")  # past both arms' reach from the right arm
    assert far.value.cause is FailureCause.IK_MISS and far.value.residual is not None
    coke = robot.object_pose("coca-cola bottle")[0]
    with pytest.raises(PrimitiveFailure) as inside:
        planned.move_to(coke, set(), "probe")  # the palm inside the bottle
    assert inside.value.cause in (FailureCause.PATH_BLOCKED, FailureCause.IK_MISS)
    if inside.value.cause is FailureCause.PATH_BLOCKED:
        assert "coca-cola bottle" in inside.value.blockers


def test_a_carry_whose_straight_moves_all_fail_is_planned(ctl):
    """Every straight level carry is refused (injected, as a neighbour in every straight path would): with
    `motion.planned_carry` on, the place still succeeds through the planned carry, and nothing else moves;
    with it off (the default) the same place fails with the straight carry's typed failure."""
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can")).success
    robot = ctl.robot
    ctl.cfg.motion.planned_carry = True  # opt-in (off by default)
    refused = []

    def no_straight_carry(above_xy, level, ignore):
        refused.append(level)
        raise PrimitiveFailure.blocked("carry", np.array([above_xy[0], above_xy[1], level]), ["table"], [])

    ctl.c.transit._carry_at = no_straight_carry
    others = {n: robot.object_pose(n)[0].copy() for n in ("coca-cola bottle", "yellow bowl")}
    res = ctl.execute_step(PlanStep(index=1, action="place", object="fanta can", target="in yellow bowl"))
    assert refused, "the straight carry was never tried"
    assert res.success, res.detail
    assert ctl.c.planned.plan_seconds, "no move was planned"
    assert all(np.linalg.norm(robot.object_pose(n)[0] - p) < 0.02 for n, p in others.items())


def test_without_planned_carry_the_straight_carry_failure_stands(ctl):
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can")).success
    assert not ctl.cfg.motion.planned_carry

    def no_straight_carry(above_xy, level, ignore):
        raise PrimitiveFailure.blocked("carry", np.array([above_xy[0], above_xy[1], level]), ["table"], [])

    ctl.c.transit._carry_at = no_straight_carry
    res = ctl.execute_step(PlanStep(index=1, action="place", object="fanta can", target="in yellow bowl"))
    assert not res.success and not ctl.c.planned.plan_seconds


def _wound_up(ctl, reposture_failure):
    """Every straight carry fails to solve (as from an arm left wound up beside the torso) and each re-posture
    fails with `reposture_failure(point)` before moving; returns the levels the straight carry was tried at."""
    tried = []

    def no_straight_carry(above_xy, level, ignore):
        tried.append(level)
        raise PrimitiveFailure.no_ik("carry", np.array([above_xy[0], above_xy[1], level]), 0.06, ctl.cfg.ik.tolerance)

    def refused(point, ignore, what):
        raise reposture_failure(np.asarray(point, float))

    ctl.c.transit._carry_at = no_straight_carry
    ctl.c.transit.reposture = refused
    return tried


def test_an_empty_hand_whose_reposture_is_refused_is_carried_by_a_planned_path(ctl):
    """The hand empty, no straight carry solving and the joint-space re-posture refused for a neighbour before it
    moved (dev 98152: a hand left beside the torso failed the next pick): the pick goes on along a planned path,
    with `motion.planned_carry` off."""
    assert not ctl.cfg.motion.planned_carry
    tried = _wound_up(ctl, lambda p: PrimitiveFailure.blocked("carry", p, ["yellow bowl"], ["yellow bowl"],
                                                             posture=True))
    res = ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can"))
    assert tried, "the straight carry was never tried"
    assert res.success, res.detail
    assert ctl.c.planned.plan_seconds, "no move was planned"
    assert ctl.robot.held_object() == "fanta can"


def test_a_held_object_is_not_carried_by_a_planned_path_when_its_reposture_is_refused(ctl):
    """The same refusals with an object in the hand: the planned carry stays opt-in there, the typed failure
    stands."""
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can")).success
    _wound_up(ctl, lambda p: PrimitiveFailure.blocked("carry", p, ["yellow bowl"], ["yellow bowl"], posture=True))
    res = ctl.execute_step(PlanStep(index=1, action="place", object="fanta can", target="in yellow bowl"))
    assert not res.success and res.cause is FailureCause.IK_MISS
    assert not ctl.c.planned.plan_seconds
