"""A real MuJoCo kitchen (the scene of robot_configs/scenes/kitchen.yaml with the G1) holding a few objects
at chosen places, and a planner for its right arm. One robot per test module; tests that move it reset it."""
from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("MUJOCO_GL", "egl")

# A tall bottle in front of the right arm, two objects elsewhere on the table.
CLUTTER = {"coca-cola bottle": (0.40, -0.20, 0.0), "fanta can": (0.30, 0.25, 0.0), "blue cup": (0.30, 0.10, 0.0)}
TABLE_Z = 0.74


@pytest.fixture(scope="module")
def kitchen():
    from memora_core.robot.robot import load_robot_config
    from sim.robot_backend import SimRobot
    from sim.scene import Layout

    robot = SimRobot(load_robot_config("sim_g1"), layout=Layout(seed=0, poses=CLUTTER))
    yield robot
    robot.close()


@pytest.fixture
def planner(kitchen):
    from memora_core.robot.motion import load_planner_config
    from sim.planning_world import arm_planner

    kitchen.reset()
    # The configured planner, with more search time: RRTConnect stops at its first path, and a loaded CI
    # machine must not turn a slow search into a failure.
    return arm_planner(kitchen, "right", load_planner_config().model_copy(update={"time_limit_s": 5.0}))


def bottle_sides(z_above_table: float = 0.15) -> tuple[np.ndarray, np.ndarray]:
    """Palm targets on either side of the bottle (y -/+ 16 cm), at one height."""
    x, y, _ = CLUTTER["coca-cola bottle"]
    z = TABLE_Z + z_above_table
    return np.array([x, y - 0.16, z]), np.array([x, y + 0.16, z])
