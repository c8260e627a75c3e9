"""Making room for a put-down onto the table keeps the spots that put-down would use: a neighbour set aside for it
does not land on them (before, the cup moved out of the bread's way could take the very spot beside the bowl the
bread was to go to, and the put-down then found no room at all). Real MuJoCo."""
import numpy as np
import pytest

from memora_core.robot.control.recovery import MakeRoom
from memora_core.robot.control.targets import place_target
from memora_core.robot.primitives import Primitive, PrimitiveCall
from memora_core.robot.robot import SceneObject

pytestmark = pytest.mark.sim

OBJS = {"bread": (0.30, 0.20, 0.0), "yellow bowl": (0.45, -0.05, 0.0), "orange cup": (0.33, -0.22, 0.0)}


def test_a_neighbour_set_aside_for_a_put_down_keeps_off_its_spots(ctl):
    robot, c = ctl.robot, ctl.c
    c.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object="bread"))
    assert robot.held_object() == "bread"
    call = PrimitiveCall(primitive=Primitive.PLACE, object="bread", target="table next to yellow bowl")
    bread = SceneObject.from_spec(robot.scene.object("bread"))
    spots = place_target(c, call.target, call.relation, bread).spots
    reserved = MakeRoom(c).reserved_spots(call)
    assert reserved and [tuple(s) for s, _ in reserved] == [tuple(s[:2]) for s in spots[:len(reserved)]]
    assert all(r == pytest.approx(bread.radius) for _, r in reserved)
    # Not for a put into a container, nor with an empty hand.
    assert MakeRoom(c).reserved_spots(call.model_copy(update={"target": "yellow bowl"})) == []
    c.putdown.put_back(bread)
    assert MakeRoom(c).reserved_spots(call) == []
    # Set the cup aside with the bread's spots kept: it lands clear of every one of them.
    c.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object="orange cup"))
    cup = SceneObject.from_spec(robot.scene.object("orange cup"))
    work = [c.scene.xy("yellow bowl")]
    c.putdown.set_aside(cup, work, reserved)
    at = robot.object_pose("orange cup")[0][:2]
    for s, r in reserved:
        assert np.linalg.norm(at - s) >= r + cup.radius + c.cfg.motion.aside_gap - c.cfg.motion.place_tolerance
