"""Where the head looks from when the controller checks the table. The head camera rides on the torso, and the arm's
IK turns the waist as three more joints: a reach across the body can leave the torso turned far enough (over 2 rad on
dev layouts) that the head looks past the table. A check made from there sees nothing and keeps what it believed:
on dev sim-bench layouts 100800-100819, 12 of 20 places ended with a frame that showed no object at all, so where
the object landed was never seen. `Gaze.look` first brings the torso back upright."""
from __future__ import annotations

import logging

from memora_core.robot.control.context import ControlContext

log = logging.getLogger(__name__)


class Gaze:
    def __init__(self, c: ControlContext) -> None:
        self.c = c
        self.robot = c.robot

    def look(self) -> bool:
        """A fresh frame of the table, taken facing it (`face_table`) when the hand is empty."""
        self.face_table()
        return self.robot.look()

    def waist_turn(self) -> float:
        """How far (rad) the torso is turned, leaned or bent from upright: its largest waist joint."""
        q = self.robot.joint_positions()
        return max((abs(v) for j, v in q.items() if j.startswith("waist")), default=0.0)

    def face_table(self) -> bool:
        """Bring the torso upright when any waist joint is turned further than `motion.face_table_within`: the empty
        arm stowed (to the table's edge, then its tuck with the torso upright, by the clearance-checked moves that
        precede a look from the head's other viewpoints). True when it moved; False when nothing needed to
        (upright already, a robot that does not perceive its objects, a held object). The look is taken from
        wherever that leaves the head.

        Tried and not kept: turning the torso upright with the palm held where it is (IK solved for the palm's
        point, the torso seeded a step nearer upright each time). Its postures reach the point in the IK model and
        yet can press the upper arm into the torso (on a test layout, 9 cm in, unseen by the clearance check), where
        the servos stop the arm 50 cm off."""
        m = self.c.cfg.motion
        turned = self.waist_turn()
        if (not self.robot.perceived_scene or self.robot.held_object() is not None
                or turned <= m.face_table_within):
            return False
        self.c.transit.stow(self.robot.arm)
        log.debug("faced the table, the arm stowed: torso %.2f -> %.2f rad", turned, self.waist_turn())
        return True
