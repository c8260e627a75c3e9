"""SceneModel messages back into the core's SceneModel (what the controller's object tracker takes in): the
inverse of scene_to_msg, with objects the controller must not act on (non-finite numbers, unknown shapes)
dropped."""
from __future__ import annotations

import math

import pytest

from memora_core.perception.scene.types import PerceivedObject, SceneModel, Shape

pytestmark = pytest.mark.ros


def _scene() -> SceneModel:
    return SceneModel(table_z=0.74, stamp_s=0.0, objects=[
        PerceivedObject(position=(0.4, -0.2, 0.85), yaw=None, size=(0.07, 0.07, 0.22), shape=Shape.CYLINDER,
                        colour="red", pixels=900, name="coca-cola bottle", match_cost=0.12),
        PerceivedObject(position=(0.5, 0.1, 0.76), yaw=0.3, size=(0.09, 0.06, 0.035), shape=Shape.BOX,
                        colour=None, pixels=300, truncated=True, name=None, match_cost=None)])


def test_scene_model_message_round_trip():
    pytest.importorskip("memora_interfaces")
    from builtin_interfaces.msg import Time

    from memora.rgbd import msg_to_scene, scene_to_msg

    back = msg_to_scene(scene_to_msg(_scene(), Time(sec=2, nanosec=250_000_000)))
    assert back.stamp_s == 2.25 and back.table_z == 0.74
    assert back.objects == _scene().objects


def test_objects_with_numbers_that_are_not_finite_or_unknown_shapes_are_dropped():
    pytest.importorskip("memora_interfaces")
    from builtin_interfaces.msg import Time

    from memora.rgbd import msg_to_scene, scene_to_msg

    msg = scene_to_msg(_scene(), Time(sec=1))
    msg.objects[0].x = math.nan
    msg.objects[1].shape = "sphere"
    assert msg_to_scene(msg).objects == []
    msg = scene_to_msg(_scene(), Time(sec=1))
    msg.objects[1].height = math.inf
    assert [o.name for o in msg_to_scene(msg).objects] == ["coca-cola bottle"]
