"""The controller's fall-backs for moves that are refused before anything moves, on real MuJoCo: a lowering the
straight line cannot solve from the carry's posture is reached by a re-posture; a retract whose straight rises
are blocked by a neighbour rises away from it; an object that cannot be lowered back where it stood is put
down on the nearest free spot instead of being dropped. The refusal is injected (as a wound-up arm or a
neighbour beside the forearm would cause it) so that each fall-back runs deterministically; the fall-back
itself runs on the real physics."""
import numpy as np
import pytest

from memora_core.robot.control import FailureCause, PrimitiveFailure
from memora_core.schemas import PlanStep

pytestmark = pytest.mark.sim

OBJS = {"coca-cola bottle": (0.40, -0.25, 0.0), "fanta can": (0.40, -0.05, 0.0), "yellow bowl": (0.45, 0.15, 0.0)}



def _refuse(ctl, what, times, make, where=lambda p: True):
    """Make the next `times` straight moves named `what` (to points `where` holds for) fail before moving with
    `make(point)`."""
    arm, real, refused = ctl.c.arm, ctl.c.arm.go, []

    def go(point, ignore=None, name="waypoint", *args, **kwargs):
        if name == what and len(refused) < times and where(np.asarray(point, float)):
            refused.append(np.asarray(point, float).copy())
            raise make(np.asarray(point, float))
        return real(point, ignore, name, *args, **kwargs)

    arm.go = go
    return refused


def test_a_lowering_that_does_not_solve_from_the_carry_posture_is_reached_by_a_reposture(ctl):
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can")).success
    refused = _refuse(ctl, "lower", 1, lambda p: PrimitiveFailure.no_ik("lower", p, 0.03, ctl.cfg.ik.tolerance))
    res = ctl.execute_step(PlanStep(index=1, action="place", object="fanta can", target="in yellow bowl"))
    assert refused, "the lowering was never tried"
    assert res.success, res.detail
    assert res.placement_error_m < ctl.cfg.motion.place_tolerance


def test_without_the_reposture_the_lowering_failure_stands(ctl):
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can")).success

    def no_reposture(point, ignore, what):
        raise PrimitiveFailure.no_ik(what, point, 0.03, ctl.cfg.ik.tolerance)

    ctl.c.transit.reposture = no_reposture
    ctl.c.guarded.settings = ctl.c.guarded.settings.model_copy(update={"guarded_approach": False})  # (see test_control_guarded)
    _refuse(ctl, "lower", 1, lambda p: PrimitiveFailure.no_ik("lower", p, 0.03, ctl.cfg.ik.tolerance))
    res = ctl.execute_step(PlanStep(index=1, action="place", object="fanta can", target="in yellow bowl"))
    assert not res.success and res.cause is FailureCause.IK_MISS


def test_a_retract_blocked_straight_up_by_a_neighbour_rises_away_from_it(ctl):
    robot = ctl.robot
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can")).success
    robot.release()
    robot.settle(ctl.cfg.motion.settle_s)
    hand = robot.hand_position().copy()
    bottle = robot.object_pose("coca-cola bottle")[0].copy()
    # Every straight rise is refused for the bottle beside the hand (3 heights); the shifted ones are not.
    refused = _refuse(ctl, "retract", 3, lambda p: PrimitiveFailure.blocked("retract", p, ["coca-cola bottle"],
                                                                            ["coca-cola bottle"]))
    ctl.c.transit.retract({"fanta can", "table"})
    assert len(refused) == 3 and all(np.allclose(p[:2], hand[:2]) for p in refused)
    now = robot.hand_position()
    assert now[2] > hand[2] + ctl.cfg.motion.approach_height / 2
    # It moved away from the bottle, not toward it.
    assert np.linalg.norm(now[:2] - bottle[:2]) > np.linalg.norm(hand[:2] - bottle[:2]) + 0.02
    assert np.linalg.norm(robot.object_pose("coca-cola bottle")[0] - bottle) < 0.005


def test_an_object_that_cannot_be_lowered_back_where_it_stood_goes_down_on_a_free_spot_nearby(ctl):
    robot = ctl.robot
    origin = robot.object_pose("fanta can")[0].copy()
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can")).success
    # The lowering onto its own spot is refused (as a neighbour now in the way would): it is not dropped.
    refused = _refuse(ctl, "lower", 10, lambda p: PrimitiveFailure.blocked("lower", p, ["coca-cola bottle"],
                                                                           ["coca-cola bottle"]),
                      where=lambda p: np.linalg.norm(p[:2] - origin[:2]) < 0.01)
    ctl.c.putdown.put_back(ctl.c.resolver.require("fanta can"))
    assert len(refused) == 1 and robot.held_object() is None
    pos, rot = robot.object_pose("fanta can")
    assert abs(pos[2] - origin[2]) < 0.01, "the can was dropped or lies over"
    assert 0.01 < np.linalg.norm(pos[:2] - origin[:2]) < ctl.cfg.motion.table_spot_radius + 0.03
    assert not ctl.c.scene.fell_over(ctl.c.resolver.require("fanta can"), rot)


def test_a_release_point_out_of_reach_with_the_grasp_orientation_is_probed_with_the_hand_free_to_turn(ctl):
    """Holding the grasp's hand orientation, no probe above the bowl solves (injected: as for a far corner with
    a pitched grasp): the release point is found with the relaxed orientation the carry also falls back to, and
    the place succeeds (after the other arm, holding it the same way, could not either)."""
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can")).success
    arm, real, strict = ctl.c.arm, ctl.c.arm.plan_line, []
    bowl = ctl.robot.object_pose("yellow bowl")[0]

    def plan_line(point, ignore, what, *args, **kwargs):
        near_bowl = np.linalg.norm(np.asarray(point, float)[:2] - bowl[:2]) < 0.08
        if what in ("carry", "carry level") and near_bowl and ctl.c.state.held_cost is None:
            strict.append(what)
            raise PrimitiveFailure.no_ik(what, np.asarray(point, float), 0.05, ctl.cfg.ik.tolerance)
        return real(point, ignore, what, *args, **kwargs)

    arm.plan_line = plan_line
    res = ctl.execute_step(PlanStep(index=1, action="place", object="fanta can", target="in yellow bowl"))
    assert strict, "the strict orientation was never tried"
    assert res.success, res.detail
    assert ctl.robot.held_object() is None
