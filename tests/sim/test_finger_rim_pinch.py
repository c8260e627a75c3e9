"""A bowl hemmed in on every side (cups, a can and a bottle 6 cm from its wall), picked by the Dex3 fingers in MuJoCo
(sim_g1_dex3, no recoveries: nothing is moved aside first). Every hand that holds the bowl's body puts the wrist or
the fingers into a neighbour; the rim pinch (the rolled hand over the rim, the thumb down one side of the wall, index
and middle curling over the other) takes it between two neighbours, lifts it and sets it down standing, nothing
knocked over. Without the rim hand the same pick is refused as no_grasp."""
import numpy as np
import pytest

from memora_core.robot.primitives import Primitive, PrimitiveCall
from tests.sim.staging import assert_refused_untouched, assert_taken_by_fingers, finger_picked, without_poses

pytestmark = pytest.mark.sim

BOWL = "yellow bowl"
CENTRE = (0.42, -0.08)
# Neighbours 13.5 cm from the bowl's centre (their sides 1.5 cm from its wall), round it but for its far-left corner.
AROUND = {"orange cup": 180, "green cup": 90, "fanta can": -90, "coca-cola bottle": 0, "blue cup": 135}
CROWD = {BOWL: (*CENTRE, 0.0), **{n: (CENTRE[0] + 0.135 * np.cos(np.radians(a)),
                                      CENTRE[1] + 0.135 * np.sin(np.radians(a)), 0.0) for n, a in AROUND.items()}}


def test_a_hemmed_in_bowl_is_taken_by_its_rim_and_set_down_standing():
    with finger_picked("sim_g1_dex3", CROWD, BOWL) as (robot, ctl, result, before):
        assert_taken_by_fingers(robot, ctl, result, before, BOWL, CROWD, "rim pinch", lift=0.08)
        put = ctl.execute(PrimitiveCall(primitive=Primitive.PLACE, object=BOWL, target="table", relation="on"))
        robot.settle(0.5)
        assert put.success, put.detail
        assert robot.held_object() is None
        pos, rot = robot.ground_truth_pose(BOWL)
        assert rot[2, 2] > 0.99 and abs(pos[2] - before[2]) < 0.005  # standing on the table


def test_without_the_rim_hand_the_hemmed_in_bowl_is_refused():
    cfg = without_poses("sim_g1_dex3", lambda p: p.rim_above is not None)
    with finger_picked(cfg, CROWD, BOWL) as (robot, _, result, before):
        assert_refused_untouched(robot, result, before, BOWL)
