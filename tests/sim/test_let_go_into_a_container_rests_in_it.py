"""An object let go into a container and not seen whole since (inside the bowl, behind its rim) is believed to lie in
it, not to hang in the air where the hand opened: the place skill tells the robot (`came_to_rest`) and a perceiving
backend moves its let-go belief there, which the planner's world then has. Real MuJoCo, the perceived sim robot."""
import numpy as np
import pytest

from memora_core.robot import load_robot_config, make_robot
from memora_core.robot.control import RuleBasedController
from memora_core.robot.primitives import Primitive, PrimitiveCall
from sim.scene import Layout

pytestmark = pytest.mark.sim

POSES = {"yellow spoon": (0.40, -0.12, 0.3), "yellow bowl": (0.42, 0.08, 0.0)}


def test_a_spoon_let_go_into_the_bowl_unseen_is_believed_on_its_floor():
    cfg = load_robot_config("sim_g1_dex3").model_copy(update={"type": "sim_perceived"})
    robot = make_robot(cfg, layout=Layout(seed=0, poses=POSES))
    try:
        ctl = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions, recoveries=[])
        assert ctl.execute(PrimitiveCall(primitive=Primitive.PICK, object="yellow spoon")).success
        robot.seen_fraction = lambda name: 0.0  # hidden in the bowl from here on: only the belief is left
        told, let_go = [], []
        release, rest = robot.release, robot.came_to_rest

        def released():
            let_go.append(robot.object_pose("yellow spoon")[0].copy())
            return release()

        def rested(name, position):
            told.append((name, np.array(position, float)))
            rest(name, position)
        robot.release, robot.came_to_rest = released, rested
        res = ctl.execute(PrimitiveCall(primitive=Primitive.PLACE, object="yellow spoon", target="yellow bowl",
                                        relation="in"))
        assert res.success, res.detail
        assert [n for n, _ in told] == ["yellow spoon"]
        believed = robot.object_pose("yellow spoon")[0]
        assert np.allclose(believed, told[0][1])
        bowl, _ = robot.object_pose("yellow bowl")
        assert np.hypot(*(believed[:2] - bowl[:2])) < 0.075  # within the bowl's rim
        truth = robot.ground_truth_pose("yellow spoon")[0]
        # below where the hand opened, and about where it really lies
        assert believed[2] < let_go[0][2] - 0.01 and abs(believed[2] - truth[2]) < 0.03
    finally:
        robot.close()
