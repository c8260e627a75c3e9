"""Where the head looks from when the controller checks the table. The head camera rides on the torso, and the arm's
IK turns the waist as three more joints: a reach across the body can leave the torso turned far enough (over 2 rad on
dev layouts) that the head looks past the table. A check made from there sees nothing and keeps what it believed:
on dev sim-bench layouts 100800-100819, 12 of 20 places ended with a frame that showed no object at all, so where
the object landed was never seen. `Gaze.look` first brings the torso back upright, the hand kept where it is."""
from __future__ import annotations

import logging

import numpy as np

from memora_core.robot.control.context import ControlContext
from memora_core.robot.control.failures import FailureCause, PrimitiveFailure

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
        """Bring the torso upright (every waist joint within `motion.face_table_within`) when it is turned further:
        the empty hand kept where it is when an upright posture reaches it there and a clearance-checked joint move
        gets there, else the arm stowed (to the table's edge, then its tuck with the torso upright, as before a look
        from the head's other viewpoints). True when it moved; False when nothing needed to (upright already, a
        robot that does not perceive its objects, a held object). The look is taken from wherever that leaves the
        head. A hand that hit something on the way raises, as any move of the arm does."""
        m = self.c.cfg.motion
        turned = self.waist_turn()
        if (not self.robot.perceived_scene or self.robot.held_object() is not None
                or turned <= m.face_table_within):
            return False
        hand = self.robot.hand_position()
        ignore = self.c.scene.touching_now()
        for goal in self.upright_postures(hand):
            try:
                path = self.c.arm.joint_line(goal, ignore, "face the table")
                self.c.arm.follow(path, self.robot.hand_position(), ignore, "face the table", exact=False)
            except PrimitiveFailure as f:
                if f.cause is FailureCause.ARM_HIT:
                    raise
                log.debug("face the table: %s", f.detail)
                continue
            log.debug("faced the table, the hand kept: torso %.2f -> %.2f rad", turned, self.waist_turn())
            return True
        self.c.transit.stow(self.robot.arm)
        log.debug("faced the table, the arm stowed: torso %.2f -> %.2f rad", turned, self.waist_turn())
        return True

    def upright_postures(self, hand: np.ndarray):  # noqa: ANN201 - iterator of postures
        """Postures with every waist joint within `motion.face_table_within` that keep the palm at `hand`: the arm
        solved from its own joints with the torso upright, then from its rest posture; none for a tucked hand
        (below the table: the stow brings the torso upright)."""
        if hand[2] <= self.c.table_z - 0.05:
            return
        arm, within = self.robot.arm, self.c.cfg.motion.face_table_within
        now = self.robot.joint_positions()
        upright = {j: 0.0 for j in now if j.startswith("waist")}
        own = {j: v for j, v in now.items() if j.startswith(arm) and "hand" not in j}
        for seed in ({**own, **upright}, self.c.arm.rest_posture(arm)):
            q, err = self.robot.solve_ik(hand, seed=seed, orientation_cost=self.c.cfg.motion.stow_orientation_cost)
            if err <= self.c.cfg.ik.tolerance and max(abs(q[j]) for j in upright) <= within:
                yield q
