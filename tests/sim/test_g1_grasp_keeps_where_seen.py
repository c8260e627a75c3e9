"""The G1 backend's grasp takes the held object's place in the hand from where the object source saw it before the
fingers closed: while they close, the hand hides the object and may nudge it, and the source may stop reporting it.
The held object must stay known (the controller's checks look it up by name). Loopback G1 (no DDS), a scripted hand
whose fingers report a grasp, and an object source that loses the object as the hand closes."""
import numpy as np
import pytest

from memora_core.robot import load_robot_config
from memora_core.robot.robot import SceneObject
from tests.sim.g1_loopback import seeing_g1

pytestmark = pytest.mark.sim

BOX = SceneObject(name="tea box", category="tea box", colour="orange", material="cardboard", half_height=0.035,
                  radius=0.05, position=(0.40, -0.15, 0.775))


class ClosingHand:
    """Reports thumb and index on the object as soon as it is asked; `on_close` runs when the hand closes."""

    side, postures = "right", None
    target = [0.0] * 7  # the open hand as commanded

    def __init__(self, on_close) -> None:  # noqa: ANN001
        self.on_close = on_close

    def touching(self) -> set[str]:
        return {"thumb", "index"}

    def close(self) -> None:
        self.on_close()

    def grasping(self) -> bool:
        return True

    def command(self, target) -> None:  # noqa: ANN001
        pass

    def open(self) -> None:
        pass

    def q(self) -> None:
        return None  # no finger state: the kinematics take the commanded target

    def shutdown(self) -> None:
        pass


@pytest.fixture
def holding_g1():
    """A loopback G1 whose right hand has just closed on the tea box; its source lost the box as the hand closed."""
    pytest.importorskip("unitree_sdk2py")
    robot, seen = seeing_g1()
    seen.append(BOX)
    try:
        robot.config = robot.config.model_copy(update={"dex3": load_robot_config("unitree_g1").dex3})
        robot.hands = {"right": ClosingHand(seen.clear), "left": ClosingHand(seen.clear)}
        robot.use_arm("right")
        assert robot.grasp("tea box")
        yield robot
    finally:
        robot.close()


def test_an_object_dropped_by_its_source_while_the_fingers_close_stays_held_where_it_was_seen(holding_g1):
    robot = holding_g1
    assert robot.held_object() == "tea box"
    held = next(o for o in robot.scene_objects() if o.name == "tea box")  # known, with the hand
    assert np.linalg.norm(np.subtract(held.position, BOX.position)) < 1e-6  # the hand has not moved


def test_the_held_object_is_kept_where_the_controller_says_the_hand_left_it(holding_g1):
    """After a sweep pinch the controller says where the closing hand left the object (`Robot.held_at`): the backend
    holds it there, and it moves with the palm from then on."""
    robot = holding_g1
    at = np.asarray(BOX.position) + np.array([0.0, 0.02, 0.0])
    robot.held_at(at)
    assert np.asarray(robot.object_pose("tea box")[0]) == pytest.approx(at, abs=1e-9)
    palm, rot = robot.hand_position(), robot.hand_rotation()
    assert rot.T @ (at - palm) == pytest.approx(robot._held_offset, abs=1e-9)  # kept in the palm's frame


def test_the_fingers_report_where_they_pinch(holding_g1):
    """`finger_pinch` reads the hand's finger joints through the kinematic model: a point by the palm, and a
    horizontal closing direction."""
    robot = holding_g1
    pinch = robot.finger_pinch()
    assert pinch is not None
    assert np.linalg.norm(pinch.point - robot.hand_position()) < 0.15
    assert np.linalg.norm(pinch.closing) == pytest.approx(1.0) and pinch.closing[2] == 0.0
