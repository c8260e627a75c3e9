"""A lift no straight rise solves is planned by the motion library, the object held as it was grasped: on real
MuJoCo, with the straight refusal injected (as the end of the arm's reach causes it far out on the table) so that
the fall-back runs deterministically."""
import numpy as np
import pytest

from memora_core.robot.control import PrimitiveFailure
from memora_core.schemas import PlanStep

pytestmark = pytest.mark.sim

OBJS = {"coca-cola bottle": (0.40, -0.25, 0.0), "yellow bowl": (0.45, 0.15, 0.0)}


def _refuse_straight_lifts(ctl):
    """Every straight lift higher than the test lift is refused before moving (IK miss); the test lift runs."""
    arm, real, refused = ctl.c.arm, ctl.c.arm.plan_line, []
    test = ctl.cfg.motion.lift_test_height

    def plan_line(point, ignore, what, *args, **kwargs):
        hand = ctl.robot.hand_position()
        if what == "lift" and point[2] > hand[2] + 1.5 * test:
            refused.append(np.asarray(point, float).copy())
            raise PrimitiveFailure.no_ik(what, np.asarray(point, float), 0.03, ctl.cfg.ik.tolerance)
        return real(point, ignore, what, *args, **kwargs)

    arm.plan_line = plan_line
    return refused


def test_a_lift_no_straight_rise_solves_is_planned_and_keeps_the_bottle_upright(ctl):
    refused = _refuse_straight_lifts(ctl)
    start = ctl.robot.object_pose("coca-cola bottle")[0].copy()
    res = ctl.execute_step(PlanStep(index=0, action="pick", object="coca-cola bottle"))
    assert refused, "no straight lift was tried"
    assert res.success, res.detail
    assert ctl.c.planned.plan_seconds, "no planned move ran"
    pos, rot = ctl.robot.object_pose("coca-cola bottle")
    assert pos[2] > start[2] + ctl.cfg.motion.lift_height - 0.03, "it did not rise"
    assert np.linalg.norm(pos[:2] - start[:2]) < 0.03, "it did not rise straight"
    assert rot[2, 2] > np.cos(np.radians(8)), "the bottle tilted in the hand"


def test_without_the_planned_fallback_the_lift_refusal_stands(ctl):
    ctl.c.guarded.settings = ctl.c.guarded.settings.model_copy(update={"guarded_approach": False})
    refused = _refuse_straight_lifts(ctl)
    res = ctl.execute_step(PlanStep(index=0, action="pick", object="coca-cola bottle"))
    assert refused and not res.success
    assert not ctl.c.planned.plan_seconds
