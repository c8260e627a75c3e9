"""A tea box with neighbours close on every side (a can, a cup, another box, a spoon, bread, a bowl), picked by the
Dex3 fingers in MuJoCo (sim_g1_dex3, no recoveries: nothing is moved aside first). Every level finger grasp puts
the wrist, at palm height 4.5 cm, into a neighbour; the palm-over pinch ("top pinch": the hand rolled over the
box, thumb behind it, index and middle sweeping it against the thumb) takes it with thumb and a finger on it and
lifts it, no neighbour knocked over. Without the palm-over poses the same pick is refused as no_grasp."""
import numpy as np
import pytest

from memora_core.robot import make_robot
from memora_core.robot.control import RuleBasedController
from sim.scene import Layout
from tests.sim.staging import assert_refused_untouched, assert_taken_by_fingers, finger_pick, without_poses

pytestmark = pytest.mark.sim

BOX = "cinnamon tea box"
CROWD = {BOX: (0.439, 0.16, -0.597), "fanta can": (0.363, 0.047, -1.558), "green cup": (0.5, 0.277, -2.505),
         "lipton tea box": (0.289, 0.161, 1.531), "metal spoon": (0.504, 0.025, -1.033),
         "bread": (0.267, 0.295, -2.938), "grey bowl": (0.264, -0.052, 0.541)}


def _pick(top_pinch: bool):
    cfg = "sim_g1_dex3" if top_pinch else without_poses("sim_g1_dex3", lambda p: p.min_object_height is not None)
    return finger_pick(cfg, CROWD, BOX)


def test_a_crowded_box_is_taken_by_the_palm_over_pinch():
    robot, ctl, result, before = _pick(top_pinch=True)
    try:
        assert_taken_by_fingers(robot, ctl, result, before, BOX, CROWD, "top pinch", lift=0.08)
    finally:
        robot.close()


def test_without_the_palm_over_pinch_the_crowded_box_is_refused():
    robot, _, result, before = _pick(top_pinch=False)
    try:
        assert_refused_untouched(robot, result, before, BOX)
    finally:
        robot.close()


def test_the_palm_over_pinch_is_tried_before_the_level_hands():
    """tried_first: on a lone tea box the palm-over pinch comes first, the level hands after it."""
    robot = make_robot("sim_g1_dex3", layout=Layout(seed=0, poses={BOX: CROWD[BOX]}))
    try:
        ctl = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions, recoveries=[])
        g = ctl.c.grasps
        obj = ctl.c.resolver.require(BOX)
        pos, rot = robot.object_pose(BOX)
        top = pos + np.array([0.0, 0.0, obj.half_up(rot)])
        names = [pose.name for _, pose, _ in g.candidates(obj, g.points(obj, top, rot), None, top, set())]
        assert names[0].startswith("top pinch")
        assert "beside" in names and names.index("beside") > max(i for i, n in enumerate(names)
                                                                  if n.startswith("top pinch"))
    finally:
        robot.close()
