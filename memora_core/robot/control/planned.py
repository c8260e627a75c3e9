"""Collision-free free-space moves through the motion library (`memora_core.robot.motion`: OMPL joint-space
planning on a planning copy of the scene with the held object attached, IK goals ranked, TOPP-RA timing),
for backends that offer a planner (`Robot.arm_planner`). Planning failures come back as the controller's
typed failures (IK miss, path blocked with the movable objects in the way)."""
from __future__ import annotations

import logging
import time
from collections.abc import Callable

import numpy as np

from memora_core.robot.control.context import ControlContext
from memora_core.robot.control.failures import PLAN_REFUSED, FailureCause, FailureReason, PrimitiveFailure

log = logging.getLogger(__name__)


class PlannedMotion:
    def __init__(self, c: ControlContext) -> None:
        self.c = c
        self.robot, self.cfg = c.robot, c.cfg
        self.plan_seconds: list[float] = []  # planning time of every planned move (for benchmarks)

    def _failure(self, exc, what: str, point: np.ndarray) -> PrimitiveFailure:  # noqa: ANN001 - PlanningFailure
        from memora_core.robot.motion.failures import PlanningCause

        blocked = {PlanningCause.START_IN_COLLISION, PlanningCause.GOAL_IN_COLLISION, PlanningCause.NO_PATH}
        if exc.cause is PlanningCause.UNREACHABLE:
            return PrimitiveFailure(FailureReason.UNREACHABLE, f"{what}: planned move: {exc}",
                                    cause=FailureCause.IK_MISS, what=what, point=point, residual=exc.residual)
        if exc.cause in blocked:
            return PrimitiveFailure(FailureReason.COLLISION, f"{what}: planned move: {exc}",
                                    self.c.resolver.movable(exc.colliding), cause=FailureCause.PATH_BLOCKED,
                                    what=what, point=point)
        return PrimitiveFailure(FailureReason.UNREACHABLE, f"{what}: planned move: {exc}",
                                cause=FailureCause.OUT_OF_WORKSPACE, what=what, point=point)

    @staticmethod
    def instead_of(refused: PrimitiveFailure, move: Callable[[], None]) -> None:
        """Run `move` (a planned move) in place of a straight one that was `refused` before anything moved. When
        the planned move is refused too (nothing moved either), the straight move's refusal stands."""
        try:
            move()
        except PrimitiveFailure as g:
            if g.cause not in PLAN_REFUSED:
                raise
            raise refused from None

    def move_to(self, point: np.ndarray, ignore: set[str], what: str, keep_hold: bool = False,
                exact: bool = True) -> None:
        """Put the palm at `point` along a planned collision-free joint path (the hand orientation as the next
        straight move would hold it, relaxed while holding unless `keep_hold`: then a held object keeps hanging
        as it was grasped, e.g. a tall bottle stays upright; `exact`: as `ArmMotion.follow`). Raises a typed
        PrimitiveFailure."""
        import time

        from memora_core.robot.motion.failures import PlanningFailure

        point = np.asarray(point, float)
        planner = self.robot.arm_planner(self.robot.arm)
        if planner is None:
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"{what}: no motion planner on this backend",
                                   cause=FailureCause.IK_MISS, what=what, point=point)
        s = self.c.state
        holding = self.robot.held_object() is not None
        rot, cost = self.c.arm.target_rotation() if keep_hold else self.rotation()
        planner.world.ignore(set(ignore) - {self.robot.held_object()})
        space = planner.world.space
        start = space.clip(space.vector(self.robot.joint_positions()))
        t0 = time.perf_counter()
        try:
            plan = planner.plan_to_point(start, point, rot, cost)
        except PlanningFailure as exc:
            raise self._failure(exc, what, point) from exc
        finally:
            self.plan_seconds.append(time.perf_counter() - t0)
        targets, duration = plan.trajectory.command_args()
        log.debug("%s: planned move to %s (%d samples, %.2f s)", what, np.round(point, 3).tolist(), len(targets),
                  duration)
        self.c.arm.follow(targets, point, ignore, what, exact=exact, duration=duration)
        if holding and s.held_rot is not None:
            s.held_rot = self.robot.hand_rotation()  # the object hangs as the planned posture holds it: keep that

    def rotation(self) -> tuple[np.ndarray, float]:
        """(palm orientation, IK weight) a planned move aims for: as the next straight move would hold it,
        relaxed while holding (the object hangs as the planned posture holds it)."""
        rot, cost = self.c.arm.target_rotation()
        if self.robot.held_object() is not None and self.c.state.held_rot is not None:
            rot, cost = self.c.state.held_rot, self.cfg.motion.relaxed_held_orientation_cost
        return rot, cost

    def goal_exists(self, point: np.ndarray, ignore: set[str]) -> bool:
        """Whether some arm posture (IK from several seeds) puts the palm at `point` clear of everything but
        `ignore` by the planner's margin, the held object attached: a planned move there can be tried."""
        from memora_core.robot.motion.failures import PlanningFailure
        from memora_core.robot.motion.goals import GoalSelector

        planner = self.robot.arm_planner(self.robot.arm)
        if planner is None or planner.kinematics is None:
            return False
        planner.world.ignore(set(ignore) - {self.robot.held_object()})
        space = planner.world.space
        start = space.clip(space.vector(self.robot.joint_positions()))
        rot, cost = self.rotation()
        try:
            GoalSelector(planner.kinematics, planner.world, planner.config).candidates(
                np.asarray(point, float), start, rot, cost)
        except PlanningFailure as exc:
            log.debug("no planned goal at %s: %s", np.round(point, 3).tolist(), exc)
            return False
        return True

    def to_posture(self, goal: dict[str, float], ignore: set[str], what: str) -> None:
        """The planned arm's (+ waist's) joints to `goal` (others in it are not moved), along a planned
        collision-free joint path; when `goal` itself touches the robot's own body, to the nearest valid
        posture on the straight joint line there. Raises a typed PrimitiveFailure; nothing moves when none plans."""
        from memora_core.robot.motion.failures import PlanningFailure

        planner = self.robot.arm_planner(self.robot.arm)
        if planner is None:
            raise PrimitiveFailure(FailureReason.UNREACHABLE, f"{what}: no motion planner on this backend",
                                   cause=FailureCause.IK_MISS, what=what)
        planner.world.ignore(set(ignore) - {self.robot.held_object()})
        space = planner.world.space
        now = self.robot.joint_positions()
        start = space.clip(space.vector(now))
        end = space.clip(space.vector({**now, **{k: v for k, v in goal.items() if k in space.names}}))
        for t in (0.0, 0.05, 0.1, 0.2, 0.3, 0.5):
            # A goal resting against the robot itself (a tuck's hand against the hip): plan to the nearest
            # valid posture on the way there; the caller's joint line goes the rest.
            if planner.world.is_valid(end + t * (start - end)):
                end = end + t * (start - end)
                break
        else:  # none on that line: a valid posture near the goal, from which the line back to it clears as it goes
            near = planner.planner.escape(end)
            end = end if near is None else near
        hand = self.robot.hand_position()
        t0 = time.perf_counter()
        try:
            plan = planner.plan_to_joints(start, end)
        except PlanningFailure as exc:
            raise self._failure(exc, what, hand) from exc
        finally:
            self.plan_seconds.append(time.perf_counter() - t0)
        log.debug("%s: planned joint move (%.2f s)", what, plan.trajectory.duration)
        targets, duration = plan.trajectory.command_args()
        report = self.robot.command_path(targets, duration)
        hits = set(report.collisions) - set(ignore)
        if hits:
            raise PrimitiveFailure.arm_hit(what, sorted(hits), self.c.resolver.movable(sorted(hits)))
