"""Putting a held object down where the straight lowering is refused only for the robot's own body: the G1's joint
margins leave the arm, after a pour it could not make from this side, only postures pressed into the torso above
the bottle's own spot close in front of it. The spot stands and the lowering is planned round the body (the pour
then brings the cup nearer and pours). Without the planner the straight refusal stands for that spot: the bottle goes
down on a free spot further out where the hand has room (PutDown.spots_near), and the pour goes on from there. Real
MuJoCo, the G1 path's settings (robot config unitree_g1) on the simulated body."""
import logging

import numpy as np
import pytest

from memora_core.robot import load_robot_config, make_robot
from memora_core.robot.control import RuleBasedController
from memora_core.robot.control.failures import FailureCause
from memora_core.robot.monitor import toppled
from memora_core.robot.primitives import Primitive, PrimitiveCall
from sim.scene import Layout

pytestmark = pytest.mark.sim

# The bottle close in front of the left shoulder, the cup at the right far side (found on a G1 demo layout).
POSES = {"coca-cola bottle": (0.262, 0.142, 2.189), "orange cup": (0.303, -0.355, -2.742)}


def pour(planner: bool):
    robot = make_robot(load_robot_config("unitree_g1").model_copy(update={"type": "sim"}),
                       layout=Layout(seed=0, poses=POSES))
    ctl = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions, recoveries=[])
    if not planner:
        ctl.c.guarded.settings = ctl.c.guarded.settings.model_copy(update={"guarded_approach": False})
    assert ctl.execute(PrimitiveCall(primitive=Primitive.PICK, object="coca-cola bottle")).success
    return robot, ctl.execute(PrimitiveCall(primitive=Primitive.POUR, object="coca-cola bottle", target="orange cup"))


def test_a_lowering_refused_for_the_body_alone_is_planned_round_it(caplog):
    caplog.set_level(logging.INFO, logger="memora_core.robot.control")
    robot, res = pour(planner=True)
    try:
        assert res.success, res.detail
        assert any("lowering planned round the body" in r.getMessage() for r in caplog.records)
        assert robot.held_object() is None
        assert not toppled({n: robot.object_pose(n)[1] for n in POSES})
    finally:
        robot.close()


def test_without_the_planner_the_straight_refusal_stands_for_that_spot(caplog):
    caplog.set_level(logging.INFO, logger="memora_core.robot.control")
    robot, res = pour(planner=False)
    try:
        assert not any("lowering planned round the body" in r.getMessage() for r in caplog.records)
        assert res.success, res.detail
        # not where it stood: that spot's lowering is refused for the body, and nothing plans round it
        moved = np.hypot(*(robot.object_pose("coca-cola bottle")[0][:2] - np.array(POSES["coca-cola bottle"][:2])))
        assert moved > load_robot_config("unitree_g1").motion.place_tolerance
        assert not toppled({n: robot.object_pose(n)[1] for n in POSES})
    finally:
        robot.close()
