"""The give skill: hand the held (or first picked) object over where the scene's 'person' region is."""
from __future__ import annotations

from memora_core.robot.control.context import ControlContext
from memora_core.robot.control.failures import PrimitiveFailure
from memora_core.robot.primitives import Primitive, PrimitiveCall


class GiveSkill:
    def __init__(self, c: ControlContext) -> None:
        self.c = c

    def __call__(self, call: PrimitiveCall) -> float:
        obj = self.c.skills.pick.ensure_held(call.object)
        if self.c.regions.get("person") is None:
            raise PrimitiveFailure.missing("the scene has no 'person' region to hand over to")
        return self.c.skills.place(PrimitiveCall(primitive=Primitive.PLACE, object=obj.name, target="person",
                                                 relation="on"))
