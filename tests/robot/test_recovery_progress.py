"""The controller tells whoever waits on a step when a recovery starts within it (the ROS controller turns that into
`retrying` action feedback, which keeps the demo driver's progress wait alive while a slow robot makes room)."""
import pytest

from memora_core.robot import load_robot_config, make_robot
from memora_core.robot.control.controller import RuleBasedController
from memora_core.robot.primitives import Primitive, PrimitiveCall

pytestmark = pytest.mark.sim


class _Once:
    name = "scripted"

    def __init__(self) -> None:
        self.calls = 0

    def applies(self, f, call, attempt) -> bool:
        return self.calls == 0

    def recover(self, f, call, attempt) -> bool:
        self.calls += 1
        return True  # "done": the step is tried again (and fails again: nothing applies the second time)


def test_each_recovery_start_is_reported_with_its_step():
    robot = make_robot(load_robot_config("sim_g1"), seed=3)
    try:
        heard = []
        ctl = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions, recoveries=[_Once()])
        ctl.on_recovery = lambda index, name: heard.append((index, name))
        res = ctl.execute(PrimitiveCall(primitive=Primitive.PICK, object="purple teapot"), index=4)
        assert not res.success
        assert heard == [(4, "scripted")]
    finally:
        robot.close()
