"""Object permanence over scene models: the controller's object source on a robot without ground truth.

One head RGB-D frame sees only part of the table (the arm hides what it reaches for; the image border cuts
the rest), so the last position each known object was seen at is kept until a newer sighting replaces it.
What the tracker does not know it leaves out (never invented); a caller may drop sightings older than
`max_age_s`. Thread-safe: a ROS subscription updates it while the controller's thread reads it."""
from __future__ import annotations

import threading
from dataclasses import dataclass

from memora_core.perception.scene.objects import perceived_objects
from memora_core.perception.scene.types import SceneModel
from memora_core.robot.robot import SceneObject


@dataclass(frozen=True)
class Sighting:
    object: SceneObject
    stamp_s: float


class ObjectTracker:
    def __init__(self, catalogue: list[SceneObject], max_age_s: float | None = None) -> None:
        self.catalogue = list(catalogue)
        self.max_age_s = max_age_s
        self._lock = threading.Lock()
        self._seen: dict[str, Sighting] = {}
        self.updates = 0

    def update(self, scene: SceneModel, stamp_s: float | None = None) -> list[str]:
        """Take in one scene model (frame time `stamp_s`, default the model's own); returns the names it saw.
        A frame older than the sighting it would replace is ignored for that object (out-of-order messages)."""
        stamp_s = scene.stamp_s if stamp_s is None else stamp_s
        seen = perceived_objects(scene, self.catalogue)
        with self._lock:
            for obj in seen:
                old = self._seen.get(obj.name)
                if old is None or old.stamp_s <= stamp_s:
                    self._seen[obj.name] = Sighting(obj, stamp_s)
            self.updates += 1
        return [o.name for o in seen]

    def forget(self, name: str) -> None:
        """Drop what was seen of `name` (e.g. it is in the hand now: its place on the table is stale)."""
        with self._lock:
            self._seen.pop(name, None)

    def objects(self, now_s: float | None = None) -> list[SceneObject]:
        """The known objects last seen, at their last seen positions (those seen within `max_age_s` of
        `now_s` when both are given)."""
        with self._lock:
            sightings = list(self._seen.values())
        if self.max_age_s is not None and now_s is not None:
            sightings = [s for s in sightings if now_s - s.stamp_s <= self.max_age_s]
        return [s.object for s in sightings]

    def __call__(self) -> list[SceneObject]:
        """The tracker as an object source (UnitreeG1Robot's `objects`)."""
        return self.objects()


def scene_catalogue(scene) -> list[SceneObject]:
    """The known objects of a scene description (sim.scene.config.SceneConfig), identity and size only: what a
    tracker matches sightings to."""
    return [SceneObject.from_spec(o) for o in scene.objects]
