"""Joint targets go out with their trajectory's velocity (physics.velocity_feedforward), as a G1's motor
drivers take them (LowCmd q and dq: kp (q - q_m) + kd (dq - dq_m) + tau): the servo's damping then acts on the
tracking error's rate, not on the motion, and the arm follows its planned path instead of trailing it by kd / kp
seconds (a centimetre or more at speed; the planner's clearance margin is a few millimetres)."""
from __future__ import annotations

import mujoco
import numpy as np
import pytest

from memora_core.robot import load_robot_config, make_robot
from sim.g1 import PALM_SITE

PATH_S = 1.0  # a brisk move over the table: ~0.3 m in a second


def _palm_tracking_error_mm(feedforward: bool) -> np.ndarray:
    """The palm's distance (mm), every physics step of one move, from where the commanded joints of that step
    put it."""
    from memora_core.robot.control import RuleBasedController

    cfg = load_robot_config("sim_g1")
    cfg = cfg.model_copy(update={"physics": cfg.physics.model_copy(update={"velocity_feedforward": feedforward})})
    robot = make_robot(cfg, seed=0)
    try:
        ctl = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions)
        ctl.c.arm.go(np.array([0.30, -0.30, 1.05]), set(), "start")  # the hand up over the table
        robot.settle(0.3)
        goal, residual = robot.solve_ik(np.array([0.45, -0.05, 0.95]))
        assert residual < 0.005
        m, d = robot.model, robot.data
        commanded = mujoco.MjData(m)
        site = PALM_SITE[robot.arm]
        names = list(goal)
        adr = [m.jnt_qposadr[m.joint(n).id] for n in names]
        errors: list[float] = []
        import sim.robot_backend as backend

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
        assert np.linalg.norm(robot.hand_position() - np.array([0.45, -0.05, 0.95])) < 0.01
        return np.array(errors)
    finally:
        robot.close()


def test_the_arm_follows_its_path_with_velocity_feedforward_and_trails_it_without():
    fed = _palm_tracking_error_mm(True)
    plain = _palm_tracking_error_mm(False)
    print(f"palm tracking error over a {PATH_S:.1f} s move: with feed-forward median {np.median(fed):.1f} mm, "
          f"p95 {np.percentile(fed, 95):.1f} mm; without median {np.median(plain):.1f} mm, "
          f"p95 {np.percentile(plain, 95):.1f} mm")
    assert np.percentile(fed, 95) < 5.0
    assert np.percentile(plain, 95) > 3 * np.percentile(fed, 95)  # the control: damping on the motion trails it


def test_g1_lowcmd_frames_carry_their_joint_velocity_and_a_hold_carries_none():
    pytest.importorskip("unitree_sdk2py")
    from sim.g1 import BODY_JOINTS_29
    from tests.sim.g1_loopback import loopback_g1

    cfg = load_robot_config("unitree_g1").model_copy(update={"dex3": None})
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
