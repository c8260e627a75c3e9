"""The G1 backend plans with the motion library (OMPL in the joint space of an arm and the waist, MuJoCo collision
on a snapshot of its kinematic model, backends/planning_view.py) around the objects its object source reports:
where the joint-space straight line to a posture would pass through a reported box, the planned trajectory keeps
every sample clear of it by the backend's own clearance check. Control: the same straight line is reported
blocked by that box. Before, this backend had no planner (`arm_planner` None) and its moves were straight lines."""
from __future__ import annotations

import numpy as np
import pytest

from memora_core.robot import load_robot_config
from memora_core.robot.motion.failures import is_robot_link
from memora_core.robot.robot import SceneObject

pytestmark = pytest.mark.sim

TABLE_Z = 0.75
GOAL = np.array([0.40, -0.10, TABLE_Z + 0.08])
BOX = SceneObject(name="tall box", category="box", colour="red", material="cardboard", half_height=0.1, radius=0.05,
                  position=(0.25, -0.20, TABLE_Z + 0.1))


@pytest.fixture(scope="module")
def planned():
    pytest.importorskip("unitree_sdk2py")
    pytest.importorskip("ompl")
    from tests.sim.g1_loopback import loopback_g1

    robot = loopback_g1(load_robot_config("unitree_g1").model_copy(update={"dex3": None}), objects=lambda: [BOX])
    robot.use_arm("right")
    planner = robot.arm_planner("right")
    space = planner.world.space
    start = space.clip(space.vector(robot.joint_positions()))
    plan = planner.plan_to_point(start, GOAL, None, None)
    yield robot, space, start, plan
    robot.close()


def test_the_planned_trajectory_clears_the_reported_box(planned):
    robot, _, _, plan = planned
    targets, duration = plan.trajectory.command_args()
    assert duration > 0 and len(targets) > 2
    # Only what the world holds: the G1 checks its arm against its own body too (as sim_g1_dex3), and the rest
    # posture it starts from has the wrist inside the hip link (strict xfail tests/sim/test_tuck_clear_of_the_legs.py)
    assert all([c for c in robot.clearance(q, set()) if not is_robot_link(c)] == [] for q in targets)
    robot.command_path(targets, duration)
    assert np.linalg.norm(robot.hand_position() - GOAL) < 0.02


def test_control_the_straight_joint_line_passes_through_the_box(planned):
    robot, space, start, plan = planned
    targets, _ = plan.trajectory.command_args()
    goal = space.vector(targets[-1])
    line = [dict(zip(space.names, start + (goal - start) * t)) for t in np.linspace(0, 1, 40)]
    assert any("tall box" in robot.clearance(q, set()) for q in line)
