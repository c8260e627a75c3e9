"""Arm + waist inverse kinematics with mink on the kitchen model: every other DoF (legs, the other arm,
fingers, object free joints) is frozen through an equality constraint, so the solution only moves what the
controller will command."""
from __future__ import annotations

import copy

import mink
import mujoco
import numpy as np

from memora_core.robot.robot import IKConfig
from sim.g1 import ARM_JOINTS, PALM_SITE, WAIST_JOINTS


class ArmIK:
    def __init__(self, model: mujoco.MjModel, side: str, cfg: IKConfig, range_margin: float = 0.0) -> None:
        # A private copy whose joint ranges are shrunk by the limits' margin, so IK never proposes a
        # target the limit checker would refuse.
        model = copy.deepcopy(model)
        self.joints = WAIST_JOINTS + ARM_JOINTS[side]
        for name in self.joints:
            model.jnt_range[model.joint(name).id] += (range_margin, -range_margin)
        self.model = model
        self.cfg = cfg
        self.site = PALM_SITE[side]
        active = {int(model.jnt_dofadr[model.joint(j).id]) for j in self.joints}
        frozen = [i for i in range(model.nv) if i not in active]
        self.configuration = mink.Configuration(model)
        self.frame = mink.FrameTask(self.site, "site", position_cost=1.0,
                                    orientation_cost=cfg.orientation_cost, lm_damping=1e-3)
        self.posture = mink.PostureTask(model, cost=cfg.posture_cost)
        # Frozen DoFs: a heavy damping cost keeps the QP from using them, and their velocity is zeroed before
        # integrating. (mink's DofFreezingTask as a hard constraint made daqp report infeasible here.)
        cost = np.zeros(model.nv)
        cost[frozen] = 1e3
        self.freeze = mink.DampingTask(model, cost=cost)
        self.frozen = np.array(frozen, dtype=int)
        self.limits = [mink.ConfigurationLimit(model)]
        # Fingers forward, palm facing the body's midline: the G1 hand's rest orientation.
        self.rotation = mink.SO3.identity()

    def solve(self, qpos: np.ndarray, target: np.ndarray, rotation: np.ndarray | None = None,
              orientation_cost: float | None = None) -> tuple[dict[str, float], float]:
        """Joint targets for the arm + waist putting the palm at `target` (world), optionally with the palm
        frame's orientation `rotation` (3x3, world) weighted by `orientation_cost`. Returns (joints, position
        residual in m)."""
        cfg = self.configuration
        rot = mink.SO3.from_matrix(np.asarray(rotation, float)) if rotation is not None else self.rotation
        self.frame.set_orientation_cost(self.cfg.orientation_cost if orientation_cost is None else orientation_cost)
        qpos = qpos.copy()
        # Start inside every (shrunk) range, or the QP has no feasible step: physics lets held joints
        # sit a hair outside their stops.
        for j in np.flatnonzero(self.model.jnt_limited):
            if self.model.jnt_type[j] in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE):
                adr = self.model.jnt_qposadr[j]
                qpos[adr] = np.clip(qpos[adr], *self.model.jnt_range[j])
        cfg.update(qpos)
        self.posture.set_target(qpos.copy())
        self.frame.set_target(mink.SE3.from_rotation_and_translation(rot, np.asarray(target, float)))
        err = np.inf
        for _ in range(self.cfg.iterations):
            try:
                vel = mink.solve_ik(cfg, [self.frame, self.posture, self.freeze], self.cfg.dt, "daqp",
                                    damping=1e-3, limits=self.limits)
            except mink.NoSolutionFound:
                break  # report the residual reached so far; the caller decides it is unreachable
            vel[self.frozen] = 0.0
            cfg.integrate_inplace(vel, self.cfg.dt)
            err = float(np.linalg.norm(cfg.data.site(self.site).xpos - target))
            if err < self.cfg.tolerance * 0.3:
                break
        q = {j: float(cfg.q[self.model.joint(j).qposadr[0]]) for j in self.joints}
        return q, err
