"""The pour skill: hold the bottle beside the cup, mouth over the rim, roll (and if needed bend) the wrist,
check the tilt reached, put the bottle back. Its fall-back: a cup the arm cannot pour into where it stands
is brought nearer the work area first."""
from __future__ import annotations

import logging

import numpy as np

from memora_core.robot.control.context import ControlContext
from memora_core.robot.control.failures import PLAN_REFUSED, FailureCause, FailureReason, PrimitiveFailure
from memora_core.robot.control.geometry import angle_deg, pour_spots
from memora_core.robot.primitives import Primitive, PrimitiveCall
from memora_core.robot.robot import SceneObject

log = logging.getLogger(__name__)
POURED_DEG = 45.0  # a bottle tilted this far pours


class PourSkill:
    def __init__(self, c: ControlContext) -> None:
        self.c = c
        self.robot, self.cfg = c.robot, c.cfg

    def __call__(self, call: PrimitiveCall) -> None:
        c = self.c
        obj = c.skills.pick.ensure_held(call.object)
        cup = c.resolver.find(call.target, "container")
        try:
            self.pour_with_this_arm(obj, cup)
        except PrimitiveFailure as f:
            # The arm cannot hold the bottle over the cup with the wrist free to roll (a cup at the table's far
            # edge): set the bottle down, bring the cup as near the work area as the table has room for, take the
            # bottle again (a fresh grasp, often with more wrist roll left) and pour there.
            origin = c.state.origins.get(obj.name)
            if (f.reason is not FailureReason.UNREACHABLE and f.cause is not FailureCause.WEAK_TILT) \
                    or self.robot.held_object() != obj.name or origin is None:
                raise
            spots = self.spots(cup, obj)
            if not spots:
                log.info("pour: %s; no free spot to bring %s to", f.detail, cup.name)
                raise
            log.info("pour: %s; bringing %s closer first", f.detail, cup.name)
            self.leave_cup(obj, cup)
            c.putdown.put_back_near(obj, origin[:2])
            c.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object=cup.name))
            try:
                spot = c.putdown.set_down_on_first(cup, spots)
                log.info("pour: %s set down at (%.3f, %.3f)", cup.name, *spot)
            except PrimitiveFailure:
                # the cup goes back where it stood before the step fails: the next step would start hand_full
                if self.robot.held_object() == cup.name:
                    c.putdown.put_back(cup)
                raise
            c.skills.pick.ensure_held(obj.name)
            self.pour_with_this_arm(obj, cup)
        origin = c.state.origins.get(obj.name)
        if origin is not None:  # put the bottle back where it came from (else on a free spot next to it)
            self.leave_cup(obj, cup)
            c.putdown.put_back_near(obj, origin[:2])

    def leave_cup(self, obj: SceneObject, cup: SceneObject) -> None:
        """Straight up to cruise height from beside the cup, passing as close to it as the pour poses came (the
        cup ignored): the carry that follows would refuse its first rise next to the cup's rim. A rise the arm
        cannot plan here leaves the hand where it is (the carry then tries its own)."""
        hand = self.robot.hand_position()
        z = self.c.arm.cruise_z()
        if z - hand[2] < 0.01:
            return
        try:
            self.c.arm.go(np.array([hand[0], hand[1], z]), {obj.name, cup.name}, "off the cup")
        except PrimitiveFailure as f:
            if f.cause not in PLAN_REFUSED:
                raise
            log.debug("pour: no straight rise off %s (%s)", cup.name, f.detail)

    def spots(self, cup: SceneObject, bottle: SceneObject) -> list[np.ndarray]:
        """Free table spots for `cup` with room beside it for `bottle`, nearest the work area first: away from
        where the cup stands (the pour just failed there), and only sides where the hand, holding the bottle as
        it does now at the lowest pour height, stays inside the workspace."""
        work, pose = self.c.table_put_point(), self.robot.object_pose(cup.name)
        if work is None or pose is None:
            return []
        cpos = pose[0]
        hang = self.c.scene.hang(bottle.name)
        z = cpos[2] + cup.half_height + bottle.half_height + min(self.cfg.motion.pour_heights) + hang[2]
        box = self.robot.limits.config.workspace

        def hand_inside(b: np.ndarray) -> bool:
            return box.contains((b[0] + hang[0], b[1] + hang[1], z))

        return pour_spots(cup.radius, bottle.radius, self.c.scene.footprints(cup.name, bottle.name), work[:2],
                          self.cfg.motion, away_from=cpos[:2], bottle_fits=hand_inside)

    def _pour_pose(self, obj: SceneObject, cup: SceneObject) -> tuple[float, dict[str, float]]:
        """Bring the held bottle beside the cup, mouth over the rim, on a side and at a height from which the
        wrist can roll at least `pour_min_angle`: (roll sign, posture there)."""
        c, m = self.c, self.cfg.motion
        cpos, _ = self.robot.object_pose(cup.name)
        hang = c.scene.hang(obj.name)
        roll = f"{self.robot.arm}_wrist_roll_joint"
        lo, hi = self.robot.limits.ranges.get(roll, (-np.inf, np.inf))
        margin = self.robot.limits.config.position_margin
        first = None
        # Each side of the cup at each pour height in turn; first arriving at the pour height or above it.
        tries = [(h, f, r) for h in (True, False) for f in (1.0, -1.0) for r in m.pour_heights]
        for high, flip, rise in tries:
            side = np.array([0.0, -flip * (cup.radius + obj.radius + 0.01), 0.0])
            above = cpos + side + np.array([0, 0, cup.half_height + obj.half_height + rise])
            try:
                c.transit.transit(above[:2] + hang[:2], {obj.name, cup.name}, above[2] + hang[2] if high else 0.0,
                                  plan=False)  # the next side/height is tried instead
                c.arm.go(above + hang, {obj.name, cup.name}, "pour pose")
            except PrimitiveFailure as f:
                if f.cause is FailureCause.ARM_HIT:
                    raise  # something was hit: not a matter of another pose
                first = first or f
                continue
            q = self.robot.joint_positions()
            sign = (1.0 if self.robot.arm == "right" else -1.0) * flip
            room = (hi - margin - q[roll]) if sign > 0 else (q[roll] - lo - margin)
            if min(m.pour_angle, room) >= m.pour_min_angle:
                return sign, q
            log.debug("pour from side %+.0f: the %s wrist rolls only %.2f rad that way (roll %.2f in [%.2f, %.2f])",
                      flip, self.robot.arm, room, q[roll], lo, hi)
        if first is not None:
            raise first
        raise PrimitiveFailure(FailureReason.UNREACHABLE, f"the wrist cannot roll {obj.name} over {cup.name} "
                               f"from either side", cause=FailureCause.WRIST_LIMIT)

    def pour_with_this_arm(self, obj: SceneObject, cup: SceneObject) -> None:
        """Bring the held `obj` over `cup` and tip it with the active arm (the bottle stays in the hand)."""
        m = self.cfg.motion
        sign, q = self._pour_pose(obj, cup)
        roll = f"{self.robot.arm}_wrist_roll_joint"
        lo, hi = self.robot.limits.ranges.get(roll, (-np.inf, np.inf))
        margin = self.robot.limits.config.position_margin
        room = (hi - margin - q[roll]) if sign > 0 else (q[roll] - lo - margin)
        angle = min(m.pour_angle, room)

        def tilt() -> float:
            self.robot.settle(m.pour_hold_s)
            _, rot = self.robot.object_pose(obj.name)
            return angle_deg(rot[:, 2], np.array([0.0, 0.0, 1.0]))

        # Each target clipped into the joint's range less its margin: `q + sign * room` can round a hair past it, and
        # a measured posture may rest there (the limits refuse either).
        self.robot.command(self.robot.limits.clip({roll: q[roll] + sign * angle}))
        tilt_max = tilt()
        pitch = f"{self.robot.arm}_wrist_pitch_joint"
        if tilt_max < POURED_DEG and pitch in self.robot.limits.ranges:
            # The roll alone left the bottle short of pouring (a pitched grasp turns it about a slanted axis):
            # bend the wrist as well, whichever way tips it further, within the joint's range.
            for bend in (m.pour_wrist_bend, -m.pour_wrist_bend):
                self.robot.command(self.robot.limits.clip({pitch: q[pitch] + bend}))
                tilt_max = max(tilt_max, tilt())
                if tilt_max >= POURED_DEG:
                    break
            self.robot.command(self.robot.limits.clip({pitch: q[pitch]}))
            self.robot.settle(m.settle_s)
        self.robot.command(self.robot.limits.clip({roll: q[roll]}))
        self.c.scene.check_held(obj.name)
        if tilt_max < POURED_DEG:
            raise PrimitiveFailure(FailureReason.POSTCONDITION, f"{obj.name} tilted only {tilt_max:.0f} deg",
                                   cause=FailureCause.WEAK_TILT, angle_deg=tilt_max)
