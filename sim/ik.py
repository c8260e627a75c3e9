"""Arm + waist inverse kinematics with mink. The QP runs on a reduced copy of the G1 that keeps only the
joints the controller commands for one arm (waist + that arm's 7): every other joint (legs, the other arm,
fingers, the scene's object free joints) is deleted from the spec, which fixes its body at the pose it has
with that joint at zero. That holds for the palm: legs are held at zero under a fixed pelvis, and neither
the other arm nor the fingers move the palm site. A 10-DoF QP instead of one over every DoF of the kitchen
(~115) makes a solve several times faster, which is what makes grasp selection over many hand poses cheap."""
from __future__ import annotations

import functools

import mink
import mujoco
import numpy as np

from memora_core.robot.robot import IKConfig
from sim.g1 import ARM_JOINTS, PALM_SITE, TRUNK_BODIES, WAIST_JOINTS, is_arm_link, load_g1_spec


@functools.lru_cache(maxsize=4)
def _arm_model(side: str, range_margin: float) -> mujoco.MjModel:
    """The G1 with only waist + `side` arm joints, ranges shrunk by the limits' margin so IK never
    proposes a target the limit checker would refuse. Cached: it depends on nothing but the arm."""
    spec = load_g1_spec()
    keep = set(WAIST_JOINTS + ARM_JOINTS[side])
    for act in list(spec.actuators):
        spec.delete(act)
    for eq in list(spec.equalities):
        spec.delete(eq)
    for joint in list(spec.joints):
        if joint.name not in keep:
            spec.delete(joint)
    for geom in spec.geoms:  # kinematics only: no contacts to compute (the self-collision limit keeps its own)
        body = geom.parent.name
        if not (geom.contype and (body in TRUNK_BODIES or is_arm_link(body, side))):
            geom.contype = 0
            geom.conaffinity = 0
    model = spec.compile()
    for name in keep:
        model.jnt_range[model.joint(name).id] += (range_margin, -range_margin)
    return model


class ArmIK:
    def __init__(self, model: mujoco.MjModel, side: str, cfg: IKConfig, range_margin: float = 0.0) -> None:
        """`model`: the full model whose qpos `solve` receives (the kitchen with the G1, or the G1 alone)."""
        self.joints = WAIST_JOINTS + ARM_JOINTS[side]
        self.model = _arm_model(side, float(range_margin))
        self.cfg = cfg
        self.site = PALM_SITE[side]
        # Where each IK joint's value sits in the full model's qpos, and in the reduced one's.
        self._src = np.array([int(model.joint(j).qposadr[0]) for j in self.joints])
        self._dst = np.array([int(self.model.joint(j).qposadr[0]) for j in self.joints])
        self._lo = self.model.jnt_range[[self.model.joint(j).id for j in self.joints], 0]
        self._hi = self.model.jnt_range[[self.model.joint(j).id for j in self.joints], 1]
        self.configuration = mink.Configuration(self.model)
        self.frame = mink.FrameTask(self.site, "site", position_cost=1.0,
                                    orientation_cost=cfg.orientation_cost, lm_damping=1e-3)
        self.posture = mink.PostureTask(self.model, cost=cfg.posture_cost)
        self.limits = [mink.ConfigurationLimit(self.model)]
        arm_geoms = self._collision_geoms(lambda b: is_arm_link(b, side))
        trunk_geoms = self._collision_geoms(lambda b: b in TRUNK_BODIES)
        self._self_pairs = [(a, t) for a in arm_geoms for t in trunk_geoms]
        if cfg.self_clearance is not None:
            # Keep the arm off the trunk while solving: without it a solve can fold the upper arm into the
            # torso, a posture the servos never reach (the palm then ends centimetres from its target).
            self.limits.append(mink.CollisionAvoidanceLimit(
                self.model, [(arm_geoms, trunk_geoms)],
                minimum_distance_from_collisions=cfg.self_clearance,
                collision_detection_distance=cfg.self_clearance + cfg.self_detection))
        if cfg.max_step is not None:
            # The keep-out is a linearised bound on how fast the arm nears the trunk: one iteration turning a
            # joint by a radian jumps the upper arm into the torso between two checks.
            self.limits.append(mink.VelocityLimit(self.model, {j: cfg.max_step / cfg.dt for j in self.joints}))
        # Fingers forward, palm facing the body's midline: the G1 hand's rest orientation.
        self.rotation = mink.SO3.identity()

    def _collision_geoms(self, keep) -> list[int]:
        m = self.model
        return [g for g in range(m.ngeom) if m.geom_contype[g] and keep(m.body(m.geom_bodyid[g]).name)]

    def _reduced(self, qpos: np.ndarray) -> np.ndarray:
        q = self.model.qpos0.copy()
        # Start inside every (shrunk) range, or the QP has no feasible step: physics lets held joints sit a
        # hair outside their stops.
        q[self._dst] = np.clip(np.asarray(qpos, float)[self._src], self._lo, self._hi)
        return q

    def palm(self, qpos: np.ndarray) -> np.ndarray:
        """Forward kinematics of the palm site for a full-model qpos."""
        cfg = self.configuration
        cfg.update(self._reduced(qpos))
        return cfg.data.site(self.site).xpos.copy()

    def solve(self, qpos: np.ndarray, target: np.ndarray, rotation: np.ndarray | None = None,
              orientation_cost: float | None = None) -> tuple[dict[str, float], float]:
        """Joint targets for the arm + waist putting the palm at `target` (world), optionally with the palm
        frame's orientation `rotation` (3x3, world) weighted by `orientation_cost`, starting from the
        full-model `qpos`. Returns (joints, position residual in m)."""
        cfg = self.configuration
        rot = mink.SO3.from_matrix(np.asarray(rotation, float)) if rotation is not None else self.rotation
        self.frame.set_orientation_cost(self.cfg.orientation_cost if orientation_cost is None else orientation_cost)
        q0 = self._reduced(qpos)
        cfg.update(q0)
        self.posture.set_target(q0.copy())
        target = np.asarray(target, float)
        self.frame.set_target(mink.SE3.from_rotation_and_translation(rot, target))
        err = np.inf
        for _ in range(self.cfg.iterations):
            try:
                vel = mink.solve_ik(cfg, [self.frame, self.posture], self.cfg.dt, "daqp",
                                    damping=1e-3, limits=self.limits)
            except mink.NoSolutionFound:
                break  # report the residual reached so far; the caller decides it is unreachable
            cfg.integrate_inplace(vel, self.cfg.dt)
            err = float(np.linalg.norm(cfg.data.site(self.site).xpos - target))
            if err < self.cfg.tolerance * 0.3:
                break
        q = {j: float(cfg.q[a]) for j, a in zip(self.joints, self._dst)}
        return q, err

    def trunk_distance(self, qpos: np.ndarray) -> float:
        """Signed distance (m, negative: overlap) between this arm's links and the torso/pelvis at the full-model
        `qpos`, over the same collision geoms physics uses."""
        self.configuration.update(self._reduced(qpos))
        m, d = self.model, self.configuration.data
        far = 1.0  # only overlaps and near misses matter: GJK stops looking beyond this
        return min((mujoco.mj_geomDistance(m, d, a, t, far, None) for a, t in self._self_pairs), default=far)
