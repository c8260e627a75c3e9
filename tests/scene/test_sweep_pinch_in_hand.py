"""The sweep pinch (a spoon taken palm-down: the index and middle sweep it against the pre-closed thumb) moves what it
takes about 2 cm toward the thumb, and the closed hand hides it from the head camera. A robot that knows the object only
from its camera holds it where the sweep left it (`GraspPose.thumb_wall` plus its narrow half width, or where the
closed fingers pinch when that differs by more than 2 cm: `Robot.finger_pinch`), not where it lay before: believed
1.2-3.8 cm off, a spoon set into a bowl by that belief landed off the bowl (dev sim-bench layouts 100306, 100307,
100332). A spoon at the table's outer edge is taken with the fingers pointing outward
(`GraspPose.yaw_range`): pointing inward, the arm cannot roll the palm down there."""
import numpy as np
import pytest

pytestmark = pytest.mark.sim


def _pick(perceived: bool, poses: dict, name: str):
    from memora_core.robot import load_robot_config, make_robot
    from memora_core.robot.control import RuleBasedController
    from memora_core.robot.primitives import Primitive, PrimitiveCall
    from sim.scene import Layout

    config = load_robot_config("sim_g1_dex3")
    if perceived:
        config = config.model_copy(update={"type": "sim_perceived"})
    robot = make_robot(config, layout=Layout(seed=0, poses=poses))
    ctl = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions)
    return robot, ctl, ctl.execute(PrimitiveCall(primitive=Primitive.PICK, object=name))


def test_a_swept_spoon_is_held_where_the_sweep_left_it():
    robot, ctl, result = _pick(True, {"metal spoon": (0.42, -0.15, 0.3)}, "metal spoon")
    try:
        assert result.success, result.detail
        assert ctl.c.state.pose.roll_deg  # a sweep pinch took it
        believed, truth = robot.object_pose("metal spoon")[0], robot.ground_truth_pose("metal spoon")[0]
        assert np.linalg.norm(believed - truth) < 0.008
    finally:
        robot.close()


def test_the_right_hand_pinches_a_spoon_at_the_outer_right_edge_fingers_outward():
    from memora_core.robot import load_robot_config, make_robot
    from memora_core.robot.control import RuleBasedController
    from memora_core.robot.primitives import Primitive, PrimitiveCall
    from sim.scene import Layout

    robot = make_robot(load_robot_config("sim_g1_dex3"),
                       layout=Layout(seed=0, poses={"yellow spoon": (0.54, -0.36, np.radians(-19))}))
    try:
        ctl = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions)
        ctl.c.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object="yellow spoon"), arms=["right"])
        assert robot.held_object() == "yellow spoon"
        pose = ctl.c.state.pose
        assert pose.roll_deg and pose.yaw_deg < -60  # outside the usual aligned range
    finally:
        robot.close()


@pytest.mark.parametrize("name, pose", [("metal spoon", (0.42, -0.15, 0.3)), ("yellow spoon", (0.50, 0.10, -1.2)),
                                        ("cinnamon tea box", (0.45, -0.05, 0.4))])
def test_the_closed_fingers_read_where_they_pinch_what_they_hold(name, pose):
    """`Robot.finger_pinch`, from the hand's joint state alone: along the direction the hand closed, the pinch point
    lies within 1.7 cm of the held object's true centre (the error `hand_pinch.PINCH_TRUST_M` allows for)."""
    robot, ctl, result = _pick(False, {name: pose}, name)
    try:
        assert result.success, result.detail
        pinch = robot.finger_pinch()
        truth = robot.ground_truth_pose(name)[0]
        assert abs(float(np.dot(pinch.point - truth, pinch.closing))) < 0.017
    finally:
        robot.close()
