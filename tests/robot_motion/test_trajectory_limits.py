"""Every timed trajectory stays within the joint ranges, the velocity limit and the acceleration limit, and
every sample passes the robot's own limit checks: on random polylines (no MuJoCo) and on plans to random
reachable goals in the MuJoCo kitchen (hypothesis, 30 examples each)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from memora_core.robot.limits import JointLimits
from memora_core.robot.motion import JointSpace, PlannerConfig, PlanningFailure, time_parameterize
from sim.planning_world import current_posture
from tests.robot_motion.conftest import TABLE_Z

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
TOL = 1e-6


def assert_within_limits(traj, space: JointSpace, vmax: float, amax: float, limits: JointLimits | None = None):
    t, q = traj.times, traj.positions
    assert np.all(np.diff(t) > 0) and t[0] == 0.0
    assert np.all(q >= space.lower - TOL) and np.all(q <= space.upper + TOL)
    assert np.abs(traj.velocities).max() <= vmax * (1 + TOL)
    assert np.abs(traj.accelerations).max() <= amax * (1 + TOL)
    fd_v = np.diff(q, axis=0) / np.diff(t)[:, None]
    assert np.abs(fd_v).max() <= vmax * (1 + TOL)
    if len(t) > 2:
        fd_a = np.diff(fd_v, axis=0) / (0.5 * (t[2:] - t[:-2]))[:, None]
        assert np.abs(fd_a).max() <= amax * (1 + TOL)
    if limits is not None:  # the robot's own checks, sample to sample at the trajectory's timing
        for prev, nxt, dt in zip(traj.samples()[:-1], traj.samples()[1:], np.diff(t)):
            limits.check(prev, nxt, float(dt))


@st.composite
def polylines(draw):
    dof = draw(st.integers(1, 10))
    n = draw(st.integers(2, 6))
    rows = draw(st.lists(st.lists(st.floats(-2.0, 2.0), min_size=dof, max_size=dof), min_size=n, max_size=n))
    return np.array(rows)


@SETTINGS
@given(path=polylines(), vmax=st.floats(0.2, 3.0), amax=st.floats(0.5, 10.0), dt=st.sampled_from([0.01, 0.02, 0.05]))
def test_timing_of_any_polyline_respects_position_velocity_and_acceleration_limits(path, vmax, amax, dt):
    space = JointSpace(tuple(f"j{i}" for i in range(path.shape[1])), np.full(path.shape[1], -2.0 - 1e-9),
                       np.full(path.shape[1], 2.0 + 1e-9))
    traj = time_parameterize(path, space, vmax, amax, dt, 0.05)
    assert_within_limits(traj, space, vmax, amax)
    np.testing.assert_allclose(traj.positions[0], path[0], atol=1e-6)
    np.testing.assert_allclose(traj.positions[-1], path[-1], atol=1e-6)


@pytest.fixture(scope="module")
def quick_planner(kitchen):
    """The kitchen's right arm with fewer IK seeds and a shorter search (many examples, same limits)."""
    from sim.planning_world import arm_planner

    kitchen.reset()
    return arm_planner(kitchen, "right", PlannerConfig(ik_seeds=2, time_limit_s=0.5))


@SETTINGS
@given(x=st.floats(0.25, 0.55), y=st.floats(-0.40, 0.05), z=st.floats(TABLE_Z + 0.12, TABLE_Z + 0.40))
def test_plans_to_random_goals_keep_every_limit(kitchen, quick_planner, x, y, z):
    try:
        plan = quick_planner.plan_to_point(current_posture(kitchen, "right"), np.array([x, y, z]))
    except PlanningFailure as exc:
        event(f"no plan: {exc.cause.value}")
        return
    event("planned" + (" (sampled)" if plan.path.sampled else " (straight)"))
    cfg = quick_planner.config
    vmax = kitchen.config.limits.max_velocity * cfg.velocity_fraction
    assert_within_limits(plan.trajectory, quick_planner.world.space, vmax, cfg.max_acceleration, kitchen.limits)
    targets, _ = plan.trajectory.command_args()
    for t in targets:
        kitchen.limits.target(t)  # every waypoint known, finite and inside the commandable range
