"""Object permanence over scene models: the controller's object source on a robot without ground truth.

One head RGB-D frame sees only part of the table (the arm hides what it reaches for; the image border cuts
the rest), so the last position each known object was seen at is kept until a newer sighting replaces it.
A sighting that explains much less of an object than the one kept (a part of it shows; its position is the
part's) does not replace it where it lies within the kept one's footprint: the same object seen worse from
here, not moved.
A sighting that would move a known object onto the place kept for another known object, which this frame did not
see anywhere, is left out: two objects do not stand in one place, so the frame has named one look-alike as the
other (the G1 demo took one tea box for the other while the first was hidden, and set a bowl down on the hidden
one). The move is taken once the other is seen elsewhere, or the object is seen at a free place.
A sighting that would move a known object into the robot's hand (`hands`: the palm and what it holds, as discs on
the table) is left out too: the hand and the object in it stand in the view there and are easily named as a look-alike
(a grey hand lifting a tea box was taken for the grey bowl 20 cm away, and the box was set down "in" it where it
stood: dev sim-bench 96028 with the fingers). An object seen at its own place beside the hand is still taken, and one
the hand really pushed is taken once the hand has left it.
A sighting of which only a part is in view (cut by the image border, or behind something nearer) does not move a
known object off its kept place either: a part of one object shaped and coloured like another is named as that
other (with the real bowl hidden under the arm, a corner of the yellow tea box 24 cm away was taken for the yellow
bowl and the held box was carried to it: dev sim-bench 100003). It still confirms an object where it is kept, and an
object is moved once it is seen whole at its new place.
What the tracker does not know it leaves out (never invented); a caller may drop sightings older than
`max_age_s`. An object forgotten (it is in the hand) or put down by the robot (`put`: kept where it was let go) is
not brought back by a frame older than the newest one taken in before (a frame that came in late shows it where it
was then). Thread-safe: a ROS subscription updates it while the controller's thread reads it."""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from memora_core.perception.scene.objects import perceived_sightings
from memora_core.perception.scene.types import SceneModel
from memora_core.robot.robot import SceneObject


@dataclass(frozen=True)
class Sighting:
    object: SceneObject
    stamp_s: float
    explained: float = 1.0   # of the object's box, the fraction the view accounted for

    # A view that explains this much less of the object than the kept one is the same object seen worse.
    WORSE_BY = 0.3

    def covers(self, obj: SceneObject, margin_m: float = 0.02) -> bool:
        """Whether `obj`'s position lies within this sighting's footprint (its longest half size + margin)."""
        if self.object.position is None or obj.position is None:
            return False
        reach = max(self.object.extent or (self.object.radius,)) + margin_m
        return float(np.linalg.norm(np.subtract(obj.position[:2], self.object.position[:2]))) <= reach


# Where the robot's hand is in the view: (x/y, radius) discs on the table, m.
HandZones = Sequence[tuple[np.ndarray, float]]


class ObjectTracker:
    def __init__(self, catalogue: list[SceneObject], max_age_s: float | None = None,
                 hands: Callable[[], HandZones] | None = None) -> None:
        self.catalogue = list(catalogue)
        self.max_age_s = max_age_s
        self.hands = hands  # the robot's hand zones now (None: the tracker knows no hand)
        self._lock = threading.Lock()
        self._seen: dict[str, Sighting] = {}
        self._forgotten: dict[str, float] = {}  # name: the newest frame time taken in when it was forgotten
        self._newest_s = float("-inf")
        self.updates = 0

    def update(self, scene: SceneModel, stamp_s: float | None = None) -> list[str]:
        """Take in one scene model (frame time `stamp_s`, default the model's own); returns the names it saw.
        A frame older than the sighting it would replace is ignored for that object (out-of-order messages)."""
        stamp_s = scene.stamp_s if stamp_s is None else stamp_s
        seen = perceived_sightings(scene, self.catalogue)
        hands = list(self.hands()) if self.hands is not None else []
        named = {o.name for o, _, _ in seen}
        with self._lock:
            self._newest_s = max(self._newest_s, stamp_s)
            for obj, explained, partial in seen:
                old = self._seen.get(obj.name)
                if old is not None and old.stamp_s > stamp_s:
                    continue
                if stamp_s < self._forgotten.get(obj.name, float("-inf")):
                    continue  # taken before it was forgotten: where it was then, not where it is
                # A move off its kept place is left out when it goes onto another object's place while that one is
                # not seen (a look-alike misnamed), into the hand (the hand or what it holds, misnamed), or rests on
                # a part seen elsewhere (too little to move a known object on).
                if (old is not None and not old.covers(obj)
                        and (partial or self._kept_for_unseen(obj, named) or in_hand_zone(obj, hands))):
                    continue
                if old is not None and explained < old.explained - Sighting.WORSE_BY and old.covers(obj):
                    self._seen[obj.name] = Sighting(old.object, stamp_s, old.explained)  # seen where it was
                else:
                    self._seen[obj.name] = Sighting(obj, stamp_s, explained)
            self.updates += 1
        return [o.name for o, _, _ in seen]

    def _kept_for_unseen(self, obj: SceneObject, named: set[str]) -> bool:
        """Whether `obj`'s position lies on the place kept for another object that the frame (`named`) did not see."""
        return any(name != obj.name and name not in named and kept.covers(obj) for name, kept in self._seen.items())

    def sighting(self, name: str) -> Sighting | None:
        """What is kept of `name`: where, when and how much of it the view explained."""
        with self._lock:
            return self._seen.get(name)

    def forget(self, name: str) -> None:
        """Drop what was seen of `name` (e.g. it is in the hand now: its place on the table is stale)."""
        with self._lock:
            self._seen.pop(name, None)
            self._forgotten[name] = self._newest_s

    def put(self, obj: SceneObject) -> None:
        """The robot let go of `obj` at its position: keep it there, as new as the newest frame, as a belief rather
        than a view (nothing of it explained). Any newer view of it over that place takes over, a part included (an
        object that slipped from the fingers lies beside where the hand had it), and so does a whole view elsewhere;
        a part of a look-alike elsewhere does not (after letting a can go into a bowl, where only its top shows, a
        corner of a yellow tea box 20 cm away was taken for it: dev sim-bench 100092). Frames from before are
        ignored for it."""
        with self._lock:
            self._seen[obj.name] = Sighting(obj, self._newest_s, 0.0)
            self._forgotten[obj.name] = self._newest_s

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


def in_hand_zone(obj: SceneObject, hands: HandZones) -> bool:
    """Whether `obj`'s position lies within one of the hand's discs."""
    return obj.position is not None and any(
        float(np.linalg.norm(np.subtract(obj.position[:2], np.asarray(xy, float)[:2]))) <= r for xy, r in hands)


def scene_catalogue(scene) -> list[SceneObject]:
    """The known objects of a scene description (sim.scene.config.SceneConfig), identity and size only: what a
    tracker matches sightings to."""
    return [SceneObject.from_spec(o) for o in scene.objects]
