"""Putting a held object down on the table: at a spot, on the first of several spots that works, back where
it came from, aside out of the way of the work, or for the other arm to take over (hand-off)."""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import numpy as np

from memora_core.robot.control.context import ControlContext
from memora_core.robot.control.failures import (PLAN_REFUSED, BlockedGrasp, FailureCause, FailureReason,
                                                PrimitiveFailure)
from memora_core.robot.control.geometry import (Footprints, angle_deg, aside_spots, corridor_clear, edge_gap,
                                                 handoff_spots, rotation_onto, table_spots)
from memora_core.robot.control.reach import reaches, spots_by_reach
from memora_core.robot.limits import LimitViolation
from memora_core.robot.primitives import Primitive, PrimitiveCall
from memora_core.robot.robot import SceneObject

# Set-aside spots of a later stage within this of an earlier stage's (m) are not tried again.
SAME_SPOT_M = 0.01

log = logging.getLogger(__name__)


class PutDown:
    def __init__(self, c: ControlContext) -> None:
        self.c = c
        self.robot, self.cfg = c.robot, c.cfg

    def spots_near(self, obj: SceneObject, near: np.ndarray, min_dist: float = 0.0) -> list[np.ndarray]:
        """Free table spots for `obj` near `near` (see `geometry.table_spots`). While `obj` is held: those the
        holding arm reaches at its release height first (`reach.spots_by_reach`); then, to try when all those
        fail, up to as many more free spots further out where the hand holding it has room too (`hand_has_room`).
        The nearest spots are free for the object alone, and on a crowded table every one of them may put the hand
        on a neighbour."""
        m, footprints = self.cfg.motion, self.c.scene.footprints(obj.name)
        if self.robot.held_object() != obj.name:
            return table_spots(near, obj.radius, footprints, m, min_dist)
        pool, palm_z = table_spots(near, obj.radius, footprints, m, min_dist, every=True), self.release_palm_z(obj)
        room = self.hand_has_room(obj, footprints)
        further = [s for s in pool[m.table_spot_tries:] if room(s)]
        return (spots_by_reach(self.c.reach, pool[: m.table_spot_tries], self.robot.arm, palm_z)
                + spots_by_reach(self.c.reach, further, self.robot.arm, palm_z)[: m.table_spot_tries])

    def hand_has_room(self, obj: SceneObject, footprints: Footprints) -> Callable[[np.ndarray], bool]:
        """Whether, with the held `obj` set down at a table spot, the hand holding it as it hangs now and the forearm
        reaching to it from its arm's base pass every neighbour's footprint with `arm_corridor` to spare
        (`geometry.corridor_clear` to the palm). A spot free for the object alone may leave its hand on a
        neighbour: a loaf taken from its side holds the palm 8 cm off its centre, over the rim of the bowl it is
        to stand next to."""
        palm, base = self.c.scene.hang(obj.name)[:2], self.cfg.motion.arm_bases.get(self.robot.arm)
        if base is None:
            return lambda s: True
        base = np.asarray(base, float)
        return lambda s: corridor_clear(np.asarray(s, float) + palm, base, 0.0, footprints, self.cfg.motion)

    def release_palm_z(self, obj: SceneObject, hanging: bool = True) -> float:
        """Palm height at which `obj`, put down on the table, is let go (`hanging`: as it hangs from the hand
        holding it now)."""
        z = self.c.table_z + self.c.scene.held_half_up(obj) + self.cfg.motion.release_gap
        return z + (self.c.scene.hang(obj.name)[2] if hanging else 0.0)

    def stand_as_grasped(self, obj: SceneObject) -> None:
        """When the held `obj` leans more than `upright_tolerance_deg` from how it stood at the grasp, hold the hand
        turned by the rotation that stands it so again for the moves that follow (the carry, the lowering)."""
        s = self.c.state
        pose = self.robot.object_pose(obj.name)
        if s.held_up is None or pose is None or self.robot.held_object() != obj.name:
            return
        up = pose[1] @ s.held_up
        lean = angle_deg(up, np.array([0.0, 0.0, 1.0]))
        if lean <= self.cfg.motion.upright_tolerance_deg:
            return
        log.info("%s leans %.0f deg in the hand: turning the hand to stand it before putting it down", obj.name, lean)
        s.held_rot, s.held_cost = rotation_onto(up, np.array([0.0, 0.0, 1.0])) @ self.robot.hand_rotation(), None

    def stand_here(self, obj: SceneObject) -> None:
        """After the carry to the spot (which may have had to let the hand turn, or not turned it all the way):
        when `obj` still leans beyond `upright_tolerance_deg`, turn the hand where it is to stand it. A turn the
        arm cannot make there leaves the hand as it arrived."""
        s = self.c.state
        before = (s.held_rot, s.held_cost)
        self.stand_as_grasped(obj)
        if s.held_rot is before[0]:
            return  # it stands well enough
        try:
            self.c.arm.go(self.robot.hand_position(), {obj.name}, "stand")
        except PrimitiveFailure as f:
            if f.cause not in PLAN_REFUSED:
                raise
            log.info("%s: cannot turn the hand here (%s)", obj.name, f.detail)
            s.held_rot, s.held_cost = before

    def put_down_at(self, obj: SceneObject, xy: np.ndarray) -> None:
        scene = self.c.scene
        self.stand_as_grasped(obj)
        hang = scene.hang(obj.name)
        ignore = {obj.name, "table"}
        self.c.transit.transit(xy + hang[:2], {obj.name})
        if self.c.skills.pick.tips(obj):
            self.stand_here(obj)
        # A carry that had to let the hand turn arrives with the object hanging differently: aim from here. The
        # lowering aims the object itself (the place skill's): the hand may turn on the way down (back towards
        # the grasp's orientation after a relaxed carry) and swing what hangs below it. Not guarded: a spot whose
        # straight lowering is refused is given up for the next free one, rather than felt for among neighbours.
        hang = scene.hang(obj.name)
        goal = np.array([xy[0], xy[1], self.c.table_z])
        release = goal + [0.0, 0.0, scene.held_half_up(obj) + self.cfg.motion.release_gap] + hang
        # The straight lowering is checked first, so that a refused spot costs no move (the aimed lowering moves
        # in two stages, and would otherwise leave the hand low beside its neighbours when the second is refused).
        # Refused only for the robot's own body (an arm whose joint margins leave it only postures pressed into the
        # torso there), the spot stands: each stage of the lowering is then planned round the body (ArmMotion.go).
        try:
            self.c.arm.plan_line(release, ignore, "lower")
        except PrimitiveFailure as f:
            if not (f.self_only and self.c.guarded.settings.guarded_approach):
                raise
            log.info("put %s down: %s; lowering planned round the body", obj.name, f.detail)
        self.c.skills.place.lower_onto(obj, release, goal, ignore, None, guarded=False)
        self.check_aim(obj, xy)
        self.robot.release()
        self.robot.settle(self.cfg.motion.settle_s)
        self.c.transit.retract(ignore)

    def check_aim(self, obj: SceneObject, xy: np.ndarray) -> None:
        """Refuse to let go of `obj` (still held, nothing lost) when it hangs further than `place_tolerance` from
        the spot `xy` it is to be put on: let go there, it lands beside its free spot (on a neighbour, or off the
        table's edge)."""
        pos, _ = self.robot.object_pose(obj.name)
        gap = float(np.hypot(*(pos[:2] - np.asarray(xy[:2], float))))
        if gap > self.cfg.motion.place_tolerance:
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"{obj.name} hangs {gap * 100:.1f} cm from its spot",
                                   cause=FailureCause.OFF_AIM, gap=gap)

    def set_down_on_first(self, obj: SceneObject, spots: list[np.ndarray]) -> np.ndarray:
        """Put the held `obj` down on the first of `spots` the arm can lower it onto; that spot."""
        failure = None
        for spot in spots:
            try:
                self.put_down_at(obj, spot)
                return spot
            except PrimitiveFailure as f:
                failure = failure or f
                if self.robot.held_object() != obj.name:
                    raise
        raise failure

    def put_back_near(self, obj: SceneObject, xy: np.ndarray) -> None:
        """Put the held `obj` down at `xy`, or on the nearest free table spot the arm can lower it onto."""
        xy = np.asarray(xy, float)
        nearby = [s for s in self.spots_near(obj, xy) if np.linalg.norm(s - xy) > 1e-3]  # `xy` is tried first
        self.set_down_on_first(obj, [xy] + nearby)

    def put_back(self, obj: SceneObject) -> None:
        """Set the held `obj` down where it was picked from (free: it just left it) and stow the arm; letting go
        wherever the hand is, the last resort, would drop it from carry height."""
        origin = self.c.state.origins.get(obj.name)
        if origin is not None:
            try:
                # Where it stood, else the nearest free spot the arm can lower it onto (a neighbour may now be in
                # the way of the lowering there).
                self.put_back_near(obj, origin[:2])
            except (PrimitiveFailure, LimitViolation) as f:
                log.info("could not put %s back: %s", obj.name, getattr(f, "detail", f))
        self.c.skills.pick.back_off(obj)

    def set_aside(self, obj: SceneObject, work: list[np.ndarray], reserved: list[tuple[np.ndarray, float]] = (),
                  blocked_grasps: Sequence[BlockedGrasp] = ()) -> None:
        """Put the held `obj` down on the first aside spot (away from the `work` points) the arm can lower it onto.
        Where to look, in turn, until some spot takes it (a stage whose free spots the arm can lower it onto
        none of passes to the next): `table_zone` at `aside_distance` from the work and off the arms' way to it;
        at half that distance (a crowded table); the wider `aside_zone` where the holding arm reaches (the
        reachability map), off the arms' way; `table_zone` at half the distance on an arm's way (it may block
        again there, but it no longer stands where it did). Each of those stages takes only spots that leave open a
        grasp of `blocked_grasps` (those the room is made for, `grasp_left_open`); last, the final stage without
        that. `reserved`: discs (x/y, radius) kept free for the step that the room is made for."""
        spots: list[np.ndarray] = []  # every stage's spots in turn, each once: set_down_on_first tries them in order
        for stage_spots in self.aside_stage_spots(obj, work, reserved, blocked_grasps):
            spots += [s for s in stage_spots if all(np.linalg.norm(s - t) > SAME_SPOT_M for t in spots)]
        if not spots:
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"no free table spot to set {obj.name} aside",
                                   cause=FailureCause.NO_SPOT)
        self.set_down_on_first(obj, spots)
        self.c.scene.check_standing(obj, "set aside")

    def aside_stage_spots(self, obj: SceneObject, work: list[np.ndarray],
                          reserved: list[tuple[np.ndarray, float]] = (),
                          blocked_grasps: Sequence[BlockedGrasp] = ()) -> list[list[np.ndarray]]:
        """The free spots of each stage of `set_aside`, in its order (a stage may have none)."""
        keep_clear = [np.asarray(v[:2]) for k, v in self.c.regions.items() if k == "person"]
        m, origin = self.cfg.motion, self.c.state.origins.get(obj.name)
        footprints = self.c.scene.footprints(obj.name) + list(reserved)  # spots kept for the step count as taken
        half = m.aside_distance / 2
        open_way = self.grasp_left_open(obj, blocked_grasps)
        reached = self.reached_by(obj)
        stages = [dict(accept=open_way), dict(distance=half, accept=open_way),
                  dict(distance=half, zone=m.aside_zone, accept=lambda s: reached(s) and open_way(s)),
                  dict(distance=half, corridors=False, accept=open_way), dict(distance=half, corridors=False)]
        return [aside_spots(obj.radius, footprints, work, m, origin, keep_clear, **stage) for stage in stages]

    def grasp_left_open(self, obj: SceneObject, grasps: Sequence[BlockedGrasp]) -> Callable[[np.ndarray], bool]:
        """Whether `obj` standing at a table spot leaves open at least one of the `grasps` that moving it is to
        free: those it blocked with the fewest other neighbours (a what-if: the robot's clearance check of their
        arm postures with `obj` placed there, `aside_clearance` kept). Any spot does when it blocked none of them."""
        mine = [g for g in grasps if obj.name in g.blockers]
        # A grasp with its whole path known is one the hand will take: each such path must stay clear. Of the
        # candidates known only by the posture they were found blocked at, one of those `obj` blocked with the fewest
        # other neighbours must.
        paths = list({tuple(tuple(sorted(q.items())) for q in g.path): g.path for g in mine if g.path}.values())
        blocked = [g for g in mine if not g.path]
        fewest = min((len(g.blockers) for g in blocked), default=0)
        postures = list({tuple(sorted(g.posture.items())): g.posture for g in blocked
                         if len(g.blockers) == fewest}.values())
        z, margin = self.c.table_z + obj.half_height, self.cfg.motion.aside_clearance

        def leaves_one_open(spot: np.ndarray) -> bool:
            at = {obj.name: np.array([float(spot[0]), float(spot[1]), z])}

            def clear(q: dict[str, float]) -> bool:
                return obj.name not in self.robot.clearance(q, set(), margin, placed=at)
            return (all(clear(q) for path in paths for q in path)
                    and (not postures or any(clear(q) for q in postures)))
        return leaves_one_open

    def reached_by(self, obj: SceneObject, arm: str | None = None):
        """Whether `arm` (default: the one holding `obj`) reaches a table spot for `obj` at its release height by
        the reachability map (yes without a map)."""
        palm_z = self.release_palm_z(obj, hanging=False)
        arm = arm or self.robot.arm
        return lambda s: reaches(self.c.reach, (float(s[0]), float(s[1]), palm_z), arm) is not False

    def park(self, obj: SceneObject, work: list[np.ndarray]) -> None:
        """Put down the held `obj` of a blocked step while room is made: back where it was picked if that spot
        is still free, else on an aside spot."""
        origin = self.c.state.origins.get(obj.name)
        gap = self.cfg.motion.beside_gap
        if origin is not None and edge_gap(origin[:2], obj.radius, self.c.scene.footprints(obj.name)) >= gap:
            try:
                self.put_down_at(obj, origin[:2])
            except PrimitiveFailure as f:
                if self.robot.held_object() != obj.name:
                    raise
                log.debug("could not put %s back (%s); setting it aside", obj.name, f.detail)
        if self.robot.held_object() == obj.name:
            self.set_aside(obj, work)
        else:
            self.c.scene.check_standing(obj, "put back")

    def hand_off(self, obj: SceneObject) -> bool:
        """The held object cannot be brought to its goal by this arm: put it down where both arms reach and
        pick it up with the other arm. Where the other arm finds no grasp at that spot (neighbours in the way of
        its hand; nothing moved), this arm takes the object back and tries the next spot. False when there is no
        other arm or no spot to put it down on."""
        other = [a for a in self.cfg.arms if a != self.robot.arm]
        if not other:
            return False
        giver, used = self.robot.arm, []
        call = PrimitiveCall(primitive=Primitive.PICK, object=obj.name)
        while True:
            spots = [s for s in self.handoff_spots(obj, other[0])
                     if all(np.linalg.norm(s - u) > self.cfg.motion.table_spot_step for u in used)]
            if not spots or len(used) >= self.cfg.motion.handoff_tries:
                return False
            log.info("handing %s over from the %s to the %s arm", obj.name, giver, other[0])
            try:
                used.append(self.set_down_on_first(obj, spots))
            except PrimitiveFailure as f:
                if self.robot.held_object() != obj.name:
                    raise
                log.info("could not put %s down for the hand-off: %s", obj.name, f.detail)
                return False
            self.robot.settle(self.cfg.motion.settle_s)
            try:
                # Only the other arm: by the object's side the rule would choose the same arm again.
                self.c.skills.pick.pick(call, arms=other)
                return True
            except PrimitiveFailure as f:
                if f.cause is not FailureCause.NO_GRASP or self.robot.held_object() is not None:
                    raise
                log.info("the %s arm cannot take %s there (%s); the %s arm takes it back", other[0], obj.name,
                         f.detail, giver)
            self.c.skills.pick.pick(call, arms=[giver])

    def handoff_spots(self, obj: SceneObject, taker: str) -> list[np.ndarray]:
        """Hand-off spots for `obj` (geometry.handoff_spots), those the taking arm reaches with its forearm
        passing every other object first."""
        footprints = self.c.scene.footprints(obj.name)
        base, reached = np.asarray(self.cfg.motion.arm_bases[taker], float), self.reached_by(obj, taker)
        return handoff_spots(obj.radius, footprints, self.cfg.motion,
                             lambda s: reached(s) and corridor_clear(s, base, obj.radius, footprints, self.cfg.motion))
