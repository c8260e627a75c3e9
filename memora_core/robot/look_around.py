"""The head's other viewpoints, for a robot whose objects come from its head camera: an object not seen from where
the robot stands (beyond the image's edge, or hidden behind a neighbour) may show from a waist turned, leaned or
bent a little. Both the perceived simulation (sim.perceived_robot) and the G1 backend look from these."""
from __future__ import annotations

# Waist offsets (rad) from the current posture, each a head viewpoint of its own: leaning sideways moves the camera
# ~10 cm across (parallax past what hides an object), leaning forward looks down more steeply (behind a tall
# neighbour), turning widens the view (an object near the table's corner on the robot's side).
LOOK_AROUND = ({"waist_roll_joint": 0.2}, {"waist_roll_joint": -0.2}, {"waist_pitch_joint": 0.25},
               {"waist_yaw_joint": 0.35}, {"waist_yaw_joint": -0.35})
# Time (s) the body is given to come to rest at each viewpoint before its frame.
LOOK_SETTLE_S = 0.2


def look_joints() -> list[str]:
    """The joints the viewpoints move, sorted."""
    return sorted({j for offsets in LOOK_AROUND for j in offsets})
