"""The controller tells whoever waits on a step when a recovery starts within it, and the robot tells it after each
joint move sent (the ROS controller turns those into `retrying` and `moving` action feedback, which keep the demo
driver's progress wait alive while a slow robot makes room)."""
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


def test_every_joint_move_sent_is_reported_and_a_refused_one_is_not():
    """`Robot.on_motion` hears each move `command`/`command_path` sent (the ROS controller's `moving` heartbeat);
    a move the limits refuse sends nothing and is not heard."""
    from memora_core.robot.limits import LimitViolation

    robot = make_robot(load_robot_config("sim_g1"), seed=3)
    try:
        heard = []
        robot.on_motion = lambda: heard.append(robot.joint_positions()["right_elbow_joint"])
        elbow = robot.joint_positions()["right_elbow_joint"]
        robot.command({"right_elbow_joint": elbow + 0.1})
        robot.command_path([{"right_elbow_joint": elbow + 0.15}, {"right_elbow_joint": elbow + 0.2}], 0.5)
        assert len(heard) == 2 and heard[0] > elbow + 0.05 and heard[1] > heard[0]  # told after each had moved
        with pytest.raises(LimitViolation):
            robot.command({"right_elbow_joint": float("nan")})
        assert len(heard) == 2
    finally:
        robot.close()
