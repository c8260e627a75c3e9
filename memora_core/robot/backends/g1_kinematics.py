"""What the G1 backend computes locally, on the G1's kinematic MuJoCo model (never stepped): forward kinematics
and mink IK fed with the measured joints, gravity torques for LowCmd's feed-forward, a kinematic clearance check
of postures against the table of the configured scene and the objects the object source reports (each in a collision
slot, backends/obstacles.py: a box turned as it was seen, else a cylinder of its footprint and height; the held one
moves with the hand), and the motion library's planner and reachability map on a snapshot of that model
(backends/planning_view.py).

`G1Kinematics` is a mixin of `UnitreeG1Robot`: it reads the robot's measured joints (`joint_positions`), its
objects (`scene_objects`, `object_pose`), what it holds (`_held`, `_held_object`), its current `arm` and its Dex3
`hands`."""
from __future__ import annotations

import threading

import mujoco
import numpy as np

from memora_core.robot.backends.obstacles import ObstacleSlots, add_obstacle_slots, pose_in_body
from memora_core.robot.body_tree import hangs_from
from memora_core.robot.hand import FINGER_JOINTS, joint_name
from memora_core.robot.robot import RobotConfig
from sim.g1 import BODY_JOINTS_29, PALM_SITE
from sim.ik import ArmIK
from sim.robot_backend import ClearanceChecker
from sim.scene import Layout, load_scene_config
from sim.scene.builder import HAND_BODY, build_spec

# Collision stand-ins for the objects the source reports (backends.obstacles): more than a tabletop holds.
OBSTACLE_SLOTS = 32


