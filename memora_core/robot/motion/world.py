"""What the planner needs from the world, as small typed interfaces: the joints it plans over (limits as
data), a state validity checker, and arm kinematics. The MuJoCo implementation lives with the simulator
(`sim/planning_world.py`); this package never imports MuJoCo."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class JointSpace:
    """The planned joints in order, with the position range each may be commanded to (rad)."""
    names: tuple[str, ...]
    lower: np.ndarray
    upper: np.ndarray

    def __post_init__(self) -> None:
        if not (len(self.names) == len(self.lower) == len(self.upper)):
            raise ValueError("JointSpace: names, lower and upper differ in length")
        if not np.all(np.asarray(self.lower) < np.asarray(self.upper)):
            raise ValueError("JointSpace: every lower bound must be below its upper bound")

    @property
    def dof(self) -> int:
        return len(self.names)

    def vector(self, joints: dict[str, float]) -> np.ndarray:
        """The planned joints of a joint dict, in this space's order (KeyError when one is missing)."""
        return np.array([float(joints[n]) for n in self.names])

    def as_dict(self, q: np.ndarray) -> dict[str, float]:
        return {n: float(v) for n, v in zip(self.names, q)}

    def contains(self, q: np.ndarray, tolerance: float = 0.0) -> bool:
        q = np.asarray(q, float)
        return bool(np.all(q >= self.lower - tolerance) and np.all(q <= self.upper + tolerance))

    def clip(self, q: np.ndarray) -> np.ndarray:
        return np.clip(np.asarray(q, float), self.lower, self.upper)


@runtime_checkable
class CollisionWorld(Protocol):
    """State validity over a `JointSpace`: whether a posture keeps the robot (and what it holds) clear of
    everything else and of itself, which bodies are in the way, and how much room is left."""

    space: JointSpace

    def is_valid(self, q: np.ndarray) -> bool: ...

    def colliding(self, q: np.ndarray) -> list[str]:
        """Names of what the posture touches or comes closer to than the margin ([] when valid)."""

    def clearance(self, q: np.ndarray) -> float:
        """Smallest distance (m) from the robot and held object to any obstacle, capped at the horizon."""


@runtime_checkable
class ArmKinematics(Protocol):
    """One arm's (+ waist's) kinematics over the same `JointSpace` as the world."""

    space: JointSpace

    def solve(self, target: np.ndarray, seed: np.ndarray, rotation: np.ndarray | None = None,
              orientation_cost: float | None = None) -> tuple[np.ndarray, float]:
        """Joints putting the palm at `target` (world, m) starting from `seed`; and the position residual (m)."""

    def palm(self, q: np.ndarray) -> np.ndarray:
        """Palm position (world) at joints `q`."""

    def manipulability(self, q: np.ndarray) -> float:
        """sqrt(det(J J^T)) of the palm's position Jacobian over the planned joints at `q`."""
