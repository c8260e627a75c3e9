"""The G1 backend's kinematic clearance check sees the objects its object source reports (a cylinder of its
footprint and height, or a box turned as it was seen, backends/obstacles.py), as the simulation's check sees its
bodies: a hand posture inside a reported object is named, an ignored object is not, the same posture with the
object reported elsewhere is clear; a long box turned away from the hand is clear where its footprint cylinder
is not; a held object moves with the hand and is named when it (not the hand) reaches a neighbour; the object's
pose turns with its perceived yaw.
Before, this backend checked the table only, and a reach swept neighbours into the object it went for."""
from __future__ import annotations

import numpy as np
import pytest

from memora_core.robot.robot import SceneObject
from tests.sim.g1_loopback import posture as _posture
from tests.sim.g1_loopback import seeing_g1

pytestmark = pytest.mark.sim

TABLE_Z = 0.75


def _box(name: str, xy, half_height: float = 0.05, radius: float = 0.05) -> SceneObject:
    return SceneObject(name=name, category="box", colour="red", material="cardboard", half_height=half_height,
                       radius=radius, position=(float(xy[0]), float(xy[1]), TABLE_Z + half_height))


@pytest.fixture(scope="module")
def g1():
    pytest.importorskip("unitree_sdk2py")
    robot, seen = seeing_g1()
    yield robot, seen
    robot.close()


def test_a_reported_object_in_the_hand_s_way_is_named(g1):
    robot, seen = g1
    palm = (0.38, -0.18, TABLE_Z + 0.06)
    target = _posture(robot, palm)
    seen[:] = [_box("red box", palm[:2])]
    assert robot.clearance(target, set()) == ["red box"]
    assert robot.clearance(target, {"red box"}) == []
    seen[:] = [_box("red box", (palm[0] + 0.1, palm[1] + 0.3))]  # reported elsewhere: the same posture is clear
    assert robot.clearance(target, set()) == []


def test_the_what_if_puts_a_reported_object_elsewhere_without_moving_it(g1):
    robot, seen = g1
    palm = (0.38, -0.18, TABLE_Z + 0.06)
    target = _posture(robot, palm)
    far = (palm[0] + 0.1, palm[1] + 0.3)
    seen[:] = [_box("red box", far)]
    assert robot.clearance(target, set()) == []
    assert robot.clearance(target, set(), placed={"red box": np.array([*palm[:2], TABLE_Z + 0.05])}) == ["red box"]
    seen[:] = [_box("red box", palm[:2])]
    assert robot.clearance(target, set(), placed={"red box": np.array([*far, TABLE_Z + 0.05])}) == []
    assert robot.clearance(target, set()) == ["red box"]  # where it is reported, unchanged


def test_a_held_object_moves_with_the_hand_and_is_checked(g1):
    robot, seen = g1
    palm = np.array([0.38, -0.18, TABLE_Z + 0.24])
    target = _posture(robot, palm)
    low = _box("tall box", palm[:2], half_height=0.06)          # its top 0.12 m above the table, 0.12 m under the palm
    seen[:] = [low]
    assert robot.clearance(target, set()) == []                 # the empty hand clears it
    robot.command(target, 2.0)
    rot = robot._palm_rotation(robot.arm)
    cup = _box("cup", palm[:2], half_height=0.05, radius=0.04)
    robot._held, robot._held_object = "cup", cup               # as grasp() records a grasp
    robot._held_offset, robot._held_rotation = rot.T @ np.array([0.0, 0.0, -0.08]), rot.T
    try:
        assert robot.clearance(target, set()) == ["tall box"]   # the cup hangs 0.08 m below the palm, into the box
        seen[:] = [low.model_copy(update={"position": (palm[0], palm[1] + 0.3, TABLE_Z + 0.06)})]
        assert robot.clearance(target, set()) == []
    finally:
        robot._held = robot._held_object = None


def _slab(xy, yaw: float | None) -> SceneObject:
    """A long thin box (24 x 3 cm), its long side along the object's own x, turned `yaw` as the camera saw it."""
    return SceneObject(name="slab", category="box", colour="red", material="wood", half_height=0.05,
                       radius=float(np.hypot(0.12, 0.015)), extent=(0.12, 0.015), yaw=yaw,
                       position=(float(xy[0]), float(xy[1]), TABLE_Z + 0.05))


def test_a_box_is_checked_as_turned_as_it_was_seen(g1):
    robot, seen = g1
    palm = np.array([0.38, -0.18, TABLE_Z + 0.06])
    target = _posture(robot, palm)
    at = (palm[0] + 0.16, palm[1])                   # 16 cm ahead of the palm
    seen[:] = [_slab(at, None)]                      # no turn seen: its footprint cylinder reaches to 4 cm of the palm
    assert robot.clearance(target, set()) == ["slab"]
    seen[:] = [_slab(at, np.pi / 2)]                 # across the reach: its near side 14.5 cm ahead
    assert robot.clearance(target, set()) == []
    seen[:] = [_slab(at, 0.0)]                       # along the reach: its end 4 cm ahead
    assert robot.clearance(target, set()) == ["slab"]


def test_a_box_s_pose_turns_with_its_perceived_yaw(g1):
    robot, seen = g1
    # a tea box's long side is its own y: the yaw the camera gives (of the long side) turns that axis
    box = SceneObject(name="tea box", category="tea box", colour="brown", material="cardboard", half_height=0.035,
                      radius=0.054, extent=(0.03, 0.045), yaw=0.4, position=(0.4, -0.1, TABLE_Z + 0.035))
    seen[:] = [box]
    _, rot = robot.object_pose("tea box")
    assert np.allclose(rot[:, 1], [np.cos(0.4), np.sin(0.4), 0.0], atol=1e-9)
    assert np.allclose(rot[:, 2], [0.0, 0.0, 1.0])
    seen[:] = [box.model_copy(update={"yaw": None})]
    assert np.allclose(robot.object_pose("tea box")[1], np.eye(3))
