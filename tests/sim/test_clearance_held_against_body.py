"""The straight-line clearance check counts a held object pressed into the robot's own body (anywhere but the
holding hand) as "robot:<body>", as the motion planner's validity does; clear of the body, nothing. Real MuJoCo
kinematics on the robot's own checker."""
import numpy as np
import pytest

pytestmark = pytest.mark.sim

OBJS = {"coca-cola bottle": (0.40, -0.15, 0.0)}


@pytest.fixture
def robot():
    from memora_core.robot import make_robot
    from sim.scene import Layout

    r = make_robot("sim_g1", layout=Layout(seed=0, poses=OBJS))
    yield r
    r.close()


def held_at(robot, world_point):
    """The `held` argument of ClearanceChecker.touching: the bottle welded to the right hand so that its centre is
    at `world_point` in the robot's current posture."""
    from sim.scene.builder import HAND_BODY

    m, d = robot.model, robot.data
    hand = m.body(HAND_BODY["right"]).id
    rel = d.xmat[hand].reshape(3, 3).T @ (np.asarray(world_point, float) - d.xpos[hand])
    return robot._object_body["coca-cola bottle"], hand, (rel, np.array([1.0, 0.0, 0.0, 0.0]))


def test_a_held_object_inside_the_torso_is_reported(robot):
    torso = robot.data.xpos[robot.model.body("torso_link").id]
    qpos = robot.data.qpos.copy()
    held = held_at(robot, torso + [0.08, 0.0, 0.10])
    assert robot._check.touching(qpos, set(), held) == ["robot:torso_link"]
    assert robot._check.touching(qpos, {"robot:torso_link"}, held) == []  # what the caller ignores stays ignored


def test_a_held_object_clear_of_the_body_is_not(robot):
    qpos = robot.data.qpos.copy()
    assert robot._check.touching(qpos, set(), held_at(robot, [0.45, -0.15, 1.0])) == []
