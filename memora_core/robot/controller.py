"""The rule-based primitive controller: plan step → primitive → Cartesian waypoints (pre-grasp, approach,
grasp, lift, carry, lower, release, retract) → IK → limit-checked joint commands on a `Robot`. Each primitive
checks its postcondition in the robot's state and returns success or a failure with a reason."""
from __future__ import annotations

import logging
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable
from enum import Enum

import numpy as np
from pydantic import BaseModel, ConfigDict

from memora_core.robot.limits import EStopActive, LimitViolation
from memora_core.robot.primitives import Primitive, PrimitiveCall, UnknownPrimitive, parse_step
from memora_core.robot.robot import GraspPose, Robot, SceneObject
from memora_core.schemas.plan import PlanStep

log = logging.getLogger(__name__)


class FailureReason(str, Enum):
    UNREACHABLE = "unreachable"
    COLLISION = "collision"
    SLIPPED = "slipped"
    OBJECT_MISSING = "object_missing"
    NOT_ALLOWED = "not_allowed"      # not a primitive / limit violation
    ESTOP = "estop"
    POSTCONDITION = "postcondition_failed"


class StepResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    index: int
    primitive: str | None = None
    object: str | None = None
    target: str | None = None
    success: bool
    reason: FailureReason | None = None
    detail: str = ""
    placement_error_m: float | None = None
    duration_s: float = 0.0
    moved_aside: list[str] = []  # neighbours the step set aside to get through


class PrimitiveFailure(Exception):
    """A primitive that cannot be done, and why. `blockers`: the scene objects found in the way (not the
    table, not the robot), so the caller may move them aside and try again."""

    def __init__(self, reason: FailureReason, detail: str, blockers: Iterable[str] = ()) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.blockers = tuple(dict.fromkeys(blockers))
        self.ik_miss = False  # no IK solution from the seed tried: another posture may still reach the point
        self.stopped_short: str | None = None  # the move whose hand stopped short of its end, nothing planned hit

    @classmethod
    def short_of(cls, what: str, gap: float) -> "PrimitiveFailure":
        failure = cls(FailureReason.COLLISION, f"{what}: hand blocked {gap * 100:.1f} cm short")
        failure.stopped_short = what
        return failure

    @classmethod
    def no_ik(cls, what: str, point: np.ndarray, err: float, tolerance: float) -> "PrimitiveFailure":
        failure = cls(FailureReason.UNREACHABLE, f"{what} {np.round(point, 3).tolist()}: IK residual "
                                                 f"{err * 100:.1f} cm > {tolerance * 100:.1f} cm")
        failure.ik_miss = True
        return failure


_TOKEN = re.compile(r"[a-z0-9]+")
TABLE_WORDS = ("table", "the table", "counter", "table top")
# 'table next to yellow bowl' / 'next to the bowl' / 'beside the bowl': a table spot beside an object
_BESIDE = re.compile(r"^(?:(?:the )?(?:table|counter) )?(?:next to|beside|near|by) (?:the )?(.+)$")
# Steps that may move a neighbour aside to get through (a move_to or a hand-over only passes over the table).
_ROOM_MAKING = {Primitive.PICK, Primitive.PLACE, Primitive.POUR}
STOPWORDS = {"the", "a", "an", "of", "my", "to", "in", "on", "into", "onto", "with", "from"}


def _tokens(text: str) -> set[str]:
    return {t for t in _TOKEN.findall(text.lower().replace("-", " ")) if t not in STOPWORDS}


def match_score(query: str, obj: SceneObject) -> float:
    """How well a plan's object string names a scene object: exact name/alias > label > word overlap.
    Attributes (colour, label, category) count, so 'the red bottle' finds the Coca-Cola, not the Fanta can."""
    q = " ".join(query.lower().split())
    names = [obj.name.lower()] + [a.lower() for a in obj.aliases]
    if q in names:
        return 10.0
    if obj.label and q == obj.label.lower():
        return 9.0
    qt = _tokens(q)
    if not qt:
        return 0.0
    words = _tokens(" ".join(names + [obj.category, obj.colour, obj.material, obj.label or ""]))
    hit = len(qt & words) / len(qt)
    cat_ok = bool(_tokens(obj.category) & qt) or bool(_tokens(obj.name) & qt)
    return hit * 5.0 + (1.0 if cat_ok else 0.0)


