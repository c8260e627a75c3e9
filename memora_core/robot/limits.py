"""Safety limits enforced before any command reaches a backend: joint position and velocity limits, a
workspace box for hand targets, and an e-stop that stops motion at once and refuses new commands.

Every number a command carries is checked first, before any limit arithmetic: a duration must be a finite
number > 0 (and, from a caller, at most `max_duration_s`), a joint target a finite number inside its range.
A refusal is a `LimitViolation` whose `cause` (a `LimitCause`) says why; its text is for people only."""
from __future__ import annotations

import math
import numbers
import threading
from enum import Enum

from pydantic import BaseModel, ConfigDict, Field

Vec3 = tuple[float, float, float]


class WorkspaceBox(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    min: Vec3
    max: Vec3

    def contains(self, p) -> bool:
        return all(lo <= float(v) <= hi for v, lo, hi in zip(p, self.min, self.max))

    def nearest(self, p) -> tuple[float, float, float]:
        """The point of the box nearest to `p` (`p` itself when inside)."""
        x, y, z = (min(max(float(v), lo), hi) for v, lo, hi in zip(p, self.min, self.max))
        return x, y, z


class LimitsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    position_margin: float = Field(default=0.02, ge=0)
    max_velocity: float = Field(default=2.0, gt=0)
    max_duration_s: float = Field(default=60.0, gt=0)  # the longest single command a caller may ask for
    workspace: WorkspaceBox


class LimitCause(str, Enum):
    """Why a command was refused."""
    BAD_DURATION = "bad_duration"            # not a finite number > 0
    DURATION_TOO_LONG = "duration_too_long"  # over `max_duration_s`
    BAD_TARGET = "bad_target"                # a joint or hand target that is not a finite number (or not 3 of them)
    UNKNOWN_JOINT = "unknown_joint"
    OUT_OF_RANGE = "out_of_range"            # outside the joint's range less the margin
    TOO_FAST = "too_fast"                    # the move would exceed the joint velocity limit
    BAD_STATE = "bad_state"                  # the measured joint position is not finite: speed cannot be checked
    OUTSIDE_WORKSPACE = "outside_workspace"


class LimitViolation(ValueError):
    """A command would leave the safe envelope; nothing was sent. `cause` says why, `joint` which joint."""

    def __init__(self, cause: LimitCause, detail: str, joint: str | None = None) -> None:
        super().__init__(detail)
        self.cause = cause
        self.joint = joint

    def __reduce__(self):
        return type(self), (self.cause, str(self), self.joint)


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


def finite_number(value: object) -> float | None:
    """`value` as a float when it is a finite real number (bools and strings are not); else None."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def positive_duration(duration_s: object, longest: float | None = None) -> float:
    """`duration_s` as a float: a finite number > 0, and at most `longest` when given; else LimitViolation."""
    d = finite_number(duration_s)
    if d is None or d <= 0:
        raise LimitViolation(LimitCause.BAD_DURATION, f"duration must be a finite number > 0, got {duration_s!r}")
    if longest is not None and d > longest:
        raise LimitViolation(LimitCause.DURATION_TOO_LONG, f"duration {d:g} s exceeds {longest:g} s")
    return d


class JointLimits:
    def __init__(self, ranges: dict[str, tuple[float, float]], config: LimitsConfig) -> None:
        self.ranges = ranges
        self.config = config

    def duration(self, duration_s: object) -> float:
        """A caller's duration, validated: finite, > 0 and at most `max_duration_s`."""
        return positive_duration(duration_s, self.config.max_duration_s)

    def finite_target(self, target: dict[str, object]) -> dict[str, float]:
        """`target` with every joint known and every value a finite number (as floats); else LimitViolation."""
        out: dict[str, float] = {}
        for name, value in target.items():
            if name not in self.ranges:
                raise LimitViolation(LimitCause.UNKNOWN_JOINT, f"unknown joint {name!r}", name)
            v = finite_number(value)
            if v is None:
                raise LimitViolation(LimitCause.BAD_TARGET, f"{name}: target {value!r} is not a finite number", name)
            out[name] = v
        return out

    def target(self, target: dict[str, object]) -> dict[str, float]:
        """`target` validated: known joints, finite numbers, inside the ranges less the margin."""
        out = self.finite_target(target)
        margin = self.config.position_margin
        for name, value in out.items():
            lo, hi = self.ranges[name]
            if not (lo + margin <= value <= hi - margin):
                raise LimitViolation(LimitCause.OUT_OF_RANGE,
                                     f"{name}: target {value:.3f} outside [{lo + margin:.3f}, {hi - margin:.3f}]", name)
        return out

    def distance(self, current: dict[str, float], target: dict[str, float]) -> float:
        """The largest joint distance from `current` to an already finite `target` (a joint missing from
        `current` does not move); LimitViolation when a measured value is not finite."""
        worst = 0.0
        for name, value in target.items():
            now = current.get(name, value)
            if finite_number(now) is None:
                raise LimitViolation(LimitCause.BAD_STATE, f"{name}: measured position {now!r} is not finite", name)
            worst = max(worst, abs(value - float(now)))
        return worst

    def check(self, current: dict[str, float], target: dict[str, float], duration_s: float) -> None:
        """Raise LimitViolation unless every joint target is known, finite, in range and reachable in
        `duration_s` (itself a finite number > 0) without exceeding the velocity limit at peak."""
        duration = positive_duration(duration_s)
        target = self.target(target)
        for name, value in target.items():
            speed = self.distance(current, {name: value}) / duration * PEAK_TO_MEAN_SPEED
            if not speed <= self.config.max_velocity + 1e-9:
                raise LimitViolation(LimitCause.TOO_FAST, f"{name}: {speed:.2f} rad/s (peak) exceeds "
                                     f"{self.config.max_velocity:.2f} rad/s", name)

    def clip(self, joints: dict[str, float]) -> dict[str, float]:
        """`joints` moved into the commandable ranges (a measured posture may rest a hair past a margin)."""
        m = self.config.position_margin
        return {k: min(max(v, self.ranges[k][0] + m), self.ranges[k][1] - m) if k in self.ranges else v
                for k, v in joints.items()}

    def check_workspace(self, point) -> None:
        values = [finite_number(v) for v in point]
        if len(values) != 3 or None in values:
            raise LimitViolation(LimitCause.BAD_TARGET, f"hand target {point!r} is not 3 finite numbers")
        if not self.config.workspace.contains(values):
            raise LimitViolation(LimitCause.OUTSIDE_WORKSPACE,
                                 f"hand target {tuple(round(v, 3) for v in values)} is outside the "
                                 f"workspace {self.config.workspace.min}..{self.config.workspace.max}")

    def min_duration(self, current: dict[str, float], target: dict[str, float]) -> float:
        """The shortest duration that respects the velocity limit (used to time trajectories)."""
        return self.distance(current, self.finite_target(target)) / self.config.max_velocity * PEAK_TO_MEAN_SPEED
