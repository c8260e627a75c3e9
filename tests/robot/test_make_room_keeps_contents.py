"""Making room never sets aside what lies in a container (an earlier step may have put it there, and picking it back out
would undo that step), nor a container with something in it (what lies in it may spill on the way, and its put-down
finds its own contents in the way); an empty container may be set aside like anything else. The containers' contents
come from the scene as it is seen (SceneView over a robot that reports poses); the blockers a failed grasp names are
filtered before any move is planned."""
from types import SimpleNamespace

import numpy as np

from memora_core.robot.control.failures import FailureCause, FailureReason, PrimitiveFailure
from memora_core.robot.control.recovery import MakeRoom, StepAttempt
from memora_core.robot.control.scene import SceneView
from memora_core.robot.primitives import Primitive, PrimitiveCall
from memora_core.robot.robot import SceneObject


def _obj(name: str, radius: float, container: bool = False) -> SceneObject:
    return SceneObject(name=name, category=name, colour="grey", material="plastic", container=container,
                       half_height=0.03, radius=radius)


OBJECTS = {o.name: o for o in [_obj("pot", 0.09, container=True), _obj("jar", 0.03), _obj("mug", 0.04),
                               _obj("loaf", 0.05), _obj("tray", 0.1, container=True), _obj("lid", 0.04),
                               _obj("basket", 0.08, container=True)]}
AT = {"pot": (0.40, 0.00, 0.80), "jar": (0.42, 0.03, 0.80),        # the jar stands in the pot
      "mug": (0.55, 0.00, 0.80), "loaf": (0.30, 0.20, 0.78),       # beside it, on the table
      "tray": (0.35, -0.25, 0.76), "lid": (0.37, -0.27, 0.78),     # the lid lies on the tray
      "basket": (0.55, 0.25, 0.78)}                                 # nothing in the basket


class Robot:
    def __init__(self, held: str | None = None) -> None:
        self.held = held

    def object_pose(self, name):
        return None if name not in AT else (np.array(AT[name]), np.eye(3))

    def held_object(self):
        return self.held


def _room(held: str | None = None) -> MakeRoom:
    resolver = SimpleNamespace(objects=lambda: list(OBJECTS.values()), require=OBJECTS.__getitem__,
                               resolve=lambda q: OBJECTS.get(q))
    robot = Robot(held)
    scene = SceneView(robot, resolver, 0.74, state=None)
    return MakeRoom(SimpleNamespace(robot=robot, resolver=resolver, scene=scene,
                                    cfg=SimpleNamespace(motion=SimpleNamespace(clear_moves=3))))


def test_what_lies_in_a_container_is_never_set_aside():
    room = _room()
    pick = PrimitiveCall(primitive=Primitive.PICK, object="loaf")
    assert room.involved(pick) == {"loaf", "jar", "lid", "pot", "tray"}
    failure = PrimitiveFailure(FailureReason.COLLISION, "no grasp", ("jar", "mug", "lid", "pot", "basket"),
                               cause=FailureCause.NO_GRASP)
    # neither the contents nor the filled containers may be moved; the empty basket and the mug may
    assert room._candidates(failure, pick, StepAttempt()) == ["mug", "basket"]


def test_a_held_containers_contents_are_not_on_the_table():
    room = _room(held="tray")
    # the held tray is not on the table: the lid in it is not among the contents there, nor the tray a filled container
    assert room.involved(PrimitiveCall(primitive=Primitive.PICK, object="loaf")) == {"loaf", "jar", "pot", "tray"}