class RuleBasedController:
    def __init__(self, robot: Robot, table_height: float, regions: dict[str, tuple[float, float, float]],
                 tallest_object: float = 0.22) -> None:
        self.robot = robot
        self.cfg = robot.config
        self.table_z = table_height
        self.regions = {k.lower(): np.array(v, float) for k, v in regions.items()}
        self.tallest = tallest_object
        self._origin: dict[str, np.ndarray] = {}  # where each object was picked from (for pour's put-back)
        self._pose: GraspPose = self.cfg.motion.grasp_poses[0]  # hand orientation of the current/last grasp
        # (held object, palm xy at the grasp, what the hand/object touched then): while the palm is still on
        # that vertical line, lifting straight up leaves those contacts behind, so they are no obstacle.
        self._lift_clear: tuple[str, np.ndarray, set[str]] | None = None
        self._held_rot: np.ndarray | None = None  # palm orientation at the grasp of the held object
        self._grasping: str | None = None          # the object the current descent goes for
        self._held_cost: float | None = None       # a carry's relaxed weight on the held hand orientation
        self._lying: set[str] = set()              # boxes found knocked over at a pick: lying is their state now

    # --- names ---------------------------------------------------------------------------------------
    def _movable(self, names: Iterable[str]) -> list[str]:
        """The scene objects among `names` (clearance hits also name the table and the other arm)."""
        known = {o.name for o in self.objects()}
        return [n for n in names if n in known and n != self.robot.held_object()]

    def objects(self) -> list[SceneObject]:
        return self.robot.scene_objects()

    def resolve(self, query: str) -> SceneObject | None:
        """The scene object a plan string means, or None when nothing matches well enough."""
        scored = sorted(((match_score(query, o), o) for o in self.objects()), key=lambda p: -p[0])
        if not scored or scored[0][0] < 3.5:
            return None
        if len(scored) > 1 and scored[1][0] == scored[0][0] and scored[0][0] < 9.0:
            return None  # ambiguous: two objects fit equally; refuse rather than guess
        return scored[0][1]

    # --- entry point ---------------------------------------------------------------------------------
    def execute_step(self, step: PlanStep) -> StepResult:
        t0 = time.perf_counter()
        try:
            call = parse_step(step)
        except UnknownPrimitive as exc:
            return StepResult(index=step.index, success=False, reason=FailureReason.NOT_ALLOWED, detail=str(exc))
        result = self.execute(call, index=step.index)
        result.duration_s = time.perf_counter() - t0
        return result

    def execute(self, call: PrimitiveCall, index: int = 0) -> StepResult:
        base = dict(index=index, primitive=call.primitive.value, object=call.object, target=call.target)
        handlers = {Primitive.PICK: self._pick, Primitive.PLACE: self._place, Primitive.POUR: self._pour,
                    Primitive.GIVE: self._give, Primitive.MOVE_TO: self._move_to}
        moved: list[str] = []
        try:
            err = self._making_room(handlers[call.primitive], call, moved)
            detail = f"moved {', '.join(moved)} aside first" if moved else ""
            return StepResult(**base, success=True, placement_error_m=err, detail=detail, moved_aside=moved)
        except PrimitiveFailure as f:
            log.info("step %d %s failed: %s (%s)", index, call.primitive.value, f.reason.value, f.detail)
            return StepResult(**base, success=False, reason=f.reason, detail=f.detail, moved_aside=moved)
        except EStopActive as exc:
            return StepResult(**base, success=False, reason=FailureReason.ESTOP, detail=str(exc), moved_aside=moved)
        except LimitViolation as exc:
            return StepResult(**base, success=False, reason=FailureReason.NOT_ALLOWED, detail=str(exc),
                              moved_aside=moved)

    # --- making room ---------------------------------------------------------------------------------
    def _making_room(self, handler: Callable[[PrimitiveCall], float | None], call: PrimitiveCall,
                     moved: list[str]) -> float | None:
        """Run a primitive; when neighbours stand in the way of the arm (the clearance check or the arm
        itself found them), set them aside on a free table spot away from the work, as a person clears a
        crowded counter, and try again: at most `motion.clear_moves` objects per step. Only objects the step
        is not about are moved, one at a time, and only when picking them up and putting them down
        succeeds; otherwise the original failure stands."""
        while True:
            try:
                return handler(call)
            except PrimitiveFailure as f:
                if call.primitive not in _ROOM_MAKING or len(moved) >= self.cfg.motion.clear_moves:
                    raise
                involved = self._involved(call)
                candidates = [b for b in f.blockers if b not in involved and b not in moved]
                blocker = next((b for b in candidates if self._clear_away(b, call)), None)
                if blocker is None:
                    raise
                moved.append(blocker)
                log.info("moved %s aside (it blocked: %s); trying %s again", blocker, f.detail, call.primitive.value)

    def _involved(self, call: PrimitiveCall) -> set[str]:
        """The objects a step is about (never moved aside for it): its object, its target and what already
        lies in the target."""
        names = set()
        for query in (call.object, call.target):
            obj = self.resolve(query) if query else None
            if obj is not None:
                names.add(obj.name)
                names |= self._inside(obj)
        held = self.robot.held_object()
        return names | ({held} if held else set())

    def _work_xy(self, call: PrimitiveCall) -> np.ndarray:
        """Where a step works on the table: its target's position, else its object's."""
        for query in (call.target, call.object):
            region = self.regions.get((query or "").lower())
            if region is not None:
                return region[:2].copy()
            obj = self.resolve(query) if query else None
            if obj is not None and self.robot.object_pose(obj.name) is not None:
                return self.robot.object_pose(obj.name)[0][:2].copy()
        return self.robot.hand_position()[:2].copy()

    def _clear_away(self, blocker: str, call: PrimitiveCall) -> bool:
        """Set `blocker` aside; a held object (a place that was blocked) is first put down on a free spot
        too, and is picked again by the retried step. False when any of it failed."""
        work = [self._work_xy(call)]
        try:
            held = self.robot.held_object()
            if call.primitive is Primitive.PICK and held is not None and self._involved(call) & {held}:
                # A pick that got hold of its object but could not lift it: let go where it stands first.
                if not self._back_off(self._require(held)):
                    return False
                held = None
            if held is not None and held != blocker:
                self._park(self._require(held), work)
            # The step's own objects are picked again by the retried step: keep the blocker away from them too.
            work += [self.robot.object_pose(n)[0][:2] for n in self._involved(call) - {blocker}
                     if self.robot.object_pose(n) is not None]
            self._pick(PrimitiveCall(primitive=Primitive.PICK, object=blocker))
            self._set_aside(self._require(blocker), work)
            return True
        except (PrimitiveFailure, LimitViolation) as f:
            log.info("could not move %s aside: %s", blocker, getattr(f, "detail", f))
            if self.robot.held_object() == blocker:
                self._put_back(self._require(blocker))
            return False

    def _footprints(self, *exclude: str) -> list[tuple[np.ndarray, float]]:
        """(table xy, footprint radius) of every object in the scene but `exclude`."""
        return [(np.asarray(self.robot.object_pose(o.name)[0][:2]), o.radius) for o in self.objects()
                if o.name not in exclude and self.robot.object_pose(o.name) is not None]

    @staticmethod
    def _edge_gap(c: np.ndarray, radius: float, footprints: list[tuple[np.ndarray, float]]) -> float:
        """Free gap, edge to edge, between a footprint of `radius` at `c` and the nearest of `footprints`."""
        return min((float(np.linalg.norm(c - p)) - r - radius for p, r in footprints), default=1.0)

    @staticmethod
    def _grid(zone: tuple, step: float) -> list[np.ndarray]:
        """Table points `step` apart over the (x, y) box `zone`."""
        lo, hi = np.array(zone[0]), np.array(zone[1])
        return [np.array([x, y]) for x in np.arange(lo[0], hi[0] + 1e-9, step)
                for y in np.arange(lo[1], hi[1] + 1e-9, step)]

    def _put_back(self, obj: SceneObject) -> None:
        """Set the held `obj` down where it was picked from (that spot is free: it just left it) and stow the
        arm; letting go wherever the hand is, the last resort, would drop it from carry height."""
        origin = self._origin.get(obj.name)
        if origin is not None:
            try:
                self._put_down_at(obj, origin[:2])
            except (PrimitiveFailure, LimitViolation) as f:
                log.info("could not put %s back: %s", obj.name, getattr(f, "detail", f))
        self._back_off(obj)

    def _aside_spots(self, obj: SceneObject, work: list[np.ndarray]) -> list[np.ndarray]:
        """Free table spots in `motion.table_zone` at least `aside_distance` from every work point and not
        in front of the main one (between the robot and the work), and at least `aside_min_move` from where
        `obj` stood, roomiest first."""
        m = self.cfg.motion
        middle = (np.array(m.table_zone[0]) + np.array(m.table_zone[1])) / 2
        others = self._footprints(obj.name)
        keep_clear = [np.asarray(v[:2]) for k, v in self.regions.items() if k == "person"]
        origin = self._origin.get(obj.name)  # it is held: picked from here to be set aside
        scored = []
        for c in self._grid(m.table_zone, m.table_spot_step):
            if any(np.linalg.norm(c - w) < m.aside_distance for w in work):
                continue
            if c[0] < work[0][0] and abs(c[1] - work[0][1]) < m.aside_distance:  # in front of the main work point
                continue
            if origin is not None and np.linalg.norm(c - origin[:2]) < m.aside_min_move:
                continue  # hardly moved: it would stand in the way as before
            if any(np.linalg.norm(c - k) < obj.radius + m.aside_gap for k in keep_clear):
                continue
            gap = self._edge_gap(c, obj.radius, others)
            if gap >= m.aside_gap:
                # Roomy spots first; among those, the ones nearest the middle of the zone (easy to reach).
                scored.append((round(min(gap, 2 * m.aside_gap), 2), float(np.linalg.norm(c - middle)), c))
        scored.sort(key=lambda t: (-t[0], t[1]))
        return [c for _, _, c in scored[: m.table_spot_tries]]

    def _park(self, obj: SceneObject, work: list[np.ndarray]) -> None:
        """Put down the held `obj` of a step that is blocked while room is made: back where it was picked if
        that spot is still free (it stood there out of everyone's way), else on an aside spot."""
        origin = self._origin.get(obj.name)
        gap = self.cfg.motion.beside_gap
        if origin is not None and self._edge_gap(origin[:2], obj.radius, self._footprints(obj.name)) >= gap:
            try:
                self._put_down_at(obj, origin[:2])
            except PrimitiveFailure as f:
                if self.robot.held_object() != obj.name:
                    raise
                log.debug("could not put %s back (%s); setting it aside", obj.name, f.detail)
        if self.robot.held_object() == obj.name:
            self._set_aside(obj, work)
        else:
            self._check_standing(obj, "put back")

    def _set_aside(self, obj: SceneObject, work: list[np.ndarray]) -> None:
        """Put the held `obj` down on the first aside spot the arm can reach and lower it onto."""
        spots = self._aside_spots(obj, work)
        if not spots:
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"no free table spot to set {obj.name} aside")
        self._set_down_on_first(obj, spots)
        self._check_standing(obj, "set aside")

    def _check_standing(self, obj: SceneObject, how: str) -> None:
        pose = self.robot.object_pose(obj.name)
        if pose is None or self._fell_over(obj, pose[1]):
            raise PrimitiveFailure(FailureReason.POSTCONDITION, f"{obj.name} fell over when {how}")

    # --- motion building blocks --------------------------------------------------------------------
    def _rotation(self) -> np.ndarray:
        """World orientation of the palm frame for the current grasp pose: turned about z toward the midline
        (the right hand turns left, the left hand right), then fingers pitched down about the hand's y."""
        t = np.radians(self._pose.pitch_deg)
        c, s = np.cos(t), np.sin(t)
        pitch = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])
        a = np.radians(self._pose.yaw_deg) * (1.0 if self.robot.arm == "right" else -1.0)
        ca, sa = np.cos(a), np.sin(a)
        yaw = np.array([[ca, -sa, 0.0], [sa, ca, 0.0], [0.0, 0.0, 1.0]])
        return yaw @ pitch

    def _cruise_z(self) -> float:
        """Palm height for transit: whatever hangs below the palm (the held object, else the fingers) clears
        the tallest standing object by `carry_margin`."""
        held = self.robot.held_object()
        tops = [2 * o.half_height for o in self.objects() if o.name != held]
        tallest = max(tops, default=0.0)
        # A pitched hand's fingers reach as far below the palm as its lowest palm height over the table.
        below = max(self.cfg.motion.hand_below, self._pose.min_palm_height)
        if held:
            pos, rot = self.robot.object_pose(held)
            below = max(below, float(self.robot.hand_position()[2] - (pos[2] - self._require(held).half_up(rot))))
        return self.table_z + tallest + self.cfg.motion.carry_margin + below

    def _plan_line(self, point: np.ndarray, ignore: set[str], what: str,
                   start: dict[str, float] | None = None, start_xyz: np.ndarray | None = None,
                   touch_at_end: set[str] = frozenset(), bisect: bool = True,
                   margin: float | None = None, fresh: bool = False) -> list[dict[str, float]]:
        """IK waypoints along the straight palm line to `point`, each checked for reach and clearance
        (`touch_at_end`: objects only the last waypoint may touch, e.g. the one being grasped; `bisect`:
        add waypoints where neighbouring postures differ much — off only for the rough move out of the tuck,
        whose far-apart postures lie behind the table's edge; `fresh`: a probe of a posture the arm will change
        to in joint space — its first point may also be solved from the rest posture).
        Raises PrimitiveFailure (unreachable / collision) before anything moves."""
        point = np.asarray(point, float)
        try:
            self.robot.limits.check_workspace(point)
        except LimitViolation as exc:
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"{what}: {exc}") from exc
        hand = self.robot.hand_position() if start_xyz is None else start_xyz
        n = max(1, int(np.ceil(np.linalg.norm(point - hand) / self.cfg.motion.path_step)))
        seed, path = start, []
        rot, cost = self._rotation(), self._pose.orientation_cost
        if self._held_rot is not None and self.robot.held_object() is not None:
            # Holding: keep the hand as it was at the grasp, so the object hanging below the palm does not
            # swing into a neighbour while the arm re-poses.
            held_cost = self.cfg.motion.held_orientation_cost if self._held_cost is None else self._held_cost
            rot, cost = self._held_rot, max(cost if self._held_cost is None else 0.0, held_cost)
        prev = hand
        for i in range(1, n + 1):
            p = hand + (point - hand) * i / n
            depth = 0 if bisect else self.cfg.motion.max_bisections
            segment = (self._solve_fresh(p, rot, cost, what) if fresh and seed is None and i == 1 else
                       self._solve_segment(prev, p, seed, rot, cost, what, final=i == n, depth=depth))
            for q, sub in segment:
                hits = self.robot.clearance(q, ignore | (set(touch_at_end) if i == n and sub is p else set()), margin)
                if hits:
                    raise PrimitiveFailure(FailureReason.COLLISION, f"{what}: path to {np.round(sub, 3).tolist()} "
                                           f"blocked by {', '.join(hits)}", self._movable(hits))
                path.append(q)
                seed = q
            prev = p
        return path

    def _solve_fresh(self, point: np.ndarray, rot: np.ndarray, cost: float,
                     what: str) -> list[tuple[dict[str, float], np.ndarray]]:
        """A posture for `point` alone: solved from the current one, else from the rest posture (chained
        solves can wind the arm up — torso turned far, elbow wrapped — so that the current posture is a seed
        from which a far point does not converge)."""
        for seed in (None, self._rest_posture(self.robot.arm)):
            q, err = self.robot.solve_ik(point, seed=seed, rotation=rot, orientation_cost=cost)
            if err <= self.cfg.ik.tolerance:
                return [(q, point)]
        raise PrimitiveFailure.no_ik(what, point, err, self.cfg.ik.tolerance)

    def _solve_segment(self, start: np.ndarray, end: np.ndarray, seed: dict[str, float] | None,
                       rot: np.ndarray, cost: float, what: str, final: bool,
                       depth: int = 0) -> list[tuple[dict[str, float], np.ndarray]]:
        """IK postures along the palm segment start→end, ending at `end`. The arm moves between waypoints by
        joint interpolation, which leaves the palm line when two postures differ much (the hand swings, and
        whatever it holds sweeps the table): such a segment is halved until neighbouring postures are within
        `motion.max_joint_jump` of each other (or `motion.max_bisections` is used up)."""
        q, err = self.robot.solve_ik(end, seed=seed, rotation=rot, orientation_cost=cost)
        # Intermediate points may cut a corner a little; the end point must be reached.
        missed = err > self.cfg.ik.tolerance * (1 if final else 2)
        if missed and depth >= self.cfg.motion.max_bisections:
            raise PrimitiveFailure.no_ik(what, end, err, self.cfg.ik.tolerance)
        base = seed if seed is not None else self.robot.joint_positions()
        jump = max((abs(v - base[k]) for k, v in q.items() if k in base), default=0.0)
        # A far posture change, or an IK that did not converge from a far seed: halve the segment (nearer
        # targets, seeded one from the other, converge where one long step does not).
        if not missed and (jump <= self.cfg.motion.max_joint_jump or depth >= self.cfg.motion.max_bisections):
            return [(q, end)]
        mid = (start + end) / 2
        first = self._solve_segment(start, mid, seed, rot, cost, what, False, depth + 1)
        return first + self._solve_segment(mid, end, first[-1][0], rot, cost, what, final, depth + 1)

    def _go(self, point: np.ndarray, ignore: set[str] | None = None, what: str = "waypoint",
            exact: bool = True, bisect: bool = True, margin: float | None = None) -> None:
        point = np.asarray(point, float)
        ignore = set(ignore or set())
        self._follow(self._plan_line(point, ignore, what, bisect=bisect, margin=margin), point, ignore, what, exact)

    def _follow(self, path: list[dict[str, float]], point: np.ndarray, ignore: set[str], what: str,
                exact: bool = True) -> None:
        """Run a checked joint path whose palm ends at `point`; fail when the arm hit something or stopped
        short of it (`exact=False`: a free-space move whose end point only needs to be roughly reached;
        the next move is planned from wherever the palm actually is)."""
        dist = float(np.linalg.norm(point - self.robot.hand_position()))
        duration = max(self.cfg.motion.min_segment_s, dist / self.cfg.motion.speed)
        report = self.robot.command_path(path, duration)
        if report.stopped_by_estop:
            raise EStopActive("e-stop engaged during motion")
        hits = set(report.collisions) - ignore
        if hits:
            raise PrimitiveFailure(FailureReason.COLLISION, f"{what}: arm hit {', '.join(sorted(hits))}",
                                   self._movable(sorted(hits)))
        gap = float(np.linalg.norm(self.robot.hand_position() - point))
        if not exact:
            if gap > 3 * self.cfg.ik.tolerance:
                log.debug("%s: palm %.1f cm short (nothing hit); continuing from there", what, gap * 100)
            return
        if gap > 3 * self.cfg.ik.tolerance:  # IK said yes but the arm did not get there: something blocks it
            raise PrimitiveFailure.short_of(what, gap)

    def _transit(self, above_xy: np.ndarray, ignore: set[str], min_z: float = 0.0) -> None:
        """Rise straight up to cruise height, travel level, arriving above `above_xy`. A far target the arm
        cannot reach at cruise height is approached at a lower level if that is still clear."""
        hand = self.robot.hand_position()
        levels = [max(z, min_z) for z in self._cruise_levels()]
        z = levels[0]
        if hand[0] < self.cfg.motion.stow_x - 0.02:  # tucked beside the hip: first up in front of the shoulder
            # Up from beside the hip an extreme posture may lag (wrist/elbow near their stops): rough is
            # enough here, the lift and carry are planned from where the palm really is.
            ready = np.array([self.cfg.motion.stow_x, hand[1], z])
            # Out of the tuck the hand's orientation hardly matters: holding the grasp's (say, fingers down)
            # from beside the hip twists the waist and sweeps the arm through the table.
            pose, free = self._pose, self.robot.held_object() is None
            if free:
                self._pose = pose.model_copy(update={"orientation_cost": self.cfg.motion.stow_orientation_cost})
            try:
                self._go(ready, ignore, "ready", exact=False, bisect=False)
            except PrimitiveFailure as first:
                # The straight line out of the tuck may need a posture that sweeps the torso or the other arm
                # into the table: straight up beside the hip first, then forward.
                try:
                    self._go(np.array([hand[0], hand[1], z]), ignore, "ready", exact=False, bisect=False)
                    self._go(ready, ignore, "ready", exact=False, bisect=False)
                except PrimitiveFailure:
                    raise first from None
            finally:
                self._pose = pose
            hand = self.robot.hand_position()
        if hand[2] < z - 0.02:
            up = ignore | self._lift_contacts() | ({"table"} if hand[2] < self.table_z + 0.02 else set())
            touching = self._touching_now() - up
            if touching:
                # The hand rests against a neighbour (a lowering given up beside it, a grasp stopped short): a
                # short straight move up leaves it behind; the rest of the lift keeps clear of it again.
                self._go(hand + [0.0, 0.0, self.cfg.motion.lift_test_height], up | touching, "lift", exact=False)
                hand = self.robot.hand_position()
            self._go(np.array([hand[0], hand[1], self._first_level(hand, levels, up)]), up, "lift")
        failure = None
        # A tall neighbour (the bottle) in the forearm's way at cruise height: also try passing higher.
        levels = levels + [levels[0] + d for d in self.cfg.motion.high_carry]
        # Holding the grasp's hand orientation may put a far target out of reach: then once more with the
        # hand free to turn (a spoon or a box does not spill; the lowering re-aims the held object).
        relax = [None] + ([self.cfg.motion.relaxed_held_orientation_cost] if self.robot.held_object() else [])
        # A relaxed carry stays relaxed for the rest of this hold (the lowering starts from its posture).
        try:
            for held_cost in relax:
                self._held_cost = held_cost
                for level in levels:
                    try:
                        if abs(self.robot.hand_position()[2] - level) > 0.01:
                            h = self.robot.hand_position()
                            self._plan_line(np.array([above_xy[0], above_xy[1], level]), ignore, "carry",
                                            start_xyz=np.array([h[0], h[1], level]),
                                            margin=self._transit_margin)  # check before descending
                            self._go(np.array([h[0], h[1], level]), ignore | self._lift_contacts(), "carry level")
                        self._go(np.array([above_xy[0], above_xy[1], level]), ignore, "carry",
                                 margin=self._transit_margin)
                        return
                    except PrimitiveFailure as f:
                        failure = failure or f
                        if f.reason is not FailureReason.UNREACHABLE and not f.detail.startswith("carry: path"):
                            raise  # something was hit, or the arm moved: no other level is planned from here
        except PrimitiveFailure:
            self._held_cost = None
            raise
        self._held_cost = None
        if failure.ik_miss:
            # Every straight line from this posture fails to solve: the arm may be wound up (chained solves
            # follow the current posture). Solve the end point afresh from the rest posture and change posture
            # in joint space, checked for clearance, if that reaches it.
            for level in levels:
                try:
                    self._reposture(np.array([above_xy[0], above_xy[1], level]), ignore, "carry")
                    return
                except PrimitiveFailure as f:
                    if f.reason is not FailureReason.UNREACHABLE:
                        raise failure from f
        raise failure

    def _rest_posture(self, arm: str) -> dict[str, float]:
        """`arm`'s tuck joints with the torso upright (the tuck; and a seed for IK away from a wound-up posture)."""
        rest = {k: v for k, v in self.cfg.home.items() if k.startswith(arm)}
        joints = self.robot.joint_positions()
        rest.update({j: 0.0 for j in joints if j.startswith("waist")})
        rest.update({j: 0.0 for j in joints if j.startswith(arm) and j not in rest and "hand" not in j})
        return rest

    def _reposture(self, point: np.ndarray, ignore: set[str], what: str) -> None:
        """Put the palm at `point` with a posture solved for that point alone (not chained along a line), reached
        by a clearance-checked joint-space move."""
        rot, cost = self._rotation(), self._pose.orientation_cost
        if self._held_rot is not None and self.robot.held_object() is not None:
            rot, cost = self._held_rot, self.cfg.motion.relaxed_held_orientation_cost
        [(q, _)] = self._solve_fresh(point, rot, cost, what)
        log.debug("%s: re-posturing in joint space to reach %s", what, np.round(point, 3).tolist())
        # The palm does not move straight in joint space: on the way only the end posture may come as close to
        # what `ignore` names (the cup poured into) as a straight approach would.
        path = self._joint_line(q, set(), what, end_ignore=ignore)
        self._follow(path, point, ignore, what)
        if self.robot.held_object() is not None and self._held_rot is not None:
            # The held object hangs as the new posture holds it: keep that from here (turning the hand back to
            # the grasp's orientation on the way down would swing it off its goal).
            self._held_rot = self.robot.hand_rotation()

    @property
    def _transit_margin(self) -> float | None:
        """The roomier clearance the level carry keeps (None: the backend's default), never below the
        default margin."""
        m = self.cfg.motion
        return max(m.transit_clearance_margin, m.clearance_margin)

    def _first_level(self, hand: np.ndarray, levels: list[float], ignore: set[str]) -> float:
        """The highest of `levels` the palm can rise to straight up from `hand` (a far object may not be
        liftable to full cruise height); the lowest when none plans (the move then reports why)."""
        for z in levels:
            try:
                self._plan_line(np.array([hand[0], hand[1], z]), ignore, "lift")
                return z
            except PrimitiveFailure:
                continue
        return levels[-1]

    def _lift_contacts(self) -> set[str]:
        """What the hand/held object touched at the grasp, while the palm is still straight above the grasp."""
        if self._lift_clear is None:
            return set()
        name, xy, contacts = self._lift_clear
        if self.robot.held_object() != name or np.linalg.norm(self.robot.hand_position()[:2] - xy) > 0.01:
            return set()
        return contacts

    def _joint_line(self, goal: dict[str, float], ignore: set[str], what: str,
                    end_ignore: set[str] | None = None) -> list[dict[str, float]]:
        """Joint-space waypoints from the commanded posture to `goal` (same palm point, another arm posture),
        each checked for clearance (the last one with `end_ignore`, when given)."""
        return self._joint_line_from(self.robot.joint_positions(), goal, ignore, what, end_ignore)

    def _joint_line_from(self, now: dict[str, float], goal: dict[str, float], ignore: set[str],
                         what: str, end_ignore: set[str] | None = None) -> list[dict[str, float]]:
        # From the measured posture moved into the commandable ranges: a joint the last move pressed against its
        # stop would put the line's first waypoints out of range.
        now = self.robot.limits.clip({k: now[k] for k in goal})
        span = max(abs(v - now[k]) for k, v in goal.items())
        n = max(1, int(np.ceil(span / self.cfg.motion.joint_step)))
        path = []
        for i in range(1, n + 1):
            q = {k: now[k] + (v - now[k]) * i / n for k, v in goal.items()}
            hits = self.robot.clearance(q, ignore if i < n or end_ignore is None else end_ignore)
            if hits:
                raise PrimitiveFailure(FailureReason.COLLISION, f"{what}: posture change blocked by {', '.join(hits)}",
                                       self._movable(hits))
            path.append(q)
        return path

    def _touching_now(self) -> set[str]:
        return set(self.robot.clearance(self.robot.joint_positions(), set()))

    def _stow(self, arm: str) -> None:
        """Take `arm` out of the way: up to cruise height, back to the table edge, then its home joints."""
        if arm == self.robot.arm and self.robot.held_object() is None:
            hand = self.robot.hand_position()
            if hand[2] > self.table_z - 0.05:  # it is up at the table, not already tucked
                # Up as high as the arm reaches here (a far palm may not reach full cruise height), then back;
                # an empty hand leaving may turn freely (only its position matters).
                self._pose = self._pose.model_copy(update={"orientation_cost": self.cfg.motion.stow_orientation_cost})
                for z in [max(lv, hand[2]) for lv in self._cruise_levels()] + [hand[2]]:
                    try:
                        self._go(np.array([hand[0], hand[1], z]), {"table"} | self._touching_now(), "stow",
                                 exact=False)
                        self._go(np.array([self.cfg.motion.stow_x, hand[1], z]), set(), "stow", exact=False)
                        break
                    except PrimitiveFailure as f:
                        if "arm hit" in f.detail:
                            raise  # it moved and hit something: not a matter of another level
                        # unreachable or blocked at planning time: the next level; the tuck below is checked anyway
        self._tuck(self._rest_posture(arm))

    def _tuck(self, home: dict[str, float]) -> None:
        """Joint-space move to the tuck, checked for clearance: straight there if that sweeps past nothing,
        else in two stages (the forearm folds first, or the shoulder swings first), else the arm stays where
        it is (raised behind the table's edge) rather than sweep through an object."""
        now = self.robot.joint_positions()
        distal = {k: v for k, v in home.items() if "elbow" in k or "wrist" in k}
        proximal = {k: v for k, v in home.items() if k not in distal}
        blocked = []
        for stages in ([home], [distal, home], [proximal, home]):
            try:
                paths, q = [], dict(now)
                for goal in stages:
                    paths.append(self._joint_line_from(q, goal, {"table"} & self._touching_now(), "stow"))
                    q = {**q, **goal}
            except PrimitiveFailure as f:
                blocked.append(f.detail)
                continue
            for path in paths:
                # no faster than the velocity limit allows (a wrist far from home needs longer than the default)
                slowest = self.robot.limits.min_duration(self.robot.joint_positions(), path[-1]) * 1.1
                self.robot.command_path(path, max(self.cfg.motion.min_segment_s * 2, slowest))
            return
        log.info("the %s arm stays raised: every way to its tuck sweeps past an object (%s)", self.robot.arm,
                 "; ".join(blocked))

    def _select_arm(self, arm: str) -> None:
        if arm != self.robot.arm:
            other = self.robot.arm
            self._stow(other)
            self.robot.use_arm(arm)

    def _require(self, name: str) -> SceneObject:
        for o in self.objects():
            if o.name == name:
                return o
        raise PrimitiveFailure(FailureReason.OBJECT_MISSING, f"{name!r} is not in the scene")

    def _find(self, query: str | None, role: str) -> SceneObject:
        if not query:
            raise PrimitiveFailure(FailureReason.OBJECT_MISSING, f"no {role} given")
        obj = self.resolve(query)
        if obj is None or self.robot.object_pose(obj.name) is None:
            raise PrimitiveFailure(FailureReason.OBJECT_MISSING, f"no object in the scene matches {query!r}")
        return obj

    def _check_held(self, name: str) -> None:
        if self.robot.held_object() != name:
            raise PrimitiveFailure(FailureReason.SLIPPED, f"{name} is no longer in the hand")
        pos, _ = self.robot.object_pose(name)
        if np.linalg.norm(pos - self.robot.hand_position()) > 2 * self._require(name).half_height + 0.1:
            raise PrimitiveFailure(FailureReason.SLIPPED, f"{name} drifted away from the hand")

    # --- primitives ---------------------------------------------------------------------------------
    def _arm_order(self, y: float) -> list[str]:
        """The arm on the object's side first; the other as a fallback."""
        first = "left" if y >= self.cfg.motion.left_arm_min_y else "right"
        return [a for a in (first, "right" if first == "left" else "left") if a in self.cfg.arms]

    def _grasp_points(self, obj: SceneObject, top: np.ndarray, rot: np.ndarray) -> list[np.ndarray]:
        """Palm points a top grasp may close at: `grasp.clearance` above the top's centre, then, for a long
        object (a spoon, a tea box), above points along its long side(s), `grasp_end_margin` inside its end
        (a hand takes a spoon by the handle when the bowl end is crowded) and within the grasp radius."""
        up = np.array([0.0, 0.0, self.cfg.grasp.clearance])
        points = [top + up]
        if obj.extent is None:
            return points
        reach = np.sqrt(max(0.0, (self.cfg.grasp.radius + self.cfg.grasp.clearance) ** 2
                            - self.cfg.grasp.clearance ** 2)) * 0.9
        for axis, half in obj.horizontal_axes(rot):
            off = min(half - self.cfg.motion.grasp_end_margin, reach)
            if off >= self.cfg.motion.grasp_min_offset:
                d = axis * np.array([1.0, 1.0, 0.0])
                d /= max(np.linalg.norm(d), 1e-9)
                points += [top + up + off * d, top + up - off * d]
        return points

    def _poses_for(self, obj: SceneObject, arm: str) -> list[GraspPose]:
        """The configured grasp poses for `obj` and `arm`: a pose that follows the object's long axis gets
        its yaw from the object's current orientation (each end of the axis the fingers can point to,
        `motion.aligned_yaw_range` from forward toward the midline); such poses are skipped for objects without a long axis."""
        out = []
        for pose in self.cfg.motion.grasp_poses:
            if not pose.along_long_axis:
                out.append(pose)
                continue
            if obj.extent is None or self.robot.object_pose(obj.name) is None:
                continue
            _, rot = self.robot.object_pose(obj.name)
            axis, _ = max(obj.horizontal_axes(rot), key=lambda a: a[1])
            theta = float(np.degrees(np.arctan2(axis[1], axis[0])))
            lo, hi = self.cfg.motion.aligned_yaw_range
            for end in (0.0, 180.0):  # either end of the axis, if the wrist can turn the fingers that way
                world = (theta + end + pose.yaw_deg + 180.0) % 360.0 - 180.0
                # `_rotation` turns by yaw_deg toward the midline: mirrored for the left arm.
                yaw = world * (1.0 if arm == "right" else -1.0)
                if lo <= yaw <= hi:
                    out.append(pose.model_copy(update={"yaw_deg": yaw}))
        return out

    def _choose_grasp(self, obj: SceneObject, points: list[np.ndarray], ignore: set[str],
                      arms: list[str] | None = None,
                      top: np.ndarray | None = None,
                      skip: set[tuple] = frozenset()) -> tuple[str, GraspPose, np.ndarray, list[dict[str, float]]]:
        """The first (grasp point, arm, hand orientation), in a fixed rule order, for which the vertical
        descent from cruise height to the grasp point is reachable and keeps clear of every other object and
        the table; with the checked joint path of that descent (first waypoint: the posture above)."""
        current, failures = self.robot.arm, []
        cruise = self._cruise_z()
        free = ignore - {obj.name}
        reach = self.cfg.grasp.radius + self.cfg.grasp.clearance - 0.005  # where the weld (the hand) closes
        try:
            # Fixed-yaw hands at every grasp point first; hands along a long object's axis only after them.
            for base, aligned in [(b, a) for a in (False, True) for b in points]:
                for arm in arms or self._arm_order(float(base[1])):
                    self.robot.use_arm(arm)
                    for pose in [p for p in self._poses_for(obj, arm) if p.along_long_axis == aligned]:
                        # A pitched hand's fingers reach further down: its palm stays higher above the table.
                        grasp_pt = np.array([base[0], base[1], max(base[2], self.table_z + pose.min_palm_height)])
                        if top is not None and np.linalg.norm(grasp_pt - top) > reach:
                            continue  # too high above this (low) object for the hand to close on it
                        if self._grasp_key(arm, pose, grasp_pt) in skip:
                            continue  # tried already and blocked once the arm moved
                        above = np.array([grasp_pt[0], grasp_pt[1],
                                          max(cruise, grasp_pt[2] + self.cfg.motion.approach_height)])
                        pre = grasp_pt + np.array([0, 0, self.cfg.motion.approach_height])
                        self._pose = pose
                        try:
                            # The end point first: it is where a crowded grasp fails, and one IK solve says so.
                            self._plan_line(grasp_pt, ignore, "approach", start_xyz=grasp_pt)
                            # Down to the grasp the hand must not run into the object it is to take either:
                            # only at the grasp point may it touch it.
                            path = self._plan_line(above, free, "above", start_xyz=above)
                            path += self._plan_line(pre, free, "pre-grasp", path[-1], above)
                            # The last stretch closes in on the object: the fingers may touch it there.
                            path += self._plan_line(grasp_pt, ignore, "approach", path[-1], pre)
                            return arm, pose, grasp_pt, path
                        except PrimitiveFailure as f:
                            failures.append(f)
        finally:
            self.robot.use_arm(current)
        if not failures:
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"no hand pose fits {obj.name}")
        worst = next((f for f in failures if f.reason is FailureReason.COLLISION), failures[-1])
        # The neighbours that block the most candidate grasps first: moving those frees the most of them.
        blockers = [n for n, _ in Counter(b for f in failures for b in f.blockers).most_common()]
        raise PrimitiveFailure(worst.reason, f"no arm/hand pose can grasp {obj.name}: {worst.detail}", blockers)

    def _descend(self, grasp_pt: np.ndarray, checked: list[dict[str, float]], ignore: set[str]) -> None:
        """Pre-grasp and approach, planned again from the arm's actual posture after the transit; when that
        plan is blocked (the transit left the arm in another posture than grasp selection assumed), change
        posture in joint space to the checked one above the object and follow the checked descent."""
        pre = grasp_pt + np.array([0, 0, self.cfg.motion.approach_height])
        free = {n for n in ignore if n != self.robot.held_object()} - {self._grasping}
        try:
            to_pre = self._plan_line(pre, free, "pre-grasp")
            self._plan_line(grasp_pt, ignore, "approach", to_pre[-1], pre)  # checked before moving
        except PrimitiveFailure as f:
            log.debug("descent re-plan blocked (%s); following the checked one", f.detail)
            above = np.array([grasp_pt[0], grasp_pt[1], max(self._cruise_z(), pre[2])])
            if np.linalg.norm(self.robot.hand_position() - above) > 0.01:
                self._go(above, ignore, "above")
            self._follow(self._joint_line(checked[0], ignore, "above"), above, ignore, "above")
            self._follow(checked[1:], grasp_pt, ignore, "approach")
            return
        self._follow(to_pre, pre, free, "pre-grasp")
        self._guarded_approach(grasp_pt, ignore)

    def _guarded_approach(self, grasp_pt: np.ndarray, ignore: set[str]) -> None:
        """Down from the pre-grasp in `close_in_step` moves, closing the hand as soon as it can (the fingers
        resting on the object's top, or the palm in reach): a hand that kept pressing down after touching
        would push a light box over or away (a guarded move, as with the G1's fingertip contact sensing)."""
        start = self.robot.hand_position()
        steps = max(1, int(np.ceil(np.linalg.norm(grasp_pt - start) / self.cfg.motion.close_in_step)))
        obj = self._require(self._grasping) if self._grasping else None
        # Only an object that tips (tall for its footprint) is taken at the first touch; a flat one (bread)
        # just stops the hand, and a palm closer to it holds it more firmly.
        tips = obj is not None and obj.half_height >= self.cfg.motion.tip_ratio * obj.radius
        for k in range(1, steps + 1):
            point = start + (grasp_pt - start) * k / steps
            self._go(point, ignore, "approach", exact=k == steps)
            if obj is not None and self.robot.grasp(obj.name, self._finger_reach() if tips else 0.0):
                return

    def _close_in(self, obj: SceneObject, grasp_pt: np.ndarray, ignore: set[str]) -> None:
        """The palm stopped short of the grasp point (the arm lags near its reach limit): step straight down
        toward the object in small checked moves until the hand can close, giving up when a move is refused."""
        for k in range(1, self.cfg.motion.close_in_steps + 1):
            point = grasp_pt - np.array([0.0, 0.0, self.cfg.motion.close_in_step * (k - 1)])
            try:
                self._go(point, ignore, "approach", exact=False)
            except PrimitiveFailure:
                return
            if self.robot.grasp(obj.name):
                return

    def _finger_reach(self) -> float:
        """How far the current hand's fingertips reach below its palm beyond a level hand's: a pitched hand
        stopped by its fingertips on the object's top still closes on it."""
        return max(0.0, self._pose.min_palm_height - self.cfg.motion.grasp_poses[0].min_palm_height)

    def _lift(self, obj: SceneObject) -> None:
        """Straight up from the grasp to the highest cruise level that plans (else `lift_height`): the table
        and whatever the hand or object touched at the grasp are left behind by a vertical move."""
        hand = self.robot.hand_position()
        # A container's rim can hook over the fingers and come up with them: the lift test raises the object a
        # little first and fails if a neighbour rose with it; one that did not is left behind by the vertical lift.
        contacts = {"table"} | self._touching_now()
        self._lift_clear = (obj.name, hand[:2].copy(), contacts)
        self._held_rot, self._held_cost = self.robot.hand_rotation(), None
        self._lift_test(obj, hand, contacts)
        hand = self.robot.hand_position()
        heights = [z for z in self._cruise_levels() if z > hand[2] + self.cfg.motion.lift_height]
        heights.append(hand[2] + self.cfg.motion.lift_height)
        failure = None
        for z in heights:
            point = np.array([hand[0], hand[1], z])
            try:
                path = self._plan_line(point, contacts, "lift")
            except PrimitiveFailure as f:
                failure = failure or f
                continue
            self._follow(path, point, contacts, "lift")
            return
        raise failure

    def _lift_test(self, obj: SceneObject, hand: np.ndarray, contacts: set[str]) -> None:
        """Raise the object a little first and look: a neighbour caught on the fingers or wedged against the
        object rises with it. Then set the object back down, let go and report the neighbour as the blocker
        (a full lift would carry it off and drop it anywhere)."""
        def heights() -> dict[str, float]:
            return {o.name: float(self.robot.object_pose(o.name)[0][2]) for o in self.objects()
                    if o.name != obj.name and self.robot.object_pose(o.name) is not None}
        before = heights()
        point = hand + np.array([0.0, 0.0, self.cfg.motion.lift_test_height])
        self._follow(self._plan_line(point, contacts, "lift"), point, contacts, "lift", exact=False)
        risen = [n for n, z in heights().items() if z - before.get(n, z) > self.cfg.motion.lift_test_height / 3]
        if not risen:
            return
        self._follow(self._plan_line(hand, contacts | set(risen), "lift"), hand, contacts | set(risen), "lift",
                     exact=False)
        self.robot.release()
        self.robot.settle(self.cfg.motion.settle_s)
        raise PrimitiveFailure(FailureReason.COLLISION, f"lift: {', '.join(risen)} came up with {obj.name}", risen)

    @staticmethod
    def _grasp_key(arm: str, pose: GraspPose, grasp_pt: np.ndarray) -> tuple:
        return (arm, round(pose.yaw_deg, 1), round(pose.pitch_deg, 1), tuple(np.round(grasp_pt, 3).tolist()))

    def _pick(self, call: PrimitiveCall, arms: list[str] | None = None) -> None:
        """Pick, and when the chosen grasp fails once the arm is moving (the approach is stopped short by a
        neighbour the clearance check missed, the lift is blocked), put the object back if it was taken,
        take the arm out of the way and try the next grasp candidate (often the other arm)."""
        obj = self._find(call.object, "object")
        if self.robot.held_object() == obj.name:
            return None
        tried: set[tuple] = set()
        fresh_start = True  # once per pick: see below
        for attempt in range(1, self.cfg.motion.pick_attempts + 1):
            before = set(tried)
            try:
                try:
                    return self._pick_once(obj, arms, tried)
                except PrimitiveFailure as f:
                    if not (fresh_start and self._twisted_out_of_reach(f)):
                        raise
                    # Chained IK solves regularise toward the current posture: after a few far moves the arm can
                    # sit in a posture (torso turned, elbow wrapped) from which the next move does not solve.
                    # Tuck it and plan the same grasp again from the rest posture (not counted as an attempt).
                    fresh_start = False
                    log.info("pick %s: %s from the current arm posture; tucking the arm and trying again",
                             obj.name, f.detail)
                    self._stow(self.robot.arm)
                    tried.intersection_update(before)
                    return self._pick_once(obj, arms, tried)
            except PrimitiveFailure as f:
                # "no ... pose" : grasp selection itself found nothing left to try
                if (attempt == self.cfg.motion.pick_attempts or f.reason is not FailureReason.COLLISION
                        or f.detail.startswith("no ")):
                    if self.robot.held_object() == obj.name:  # giving up: do not keep what could not be lifted
                        self._back_off(obj)
                    raise
                if not self._back_off(obj):
                    raise
                log.debug("pick %s attempt %d failed (%s); trying the next grasp", obj.name, attempt, f.detail)
        return None

    def _twisted_out_of_reach(self, f: PrimitiveFailure) -> bool:
        """A move of an empty hand failed for want of an IK solution while the arm is up at the table (not
        tucked): a fresh posture may reach what this one cannot."""
        return (f.ik_miss and self.robot.held_object() is None
                and self.robot.hand_position()[0] > self.cfg.motion.stow_x + 0.02)

    def _back_off(self, obj: SceneObject) -> bool:
        """After a failed grasp: let go of `obj` where it is and stow the arm; False when the object no longer
        stands upright (nothing more to try) or the arm cannot get away."""
        if self.robot.held_object() == obj.name:
            self.robot.release()
            self.robot.settle(self.cfg.motion.settle_s)
        if self.robot.held_object() is not None:
            return False
        self._lift_clear, self._held_rot = None, None
        try:
            self._stow(self.robot.arm)
        except PrimitiveFailure:
            return False
        pose = self.robot.object_pose(obj.name)
        return pose is not None and obj.graspable(pose[1])

    def _pick_once(self, obj: SceneObject, arms: list[str] | None, tried: set[tuple]) -> None:
        held = self.robot.held_object()
        if held:
            raise PrimitiveFailure(FailureReason.NOT_ALLOWED, f"hand already holds {held}")
        pos, rot = self.robot.object_pose(obj.name)
        if not obj.graspable(rot):
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"{obj.name} is lying over; top grasp impossible")
        self._origin[obj.name] = pos.copy()
        if not obj.upright(rot):  # a box knocked onto a side is taken from the top as it lies (and set down so)
            self._lying.add(obj.name)
        top = pos + np.array([0, 0, obj.half_up(rot)])
        ignore = {obj.name}
        arm, pose, grasp_pt, checked = self._choose_grasp(obj, self._grasp_points(obj, top, rot), ignore, arms, top,
                                                          tried)
        tried.add(self._grasp_key(arm, pose, grasp_pt))
        self._select_arm(arm)
        self._pose = pose
        self._grasping = obj.name
        self._transit(grasp_pt[:2], ignore, grasp_pt[2] + self.cfg.motion.approach_height)  # above the object
        try:
            self._descend(grasp_pt, checked, ignore)                               # pre-grasp, approach
        except PrimitiveFailure as f:
            # Fingers resting on the object stop the palm a little short: close the hand there if it is in reach.
            if f.stopped_short != "approach" or not self.robot.grasp(obj.name):
                raise
        if self.robot.held_object() != obj.name and not self.robot.grasp(obj.name):
            self._close_in(obj, grasp_pt, ignore)
        if self.robot.held_object() != obj.name and not self.robot.grasp(obj.name, self._finger_reach()):  # grasp
            gap = np.linalg.norm(self.robot.hand_position() - top)
            # Whatever the hand rests on instead is what kept it from the object.
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"palm stayed {gap * 100:.1f} cm from {obj.name}",
                                   self._movable(self._touching_now() - {obj.name}))
        self._lift(obj)                                                              # lift
        self._check_held(obj.name)
        start = self._origin[obj.name]
        now, _ = self.robot.object_pose(obj.name)
        if now[2] < start[2] + 0.5 * self.cfg.motion.lift_height:
            raise PrimitiveFailure(FailureReason.SLIPPED, f"{obj.name} did not come up with the hand")
        return None

    def _held_half_up(self, obj: SceneObject) -> float:
        """Half the vertical extent of `obj` as it hangs now (a box taken lying keeps lying in the hand)."""
        pose = self.robot.object_pose(obj.name)
        return obj.half_height if pose is None else obj.half_up(pose[1])

    def _fell_over(self, obj: SceneObject, rot: np.ndarray) -> bool:
        """Knocked over by the move just made: not standing, though it stood when it was picked."""
        return not obj.upright(rot) and obj.name not in self._lying

    def _ensure_held(self, name: str | None) -> SceneObject:
        obj = self._find(name, "object")
        if self.robot.held_object() != obj.name:
            self._pick(PrimitiveCall(primitive=Primitive.PICK, object=obj.name))
        return obj

    def _target_point(self, target: str, relation: str | None,
                      obj: SceneObject | None = None) -> tuple[np.ndarray, float, str | None, float]:
        """(xy-z point on which the object's bottom should land, tolerance, receptacle name, receptacle radius)."""
        region = self.regions.get(target.lower())
        if region is not None:
            return np.array([region[0], region[1], self.table_z]), self.cfg.motion.place_tolerance, None, 0.0
        t = " ".join(target.lower().split())
        beside = _BESIDE.match(t)
        if t in TABLE_WORDS or beside:
            if obj is None:
                raise PrimitiveFailure(FailureReason.OBJECT_MISSING, "say which region of the table")
            ring, keep = 0.0, {obj.name}
            if beside:
                ref = self._find(beside.group(1), "reference")
                near = np.asarray(self.robot.object_pose(ref.name)[0][:2], float)
                ring = ref.radius + obj.radius + self.cfg.motion.beside_gap
                keep |= {ref.name} | self._inside(ref)
                spots = self._table_spots(obj, near, min_dist=ring)
            else:  # anywhere on the table: in the work area if the scene names one and it has room, else back
                origin = self._origin.get(obj.name)  # where it came from (free: it was just taken from there)
                work = self._table_put_point()
                spots = []
                for near in [p[:2] for p in (work, origin) if p is not None] or [self.robot.hand_position()[:2]]:
                    spots = self._table_spots(obj, near)
                    if spots:
                        break
            if not spots:
                # The neighbours standing where the object would go (on the ring beside the reference, or at the
                # wanted point), closest first: setting one aside makes room. Never the reference or its contents.
                crowd = sorted((o for o in self.objects() if o.name not in keep and self.robot.object_pose(o.name)
                                is not None),
                               key=lambda o: abs(float(np.linalg.norm(self.robot.object_pose(o.name)[0][:2] - near)) - ring))
                raise PrimitiveFailure(FailureReason.UNREACHABLE, f"no free table spot for {obj.name} near "
                                       f"{np.round(near, 2).tolist()}", [o.name for o in crowd[:3]])
            self._spots = spots
            return np.array([spots[0][0], spots[0][1], self.table_z]), self.cfg.motion.place_tolerance, None, 0.0
        rec = self._find(target, "target")
        pos, _ = self.robot.object_pose(rec.name)
        rim = pos[2] + rec.half_height
        # 'on' a container (a bowl, a cup) means into it: the plan's wording often says "put X on the bowl".
        into = relation == "in" or rec.container
        tol = max(self.cfg.motion.place_tolerance, rec.radius * 0.8) if into else self.cfg.motion.place_tolerance
        return np.array([pos[0], pos[1], rim]), tol, rec.name, rec.radius

    def _table_put_point(self) -> np.ndarray | None:
        """The work area 'on the table' means when no place is named (`motion.table_put_region`), if the scene has it."""
        return self.regions.get((self.cfg.motion.table_put_region or "").lower())

    def _table_spots(self, obj: SceneObject, near: np.ndarray, min_dist: float = 0.0) -> list[np.ndarray]:
        """Free table points (every other object at least `beside_gap` away, edge to edge) within
        `table_spot_radius` of `near` and at least `min_dist` from it, nearest first."""
        m = self.cfg.motion
        others = self._footprints(obj.name)
        r = np.arange(-m.table_spot_radius, m.table_spot_radius + 1e-9, m.table_spot_step)
        cands = [near + np.array([dx, dy]) for dx in r for dy in r]
        if min_dist > 0:  # beside: also the ring itself, so the closest spot is really next to it
            cands += [near + min_dist * np.array([np.cos(a), np.sin(a)]) for a in np.linspace(0, 2 * np.pi, 16, endpoint=False)]
        # On the table and within comfortable reach (the workspace box reaches past the table's edge).
        lo, hi = np.array(m.table_zone[0]), np.array(m.table_zone[1])
        # 'next to' means adjacent: at most `beside_reach` further out than touching distance.
        far = min_dist + m.beside_reach if min_dist > 0 else np.inf
        free = [c for c in cands if min_dist - 1e-9 <= np.linalg.norm(c - near) <= far and np.all(c >= lo) and np.all(c <= hi)
                and all(np.linalg.norm(c - p) >= rad + obj.radius + m.beside_gap for p, rad in others)]
        free.sort(key=lambda c: (round(float(np.linalg.norm(c - near)), 4), float(c[0]), float(c[1])))
        return free[: m.table_spot_tries]

    def _lower(self, point: np.ndarray, ignore: set[str], held: str, container: str | None) -> None:
        """Lower the held object to `point`; into `container`, stopping short on its contents is fine."""
        try:
            self._go(point, ignore, "lower")
        except PrimitiveFailure as f:
            if not (container and f.stopped_short == "lower" and self._over(container, held)):
                raise

    def _inside(self, container: SceneObject) -> set[str]:
        """Names of the objects above `container`'s footprint (what lies in it); empty for a non-container."""
        if not container.container or self.robot.object_pose(container.name) is None:
            return set()
        return {o.name for o in self.objects() if o.name != container.name
                and self.robot.object_pose(o.name) is not None and self._over(container.name, o.name)}

    def _over(self, container: str, name: str) -> bool:
        """Whether `name`'s centre is above `container`'s footprint."""
        cpos, _ = self.robot.object_pose(container)
        pos, _ = self.robot.object_pose(name)
        return bool(np.hypot(*(pos[:2] - cpos[:2])) < self._require(container).radius)

    def _contents(self, container: str, held: str) -> list[tuple[np.ndarray, float]]:
        """(position, top z) of every object lying in `container` (centre within its footprint, resting above
        the table)."""
        rec = self._require(container)
        cpos, _ = self.robot.object_pose(container)
        out = []
        for o in self.objects():
            pose = self.robot.object_pose(o.name) if o.name not in (container, held) else None
            if pose is None:
                continue
            pos, rot = pose
            halves = np.array([*(o.extent or (o.radius, o.radius)), o.half_height])
            top = float(pos[2] + np.abs(rot[2, :]) @ halves)  # highest point of the (possibly tilted) box
            if np.hypot(*(pos[:2] - cpos[:2])) < rec.radius and pos[2] - o.half_height > self.table_z + 0.004:
                out.append((pos, top))
        return out

    def _release_point(self, obj: SceneObject, goal: np.ndarray, ignore: set[str],
                       slack: float = 0.0, receptacle: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(palm point where the held object's bottom is just above the landing point, landing point), after checking that the current arm can lower it there without touching
        anything else. The landing point is `goal`, else one shifted by `slack` toward each side (a neighbour
        may crowd one side of a bowl)."""
        hang = self.robot.hand_position() - self.robot.object_pose(obj.name)[0]
        shifts = [np.zeros(3)] + [slack * np.array([np.cos(a), np.sin(a), 0.0])
                                  for a in np.linspace(0, 2 * np.pi, 8, endpoint=False)] if slack > 0 else [np.zeros(3)]
        container = bool(receptacle and self._require(receptacle).container)
        # Into an empty container: just above the rim first, then from a little higher when a neighbour
        # blocks the lowering (the held object falls the last few cm into it).
        drops = [0.0] + (list(self.cfg.motion.container_drops[1:]) if container else [])
        inside = self._contents(receptacle, obj.name) if container else []
        if inside:
            # Something already lies in the container: aim at its free part (away from the contents first)
            # and let go above whatever is in there, dropping from a little higher when that is still blocked
            # (a small object falling a few cm into a bowl ends up in it all the same).
            away = lambda s: -min(float(np.linalg.norm(goal[:2] + s[:2] - p[:2])) for p, _ in inside)
            shifts.sort(key=away)
            above_rim = max(0.0, max(top for _, top in inside) - goal[2])
            drops = [above_rim + d for d in self.cfg.motion.container_drops]
        failure = None
        for drop, shift in [(d, s) for d in drops for s in shifts]:
            land = goal + shift + np.array([0.0, 0.0, drop])
            release = land + np.array([0, 0, self._held_half_up(obj) + self.cfg.motion.release_gap]) + hang
            for z in self._cruise_levels():
                above = np.array([release[0], release[1], z])
                try:
                    # The carry may re-posture to get there (see _transit): probe with a fresh posture too.
                    q_above = self._plan_line(above, ignore, "carry", start_xyz=above, fresh=True)[-1]
                    self._plan_line(release, ignore, "lower", q_above, above)
                    return release, land
                except PrimitiveFailure as f:
                    failure = failure or f
        raise failure

    def _cruise_levels(self) -> list[float]:
        """Cruise height, then two lower ones for far targets the arm cannot reach that high (the
        clearance check decides whether a lower one is still clear)."""
        z = self._cruise_z()
        return [z, z - 0.05, z - 0.10]

    def _resting_on_table(self, obj: SceneObject) -> bool:
        pose = self.robot.object_pose(obj.name)
        if pose is None or self.robot.held_object() == obj.name:
            return False
        pos, rot = pose
        return abs(pos[2] - obj.half_height - self.table_z) < 0.01 and rot[2, 2] > 0.9

    def _place(self, call: PrimitiveCall) -> float:
        found = self._find(call.object, "object")
        if " ".join((call.target or "").lower().split()) in TABLE_WORDS and self._resting_on_table(found):
            return 0.0  # 'put it on the table' and it already stands there (a pour puts the bottle back)
        obj = self._ensure_held(call.object)
        self._spots: list[np.ndarray] = []
        goal, tol, receptacle, _ = self._target_point(call.target or "", call.relation, obj)
        target_xy = goal[:2].copy()  # the error is always measured against the target's centre
        if receptacle == obj.name:
            raise PrimitiveFailure(FailureReason.NOT_ALLOWED, "cannot place an object in itself")
        ignore = {obj.name} | ({receptacle} if receptacle else set())
        if receptacle is None:
            ignore.add("table")  # putting it down on the table: the object's bottom meets the table
        slack = max(0.0, tol - self.cfg.motion.place_tolerance * 0.5)
        try:
            release, goal = self._release_point(obj, goal, ignore, slack, receptacle)
        except PrimitiveFailure as first:
            try:  # a free table spot this arm cannot lower onto: the next free one
                release, goal, target_xy = self._next_table_spot(obj, self._spots[1:], ignore, slack, first)
            except PrimitiveFailure:
                if not self._hand_off(obj):
                    raise first from None
                release, goal = self._release_point(obj, goal, ignore, slack, receptacle)
        spots = [s for s in self._spots if np.linalg.norm(s - target_xy) > 1e-6]
        # Into a container: the held object coming to rest on what is already in it stops the hand a little
        # short; letting go there still drops it into the container (checked below).
        into = bool(receptacle and (call.relation == "in" or self._require(receptacle).container))
        handed = False
        while True:
            try:
                self._transit(release[:2], ignore, release[2] + self.cfg.motion.approach_height)  # carry
            except PrimitiveFailure as f:
                if self._stopped_reaching_across(f, release) and not handed:
                    # Nothing hit, yet the hand stopped short on the far side of the body: the arm presses into
                    # its own torso there (the IK knows no self-collision). The other arm takes the object over.
                    if not self._hand_off(obj):
                        raise
                    handed = True
                    release, goal = self._release_point(obj, goal, ignore, slack, receptacle)
                    continue
                if f.reason is not FailureReason.UNREACHABLE:
                    raise
                if not spots:
                    # The release point plans, but this arm cannot carry the object there from where it holds
                    # it (a container at the far side of the table): the other arm takes it over, once.
                    if handed or not self._hand_off(obj):
                        raise
                    handed = True
                    release, goal = self._release_point(obj, goal, ignore, slack, receptacle)
                    continue
                # A table spot the arm cannot carry to at any cruise level: the next free spot, if any.
                release, goal, target_xy = self._next_table_spot(obj, spots, ignore, slack, f)
                continue
            try:
                self._lower_onto(obj, release, goal, ignore, receptacle if into else None)
                break
            except PrimitiveFailure as f:
                # Over the spot the object hangs differently than planned (the carry turned the hand), or the
                # fingers meet a neighbour on the way down: on the table, lift again and take the next free spot.
                if receptacle is not None or not spots or "arm hit" in f.detail or self.robot.held_object() != obj.name:
                    raise
                log.info("place %s: %s; trying the next free spot", obj.name, f.detail)
                release, goal, target_xy = self._next_table_spot(obj, spots, ignore, slack, f)
        self._check_held(obj.name)
        self.robot.release()                                                          # release
        self.robot.settle(self.cfg.motion.settle_s)
        self._retract(ignore | {"table"} | self._touching_now())                           # retract
        self.robot.settle(self.cfg.motion.settle_s)
        pos, rot = self.robot.object_pose(obj.name)
        err = float(np.hypot(pos[0] - target_xy[0], pos[1] - target_xy[1]))
        if err > tol:
            raise PrimitiveFailure(FailureReason.POSTCONDITION, f"{obj.name} landed {err * 100:.1f} cm from target")
        if self._fell_over(obj, rot) and not into:
            raise PrimitiveFailure(FailureReason.POSTCONDITION, f"{obj.name} fell over")
        return err

    def _stopped_reaching_across(self, f: PrimitiveFailure, point: np.ndarray) -> bool:
        """`f` says the hand stopped short with nothing hit while carrying toward `point` on the other arm's
        side of the body."""
        return (f.stopped_short is not None and not f.blockers
                and self._arm_order(float(point[1]))[0] != self.robot.arm)

    def _next_table_spot(self, obj: SceneObject, spots: list[np.ndarray], ignore: set[str], slack: float,
                         failure: PrimitiveFailure) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(release, landing point, spot) of the first of the remaining `spots` the arm can lower onto
        (each tried is taken off the list); `failure` is raised when none is left."""
        while spots:
            spot = spots.pop(0)
            try:
                release, goal = self._release_point(obj, np.array([spot[0], spot[1], self.table_z]), ignore, slack)
                return release, goal, spot.copy()
            except PrimitiveFailure:
                continue
        raise failure

    def _lower_onto(self, obj: SceneObject, release: np.ndarray, goal: np.ndarray, ignore: set[str],
                    container: str | None) -> None:
        """From above the release point, lower the held object until it is just above `goal` (its landing
        point), aiming the object itself there."""
        self._check_held(obj.name)
        if self._held_cost is not None:
            # After a relaxed carry the hand keeps the orientation it arrived with: letting it turn on the way
            # down would swing the object off the goal the lowering aims it at.
            self._held_rot, self._held_cost = self.robot.hand_rotation(), None
        above = release + [0, 0, self.cfg.motion.approach_height]
        self._lower(above, ignore, obj.name, container)
        # Correct for hand-orientation drift during the carry (a relaxed or re-postured carry turns the hand, so
        # the object hangs differently than at planning): aim the object itself at the goal, height included.
        pos, _ = self.robot.object_pose(obj.name)
        hung = goal[2] + self._held_half_up(obj) + self.cfg.motion.release_gap + (above[2] - pos[2])
        fix = np.array([goal[0] - pos[0], goal[1] - pos[1], min(0.0, hung - release[2])])
        ws = self.robot.limits.config.workspace
        self._lower(np.clip(release + fix, ws.min, ws.max), ignore, obj.name, container)

    def _handoff_spots(self, obj: SceneObject) -> list[np.ndarray]:
        """Free table spots (`handoff_gap` clear of everything) where one arm can set `obj` down for the other:
        the roomiest in the hand-off zone (both arms reach it comfortably) first; on a crowded table also the
        free spots of the table zone, nearest the hand-off zone first."""
        m = self.cfg.motion
        others = self._footprints(obj.name)

        def gap(c: np.ndarray) -> float:
            return self._edge_gap(c, obj.radius, others)

        step = m.table_spot_step / 2
        inner = sorted((c for c in self._grid(m.handoff_zone, step) if gap(c) >= m.handoff_gap), key=lambda c: -gap(c))
        centre = (np.array(m.handoff_zone[0]) + np.array(m.handoff_zone[1])) / 2
        outer = sorted((c for c in self._grid(m.table_zone, step) if gap(c) >= m.handoff_gap),
                       key=lambda c: float(np.linalg.norm(c - centre)))
        return (inner[:1] + outer)[: m.handoff_tries]

    def _hand_off(self, obj: SceneObject) -> bool:
        """The held object cannot be brought to its goal by this arm: put it down where both arms reach and
        pick it up with the other arm. False when there is no other arm or no spot to put it down on."""
        other = [a for a in self.cfg.arms if a != self.robot.arm]
        if not other:
            return False
        spots = self._handoff_spots(obj)
        if not spots:
            return False
        log.info("handing %s over from the %s to the %s arm", obj.name, self.robot.arm, other[0])
        try:
            self._set_down_on_first(obj, spots)
        except PrimitiveFailure as f:
            if self.robot.held_object() != obj.name:
                raise
            log.info("could not put %s down for the hand-off: %s", obj.name, f.detail)
            return False
        self.robot.settle(self.cfg.motion.settle_s)
        # Only the other arm: by the object's side the rule would choose the same arm again.
        self._pick(PrimitiveCall(primitive=Primitive.PICK, object=obj.name), arms=other)
        return True

    def _pour(self, call: PrimitiveCall) -> None:
        obj = self._ensure_held(call.object)
        cup = self._find(call.target, "container")
        try:
            self._pour_with_this_arm(obj, cup)
        except PrimitiveFailure as f:
            # The cup stands where the arm cannot hold the bottle over it with the wrist free to roll (at the
            # table's far edge): as a person would, set the bottle down, bring the cup as near the work area in
            # front of the robot as the table has room for, take the bottle again (a fresh grasp, often with
            # more wrist roll left) and pour there.
            origin = self._origin.get(obj.name)
            weak_tilt = f.reason is FailureReason.POSTCONDITION and f.detail.startswith(f"{obj.name} tilted only")
            if (not (f.reason is FailureReason.UNREACHABLE or weak_tilt) or self.robot.held_object() != obj.name
                    or origin is None):
                raise
            spots = self._pour_spots(cup, obj)
            if not spots:
                raise
            log.info("pour: %s; bringing %s closer first", f.detail, cup.name)
            self._put_back_near(obj, origin[:2])
            self._pick(PrimitiveCall(primitive=Primitive.PICK, object=cup.name))
            self._set_down_on_first(cup, spots)
            self._ensure_held(obj.name)
            self._pour_with_this_arm(obj, cup)
        origin = self._origin.get(obj.name)
        if origin is not None:  # put the bottle back where it came from (else on a free spot next to it)
            self._put_back_near(obj, origin[:2])

    def _pour_spots(self, cup: SceneObject, bottle: SceneObject) -> list[np.ndarray]:
        """Free table spots for `cup` (`aside_gap` around it) with room on one side for `bottle` held over its
        rim, nearest the work area first (`motion.table_put_region`)."""
        work = self._table_put_point()
        if work is None:
            return []
        m = self.cfg.motion
        others = self._footprints(cup.name, bottle.name)
        # The pour holds the bottle beside the cup (left or right of it, as `_pour_with_this_arm` does).
        side = np.array([0.0, cup.radius + bottle.radius + 0.01])
        spots = [c for c in self._grid(m.table_zone, m.table_spot_step)
                 if self._edge_gap(c, cup.radius, others) >= m.aside_gap
                 and max(self._edge_gap(c + side, bottle.radius, others),
                         self._edge_gap(c - side, bottle.radius, others)) >= m.aside_gap]
        spots.sort(key=lambda c: float(np.linalg.norm(c - work[:2])))
        return spots[: m.table_spot_tries]

    def _put_back_near(self, obj: SceneObject, xy: np.ndarray) -> None:
        """Put the held `obj` down at `xy`, or on the nearest free table spot the arm can lower it onto (the
        hand holding it after a pour may meet a neighbour of the spot it came from)."""
        self._set_down_on_first(obj, [np.asarray(xy)] + self._table_spots(obj, np.asarray(xy)))

    def _set_down_on_first(self, obj: SceneObject, spots: list[np.ndarray]) -> None:
        """Put the held `obj` down on the first of `spots` the arm can lower it onto."""
        failure = None
        for spot in spots:
            try:
                self._put_down_at(obj, spot)
                return
            except PrimitiveFailure as f:
                failure = failure or f
                if self.robot.held_object() != obj.name:
                    raise
        raise failure

    def _pour_with_this_arm(self, obj: SceneObject, cup: SceneObject) -> None:
        """Bring the held `obj` over `cup` and tip it with the active arm (the bottle stays in the hand)."""
        cpos, _ = self.robot.object_pose(cup.name)
        hang = self.robot.hand_position() - self.robot.object_pose(obj.name)[0]
        roll = f"{self.robot.arm}_wrist_roll_joint"
        lo, hi = self.robot.limits.ranges.get(roll, (-np.inf, np.inf))
        margin = self.robot.limits.config.position_margin
        # Hold the bottle beside the cup, mouth over the rim, then roll the wrist. When the wrist cannot roll
        # that far from the grasp's orientation, pour from the cup's other side, rolling the other way.
        # Each side of the cup at each pour height in turn: a cup near the table's edge may be out of reach
        # (or its wrist roll out of range) from one side or at the highest pose.
        sign, first = 0.0, None
        # First arriving at the pour height or above it; only then also from lower carry levels.
        tries = [(h, f, r) for h in (True, False) for f in (1.0, -1.0) for r in self.cfg.motion.pour_heights]
        for high, flip, rise in tries:
            side = np.array([0.0, -flip * (cup.radius + obj.radius + 0.01), 0.0])
            above = cpos + side + np.array([0, 0, cup.half_height + obj.half_height + rise])
            try:
                self._transit(above[:2] + hang[:2], {obj.name, cup.name}, above[2] + hang[2] if high else 0.0)
                self._go(above + hang, {obj.name, cup.name}, "pour pose")
            except PrimitiveFailure as f:
                if f.reason is not FailureReason.UNREACHABLE and "arm hit" in f.detail:
                    raise  # something was hit: not a matter of another pose
                first = first or f
                continue
            q = self.robot.joint_positions()
            sign = (1.0 if self.robot.arm == "right" else -1.0) * flip
            # As far as the wrist rolls that way, up to pour_angle; at least pour_min_angle tips the bottle
            # enough to pour (the postcondition checks the tilt the bottle really reached).
            room = (hi - margin - q[roll]) if sign > 0 else (q[roll] - lo - margin)
            angle = min(self.cfg.motion.pour_angle, room)
            if angle >= self.cfg.motion.pour_min_angle:
                break
            log.debug("pour from side %+.0f: the %s wrist rolls only %.2f rad that way (roll %.2f in [%.2f, %.2f])",
                      flip, self.robot.arm, room, q[roll], lo, hi)
            sign = 0.0
        if sign == 0.0:
            if first is not None:
                raise first
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"the wrist cannot roll {obj.name} over {cup.name} "
                                   f"from either side")
        def tilt() -> float:
            self.robot.settle(self.cfg.motion.pour_hold_s)
            _, rot = self.robot.object_pose(obj.name)
            return float(np.degrees(np.arccos(np.clip(rot[2, 2], -1, 1))))

        self.robot.command({roll: q[roll] + sign * angle})
        tilt_max = tilt()
        pitch = f"{self.robot.arm}_wrist_pitch_joint"
        if tilt_max < 45.0 and pitch in self.robot.limits.ranges:
            # The roll alone left the bottle short of pouring (a pitched grasp turns it about a slanted axis):
            # bend the wrist as well, whichever way tips it further, within the joint's range.
            plo, phi = self.robot.limits.ranges[pitch]
            for bend in (self.cfg.motion.pour_wrist_bend, -self.cfg.motion.pour_wrist_bend):
                goal = float(np.clip(q[pitch] + bend, plo + margin, phi - margin))
                self.robot.command({pitch: goal})
                tilt_max = max(tilt_max, tilt())
                if tilt_max >= 45.0:
                    break
            self.robot.command({pitch: q[pitch]})
            self.robot.settle(self.cfg.motion.settle_s)
        self.robot.command({roll: q[roll]})
        self._check_held(obj.name)
        if tilt_max < 45.0:
            raise PrimitiveFailure(FailureReason.POSTCONDITION, f"{obj.name} tilted only {tilt_max:.0f} deg")

    def _put_down_at(self, obj: SceneObject, xy: np.ndarray) -> None:
        hang = self.robot.hand_position() - self.robot.object_pose(obj.name)[0]
        ignore = {obj.name, "table"}
        self._transit(xy + hang[:2], {obj.name})
        # A carry that had to let the hand turn arrives with the object hanging differently: aim from here.
        hang = self.robot.hand_position() - self.robot.object_pose(obj.name)[0]
        centre = np.array([xy[0], xy[1], self.table_z + self._held_half_up(obj) + self.cfg.motion.release_gap])
        self._go(centre + hang, ignore, "lower")
        self.robot.release()
        self.robot.settle(self.cfg.motion.settle_s)
        self._retract(ignore)

    def _retract(self, ignore: set[str]) -> None:
        """Straight up off what the hand just let go of: `approach_height` if the arm reaches that high here,
        else as high as it does (at the edge of its reach a released object must not fail the step)."""
        hand, up = self.robot.hand_position(), self.cfg.motion.approach_height
        for rise in (up, up / 2, self.cfg.motion.lift_test_height):
            try:
                self._go(hand + [0.0, 0.0, rise], ignore, "retract")
                return
            except PrimitiveFailure as f:
                if f.reason is not FailureReason.UNREACHABLE or rise == self.cfg.motion.lift_test_height:
                    raise

    def _give(self, call: PrimitiveCall) -> float:
        obj = self._ensure_held(call.object)
        person = self.regions.get("person")
        if person is None:
            raise PrimitiveFailure(FailureReason.OBJECT_MISSING, "the scene has no 'person' region to hand over to")
        return self._place(PrimitiveCall(primitive=Primitive.PLACE, object=obj.name, target="person",
                                         relation="on"))

    def _move_to(self, call: PrimitiveCall) -> float:
        name = (call.target or "").lower()
        if name in self.regions:
            goal = self.regions[name]
        else:
            obj = self._find(call.target, "region")
            pos, _ = self.robot.object_pose(obj.name)
            goal = np.array([pos[0], pos[1], self._cruise_z()])
        try:
            self._transit(goal[:2], set())
            self._go(goal, set(), "move_to")
        except PrimitiveFailure as f:
            # Chained IK solves can leave the arm in a twisted posture (the torso turned far sideways) from which
            # a point near the body is out of reach: an empty hand tucks and goes again from a fresh posture.
            if self.robot.held_object() is not None or "arm hit" in f.detail:
                raise
            log.info("move_to %s: %s; tucking the arm and trying again", name, f.detail)
            self._stow(self.robot.arm)
            self._transit(goal[:2], set())
            self._go(goal, set(), "move_to")
        return float(np.linalg.norm(self.robot.hand_position() - goal))
