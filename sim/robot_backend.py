"""The simulated G1 as a `Robot`: MuJoCo physics of the kitchen, position-controlled joints, mink IK and a
weld-constraint grasp.

Grasp stand-in: the Dex3 hand is not closed in simulation. When the palm is within `grasp.radius` of an
object's grasp point, the weld between the wrist and that object (created inactive when the scene is built)
is activated with the current relative pose; release deactivates it and the object falls under physics."""
from __future__ import annotations

import time

import mujoco
import numpy as np

from memora_core.robot.hand_pinch import Pinch, pinch_from
from memora_core.robot.robot import MotionReport, Robot, RobotConfig, SceneObject
from memora_core.robot.trajectory import JointTrajectory
from memora_core.robot.body_tree import hangs_from
from memora_core.robot.motion.failures import robot_link
from sim.g1 import HEAD_CAMERA, PALM_SITE, is_arm_link
from sim.ik import ArmIK
from sim.scene import Layout, load_scene_config, sample_layout
from sim.scene.builder import HAND_BODY, build_scene, weld_name

TRACK_S = 0.15  # extra physics time after a ramp so position servos converge
TABLE_TOUCH = 0.005  # m of penetration into the table top the clearance check tolerates (soft fingertip contact)


class SimRobot(Robot):
    def __init__(self, config: RobotConfig, seed: int = 0, objects: list[str] | None = None,
                 layout: Layout | None = None) -> None:
        super().__init__(config)
        self.scene = load_scene_config(config.scene_path())
        self.layout = layout or sample_layout(self.scene, seed, objects)
        self.built = build_scene(self.scene, self.layout, with_robot=True)
        self.model = self.built.model
        self.data = mujoco.MjData(self.model)
        self._arm = config.arm
        self._held: str | None = None
        self._held_arm: str | None = None
        self._dex3: dict[str, object] = {}  # grasp.mode fingers: the Dex3 hands, made on first use
        self._robot_bodies = self._robot_body_ids()
        self._object_body = {n: self.model.body(self.scene.object(n).body_name).id for n in self.layout.poses}
        # body tables for the per-step contact check (_hard_contacts): robot or not; which object (-1: none)
        self._object_names = list(self._object_body)
        self._is_robot_body = np.zeros(self.model.nbody, bool)
        self._is_robot_body[list(self._robot_bodies)] = True
        self._body_object = np.full(self.model.nbody, -1, int)
        for i, n in enumerate(self._object_names):
            self._body_object[self._object_body[n]] = i
        self.iks = {side: ArmIK(self.model, side, config.ik, config.limits.position_margin + 0.005)
                    for side in config.arms}
        from memora_core.robot.motion.config import load_planner_config

        self._check = ClearanceChecker(self.model, self._robot_bodies, self._object_body,
                                        config.motion.clearance_margin, config.motion.transit_clearance_margin,
                                        load_planner_config().self_penetration)
        self._renderer: mujoco.Renderer | None = None
        self._reach = None  # the reachability map, loaded on first use (reachability())
        # Servo feed-forward: the dof of every robot actuator's joint.
        robot_acts = [a for a in range(self.model.nu)
                      if self.model.jnt_bodyid[self.model.actuator_trnid[a, 0]] in self._robot_bodies]
        self._ff_dof = np.array([self.model.jnt_dofadr[self.model.actuator_trnid[a, 0]] for a in robot_acts], int)
        # Velocity feed-forward (physics.velocity_feedforward): kp (q_des - q) + kv (dq_des - dq) is the position
        # actuator's own law kp (q_des + kv / kp dq_des - q) - kv dq, so the commanded velocity goes in as a lead of
        # kv / kp seconds on the target (the actuator's force limit then bounds it as a driver's torque limit does).
        self.servo_lead_s = np.zeros(self.model.nu)
        for a in robot_acts:
            self.servo_lead_s[a] = -self.model.actuator_biasprm[a, 2] / self.model.actuator_gainprm[a, 0]
        self.sim_time_s = 0.0
        # Called after every physics step (execution video, simulator topics); must not step physics itself.
        self.step_observers: list = []
        self.reset()

    # --- setup ---------------------------------------------------------------------------------------
    def _robot_body_ids(self) -> set[int]:
        root = self.model.body("pelvis").id
        return {b for b in range(self.model.nbody) if hangs_from(self.model, b, root)}

    def reset(self) -> None:
        mujoco.mj_resetData(self.model, self.data)
        self.data.eq_active[:] = 0
        for name, value in self.config.home.items():
            self.data.qpos[self.model.joint(name).qposadr[0]] = value
        self._set_ctrl_from_qpos()
        mujoco.mj_forward(self.model, self.data)
        self._held = self._held_arm = None
        self._arm = self.config.arm
        self.settle(0.3)

    def _set_ctrl_from_qpos(self) -> None:
        for a in range(self.model.nu):
            j = self.model.actuator_trnid[a, 0]
            self.data.ctrl[a] = self.data.qpos[self.model.jnt_qposadr[j]]

    # --- Robot interface -----------------------------------------------------------------------------
    def joint_ranges(self) -> dict[str, tuple[float, float]]:
        m = self.model
        return {m.joint(m.actuator_trnid[a, 0]).name: tuple(float(v) for v in m.jnt_range[m.actuator_trnid[a, 0]])
                for a in range(m.nu)}

    def joint_positions(self) -> dict[str, float]:
        m = self.model
        return {m.joint(m.actuator_trnid[a, 0]).name: float(self.data.qpos[m.jnt_qposadr[m.actuator_trnid[a, 0]]])
                for a in range(m.nu)}

    def scene_objects(self) -> list[SceneObject]:
        return [self._scene_object(name) for name in self.layout.poses]

    def ground_truth_objects(self) -> list[SceneObject]:
        """Every object where MuJoCo has it: what scoring and the ground-truth topic read, also on a subclass
        whose controller-facing `scene_objects()` are perceived (sim.perceived_robot)."""
        return SimRobot.scene_objects(self)

    def ground_truth_pose(self, name: str) -> tuple[np.ndarray, np.ndarray] | None:
        """MuJoCo's pose of `name` (scoring only; equal to `object_pose` unless a subclass perceives)."""
        return SimRobot.object_pose(self, name)

    def _scene_object(self, name: str) -> SceneObject:
        spec = self.scene.object(name)
        pos = self.data.xpos[self._object_body[name]]
        return SceneObject.from_spec(spec, tuple(float(v) for v in pos))

    def object_pose(self, name: str) -> tuple[np.ndarray, np.ndarray] | None:
        body = self._object_body.get(name)
        if body is None:
            return None
        return self.data.xpos[body].copy(), self.data.xmat[body].reshape(3, 3).copy()

    def hand_position(self, arm: str | None = None) -> np.ndarray:
        return self.data.site(PALM_SITE[arm or self.arm]).xpos.copy()

    def hand_rotation(self, arm: str | None = None) -> np.ndarray:
        return self.data.site(PALM_SITE[arm or self.arm]).xmat.reshape(3, 3).copy()

    def finger_pinch(self) -> Pinch | None:
        if self.config.grasp.mode != "fingers":
            return None
        return pinch_from(self.model, self.data, self._held_arm or self.arm)  # the stepped physics' kinematics

    @property
    def ik(self) -> ArmIK:
        return self.iks[self.arm]

    def solve_ik(self, target: np.ndarray, seed: dict[str, float] | None = None, rotation: np.ndarray | None = None,
                 orientation_cost: float | None = None) -> tuple[dict[str, float], float]:
        qpos = self._qpos_with(seed)
        return self.ik.solve(qpos, np.asarray(target, float), rotation, orientation_cost)

    def _qpos_with(self, joints: dict[str, float] | None) -> np.ndarray:
        """Current qpos with the actuated joints set to their commanded targets, overridden by `joints`:
        planning starts from where the servos are going, not from where physics lags behind."""
        qpos = self.data.qpos.copy()
        for name, value in (joints or {}).items():
            qpos[self.model.joint(name).qposadr[0]] = value
        return qpos

    def arm_planner(self, arm: str):  # noqa: ANN201 - memora_core.robot.motion.ArmMotionPlanner
        from sim.planning_world import arm_planner

        return arm_planner(self, arm)

    def reachability(self):  # noqa: ANN201 - memora_core.robot.motion.ReachabilityMap
        """Loaded (or built, ~45 s once per robot model and machine) on first use, then kept."""
        if self._reach is None:
            from sim.planning_world import reachability_map

            self._reach = reachability_map(self)
        return self._reach

    def clearance(self, target: dict[str, float], ignore: set[str], margin: float | None = None,
                  placed: dict[str, np.ndarray] | None = None) -> list[str]:
        placed = placed or {}
        held = None
        if self._held is not None and self._held not in placed:
            hand = self.model.body(HAND_BODY[self._held_arm]).id
            held = (self._object_body[self._held], hand, self._rel_pose(hand, self._object_body[self._held]))
        qpos = self._qpos_with(target)
        for name, pos in placed.items():
            adr = self.model.jnt_qposadr[self.model.body_jntadr[self._object_body[name]]]
            qpos[adr:adr + 7] = [*np.asarray(pos, float)[:3], 1.0, 0.0, 0.0, 0.0]  # upright, unturned
        arm = self.arm if self.config.motion.arm_self_check else None
        return self._check.touching(qpos, ignore, held, margin, arm)

    def _move(self, target: dict[str, float], duration_s: float) -> MotionReport:
        return self._move_path([target], [duration_s])

    def _move_path(self, targets: list[dict[str, float]], times: list[float]) -> MotionReport:
        """One smooth motion from the commanded joints through all waypoints: piecewise-linear in joint
        space, with a cosine time scaling over the whole path so the arm starts and stops gently but does
        not stop at each waypoint. Every physics step's control target keeps within the joint velocity
        limit from the previous one whatever `times` say (too little time is stretched; JointTrajectory)."""
        m, d = self.model, self.data
        names = list(dict.fromkeys(k for t in targets for k in t))
        if not names:
            return MotionReport(completed=True)
        ids = np.array([m.actuator(n).id for n in names], int)
        knots = [d.ctrl[ids].copy()]
        for t in targets:
            knots.append(np.array([t.get(n, knots[-1][i]) for i, n in enumerate(names)]))
        path = JointTrajectory(knots, times, m.opt.timestep, self.config.limits.max_velocity)
        lead = self.servo_lead_s[ids] / m.opt.timestep if self.config.physics.velocity_feedforward else None
        collisions: set[str] = set()
        last = knots[0]
        for k in range(len(path) + int(TRACK_S / m.opt.timestep)):
            if self.estop.engaged:
                self._set_ctrl_from_qpos()  # hold where we are, at once
                return MotionReport(completed=False, collisions=sorted(collisions), stopped_by_estop=True)
            target = path[k]
            d.ctrl[ids] = target if lead is None else target + lead * (target - last)  # the last frame: the goal
            last = target
            self._step()
            collisions |= self._hard_contacts()
        return MotionReport(completed=True, collisions=sorted(collisions))

    def _rel_pose(self, hand: int, obj: int) -> tuple[np.ndarray, np.ndarray]:
        """The object's pose in the hand body's frame: (relpos, relquat)."""
        hpos, hquat = self.data.xpos[hand], self.data.xquat[hand]
        opos, oquat = self.data.xpos[obj], self.data.xquat[obj]
        inv = np.zeros(4)
        mujoco.mju_negQuat(inv, hquat)
        relpos = np.zeros(3)
        mujoco.mju_rotVecQuat(relpos, opos - hpos, inv)
        relquat = np.zeros(4)
        mujoco.mju_mulQuat(relquat, inv, oquat)
        return relpos, relquat

    def grasp(self, name: str, finger_reach: float = 0.0) -> bool:
        pose = self.object_pose(name)
        if pose is None or self._held is not None:
            return False
        if self.config.grasp.mode == "fingers":
            return self._finger_grasp(name)
        return self.palm_grasp(name, finger_reach)

    def palm_grasp(self, name: str, finger_reach: float = 0.0) -> bool:
        """Weld `name` to the current hand when the palm is within the grasp reach of its top (plus
        `finger_reach` when the hand's links touch it). Physics decides: the reach is measured to where the
        object really is (MuJoCo's pose), not where the controller believes it (a perceiving subclass)."""
        pose = self.ground_truth_pose(name)
        if pose is None or self._held is not None:
            return False
        obj = self._scene_object(name)
        # The centre of its top face: a standing object's own top, or the upper face of a box lying on a side.
        top = (pose[0] + pose[1] @ np.array([0, 0, obj.half_height]) if obj.upright(pose[1])
               else pose[0] + np.array([0, 0, obj.half_up(pose[1])]))
        reach = self.config.grasp.radius + self.config.grasp.clearance
        if finger_reach > 0 and self._fingers_touch(name):
            reach += finger_reach  # the fingertips, not the palm, are on the object: they close on it
        if np.linalg.norm(self.hand_position() - top) > reach:
            return False
        eq = self.model.equality(weld_name(self.arm, self.scene.object(name))).id
        hand = self.model.body(HAND_BODY[self.arm]).id
        # Weld at the current relative pose: eq_data = anchor(3), relpos(3), relquat(4), torquescale.
        relpos, relquat = self._rel_pose(hand, self._object_body[name])
        self.model.eq_data[eq, 0:3] = 0.0
        self.model.eq_data[eq, 3:6] = relpos
        self.model.eq_data[eq, 6:10] = relquat
        self.model.eq_data[eq, 10] = 1.0
        self.data.eq_active[eq] = 1
        self._held, self._held_arm = name, self.arm
        return True

    def _fingers_touch(self, name: str) -> bool:
        """Whether a link of the current arm's hand is in contact with object `name`."""
        m, d = self.model, self.data
        hand = m.body(HAND_BODY[self.arm]).id
        obj = self._object_body[name]
        for i in range(d.ncon):
            b1, b2 = m.geom_bodyid[d.contact[i].geom1], m.geom_bodyid[d.contact[i].geom2]
            other = b2 if b1 == obj else b1 if b2 == obj else None
            if other is not None and other != obj and hangs_from(self.model, int(other), hand):
                return True
        return False

    def _finger_grasp(self, name: str) -> bool:
        """grasp.mode fingers: close the current arm's Dex3 fingers (physics steps) and hold the object only
        when the thumb and a finger touch it (sim.dex3.close_and_grasp: the weld then takes the load);
        otherwise the hand opens again."""
        from sim.dex3 import close_and_grasp

        if self.arm not in self._dex3:
            from sim.dex3 import Dex3Sim

            self._dex3[self.arm] = Dex3Sim(self.model, self.data, self.arm)
        dex3 = self.config.dex3
        return close_and_grasp(self, name, seconds=dex3.close_s if dex3 else 0.6, hand=self._dex3[self.arm])

    def shape_hand(self, arm: str, thumb: float, fingers: float) -> bool:
        if self.config.grasp.mode != "fingers" or self._held_arm == arm:
            return False
        from sim.dex3 import Dex3Sim, shape

        if arm not in self._dex3:
            self._dex3[arm] = Dex3Sim(self.model, self.data, arm)
        return shape(self, self._dex3[arm], thumb, fingers)

    def release(self) -> str | None:
        name, arm = self._held, self._held_arm
        hand = self._dex3.get(arm) if arm is not None else None
        self._held, self._held_arm = None, None
        if name is not None and hand is not None:  # the fingers let go (sim.dex3.let_go), the weld with them
            from sim.dex3 import let_go

            eq = self.model.equality(weld_name(arm, self.scene.object(name))).id
            let_go(self, hand, lambda: self.data.eq_active.__setitem__(eq, 0),
                   self.config.dex3.open_s if self.config.dex3 else 0.5)
        elif name is not None:
            self.data.eq_active[self.model.equality(weld_name(arm, self.scene.object(name))).id] = 0
        return name

    def held_object(self) -> str | None:
        return self._held

    def settle(self, seconds: float) -> None:
        """Let simulated time pass. Under an e-stop the servos hold where the joints are (once, at the first
        step that sees it): an arm still converging on its last target stops there."""
        held = False
        for _ in range(int(seconds / self.model.opt.timestep)):
            if self.estop.engaged and not held:
                self._set_ctrl_from_qpos()
                held = True
            self._step()

    # --- simulation helpers --------------------------------------------------------------------------
    def _servo_feedforward(self) -> None:
        """tau_ff = gravity (and velocity-product) compensation of the robot's joints, as the G1's motor
        drivers add it to their PD law (LowCmd `tau`), so a servo's error is not spent holding up the arm."""
        self.data.qfrc_applied[self._ff_dof] = self.data.qfrc_bias[self._ff_dof]

    def _step(self) -> None:
        t0 = time.perf_counter()
        if self.config.physics.servo_feedforward:
            self._servo_feedforward()
        mujoco.mj_step(self.model, self.data)
        self.sim_time_s += self.model.opt.timestep
        for observer in self.step_observers:
            observer(self)
        if self.config.physics.real_time:
            time.sleep(max(0.0, self.model.opt.timestep - (time.perf_counter() - t0)))

    def _hard_contacts(self) -> set[str]:
        """Objects (other than the held one) pushed by the robot, or by what it holds, harder than
        motion.collision_force. Runs every physics step: the contacts that touch the robot (or the held object)
        on one side and another scene object on the other are picked out with the model's body tables (a kitchen
        at rest has a few hundred contacts, most of them feet and objects on the table); only those have their
        force computed."""
        n = self.data.ncon
        if n == 0:
            return set()
        geoms = self.data.contact.geom[:n]
        bodies = self.model.geom_bodyid[geoms]                  # (n, 2)
        robot_side = self._is_robot_body[bodies]
        obj = self._body_object[bodies]                         # object index per side, -1 where none
        held = self._body_object[self._object_body[self._held]] if self._held in self._object_body else -2
        robot_side |= obj == held
        other = (obj >= 0) & (obj != held)
        pushed = robot_side[:, ::-1] & other                    # [i, k]: side k is an object the other side pushes
        hits: set[str] = set()
        force = np.zeros(6)
        for i in np.flatnonzero(pushed.any(axis=1)):
            mujoco.mj_contactForce(self.model, self.data, int(i), force)
            if abs(force[0]) > self.config.motion.collision_force:
                hits.update(self._object_names[o] for o in obj[i][pushed[i]])
        return hits

    def render_head(self, width: int = 320, height: int = 240, hide_robot: bool = True) -> np.ndarray:
        if self._renderer is None or (self._renderer.width, self._renderer.height) != (width, height):
            self._renderer = mujoco.Renderer(self.model, height, width)
        opt = mujoco.MjvOption()
        opt.geomgroup[2] = 0 if hide_robot else 1  # the robot's visual meshes are group 2
        self._renderer.update_scene(self.data, camera=HEAD_CAMERA, scene_option=opt)
        return self._renderer.render()

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None


