"""Grasp candidates: the hand poses that fit an object (fixed yaw, or along its long axis), the arm order by
the object's side (an arm the reachability map says reaches first), and the choice of the first (point, arm,
pose) whose vertical descent is reachable and clear, with that descent's checked joint path."""
from __future__ import annotations

import logging
from collections import Counter

import numpy as np

from memora_core.robot.control.context import ControlContext
from memora_core.robot.control.failures import (BlockedGrasp, Blockers, FailureCause, FailureReason,
                                                 PrimitiveFailure)
from memora_core.robot.control.geometry import (aligned_yaws, finger_grasp_point, grasp_points, half_width,
                                                 hand_frame_footprint, lowest_reach, palm_inner_direction,
                                                 points_along, preshape, rim_points, side_arm)
from memora_core.robot.control.reach import arms_by_reach
from memora_core.robot.hand import PRESHAPES, RIGHT_FINGER_OUTLINES, RIGHT_THUMB_OUTLINES, thumb_sweep
from memora_core.robot.robot import GraspPose, SceneObject

log = logging.getLogger(__name__)

GraspKey = tuple
# A finger grasp needs the object's top at least this far into the space the thumb sweeps (m).
THUMB_OVERLAP = 0.005
# A tilted finger grasp (fingers slanting down) is only taken where its palm need not be raised more than this
# (m) above the grip's own height to keep the fingertips off the table: higher, the fingers land on the top.
TILT_RAISE = 0.005
# A pre-shaped hand's thumb and fingers keep this far from the object they go for (m).
PRESHAPE_MARGIN = 0.006
# Grasp points of the same arm and hand pose closer than this (m) are one grasp when telling which were tried.
SAME_GRASP_M = 0.01
# ... and hand yaws closer than this (deg): a hand along a long object takes its yaw from the object's seen axis, which
# the nudge turns by a degree or two.
SAME_GRASP_DEG = 10.0
# Joint positions closer than this (rad) to the rest posture's are at rest: IK seeded from either is the same solve.
SAME_POSTURE_RAD = 1e-3


def fewest_moves_first(failures: list[PrimitiveFailure]) -> list[str]:
    """The neighbours that blocked candidate grasps, in the order making room should move them: those of the
    candidate blocked by the fewest first (moving them frees that grasp in the fewest moves; between candidates
    blocked by as many, the one whose neighbours block the most candidates), then those of the next candidate,
    and so on; within a candidate, the neighbour blocking the most candidates first. A candidate the robot's own
    body is in the way of too is not freed by moving its neighbours: it does not count."""
    sets = [f.blockers for f in failures if f.blockers and not f.by_body]
    counts = Counter(b for s in sets for b in s)
    order: dict[str, None] = {}
    for s in sorted(sets, key=lambda s: (len(s), -sum(counts[b] for b in s))):
        order.update((b, None) for b in sorted(s, key=lambda b: -counts[b]))
    return list(order)


def grasp_key(arm: str, pose: GraspPose, grasp_pt: np.ndarray) -> GraspKey:
    return (arm, round(pose.yaw_deg, 1), round(pose.pitch_deg, 1), round(pose.roll_deg, 1),
            tuple(np.round(grasp_pt, 3).tolist()))


def tried_already(key: GraspKey, tried: set[GraspKey]) -> bool:
    """The same arm and hand pose at a grasp point within `SAME_GRASP_M` of one in `tried`, its yaw within
    `SAME_GRASP_DEG` (a touch that stopped the hand nudges the object a millimetre or two and may turn it a little:
    the grasp that failed would otherwise count as new)."""
    return any(k[0] == key[0] and k[2:4] == key[2:4] and abs((k[1] - key[1] + 180.0) % 360.0 - 180.0) < SAME_GRASP_DEG
               and np.linalg.norm(np.subtract(k[4], key[4])) < SAME_GRASP_M for k in tried)


