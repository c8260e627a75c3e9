"""Collision-free joint-space paths with OMPL: RRTConnect over a `JointSpace`, states checked by a
`CollisionWorld`, then shortcut (OMPL's path simplifier) and checked again densely. A straight joint line
that is already free is taken as it is, without sampling."""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from memora_core.robot.motion.config import PlannerConfig
from memora_core.robot.motion.failures import PlanningCause, PlanningFailure
from memora_core.robot.motion.start_escape import escape_start
from memora_core.robot.motion.world import CollisionWorld

BOUNDS_TOLERANCE = 0.02  # rad a start may sit past a range end (physics rests on stops) before it is refused


@dataclass(frozen=True)
class JointPath:
    """Waypoints (rows; columns: the world's `space.names`) joined by straight joint-space segments, each
    segment free at `check_step`. `raw_length`: length of the planner's path before shortcutting."""
    waypoints: np.ndarray
    raw_length: float
    planning_s: float
    sampled: bool  # False: the straight line was free and no sampling planner ran

    @property
    def length(self) -> float:
        return path_length(self.waypoints)


def path_length(waypoints: np.ndarray) -> float:
    """Sum of Euclidean joint-space segment lengths (rad)."""
    return float(np.linalg.norm(np.diff(np.asarray(waypoints, float), axis=0), axis=1).sum())


def interpolate(a: np.ndarray, b: np.ndarray, step: float) -> np.ndarray:
    """States from a to b (both included), no joint changing more than `step` between neighbours."""
    n = max(1, int(np.ceil(np.abs(b - a).max(initial=0.0) / step)))
    return a + (b - a) * np.linspace(0.0, 1.0, n + 1)[:, None]


def segment_free(world: CollisionWorld, a: np.ndarray, b: np.ndarray, step: float) -> bool:
    """Whether every state on the straight line a..b, `step` apart, is valid (ends included)."""
    states = interpolate(a, b, step)
    # Ends first, then coarse-to-fine (bisection order) so a blocked line is usually found early.
    order = [0, len(states) - 1] + list(_bisection_order(1, len(states) - 2))
    return all(world.is_valid(states[i]) for i in order)


def _bisection_order(lo: int, hi: int):
    spans = [(lo, hi)]
    while spans:
        nxt = []
        for a, b in spans:
            if a > b:
                continue
            mid = (a + b) // 2
            yield mid
            nxt += [(a, mid - 1), (mid + 1, b)]
        spans = nxt


def path_free(world: CollisionWorld, waypoints: np.ndarray, step: float) -> bool:
    return all(segment_free(world, a, b, step) for a, b in zip(waypoints[:-1], waypoints[1:]))


