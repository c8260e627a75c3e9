"""Safety limits enforced before any command reaches a backend: joint position and velocity limits, a
workspace box for hand targets, and an e-stop that stops motion at once and refuses new commands."""
from __future__ import annotations

import math

import threading

from pydantic import BaseModel, ConfigDict, Field

Vec3 = tuple[float, float, float]


class WorkspaceBox(BaseModel):
    model_config = ConfigDict(extra="forbid")
    min: Vec3
    max: Vec3

    def contains(self, p) -> bool:
        return all(lo <= float(v) <= hi for v, lo, hi in zip(p, self.min, self.max))


class LimitsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    position_margin: float = Field(default=0.02, ge=0)
    max_velocity: float = Field(default=2.0, gt=0)
    workspace: WorkspaceBox


class LimitViolation(ValueError):
    """A command would leave the safe envelope; nothing was sent."""


class EStopActive(RuntimeError):
    """The e-stop is engaged: no motion until it is cleared."""


class EStop:
    """Thread-safe latch. Backends poll `engaged` inside their motion loops and stop on the spot."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def trigger(self) -> None:
        self._event.set()

    def clear(self) -> None:
        self._event.clear()

    @property
    def engaged(self) -> bool:
        return self._event.is_set()


# Motions start and stop smoothly (cosine time scaling, in every backend), so a joint's top speed is pi/2
# times its mean speed over the move: the velocity limit is checked against that peak.
PEAK_TO_MEAN_SPEED = math.pi / 2


class JointLimits:
    def __init__(self, ranges: dict[str, tuple[float, float]], config: LimitsConfig) -> None:
        self.ranges = ranges
        self.config = config

    def check(self, current: dict[str, float], target: dict[str, float], duration_s: float) -> None:
        """Raise LimitViolation unless every joint target is known, in range and reachable in duration_s."""
        if duration_s <= 0:
            raise LimitViolation(f"duration must be positive, got {duration_s}")
        margin = self.config.position_margin
        for name, value in target.items():
            if name not in self.ranges:
                raise LimitViolation(f"unknown joint {name!r}")
            if value != value:  # NaN
                raise LimitViolation(f"{name}: target is NaN")
            lo, hi = self.ranges[name]
            if not (lo + margin <= value <= hi - margin):
                raise LimitViolation(f"{name}: target {value:.3f} outside [{lo + margin:.3f}, {hi - margin:.3f}]")
            speed = abs(value - current.get(name, value)) / duration_s * PEAK_TO_MEAN_SPEED
            if speed > self.config.max_velocity + 1e-9:
                raise LimitViolation(f"{name}: {speed:.2f} rad/s (peak) exceeds {self.config.max_velocity:.2f} rad/s")

    def clip(self, joints: dict[str, float]) -> dict[str, float]:
        """`joints` moved into the commandable ranges (a measured posture may rest a hair past a margin)."""
        m = self.config.position_margin
        return {k: min(max(v, self.ranges[k][0] + m), self.ranges[k][1] - m) if k in self.ranges else v
                for k, v in joints.items()}

    def check_workspace(self, point) -> None:
        if not self.config.workspace.contains(point):
            raise LimitViolation(f"hand target {tuple(round(float(v), 3) for v in point)} is outside the "
                                 f"workspace {self.config.workspace.min}..{self.config.workspace.max}")

    def min_duration(self, current: dict[str, float], target: dict[str, float]) -> float:
        """The shortest duration that respects the velocity limit (used to time trajectories)."""
        worst = max((abs(v - current.get(k, v)) for k, v in target.items()), default=0.0)
        return worst / self.config.max_velocity * PEAK_TO_MEAN_SPEED
