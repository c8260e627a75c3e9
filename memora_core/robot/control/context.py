"""The controller's parts, wired together: each part (arm motion, transit, grasping, put-down, the skills,
the recoveries) gets this context and reaches the others through it."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from memora_core.robot.control.resolve import Resolver
from memora_core.robot.control.scene import SceneView
from memora_core.robot.control.state import ControlState
from memora_core.robot.robot import Robot

if TYPE_CHECKING:
    from memora_core.robot.control.arm_motion import ArmMotion
    from memora_core.robot.control.grasping import GraspChooser
    from memora_core.robot.control.guarded import GuardedApproach
    from memora_core.robot.control.planned import PlannedMotion
    from memora_core.robot.control.putdown import PutDown
    from memora_core.robot.control.skills import Skills
    from memora_core.robot.control.transit import Transit


class ControlContext:
    def __init__(self, robot: Robot, table_height: float, regions: dict[str, tuple[float, float, float]],
                 tallest_object: float = 0.22) -> None:
        self.robot = robot
        self.cfg = robot.config
        self.table_z = table_height
        self.regions = {k.lower(): np.array(v, float) for k, v in regions.items()}
        self.tallest = tallest_object
        self.state = ControlState(pose=self.cfg.motion.grasp_poses[0])
        self.resolver = Resolver(robot)
        self.scene = SceneView(robot, self.resolver, table_height, self.state)
        # filled in by the controller (they need this context)
        self.arm: ArmMotion
        self.transit: Transit
        self.planned: PlannedMotion
        self.guarded: GuardedApproach
        self.grasps: GraspChooser
        self.putdown: PutDown
        self.skills: Skills

    def table_put_point(self) -> np.ndarray | None:
        """The work area 'on the table' means when no place is named (`motion.table_put_region`), if any."""
        return self.regions.get((self.cfg.motion.table_put_region or "").lower())

    @property
    def reach(self):  # noqa: ANN201 - memora_core.robot.motion.ReachabilityMap | None
        """The robot's reachability map (the backend loads and keeps it); None when its backend has none."""
        return self.robot.reachability()
