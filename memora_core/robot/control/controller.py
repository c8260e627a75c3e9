"""The rule-based primitive controller, as an orchestrator: plan step → primitive (whitelist) → skill →
recoveries (in order) → StepResult. The skills plan Cartesian waypoints (pre-grasp, approach, grasp, lift,
carry, lower, release, retract), solve IK and send limit-checked joint paths to a `Robot`; each checks its
postcondition in the robot's state and fails with a typed cause."""
from __future__ import annotations

import logging
import time
from collections.abc import Callable

from memora_core.robot.control.arm_motion import ArmMotion
from memora_core.robot.control.context import ControlContext
from memora_core.robot.control.failures import FailureCause, FailureReason, PrimitiveFailure, StepResult
from memora_core.robot.control.grasping import GraspChooser
from memora_core.robot.control.guarded import GuardedApproach
from memora_core.robot.control.planned import PlannedMotion
from memora_core.robot.control.putdown import PutDown
from memora_core.robot.control.recovery import Recovery, StepAttempt, default_recoveries
from memora_core.robot.control.skills import Skills
from memora_core.robot.control.transit import Transit
from memora_core.robot.limits import EStopActive, LimitViolation
from memora_core.robot.primitives import PrimitiveCall, UnknownPrimitive, parse_step
from memora_core.robot.robot import Robot, SceneObject
from memora_core.schemas.plan import PlanStep

log = logging.getLogger(__name__)


class RuleBasedController:
    def __init__(self, robot: Robot, table_height: float, regions: dict[str, tuple[float, float, float]],
                 tallest_object: float = 0.22, recoveries: list[Recovery] | None = None) -> None:
        c = ControlContext(robot, table_height, regions, tallest_object)
        c.arm = ArmMotion(c)
        c.planned = PlannedMotion(c)
        c.guarded = GuardedApproach(c)
        c.transit = Transit(c)
        c.grasps = GraspChooser(c)
        c.putdown = PutDown(c)
        c.skills = Skills(c)
        self.c = c
        self.robot, self.cfg, self.skills = robot, robot.config, c.skills
        self.recoveries = default_recoveries(c) if recoveries is None else recoveries
        # Told (step index, recovery name) as each recovery starts: a step that makes room runs long, and whoever
        # waits for it (the ROS controller's action feedback) can say it is still under way.
        self.on_recovery: Callable[[int, str], None] | None = None

    def objects(self) -> list[SceneObject]:
        return self.c.resolver.objects()

    def resolve(self, query: str) -> SceneObject | None:
        """The scene object a plan string means, or None when nothing matches well enough."""
        return self.c.resolver.resolve(query)

    def rest(self) -> None:
        """Before a new plan (and its retry), with the hand empty: the arm stows (back over the table's edge, then
        its tuck, the waist upright). Only on backends with a motion planner: from a turned waist the tuck's
        hand-made joint lines are often blocked by the table, and only the planned stow then gets the arm down
        (without one the G1 bridge's arm was left raised at the table's edge, where the next move_to home was
        blocked). A stow that fails leaves the arm where it stopped: the first step plans from there."""
        if (not self.cfg.motion.rest_between_plans or self.robot.held_object() is not None
                or self.robot.arm_planner(self.robot.arm) is None):
            return
        try:
            self.c.transit.stow(self.robot.arm)
        except PrimitiveFailure as f:
            log.info("rest before the plan: %s; starting from here", f.detail)

    def execute_step(self, step: PlanStep) -> StepResult:
        t0 = time.perf_counter()
        try:
            call = parse_step(step)
        except UnknownPrimitive as exc:
            return StepResult(index=step.index, success=False, reason=FailureReason.NOT_ALLOWED,
                              cause=FailureCause.NOT_ALLOWED, detail=str(exc))
        result = self.execute(call, index=step.index)
        result.duration_s = time.perf_counter() - t0
        return result

    def execute(self, call: PrimitiveCall, index: int = 0) -> StepResult:
        base = dict(index=index, primitive=call.primitive.value, object=call.object, target=call.target)
        attempt = StepAttempt()
        moved = attempt.moved
        try:
            err = self._run(call, attempt, index)
            detail = f"moved {', '.join(moved)} aside first" if moved else ""
            return StepResult(**base, success=True, placement_error_m=err, detail=detail, moved_aside=moved)
        except PrimitiveFailure as f:
            log.info("step %d %s failed: %s/%s (%s)", index, call.primitive.value, f.reason.value, f.cause.value,
                     f.detail)
            return StepResult(**base, success=False, reason=f.reason, cause=f.cause, detail=f.detail,
                              moved_aside=moved)
        except EStopActive as exc:
            return StepResult(**base, success=False, reason=FailureReason.ESTOP, detail=str(exc), moved_aside=moved)
        except LimitViolation as exc:
            return StepResult(**base, success=False, reason=FailureReason.NOT_ALLOWED, cause=FailureCause.NOT_ALLOWED,
                              detail=str(exc), moved_aside=moved)

    def _run(self, call: PrimitiveCall, attempt: StepAttempt, index: int = 0) -> float | None:
        """The step's skill; after a failure the first recovery that applies, then the skill again."""
        skill = self.skills.for_primitive(call.primitive)
        while True:
            try:
                return skill(call)
            except PrimitiveFailure as f:
                recovery = next((r for r in self.recoveries if r.applies(f, call, attempt)), None)
                if recovery is None:
                    raise
                log.info("%s failed (%s/%s: %s); recovery: %s", call.primitive.value, f.reason.value,
                         f.cause.value if f.cause else None, f.detail, recovery.name)
                if self.on_recovery is not None:
                    self.on_recovery(index, recovery.name)
                if not recovery.recover(f, call, attempt):
                    raise
                attempt.used.append(recovery.name)
