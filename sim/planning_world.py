"""The MuJoCo side of motion planning: a `CollisionWorld` and an `ArmKinematics` (memora_core.robot.motion)
for one arm + the waist of a `SimRobot`, on a private planning copy of its model (the live simulation's
data is only read, at `sync`).

Validity: positions are set and collisions detected (`mj_kinematics` + `mj_collision`, physics never
stepped). Only contacts that can change with the planned joints, and can count, are generated (through the
copy's contype/conaffinity bits): the planned arm and the held object against everything; what the waist
carries (torso, head, the other arm) against obstacles only, not against itself (rigid among itself) nor the
legs; nothing static (legs, table, objects resting on it, the floor) against anything static.

What counts then: a moving geom or the held object closer than `clearance_margin` to an obstacle (an object
or the table) that is not ignored; a link of the planned arm overlapping another robot link by more than
`self_penetration` (the hands rest against the hips at home); the held object against the robot except its
own hand. The other arm only moves with the waist here; where that slides its resting hand along a thigh
the contact does not count (an idle arm is compliant there, and its home posture already presses on it).
The scene is taken as measured (`sync`): objects, the other arm and the legs where physics has them.""" 
from __future__ import annotations

import copy

import mujoco
import numpy as np

from memora_core.robot.motion.config import PlannerConfig
from memora_core.robot.motion.failures import is_robot_link, robot_link
from memora_core.robot.motion.world import JointSpace
from sim.g1 import ARM_JOINTS, WAIST_JOINTS, is_arm_link
from sim.ik import ArmIK
from sim.robot_backend import SimRobot
from sim.scene.builder import HAND_BODY

# (contype, conaffinity) per group; two geoms collide when (ct1 & ca2) or (ct2 & ca1).
_OBSTACLE_BITS = (1, 0)     # table, objects, floor: against the groups below that list 1
_ROBOT_STATIC_BITS = (8, 0)  # pelvis, legs: against the planned arm only
_WAIST_BITS = (2, 1)        # torso, head, the other arm: against obstacles only
_ARM_BITS = (4, 15)         # the planned arm and the held object: against everything
# What a geom is to the validity check.
OBSTACLE, ROBOT, HELD = 0, 1, 2


def planned_joints(arm: str) -> list[str]:
    return WAIST_JOINTS + ARM_JOINTS[arm]


def joint_space(robot: SimRobot, arm: str) -> JointSpace:
    """The arm + waist joints with the ranges commands may use (the limits' margin, plus 5 mm as the IK)."""
    ranges = robot.joint_ranges()
    inset = robot.config.limits.position_margin + 0.005
    names = planned_joints(arm)
    return JointSpace(tuple(names), np.array([ranges[n][0] + inset for n in names]),
                      np.array([ranges[n][1] - inset for n in names]))


