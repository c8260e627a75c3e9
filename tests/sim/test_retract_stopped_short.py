"""A retract (the empty hand rising off what it just let go of) keeps the orientation the hand let go with. One that
the arm ends short of its point is done when the hand got off: it rose at least `lift_test_height` and touches
nothing. One that did not rise so is still a failure. Real MuJoCo; the shortfall is made by ending the retract's move
early."""
import numpy as np
import pytest

from memora_core.robot.control.failures import FailureCause, PrimitiveFailure
from memora_core.robot.primitives import Primitive, PrimitiveCall

pytestmark = pytest.mark.sim

OBJS = {"orange cup": (0.40, -0.15, 0.0), "yellow bowl": (0.45, 0.25, 0.0)}
CUP = "orange cup"


def released_cup(ctl) -> np.ndarray:
    """Pick the cup, set it down again, and let it go: the hand is empty just above it."""
    robot, c = ctl.robot, ctl.c
    c.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object=CUP))
    robot.release()
    robot.settle(0.3)
    assert robot.held_object() is None
    return robot.hand_position()


def stop_short(ctl, fraction: float) -> None:
    """The next retract moves `fraction` of its way, then reports the shortfall as the arm would."""
    arm, follow = ctl.c.arm, ctl.c.arm.follow

    def short_follow(path, point, ignore, what, exact=True, duration=None):
        if what != "retract":
            return follow(path, point, ignore, what, exact, duration)
        start = ctl.robot.hand_position()
        part = start + fraction * (np.asarray(point) - start)
        follow(arm.plan_line(part, ignore, what), part, ignore, what, exact=False)
        raise PrimitiveFailure.short_of(what, float(np.linalg.norm(point - ctl.robot.hand_position())))

    arm.follow = short_follow


def test_a_retract_that_rose_off_the_object_is_done_though_short(ctl):
    start = released_cup(ctl)
    stop_short(ctl, 0.6)
    ctl.c.transit.retract({CUP, "table"})  # no failure
    assert ctl.robot.hand_position()[2] - start[2] >= ctl.c.cfg.motion.lift_test_height


def test_a_retract_that_hardly_rose_is_still_a_failure(ctl):
    released_cup(ctl)
    stop_short(ctl, 0.05)
    with pytest.raises(PrimitiveFailure) as e:
        ctl.c.transit.retract({CUP, "table"})
    assert e.value.cause is FailureCause.STOPPED_SHORT


def test_the_hand_rises_keeping_the_orientation_it_let_go_with(ctl):
    # A relaxed carry or a re-postured lowering leaves the hand turned from the grasp pose's orientation; turning it
    # back while rising off what it let go of drags that with the open fingers.
    from memora_core.robot.control.geometry import angle_deg
    from tests.sim.staging import roll_held

    robot, c = ctl.robot, ctl.c
    c.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object=CUP))
    roll_held(ctl, -0.35)
    robot.release()
    robot.settle(0.3)
    let_go = robot.hand_rotation()
    c.transit.retract({CUP, "table"})
    turned = angle_deg(robot.hand_rotation()[:, 2], let_go[:, 2])
    assert turned < 5.0, f"the hand turned {turned:.1f} deg while rising"
    assert c.state.let_go_rot is None  # kept for the retract only
