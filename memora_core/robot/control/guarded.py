"""A planned approach with a guarded final descent, for a straight move onto a point that was refused (IK miss,
path blocked) or stopped short: the motion library plans a collision-free joint path (goal postures from
several IK seeds, the waist free, the held object attached, its clearance margin kept) to a point
`guard_height` above the goal, where another arm posture may pass a neighbour the straight line's posture
would sweep; from there the palm descends the rest straight, slowly and in short steps, keeping only the
smaller near-goal margin `guard_margin`, and stops at the first contact (a step whose end the palm does not
reach). Settings: `planner.yaml` (`PlannerConfig`: guarded_approach, guard_*)."""
from __future__ import annotations

import logging
from functools import cached_property

import numpy as np

from memora_core.robot.control.context import ControlContext
from memora_core.robot.control.failures import PLAN_REFUSED, FailureCause, PrimitiveFailure

log = logging.getLogger(__name__)

# The failures of a straight move the guarded approach answers: refused before moving, or stopped short.
GUARDED_CAUSES = frozenset({FailureCause.IK_MISS, FailureCause.PATH_BLOCKED, FailureCause.STOPPED_SHORT})


class GuardedApproach:
    def __init__(self, c: ControlContext) -> None:
        self.c = c
        self.robot = c.robot

    @cached_property
    def settings(self):  # noqa: ANN201 - memora_core.robot.motion.config.PlannerConfig
        from memora_core.robot.motion.config import load_planner_config

        return load_planner_config()

    def applies(self, f: PrimitiveFailure) -> bool:
        return self.settings.guarded_approach and f.cause in GUARDED_CAUSES

    def guard_point(self, point: np.ndarray) -> np.ndarray:
        return np.asarray(point, float) + np.array([0.0, 0.0, self.settings.guard_height])

    def reach(self, point: np.ndarray, ignore: set[str], what: str, stop_early: bool = False,
              aim: np.ndarray | None = None) -> None:
        """Palm to `point`: planned to above it, then the guarded descent (`stop_early`: see `descend`). Raises
        a typed PrimitiveFailure (a refused plan leaves the arm where it was).

        `aim`: where the held object's centre should end. The planned posture may turn the hand, and the
        object hanging from it with it, so once above, the descent is aimed from where the object hangs then
        (the object, not the palm, lands where it was meant to)."""
        point = np.asarray(point, float)
        guard = self.guard_point(point)
        if np.linalg.norm(self.robot.hand_position() - guard) > self.settings.guard_step:
            self.c.planned.move_to(guard, ignore, f"planned {what}")
        held = self.robot.held_object()
        if aim is not None and held is not None:
            hand = self.robot.hand_position()
            point = np.asarray(aim, float) - (self.robot.object_pose(held)[0] - hand)
            if np.hypot(*(point[:2] - hand[:2])) > self.settings.guard_step / 2:
                try:  # over the new point first, so the descent itself stays straight down
                    self.c.arm.go(np.array([point[0], point[1], hand[2]]), ignore, what, exact=False,
                                  margin=self.settings.guard_margin)
                except PrimitiveFailure as f:
                    if f.cause not in PLAN_REFUSED:
                        raise
                    log.info("%s: cannot move over the re-aimed point (%s); descending toward it", what, f.detail)
        log.info("%s: planned to %s, descending guarded", what, np.round(guard, 3).tolist())
        self.descend(point, ignore, what, stop_early)

    def descend(self, point: np.ndarray, ignore: set[str], what: str, stop_early: bool = False) -> None:
        """Straight to `point` in steps of `guard_step` at `guard_speed`, each checked with `guard_margin`; stops
        where the palm lags a step's end by more than `guard_stall` (it met something: the support, the
        contents of a bowl), and (`stop_early`: letting go a little higher is fine, as into a bowl) where a
        step after the first is refused. Touching anything not in `ignore` raises ARM_HIT."""
        g, arm, m = self.settings, self.c.arm, self.c.cfg.motion
        start = self.robot.hand_position()
        n = max(1, int(np.ceil(np.linalg.norm(point - start) / g.guard_step)))
        for i in range(1, n + 1):
            p = start + (point - start) * i / n
            try:
                path = arm.plan_line(p, ignore, what, margin=g.guard_margin)
            except PrimitiveFailure as f:
                if not (stop_early and i > 1 and f.cause in PLAN_REFUSED):
                    raise
                log.info("%s: guarded descent stops %.1f cm above its end (%s)", what,
                         float(np.linalg.norm(self.robot.hand_position() - point)) * 100, f.detail)
                return
            dist = float(np.linalg.norm(p - self.robot.hand_position()))
            arm.follow(path, p, ignore, what, exact=False, duration=max(m.min_segment_s, dist / g.guard_speed))
            lag = float(np.linalg.norm(self.robot.hand_position() - p))
            if lag > g.guard_stall:
                log.info("%s: guarded descent stopped on contact %.1f cm above its end", what,
                         float(np.linalg.norm(self.robot.hand_position() - point)) * 100)
                return
