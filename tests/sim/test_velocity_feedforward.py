"""Joint targets go out with their trajectory's velocity (physics.velocity_feedforward, opt-in), as a G1's motor
drivers take them (LowCmd q and dq: kp (q - q_m) + kd (dq - dq_m) + tau): the servo's damping then acts on the
tracking error's rate, not on the motion, and the arm follows its planned path instead of trailing it by kd / kp
seconds (a centimetre or more at speed; the planner's clearance margin is a few millimetres)."""
from __future__ import annotations

import mujoco
import numpy as np
import pytest

from memora_core.robot import load_robot_config, make_robot
from sim.g1 import ARM_JOINTS, PALM_SITE, WAIST_JOINTS

PATH_S = 1.0  # a brisk move over the table: ~0.3 m in a second
GOAL = np.array([0.45, -0.05, 0.95])


@pytest.fixture(scope="module")
def robot_over_the_table():
    """The simulated G1 with its right hand up over the table, and the posture it is in there."""
    from memora_core.robot.control import RuleBasedController

    cfg = load_robot_config("sim_g1")
    robot = make_robot(cfg.model_copy(update={"physics": cfg.physics.model_copy(
        update={"velocity_feedforward": True})}), seed=0)
    ctl = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions)
    robot.command({"right_shoulder_roll_joint": -0.3}, 1.0)  # the hand off the hip it rests on
    ctl.c.arm.go(np.array([0.30, -0.30, 1.05]), set(), "start")
    robot.settle(0.3)
    q = robot.joint_positions()
    yield robot, {n: q[n] for n in ARM_JOINTS["right"] + WAIST_JOINTS}
    robot.close()


def _palm_tracking_error_mm(robot, start: dict[str, float], feedforward: bool) -> np.ndarray:
    """The palm's distance (mm), every physics step of one move from `start` to a point 0.3 m away, from where
    the commanded joints of that step put it."""
    import sim.robot_backend as backend

    robot.config.physics.velocity_feedforward = feedforward
    robot.command(start, 1.0)
    robot.settle(0.3)
    goal, residual = robot.solve_ik(GOAL)
    assert residual < 0.005
    m, d = robot.model, robot.data
    commanded = mujoco.MjData(m)
    site = PALM_SITE[robot.arm]
    adr = [m.jnt_qposadr[m.joint(n).id] for n in goal]
    errors: list[float] = []
    plays = backend.JointTrajectory.__getitem__
    current: dict[str, np.ndarray] = {}

    def frame(self, k):  # the commanded frame of this step, as the backend computes it
        current["q"] = plays(self, k)
        return current["q"]

    def observe(r) -> None:
        commanded.qpos[:] = d.qpos
        commanded.qpos[adr] = current["q"]
        mujoco.mj_kinematics(m, commanded)
        errors.append(float(np.linalg.norm(commanded.site(site).xpos - d.site(site).xpos)) * 1000)

    backend.JointTrajectory.__getitem__ = frame
    robot.step_observers.append(observe)
    try:
        robot.command(goal, PATH_S)
    finally:
        backend.JointTrajectory.__getitem__ = plays
        robot.step_observers.remove(observe)
        robot.config.physics.velocity_feedforward = True  # as the fixture made it
    assert np.linalg.norm(robot.hand_position() - GOAL) < 0.01
    return np.array(errors)


def test_the_arm_follows_its_path_with_velocity_feedforward_and_trails_it_without(robot_over_the_table):
    robot, start = robot_over_the_table
    fed = _palm_tracking_error_mm(robot, start, True)
    plain = _palm_tracking_error_mm(robot, start, False)
    print(f"palm tracking error over a {PATH_S:.1f} s move: with feed-forward median {np.median(fed):.1f} mm, "
          f"p95 {np.percentile(fed, 95):.1f} mm; without median {np.median(plain):.1f} mm, "
          f"p95 {np.percentile(plain, 95):.1f} mm")
    assert np.percentile(fed, 95) < 5.0
    assert np.percentile(plain, 95) > 3 * np.percentile(fed, 95)  # the control: damping on the motion trails it


def test_g1_lowcmd_frames_carry_their_joint_velocity_and_a_hold_carries_none():
    pytest.importorskip("unitree_sdk2py")
    from sim.g1 import BODY_JOINTS_29
    from tests.sim.g1_loopback import loopback_g1

    cfg = load_robot_config("unitree_g1")
    cfg = cfg.model_copy(update={"dex3": None, "physics": cfg.physics.model_copy(
        update={"velocity_feedforward": True})})
    robot = loopback_g1(cfg)
    try:
        robot.restart()
        elbow = BODY_JOINTS_29.index("right_elbow_joint")
        robot.command({"right_elbow_joint": robot.joint_positions()["right_elbow_joint"] - 0.5}, 1.0)
        q = np.array([f[1] for f in robot._pub.frames])
        dq = np.array(robot._pub.velocities)
        expected = np.diff(q, axis=0) / robot.period
        assert np.allclose(dq[1:], expected, atol=1e-9)
        assert np.abs(dq[:, elbow]).max() > 0.3  # the move is in them
        assert np.abs(dq).max() <= cfg.limits.max_velocity * (1 + 1e-6)
        sent = len(robot._pub.frames)
        robot._hold_measured()  # the e-stop's frame: stop where the arm is, no velocity
        assert np.all(robot._pub.velocities[sent] == 0.0)
    finally:
        robot.close()
