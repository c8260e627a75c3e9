"""The one motion profile every backend streams: from the commanded start through joint-space knots,
piecewise linear, with a cosine time scaling over the whole path (it starts and stops smoothly and does not
stop at the knots), sampled once per control period.

The velocity limit holds here whatever a caller asked for. A segment given too little time (or none, or a
non-positive one) is stretched to the shortest time that keeps every joint at or below the limit at the
cosine's peak, and the frame count is rounded up, so no joint ever moves more than `max_velocity * dt` from
one frame to the next (nor from the start to the first frame). Stretching rather than refusing: the backend's
start is its last commanded target, which `Robot.command()` could not see (it checks against the measured
joints), and a motion already accepted should arrive, just no faster than allowed. Targets or times that are
not finite numbers are refused (`LimitViolation`), as at the command seam."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from memora_core.robot.limits import PEAK_TO_MEAN_SPEED, LimitCause, LimitViolation, positive_duration


class JointTrajectory:
    """Frames 1..len(self) of the motion through `knots` (rows: start, then each target; columns: joints),
    `times[i]` seconds asked for segment i, sampled every `dt` s. Frames are computed on demand, so a long
    motion costs no memory; an index past the end is the goal."""

    def __init__(self, knots: Sequence[Sequence[float]], times: Sequence[float], dt: float,
                 max_velocity: float) -> None:
        self.knots = np.asarray(knots, float)
        if self.knots.ndim != 2 or len(self.knots) != len(times) + 1:
            raise ValueError(f"{len(times)} segment times need {len(times) + 1} knots, got shape {self.knots.shape}")
        if not np.all(np.isfinite(self.knots)):
            raise LimitViolation(LimitCause.BAD_TARGET, "a joint target is not a finite number")
        dt = positive_duration(dt)
        max_velocity = float(max_velocity)  # LimitsConfig keeps it finite and > 0
        asked = np.array([_time(t) for t in times], float)
        step = np.abs(np.diff(self.knots, axis=0)).max(axis=1, initial=0.0)
        fastest = step * PEAK_TO_MEAN_SPEED / max_velocity
        self.times = np.maximum(asked, fastest)
        self.total = sum(self.times.tolist())  # a plain sum: inf on overflow, no numpy warning
        if not math.isfinite(self.total):
            raise LimitViolation(LimitCause.BAD_DURATION, "the motion's duration is not finite")
        moving = self.times > 0
        rate = float((step[moving] / self.times[moving]).max(initial=0.0))  # joint rad per second of path time
        # Path time advances at most total * pi / 2 per unit of s, s by 1 / frames per frame.
        need = rate * self.total * PEAK_TO_MEAN_SPEED / (max_velocity * dt)
        self.frames = max(1, round(float(asked.sum()) / dt), math.ceil(need))
        self.cum = np.concatenate([[0.0], np.cumsum(self.times)])

    @property
    def goal(self) -> np.ndarray:
        return self.knots[-1]

    def __len__(self) -> int:
        return self.frames

    def __getitem__(self, k: int) -> np.ndarray:
        """Frame k + 1 of `frames` (0-based): the commanded joints after k + 1 control periods."""
        if k >= self.frames - 1:
            return self.goal.copy()
        s = (k + 1) / self.frames
        tau = self.total * (0.5 - 0.5 * math.cos(math.pi * s))
        seg = min(int(np.searchsorted(self.cum, tau, side="right")) - 1, len(self.times) - 1)
        span = self.times[seg]
        frac = min(1.0, (tau - self.cum[seg]) / span) if span > 0 else 1.0
        return self.knots[seg] + (self.knots[seg + 1] - self.knots[seg]) * frac


def _time(t: object) -> float:
    """A segment's asked time: finite and not negative (0: as fast as allowed); else LimitViolation."""
    if t == 0:
        return 0.0
    return positive_duration(t)
