"""The controller package on real MuJoCo: typed failure causes (missing, unreachable, blocked) with their data,
the step-level recoveries' order and budgets, and the give/move_to skills (pick, place and pour have their
own tests in test_controller.py)."""
import numpy as np
import pytest

from memora_core.robot import make_robot
from memora_core.robot.control import FailureCause, FailureReason, PrimitiveFailure, RuleBasedController
from memora_core.robot.control.recovery import MakeRoom, TuckAndRetry
from memora_core.robot.primitives import Primitive, PrimitiveCall
from memora_core.schemas import PlanStep

pytestmark = pytest.mark.sim

OBJS = {"coca-cola bottle": (0.40, -0.25, 0.0), "fanta can": (0.40, -0.05, 0.0), "bread": (0.76, 0.35, 0.0)}



def test_a_missing_object_is_typed_object_missing(ctl):
    res = ctl.execute_step(PlanStep(index=0, action="pick", object="cinnamon tea box"))
    assert not res.success and res.reason is FailureReason.OBJECT_MISSING and res.cause is FailureCause.OBJECT_MISSING


def test_an_unreachable_point_is_typed_with_its_residual_or_workspace(ctl):
    arm, tol = ctl.c.arm, ctl.cfg.ik.tolerance
    ws = ctl.robot.limits.config.workspace
    with pytest.raises(PrimitiveFailure) as outside:
        arm.plan_line(np.array(ws.max) + 0.2, set(), "probe")
    assert outside.value.cause is FailureCause.OUT_OF_WORKSPACE and outside.value.what == "probe"
    # Inside the box but past the right arm's reach, over the far left corner of the table.
    far_left = np.array([0.68, 0.38, 1.0])
    assert ctl.robot.arm == "right"
    with pytest.raises(PrimitiveFailure) as far:
        arm.plan_line(far_left, set(), "probe", start_xyz=far_left)
    f = far.value
    assert f.cause is FailureCause.IK_MISS and f.ik_miss and f.reason is FailureReason.UNREACHABLE
    assert f.residual > 2 * tol and np.allclose(f.point, far_left)
    res = ctl.execute_step(PlanStep(index=0, action="pick", object="bread"))  # the same corner, both arms tried
    assert not res.success and res.reason is FailureReason.UNREACHABLE and res.cause is FailureCause.NO_GRASP


def test_a_path_through_an_object_is_typed_blocked_and_names_it(ctl):
    coke = ctl.robot.object_pose("coca-cola bottle")[0]
    with pytest.raises(PrimitiveFailure) as blocked:  # straight down from above into the bottle's middle
        ctl.c.arm.plan_line(coke, set(), "probe", start_xyz=coke + [0.0, 0.0, 0.3])
    f = blocked.value
    assert f.cause is FailureCause.PATH_BLOCKED and f.reason is FailureReason.COLLISION
    assert "coca-cola bottle" in f.blockers and "table" not in f.blockers
    assert f.stopped_short is None and not f.ik_miss


def test_a_blocked_goal_with_nothing_named_says_so():
    # the planner finds no clear posture at a release point: typed as blocked, and the text does not end in "by "
    f = PrimitiveFailure.blocked("lower", np.array([0.4, 0.1, 0.9]), [], [])
    assert f.cause is FailureCause.PATH_BLOCKED and not f.blockers
    assert f.detail == "lower: path to [0.4, 0.1, 0.9] blocked: no clear posture there"


@pytest.mark.slow
def test_a_pick_blocked_by_a_neighbour_is_typed_no_grasp_with_the_neighbour_first():
    """Layout 1001 (see test_controller): every hand that could take the yellow bowl comes down on the bottle."""
    robot = make_robot("sim_g1", seed=1001)
    ctl = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions)
    side = ctl.c.grasps.arm_order(float(robot.object_pose("yellow bowl")[0][1]))[:1]  # its own side's arm (time)
    with pytest.raises(PrimitiveFailure) as e:
        ctl.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object="yellow bowl"), arms=side)
    assert e.value.cause is FailureCause.NO_GRASP and e.value.blockers[0] == "coca-cola bottle"
    robot.close()


class _Recording:
    def __init__(self, name, log, applies, works):
        self.name, self.log, self._applies, self._works = name, log, applies, works

    def applies(self, f, call, attempt):
        self.log.append(("applies", self.name))
        return self._applies(f, call, attempt)

    def recover(self, f, call, attempt):
        self.log.append(("recover", self.name))
        return self._works


def _failing_once(cause, calls):
    def skill(call):
        calls.append(call)
        if len(calls) == 1:
            raise PrimitiveFailure(FailureReason.UNREACHABLE, "probe failure", cause=cause)
        return 0.0
    return skill


