"""The primitives: the only things a plan can make the robot do. A plan step whose verb is not on this
whitelist is refused before any motion."""
from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict

from memora_core.schemas.plan import PlanStep


class Primitive(str, Enum):
    PICK = "pick"
    PLACE = "place"
    POUR = "pour"
    GIVE = "give"
    MOVE_TO = "move_to"


# Plan verbs (lower-case, as planners write them) → primitive. Anything else is rejected.
VERBS: dict[str, Primitive] = {
    "pick": Primitive.PICK, "pick up": Primitive.PICK, "take": Primitive.PICK, "grab": Primitive.PICK,
    "get": Primitive.PICK, "fetch": Primitive.PICK,
    "place": Primitive.PLACE, "put": Primitive.PLACE, "put down": Primitive.PLACE, "set": Primitive.PLACE,
    "pour": Primitive.POUR,
    "give": Primitive.GIVE, "hand_over": Primitive.GIVE, "hand over": Primitive.GIVE, "hand": Primitive.GIVE,
    "move_to": Primitive.MOVE_TO, "move to": Primitive.MOVE_TO, "move": Primitive.MOVE_TO, "go to": Primitive.MOVE_TO,
}
RELATIONS = ("in", "into", "on", "onto", "inside")


class PrimitiveCall(BaseModel):
    model_config = ConfigDict(extra="forbid")
    primitive: Primitive
    object: str | None = None
    target: str | None = None
    relation: str | None = None  # "in" | "on" for place


class UnknownPrimitive(ValueError):
    """A plan step asked for something outside the whitelist."""


def _split_relation(target: str | None) -> tuple[str | None, str | None]:
    if not target:
        return None, None
    words = target.strip().split()
    if words and words[0].lower() in RELATIONS:
        rel = "in" if words[0].lower() in ("in", "into", "inside") else "on"
        return " ".join(words[1:]) or None, rel
    return target.strip(), None


def parse_step(step: PlanStep) -> PrimitiveCall:
    verb = " ".join(step.action.lower().replace("-", " ").split())
    prim = VERBS.get(verb) or VERBS.get(verb.replace(" ", "_"))
    if prim is None:
        raise UnknownPrimitive(f"step {step.index}: action {step.action!r} is not a robot primitive "
                               f"(allowed: {', '.join(p.value for p in Primitive)})")
    target, relation = _split_relation(step.target)
    if prim in (Primitive.PICK, Primitive.POUR, Primitive.GIVE, Primitive.PLACE) and not step.object \
            and prim is not Primitive.PLACE:
        raise UnknownPrimitive(f"step {step.index}: {prim.value} needs an object")
    if prim is Primitive.MOVE_TO and not (target or step.object):
        raise UnknownPrimitive(f"step {step.index}: move_to needs a region")
    if prim is Primitive.PLACE and not target:
        raise UnknownPrimitive(f"step {step.index}: place needs a target")
    if prim is Primitive.POUR and not target:
        raise UnknownPrimitive(f"step {step.index}: pour needs a container to pour into")
    if prim is Primitive.PLACE and relation is None:
        relation = "on"
    return PrimitiveCall(primitive=prim, object=step.object, target=target or (step.object if prim is
                         Primitive.MOVE_TO else None), relation=relation)