class G1Kinematics:
    def _build_kinematics(self, config: RobotConfig) -> None:
        """The G1 and the table of the configured scene, plus the collision slots; IK per arm."""
        spec = build_spec(load_scene_config(config.scene_path()), Layout(seed=0, poses={}), with_robot=True)
        add_obstacle_slots(spec, OBSTACLE_SLOTS)
        self.model = spec.compile()
        self._per_thread = threading.local()  # each thread's own MjData (see `data`)
        pelvis = self.model.body("pelvis").id
        robot_bodies = {b for b in range(self.model.nbody) if hangs_from(self.model, b, pelvis)}
        self._slots = ObstacleSlots(self.model)
        self._check = ClearanceChecker(self.model, robot_bodies, self._slots.placeholder_names(),
                                       config.motion.clearance_margin)
        self.iks = {side: ArmIK(self.model, side, config.ik, config.limits.position_margin + 0.005)
                    for side in config.arms}
        self._qadr = {n: int(self.model.joint(n).qposadr[0]) for n in BODY_JOINTS_29}
        fingers = [joint_name(side, j) for side in config.arms for j in FINGER_JOINTS]
        self._posture_adr = {**self._qadr, **{n: int(self.model.joint(n).qposadr[0]) for n in fingers}}
        self._dofadr = {n: int(self.model.joint(n).dofadr[0]) for n in BODY_JOINTS_29}
        self._reach = None  # the reachability map, loaded on first use

    @property
    def data(self) -> mujoco.MjData:
        """This thread's MjData of the kinematic model. The controller's thread runs forward kinematics for its
        checks while others ask where the hands are (the object tracker's hand zones, on the scene-model
        subscription's thread): each gets its own, so neither sees the other's half-set posture."""
        data = getattr(self._per_thread, "data", None)
        if data is None:
            data = self._per_thread.data = mujoco.MjData(self.model)
        return data

    def finger_positions(self) -> dict[str, float]:
        """The Dex3 finger joints (model names) as the hands report them, else as last commanded; none without
        hands. The kinematic checks put them in the posture: a pinch-shaped hand reaches less far down than an
        open one."""
        out: dict[str, float] = {}
        for hand in self.hands.values():
            q = hand.q() or hand.target
            if q is not None:
                out.update({joint_name(hand.side, j): float(v) for j, v in zip(FINGER_JOINTS, q)})
        return out

    def joint_ranges(self) -> dict[str, tuple[float, float]]:
        return {n: tuple(float(v) for v in self.model.jnt_range[self.model.joint(n).id]) for n in BODY_JOINTS_29}

    def _gravity_torques(self) -> dict[str, float]:
        """Per body joint, the torque that holds the measured posture against gravity (the feed-forward
        `tau` of LowCmd, so the drivers' PD error is not spent holding up the arms and torso)."""
        if self._q is None:
            return {}
        self._fk()
        self.data.qvel[:] = 0.0
        mujoco.mj_comPos(self.model, self.data)
        bias = np.zeros(self.model.nv)
        mujoco.mj_rne(self.model, self.data, 0, bias)
        return {n: float(bias[self._dofadr[n]]) for n in BODY_JOINTS_29}

    def clearance(self, target: dict[str, float], ignore: set[str], margin: float | None = None,
                  placed: dict[str, np.ndarray] | None = None) -> list[str]:
        """What the posture (the measured joints overridden by `target`) brings the robot or the held object
        within the margin of, unless ignored: the table, and the objects the source reports, each as a box turned as
        it was seen or a cylinder of its footprint radius and height (`backends.obstacles`); the held one moves with
        the hand. `placed`: as Robot.clearance."""
        placed = placed or {}
        objects = [o.model_copy(update={"position": tuple(float(v) for v in placed[o.name])}) if o.name in placed
                   else o for o in self.scene_objects()]
        held = None
        if self._held is not None and self._held_object is not None and self._held not in placed:
            pos, rot = self.object_pose(self._held)  # leaves self.data at the measured joints (its forward kinematics)
            hand = self.model.body(HAND_BODY[self.arm]).id
            held = (hand, pose_in_body(self.data, hand, pos, rot))
        self._fk(target)
        qpos = self.data.qpos.copy()
        names = self._slots.place(self._check.model, qpos, objects)
        self._check.body_name = names
        if held is not None:
            body = next((b for b, n in names.items() if n == self._held), None)
            held = None if body is None else (body, *held)
        arm = self.arm if self.config.motion.arm_self_check else None
        return self._check.touching(qpos, ignore, held, margin, arm)

    def arm_planner(self, arm: str):  # noqa: ANN201 - memora_core.robot.motion.ArmMotionPlanner
        """The motion library's planner for `arm` on a snapshot of this backend's scene (backends.planning_view)."""
        from memora_core.robot.backends.planning_view import PlanningView
        from sim.planning_world import arm_planner

        return arm_planner(PlanningView(self), arm)

    def reachability(self):  # noqa: ANN201 - memora_core.robot.motion.ReachabilityMap
        """The arms' reach over the table (cached per robot model and machine, as the simulated G1's)."""
        if self._reach is None:
            from memora_core.robot.backends.planning_view import PlanningView
            from sim.planning_world import reachability_map

            self._reach = reachability_map(PlanningView(self))
        return self._reach

    def _fk(self, joints: dict[str, float] | None = None) -> None:
        """This thread's `data` at the measured body and finger joints, overridden by `joints`; the collision slots
        parked."""
        data = self.data
        data.qpos[:] = self.model.qpos0
        for n, v in {**self.finger_positions(), **self.joint_positions(), **(joints or {})}.items():
            data.qpos[self._posture_adr[n]] = v
        mujoco.mj_kinematics(self.model, data)

    def hand_position(self, arm: str | None = None) -> np.ndarray:
        self._fk()
        return self.data.site(PALM_SITE[arm or self.arm]).xpos.copy()

    def solve_ik(self, target: np.ndarray, seed: dict[str, float] | None = None, rotation: np.ndarray | None = None,
                 orientation_cost: float | None = None) -> tuple[dict[str, float], float]:
        self._fk(seed)
        return self.iks[self.arm].solve(self.data.qpos.copy(), np.asarray(target, float), rotation, orientation_cost)

    def hand_rotation(self, arm: str | None = None) -> np.ndarray:
        """World orientation of the palm frame of `arm` at the measured joints (the controller keeps a held object
        turned as it hangs, and stands a leaning one, from this)."""
        return self._palm_rotation(arm or self.arm)

    def _palm_rotation(self, arm: str) -> np.ndarray:
        """World orientation of `arm`'s palm frame at the measured joints (forward kinematics)."""
        self._fk()
        return self.data.site(PALM_SITE[arm]).xmat.reshape(3, 3).copy()
