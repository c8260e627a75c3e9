"""Goal postures for a palm target: IK from several seeds (the start posture, the start with the waist
turned, random postures inside the ranges), each collision-checked, ranked by cost (joint travel from the
start, clearance missing to the horizon, manipulability). Failures are typed: UNREACHABLE when no seed gets
the palm within tolerance, GOAL_IN_COLLISION (with what is in the way) when every reaching posture touches."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memora_core.robot.motion.config import PlannerConfig
from memora_core.robot.motion.failures import PlanningCause, PlanningFailure
from memora_core.robot.motion.world import ArmKinematics, CollisionWorld


@dataclass(frozen=True)
class GoalCandidate:
    q: np.ndarray
    residual: float      # m of palm position error
    travel: float        # rad: the largest joint change from the start
    clearance: float     # m to the nearest obstacle (capped at the horizon)
    manipulability: float
    cost: float


class GoalSelector:
    def __init__(self, kinematics: ArmKinematics, world: CollisionWorld, config: PlannerConfig) -> None:
        self.kinematics = kinematics
        self.world = world
        self.config = config

    def seeds(self, start: np.ndarray, rng: np.random.Generator) -> list[np.ndarray]:
        space, cfg = self.world.space, self.config
        waist_yaw = space.names.index("waist_yaw_joint") if "waist_yaw_joint" in space.names else None
        seeds = [space.clip(start)]
        for yaw in cfg.waist_yaw_seeds if waist_yaw is not None else []:
            s = seeds[0].copy()
            s[waist_yaw] += yaw
            seeds.append(space.clip(s))
        mid, half = (space.lower + space.upper) / 2, (space.upper - space.lower) / 2
        for _ in range(cfg.ik_seeds):  # random postures in the middle half of each range (the stops are poor seeds)
            seeds.append(mid + half * rng.uniform(-0.5, 0.5, space.dof))
        return seeds

    def candidates(self, target: np.ndarray, start: np.ndarray, rotation: np.ndarray | None = None,
                   orientation_cost: float | None = None, seed: int = 0) -> list[GoalCandidate]:
        """Valid postures for `target` (up to `goal_candidates`, seeds tried in order), cheapest first;
        PlanningFailure when there is none."""
        cfg, space = self.config, self.world.space
        found: list[GoalCandidate] = []
        best_residual, blockers = np.inf, set()
        for s in self.seeds(np.asarray(start, float), np.random.default_rng(seed)):
            q, residual = self.kinematics.solve(np.asarray(target, float), s, rotation, orientation_cost)
            best_residual = min(best_residual, residual)
            if residual > cfg.ik_tolerance or not space.contains(q):
                continue
            if any(np.abs(q - c.q).max() < 1e-3 for c in found):
                continue  # the same posture from another seed
            if not self.world.is_valid(q):
                blockers.update(self.world.colliding(q))
                continue
            clearance = self.world.clearance(q)
            manip = self.kinematics.manipulability(q)
            travel = float(np.abs(q - start).max())
            cost = (cfg.goal_travel_weight * travel
                    + cfg.goal_clearance_weight * (cfg.clearance_horizon - clearance)
                    - cfg.goal_manipulability_weight * 100.0 * manip)
            found.append(GoalCandidate(q, residual, travel, clearance, manip, cost))
            if len(found) >= cfg.goal_candidates:
                break
        if found:
            return sorted(found, key=lambda c: c.cost)
        if blockers:
            raise PlanningFailure(PlanningCause.GOAL_IN_COLLISION,
                                  f"every posture reaching the target touches {', '.join(sorted(blockers))}",
                                  tuple(sorted(blockers)), best_residual)
        raise PlanningFailure(PlanningCause.UNREACHABLE,
                              f"no posture reaches the target (best residual {best_residual * 100:.1f} cm)",
                              residual=best_residual)
