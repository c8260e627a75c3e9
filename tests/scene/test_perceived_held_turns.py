"""A held object turns with the hand on the perceived-pose sim: the grasp is rigid, so a pour's tilt is seen in the
object's pose (it was kept as seen at the grasp, and every pour failed its tilt check: the demo's Task A)."""
import numpy as np
import pytest

pytestmark = pytest.mark.sim


def _tilt_deg(rot: np.ndarray) -> float:
    return float(np.degrees(np.arccos(np.clip(rot[2, 2], -1.0, 1.0))))


def test_the_held_bottle_tilts_as_the_wrist_rolls():
    from memora_core.robot import make_robot
    from memora_core.robot.control import RuleBasedController
    from memora_core.robot.primitives import Primitive, PrimitiveCall
    from sim.scene import Layout

    robot = make_robot("sim_g1_perceived", layout=Layout(seed=0, poses={"coca-cola bottle": (0.40, -0.15, 0.0),
                                                                       "orange cup": (0.45, 0.10, 0.0)}))
    try:
        ctl = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions)
        assert ctl.execute(PrimitiveCall(primitive=Primitive.PICK, object="coca-cola bottle")).success
        name = "coca-cola bottle"
        assert _tilt_deg(robot.object_pose(name)[1]) < 15
        roll = f"{robot.arm}_wrist_roll_joint"  # the arm that picked it is the active one
        q = robot.joint_positions()[roll]
        robot.command({roll: q - 0.9 * np.sign(q or 1.0)})  # toward the side of its range with room
        believed, truth = robot.object_pose(name)[1], robot.ground_truth_pose(name)[1]
        assert _tilt_deg(truth) > 30                                   # it really tipped
        assert abs(_tilt_deg(believed) - _tilt_deg(truth)) < 10       # and the controller sees it tipped
    finally:
        robot.close()
