"""What each arm reaches over the table, precomputed on a grid of palm positions (IK residual and
manipulability per arm) and cached to a file, so choosing an arm, a grasp or a put-down spot is a lookup.

    reach = ReachabilityMap.cached(kinematics_by_arm, config.reach_grid, config.ik_tolerance, config.cache_path(), key)
    reach.best_arm(point)          # "right" / "left" / None
    reach.reachable(point, "left")

A node counts as reached when the IK gets the palm within tolerance with a posture `valid` accepts (the
MuJoCo side checks the arm against the robot itself: a waist turned so far that the arm folds through the
torso does not count). A node that is not reached stores an infinite residual. A point between nodes takes
the worst of the 8 around it (a cell is reachable only when all its corners are); outside the grid: not."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable

import numpy as np

from memora_core.robot.motion.config import ReachGridConfig
from memora_core.robot.motion.world import ArmKinematics


class ReachabilityMap:
    def __init__(self, axes: tuple[np.ndarray, np.ndarray, np.ndarray], residual: dict[str, np.ndarray],
                 manipulability: dict[str, np.ndarray], tolerance: float) -> None:
        self.axes = axes
        self.residual = residual
        self.manipulability = manipulability
        self.tolerance = tolerance

    @property
    def arms(self) -> list[str]:
        return sorted(self.residual)

    # --- building ------------------------------------------------------------------------------------
    @staticmethod
    def grid_axes(grid: ReachGridConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return tuple(np.arange(lo, hi + 1e-9, grid.step) for lo, hi in (grid.x_range, grid.y_range, grid.z_range))

    @classmethod
    def build(cls, kinematics: dict[str, ArmKinematics], grid: ReachGridConfig, tolerance: float,
              seeds: dict[str, np.ndarray], valid: dict[str, Callable[[np.ndarray], bool]] | None = None,
              progress: Callable[[int], None] | None = None) -> ReachabilityMap:
        """IK (position only) at every grid node for every arm, from `seeds[arm]`, sweeping the grid so each
        node also starts from its neighbour's solution; the better of the two residuals counts."""
        axes = cls.grid_axes(grid)
        shape = tuple(len(a) for a in axes)
        residual, manip = {}, {}
        for arm, kin in kinematics.items():
            res, man = np.full(shape, np.inf), np.zeros(shape)
            for i, x in enumerate(axes[0]):
                for j, y in enumerate(axes[1]):
                    prev = None
                    for k, z in enumerate(axes[2]):
                        point = np.array([x, y, z])
                        best = None
                        ok = valid[arm] if valid else (lambda q: True)
                        for seed in [seeds[arm]] + ([prev] if prev is not None else []):
                            q, r = kin.solve(point, seed, None, 0.0)
                            r = r if ok(q) else np.inf
                            if best is None or r < best[1]:
                                best = (q, r)
                        prev = best[0] if np.isfinite(best[1]) else None
                        res[i, j, k] = best[1]
                        man[i, j, k] = kin.manipulability(best[0]) if best[1] <= tolerance else 0.0
                    if progress is not None:
                        progress(len(axes[2]))
            residual[arm], manip[arm] = res, man
        return cls(axes, residual, manip, tolerance)

    @classmethod
    def cached(cls, kinematics: dict[str, ArmKinematics], grid: ReachGridConfig, tolerance: float,
               cache_dir: Path, key: str, seeds: dict[str, np.ndarray],
               valid: dict[str, Callable[[np.ndarray], bool]] | None = None,
               progress: Callable[[int], None] | None = None) -> ReachabilityMap:
        """The map from `cache_dir` when one was built for the same grid, tolerance and `key` (a fingerprint
        of the robot model and IK settings); else built and saved there."""
        digest = hashlib.sha256(json.dumps([grid.model_dump(), tolerance, key, sorted(kinematics)],
                                           sort_keys=True).encode()).hexdigest()[:16]
        path = Path(cache_dir) / f"reach_{digest}.npz"
        if path.exists():
            return cls.load(path)
        reach = cls.build(kinematics, grid, tolerance, seeds, valid, progress)
        reach.save(path)
        return reach

    def save(self, path: Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays = {f"res_{a}": r for a, r in self.residual.items()}
        arrays |= {f"man_{a}": m for a, m in self.manipulability.items()}
        tmp = path.with_suffix(".tmp.npz")
        np.savez(tmp, x=self.axes[0], y=self.axes[1], z=self.axes[2], tolerance=self.tolerance, **arrays)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> ReachabilityMap:
        with np.load(path) as data:
            arms = [k[4:] for k in data.files if k.startswith("res_")]
            return cls((data["x"], data["y"], data["z"]), {a: data[f"res_{a}"] for a in arms},
                       {a: data[f"man_{a}"] for a in arms}, float(data["tolerance"]))

    # --- queries -------------------------------------------------------------------------------------
    def _cell(self, point) -> tuple[slice, slice, slice] | None:
        idx = []
        for v, axis in zip(np.asarray(point, float), self.axes):
            if not axis[0] - 1e-9 <= v <= axis[-1] + 1e-9:
                return None
            # A point within a micrometre of a node is on it (grid axes carry arange's rounding).
            i = int(np.clip(np.searchsorted(axis, v + 1e-6, side="right") - 1, 0, len(axis) - 1))
            j = i + 1 if i + 1 < len(axis) and v > axis[i] + 1e-6 else i
            idx.append(slice(i, j + 1))
        return tuple(idx)

    def residual_at(self, point, arm: str) -> float:
        """The worst IK residual (m) of the grid nodes around `point` for `arm` (inf outside the grid)."""
        cell = self._cell(point)
        return float("inf") if cell is None else float(self.residual[arm][cell].max())

    def reachable(self, point, arm: str) -> bool:
        return self.residual_at(point, arm) <= self.tolerance

    def manipulability_at(self, point, arm: str) -> float:
        cell = self._cell(point)
        return 0.0 if cell is None else float(self.manipulability[arm][cell].min())

    def best_arm(self, point) -> str | None:
        """The arm that reaches `point` with the most manipulability (the least stretched); None if neither."""
        arms = [a for a in self.arms if self.reachable(point, a)]
        return max(arms, key=lambda a: self.manipulability_at(point, a)) if arms else None
