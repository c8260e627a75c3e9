"""The rule-based primitive controller: plan step → primitive → Cartesian waypoints (pre-grasp, approach,
grasp, lift, carry, lower, release, retract) → IK → limit-checked joint commands on a `Robot`. Each primitive
checks its postcondition in the robot's state and returns success or a failure with a reason."""
from __future__ import annotations

import logging
import re
import time
from enum import Enum

import numpy as np
from pydantic import BaseModel, ConfigDict

from memora_core.robot.limits import EStopActive, LimitViolation
from memora_core.robot.primitives import Primitive, PrimitiveCall, UnknownPrimitive, parse_step
from memora_core.robot.robot import Robot, SceneObject
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


class PrimitiveFailure(Exception):
    def __init__(self, reason: FailureReason, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


_TOKEN = re.compile(r"[a-z0-9]+")
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

    # --- names ---------------------------------------------------------------------------------------
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
        try:
            err = handlers[call.primitive](call)
            return StepResult(**base, success=True, placement_error_m=err)
        except PrimitiveFailure as f:
            log.info("step %d %s failed: %s (%s)", index, call.primitive.value, f.reason.value, f.detail)
            return StepResult(**base, success=False, reason=f.reason, detail=f.detail)
        except EStopActive as exc:
            return StepResult(**base, success=False, reason=FailureReason.ESTOP, detail=str(exc))
        except LimitViolation as exc:
            return StepResult(**base, success=False, reason=FailureReason.NOT_ALLOWED, detail=str(exc))

    # --- motion building blocks --------------------------------------------------------------------
    def _cruise_z(self) -> float:
        """Palm height for transit: clear of the tallest object, plus what hangs below the hand."""
        held = self.robot.held_object()
        below = 0.0
        if held:
            o = self._require(held)
            below = 2 * o.half_height + self.cfg.grasp.clearance
        return self.table_z + max(self.tallest + self.cfg.grasp.clearance + 0.04,
                                  self.cfg.motion.lift_height + below)

    def _go(self, point: np.ndarray, ignore: set[str] | None = None, what: str = "waypoint") -> None:
        point = np.asarray(point, float)
        try:
            self.robot.limits.check_workspace(point)
        except LimitViolation as exc:
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"{what}: {exc}") from exc
        q, err = self.robot.solve_ik(point)
        if err > self.cfg.ik.tolerance:
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"{what} {np.round(point, 3).tolist()}: IK residual "
                                   f"{err * 100:.1f} cm > {self.cfg.ik.tolerance * 100:.1f} cm")
        dist = float(np.linalg.norm(point - self.robot.hand_position()))
        duration = max(self.cfg.motion.min_segment_s, dist / self.cfg.motion.speed,
                       self.robot.limits.min_duration(self.robot.joint_positions(), q) * 1.1)
        report = self.robot.command(q, duration)
        if report.stopped_by_estop:
            raise EStopActive("e-stop engaged during motion")
        hits = set(report.collisions) - (ignore or set())
        if hits:
            raise PrimitiveFailure(FailureReason.COLLISION, f"{what}: arm hit {', '.join(sorted(hits))}")
        gap = float(np.linalg.norm(self.robot.hand_position() - point))
        if gap > 3 * self.cfg.ik.tolerance:  # IK said yes but the arm did not get there: something blocks it
            raise PrimitiveFailure(FailureReason.COLLISION, f"{what}: hand blocked {gap * 100:.1f} cm short")

    def _transit(self, above_xy: np.ndarray, ignore: set[str]) -> None:
        """Rise to cruise height, travel level, arriving above `above_xy`."""
        hand = self.robot.hand_position()
        z = self._cruise_z()
        ready = self.regions.get("home")
        if ready is not None and hand[0] < ready[0] - 0.05:
            self._go(np.array([ready[0], ready[1], max(ready[2], z)]), ignore, "ready")
            hand = self.robot.hand_position()
        if hand[2] < z - 0.02:
            self._go(np.array([hand[0], hand[1], z]), ignore, "lift")
        self._go(np.array([above_xy[0], above_xy[1], z]), ignore, "carry")

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
    def _pick(self, call: PrimitiveCall) -> None:
        obj = self._find(call.object, "object")
        held = self.robot.held_object()
        if held == obj.name:
            return None
        if held:
            raise PrimitiveFailure(FailureReason.NOT_ALLOWED, f"hand already holds {held}")
        pos, rot = self.robot.object_pose(obj.name)
        if rot[2, 2] < 0.7:
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"{obj.name} is lying over; top grasp impossible")
        self._origin[obj.name] = pos.copy()
        top = pos + np.array([0, 0, obj.half_height])
        grasp_pt = top + np.array([0, 0, self.cfg.grasp.clearance])
        ignore = {obj.name}
        self._transit(grasp_pt[:2], ignore)                                        # pre-grasp (above)
        self._go(grasp_pt + [0, 0, self.cfg.motion.approach_height], ignore, "pre-grasp")
        self._go(grasp_pt, ignore, "approach")                                       # approach
        if not self.robot.grasp(obj.name):                                           # grasp
            gap = np.linalg.norm(self.robot.hand_position() - top)
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"palm stayed {gap * 100:.1f} cm from {obj.name}")
        self._go(self.robot.hand_position() + [0, 0, self.cfg.motion.lift_height], set(), "lift")  # lift
        self._check_held(obj.name)
        start = self._origin[obj.name]
        now, _ = self.robot.object_pose(obj.name)
        if now[2] < start[2] + 0.5 * self.cfg.motion.lift_height:
            raise PrimitiveFailure(FailureReason.SLIPPED, f"{obj.name} did not come up with the hand")
        return None

    def _ensure_held(self, name: str | None) -> SceneObject:
        obj = self._find(name, "object")
        if self.robot.held_object() != obj.name:
            self._pick(PrimitiveCall(primitive=Primitive.PICK, object=obj.name))
        return obj

    def _target_point(self, target: str, relation: str | None) -> tuple[np.ndarray, float, str | None, float]:
        """(xy-z point on which the object's bottom should land, tolerance, receptacle name, receptacle radius)."""
        region = self.regions.get(target.lower())
        if region is not None:
            return np.array([region[0], region[1], self.table_z]), self.cfg.motion.place_tolerance, None, 0.0
        if target.lower() in ("table", "counter", "the table"):
            raise PrimitiveFailure(FailureReason.OBJECT_MISSING, "say which region of the table")
        rec = self._find(target, "target")
        pos, _ = self.robot.object_pose(rec.name)
        rim = pos[2] + rec.half_height
        tol = max(self.cfg.motion.place_tolerance, rec.radius * 0.8) if relation == "in" else self.cfg.motion.place_tolerance
        return np.array([pos[0], pos[1], rim]), tol, rec.name, rec.radius

    def _place(self, call: PrimitiveCall) -> float:
        obj = self._ensure_held(call.object)
        goal, tol, receptacle, _ = self._target_point(call.target or "", call.relation)
        if receptacle == obj.name:
            raise PrimitiveFailure(FailureReason.NOT_ALLOWED, "cannot place an object in itself")
        ignore = {obj.name} | ({receptacle} if receptacle else set())
        hang = self.robot.hand_position() - self.robot.object_pose(obj.name)[0]  # palm relative to object centre
        self._transit(goal[:2] + hang[:2], ignore)                                    # carry
        self._check_held(obj.name)
        release_centre = goal + np.array([0, 0, obj.half_height + 0.012])
        self._go(release_centre + hang + [0, 0, 0.04], ignore, "lower")             # lower
        self._go(release_centre + hang, ignore, "lower")
        self._check_held(obj.name)
        self.robot.release()                                                          # release
        self.robot.settle(self.cfg.motion.settle_s)
        hand = self.robot.hand_position()
        self._go(hand + [0, 0, self.cfg.motion.approach_height], ignore, "retract")    # retract
        self.robot.settle(self.cfg.motion.settle_s)
        pos, rot = self.robot.object_pose(obj.name)
        err = float(np.hypot(pos[0] - goal[0], pos[1] - goal[1]))
        if err > tol:
            raise PrimitiveFailure(FailureReason.POSTCONDITION, f"{obj.name} landed {err * 100:.1f} cm from target")
        if rot[2, 2] < 0.7 and not (receptacle and call.relation == "in"):
            raise PrimitiveFailure(FailureReason.POSTCONDITION, f"{obj.name} fell over")
        return err

    def _pour(self, call: PrimitiveCall) -> None:
        obj = self._ensure_held(call.object)
        cup = self._find(call.target, "container")
        cpos, _ = self.robot.object_pose(cup.name)
        hang = self.robot.hand_position() - self.robot.object_pose(obj.name)[0]
        # Hold the bottle beside the cup, mouth over the rim, then roll the wrist.
        side = np.array([0.0, -(cup.radius + obj.radius + 0.01), 0.0])
        above = cpos + side + np.array([0, 0, cup.half_height + obj.half_height + 0.06])
        self._transit(above[:2] + hang[:2], {obj.name, cup.name})
        self._go(above + hang, {obj.name, cup.name}, "pour pose")
        roll = f"{self.cfg.arm}_wrist_roll_joint"
        q = self.robot.joint_positions()
        sign = 1.0 if self.cfg.arm == "right" else -1.0
        tilt_max = 0.0
        for target in (q[roll] + sign * self.cfg.motion.pour_angle,):
            self.robot.command({roll: target})
            self.robot.settle(self.cfg.motion.pour_hold_s)
            _, rot = self.robot.object_pose(obj.name)
            tilt_max = max(tilt_max, float(np.degrees(np.arccos(np.clip(rot[2, 2], -1, 1)))))
        self.robot.command({roll: q[roll]})
        self._check_held(obj.name)
        if tilt_max < 45.0:
            raise PrimitiveFailure(FailureReason.POSTCONDITION, f"{obj.name} tilted only {tilt_max:.0f} deg")
        origin = self._origin.get(obj.name)
        if origin is not None:  # put the bottle back where it came from
            self.robot.object_pose(obj.name)
            self._put_down_at(obj, origin[:2])
        return None

    def _put_down_at(self, obj: SceneObject, xy: np.ndarray) -> None:
        hang = self.robot.hand_position() - self.robot.object_pose(obj.name)[0]
        self._transit(xy + hang[:2], {obj.name})
        centre = np.array([xy[0], xy[1], self.table_z + obj.half_height + 0.012])
        self._go(centre + hang, {obj.name}, "lower")
        self.robot.release()
        self.robot.settle(self.cfg.motion.settle_s)
        self._go(self.robot.hand_position() + [0, 0, self.cfg.motion.approach_height], {obj.name}, "retract")

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
        self._transit(goal[:2], set())
        self._go(goal, set(), "move_to")
        return float(np.linalg.norm(self.robot.hand_position() - goal))
