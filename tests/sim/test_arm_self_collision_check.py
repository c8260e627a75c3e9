"""With motion.arm_self_check (opt-in) the clearance check counts the moving arm pressed into the rest of the
robot: a posture the servos cannot reach (a link would have to go through the torso) is refused, named
"robot:<link>", before the arm is sent there; physics confirms the arm stops short of it (found on a layout where
the arm, jammed on the torso, ran 3 cm off its checked path and a finger knocked over a bottle)."""
from __future__ import annotations

import pytest

from memora_core.robot import load_robot_config, make_robot

CLEAR = {"left_shoulder_pitch_joint": -0.5, "left_shoulder_roll_joint": 0.1, "left_elbow_joint": 0.5}
INTO_TORSO = {**CLEAR, "left_shoulder_roll_joint": -0.3}  # the shoulder roll link swung into the torso


@pytest.fixture(scope="module")
def robot():
    cfg = load_robot_config("sim_g1")
    r = make_robot(cfg.model_copy(update={"motion": cfg.motion.model_copy(update={"arm_self_check": True})}),
                   seed=0)
    r.use_arm("left")
    yield r
    r.close()


def test_a_posture_through_the_torso_is_refused_and_a_clear_one_is_not(robot):
    assert robot.clearance(CLEAR, set()) == []
    assert "robot:torso_link" in robot.clearance(INTO_TORSO, set())
    # Only the moving arm counts: checked for the right arm, the left arm's posture is not its business.
    robot.use_arm("right")
    try:
        assert robot.clearance(INTO_TORSO, set()) == []
    finally:
        robot.use_arm("left")
    robot.config.motion.arm_self_check = False  # the default: not counted
    try:
        assert robot.clearance(INTO_TORSO, set()) == []
    finally:
        robot.config.motion.arm_self_check = True


def test_physics_stops_the_arm_short_of_the_refused_posture(robot):
    """The reason for the check (the control): commanded anyway, the shoulder roll never gets there."""
    robot.command(CLEAR, 1.0)
    robot.settle(0.3)
    assert abs(robot.joint_positions()["left_shoulder_roll_joint"] - CLEAR["left_shoulder_roll_joint"]) < 0.01
    robot.command(INTO_TORSO, 1.0)
    robot.settle(0.3)
    short = abs(robot.joint_positions()["left_shoulder_roll_joint"] - INTO_TORSO["left_shoulder_roll_joint"])
    print(f"shoulder roll stopped {short:.3f} rad short of the posture through the torso")
    assert short > 0.05
