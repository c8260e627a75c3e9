"""Looking at what is partly hidden before picking it (issue 19): from the standing posture the head camera sees only
part of a spoon lying behind a bottle, and the part's centre is ~4 cm from the spoon's; a finger pinch aimed there
closes on the table. The pick first looks at the spoon from the head's other viewpoints and plans from the view that
shows the most of it. Real MuJoCo physics, the real head camera and scene model; a constructed scene (two objects of
sim-bench layout 100135)."""
import numpy as np
import pytest

pytestmark = pytest.mark.sim

BEHIND = {"yellow spoon": (0.5314, -0.3700, 1.881), "coca-cola bottle": (0.4122, -0.3033, 0.358)}


def _robot():
    from memora_core.robot import load_robot_config
    from sim.perceived_robot import PerceivedSimRobot
    from sim.scene import Layout

    return PerceivedSimRobot(load_robot_config("sim_g1_dex3"), layout=Layout(seed=0, poses=BEHIND))


def test_look_at_keeps_the_view_that_shows_the_most_of_it():
    robot = _robot()
    try:
        robot.look()
        truth = robot.ground_truth_pose("yellow spoon")[0][:2]
        first = robot.seen_fraction("yellow spoon")
        assert first is not None and first < robot.config.motion.look_again_below
        assert np.linalg.norm(robot.object_pose("yellow spoon")[0][:2] - truth) > 0.02
        waist = {j: v for j, v in robot.joint_positions().items() if j.startswith("waist")}
        before = {n: robot.ground_truth_pose(n)[0] for n in BEHIND}
        shown = robot.look_at("yellow spoon")
        assert shown is not None and shown > first + 0.2
        assert robot.seen_fraction("yellow spoon") == pytest.approx(shown)
        assert np.linalg.norm(robot.object_pose("yellow spoon")[0][:2] - truth) < 0.01
        now = robot.joint_positions()
        assert all(abs(now[j] - v) < 0.03 for j, v in waist.items())  # the waist is back where it was
        for name, pos in before.items():  # looking moved nothing on the table
            assert np.linalg.norm(robot.ground_truth_pose(name)[0] - pos) < 0.003, name
    finally:
        robot.close()


def test_a_pick_of_the_partly_hidden_spoon_looks_again_and_holds_it():
    from memora_core.robot.control import RuleBasedController
    from memora_core.schemas import PlanStep

    robot = _robot()
    try:
        ctl = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions)
        looked = []
        look_at = robot.look_at
        robot.look_at = lambda name: looked.append(name) or look_at(name)  # the real look, recorded
        result = ctl.execute_step(PlanStep(index=0, action="pick", object="yellow spoon"))
        assert looked[:1] == ["yellow spoon"]  # it looked before its first grasp
        assert result.success, result
        assert robot.held_object() == "yellow spoon"
    finally:
        robot.close()
