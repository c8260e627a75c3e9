"""Planning through clutter on the real MuJoCo kitchen, typed failures, and a planned motion executed by
the simulated robot through `Robot.command_path`."""
from __future__ import annotations

import numpy as np
import pytest

from memora_core.robot.motion import PlannerConfig, PlanningCause, PlanningFailure, path_free, segment_free
from sim.planning_world import arm_planner, current_posture
from tests.robot_motion.conftest import CLUTTER, TABLE_Z, bottle_sides

FINE = 0.005  # rad: the re-check is four times finer than the planner's own


def _sides(planner, kitchen):
    start = current_posture(kitchen, "right")
    a, b = bottle_sides()
    return planner.plan_to_point(start, a).goal.q, planner.plan_to_point(start, b).goal.q


def test_plans_around_the_bottle_where_the_straight_line_hits_it(kitchen, planner):
    qa, qb = _sides(planner, kitchen)
    world = planner.world
    assert world.is_valid(qa) and world.is_valid(qb)
    assert not segment_free(world, qa, qb, FINE)  # the straight joint-space line goes through the bottle
    line = qa + (qb - qa) * np.linspace(0, 1, 200)[:, None]
    assert any("coca-cola bottle" in world.colliding(q) for q in line)
    plan = planner.plan_to_joints(qa, qb)
    assert plan.path.sampled
    np.testing.assert_allclose(plan.path.waypoints[0], qa)
    np.testing.assert_allclose(plan.path.waypoints[-1], qb)
    assert path_free(world, plan.path.waypoints, FINE)
    assert plan.path.length <= plan.path.raw_length + 1e-9  # shortcutting never lengthens
    # The timed trajectory follows a collision-free course too, sample by sample, and ends on the goal.
    assert all(world.is_valid(q) for q in plan.trajectory.positions)
    np.testing.assert_allclose(plan.trajectory.positions[-1], qb, atol=1e-6)


def test_planned_motion_runs_on_the_simulated_robot_without_touching_anything(kitchen, planner):
    start = current_posture(kitchen, "right")
    target = bottle_sides()[1]
    plan = planner.plan_to_point(start, target)
    bottle_before = kitchen.object_pose("coca-cola bottle")[0]
    report = kitchen.command_path(*plan.trajectory.command_args())  # every sample passes the limit checks
    assert report.completed and report.collisions == []
    assert np.linalg.norm(kitchen.hand_position("right") - target) < 0.02
    np.testing.assert_allclose(kitchen.object_pose("coca-cola bottle")[0], bottle_before, atol=0.005)


def test_goal_inside_an_object_fails_as_goal_in_collision_naming_it(kitchen, planner):
    x, y, _ = CLUTTER["coca-cola bottle"]
    with pytest.raises(PlanningFailure) as exc:
        planner.plan_to_point(current_posture(kitchen, "right"), np.array([x, y, TABLE_Z + 0.10]))
    assert exc.value.cause is PlanningCause.GOAL_IN_COLLISION
    assert "coca-cola bottle" in exc.value.colliding


def test_point_out_of_reach_fails_as_unreachable_with_the_residual(kitchen, planner):
    with pytest.raises(PlanningFailure) as exc:
        planner.plan_to_point(current_posture(kitchen, "right"), np.array([1.10, -0.20, 1.00]))
    assert exc.value.cause is PlanningCause.UNREACHABLE
    assert exc.value.residual > planner.config.ik_tolerance


def test_start_in_collision_and_a_search_out_of_time_are_typed(kitchen, planner):
    qa, qb = _sides(planner, kitchen)
    x, y, _ = CLUTTER["coca-cola bottle"]
    inside, _ = planner.kinematics.solve(np.array([x, y, TABLE_Z + 0.10]), qa)
    with pytest.raises(PlanningFailure) as exc:
        planner.plan_to_joints(inside, qb)
    assert exc.value.cause is PlanningCause.START_IN_COLLISION and "coca-cola bottle" in exc.value.colliding
    hurried = arm_planner(kitchen, "right", PlannerConfig(time_limit_s=1e-4))
    with pytest.raises(PlanningFailure) as exc:
        hurried.plan_to_joints(qa, qb)
    assert exc.value.cause is PlanningCause.NO_PATH