class ClearanceChecker:
    """Kinematic collision check on a private copy of the model whose object and table geoms carry a contact
    margin: a robot (or held-object) geom closer than the margin to a geom of another object or the table
    produces a contact. The held object pressed more than `self_penetration` into the robot anywhere but its
    own hand counts too, named "robot:<body>" (an arm reaching across the body swings what it holds into the
    torso or the other arm; the weld then gives and the object shifts in the hand, or is dropped off the table
    at the let-go), and so does the moving arm (`arm`: its links from the shoulder roll outward) pressed more than
    that into the rest of the robot: the servos cannot push a link through the torso, so the arm would stop
    short of such a posture, centimetres off the path that was checked, into whatever stands there. Physics is
    never stepped here; only positions are set and collisions detected."""

    def __init__(self, model: mujoco.MjModel, robot_bodies: set[int], object_body: dict[str, int],
                 margin: float, max_margin: float | None = None, self_penetration: float = 0.005) -> None:
        import copy

        self.margin = margin
        self.self_penetration = self_penetration
        self._hand_bodies: dict[int, frozenset[int]] = {}  # hand body -> it and the bodies hanging from it

        self.model = copy.deepcopy(model)
        self.data = mujoco.MjData(self.model)
        self.robot_bodies = robot_bodies
        self.body_name = {b: n for n, b in object_body.items()}
        self.table = self.model.geom("table_top").id
        self._arm_links = {side: frozenset(b for b in robot_bodies if is_arm_link(self.model.body(b).name, side))
                           for side in ("left", "right")}
        for g in range(self.model.ngeom):
            if self.model.geom_bodyid[g] in self.body_name:
                # Contacts are generated out to the largest margin asked for; each check keeps those within its own.
                self.model.geom_margin[g] = max(margin, max_margin or 0.0)

    def hand_bodies(self, hand: int) -> frozenset[int]:
        """`hand` and the robot bodies hanging from it (the fingers), found once per hand: the held object may
        touch these."""
        if hand not in self._hand_bodies:
            self._hand_bodies[hand] = frozenset(b for b in self.robot_bodies if hangs_from(self.model, b, hand))
        return self._hand_bodies[hand]

    def touching(self, qpos: np.ndarray, ignore: set[str],
                 held: tuple[int, int, tuple[np.ndarray, np.ndarray]] | None,
                 margin: float | None = None, arm: str | None = None) -> list[str]:
        m, d = self.model, self.data
        arm_links = self._arm_links.get(arm, frozenset())
        margin = self.margin if margin is None else margin
        d.qpos[:] = qpos
        held_body, own_hand = None, frozenset()
        if held is not None:  # carry the held object with the hand at its welded relative pose
            held_body, hand, (relpos, relquat) = held
            own_hand = self.hand_bodies(hand)
            mujoco.mj_kinematics(m, d)
            pos = d.xpos[hand] + d.xmat[hand].reshape(3, 3) @ relpos
            quat = np.zeros(4)
            mujoco.mju_mulQuat(quat, d.xquat[hand], relquat)
            adr = m.jnt_qposadr[m.body_jntadr[held_body]]
            d.qpos[adr:adr + 3] = pos
            d.qpos[adr + 3:adr + 7] = quat
        mujoco.mj_kinematics(m, d)
        mujoco.mj_collision(m, d)
        hits: set[str] = set()
        for i in range(d.ncon):
            c = d.contact[i]
            b1, b2 = int(m.geom_bodyid[c.geom1]), int(m.geom_bodyid[c.geom2])
            for mover, other, og in ((b1, b2, c.geom2), (b2, b1, c.geom1)):
                if mover not in self.robot_bodies and mover != held_body:
                    continue
                # The held object, or the moving arm, pressed into the robot (not into its own hand / arm).
                into_robot = other in self.robot_bodies and c.dist < -self.self_penetration and (
                    (mover == held_body and other not in own_hand) or (mover in arm_links and other not in arm_links))
                if into_robot:
                    name = robot_link(mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, other))
                    if name not in ignore:
                        hits.add(name)
                    continue
                if other in self.robot_bodies or other == held_body:
                    continue
                name = "table" if og == self.table else self.body_name.get(other)
                if name == "table" and c.dist > -TABLE_TOUCH:
                    continue  # fingertips resting on the table top are fine; pressing into it is not
                if name != "table" and c.dist > margin:
                    continue  # within the generated contact range but further than this check asks
                if name and name not in ignore:
                    hits.add(name)
        return sorted(hits)
