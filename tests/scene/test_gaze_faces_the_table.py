"""A look that checks the table is taken facing it (`Gaze`). The head camera rides on the torso, and a reach can leave
the waist turned so far that the head looks past the table: a frame from there shows nothing, and the controller
would keep believing what it believed. Real MuJoCo physics, the real head camera and scene model."""
import numpy as np
import pytest

pytestmark = pytest.mark.sim

TURNED = {"waist_yaw_joint": -2.3, "waist_roll_joint": 0.45, "waist_pitch_joint": 0.3}


def _controller(config: str = "sim_g1_perceived"):
    from memora_core.robot import load_robot_config, make_robot
    from memora_core.robot.control import RuleBasedController

    cfg = load_robot_config(config)
    robot = make_robot(cfg.model_copy(update={"type": "sim_perceived"}) if "perceived" in config else cfg, seed=3)
    return RuleBasedController(robot, robot.scene.table.height, robot.scene.regions)


def _turn_with_hand_up(ctl) -> np.ndarray:
    """The torso turned away, then the palm raised above the table by the controller's own checked moves (their IK
    is seeded from the posture the arm is in, so the torso stays turned)."""
    robot = ctl.robot
    robot.command_path([TURNED], 2.0)
    robot.settle(0.3)
    ctl.c.arm.go(np.array([0.25, 0.1, 1.0]), set(), "test raise", exact=False)
    robot.settle(0.3)
    assert ctl.c.gaze.waist_turn() > 0.8
    return robot.hand_position()


def test_a_turned_torso_sees_nothing_and_facing_the_table_sees_it_again():
    ctl = _controller()
    robot = ctl.robot
    try:
        on_table = len(robot.layout.poses)
        _turn_with_hand_up(ctl)
        assert len(robot.refresh()) <= 1  # the control: from here the head looks past the table
        before = {n: robot.ground_truth_pose(n)[0] for n in robot.layout.poses}
        assert ctl.c.gaze.face_table()
        assert ctl.c.gaze.waist_turn() <= robot.config.motion.face_table_within + 1e-6
        assert len(robot.refresh()) >= on_table - 2
        for name, pos in before.items():  # turning moved nothing on the table
            assert np.linalg.norm(robot.ground_truth_pose(name)[0] - pos) < 0.003, name
        assert not ctl.c.gaze.face_table()  # upright already: nothing to do
    finally:
        robot.close()


def test_nothing_moves_for_a_robot_on_ground_truth():
    ctl = _controller("sim_g1")
    robot = ctl.robot
    try:
        _turn_with_hand_up(ctl)
        q = robot.joint_positions()
        assert not ctl.c.gaze.face_table()
        assert robot.joint_positions() == q
    finally:
        robot.close()