class MujocoPlanningWorld:
    """Validity of arm + waist postures in the kitchen, for one arm. Build with `from_robot`; call `sync`
    whenever the live scene may have changed (objects moved, the other arm moved, an object grasped)."""

    def __init__(self, robot: SimRobot, arm: str, config: PlannerConfig) -> None:
        self.config = config
        self.arm = arm
        self.space = joint_space(robot, arm)
        self.model = copy.deepcopy(robot.model)
        self.data = mujoco.MjData(self.model)
        m = self.model
        self._adr = np.array([int(m.joint(j).qposadr[0]) for j in self.space.names])
        self._object_body = dict(robot._object_body)
        moving_root = m.joint(WAIST_JOINTS[0]).bodyid[0]
        self._robot = {b for b in range(m.nbody) if _descends(m, b, m.body("pelvis").id)}
        self._moving = {b for b in self._robot if _descends(m, b, moving_root)}
        body_name = {b: n for n, b in self._object_body.items()}
        table = m.geom("table_top").id
        self.names: list[str] = []  # obstacle names, indexed by _owner
        self._owner = np.full(m.ngeom, -1)
        self._kind = np.full(m.ngeom, OBSTACLE)
        for g in range(m.ngeom):
            if not (m.geom_contype[g] or m.geom_conaffinity[g]):
                continue
            b = int(m.geom_bodyid[g])
            if b in self._robot:
                self._kind[g] = ROBOT
                self._owner[g] = self._name_id(robot_link(m.body(b).name))
                bits = (_ARM_BITS if is_arm_link(m.body(b).name, arm) else
                        _WAIST_BITS if b in self._moving else _ROBOT_STATIC_BITS)
            else:
                name = "table" if g == table else body_name.get(b) or (m.body(b).name or "world")
                self._owner[g] = self._name_id(name)
                bits = _OBSTACLE_BITS
                m.geom_margin[g] = config.clearance_margin  # contacts are generated out to the margin
            m.geom_contype[g], m.geom_conaffinity[g] = bits
            if b in self._robot:
                m.geom_margin[g] = 0.0
        self._ignored = np.zeros(len(self.names), bool)
        self._held: tuple[int, int, np.ndarray, np.ndarray] | None = None  # body, hand, relpos, relquat
        self._hand_geoms = np.zeros(m.ngeom, bool)
        self._arm_geoms = np.array([b in self._robot and is_arm_link(m.body(int(b)).name, arm) for b in m.geom_bodyid])
        self._obstacle_geoms = self._kind == OBSTACLE
        self.checks = 0
        self.sync(robot)

    def _name_id(self, name: str) -> int:
        if name not in self.names:
            self.names.append(name)
        return self.names.index(name)

    # --- scene state ------------------------------------------------------------------------------
    def sync(self, robot: SimRobot) -> None:
        """Take the live scene as measured (object poses, joints) and attach what the robot holds."""
        self.data.qpos[:] = robot.data.qpos
        self.detach()
        held = robot.held_object()
        if held is not None:
            hand = robot.model.body(HAND_BODY[robot._held_arm]).id
            relpos, relquat = robot._rel_pose(hand, robot._object_body[held])
            self.attach(held, robot._held_arm, relpos, relquat)

    def attach(self, name: str, arm: str, relpos: np.ndarray, relquat: np.ndarray) -> None:
        """Carry object `name` with `arm`'s hand at pose (relpos, relquat) in the hand body's frame: it then
        moves with the hand and must clear everything but that hand."""
        m = self.model
        self.detach()
        body, hand = self._object_body[name], m.body(HAND_BODY[arm]).id
        self._held = (body, hand, np.asarray(relpos, float), np.asarray(relquat, float))
        adr = m.jnt_qposadr[m.body_jntadr[body]]
        self._held_rest = (adr, self.data.qpos[adr:adr + 7].copy())  # put back on detach
        for g in np.flatnonzero(m.geom_bodyid == body):
            if self._owner[g] >= 0:
                self._kind[g] = HELD
                m.geom_contype[g], m.geom_conaffinity[g] = _ARM_BITS
        self._hand_geoms = np.array([_descends(m, int(b), hand) for b in m.geom_bodyid])

    def detach(self) -> None:
        m = self.model
        if self._held is not None:
            adr, rest = self._held_rest
            self.data.qpos[adr:adr + 7] = rest
            for g in np.flatnonzero(self._kind == HELD):
                self._kind[g] = OBSTACLE
                m.geom_contype[g], m.geom_conaffinity[g] = _OBSTACLE_BITS
        self._held = None
        self._hand_geoms[:] = False

    def ignore(self, names: set[str] | frozenset[str]) -> None:
        """Obstacles whose contacts do not count (an object about to be grasped, the table under a put-down)."""
        self._ignored = np.array([n in names for n in self.names], bool)

    # --- CollisionWorld ---------------------------------------------------------------------------
    def _contacts(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(geom pairs, distances, counts-for-validity mask) of the contacts at posture `q`."""
        m, d = self.model, self.data
        self.checks += 1
        d.qpos[self._adr] = q
        mujoco.mj_kinematics(m, d)
        if self._held is not None:
            body, hand, relpos, relquat = self._held
            adr = m.jnt_qposadr[m.body_jntadr[body]]
            d.qpos[adr:adr + 3] = d.xpos[hand] + d.xmat[hand].reshape(3, 3) @ relpos
            mujoco.mju_mulQuat(d.qpos[adr + 3:adr + 7], d.xquat[hand], relquat)
            mujoco.mj_kinematics(m, d)
        mujoco.mj_collision(m, d)
        n = d.ncon
        if n == 0:
            return np.zeros((0, 2), int), np.zeros(0), np.zeros(0, bool)
        geom = d.contact.geom[:n]
        dist = d.contact.dist[:n].copy()
        k1, k2 = self._kind[geom[:, 0]], self._kind[geom[:, 1]]
        obstacle_pair = (k1 == OBSTACLE) | (k2 == OBSTACLE)
        obst = np.where(k1 == OBSTACLE, geom[:, 0], geom[:, 1])
        counts_obstacle = obstacle_pair & ~self._ignored[self._owner[obst]] & (dist < self.config.clearance_margin)
        held_pair = (k1 == HELD) | (k2 == HELD)
        other = np.where(k1 == HELD, geom[:, 1], geom[:, 0])
        with_own_hand = held_pair & self._hand_geoms[other]
        arm_pair = self._arm_geoms[geom[:, 0]] | self._arm_geoms[geom[:, 1]]
        counts_self = ~obstacle_pair & (arm_pair | held_pair) & ~with_own_hand & (dist < -self.config.self_penetration)
        return geom, dist, counts_obstacle | counts_self

    def is_valid(self, q: np.ndarray) -> bool:
        return not self._contacts(np.asarray(q, float))[2].any()

    def colliding(self, q: np.ndarray) -> list[str]:
        """What is in the way: obstacle names; for a collision with the robot itself, its links ("robot:<link>")."""
        geom, _, counts = self._contacts(np.asarray(q, float))
        names: set[str] = set()
        for pair in geom[counts]:
            kinds = self._kind[pair]
            if OBSTACLE in kinds:
                names.add(self.names[self._owner[pair[int(np.argmax(kinds == OBSTACLE))]]])
            else:
                names.update(self.names[self._owner[g]] for g in pair if self._kind[g] == ROBOT)
        return sorted(names)

    def clearance(self, q: np.ndarray) -> float:
        m, horizon = self.model, self.config.clearance_horizon
        m.geom_margin[self._obstacle_geoms] = horizon  # generate contacts out to the horizon for this one check
        try:
            geom, dist, _ = self._contacts(np.asarray(q, float))
        finally:
            m.geom_margin[self._obstacle_geoms] = self.config.clearance_margin
        k1, k2 = self._kind[geom[:, 0]], self._kind[geom[:, 1]]
        obst = np.where(k1 == OBSTACLE, geom[:, 0], geom[:, 1])
        near = ((k1 == OBSTACLE) | (k2 == OBSTACLE)) & ~self._ignored[self._owner[obst]]
        return float(min(dist[near].min(initial=horizon), horizon))


class MujocoArmKinematics:
    """`ArmKinematics` for one arm of a `SimRobot`: its mink IK (sim/ik.py) over the arm + waist, with every
    other joint as the robot commands it now."""

    def __init__(self, robot: SimRobot, arm: str, self_clearance: float | None = None) -> None:
        self.space = joint_space(robot, arm)
        self.ik = robot.iks[arm]
        if self_clearance is not None:  # the robot's IK, keeping the arm this far off the torso (and in small steps)
            cfg = robot.config.ik.model_copy(update={"self_clearance": self_clearance,
                                                     "max_step": robot.config.ik.max_step or 0.1})
            self.ik = ArmIK(robot.model, arm, cfg, robot.config.limits.position_margin + 0.005)
        self._qpos = robot._qpos_with(_commanded(robot))
        self._adr = np.array([int(robot.model.joint(j).qposadr[0]) for j in self.space.names])

    def _full(self, q: np.ndarray) -> np.ndarray:
        qpos = self._qpos.copy()
        qpos[self._adr] = q
        return qpos

    def solve(self, target: np.ndarray, seed: np.ndarray, rotation: np.ndarray | None = None,
              orientation_cost: float | None = None) -> tuple[np.ndarray, float]:
        joints, residual = self.ik.solve(self._full(seed), np.asarray(target, float), rotation, orientation_cost)
        return self.space.vector(joints), residual

    def palm(self, q: np.ndarray) -> np.ndarray:
        return self.ik.palm(self._full(q))

    def manipulability(self, q: np.ndarray) -> float:
        ik = self.ik
        ik.configuration.update(ik._reduced(self._full(q)))
        m, d = ik.model, ik.configuration.data
        jac = np.zeros((3, m.nv))
        mujoco.mj_jacSite(m, d, jac, None, m.site(ik.site).id)
        cols = [int(m.joint(j).dofadr[0]) for j in self.space.names]
        j = jac[:, cols]
        return float(np.sqrt(max(np.linalg.det(j @ j.T), 0.0)))


def _commanded(robot: SimRobot) -> dict[str, float]:
    """Every actuated joint at its commanded target (where the servos are going, not where physics lags)."""
    m = robot.model
    return {m.joint(m.actuator_trnid[a, 0]).name: float(robot.data.ctrl[a]) for a in range(m.nu)}


def _descends(m: mujoco.MjModel, body: int, root: int) -> bool:
    while body > 0:
        if body == root:
            return True
        body = int(m.body_parentid[body])
    return False


def current_posture(robot: SimRobot, arm: str) -> np.ndarray:
    """The planned joints of `arm` (+ waist) as measured, moved into the planning ranges: where a motion
    from rest starts (the commanded home presses the hands ~1 cm into the hips; physics holds them out)."""
    space = joint_space(robot, arm)
    return space.clip(space.vector(robot.joint_positions()))


def start_posture(robot: SimRobot, world: MujocoPlanningWorld) -> np.ndarray:
    """Where the next motion of `world.arm` starts: its commanded posture (where the servos are going; after a
    planned motion, that motion's valid goal) when that is valid, else the measured one (at home the
    commanded posture presses the hands into the hips)."""
    commanded = world.space.clip(commanded_posture(robot, world.arm))
    return commanded if world.is_valid(commanded) else current_posture(robot, world.arm)


def commanded_posture(robot: SimRobot, arm: str) -> np.ndarray:
    """The planned joints of `arm` (+ waist) at their commanded targets: where a new motion starts from."""
    return joint_space(robot, arm).vector(_commanded(robot))


def arm_planner(robot: SimRobot, arm: str, config: PlannerConfig | None = None):
    """An `ArmMotionPlanner` for `arm` of `robot` on a fresh planning copy synced to the live scene (what the
    robot holds attached to its hand)."""
    from memora_core.robot.motion.arm_planner import ArmMotionPlanner
    from memora_core.robot.motion.config import load_planner_config

    config = config or load_planner_config()
    world = MujocoPlanningWorld(robot, arm, config)
    return ArmMotionPlanner(world, MujocoArmKinematics(robot, arm, config.ik_self_clearance), config,
                            robot.config.limits.max_velocity)


def reachability_map(robot: SimRobot, config: PlannerConfig | None = None, progress=None):
    """Each enabled arm's reach over the table (`ReachabilityMap`), cached under `config.cache_path()` per
    robot model, joint ranges and IK settings. A node counts when its IK posture keeps the arm off the robot
    itself (objects and the table are ignored: the map is about the robot, not one layout)."""
    from memora_core.robot.motion.config import load_planner_config
    from memora_core.robot.motion.reachability import ReachabilityMap

    config = config or load_planner_config()
    kin = {arm: MujocoArmKinematics(robot, arm) for arm in robot.config.arms}
    seeds = {arm: current_posture(robot, arm) for arm in kin}
    valid = {}
    for arm in kin:
        world = MujocoPlanningWorld(robot, arm, config)
        world.ignore({n for n in world.names if not is_robot_link(n)})
        valid[arm] = world.is_valid
    key = repr((robot.config.ik.model_dump(), sorted(robot.joint_ranges().items()), robot.config.home,
                robot.config.limits.position_margin, mujoco.__version__))
    return ReachabilityMap.cached(kin, config.reach_grid, config.ik_tolerance, config.cache_path(), key, seeds,
                                  valid, progress)
