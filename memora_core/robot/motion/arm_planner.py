"""One arm's motion, end to end: goal postures for a palm target (IK, ranked), a collision-free joint path
to the first goal that has one (OMPL), and its timing within the velocity and acceleration limits (TOPP-RA).

    plan = ArmMotionPlanner(world, kinematics, config, max_velocity).plan_to_point(start, target)
    robot.command_path(*plan.trajectory.command_args())
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memora_core.robot.motion.config import PlannerConfig
from memora_core.robot.motion.goals import GoalCandidate, GoalSelector
from memora_core.robot.motion.planner import JointPath, JointPlanner
from memora_core.robot.motion.timing import TimedTrajectory, time_parameterize
from memora_core.robot.motion.world import ArmKinematics, CollisionWorld


@dataclass(frozen=True)
class MotionPlan:
    path: JointPath                 # the collision-checked joint path (shortcut)
    trajectory: TimedTrajectory     # its timing, sampled
    goal: GoalCandidate | None      # the IK goal chosen (None: planned to given joints)
    goals_offered: int = 1          # goal postures the search was given


class ArmMotionPlanner:
    """`max_velocity`: the robot's joint velocity limit (rad/s); trajectories use `config.velocity_fraction`
    of it and at most `config.max_acceleration`."""

    def __init__(self, world: CollisionWorld, kinematics: ArmKinematics | None, config: PlannerConfig,
                 max_velocity: float) -> None:
        self.world = world
        self.kinematics = kinematics
        self.config = config
        self.max_velocity = max_velocity * config.velocity_fraction
        self.planner = JointPlanner(world, config)

    def time(self, path: JointPath) -> TimedTrajectory:
        cfg = self.config
        return time_parameterize(path.waypoints, self.world.space, self.max_velocity, cfg.max_acceleration,
                                 cfg.sample_dt, cfg.spline_step, self.world.is_valid)

    def plan_to_joints(self, start: np.ndarray, goal: np.ndarray) -> MotionPlan:
        path = self.planner.plan(start, goal)
        return MotionPlan(path, self.time(path), None)

    def plan_to_point(self, start: np.ndarray, target: np.ndarray, rotation: np.ndarray | None = None,
                      orientation_cost: float | None = None) -> MotionPlan:
        """To a goal posture for palm `target`: the cheapest one a straight line reaches, else whichever of
        the candidates (`config.goal_candidates`) one RRTConnect search reaches first."""
        if self.kinematics is None:
            raise ValueError("plan_to_point needs arm kinematics")
        goals = GoalSelector(self.kinematics, self.world, self.config).candidates(
            target, start, rotation, orientation_cost)
        path = self.planner.plan_any(start, [g.q for g in goals])
        reached = min(goals, key=lambda g: float(np.abs(g.q - path.waypoints[-1]).max()))
        return MotionPlan(path, self.time(path), reached, len(goals))