def test_recoveries_run_in_order_first_applicable_only_then_the_step_again(ctl):
    log, calls = [], []
    ctl.recoveries = [_Recording("a", log, lambda f, c, a: False, True),
                      _Recording("b", log, lambda f, c, a: f.cause is FailureCause.IK_MISS, True),
                      _Recording("c", log, lambda f, c, a: True, True)]
    ctl.skills.move_to = _failing_once(FailureCause.IK_MISS, calls)
    res = ctl.execute(PrimitiveCall(primitive=Primitive.MOVE_TO, target="table center"))
    assert res.success and len(calls) == 2
    assert log == [("applies", "a"), ("applies", "b"), ("recover", "b")]  # 'c' never consulted


def test_a_recovery_that_does_not_work_leaves_the_original_typed_failure(ctl):
    log, calls = [], []
    ctl.recoveries = [_Recording("a", log, lambda f, c, a: True, False)]
    ctl.skills.move_to = _failing_once(FailureCause.STOPPED_SHORT, calls)
    res = ctl.execute(PrimitiveCall(primitive=Primitive.MOVE_TO, target="table center"))
    assert not res.success and res.cause is FailureCause.STOPPED_SHORT and len(calls) == 1


def test_default_recoveries_order_and_when_each_applies(ctl):
    tuck, room, held, again = ctl.recoveries
    assert isinstance(tuck, TuckAndRetry) and isinstance(room, MakeRoom)
    from memora_core.robot.control.recovery import PlaceAgain, PutDownHeld, StepAttempt
    assert isinstance(held, PutDownHeld) and isinstance(again, PlaceAgain)
    move = PrimitiveCall(primitive=Primitive.MOVE_TO, target="table center")
    pick = PrimitiveCall(primitive=Primitive.PICK, object="fanta can")
    ik = PrimitiveFailure(FailureReason.UNREACHABLE, "x", cause=FailureCause.IK_MISS)
    hit = PrimitiveFailure(FailureReason.COLLISION, "x", ["coca-cola bottle"], cause=FailureCause.ARM_HIT)
    fresh = StepAttempt()
    assert tuck.applies(ik, move, fresh) and not tuck.applies(hit, move, fresh) and not tuck.applies(ik, pick, fresh)
    assert not tuck.applies(ik, move, StepAttempt(used=["tuck_and_retry"]))        # once per step
    assert room.applies(hit, pick, fresh) and not room.applies(hit, move, fresh)    # never for a move_to
    own = PrimitiveFailure(FailureReason.COLLISION, "x", ["fanta can"], cause=FailureCause.PATH_BLOCKED)
    assert not room.applies(own, pick, fresh)                                       # never the step's own object
    budget = StepAttempt(moved=["a", "b", "c"][: ctl.cfg.motion.clear_moves])
    assert not room.applies(hit, pick, budget)                                      # at most clear_moves
    full = PrimitiveFailure(FailureReason.NOT_ALLOWED, "x", cause=FailureCause.HAND_FULL)
    assert not held.applies(full, pick, fresh)                                      # nothing in the hand
    place = PrimitiveCall(primitive=Primitive.PLACE, object="fanta can", target="yellow bowl")
    off = PrimitiveFailure(FailureReason.POSTCONDITION, "x", cause=FailureCause.LANDED_OFF, gap=0.08)
    assert again.applies(off, place, fresh) and not again.applies(hit, place, fresh)  # only what landed off
    assert not again.applies(off, pick, fresh)                                      # only a place
    assert not again.applies(off, place, StepAttempt(used=["place_again"]))         # once per step
    assert ctl.execute(PrimitiveCall(primitive=Primitive.PICK, object="coca-cola bottle")).success
    assert held.applies(full, pick, fresh) and not held.applies(hit, pick, fresh)   # only a full hand, on a pick
    assert not held.applies(full, move, fresh)
    assert not held.applies(full, pick, StepAttempt(used=["put_down_held"]))        # once per step
    assert not again.applies(off, place, fresh)                                     # not with something in the hand


def test_move_to_and_give_skills(ctl):
    res = ctl.execute(PrimitiveCall(primitive=Primitive.MOVE_TO, target="table center"))
    assert res.success, res.detail
    centre = ctl.c.regions["table center"]
    assert np.linalg.norm(ctl.robot.hand_position() - centre) < 0.03 and res.placement_error_m < 0.03
    res = ctl.execute_step(PlanStep(index=1, action="give", object="fanta can"))
    assert res.success, res.detail
    person = ctl.c.regions["person"]
    pos = ctl.robot.object_pose("fanta can")[0]
    assert ctl.robot.held_object() is None and np.hypot(*(pos - person)[:2]) <= ctl.cfg.motion.place_tolerance
