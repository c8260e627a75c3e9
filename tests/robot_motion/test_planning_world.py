"""The MuJoCo planning world: validity on a copy (never the live data), contact filtering, what is named
as in the way, the held object moving with the hand, and ignored obstacles."""
from __future__ import annotations

import subprocess
import sys

import numpy as np

from memora_core.robot.motion import CollisionWorld
from sim.planning_world import MujocoPlanningWorld, current_posture
from tests.robot_motion.conftest import CLUTTER, TABLE_Z


def test_motion_package_stays_free_of_mujoco_and_the_sim():
    code = ("import sys, memora_core.robot.motion as m, memora_core.robot.motion.reachability; "
            "bad = [k for k in sys.modules if k.split('.')[0] in ('mujoco', 'sim', 'mink')]; "
            "sys.exit(1 if bad else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_rest_posture_is_valid_and_the_world_is_a_copy(kitchen, planner):
    world = planner.world
    assert isinstance(world, CollisionWorld)
    q = current_posture(kitchen, "right")
    live_before = kitchen.data.qpos.copy()
    assert world.is_valid(q) and world.colliding(q) == []
    assert 0 < world.clearance(q) <= planner.config.clearance_horizon
    assert world.model is not kitchen.model and world.data is not kitchen.data
    np.testing.assert_array_equal(kitchen.data.qpos, live_before)


def test_palm_in_the_bottle_is_invalid_and_names_it(kitchen, planner):
    world, kin = planner.world, planner.kinematics
    x, y, _ = CLUTTER["coca-cola bottle"]
    q, residual = kin.solve(np.array([x, y, TABLE_Z + 0.12]), current_posture(kitchen, "right"))
    assert residual < 0.015
    assert not world.is_valid(q)
    assert "coca-cola bottle" in world.colliding(q)
    world.ignore({"coca-cola bottle"})
    assert "coca-cola bottle" not in world.colliding(q)
    world.ignore(set())


def test_arm_through_the_torso_is_a_self_collision(kitchen, planner):
    world = planner.world
    names = world.space.names
    q = current_posture(kitchen, "right")
    # Shoulder rolled far inward with the elbow bent: the forearm sweeps through the chest.
    q[names.index("right_shoulder_roll_joint")] = world.space.upper[names.index("right_shoulder_roll_joint")]
    q[names.index("right_shoulder_pitch_joint")] = -0.8
    q[names.index("right_elbow_joint")] = 0.0
    q[names.index("right_shoulder_yaw_joint")] = 0.0
    hit = world.colliding(q)
    assert any(n.startswith("robot:") for n in hit), hit


def test_held_object_moves_with_the_hand_and_clears_everything_but_it(kitchen, planner):
    world, kin = planner.world, planner.kinematics
    start = current_posture(kitchen, "right")
    free_air = np.array([0.30, -0.30, TABLE_Z + 0.30])
    q_up, res = kin.solve(free_air, start)
    assert res < 0.015 and world.is_valid(q_up)
    # A can held 25 cm below the hand: at the same posture it now reaches into the table.
    world.attach("fanta can", "right", np.array([0.0, 0.0, -0.25]), np.array([1.0, 0.0, 0.0, 0.0]))
    try:
        assert "table" in world.colliding(q_up)
        world.attach("fanta can", "right", np.array([0.12, 0.0, 0.0]), np.array([1.0, 0.0, 0.0, 0.0]))
        assert world.is_valid(q_up)  # held just past the palm: touching its own hand does not count
        can = world.model.body("obj_fanta_can").id
        np.testing.assert_allclose(world.data.xpos[can], kin.palm(q_up), atol=0.15)
    finally:
        world.detach()
    assert world.is_valid(q_up)


def test_sync_takes_a_grasp_from_the_live_robot(kitchen):
    from memora_core.robot.motion import load_planner_config

    kitchen.reset()
    world = MujocoPlanningWorld(kitchen, "right", load_planner_config())
    assert world._held is None
    kitchen._held, kitchen._held_arm = "blue cup", "right"  # as grasp() records it (the weld is not needed here)
    try:
        world.sync(kitchen)
        assert world._held is not None and world._held[0] == kitchen.model.body("obj_blue_cup").id
    finally:
        kitchen._held = kitchen._held_arm = None
