"""Where the robot's hands are on the table, as its object tracker needs them (perception.scene.tracker): a disc
round each palm and one under the object held. A sighting that would move another object into one of them is the
hand, or what it holds, named as a look-alike."""
from __future__ import annotations

import numpy as np

from memora_core.robot.robot import Robot

# Radius round a palm centre (m): the Dex3's fingertips reach about 10 cm from it, open or closed.
PALM_ZONE_M = 0.10
# Added to the held object's own radius (m): its sightings are a blob about its footprint.
HELD_MARGIN_M = 0.02


def hand_zones(robot: Robot) -> list[tuple[np.ndarray, float]]:
    """(x/y, radius) discs round each arm's palm and round the held object where the robot believes it is."""
    zones = [(np.asarray(robot.hand_position(arm), float)[:2], PALM_ZONE_M) for arm in robot.config.arms]
    held = robot.held_object()
    pose = robot.object_pose(held) if held is not None else None
    if pose is not None:
        obj = next((o for o in robot.scene_objects() if o.name == held), None)
        size = max(obj.extent or (obj.radius,)) if obj is not None else 0.0
        zones.append((np.asarray(pose[0], float)[:2], size + HELD_MARGIN_M))
    return zones
