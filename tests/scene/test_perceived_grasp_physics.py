"""A robot planning from perceived poses grasps what is physically at its hand, never what it only believes is
there: the palm weld's reach is measured to the object's MuJoCo pose (issue 19). Real MuJoCo, real tracker; the
wrong sighting is constructed."""
import numpy as np
import pytest

pytestmark = pytest.mark.sim

BOTTLE, AT = "coca-cola bottle", (0.40, -0.20, 0.0)


def test_a_palm_at_a_wrongly_seen_place_closes_on_nothing():
    from memora_core.perception.scene.types import PerceivedObject, SceneModel, Shape
    from memora_core.robot import load_robot_config
    from sim.perceived_robot import PerceivedSimRobot
    from sim.scene import Layout

    robot = PerceivedSimRobot(load_robot_config("sim_g1_perceived"), layout=Layout(seed=0, poses={BOTTLE: AT}))
    try:
        truth = robot.ground_truth_pose(BOTTLE)[0]
        assert np.linalg.norm(robot.object_pose(BOTTLE)[0][:2] - truth[:2]) < 0.01  # seen where it is
        # A later sighting puts it 15 cm to the side (a look-alike, a wrong match): the controller believes it.
        wrong = (truth[0], truth[1] + 0.15, truth[2])
        robot.tracker.update(SceneModel(table_z=0.74, stamp_s=robot.sim_time_s + 1.0, objects=[PerceivedObject(
            position=wrong, yaw=None, size=(0.07, 0.07, 0.22), shape=Shape.CYLINDER, colour="red", pixels=900,
            name=BOTTLE, match_cost=0.1)]))
        assert np.allclose(robot.object_pose(BOTTLE)[0], wrong)
        robot.use_arm("right")
        top = np.array(wrong) + [0.0, 0.0, 0.11 + 0.03]
        for point in ([0.22, -0.30, 1.02], top + [0.0, 0.0, 0.10], top):  # out of the tuck, above, down
            q, residual = robot.solve_ik(np.asarray(point, float))
            assert residual < 0.01
            robot.command(q)
        robot.settle(0.3)
        assert np.linalg.norm(robot.hand_position() - top) < 0.02  # the palm is where the bottle is believed
        assert not robot.grasp(BOTTLE)                              # and nothing is there to take
        assert robot.held_object() is None
        assert np.linalg.norm(robot.ground_truth_pose(BOTTLE)[0] - truth) < 0.003  # it never moved
    finally:
        robot.close()