class GraspChooser:
    def __init__(self, c: ControlContext) -> None:
        self.c = c
        self.robot, self.cfg = c.robot, c.cfg

    def arm_order(self, y: float) -> list[str]:
        """The arm on the object's side first; the other as a fallback."""
        first = side_arm(y, self.cfg.motion)
        return [a for a in (first, "right" if first == "left" else "left") if a in self.cfg.arms]

    @property
    def fingers(self) -> bool:
        """Finger grasps (palm beside the object, fingers close on it) rather than palm-reach grasps."""
        return self.cfg.grasp.mode == "fingers"

    def points(self, obj: SceneObject, top: np.ndarray, rot: np.ndarray) -> list[np.ndarray]:
        axes = None if obj.extent is None else obj.horizontal_axes(rot)
        if self.fingers:
            # The object's centre, then (a long object) points toward either end, for where neighbours crowd the
            # middle; the palm point follows from each pose's finger_offset.
            return points_along(top, axes, np.inf, self.cfg.motion)
        return grasp_points(top, self.cfg.grasp.clearance, self.cfg.grasp.radius, axes, self.cfg.motion)

    def poses_for(self, obj: SceneObject, arm: str) -> list[GraspPose]:
        """The configured grasp poses for `obj` and `arm`; a pose that follows the object's long axis gets its
        yaw from the object's current orientation (skipped for objects without a long axis)."""
        out = []
        seen = self.robot.object_pose(obj.name)
        height = None if seen is None else 2.0 * obj.half_up(seen[1])
        for pose in self.cfg.motion.grasp_poses:
            if (pose.finger_offset is not None) != self.fingers:
                continue  # a finger pose needs a hand that closes its fingers, and a palm pose the reverse
            if pose.max_object_height is not None and (height is None or height > pose.max_object_height):
                continue  # a hand for flat objects only (by the object's measured height)
            if pose.min_object_height is not None and (height is None or height < pose.min_object_height):
                continue  # a hand for objects at least this tall
            if pose.rim_above is not None:
                if obj.container and obj.extent is None and seen is not None and obj.upright(seen[1]):
                    out.append(pose)  # its yaw comes with each place on the rim (rim_spots)
                continue
            if not pose.along_long_axis:
                out.append(pose)
                continue
            if obj.extent is None or self.robot.object_pose(obj.name) is None:
                continue
            _, rot = self.robot.object_pose(obj.name)
            axis, _ = max(obj.horizontal_axes(rot), key=lambda a: a[1])
            # A hand's own yaw range only on its arm's side of the body: from the other side, pointing away from the
            # midline winds the arm across the body, with no room left for the moves after the grasp.
            own = pose.yaw_range is not None and side_arm(float(seen[0][1]), self.cfg.motion) == arm
            yaws = aligned_yaws(axis, pose.yaw_deg, arm, pose.yaw_range if own else self.cfg.motion.aligned_yaw_range)
            out += [pose.model_copy(update={"yaw_deg": yaw}) for yaw in yaws]
        return out

    def shape_hand(self, obj: SceneObject, arm: str, pose: GraspPose, wide: float, rot: np.ndarray) -> None:
        """Pre-shape the hand for a level finger grasp: the thumb (and fingers) as far closed as keeps them
        PRESHAPE_MARGIN off the object at the grasp, so the hand needs less free table around it; the clearance
        checks that follow see the hand so. A fingers-down pinch keeps the hand open (its thumb reaches under); a
        pose with its own `preshape` (the palm-down pinch) takes that."""
        shape = (0.0, 0.0)
        if pose.preshape is not None:
            shape = tuple(pose.preshape)
        elif abs(pose.pitch_deg) < 1e-6 and not pose.roll_deg:
            centre, axes = hand_frame_footprint(arm, pose.yaw_deg, pose.pitch_deg, pose.finger_offset, wide,
                                                [] if obj.extent is None else obj.horizontal_axes(rot))
            shape = preshape((RIGHT_THUMB_OUTLINES, RIGHT_FINGER_OUTLINES), PRESHAPES, centre, obj.radius, axes,
                             PRESHAPE_MARGIN)
        self.robot.shape_hand(arm, *shape)

    def candidates(self, obj: SceneObject, points: list[np.ndarray], arms: list[str] | None,
                   top: np.ndarray | None, skip: set[GraspKey]):
        """(arm, hand pose, grasp point) in the fixed rule order: fixed-yaw hands at every grasp point first,
        hands along a long object's axis after them; each arm in reach order. Selects the arm (and, for finger
        grasps, pre-shapes the hand) before yielding; the caller restores the arm."""
        reach = self.cfg.grasp.radius + self.cfg.grasp.clearance - 0.005  # where the weld (the hand) closes
        # Hands marked tried_first before the rest, those marked tried_last after them; within each turn, fixed-yaw
        # hands before those along the long axis.
        for turn, aligned, base in [(t, a, b) for t in (0, 1, 2) for a in (False, True) for b in points]:
            for arm in arms or arms_by_reach(self.c.reach, base, self.arm_order(float(base[1]))):
                self.robot.use_arm(arm)
                for each in [p for p in self.poses_for(obj, arm)
                             if p.along_long_axis == aligned and p.turn == turn]:
                    # A rim hand at each place round the rim, once (with the first grasp point); any other at `base`.
                    spots = ([(each, base)] if each.rim_above is None
                             else self.rim_spots(obj, arm, each) if base is points[0] else [])
                    for pose, at in spots:
                        if pose.finger_offset is not None:
                            grasp_pt = self.finger_point(obj, arm, pose, at)
                            if grasp_pt is None:
                                continue
                        else:
                            # A pitched hand's fingers reach further down: its palm stays higher above the table.
                            grasp_pt = np.array([at[0], at[1], max(at[2], self.c.table_z + pose.min_palm_height)])
                            if top is not None and np.linalg.norm(grasp_pt - top) > reach:
                                continue  # too high above this (low) object for the hand to close on it
                        if tried_already(grasp_key(arm, pose, grasp_pt), skip):
                            continue  # tried already and blocked once the arm moved
                        yield arm, pose, grasp_pt

    def rim_spots(self, obj: SceneObject, arm: str, pose: GraspPose) -> list[tuple[GraspPose, np.ndarray]]:
        """A rim hand's places on an open container as it is seen: (the hand turned for the place, the point on
        the rim's wall it pinches), `pose.rim_points` places evenly round the rim, each with the fingers pointing
        at the centre and away from it (turned `pose.yaw_deg` further) where the hand's yaw range allows."""
        pos, rot = self.robot.object_pose(obj.name)
        top_z = float(pos[2]) + obj.half_up(rot)
        limits = pose.yaw_range or self.cfg.motion.aligned_yaw_range
        out = []
        for point, inward in rim_points(pos, top_z, obj.radius, pose.rim_points):
            for yaw in aligned_yaws(inward, pose.yaw_deg, arm, limits):
                out.append((pose.model_copy(update={"yaw_deg": yaw}), point))
        return out

    def finger_point(self, obj: SceneObject, arm: str, pose: GraspPose, base: np.ndarray) -> np.ndarray | None:
        """The palm point of a finger grasp at `base` (the hand pre-shaped for it), or None where this hand
        cannot close on the object there."""
        rot = self.robot.object_pose(obj.name)[1]
        # A rolled hand (the flat sweep pinch) is placed by the table it sweeps along: its palm height is its
        # own, the object's side plays no part.
        wide = 0.0 if pose.roll_deg else half_width(obj.radius, obj.horizontal_axes(rot),
                                                    palm_inner_direction(pose.yaw_deg, pose.pitch_deg, arm,
                                                                         pose.roll_deg))
        grasp_pt = finger_grasp_point(base, arm, pose.yaw_deg, pose.pitch_deg, pose.finger_offset,
                                      obj.half_up(rot), wide, pose.roll_deg)
        raised = self.c.table_z + pose.min_palm_height - grasp_pt[2]
        if raised > TILT_RAISE and 0.0 < pose.pitch_deg < 90.0 and not pose.roll_deg:
            return None  # a tilted hand held higher than its grip would land its fingers on top (a rolled hand
            # is placed by the table, at its own palm height, whatever its pitch)
        if pose.rim_above is not None:
            grasp_pt[2] = base[2] + pose.rim_above  # over the rim it pinches, not by the table
        else:
            grasp_pt[2] = (self.c.table_z + pose.min_palm_height if pose.roll_deg
                           else max(grasp_pt[2], self.c.table_z + pose.min_palm_height))
        if base[2] < grasp_pt[2] - lowest_reach(thumb_sweep(arm), pose.yaw_deg, pose.pitch_deg, arm,
                                                pose.roll_deg) + THUMB_OVERLAP:
            return None  # too low for this hand: its thumb closes above the object's top
        self.shape_hand(obj, arm, pose, wide, rot)
        return grasp_pt

    def descent(self, grasp_pt: np.ndarray, pre: np.ndarray, above: np.ndarray, ignore: set[str], free: set[str],
                at_grasp: dict[str, float], seed: dict[str, float] | None = None) -> list[dict[str, float]]:
        """The checked joint path above -> pre-grasp -> grasp (first waypoint: the posture above). Down to the
        grasp the hand must not run into the object either: only at the grasp point may it touch it. Solved down
        from the posture above; where that is blocked, solved up from the clear grasp posture `at_grasp` and run
        backwards: IK chained down from cruise height can bring the elbow or wrist lower into a neighbour than the
        grasp posture itself has them (a rolled pinch beside a tea box). `seed`: the posture the solve above starts
        from (default: the current one)."""
        arm_motion = self.c.arm
        try:
            path = arm_motion.plan_line(above, free, "above", start=seed, start_xyz=above)
            path += arm_motion.plan_line(pre, free, "pre-grasp", path[-1], above)
            return path + arm_motion.plan_line(grasp_pt, ignore, "approach", path[-1], pre)
        except PrimitiveFailure as down:
            try:
                up = arm_motion.plan_line(pre, ignore, "approach", at_grasp, grasp_pt)
                up += arm_motion.plan_line(above, free, "pre-grasp", up[-1], pre)
            except PrimitiveFailure:
                raise down from None
            return up[::-1] + [at_grasp]

    def seeds(self, arm: str) -> list[dict[str, float] | None]:
        """The postures a candidate's IK is started from, in turn: `arm`'s rest posture, then (None) the current
        one, unless the arm is at rest already."""
        rest = self.c.arm.rest_posture(arm)
        now = self.robot.joint_positions()
        at_rest = all(abs(now.get(k, np.inf) - v) < SAME_POSTURE_RAD for k, v in rest.items())
        return [rest] if at_rest else [rest, None]

    def blockers_of(self, obj: SceneObject, without: set[str] = frozenset()) -> Blockers | None:
        """A what-if for making room (nothing moves; the hand pose of the grasp under way is kept): None when some
        grasp of `obj`, as it stands now, is reachable and clear were the neighbours `without` not on the table;
        else the neighbours in the way, in the order `fewest_moves_first` gives (empty: none could help, or
        `obj` is lying over), with the blocked candidates they were found in."""
        found = self._what_if(obj, without)
        return None if isinstance(found, tuple) and not isinstance(found, Blockers) else found

    def open_grasp(self, obj: SceneObject,
                   without: set[str] = frozenset()) -> tuple[str, list[dict[str, float]]] | None:
        """A what-if (nothing moves): (arm, checked joint path down to the grasp) of the grasp the search takes of
        `obj` as it stands now, were the neighbours `without` not on the table; None when no grasp of it is clear."""
        found = self._what_if(obj, set(without))
        return None if isinstance(found, Blockers) else found

    def _what_if(self, obj: SceneObject, without: set[str]) -> Blockers | tuple[str, list[dict[str, float]]]:
        seen = self.robot.object_pose(obj.name)
        if seen is None or not obj.graspable(seen[1]):
            return Blockers()
        pos, rot = seen
        top = pos + np.array([0, 0, obj.half_up(rot)])
        kept = self.c.state.pose
        try:
            # From the rest posture only: an answer found from where the arm happens to be may not hold once the
            # moves it plans have moved the arm (dev 100605: three neighbours set aside, each said to free the bread).
            arm, _, _, path = self.choose(obj, self.points(obj, top, rot), {obj.name} | set(without), None, top,
                                          from_rest=True)
            return arm, path
        except PrimitiveFailure as f:
            return Blockers(b for b in f.blockers if b not in without)
        finally:
            self.c.state.pose = kept

    def choose(self, obj: SceneObject, points: list[np.ndarray], ignore: set[str], arms: list[str] | None = None,
               top: np.ndarray | None = None,
               skip: set[GraspKey] = frozenset(),
               from_rest: bool = False) -> tuple[str, GraspPose, np.ndarray, list[dict[str, float]]]:
        """The first (arm, hand pose, grasp point) of `candidates` whose vertical descent from cruise height is
        reachable and keeps clear of every other object and the table; with that descent's checked joint path
        (first waypoint: the posture above). NO_GRASP (with the neighbours that blocked the most candidates
        first) when none is. `from_rest`: each candidate solved from the arm's rest posture only (a what-if that
        must still hold once the arm has moved)."""
        arm_motion, state = self.c.arm, self.c.state
        current, failures, ways = self.robot.arm, [], []
        cruise = arm_motion.cruise_z()
        free = ignore - {obj.name}
        seeds: dict[str, list[dict[str, float] | None]] = {}  # per arm, once: nothing moves while choosing
        try:
            for arm, pose, grasp_pt in self.candidates(obj, points, arms, top, skip):
                above = np.array([grasp_pt[0], grasp_pt[1], max(cruise, grasp_pt[2] + self.cfg.motion.approach_height)])
                pre = grasp_pt + np.array([0, 0, self.cfg.motion.approach_height])
                state.pose = pose
                first = None
                # Solved from the arm's rest posture first, so that whether a grasp is free does not depend on
                # where earlier moves left the arm (and a neighbour set aside can be kept off its posture); from
                # the current posture when that fails (not again when the arm is at rest: the same solve).
                if arm not in seeds:
                    seeds[arm] = self.seeds(arm)
                for seed in seeds[arm][:1] if from_rest else seeds[arm]:
                    try:
                        # The end point first: it is where a crowded grasp fails, and one IK solve says so.
                        at_grasp = arm_motion.plan_line(grasp_pt, ignore, "approach", start=seed, start_xyz=grasp_pt)
                        path = self.descent(grasp_pt, pre, above, ignore, free, at_grasp[-1], seed)
                        log.debug("grasp %s: chose %s arm, %s at %s", obj.name, arm, pose.name, np.round(grasp_pt, 3))
                        return arm, pose, grasp_pt, path
                    except PrimitiveFailure as f:
                        first = first or f
                log.debug("grasp %s: %s arm, %s at %s: %s", obj.name, arm, pose.name, np.round(grasp_pt, 3),
                          first.detail)
                failures.append(first)
                if first.blockers and not first.by_body and first.arm_posture is not None:
                    ways.append(BlockedGrasp(arm, first.arm_posture, first.blockers))
        finally:
            self.robot.use_arm(current)
        if not failures:
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"no hand pose fits {obj.name}",
                                   cause=FailureCause.NO_GRASP)
        worst = next((f for f in failures if f.reason is FailureReason.COLLISION), failures[-1])
        blockers = fewest_moves_first(failures)
        raise PrimitiveFailure(worst.reason, f"no arm/hand pose can grasp {obj.name}: {worst.detail}", blockers,
                               cause=FailureCause.NO_GRASP, what=worst.what, point=worst.point,
                               residual=worst.residual, blocked_grasps=ways)
