"""The move_to skill: bring the (empty or holding) hand above a named region or object at cruise height.
Its error is how far the palm ended from the goal."""
from __future__ import annotations

import numpy as np

from memora_core.robot.control.context import ControlContext
from memora_core.robot.primitives import PrimitiveCall


class MoveToSkill:
    def __init__(self, c: ControlContext) -> None:
        self.c = c

    def goal(self, call: PrimitiveCall) -> np.ndarray:
        name = (call.target or "").lower()
        if name in self.c.regions:
            return self.c.regions[name]
        obj = self.c.resolver.find(call.target, "region")
        pos, _ = self.c.robot.object_pose(obj.name)
        return np.array([pos[0], pos[1], self.c.arm.cruise_z()])

    def __call__(self, call: PrimitiveCall) -> float:
        goal = self.goal(call)
        self.c.transit.transit(goal[:2], set())
        self.c.arm.go(goal, set(), "move_to")
        return float(np.linalg.norm(self.c.robot.hand_position() - goal))