class JointPlanner:
    """Plans between postures of `world.space` (one arm + the waist)."""

    def __init__(self, world: CollisionWorld, config: PlannerConfig) -> None:
        self.world = world
        self.config = config
        self._escapes: dict[bytes, np.ndarray | None] = {}

    def check_endpoints(self, start: np.ndarray, goal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Start and goal inside the ranges (a start a hair past a stop is moved in) and valid; else PlanningFailure."""
        space, world = self.world.space, self.world
        if not space.contains(start, BOUNDS_TOLERANCE):
            raise PlanningFailure(PlanningCause.START_OUT_OF_BOUNDS, "start posture outside the joint ranges")
        if not space.contains(goal):
            raise PlanningFailure(PlanningCause.GOAL_OUT_OF_BOUNDS, "goal posture outside the joint ranges")
        start = space.clip(start)
        if not world.is_valid(start) and self.escape(start) is None:
            hit = tuple(world.colliding(start))
            raise PlanningFailure(PlanningCause.START_IN_COLLISION, f"start touches {', '.join(hit)}", hit)
        if not world.is_valid(goal):
            hit = tuple(world.colliding(goal))
            raise PlanningFailure(PlanningCause.GOAL_IN_COLLISION, f"goal touches {', '.join(hit)}", hit)
        return start, np.asarray(goal, float)

    def escape(self, start: np.ndarray) -> np.ndarray | None:
        """A nearby valid posture reached from the invalid `start` coming no closer to anything
        (`start_escape`; the last one asked for is cached)."""
        key = start.tobytes()
        if key not in self._escapes:
            cfg = self.config
            self._escapes = {key: escape_start(self.world, start, cfg.start_escape_radius, cfg.start_escape_attempts,
                                               cfg.check_step, cfg.start_escape_depth, cfg.seed or 0)}
        return self._escapes[key]

    def plan(self, start: np.ndarray, goal: np.ndarray) -> JointPath:
        return self.plan_any(start, [goal])

    def plan_any(self, start: np.ndarray, goals: list[np.ndarray]) -> JointPath:
        """A path from `start` to whichever of `goals` (best first) it reaches: a free straight line to the
        first goal that has one, else one RRTConnect search towards all of them at once."""
        t0 = time.perf_counter()
        if not goals:
            raise ValueError("plan_any needs at least one goal")
        checked = [self.check_endpoints(np.asarray(start, float), np.asarray(g, float)) for g in goals]
        start = checked[0][0]
        goals = [g for _, g in checked]
        # A start inside the clearance margin first moves out along its escape line (checked on its own terms).
        lead = start[None] if self.world.is_valid(start) else np.stack([start, self.escape(start)])
        start = lead[-1]
        step = self.config.check_step
        for goal in goals:
            if segment_free(self.world, start, goal, step):
                line = np.concatenate([lead, goal[None]])
                return JointPath(line, path_length(line), time.perf_counter() - t0, sampled=False)
        raw, simplified = self._ompl(start, goals)
        if not path_free(self.world, simplified, step):
            simplified = raw  # the simplifier's own checks are coarser than ours; its input was checked by RRT
        if not path_free(self.world, simplified, step):
            raise PlanningFailure(PlanningCause.NO_PATH, "the planner's path fails the dense re-check")
        raw, simplified = np.concatenate([lead[:-1], raw]), np.concatenate([lead[:-1], simplified])
        return JointPath(simplified, path_length(raw), time.perf_counter() - t0, sampled=True)

    def _ompl(self, start: np.ndarray, goals: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        from ompl import base as ob, geometric as og

        _seed_once(self.config.seed)
        space = self.world.space
        n = space.dof
        state_space = ob.RealVectorStateSpace(n)
        bounds = ob.RealVectorBounds(n)
        for i in range(n):
            bounds.setLow(i, float(space.lower[i]))
            bounds.setHigh(i, float(space.upper[i]))
        state_space.setBounds(bounds)
        setup = og.SimpleSetup(state_space)
        is_valid = self.world.is_valid
        setup.setStateValidityChecker(lambda s: is_valid(np.fromiter((s[i] for i in range(n)), float, n)))
        si = setup.getSpaceInformation()
        # OMPL checks motions at a fraction of the space's extent; that fraction is one check_step (a
        # Euclidean step bounds every joint's change by the same amount).
        si.setStateValidityCheckingResolution(self.config.check_step / state_space.getMaximumExtent())
        planner = og.RRTConnect(si)
        if self.config.planner_range > 0:
            planner.setRange(self.config.planner_range)
        setup.setPlanner(planner)
        setup.setStartState(_state(state_space, start))
        target = ob.GoalStates(si)
        for g in goals:
            target.addState(_state(state_space, g))
        setup.setGoal(target)
        status = setup.solve(self.config.time_limit_s)
        if not setup.haveExactSolutionPath():
            raise PlanningFailure(PlanningCause.NO_PATH,
                                  f"no path within {self.config.time_limit_s:g} s ({status.asString()})")
        path = setup.getSolutionPath()
        raw = _states(path, n)
        goal = goals[int(np.argmin([np.abs(raw[-1] - g).max() for g in goals]))]
        # Shortcutting: drop waypoints whose neighbours see each other, then join random points of the path
        # by straight lines where those are free (each a bounded number of tries).
        simplifier = og.PathSimplifier(si)
        steps = self.config.shortcut_steps
        simplifier.reduceVertices(path, steps, steps // 2)
        simplifier.partialShortcutPath(path, steps, steps // 2)
        simplifier.reduceVertices(path, steps, steps // 2)
        simplified = _states(path, n)
        raw[0], raw[-1] = start, goal
        simplified[0], simplified[-1] = start, goal
        return raw, simplified


def _state(state_space, q: np.ndarray):
    s = state_space.allocState()
    for i, v in enumerate(q):
        s[i] = float(v)
    return s


_SEEDED: list[int | None] = []


def _seed_once(seed: int | None) -> None:
    """OMPL takes a seed once per process, before its first random draw (and not 0): later plans continue
    that one sequence, so a process that plans the same problems in the same order gets the same paths."""
    from ompl import util as ou

    if not _SEEDED:
        ou.setLogLevel(ou.LOG_WARN)
        if seed is not None:
            ou.RNG.setSeed(seed)
        _SEEDED.append(seed)


def _states(path, n: int) -> np.ndarray:
    return np.array([[s[i] for i in range(n)] for s in path.getStates()], float)
