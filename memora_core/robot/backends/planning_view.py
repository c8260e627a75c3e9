"""The G1 backend's scene as the motion library plans in it.

`sim.planning_world` builds its planning copy (OMPL validity from MuJoCo collision, mink IK goals, the held
object attached) from a robot's kinematic model and state. On the G1 over DDS that state is: the body joints as
last commanded (where the servos are going; measured where nothing was commanded), the Dex3 fingers as the hands
report them, the objects where the object source reports them, each in a collision slot shaped to it (a box turned
as it was seen, else a cylinder of its footprint and height: backends/obstacles.py), and the held object in its slot
at its pose in the hand. `PlanningView` is that snapshot, taken per planned move, with the few members of a
simulated robot the planning world reads; nothing in it is simulated."""
from __future__ import annotations

from typing import TYPE_CHECKING

import mujoco
import numpy as np

from memora_core.robot.backends.obstacles import pose_in_body

if TYPE_CHECKING:
    from memora_core.robot.backends.unitree_g1 import UnitreeG1Robot


class PlanningView:
    def __init__(self, robot: "UnitreeG1Robot") -> None:
        self.config, self.iks, self.model = robot.config, robot.iks, robot.model
        self._robot = robot
        m = self.model
        self.data = mujoco.MjData(m)
        joints = robot.joint_positions()
        qpos = m.qpos0.copy()
        for name, value in {**robot.finger_positions(), **joints}.items():  # the Dex3 fingers as they are shaped
            qpos[m.joint(name).qposadr[0]] = value
        held = robot.held_object()
        pose = robot.object_pose(held) if held is not None else None
        # The slot sizes are set on the backend's model itself (only collision reads them), so the planning
        # world's copy of it carries them.
        names = robot._slots.place(m, qpos, robot.scene_objects())
        self._object_body = {n: b for b, n in names.items()}
        self._held = held if held in self._object_body and pose is not None else None
        if self._held is not None:
            adr = m.jnt_qposadr[m.body_jntadr[self._object_body[held]]]
            qpos[adr:adr + 3] = pose[0]
            mujoco.mju_mat2Quat(qpos[adr + 3:adr + 7], np.asarray(pose[1], float).reshape(-1))
        self._held_arm = robot.arm if self._held is not None else None
        self.data.qpos[:] = qpos
        mujoco.mj_kinematics(m, self.data)
        commanded = {**joints, **robot._target}
        for a in range(m.nu):  # where the servos are going: a planned motion starts from there
            joint = m.joint(m.actuator_trnid[a, 0]).name
            self.data.ctrl[a] = commanded.get(joint, qpos[m.joint(joint).qposadr[0]])

    def joint_ranges(self) -> dict[str, tuple[float, float]]:
        return self._robot.joint_ranges()

    def joint_positions(self) -> dict[str, float]:
        return self._robot.joint_positions()

    def held_object(self) -> str | None:
        return self._held

    def _rel_pose(self, hand: int, obj: int) -> tuple[np.ndarray, np.ndarray]:
        """Body `obj`'s pose in body `hand`'s frame at this snapshot: (relpos, relquat)."""
        return pose_in_body(self.data, hand, self.data.xpos[obj], self.data.xmat[obj].reshape(3, 3))

    def _qpos_with(self, joints: dict[str, float] | None) -> np.ndarray:
        qpos = self.data.qpos.copy()
        for name, value in (joints or {}).items():
            qpos[self.model.joint(name).qposadr[0]] = value
        return qpos
