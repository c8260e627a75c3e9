"""The G1 backend looks around for an object its head camera does not show from where it stands (an object near the
table's corner on the robot's side, beyond the image's edge): it turns, leans and bends its waist through the head's
other viewpoints, waits at each for new frames from its object source, and comes back. Loopback G1 (no DDS) with a
camera stand-in that takes a frame every FRAME_S of the robot's clock and sees what lies within its field of view of
the waist's yaw."""
import math
from contextlib import contextmanager

import pytest

from memora_core.robot import load_robot_config
from memora_core.robot.backends.unitree_g1 import FRAME_WAIT_S
from memora_core.robot.look_around import LOOK_AROUND
from memora_core.robot.robot import SceneObject
from tests.sim.g1_loopback import loopback_g1

pytestmark = pytest.mark.sim

FRAME_S = 0.5
HALF_FOV = math.radians(35)


def thing(name: str, x: float, y: float) -> SceneObject:
    return SceneObject(name=name, category=name, colour="red", material="plastic", half_height=0.05, radius=0.03,
                       position=(x, y, 0.8))


BOX = thing("tea box", 0.40, 0.0)       # straight ahead
BOTTLE = thing("bottle", 0.27, -0.37)   # 54 deg to the right: seen only with the waist turned right


class Camera:
    """An object source that counts its frames (`updates`, as the tracker does) and keeps what each one saw."""

    def __init__(self, table: list[SceneObject], stops_at: float = float("inf")) -> None:
        self.table, self.stops_at = table, stops_at
        self.robot = None
        self.kept: dict[str, SceneObject] = {}
        self.taken = 0
        self.yaws: list[float] = []

    @property
    def updates(self) -> int:
        due = int(min(self.robot.clock, self.stops_at) / FRAME_S)
        while self.taken < due:
            self.taken += 1
            yaw = self.robot.joint_positions()["waist_yaw_joint"]
            self.yaws.append(yaw)
            for o in self.table:
                if abs(math.atan2(o.position[1], o.position[0]) - yaw) <= HALF_FOV:
                    self.kept[o.name] = o
        return self.taken

    def __call__(self) -> list[SceneObject]:
        self.updates  # the frames due by now are taken in first
        return list(self.kept.values())


@contextmanager
def g1_with(camera: Camera | None):
    """A loopback G1 whose object source is `camera` (none: no source), once the camera has sent its first frame;
    closed after."""
    pytest.importorskip("unitree_sdk2py")
    robot = loopback_g1(load_robot_config("unitree_g1").model_copy(update={"dex3": None}), objects=camera)
    try:
        if camera is not None:
            camera.robot = robot
            robot.settle(1.2 * FRAME_S)
        yield robot
    finally:
        robot.close()


def names(robot) -> set[str]:
    return {o.name for o in robot.scene_objects()}


def test_an_object_beyond_the_view_is_found_by_looking_around_and_the_waist_comes_back():
    camera = Camera([BOX, BOTTLE])
    with g1_with(camera) as robot:
        start = robot.joint_positions()
        assert robot.look() is True
        assert names(robot) == {"tea box"}  # a fresh frame from where it stands shows only what is ahead
        assert robot.look(around=True) is True
        assert names(robot) == {"tea box", "bottle"}
        assert min(camera.yaws) < -0.3  # a frame was taken with the waist turned right
        back = robot.joint_positions()
        for j in ("waist_yaw_joint", "waist_roll_joint", "waist_pitch_joint"):
            assert back[j] == pytest.approx(start[j], abs=0.02)


def test_a_hand_holding_something_does_not_look_around():
    camera = Camera([BOX, BOTTLE])
    with g1_with(camera) as robot:
        robot._held = "tea box"  # what grasp() sets once the fingers hold it
        assert robot.look(around=True) is True
        assert "bottle" not in names(robot)
        assert max(abs(y) for y in camera.yaws) < 0.05


def test_a_camera_that_stops_sending_frames_is_not_waited_on_for_ever():
    camera = Camera([BOX, BOTTLE], stops_at=1.0)
    with g1_with(camera) as robot:
        robot.settle(1.2)
        assert names(robot) == {"tea box"} and camera.taken == 2  # then no more
        t0 = robot.clock
        assert robot.look(around=True) is True
        assert names(robot) == {"tea box"}
        # one wait per viewpoint and one for the fresh frame, plus the moves and settling: bounded
        assert robot.clock - t0 < (len(LOOK_AROUND) + 1) * FRAME_WAIT_S + 20.0


def test_a_source_no_camera_ever_fed_has_nothing_to_look_with():
    camera = Camera([BOX, BOTTLE], stops_at=0.0)
    with g1_with(camera) as robot:
        t0 = robot.clock
        assert robot.look(around=True) is False
        assert robot.clock - t0 < 1e-6 and camera.yaws == []  # no waiting, no waist moves


def test_without_an_object_source_there_is_nothing_to_look_at():
    with g1_with(None) as robot:
        assert robot.look(around=True) is False
