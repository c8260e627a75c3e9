"""One skill per whitelisted primitive (pick, place, pour, give, move_to), each a callable on a
`PrimitiveCall` that raises a typed `PrimitiveFailure` when it cannot be done."""
from __future__ import annotations

from collections.abc import Callable

from memora_core.robot.control.context import ControlContext
from memora_core.robot.control.skills.give import GiveSkill
from memora_core.robot.control.skills.move_to import MoveToSkill
from memora_core.robot.control.skills.pick import PickSkill
from memora_core.robot.control.skills.place import PlaceSkill
from memora_core.robot.control.skills.pour import PourSkill
from memora_core.robot.primitives import Primitive, PrimitiveCall


class Skills:
    def __init__(self, c: ControlContext) -> None:
        self.pick = PickSkill(c)
        self.place = PlaceSkill(c)
        self.pour = PourSkill(c)
        self.give = GiveSkill(c)
        self.move_to = MoveToSkill(c)

    def for_primitive(self, primitive: Primitive) -> Callable[[PrimitiveCall], float | None]:
        return {Primitive.PICK: self.pick, Primitive.PLACE: self.place, Primitive.POUR: self.pour,
                Primitive.GIVE: self.give, Primitive.MOVE_TO: self.move_to}[primitive]


__all__ = ["GiveSkill", "MoveToSkill", "PickSkill", "PlaceSkill", "PourSkill", "Skills"]
