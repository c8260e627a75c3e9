"""Object and target resolution: which scene object a plan's words mean ('the red bottle' → the Coca-Cola),
and the lookups that fail with a typed OBJECT_MISSING."""
from __future__ import annotations

import re
import time

from memora_core.robot.control.failures import PrimitiveFailure
from memora_core.robot.robot import Robot, SceneObject

_TOKEN = re.compile(r"[a-z0-9]+")
TABLE_WORDS = ("table", "the table", "counter", "table top")
# 'table next to yellow bowl' / 'next to the bowl' / 'beside the bowl': a table spot beside an object
BESIDE = re.compile(r"^(?:(?:the )?(?:table|counter) )?(?:next to|beside|near|by) (?:the )?(.+)$")
STOPWORDS = {"the", "a", "an", "of", "my", "to", "in", "on", "into", "onto", "with", "from"}


def _tokens(text: str) -> set[str]:
    return {t for t in _TOKEN.findall(text.lower().replace("-", " ")) if t not in STOPWORDS}


def normalise(text: str | None) -> str:
    return " ".join((text or "").lower().split())


def match_score(query: str, obj: SceneObject) -> float:
    """How well a plan's object string names a scene object: exact name/alias > label > word overlap.
    Attributes (colour, label, category) count, so 'the red bottle' finds the Coca-Cola, not the Fanta can."""
    q = normalise(query)
    names = [obj.name.lower()] + [a.lower() for a in obj.aliases]
    if q in names:
        return 10.0
    if obj.label and q == obj.label.lower():
        return 9.0
    qt = _tokens(q)
    if not qt:
        return 0.0
    words = _tokens(" ".join(names + [obj.category, obj.colour, obj.material, obj.label or ""]))
    hit = len(qt & words) / len(qt)
    cat_ok = bool(_tokens(obj.category) & qt) or bool(_tokens(obj.name) & qt)
    return hit * 5.0 + (1.0 if cat_ok else 0.0)


class Resolver:
    """Plan strings → scene objects on a robot's scene."""

    def __init__(self, robot: Robot) -> None:
        self.robot = robot

    def objects(self) -> list[SceneObject]:
        return self.robot.scene_objects()

    def resolve(self, query: str) -> SceneObject | None:
        """The scene object a plan string means, or None when nothing matches well enough."""
        objects = self.objects()
        scored = sorted(((match_score(query, o), o) for o in objects), key=lambda p: -p[0])
        if not scored or scored[0][0] < 3.5:
            return None
        best = scored[0][0]
        if len(scored) > 1 and scored[1][0] == best and best < 9.0:
            return None  # ambiguous: two objects fit equally; refuse rather than guess
        # An object the robot knows but does not see now may fit the words better ('the metal spoon' while only the
        # yellow one is in view): that one is meant and is missing; the look-alike in view is not it.
        in_view = {o.name for o in objects}
        unseen = max((match_score(query, o) for o in self.robot.known_objects() if o.name not in in_view), default=0.0)
        if unseen > best or (unseen == best and best < 9.0):
            return None
        return scored[0][1]

    def require(self, name: str) -> SceneObject:
        for o in self.objects():
            if o.name == name:
                return o
        raise PrimitiveFailure.missing(f"{name!r} is not in the scene")

    def find(self, query: str | None, role: str) -> SceneObject:
        """The scene object `query` names; on a perceived scene it waits up to the robot's `motion.object_wait_s`
        for its object source to see it (never while the e-stop is engaged)."""
        if not query:
            raise PrimitiveFailure.missing(f"no {role} given")
        wait_s = self.robot.config.motion.object_wait_s if self.robot.perceived_scene else 0.0
        deadline = time.monotonic() + wait_s
        while True:
            obj = self.resolve(query)
            if obj is not None and self.robot.object_pose(obj.name) is not None:
                return obj
            if time.monotonic() >= deadline or self.robot.estop.engaged:
                raise PrimitiveFailure.missing(f"no object in the scene matches {query!r}")
            time.sleep(0.1)

    def movable(self, names) -> list[str]:  # noqa: ANN001 - any iterable of names
        """The scene objects among `names` (clearance hits also name the table and the other arm)."""
        known = {o.name for o in self.objects()}
        return [n for n in names if n in known and n != self.robot.held_object()]
