"""A put-down aims the held object at its spot, not the palm: a hand that turns on the way down (after a carry
that had to let it turn, the lowering brings it back towards the grasp's orientation) swings what hangs below
it, and let go there the object lands beside its spot — on a neighbour, or off the table's edge. And an object
that still hangs off its spot at the let-go is kept in the hand (a typed failure), not dropped. Real MuJoCo."""
import numpy as np
import pytest

from memora_core.robot.control.failures import FailureCause, PrimitiveFailure
from memora_core.robot.primitives import Primitive, PrimitiveCall
from memora_core.robot.robot import SceneObject

pytestmark = pytest.mark.sim

OBJS = {"orange cup": (0.40, -0.15, 0.0), "yellow bowl": (0.45, 0.25, 0.0)}
CUP = "orange cup"
SPOT = np.array([0.36, -0.02])


def turned(rot: np.ndarray, deg: float) -> np.ndarray:
    """`rot` pitched by `deg` about the world's y axis."""
    a = np.radians(deg)
    return np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]]) @ rot


def held_cup(ctl):
    ctl.c.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object=CUP))
    assert ctl.robot.held_object() == CUP
    return SceneObject.from_spec(ctl.robot.scene.object(CUP))


def test_the_cup_lands_on_its_spot_though_the_hand_turns_on_the_way_down(ctl):
    robot, c = ctl.robot, ctl.c
    cup = held_cup(ctl)
    carry = c.transit.transit

    def carry_turning_the_hand_away(*a, **k):
        carry(*a, **k)
        # As a relaxed carry leaves it: the hand arrives turned from the orientation the next moves hold.
        c.state.held_rot = turned(robot.hand_rotation(), 20.0)

    c.transit.transit = carry_turning_the_hand_away
    c.putdown.put_down_at(cup, SPOT)
    robot.settle(0.5)
    assert robot.held_object() is None
    pos, rot = robot.object_pose(CUP)
    assert np.hypot(*(pos[:2] - SPOT)) < c.cfg.motion.place_tolerance, pos
    assert rot[2, 2] > 0.95  # standing


def test_an_object_hanging_off_its_spot_is_not_let_go(ctl):
    robot, c = ctl.robot, ctl.c
    cup = held_cup(ctl)
    far = robot.object_pose(CUP)[0][:2] + [0.0, 0.10]
    with pytest.raises(PrimitiveFailure) as e:
        c.putdown.check_aim(cup, far)
    assert e.value.cause is FailureCause.OFF_AIM and e.value.gap == pytest.approx(0.10, abs=0.01)
    assert robot.held_object() == CUP
    c.putdown.check_aim(cup, robot.object_pose(CUP)[0][:2])  # on its spot: fine
