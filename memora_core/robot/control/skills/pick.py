"""The pick skill: choose a grasp, carry the hand above it, descend (guarded: the hand closes as soon as it
can), close, test-lift and lift. Its own retries: the next grasp candidate when one fails once the arm moves
(after letting go and stowing), and once per pick a fresh start from the tuck when the arm is wound up."""
from __future__ import annotations

import logging

import numpy as np

from memora_core.robot.control.context import ControlContext
from memora_core.robot.control.failures import PLAN_REFUSED, FailureCause, FailureReason, PrimitiveFailure
from memora_core.robot.control.geometry import angle_deg
from memora_core.robot.control.grasping import GraspKey, grasp_key
from memora_core.robot.control.state import LiftClearance
from memora_core.robot.hand_pinch import pinched_centre
from memora_core.robot.primitives import Primitive, PrimitiveCall
from memora_core.robot.robot import SceneObject

log = logging.getLogger(__name__)

# Failed finger grasps that another grasp candidate may mend: the close took nothing, or the object slipped out as
# the hand lifted it (it is let go where it stands, and the next hand pose tried).
FINGER_RETRY = frozenset({FailureCause.PALM_SHORT, FailureCause.SLIPPED})


class PickSkill:
    def __init__(self, c: ControlContext) -> None:
        self.c = c
        self.robot, self.cfg = c.robot, c.cfg

    def __call__(self, call: PrimitiveCall) -> None:
        self.pick(call)

    def ensure_held(self, name: str | None) -> SceneObject:
        obj = self.find(name)
        if self.robot.held_object() != obj.name:
            self.pick(PrimitiveCall(primitive=Primitive.PICK, object=obj.name))
        return obj

    def pick(self, call: PrimitiveCall, arms: list[str] | None = None) -> None:
        """Pick, and when the chosen grasp fails once the arm is moving, put the object back if it was taken,
        take the arm out of the way and try the next grasp candidate (often the other arm)."""
        obj = self.find(call.object)
        if self.robot.held_object() == obj.name:
            return None
        tried: set[GraspKey] = set()
        fresh_start = True  # once per pick: see below
        for attempt in range(1, self.cfg.motion.pick_attempts + 1):
            before = set(tried)
            try:
                try:
                    return self.pick_once(obj, arms, tried)
                except PrimitiveFailure as f:
                    if not (fresh_start and self.twisted_out_of_reach(f)):
                        raise
                    # Chained IK solves regularise toward the current posture: the arm can sit wound up where the
                    # next move does not solve. Tuck it and plan the same grasp again (not counted as an attempt).
                    fresh_start = False
                    log.info("pick %s: %s from the current arm posture; tucking the arm and trying again",
                             obj.name, f.detail)
                    self.c.transit.stow(self.robot.arm)
                    tried.intersection_update(before)
                    return self.pick_once(obj, arms, tried)
            except PrimitiveFailure as f:
                if attempt == self.cfg.motion.pick_attempts or not self.next_grasp_may_do(f):
                    if self.robot.held_object() == obj.name:  # giving up: do not keep what could not be lifted
                        self.back_off(obj)
                    raise
                if not self.back_off(obj):
                    raise
                self.robot.look()  # the next grasp is planned from the table as it is now
                log.debug("pick %s attempt %d failed (%s); trying the next grasp", obj.name, attempt, f.detail)
        return None

    def next_grasp_may_do(self, f: PrimitiveFailure) -> bool:
        """Whether another grasp candidate may succeed where the chosen one failed once the arm moved: it hit
        something on the way, or (a finger hand) it closed at the grasp point and took nothing, or what it took
        slipped from the fingers as it came up. Not when no candidate was left (NO_GRASP), nor for a palm-reach
        weld whose palm stayed short (the hand could not get there: the next candidate goes the same way)."""
        if f.cause is FailureCause.NO_GRASP:
            return False
        return f.reason is FailureReason.COLLISION or (self.c.grasps.fingers and f.cause in FINGER_RETRY)

    def find(self, query: str | None) -> SceneObject:
        """The object `query` names, from a fresh look at the table (a perceiving robot); where it is not seen and
        the hand is empty, the arm is taken out of the way and the robot looks around before giving up."""
        self.robot.look()
        try:
            return self.seen_better(self.c.resolver.find(query, "object"))
        except PrimitiveFailure as f:
            if (f.cause is not FailureCause.OBJECT_MISSING or not self.robot.perceived_scene
                    or self.robot.held_object() is not None):
                raise
            log.info("pick: nothing seen matches %r; looking around", query)
            self.c.transit.stow(self.robot.arm)
            if not self.robot.look(around=True):
                raise
        return self.seen_better(self.c.resolver.find(query, "object"))

    def seen_better(self, obj: SceneObject) -> SceneObject:
        """`obj`, and where the kept view shows too little of it (`look_again_below`: partly hidden behind a
        neighbour, or cut by the image's edge: its position is off by up to half its size, more than a finger
        grasp forgives) and the hand is empty, first a look at it from the head's other viewpoints, the arm
        stowed; it is then planned from the view that shows the most of it."""
        shown = self.robot.seen_fraction(obj.name)
        if shown is None or shown >= self.cfg.motion.look_again_below or self.robot.held_object() is not None:
            return obj
        self.c.transit.stow(self.robot.arm)
        after = self.robot.look_at(obj.name)
        log.info("the view showed %.0f %% of %s; looked again from the other viewpoints: %s", 100 * shown,
                 obj.name, "nothing better" if after is None else f"{100 * after:.0f} %")
        return self.c.resolver.find(obj.name, "object")

    def twisted_out_of_reach(self, f: PrimitiveFailure) -> bool:
        """A move of an empty hand failed for want of an IK solution while the arm is up at the table (not
        tucked): a fresh posture may reach what this one cannot."""
        return (f.ik_miss and self.robot.held_object() is None
                and self.robot.hand_position()[0] > self.cfg.motion.stow_x + 0.02)

    def back_off(self, obj: SceneObject) -> bool:
        """After a failed grasp: let go of `obj` where it is and stow the arm; False when the object no longer
        stands upright (nothing more to try) or the arm cannot get away."""
        if self.robot.held_object() == obj.name:
            self.robot.release()
            self.robot.settle(self.cfg.motion.settle_s)
        if self.robot.held_object() is not None:
            return False
        self.c.state.drop_hold()
        try:
            self.c.transit.stow(self.robot.arm)
        except PrimitiveFailure:
            return False
        pose = self.robot.object_pose(obj.name)
        return pose is not None and obj.graspable(pose[1])

    def pick_once(self, obj: SceneObject, arms: list[str] | None, tried: set[GraspKey]) -> None:
        s = self.c.state
        held = self.robot.held_object()
        if held:
            raise PrimitiveFailure(FailureReason.NOT_ALLOWED, f"hand already holds {held}",
                                   cause=FailureCause.HAND_FULL)
        pos, rot = self.robot.object_pose(obj.name)
        if not obj.graspable(rot):
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"{obj.name} is lying over; top grasp impossible",
                                   cause=FailureCause.NOT_GRASPABLE)
        s.origins[obj.name] = pos.copy()
        s.origin_up = rot.T @ np.array([0.0, 0.0, 1.0])
        if not obj.upright(rot):  # a box knocked onto a side is taken from the top as it lies (and set down so)
            s.lying.add(obj.name)
        top = pos + np.array([0, 0, obj.half_up(rot)])
        ignore = {obj.name}
        grasps = self.c.grasps
        arm, pose, grasp_pt, checked = grasps.choose(obj, grasps.points(obj, top, rot), ignore, arms, top, tried)
        tried.add(grasp_key(arm, pose, grasp_pt))
        self.c.transit.select_arm(arm)
        s.pose = pose
        s.grasping = obj.name
        self.c.transit.transit(grasp_pt[:2], ignore, grasp_pt[2] + self.cfg.motion.approach_height,  # above it
                               rise_ignore=set())
        try:
            self.descend(grasp_pt, checked, ignore)                                 # pre-grasp, approach
        except PrimitiveFailure as f:
            # Fingers resting on the object stop the palm a little short: close the hand there if it is in reach.
            if f.stopped_short != "approach" or not self.robot.grasp(obj.name):
                raise
        fingers = self.c.grasps.fingers  # a finger grasp closed once at the grasp point: no second try lower
        if not fingers and self.robot.held_object() != obj.name and not self.robot.grasp(obj.name):
            self.close_in(obj, grasp_pt, ignore)
        if self.robot.held_object() != obj.name and (
                fingers or not self.robot.grasp(obj.name, self.finger_reach())):
            gap = float(np.linalg.norm(self.robot.hand_position() - top))
            # Whatever the hand rests on instead is what kept it from the object.
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"palm stayed {gap * 100:.1f} cm from {obj.name}",
                                   self.c.resolver.movable(self.c.scene.touching_now() - {obj.name}),
                                   cause=FailureCause.PALM_SHORT, gap=gap)
        self.held_where_closed(obj, rot)
        self.lift(obj)
        self.c.scene.check_held(obj.name)
        now, _ = self.robot.object_pose(obj.name)
        if now[2] < s.origins[obj.name][2] + 0.5 * self.cfg.motion.lift_height:
            raise PrimitiveFailure(FailureReason.SLIPPED, f"{obj.name} did not come up with the hand",
                                   cause=FailureCause.SLIPPED)
        return None

    def held_where_closed(self, obj: SceneObject, rot: np.ndarray) -> None:
        """Tell the robot where the closing hand left `obj` (standing as `rot` when it closed), where that is known
        better than where it was seen before: a pinch with a measured thumb stop swept it against the thumb
        (`swept_to`); then, where the fingers' own reading (`Robot.finger_pinch`) disagrees with that by more than
        its error, the fingers' (hand_pinch.pinched_centre). Not after a rim pinch: the fingers hold the wall, the
        object's centre is its radius away, where it was seen."""
        held = self.robot.object_pose(obj.name)
        if held is None or self.c.state.pose.rim_above is not None:
            return
        at = self.swept_to(obj, rot, held[0]) if self.c.state.pose.thumb_wall is not None else None
        pinch = self.robot.finger_pinch() if self.c.grasps.fingers else None
        if pinch is not None:
            by_fingers = pinched_centre(held[0] if at is None else at, pinch)
            at = at if by_fingers is None else by_fingers
        if at is not None:
            self.robot.held_at(at)

    def swept_to(self, obj: SceneObject, rot: np.ndarray, centre: np.ndarray) -> np.ndarray:
        """Where a sweep pinch leaves `obj` (standing as `rot` when the hand closed, its centre at `centre` in the
        hand): its near face at the thumb's stop, its centre half its narrow width beyond along the fingers (pushed
        against the thumb's tip, a long object turns square to the fingers); across them where it was."""
        axes = obj.horizontal_axes(rot)
        along = self.c.state.pose.thumb_wall + (min(h for _, h in axes) if axes else obj.radius)
        palm, turn = self.robot.hand_position(), self.robot.hand_rotation()
        offset = turn.T @ (np.asarray(centre, float) - palm)
        return palm + turn @ np.array([along, offset[1], offset[2]])

    def descend(self, grasp_pt: np.ndarray, checked: list[dict[str, float]], ignore: set[str]) -> None:
        """Pre-grasp and approach, planned again from the arm's actual posture after the transit; when that is
        blocked, change posture in joint space to the checked one above the object and follow the checked descent."""
        arm = self.c.arm
        pre = grasp_pt + np.array([0, 0, self.cfg.motion.approach_height])
        free = {n for n in ignore if n != self.robot.held_object()} - {self.c.state.grasping}
        try:
            to_pre = arm.plan_line(pre, free, "pre-grasp")
            arm.plan_line(grasp_pt, ignore, "approach", to_pre[-1], pre)  # checked before moving
        except PrimitiveFailure as f:
            log.debug("descent re-plan blocked (%s); following the checked one", f.detail)
            above = self.over(grasp_pt, pre[2], ignore)
            self.to_checked(checked[0], above, ignore)
            arm.follow(checked[1:], grasp_pt, ignore, "approach")
            name = self.c.state.grasping
            if self.c.grasps.fingers and name:
                self.robot.grasp(name)  # a finger hand closes once, at the grasp point (as guarded_approach does)
            return
        arm.follow(to_pre, pre, free, "pre-grasp")
        self.guarded_approach(grasp_pt, ignore)

    def to_checked(self, q: dict[str, float], above: np.ndarray, ignore: set[str]) -> None:
        """From the posture the arm has over the object to the checked descent's first one, `q` (its palm at
        `above`): along the joint line, else (the line sweeps the forearm through the table or a neighbour: the
        arm came there by a planned move, in a posture far from `q`) along a joint path the motion library plans."""
        arm = self.c.arm
        try:
            path = arm.joint_line(q, ignore, "above")
        except PrimitiveFailure as f:
            if f.cause not in PLAN_REFUSED or not self.c.guarded.settings.guarded_approach:
                raise
            self.c.planned.instead_of(f, lambda: self.c.planned.to_posture(q, ignore, "planned above"))
            log.info("above: %s; planned the posture change instead", f.detail)
            path = arm.joint_line(q, ignore, "above")  # the rest, checked, if the planned path ended short of `q`
        arm.follow(path, above, ignore, "above")

    def over(self, grasp_pt: np.ndarray, lowest: float, ignore: set[str]) -> np.ndarray:
        """The hand over `grasp_pt` at the highest cruise level (not below `lowest`) the arm reaches there; at a
        far corner of the table the usual one may be out of reach where a lower one is not (the clearance check
        decides whether it is still clear). The point the hand is at."""
        arm = self.c.arm
        levels = sorted({max(z, lowest) for z in arm.cruise_levels()}, reverse=True)
        refused = None
        for z in levels:
            above = np.array([grasp_pt[0], grasp_pt[1], z])
            if np.linalg.norm(self.robot.hand_position() - above) <= 0.01:
                return above
            try:
                arm.go(above, ignore, "above")
                return above
            except PrimitiveFailure as f:
                if f.cause not in PLAN_REFUSED:
                    raise
                refused = refused or f
        raise refused

    def guarded_approach(self, grasp_pt: np.ndarray, ignore: set[str]) -> None:
        """Down from the pre-grasp in `close_in_step` moves, closing the hand as soon as it can: a hand that
        kept pressing down after touching would push a light box over or away (a guarded move)."""
        start = self.robot.hand_position()
        steps = max(1, int(np.ceil(np.linalg.norm(grasp_pt - start) / self.cfg.motion.close_in_step)))
        name = self.c.state.grasping
        obj = self.c.resolver.require(name) if name else None
        # Only an object that tips (tall for its footprint) is taken at the first touch.
        tips = obj is not None and self.tips(obj)
        fingers = self.c.grasps.fingers  # the fingers close once, at the grasp point beside the object
        for k in range(1, steps + 1):
            point = start + (grasp_pt - start) * k / steps
            self.c.arm.go(point, ignore, "approach", exact=k == steps)
            if fingers and k < steps:
                continue
            if obj is not None and self.robot.grasp(obj.name, self.finger_reach() if tips else 0.0):
                return
            if obj is not None and not fingers:
                self.stop_if_tipping(obj)

    def close_in(self, obj: SceneObject, grasp_pt: np.ndarray, ignore: set[str]) -> None:
        """The palm stopped short of the grasp point: step straight down in small checked moves until the hand
        can close, giving up when a move is refused."""
        for k in range(1, self.cfg.motion.close_in_steps + 1):
            point = grasp_pt - np.array([0.0, 0.0, self.cfg.motion.close_in_step * (k - 1)])
            try:
                self.c.arm.go(point, ignore, "approach", exact=False)
            except PrimitiveFailure:
                return
            if self.robot.grasp(obj.name):
                return
            self.stop_if_tipping(obj)

    def stop_if_tipping(self, obj: SceneObject) -> None:
        """A palm that has not closed yet and already tipped the object `press_tilt_deg` from how it stood when
        the pick began stops there (TIPPED: the pick backs off and tries its next grasp); pressing on would stand
        a flat object on its edge or push a box over."""
        pose, up = self.robot.object_pose(obj.name), self.c.state.origin_up
        if pose is None or up is None:
            return
        angle = angle_deg(pose[1].T[:, 2], up)
        if angle > self.cfg.motion.press_tilt_deg:
            raise PrimitiveFailure(FailureReason.COLLISION, f"approach: the palm tipped {obj.name} {angle:.0f} deg "
                                   "before it could close", cause=FailureCause.TIPPED, what="approach",
                                   angle_deg=angle)

    def tips(self, obj: SceneObject) -> bool:
        """Whether `obj` is tall for its footprint (`tip_ratio`): let go leaning, it falls over."""
        return obj.half_height >= self.cfg.motion.tip_ratio * obj.radius

    def finger_reach(self) -> float:
        """How far the current hand's fingertips reach below its palm beyond a level hand's."""
        return max(0.0, self.c.state.pose.min_palm_height - self.cfg.motion.grasp_poses[0].min_palm_height)

    def lift(self, obj: SceneObject) -> None:
        """Straight up from the grasp to the highest cruise level that plans (else `lift_height`): the table
        and whatever the hand or object touched at the grasp are left behind by a vertical move."""
        s, arm = self.c.state, self.c.arm
        hand = self.robot.hand_position()
        contacts = {"table"} | self.c.scene.touching_now()
        s.lift_clear = LiftClearance(obj.name, hand[:2].copy(), contacts)
        s.held_rot, s.held_cost = self.robot.hand_rotation(), None
        held = self.robot.object_pose(obj.name)  # None where a backend cannot say (it then stands as it hangs)
        s.held_up = None if held is None else held[1].T @ np.array([0.0, 0.0, 1.0])
        if held is not None and s.origin_up is not None and self.tips(obj):
            # An object that tips is put down standing as it stood before the grasp (a grasp that pressed a bottle
            # 17 deg over and let it go so, tipped it). A flat one keeps the grasp's lean: it lands lying anyway, and
            # turning the hand back by what a grasp tilted a bread (55 deg) can leave it unable to carry.
            s.held_up = s.origin_up
        self.lift_test(obj, hand, contacts)
        hand = self.robot.hand_position()
        heights = [z for z in arm.cruise_levels() if z > hand[2] + self.cfg.motion.lift_height]
        heights.append(hand[2] + self.cfg.motion.lift_height)
        failure = None
        for z in heights:
            point = np.array([hand[0], hand[1], z])
            try:
                path = arm.plan_line(point, contacts, "lift")
            except PrimitiveFailure as f:
                failure = failure or f
                continue
            arm.follow(path, point, contacts, "lift")
            return
        if failure.cause in PLAN_REFUSED and self.c.guarded.settings.guarded_approach:
            # No straight rise solves here (far out, the arm is near the end of its reach): the same rise, the
            # object attached and held as grasped, along a path the motion library plans (goal postures may turn
            # the waist).
            try:
                self.c.planned.move_to(hand + np.array([0.0, 0.0, self.cfg.motion.lift_height]), contacts,
                                       "planned lift", keep_hold=True)
                return
            except PrimitiveFailure as f:
                if f.cause not in PLAN_REFUSED:
                    raise
                log.info("lift: planned rise refused too: %s", f.detail)
        raise failure

    def lift_test(self, obj: SceneObject, hand: np.ndarray, contacts: set[str]) -> None:
        """Raise the object a little first and look: a neighbour caught on the fingers rises with it. Then set
        the object back down, let go and report the neighbour as the blocker."""
        arm = self.c.arm

        def heights() -> dict[str, float]:
            return {o.name: float(self.robot.object_pose(o.name)[0][2]) for o in self.c.resolver.objects()
                    if o.name != obj.name and self.robot.object_pose(o.name) is not None}
        before = heights()
        point = hand + np.array([0.0, 0.0, self.cfg.motion.lift_test_height])
        arm.follow(arm.plan_line(point, contacts, "lift"), point, contacts, "lift", exact=False)
        risen = [n for n, z in heights().items() if z - before.get(n, z) > self.cfg.motion.lift_test_height / 3]
        if not risen:
            return
        arm.follow(arm.plan_line(hand, contacts | set(risen), "lift"), hand, contacts | set(risen), "lift",
                   exact=False)
        self.robot.release()
        self.robot.settle(self.cfg.motion.settle_s)
        raise PrimitiveFailure(FailureReason.COLLISION, f"lift: {', '.join(risen)} came up with {obj.name}", risen,
                               cause=FailureCause.LIFTED_NEIGHBOUR, what="lift")
