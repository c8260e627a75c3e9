"""A pick that finds the hand holding something else (an earlier step or task failed with it in the hand) puts
that back where it was picked from first, then picks: the next task does not start with "hand already holds".
Without the recovery the pick fails with HAND_FULL. Real MuJoCo."""
import numpy as np
import pytest

from memora_core.robot.control.failures import FailureCause
from memora_core.robot.control.recovery import PutDownHeld
from memora_core.schemas import PlanStep

pytestmark = pytest.mark.sim

OBJS = {"coca-cola bottle": (0.40, -0.15, 0.0), "orange cup": (0.42, 0.10, 0.0)}
BOTTLE, CUP = "coca-cola bottle", "orange cup"


def test_the_held_bottle_is_put_back_before_the_cup_is_picked(ctl):
    robot = ctl.robot
    origin = robot.object_pose(BOTTLE)[0].copy()
    assert ctl.execute_step(PlanStep(index=0, action="pick", object=BOTTLE)).success
    res = ctl.execute_step(PlanStep(index=1, action="pick", object=CUP))
    assert res.success, res.detail
    assert robot.held_object() == CUP
    pos, rot = robot.object_pose(BOTTLE)
    assert np.hypot(*(pos[:2] - origin[:2])) < 0.05 and rot[2, 2] > 0.95  # back where it stood, standing


def test_without_the_recovery_the_pick_fails_hand_full(ctl):
    ctl.recoveries = [r for r in ctl.recoveries if not isinstance(r, PutDownHeld)]
    assert ctl.execute_step(PlanStep(index=0, action="pick", object=BOTTLE)).success
    res = ctl.execute_step(PlanStep(index=1, action="pick", object=CUP))
    assert not res.success and res.cause is FailureCause.HAND_FULL
    assert ctl.robot.held_object() == BOTTLE
