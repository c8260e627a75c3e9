"""Arm-level motion on real MuJoCo: the IK's trunk keep-out (an option of robot_configs/robots/*.yaml, off by
default) keeps the arm off the torso, and joint-space moves start inside the commandable ranges."""
import mujoco
import numpy as np
import pytest

from memora_core.robot import load_robot_config, make_robot
from memora_core.robot.limits import JointLimits, LimitsConfig, WorkspaceBox

pytestmark = pytest.mark.sim

# Palm targets in front of the chest (and across it) for the right hand: reachable, but an unconstrained
# solve folds the upper arm into the torso for most of them.
NEAR_CHEST = [(0.18, 0.09, 0.93), (0.17, 0.0, 1.1), (0.13, 0.04, 1.06), (0.21, 0.0, 1.04), (0.16, 0.1, 1.02),
              (0.13, 0.01, 0.97), (0.19, 0.04, 0.95), (0.23, 0.1, 1.03)]


def test_ik_keeps_the_arm_off_the_torso():
    cfg = load_robot_config("sim_g1")
    cfg = cfg.model_copy(update={"ik": cfg.ik.model_copy(update={"self_clearance": 0.005, "max_step": 0.1})})
    robot = make_robot(cfg, seed=1)
    robot.use_arm("right")
    ik = robot.iks["right"]
    keep_out = [type(lim).__name__ for lim in ik.limits]
    assert "CollisionAvoidanceLimit" in keep_out and "VelocityLimit" in keep_out
    with_limit, without = [], []
    for target in NEAR_CHEST:
        q, err = robot.solve_ik(np.array(target))
        assert err < robot.config.ik.tolerance, target  # still reached
        with_limit.append(ik.trunk_distance(robot._qpos_with(q)))
        saved, ik.limits = ik.limits, ik.limits[:1]  # joint ranges only
        try:
            q_free, _ = robot.solve_ik(np.array(target))
        finally:
            ik.limits = saved
        without.append(ik.trunk_distance(robot._qpos_with(q_free)))
    # The targets do call for the keep-out: unconstrained, the upper arm sinks centimetres into the torso.
    assert sum(d < -0.01 for d in without) >= len(NEAR_CHEST) // 2, without
    # With it, no solution presses the arm more than a centimetre into the trunk (the keep-out is a linearised
    # bound per solver step, not an exact constraint), and most keep clear of it.
    print("trunk distance with / without the keep-out (cm):",
          [round(d * 100, 1) for d in with_limit], [round(d * 100, 1) for d in without])
    assert min(with_limit) > -0.015, with_limit
    assert sum(d > -0.002 for d in with_limit) >= len(NEAR_CHEST) - 2, with_limit


def test_clip_moves_a_posture_into_the_commandable_ranges():
    limits = JointLimits({"a": (-1.0, 1.0), "b": (0.0, 2.0)},
                         LimitsConfig(position_margin=0.05, workspace=WorkspaceBox(min=(0, 0, 0), max=(1, 1, 1))))
    clipped = limits.clip({"a": 1.2, "b": 0.5, "c": 9.0})
    assert clipped == {"a": 0.95, "b": 0.5, "c": 9.0}
    limits.check(clipped, {"a": clipped["a"], "b": clipped["b"]}, 1.0)  # commandable


def test_a_joint_space_move_starts_inside_the_ranges_when_a_joint_rests_past_its_margin():
    """A joint that physics left a hair past the commandable margin (a posture solved at the edge of its range,
    an arm pressed against something): a joint-space line from there to a goal at that edge must still be
    commandable (it once raised a LimitViolation mid-task)."""
    from memora_core.robot.control import RuleBasedController

    robot = make_robot("sim_g1", seed=1)
    ctl = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions)
    lo, hi = robot.limits.ranges["waist_pitch_joint"]
    margin = robot.config.limits.position_margin
    robot.data.qpos[robot.model.joint("waist_pitch_joint").qposadr[0]] = hi - margin / 3
    mujoco.mj_forward(robot.model, robot.data)
    goal = {**ctl.c.arm.rest_posture("right"), "waist_pitch_joint": hi - margin, "right_elbow_joint": 0.5}
    path = ctl.c.arm.joint_line(goal, {"table"}, "tuck")
    assert len(path) > 1
    assert all(lo + margin <= q["waist_pitch_joint"] <= hi - margin for q in path)
    robot.command_path(path, 2.0)  # limit-checked: raises LimitViolation if a waypoint is out of range
