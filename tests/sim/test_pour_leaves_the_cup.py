"""After pouring beside a cup at the table's far corner the bottle rises off the cup's rim the way the pour poses
came (the cup ignored) before it is carried back: the carry's own first rise, which keeps its clearance from the
cup, was refused there and the put-back failed (dev regression 65003). Control: without that rise the same pour
step fails. Real MuJoCo."""
import pytest

from memora_core.robot.control.failures import FailureCause, PrimitiveFailure
from memora_core.robot.primitives import Primitive, PrimitiveCall

pytestmark = [pytest.mark.sim, pytest.mark.slow]

BOTTLE, CUP = "coca-cola bottle", "orange cup"
SEED = 65003  # a dev layout: the cup at the table's right front corner, the bottle left of the middle


@pytest.fixture
def ctl():
    from memora_core.robot import make_robot
    from memora_core.robot.control import RuleBasedController
    from sim.scene.config import load_scene_config
    from sim.scene.layout import sample_layout

    robot = make_robot("sim_g1", layout=sample_layout(load_scene_config(), SEED))
    yield RuleBasedController(robot, robot.scene.table.height, robot.scene.regions)
    robot.close()


def pour(ctl) -> None:
    ctl.c.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object=BOTTLE))
    ctl.c.skills.pour(PrimitiveCall(primitive=Primitive.POUR, object=BOTTLE, target=CUP))


def test_the_bottle_is_poured_and_put_back_standing(ctl):
    pour(ctl)
    assert ctl.robot.held_object() is None
    assert ctl.robot.ground_truth_pose(BOTTLE)[1][2, 2] > 0.99


def test_control_without_rising_off_the_cup_the_put_back_is_refused(ctl):
    ctl.c.skills.pour.leave_cup = lambda obj, cup: None
    with pytest.raises(PrimitiveFailure) as e:
        pour(ctl)
    assert e.value.cause is FailureCause.PATH_BLOCKED and CUP in e.value.blockers
