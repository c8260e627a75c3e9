"""A bottle that leans in the hand (a pour left the wrist turned) is stood up before it is put down: the hand is
turned back by the rotation that stands it as it stood at the grasp. Let go leaning, it falls. Real MuJoCo."""
import numpy as np
import pytest

from memora_core.robot.control.geometry import rotation_onto
from memora_core.robot.primitives import Primitive, PrimitiveCall
from memora_core.robot.robot import SceneObject

pytestmark = pytest.mark.sim

OBJS = {"coca-cola bottle": (0.40, -0.15, 0.0), "yellow bowl": (0.45, 0.2, 0.0)}
BOTTLE = "coca-cola bottle"


def lean_deg(robot) -> float:
    rot = robot.object_pose(BOTTLE)[1]
    return float(np.degrees(np.arccos(np.clip(rot[2, 2], -1.0, 1.0))))


def test_the_rotation_onto_a_direction():
    rng = np.random.default_rng(0)
    for a, b in rng.normal(size=(50, 2, 3)):
        r = rotation_onto(a, b)
        np.testing.assert_allclose(r @ (a / np.linalg.norm(a)), b / np.linalg.norm(b), atol=1e-9)
        np.testing.assert_allclose(r @ r.T, np.eye(3), atol=1e-9)
    up = np.array([0.0, 0.0, 1.0])
    np.testing.assert_allclose(rotation_onto(up, -up) @ up, -up, atol=1e-9)


@pytest.mark.parametrize("tolerance_deg, stands", [(8.0, True), (180.0, False)])
def test_a_leaning_bottle_is_stood_up_before_it_is_let_go(ctl, tolerance_deg, stands):
    robot, c = ctl.robot, ctl.c
    c.cfg.motion.upright_tolerance_deg = tolerance_deg  # 180: never turned back (the behaviour before)
    c.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object=BOTTLE))
    assert robot.held_object() == BOTTLE and lean_deg(robot) < 5
    roll = f"{robot.arm}_wrist_roll_joint"
    now, (lo, hi) = robot.joint_positions()[roll], robot.limits.ranges[roll]
    robot.command({roll: now + (0.45 if hi - now > now - lo else -0.45)})  # as a pour leaves it
    robot.settle(0.5)
    assert lean_deg(robot) > 15
    c.state.held_rot = robot.hand_rotation()  # as a planned move records it: the object hangs as this posture holds it
    bottle = SceneObject.from_spec(robot.scene.object(BOTTLE))
    c.putdown.put_down_at(bottle, np.array([0.35, -0.05]))
    robot.settle(1.0)
    assert robot.held_object() is None
    assert (lean_deg(robot) < 10) is stands, lean_deg(robot)
