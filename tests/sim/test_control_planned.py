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
