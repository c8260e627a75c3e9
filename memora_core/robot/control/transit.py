"""Free-space moves between the work spots: the level carry at cruise height (with its fall-backs: lower
or higher levels, a relaxed hand orientation, a re-posture in joint space), the stow/tuck of an arm, the
switch of arms and the retract after letting go."""
from __future__ import annotations

import logging

import numpy as np

from memora_core.robot.control.context import ControlContext
from memora_core.robot.control.failures import PLAN_REFUSED, FailureCause, FailureReason, PrimitiveFailure

log = logging.getLogger(__name__)


class Transit:
    def __init__(self, c: ControlContext) -> None:
        self.c = c
        self.robot, self.cfg, self.arm = c.robot, c.cfg, c.arm

    def lift_contacts(self) -> set[str]:
        """What the hand/held object touched at the grasp, while the palm is still straight above the grasp."""
        lc = self.c.state.lift_clear
        if lc is None:
            return set()
        if self.robot.held_object() != lc.name or np.linalg.norm(self.robot.hand_position()[:2] - lc.xy) > 0.01:
            return set()
        return lc.contacts

    def first_level(self, hand: np.ndarray, levels: list[float], ignore: set[str]) -> float:
        """The highest of `levels` the palm can rise to straight up from `hand`; the lowest when none plans
        (the move then reports why)."""
        for z in levels:
            try:
                self.arm.plan_line(np.array([hand[0], hand[1], z]), ignore, "lift")
                return z
            except PrimitiveFailure:
                continue
        return levels[-1]

    def _out_of_tuck(self, hand: np.ndarray, z: float, ignore: set[str]) -> None:
        """Up from beside the hip to in front of the shoulder (rough is enough: the lift and carry are planned
        from where the palm really is). The hand's orientation hardly matters here; when the straight line
        sweeps the torso or other arm into the table: straight up beside the hip first, then forward."""
        ready = np.array([self.cfg.motion.stow_x, hand[1], z])
        s = self.c.state
        pose, free = s.pose, self.robot.held_object() is None
        # These moves go nowhere near what the step is about: every object counts, the one about to be picked
        # too (standing by the table's edge, it is what a hand rising beside the hip sweeps).
        clear = set(ignore) & {self.robot.held_object()}
        if free:
            s.pose = pose.model_copy(update={"orientation_cost": self.cfg.motion.stow_orientation_cost})
        try:
            self._rough(ready, clear)
        except PrimitiveFailure as first:
            if first.cause not in PLAN_REFUSED:
                raise
            try:
                self._rough(np.array([hand[0], hand[1], z]), clear)
                self._rough(ready, clear)
            except PrimitiveFailure as second:
                if second.cause not in PLAN_REFUSED or not self.c.guarded.settings.guarded_approach:
                    raise
                try:  # no hand-made way out of the tuck clears: one the motion library plans
                    self.c.planned.move_to(ready, clear, "planned ready")
                except PrimitiveFailure as planned:
                    if planned.cause not in PLAN_REFUSED:
                        raise
                    raise first from None
        finally:
            s.pose = pose

    def _rough(self, point: np.ndarray, ignore: set[str]) -> None:
        """A rough move out of the tuck: few IK waypoints (the palm line need not be kept), but the joint lines
        between them checked too: from beside the hip they differ much, and the fingers swing wide between."""
        q0, path = self.robot.joint_positions(), []
        for q in self.arm.plan_line(point, ignore, "ready", bisect=False, at_rest=True):
            path += self.arm.joint_line_from(q0, q, ignore, "ready", at_rest=True)
            q0 = q
        self.arm.follow(path, point, ignore, "ready", exact=False)

    def transit(self, above_xy: np.ndarray, ignore: set[str], min_z: float = 0.0, plan: bool = True,
                rise_ignore: set[str] | None = None) -> None:
        """Rise straight up to cruise height, travel level, arriving above `above_xy`. A far target the arm
        cannot reach at cruise height is approached at a lower level if that is still clear; when no straight
        carry works, a planned one (`plan=False`: not — a caller probing several goals moves on instead).
        `rise_ignore`: what the first rise may pass close to (default `ignore`; an empty hand going to pick an
        object passes nothing: rising past the object it stands beside drags it up and tips it over)."""
        s = self.c.state
        hand = self.robot.hand_position()
        levels = [max(z, min_z) for z in self.arm.cruise_levels()]
        z = levels[0]
        if hand[0] < self.cfg.motion.stow_x - 0.02:  # tucked beside the hip
            self._out_of_tuck(hand, z, ignore)
            hand = self.robot.hand_position()
        if hand[2] < z - 0.02:
            rise = ignore if rise_ignore is None else rise_ignore
            up = rise | self.lift_contacts() | ({"table"} if hand[2] < self.c.table_z + 0.02 else set())
            hand = self.leave_contact(up)
            # A hand left raised behind the table's edge (no way to its tuck cleared, nor out of it) rises in the
            # nearest column of the workspace: straight up from where it is, the target would be refused.
            col = self.robot.limits.config.workspace.nearest(hand)
            self.rise(np.array([col[0], col[1], self.first_level(col, levels, up)]), up)
        failure = None
        # A tall neighbour in the forearm's way at cruise height: also try passing higher.
        levels = levels + [levels[0] + d for d in self.cfg.motion.high_carry]
        if self.robot.held_object() is None and hand[2] > levels[0] + 0.01:
            # An empty hand already above cruise height (a retract left it high over what it let go of): travel
            # at this height first rather than first going down towards what lies below the hand.
            levels = [float(hand[2])] + levels
        # Holding the grasp's hand orientation may put a far target out of reach: then once more with the
        # hand free to turn. A relaxed carry stays relaxed for the rest of this hold.
        relax = [None] + ([self.cfg.motion.relaxed_held_orientation_cost] if self.robot.held_object() else [])
        try:
            for held_cost in relax:
                s.held_cost = held_cost
                for level in levels:
                    try:
                        self._carry_at(above_xy, level, ignore)
                        return
                    except PrimitiveFailure as f:
                        failure = failure or f
                        if f.reason is not FailureReason.UNREACHABLE and not (
                                f.cause is FailureCause.PATH_BLOCKED and f.what == "carry"):
                            raise  # something was hit, or the arm moved: no other level is planned from here
        except PrimitiveFailure:
            s.held_cost = None
            raise
        s.held_cost = None
        empty_refused = False  # an empty hand whose re-posture was refused before it moved
        if failure.ik_miss:
            # Every straight line from this posture fails to solve (the arm may be wound up): solve the end point
            # afresh from the rest posture and change posture in joint space, checked for clearance.
            for level in levels:
                try:
                    self.reposture(np.array([above_xy[0], above_xy[1], level]), ignore, "carry")
                    return
                except PrimitiveFailure as f:
                    if f.reason is FailureReason.UNREACHABLE:
                        continue
                    if f.cause in PLAN_REFUSED and self.robot.held_object() is None:
                        empty_refused = True  # the joint line met something: the planner goes round it
                        continue
                    raise failure from f
        # A planned carry (`motion.planned_carry`), and either way where only the robot's own body was in the way (no
        # recovery can move that aside), or for an empty hand that no straight line solves from where it is (left
        # wound up near the body) and whose joint-space re-posture met something: nothing hangs from it to swing,
        # and no neighbour needs moving for a path the planner finds (dev 98152: a hand stowed beside the torso
        # failed the next pick).
        if not plan or not (self.cfg.motion.planned_carry or failure.self_only or empty_refused):
            raise failure
        self.planned_carry(above_xy, levels, ignore, failure)

    def planned_carry(self, above_xy: np.ndarray, levels: list[float], ignore: set[str],
                      failure: PrimitiveFailure) -> None:
        """No straight carry works: a collision-free joint path planned by the motion library (held object
        attached) to above `above_xy`, at the cruise level, else the highest. Raises `failure` when the
        backend has no planner or none plans; a planned move that then hits something raises that."""
        for level in dict.fromkeys([levels[0], levels[-1]]):
            try:
                self.c.planned.move_to(np.array([above_xy[0], above_xy[1], level]), ignore, "planned carry")
                log.info("carry: straight moves failed (%s); planned a joint path instead", failure.detail)
                return
            except PrimitiveFailure as f:
                if f.cause in (FailureCause.ARM_HIT, FailureCause.STOPPED_SHORT):
                    raise  # the arm moved: nothing more is planned from here
                log.debug("planned carry at %.2f m: %s", level, f.detail)
        raise failure

    def _carry_at(self, above_xy: np.ndarray, level: float, ignore: set[str]) -> None:
        """To `level` straight up/down (the level line checked first), then level to above `above_xy`."""
        if abs(self.robot.hand_position()[2] - level) > 0.01:
            h = self.robot.hand_position()
            self.arm.plan_line(np.array([above_xy[0], above_xy[1], level]), ignore, "carry",
                               start_xyz=np.array([h[0], h[1], level]), margin=self.arm.transit_margin)
            if self.robot.held_object():
                self._sag_clear(np.array([above_xy[0], above_xy[1], level]), ignore, np.array([h[0], h[1], level]))
            self.arm.go(np.array([h[0], h[1], level]), ignore | self.lift_contacts(), "carry level")
        point = np.array([above_xy[0], above_xy[1], level])
        path = self.arm.plan_line(point, ignore, "carry", margin=self.arm.transit_margin)
        if self.robot.held_object():
            self._sag_clear(point, ignore)
        # The servos trail a fast move; with an object hanging from the hand the palm sags most: carry it slower.
        speed = self.c.guarded.settings.held_carry_speed if self.robot.held_object() else self.cfg.motion.speed
        dist = float(np.linalg.norm(point - self.robot.hand_position()))
        self.arm.follow(path, point, ignore, "carry", duration=max(self.cfg.motion.min_segment_s, dist / speed))

    def _sag_clear(self, point: np.ndarray, ignore: set[str], start: np.ndarray | None = None) -> None:
        """The loaded arm sags behind a level carry: the same line `held_carry_drop` lower must clear too (by the
        default margin). Raises the refusal (PATH_BLOCKED: another level is tried); a lowered line the arm cannot
        reach is no evidence of a collision and passes."""
        drop = np.array([0.0, 0.0, self.c.guarded.settings.held_carry_drop])
        try:
            start = self.robot.hand_position() if start is None else start
            self.arm.plan_line(point - drop, ignore, "carry", start_xyz=start - drop)
        except PrimitiveFailure as f:
            if f.cause is FailureCause.PATH_BLOCKED:
                raise
            log.debug("carry: the lowered line does not solve (%s); not checked", f.detail)

    def reposture(self, point: np.ndarray, ignore: set[str], what: str) -> None:
        """Put the palm at `point` with a posture solved for that point alone, reached by a clearance-checked
        joint-space move."""
        s = self.c.state
        rot, cost = self.arm.rotation(), s.pose.orientation_cost
        if s.held_rot is not None and self.robot.held_object() is not None:
            rot, cost = s.held_rot, self.cfg.motion.relaxed_held_orientation_cost
        [(q, _)] = self.arm.solve_fresh(point, rot, cost, what)
        log.debug("%s: re-posturing in joint space to reach %s", what, np.round(point, 3).tolist())
        # On the way only the end posture may come as close to what `ignore` names as a straight approach would.
        path = self.arm.joint_line(q, set(), what, end_ignore=ignore)
        self.arm.follow(path, point, ignore, what)
        if self.robot.held_object() is not None and s.held_rot is not None:
            s.held_rot = self.robot.hand_rotation()  # the object hangs as the new posture holds it: keep that

    def stow(self, arm: str) -> None:
        """Take `arm` out of the way: up to cruise height, back to the table edge, then its home joints."""
        if arm == self.robot.arm and self.robot.held_object() is None:
            self.to_the_edge()
        self.tuck(self.arm.rest_posture(arm))

    def to_the_edge(self) -> None:
        """The empty hand up at the table: up to cruise height, then back over the table's edge (`stow_x`), by
        clearance-checked straight moves; nothing when it is tucked already."""
        hand = self.robot.hand_position()
        if hand[2] <= self.c.table_z - 0.05:  # tucked, not up at the table
            return
        # An empty hand leaving may turn freely (only its position matters).
        s = self.c.state
        s.pose = s.pose.model_copy(update={"orientation_cost": self.cfg.motion.stow_orientation_cost})
        try:
            hand = self.leave_contact({"table"})
        except PrimitiveFailure as f:
            if f.cause is FailureCause.ARM_HIT:
                raise
            hand = self.robot.hand_position()
        for z in [max(lv, hand[2]) for lv in self.arm.cruise_levels()] + [hand[2]]:
            try:
                self.arm.go(np.array([hand[0], hand[1], z]), {"table"} | self.c.scene.touching_now(), "stow",
                            exact=False)
                self.arm.go(np.array([self.cfg.motion.stow_x, hand[1], z]), set(), "stow", exact=False)
                break
            except PrimitiveFailure as f:
                if f.cause is FailureCause.ARM_HIT:
                    raise  # it moved and hit something: not a matter of another level

    def tuck(self, home: dict[str, float]) -> None:
        """Joint-space move to the tuck, checked for clearance: straight there, else in two stages (forearm
        first, or shoulder first), else the arm stays raised behind the table's edge rather than sweep
        through an object."""
        now = self.robot.joint_positions()
        distal = {k: v for k, v in home.items() if "elbow" in k or "wrist" in k}
        proximal = {k: v for k, v in home.items() if k not in distal}
        blocked = []
        for stages in ([home], [distal, home], [proximal, home]):
            try:
                paths, q = [], dict(now)
                for goal in stages:
                    paths.append(self.arm.joint_line_from(q, goal, {"table"} & self.c.scene.touching_now(), "stow",
                                                          at_rest=True))
                    q = {**q, **goal}
            except PrimitiveFailure as f:
                blocked.append(f.detail)
                continue
            for path in paths:
                slowest = self.robot.limits.min_duration(self.robot.joint_positions(), path[-1]) * 1.1
                self.robot.command_path(path, max(self.cfg.motion.min_segment_s * 2, slowest))
            return
        own = all(k.startswith((self.robot.arm, "waist")) for k in home)  # the planner plans the arm in use
        if own and self.c.guarded.settings.guarded_approach and self.robot.held_object() is None:
            try:  # no hand-made way clears: one the motion library plans around what is in the way
                touching = {"table"} & self.c.scene.touching_now()
                self.c.planned.to_posture(home, touching, "planned stow")
                rest = self.arm.joint_line(home, touching, "tuck", at_rest=True)  # the last stretch, beside the hip
                self.robot.command_path(rest, self.cfg.motion.min_segment_s * 2)
                return
            except PrimitiveFailure as f:
                if f.cause not in PLAN_REFUSED:
                    raise
                blocked.append(f.detail)
        log.info("the %s arm stays raised: every way to its tuck sweeps past an object (%s)", self.robot.arm,
                 "; ".join(blocked))

    def select_arm(self, arm: str) -> None:
        if arm != self.robot.arm:
            self.stow(self.robot.arm)
            self.robot.use_arm(arm)

    def retract(self, ignore: set[str]) -> None:
        """Straight up off what the hand just let go of: `approach_height` if the arm reaches that high here,
        else as high as it does. When every straight rise is refused before moving for a neighbour beside the
        hand or forearm: rising while moving away from it (`motion.retract_shifts`). The hand keeps the orientation
        it let go with (`ArmMotion.target_rotation`)."""
        s = self.c.state
        s.let_go_rot = self.robot.hand_rotation()
        try:
            self._retract(ignore)
        finally:
            s.let_go_rot = None

    def _retract(self, ignore: set[str]) -> None:
        hand, up = self.robot.hand_position(), self.cfg.motion.approach_height
        failure, blockers = None, []
        for rise in (up, up / 2, self.cfg.motion.lift_test_height):
            try:
                self.arm.go(hand + [0.0, 0.0, rise], ignore, "retract")
                return
            except PrimitiveFailure as f:
                if f.cause is FailureCause.STOPPED_SHORT and self.got_off(hand):
                    # Where the retract ends matters little: the next move starts from wherever the hand is.
                    log.info("%s, off what it let go of: going on from there", f.detail)
                    return
                if f.cause not in PLAN_REFUSED:
                    raise  # the arm moved and hit something or stopped short
                failure, blockers = failure or f, blockers + list(f.blockers)
        away = self.away_from(tuple(dict.fromkeys(blockers)), hand)
        # Moving away from it, what the hand touches already may stay within the clearance margin at the start.
        touching = self.c.scene.touching_now() & set(blockers)
        for shift in (() if away is None else self.cfg.motion.retract_shifts):
            # A neighbour beside the hand or forearm: rise while moving away from it, as a person would.
            try:
                self.arm.go(hand + np.append(away * shift, up), ignore | touching, "retract")
                return
            except PrimitiveFailure as f:
                if f.cause not in PLAN_REFUSED:
                    raise
        if self.c.guarded.settings.guarded_approach:
            try:  # no straight rise solves or clears: a rise the motion library plans (another arm posture)
                self.c.planned.move_to(hand + [0.0, 0.0, up], ignore, "planned retract")
                return
            except PrimitiveFailure as f:
                if f.cause not in PLAN_REFUSED:
                    raise
                log.info("retract: planned rise refused too: %s", f.detail)
        raise failure

    def got_off(self, start: np.ndarray) -> bool:
        """Whether an empty hand that set out from `start` has risen at least `lift_test_height` and touches
        nothing now."""
        risen = self.robot.hand_position()[2] - start[2] >= self.cfg.motion.lift_test_height
        return risen and self.robot.held_object() is None and not self.c.scene.touching_now()

    def rise(self, point: np.ndarray, ignore: set[str]) -> None:
        """The transit's first rise: straight up to `point`; when the straight line is refused before moving (a
        held object beside a neighbour, a hand left low after a refused lowering), a rise the motion library
        plans, holding the object as it hangs."""
        try:
            self.arm.go(point, ignore, "lift")
        except PrimitiveFailure as f:
            if f.cause not in PLAN_REFUSED or not self.c.guarded.settings.guarded_approach:
                raise
            self.c.planned.instead_of(f, lambda: self.c.planned.move_to(point, ignore, "planned lift", keep_hold=True))

    def leave_contact(self, ignore: set[str]) -> np.ndarray:
        """When the hand touches anything but `ignore` now: a short rise that moves it away from what it touches
        (`motion.retract_shifts[0]` sideways), since fingers resting against a bottle drag it up and tip it over
        when the hand rises straight. Returns where the palm is then."""
        hand = self.robot.hand_position()
        touching = self.c.scene.touching_now() - ignore
        if not touching:
            return hand
        away = self.away_from(tuple(sorted(touching)), hand)
        shift = np.zeros(2) if away is None else away * self.cfg.motion.retract_shifts[0]
        rise = np.append(shift, self.cfg.motion.lift_test_height)
        try:
            self.arm.go(hand + rise, ignore | touching, "lift", exact=False)
        except PrimitiveFailure as f:
            if away is None or f.cause not in PLAN_REFUSED:
                raise
            self.arm.go(hand + [0.0, 0.0, self.cfg.motion.lift_test_height], ignore | touching, "lift", exact=False)
        return self.robot.hand_position()

    def away_from(self, names: tuple[str, ...], hand: np.ndarray) -> np.ndarray | None:
        """The horizontal unit direction from the objects `names` (their mean table position) to the hand;
        None when none of them is on the table or the hand is right above them."""
        xys = [self.c.scene.xy(n) for n in names if self.c.scene.xy(n) is not None]
        if not xys:
            return None
        d = hand[:2] - np.mean(xys, axis=0)
        norm = float(np.linalg.norm(d))
        return d / norm if norm > 1e-3 else None
