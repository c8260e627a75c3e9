"""A start already inside the clearance margin is moved out before planning (never deeper in), a start deep
inside an obstacle is still refused as START_IN_COLLISION, and a real kitchen's deep start stays refused."""
from __future__ import annotations

import numpy as np
import pytest

from memora_core.robot.motion import JointSpace, PlannerConfig
from memora_core.robot.motion.failures import PlanningCause, PlanningFailure
from memora_core.robot.motion.planner import JointPlanner, interpolate
from memora_core.robot.motion.start_escape import escape_line_ok, escape_start

MARGIN, HORIZON = 0.05, 0.2


class DiscWorld:
    """Two joints; one round obstacle of radius 0.3 at the origin, kept MARGIN away from (distances in 'm')."""

    def __init__(self) -> None:
        self.space = JointSpace(("a", "b"), np.array([-2.0, -2.0]), np.array([2.0, 2.0]))

    def distance(self, q: np.ndarray) -> float:
        return float(np.linalg.norm(q) - 0.3)

    def is_valid(self, q: np.ndarray) -> bool:
        return self.distance(q) >= MARGIN

    def colliding(self, q: np.ndarray) -> list[str]:
        return [] if self.is_valid(q) else ["disc"]

    def clearance(self, q: np.ndarray) -> float:
        return min(self.distance(q), HORIZON)


def test_a_start_inside_the_margin_is_moved_out_without_coming_closer():
    world = DiscWorld()
    start = np.array([0.32, 0.0])  # 2 cm off the obstacle, inside its 5 cm margin
    out = escape_start(world, start, radius=0.15, attempts=60, step=0.01, max_depth=0.015, seed=3)
    assert out is not None and world.is_valid(out)
    assert np.abs(out - start).max() <= 0.15
    line = interpolate(start, out, 0.005)
    assert min(world.distance(q) for q in line) >= world.distance(start) - 0.002


def test_a_line_that_passes_closer_is_no_escape():
    world = DiscWorld()
    start = np.array([0.0, 0.33])
    across = np.array([0.0, -0.40])  # valid at the end, but straight through the obstacle
    assert not escape_line_ok(world, start, across, 0.01)
    assert escape_line_ok(world, start, np.array([0.0, 0.40]), 0.01)


def test_planner_paths_begin_with_the_escape_and_a_deep_start_is_refused():
    world = DiscWorld()
    planner = JointPlanner(world, PlannerConfig(start_escape_radius=0.15, check_step=0.01))
    start, goal = np.array([0.32, 0.0]), np.array([1.0, 1.0])
    path = planner.plan(start, goal)
    np.testing.assert_allclose(path.waypoints[0], start)
    assert world.is_valid(path.waypoints[1])
    np.testing.assert_allclose(path.waypoints[-1], goal)
    with pytest.raises(PlanningFailure) as exc:  # 5 cm inside the obstacle: deeper than start_escape_depth
        planner.plan(np.array([0.25, 0.0]), goal)
    assert exc.value.cause is PlanningCause.START_IN_COLLISION and exc.value.colliding == ("disc",)
    refusing = JointPlanner(world, PlannerConfig(start_escape_radius=0.0, check_step=0.01))
    with pytest.raises(PlanningFailure) as exc:  # escape switched off: the margin start is refused as before
        refusing.plan(start, goal)
    assert exc.value.cause is PlanningCause.START_IN_COLLISION
