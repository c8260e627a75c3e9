"""Collision stand-ins for the objects of a perceived scene, in a backend's kinematic MuJoCo model.

A backend that gets its objects from perception (the G1 over DDS, fed by the head RGB-D scene model) knows
each object's centre, size and, for a box, the turn of its long side, not its mesh. `add_obstacle_slots` puts a
fixed number of free bodies into the model before it is compiled, each with one geom; `ObstacleSlots.place`
then moves them (in a given qpos) onto the objects reported now and shapes each geom to its object: a box whose
turn was seen is a box of its size turned so; anything else is a cylinder of its footprint radius (which
encloses a box of any turn, so the stand-in errs on the side of clearance). One geom per body, its type set per
check: MuJoCo picks the collision routine by the geom's type at each check, and a body of several geoms would
be culled by bounding volumes computed at compile time, before the sizes were known. Slots not in use are
parked far from the robot. The kinematic checks (`sim.robot_backend.ClearanceChecker`) then see the
objects as they see the simulation's own bodies, by name."""
from __future__ import annotations

import logging
from typing import Iterable

import mujoco
import numpy as np

from memora_core.robot.robot import SceneObject

log = logging.getLogger(__name__)

SLOT_PREFIX = "perceived_object_"
# Parked slots stand in a row this far from the robot (m): no link reaches them.
PARK_X = 50.0


def add_obstacle_slots(spec: mujoco.MjSpec, count: int) -> None:
    """`count` free bodies with one (placeholder-sized) geom each, invisible, parked in a row far away."""
    for i in range(count):
        body = spec.worldbody.add_body(name=f"{SLOT_PREFIX}{i}", pos=[PARK_X + i, 0.0, 0.0])
        body.add_freejoint(name=f"{SLOT_PREFIX}{i}_free")
        body.add_geom(type=mujoco.mjtGeom.mjGEOM_CYLINDER, size=[0.01, 0.01, 0.0], mass=0.01,
                      rgba=[0.0, 0.0, 0.0, 0.0], group=5)


class ObstacleSlots:
    """The slots of a compiled model (found by name), placed per check onto the objects reported now."""

    def __init__(self, model: mujoco.MjModel) -> None:
        self.bodies = [b for b in range(model.nbody) if model.body(b).name.startswith(SLOT_PREFIX)]
        self.geoms = [int(np.flatnonzero(model.geom_bodyid == b)[0]) for b in self.bodies]
        self.qadr = [int(model.jnt_qposadr[model.body_jntadr[b]]) for b in self.bodies]
        self._warned = False

    def placeholder_names(self) -> dict[str, int]:
        """A name per slot body (for checkers that want an object -> body map when they are built)."""
        return {f"{SLOT_PREFIX}{i}": b for i, b in enumerate(self.bodies)}

    def place(self, model: mujoco.MjModel, qpos: np.ndarray, objects: Iterable[SceneObject]) -> dict[int, str]:
        """Size and move one slot per object with a position (in `model`, `qpos` written in place); park the rest.
        More objects than slots: those nearest the robot (the world origin) get one, and a warning says so once.
        Returns slot body -> object name."""
        seen = [o for o in objects if o.position is not None]
        if len(seen) > len(self.bodies):
            seen.sort(key=lambda o: float(np.hypot(o.position[0], o.position[1])))
            if not self._warned:
                log.warning("%d objects seen, %d collision slots: the furthest go unchecked", len(seen),
                            len(self.bodies))
                self._warned = True
            seen = seen[: len(self.bodies)]
        names: dict[int, str] = {}
        for i, (body, geom, adr) in enumerate(zip(self.bodies, self.geoms, self.qadr)):
            qpos[adr + 3:adr + 7] = (1.0, 0.0, 0.0, 0.0)
            if i >= len(seen):
                qpos[adr:adr + 3] = (PARK_X + i, 0.0, 0.0)
                continue
            o = seen[i]
            h = float(o.half_height)
            if o.yaw is not None and o.extent is not None:  # a box, turned as seen
                half = (float(o.extent[0]), float(o.extent[1]), h)
                model.geom_type[geom] = mujoco.mjtGeom.mjGEOM_BOX
                model.geom_size[geom] = half
                mujoco.mju_mat2Quat(qpos[adr + 3:adr + 7], o.standing_rotation().reshape(-1))
            else:
                half = (float(o.radius), float(o.radius), h)
                model.geom_type[geom] = mujoco.mjtGeom.mjGEOM_CYLINDER
                model.geom_size[geom] = (half[0], h, 0.0)
            model.geom_rbound[geom] = float(np.linalg.norm(half))
            model.geom_aabb[geom] = (0.0, 0.0, 0.0, *half)
            qpos[adr:adr + 3] = o.position
            names[body] = o.name
        return names


def pose_in_body(data: mujoco.MjData, body: int, pos: np.ndarray, rot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A world pose (position, 3x3 rotation) in `body`'s frame at `data`'s kinematics: (relpos, relquat)."""
    frame = data.xmat[body].reshape(3, 3)
    quat = np.zeros(4)
    mujoco.mju_mat2Quat(quat, (frame.T @ np.asarray(rot, float)).ravel())
    return frame.T @ (np.asarray(pos, float) - data.xpos[body]), quat
