"""Time parameterisation of a joint path with TOPP-RA inside joint velocity and acceleration limits, sampled
into a trajectory `Robot.command_path` can send.

A shortcut path is a polyline in joint space, free along its straight segments. It is resampled finely and
passed through a cubic spline (so the motion does not stop at each corner), and TOPP-RA finds the fastest
timing of that spline within the limits. The spline may bulge a little at corners: the sampled trajectory
is then checked against the joint ranges (and, when given, the collision world); if it leaves them the
motion falls back to stopping at each corner, which keeps exactly to the checked segments. Finally the
samples' own velocities and accelerations are measured and the whole timing is stretched if TOP-RA's
discretisation overshot anywhere, so the limits hold on what is sent, not only on the grid."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from memora_core.robot.motion.failures import PlanningCause, PlanningFailure
from memora_core.robot.motion.planner import interpolate
from memora_core.robot.motion.world import JointSpace

# TOPP-RA grid: this many points per resampled path point, within bounds. A grid much coarser than the
# spline's corners makes the constant-acceleration pieces crawl through them (a 3 s motion took 40 s at 100).
GRID_PER_POINT, GRID_MIN, GRID_MAX = 4, 100, 1500


@dataclass(frozen=True)
class TimedTrajectory:
    """Samples of a motion: `times` (s, from 0), `positions` (rows; columns: `joints`), and the velocities
    and accelerations there. `smooth`: False when it stops at each corner of the path."""
    joints: tuple[str, ...]
    times: np.ndarray
    positions: np.ndarray
    velocities: np.ndarray
    accelerations: np.ndarray
    smooth: bool

    @property
    def duration(self) -> float:
        return float(self.times[-1])

    def samples(self) -> list[dict[str, float]]:
        return [{n: float(v) for n, v in zip(self.joints, row)} for row in self.positions]

    def command_args(self) -> tuple[list[dict[str, float]], float]:
        """(targets, duration_s) for `Robot.command_path`: every sample after the start, and the duration."""
        return self.samples()[1:], max(self.duration, 1e-3)


def time_parameterize(waypoints: np.ndarray, space: JointSpace, max_velocity: float, max_acceleration: float,
                      dt: float, spline_step: float, is_valid: Callable[[np.ndarray], bool] | None = None
                      ) -> TimedTrajectory:
    """The fastest timing of the path through `waypoints` with every joint within `max_velocity` (rad/s)
    and `max_acceleration` (rad/s^2), sampled every `dt` s (and at the end)."""
    waypoints = np.asarray(waypoints, float)
    if len(waypoints) < 2 or np.abs(np.diff(waypoints, axis=0)).max() < 1e-9:
        pos = waypoints[:1].repeat(2, axis=0)
        return TimedTrajectory(space.names, np.array([0.0, dt]), pos, np.zeros_like(pos), np.zeros_like(pos), True)
    dense = np.concatenate([interpolate(a, b, spline_step)[:-1] for a, b in zip(waypoints[:-1], waypoints[1:])]
                           + [waypoints[-1:]])
    traj = _toppra(dense, max_velocity, max_acceleration, dt)
    if traj is not None and _inside(traj[1], space, is_valid):
        return _finish(space, *traj, max_velocity, max_acceleration, smooth=True)
    # Stop at each corner: each straight segment timed on its own, from rest to rest.
    parts = []
    for a, b in zip(waypoints[:-1], waypoints[1:]):
        if np.abs(b - a).max() < 1e-9:
            continue
        seg = _toppra(interpolate(a, b, spline_step), max_velocity, max_acceleration, dt)
        if seg is None:
            raise PlanningFailure(PlanningCause.TIMING_FAILED, "TOPP-RA found no timing for a path segment")
        parts.append(seg)
    times, pos, vel, acc = [np.array([0.0])], [parts[0][1][:1]], [parts[0][2][:1]], [parts[0][3][:1]]
    for t, p, v, a in parts:
        times.append(times[-1][-1] + t[1:])
        pos.append(p[1:]), vel.append(v[1:]), acc.append(a[1:])
    return _finish(space, np.concatenate(times), np.concatenate(pos), np.concatenate(vel), np.concatenate(acc),
                   max_velocity, max_acceleration, smooth=False)


def _toppra(points: np.ndarray, vmax: float, amax: float, dt: float):
    """TOPP-RA on a chord-length cubic spline through `points`: (times, q, qd, qdd) sampled every dt, or None."""
    import toppra as ta
    from toppra import algorithm, constraint

    ta.setup_logging("WARNING")
    chord = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(points, axis=0), axis=1))])
    keep = np.concatenate([[True], np.diff(chord) > 1e-9])
    points, chord = points[keep], chord[keep]
    path = ta.SplineInterpolator(chord / chord[-1], points, bc_type="clamped")
    n = points.shape[1]
    limits = [constraint.JointVelocityConstraint(np.tile([-vmax, vmax], (n, 1))),
              constraint.JointAccelerationConstraint(np.tile([-amax, amax], (n, 1)))]
    grid = np.linspace(0.0, 1.0, int(np.clip(GRID_PER_POINT * len(points), GRID_MIN, GRID_MAX)) + 1)
    instance = algorithm.TOPPRA(limits, path, gridpoints=grid, parametrizer="ParametrizeConstAccel")
    traj = instance.compute_trajectory(0.0, 0.0)
    if traj is None:
        return None
    duration = float(traj.duration)
    times = np.append(np.arange(0.0, duration, dt), duration)
    return times, traj(times), traj(times, 1), traj(times, 2)


def _inside(positions: np.ndarray, space: JointSpace, is_valid) -> bool:
    if not all(space.contains(q) for q in positions):
        return False
    return is_valid is None or all(is_valid(q) for q in positions)


def _finish(space: JointSpace, times, pos, vel, acc, vmax: float, amax: float, smooth: bool) -> TimedTrajectory:
    """Stretch time uniformly where the samples exceed a limit: by s, velocities scale by 1/s and
    accelerations by 1/s^2. Both the analytic derivatives and the finite differences of the samples count."""
    steps = np.diff(times)
    fd_vel = np.abs(np.diff(pos, axis=0)) / steps[:, None]
    fd_acc = (np.abs(np.diff(fd_vel, axis=0)) / (0.5 * (steps[1:] + steps[:-1]))[:, None] if len(steps) > 1
              else np.zeros(1))
    v = max(float(np.abs(vel).max()), float(fd_vel.max()))
    a = max(float(np.abs(acc).max()), float(fd_acc.max(initial=0.0)))
    s = max(1.0, v / vmax, np.sqrt(a / amax)) * (1.0 + 1e-6)
    if s > 1.0 + 1e-6:
        times, vel, acc = times * s, vel / s, acc / s ** 2
    return TimedTrajectory(space.names, times, pos, vel, acc, smooth)
