"""The robot's hand zones for its object tracker: a disc round each configured arm's palm, and one under the object
held (its footprint plus a margin) where the robot believes it is."""
from types import SimpleNamespace

import numpy as np

from memora_core.robot.hand_zones import HELD_MARGIN_M, PALM_ZONE_M, hand_zones
from memora_core.robot.robot import SceneObject

BOX = SceneObject(name="tea box", category="tea box", colour="red", material="cardboard", half_height=0.035,
                  radius=0.05, extent=(0.06, 0.03), position=(0.5, 0.1, 0.8))


def robot(held: str | None):
    palms = {"right": np.array([0.45, -0.1, 0.9]), "left": np.array([0.1, 0.25, 0.7])}
    return SimpleNamespace(config=SimpleNamespace(arms=["right", "left"]), hand_position=lambda arm: palms[arm],
                           held_object=lambda: held, scene_objects=lambda: [BOX],
                           object_pose=lambda name: (np.array(BOX.position), np.eye(3)) if name == BOX.name else None)


def test_each_palm_and_the_held_object():
    empty = hand_zones(robot(None))
    assert [(tuple(np.round(xy, 3)), r) for xy, r in empty] == [((0.45, -0.1), PALM_ZONE_M), ((0.1, 0.25), PALM_ZONE_M)]
    holding = hand_zones(robot("tea box"))
    xy, r = holding[-1]
    assert len(holding) == 3 and np.allclose(xy, (0.5, 0.1)) and r == 0.06 + HELD_MARGIN_M  # its longest half size
