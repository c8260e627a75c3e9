"""Where a place step puts its object: a free table spot (at a named region or the free spot nearest it, 'on
the table', 'next to the bowl'), or a receptacle (in/on a bowl, a cup). Raises typed failures (OBJECT_MISSING,
NO_SPOT with the neighbours crowding the spot as blockers)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memora_core.robot.control.context import ControlContext
from memora_core.robot.control.failures import FailureCause, FailureReason, PrimitiveFailure
from memora_core.robot.control.geometry import edge_gap
from memora_core.robot.control.resolve import BESIDE, TABLE_WORDS, normalise
from memora_core.robot.robot import SceneObject


@dataclass
class PlaceTarget:
    point: np.ndarray                 # where the object's bottom should land (x, y, z)
    tolerance: float                  # how far from `point` (xy) still counts as placed
    receptacle: str | None = None     # the object it goes in/on, if any
    spots: list[np.ndarray] = field(default_factory=list)  # the free table spots found (first = `point`)



def into_tolerance(place_tolerance: float, receptacle_radius: float) -> float:
    """How far (m) from a receptacle's centre a thing put into it may land: most of its radius, at least the
    plain place tolerance."""
    return max(place_tolerance, 0.8 * receptacle_radius)

def place_target(c: ControlContext, target: str, relation: str | None, obj: SceneObject | None = None) -> PlaceTarget:
    m = c.cfg.motion
    region = c.regions.get(target.lower())
    if region is not None and obj is None:
        return PlaceTarget(np.array([region[0], region[1], c.table_z]), m.place_tolerance)
    t = normalise(target)
    beside = BESIDE.match(t)
    if region is not None or t in TABLE_WORDS or beside:
        if obj is None:
            raise PrimitiveFailure.missing("say which region of the table")
        ring, keep = 0.0, {obj.name}
        if region is not None:  # the named point when it is free (it may lie outside table_zone), else the
            near = np.array(region[:2], float)  # free spots nearest it
            free = edge_gap(near, obj.radius, c.scene.footprints(obj.name)) >= m.beside_gap
            spots = ([near] if free else []) + [s for s in c.putdown.spots_near(obj, near)
                                                if np.linalg.norm(s - near) > 1e-6]
        elif beside:
            ref = c.resolver.find(beside.group(1), "reference")
            near = c.scene.xy(ref.name)
            ring = ref.radius + obj.radius + m.beside_gap
            keep |= {ref.name} | c.scene.inside(ref)
            spots = c.putdown.spots_near(obj, near, min_dist=ring)
        else:  # anywhere on the table: in the work area if the scene names one and it has room, else back
            origin = c.state.origins.get(obj.name)  # where it came from (free: it was just taken from there)
            work = c.table_put_point()
            spots = []
            for near in [p[:2] for p in (work, origin) if p is not None] or [c.robot.hand_position()[:2]]:
                spots = c.putdown.spots_near(obj, near)
                if spots:
                    break
        if not spots:
            # The neighbours standing where the object would go, closest first: setting one aside makes room.
            crowd = sorted((o for o in c.resolver.objects() if o.name not in keep and c.scene.xy(o.name) is not None),
                           key=lambda o: abs(float(np.linalg.norm(c.scene.xy(o.name) - near)) - ring))
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"no free table spot for {obj.name} near "
                                   f"{np.round(near, 2).tolist()}", [o.name for o in crowd[:3]],
                                   cause=FailureCause.NO_SPOT)
        return PlaceTarget(np.array([spots[0][0], spots[0][1], c.table_z]), m.place_tolerance, None, spots)
    rec = c.resolver.find(target, "target")
    pos, _ = c.robot.object_pose(rec.name)
    rim = pos[2] + rec.half_height
    # 'on' a container (a bowl, a cup) means into it: the plan's wording often says "put X on the bowl".
    into = relation == "in" or rec.container
    tol = into_tolerance(m.place_tolerance, rec.radius) if into else m.place_tolerance
    return PlaceTarget(np.array([pos[0], pos[1], rim]), tol, rec.name)
