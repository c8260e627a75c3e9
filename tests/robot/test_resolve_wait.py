"""A step on a perceived scene waits (up to motion.object_wait_s) for the object source to see what it names, as
the head RGB-D scene model fills the tracker over its first frames; a ground-truth scene and an engaged e-stop
never wait. The robot here is a stand-in with a scene that fills from a timer thread (deterministic timing)."""
from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest

from memora_core.robot.control.failures import FailureReason, PrimitiveFailure
from memora_core.robot.control.resolve import Resolver
from memora_core.robot.limits import EStop
from memora_core.robot.robot import SceneObject

BOTTLE = SceneObject(name="coca-cola bottle", category="bottle", colour="red", material="plastic",
                     half_height=0.1, radius=0.03, position=(0.4, -0.1, 0.85))


class FillingScene:
    """scene_objects() empty until `after_s` have passed, then the bottle."""

    def __init__(self, after_s: float, perceived: bool, wait_s: float) -> None:
        self.objects: list[SceneObject] = []
        self.perceived_scene = perceived
        self.estop = EStop()
        self.config = SimpleNamespace(motion=SimpleNamespace(object_wait_s=wait_s))
        self._timer = threading.Timer(after_s, lambda: self.objects.append(BOTTLE))
        self._timer.start()

    def scene_objects(self) -> list[SceneObject]:
        return list(self.objects)

    def known_objects(self) -> list[SceneObject]:
        return [BOTTLE]

    def object_pose(self, name: str):  # noqa: ANN201 - (position, rotation) or None
        o = next((o for o in self.objects if o.name == name), None)
        return None if o is None else (np.array(o.position), np.eye(3))


def test_perceived_scene_waits_until_the_object_is_seen():
    robot = FillingScene(after_s=0.4, perceived=True, wait_s=5.0)
    t0 = time.monotonic()
    assert Resolver(robot).find("the red bottle", "object").name == BOTTLE.name
    assert 0.3 < time.monotonic() - t0 < 3.0


def test_perceived_scene_gives_up_after_the_wait():
    robot = FillingScene(after_s=10.0, perceived=True, wait_s=0.5)
    t0 = time.monotonic()
    with pytest.raises(PrimitiveFailure) as err:
        Resolver(robot).find("coca-cola bottle", "object")
    assert err.value.reason is FailureReason.OBJECT_MISSING
    assert 0.45 < time.monotonic() - t0 < 3.0
    robot._timer.cancel()


@pytest.mark.parametrize("perceived, estop", [(False, False), (True, True)])
def test_no_wait_on_ground_truth_or_under_estop(perceived, estop):
    robot = FillingScene(after_s=10.0, perceived=perceived, wait_s=5.0)
    if estop:
        robot.estop.trigger()
    t0 = time.monotonic()
    with pytest.raises(PrimitiveFailure):
        Resolver(robot).find("coca-cola bottle", "object")
    assert time.monotonic() - t0 < 0.5
    robot._timer.cancel()
