"""Dex3 fingers in MuJoCo: closing on a bottle the hand was brought beside, the grasp counts only with finger
contact (thumb and an opposing finger), and the object comes up with the hand."""
import numpy as np
import pytest

from memora_core.robot import load_robot_config, make_robot
from memora_core.robot.hand import PRESS_PADS, HandPostures, Side, blocked_digits, is_grasping, joint_ranges
from sim.dex3 import Dex3Sim, close_and_grasp
from sim.scene import Layout

pytestmark = pytest.mark.sim
BOTTLE = "coca-cola bottle"


def _beside_bottle(offset_y: float):
    """The right palm level (fingers forward, palm toward the midline) beside the bottle's upper half:
    `offset_y` further out than the grip (0: the bottle between thumb and fingers)."""
    robot = make_robot(load_robot_config("sim_g1"), layout=Layout(seed=0, poses={BOTTLE: (0.40, -0.20, 0.0)}))
    hand = Dex3Sim(robot.model, robot.data, "right")
    centre = robot.object_pose(BOTTLE)[0]
    palm = centre - np.array([0.045, 0.05, 0.0]) + [0.0, 0.0, 0.08]

    def go(target):
        q, residual = robot.solve_ik(np.asarray(target), rotation=np.eye(3), orientation_cost=0.5)
        assert residual < 0.01
        robot.command(q)

    go([0.22, -0.30, 1.02])                   # up out of the tuck, clear of the table's edge
    go(palm + [0.0, -0.08, 0.06])             # beside and above
    go(palm + [0.0, -0.08 - offset_y, 0.0])   # level with the grip
    if offset_y == 0.0:
        go(palm)                              # in: the bottle between thumb and fingers
    return robot, hand, robot.model.body(robot.scene.object(BOTTLE).body_name).id


def test_closed_posture_stays_inside_the_joint_ranges():
    p = HandPostures()
    for side in Side:
        for q, (lo, hi) in zip(p.closed(side), joint_ranges(side).values()):
            assert lo < q < hi
        assert p.closed(side) != p.open(side)


def test_fingers_close_on_the_bottle_and_lift_it():
    robot, hand, body = _beside_bottle(0.0)
    assert hand.touching(body) == set()       # the open hand arrived without touching it
    z0 = robot.object_pose(BOTTLE)[0][2]
    assert close_and_grasp(robot, BOTTLE, hand=hand)
    assert {"thumb"} < hand.touching(body)    # thumb and a finger on it
    # The tactile pads the sim bridge publishes feel it on the thumb and a finger (PRESS_PADS order).
    felt = {pad[0] for pad, force in zip(PRESS_PADS, hand.pad_forces()) if force > 0.3}
    assert "thumb" in felt and felt & {"index", "middle"}, hand.pad_forces()
    closed = hand.q()
    assert abs(closed[4]) > 0.5 and abs(closed[6]) > 0.5  # the fingers' distal joints really curled
    assert np.all(np.abs(hand.torque()) <= 2.0 + 1e-6)    # pressing within the finger torque limit
    # The check a real hand makes from finger state alone agrees: thumb and fingers stopped short of closed.
    assert is_grasping(blocked_digits("right", hand.target, list(hand.q())))
    q, _ = robot.solve_ik(robot.hand_position() + [0.0, 0.0, 0.10], rotation=np.eye(3), orientation_cost=0.5)
    robot.command(q)
    robot.settle(0.3)
    assert robot.held_object() == BOTTLE
    assert robot.object_pose(BOTTLE)[0][2] - z0 > 0.08
    # The weld carries it, the hand pressing lightly (sim.dex3.HOLD_TORQUE_LIMIT): the fingers are still on it
    # (the thumb of this level hand may slide off the lifted bottle).
    assert hand.touching(body) & {"index", "middle", "thumb"}
    robot.close()


def test_no_grasp_without_finger_contact():
    robot, hand, body = _beside_bottle(0.05)  # 13 cm out: the closing fingers meet nothing
    before = robot.object_pose(BOTTLE)[0]
    hand.close()
    robot.settle(0.6)
    assert blocked_digits("right", hand.target, list(hand.q())) == set()  # closed all the way: nothing held
    assert not close_and_grasp(robot, BOTTLE, hand=hand)
    assert robot.held_object() is None
    assert np.allclose(hand.target, HandPostures().open("right"))  # opened again
    assert np.linalg.norm(robot.object_pose(BOTTLE)[0] - before) < 0.005
    robot.close()


def test_controller_finger_grasp_in_mujoco_picks_and_places_the_bottle():
    """grasp.mode fingers (robot config sim_g1_dex3): the pick skill brings the palm beside the bottle, the
    Dex3 fingers close on it once (held only with finger contact), and the place sets it down standing."""
    from memora_core.robot.control import RuleBasedController
    from memora_core.robot.primitives import Primitive, PrimitiveCall

    robot = make_robot(load_robot_config("sim_g1_dex3"), layout=Layout(seed=0, poses={BOTTLE: (0.40, -0.20, 0.0)}))
    ctl = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions)
    assert ctl.execute(PrimitiveCall(primitive=Primitive.PICK, object=BOTTLE)).success
    body = robot.model.body(robot.scene.object(BOTTLE).body_name).id
    assert {"thumb"} < robot._dex3[robot.arm].touching(body)  # the fingers hold it, not the palm
    res = ctl.execute(PrimitiveCall(primitive=Primitive.PLACE, object=BOTTLE, target="table center", relation="on"))
    assert res.success, res.detail
    pos, rot = robot.object_pose(BOTTLE)
    assert np.linalg.norm(pos[:2] - np.array(robot.scene.regions["table center"][:2])) < 0.04 and rot[2, 2] > 0.99
    robot.close()
