"""A way out for a start posture that is already too close to something: the arm often stops inside the
clearance margin (a hand left just above the table's edge, a knuckle beside a bowl after a put-down), and a
planner that refuses every such start leaves the arm where it is. Postures near the start are sampled, nearest
first; one that is valid and reached by a straight joint line that never comes closer to anything than the
start already is (no new contact, no deeper one) becomes the path's first waypoint."""
from __future__ import annotations

import numpy as np

from memora_core.robot.motion.world import CollisionWorld

DEEPER_TOLERANCE = 0.002  # m the clearance may dip along the escape below the start's (measurement noise)


def escape_line_ok(world: CollisionWorld, start: np.ndarray, end: np.ndarray, step: float) -> bool:
    """Whether the straight joint line start..end touches nothing the start does not touch and comes no
    closer to any obstacle than the start is (end valid)."""
    return _line_ok(world, start, end, step, set(world.colliding(start)), world.clearance(start) - DEEPER_TOLERANCE)


def _line_ok(world: CollisionWorld, start: np.ndarray, end: np.ndarray, step: float, touched: set[str],
             floor: float) -> bool:
    if not world.is_valid(end):
        return False
    n = max(1, int(np.ceil(np.abs(end - start).max(initial=0.0) / step)))
    for t in np.linspace(0.0, 1.0, n + 1)[1:-1]:
        q = start + (end - start) * t
        if not world.is_valid(q) and (not set(world.colliding(q)) <= touched or world.clearance(q) < floor):
            return False
    return True


def escape_start(world: CollisionWorld, start: np.ndarray, radius: float, attempts: int, step: float,
                 max_depth: float, seed: int = 0) -> np.ndarray | None:
    """A valid posture within `radius` (rad, every joint) of the invalid `start`, reached by an escape line
    (`escape_line_ok`); candidates are drawn in rings of growing size, so the first found is near. None when
    none of `attempts` samples qualifies, or when `start` lies deeper than `max_depth` (m) inside an obstacle
    (not a margin to leave but a posture that cannot be where it is)."""
    clearance = world.clearance(start)
    if radius <= 0 or attempts <= 0 or clearance < -max_depth:
        return None
    touched, floor = set(world.colliding(start)), clearance - DEEPER_TOLERANCE
    rng = np.random.default_rng(seed)
    space = world.space
    for k in range(attempts):
        r = radius * (k + 1) / attempts
        q = space.clip(start + rng.uniform(-r, r, space.dof))
        if _line_ok(world, start, q, step, touched, floor):
            return q
    return None
