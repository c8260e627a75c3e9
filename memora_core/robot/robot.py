"""The Robot interface every backend implements (sim MuJoCo, real G1 over DDS), the objects it reports, and a
registry of backends by `type` (the LeRobot pattern); the typed configuration is memora_core/robot/config.py.
Backends are imported lazily by dotted path, so importing this module never pulls MuJoCo or DDS."""
from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import Field

from memora_core.robot.config import (  # noqa: F401 - the configuration's names, importable from here too
    DDSConfig, Dex3Config, GainsConfig, GraspConfig, GraspPose, IKConfig, MotionConfig, PhysicsConfig, RobotConfig,
    Vec3, _Cfg, _robot_yaml, load_robot_config)
from memora_core.robot.limits import PEAK_TO_MEAN_SPEED, EStop, EStopActive, JointLimits

if TYPE_CHECKING:
    from memora_core.robot.hand_pinch import Pinch


# Cosine of the tilt beyond which an object counts as knocked over (about 45 degrees).
UPRIGHT_COS = 0.7


def yaw_rotation(yaw: float) -> np.ndarray:
    """A turn of `yaw` rad about the world's vertical (3x3)."""
    c, s = float(np.cos(yaw)), float(np.sin(yaw))
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


class SceneObject(_Cfg):
    """An object as the controller knows it: identity from the scene description, pose from the backend."""

    name: str
    category: str
    colour: str
    material: str
    label: str | None = None
    aliases: list[str] = Field(default_factory=list)
    container: bool = False
    half_height: float
    radius: float
    extent: tuple[float, float] | None = None  # half sizes along the object's own x and y (boxes); None: round
    position: Vec3 | None = None  # None: not present / not seen
    # Perceived (head RGB-D scene model): the world direction (rad) of a box's long side on the table, standing.
    # None: round, or the source gives no turn (ground truth reports the full orientation through object_pose).
    yaw: float | None = None

    @classmethod
    def from_spec(cls, spec: Any, position: Vec3 | None = None) -> "SceneObject":
        """From an object of the scene description (sim.scene.config's object spec): identity and size, and
        `position` when known."""
        return cls(name=spec.name, category=spec.category, colour=spec.colour, material=spec.material,
                   label=spec.label, aliases=spec.aliases, container=spec.container, half_height=spec.half_height,
                   radius=spec.footprint_radius, position=position,
                   extent=(spec.size[0], spec.size[1]) if spec.shape == "box" else None)

    def standing_rotation(self) -> np.ndarray:
        """The object standing on its base, turned so that its longer own horizontal axis (x or y, whichever
        `extent` says is longer) lies along the perceived `yaw`; identity when there is no yaw."""
        if self.yaw is None:
            return np.eye(3)
        long_is_y = self.extent is not None and self.extent[1] > self.extent[0]
        return yaw_rotation(self.yaw - (np.pi / 2 if long_is_y else 0.0))

    def upright(self, rot: np.ndarray) -> bool:
        """Whether orientation `rot` (3x3, world) stands the object on its base (not knocked over)."""
        return float(rot[2, 2]) >= UPRIGHT_COS

    def half_sizes(self) -> np.ndarray | None:
        """Half sizes along the object's own x, y, z (boxes); None for round objects."""
        return None if self.extent is None else np.array([*self.extent, self.half_height])

    def half_up(self, rot: np.ndarray) -> float:
        """Half of the object's vertical extent in orientation `rot`: its modelled half height while it stands,
        the half size along whichever of its own axes points up when a box lies on a side."""
        sizes = self.half_sizes()
        if self.upright(rot) or sizes is None:
            return self.half_height
        return float(sizes[int(np.argmax(np.abs(rot[2])))])

    def horizontal_axes(self, rot: np.ndarray) -> list[tuple[np.ndarray, float]]:
        """A box's horizontal axes in orientation `rot` (world direction, half size): its own x and y while it
        stands, the two axes other than the one pointing up when it lies on a side; [] for round objects."""
        sizes = self.half_sizes()
        if sizes is None:
            return []
        up = 2 if self.upright(rot) else int(np.argmax(np.abs(rot[2])))
        return [(rot[:, k], float(sizes[k])) for k in range(3) if k != up]

    def graspable(self, rot: np.ndarray) -> bool:
        """From the top: standing, or a box on any of its faces (a round object lying over rolls away)."""
        return self.upright(rot) or self.extent is not None


class MotionReport(_Cfg):
    completed: bool
    collisions: list[str] = Field(default_factory=list)  # objects the arm hit hard while moving
    stopped_by_estop: bool = False


class Robot(ABC):
    """A robot the controller can drive. `command()` is the only way to move joints: it enforces the
    e-stop and the joint limits before anything reaches the backend."""

    # Told after every joint move sent through `command`/`command_path` (completed or not): a step that makes room
    # at hardware speed runs for minutes, and whoever waits on it (the ROS controller's action feedback) hears that
    # the robot is still moving. A class default, so that every backend has it.
    on_motion: Callable[[], None] | None = None

    def __init__(self, config: RobotConfig) -> None:
        self.config = config
        self.estop = EStop()
        self._limits: JointLimits | None = None

    # --- what a backend provides -------------------------------------------------------------------
    @abstractmethod
    def joint_ranges(self) -> dict[str, tuple[float, float]]: ...

    @abstractmethod
    def joint_positions(self) -> dict[str, float]: ...

    @abstractmethod
    def scene_objects(self) -> list[SceneObject]: ...

    def known_objects(self) -> list[SceneObject]:
        """Every object the robot knows to exist, seen now or not (identity and size; positions where known). A
        robot that sees its table (a perceived scene) knows its catalogue; one that is told the scene knows what it
        is told. A plan's words that fit an unseen known object best mean that object, not a look-alike in view."""
        return self.scene_objects()

    @property
    def perceived_scene(self) -> bool:
        """True when `scene_objects()` come from perception that fills in frame by frame (a step then waits up
        to `motion.object_wait_s` for what it names); False for a scene known outright (ground truth, none)."""
        return False

    @abstractmethod
    def object_pose(self, name: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(position, 3x3 rotation) of a named object, or None when it is not there."""

    @abstractmethod
    def hand_position(self, arm: str | None = None) -> np.ndarray:
        """The palm of `arm` (default: the active arm)."""

    def hand_rotation(self, arm: str | None = None) -> np.ndarray | None:
        """World orientation (3x3) of the palm frame of `arm`; None where the backend does not know it."""
        return None

    @abstractmethod
    def solve_ik(self, target: np.ndarray, seed: dict[str, float] | None = None, rotation: np.ndarray | None = None,
                 orientation_cost: float | None = None) -> tuple[dict[str, float], float]:
        """Joint targets (active arm + waist) putting the palm at `target`, optionally with the palm frame's
        world orientation `rotation`, starting from the current joints overridden by `seed`; and the remaining
        position error (m)."""

    def clearance(self, target: dict[str, float], ignore: set[str], margin: float | None = None,
                  placed: dict[str, np.ndarray] | None = None) -> list[str]:
        """What the robot (and what it holds) would touch at joint targets `target`, or come closer to than
        `margin` (default `motion.clearance_margin`; at most `motion.transit_clearance_margin`): object names
        not in `ignore`, and "table" unless ignored. `placed`: a what-if: these objects (out of the hand, if held)
        stand upright with their centres at those world points instead of where they are. Backends without a
        world model return [] (nothing known)."""
        return []

    # --- arm selection -----------------------------------------------------------------------------
    @property
    def arm(self) -> str:
        return getattr(self, "_arm", self.config.arm)

    def use_arm(self, arm: str) -> None:
        """Make `arm` the one IK, motion and grasping act on. Refused while the other hand holds something."""
        if arm not in self.config.arms:
            raise ValueError(f"arm {arm!r} is not enabled (arms: {self.config.arms})")
        if self.held_object() is not None and arm != self.arm:
            raise ValueError(f"cannot switch to the {arm} arm while the {self.arm} hand holds {self.held_object()}")
        self._arm = arm

    @abstractmethod
    def _move(self, target: dict[str, float], duration_s: float) -> MotionReport: ...

    @abstractmethod
    def grasp(self, name: str, finger_reach: float = 0.0) -> bool:
        """Close the hand on `name` if the palm is within the grasp radius (plus `finger_reach` when the
        fingers already rest on the object: a pitched hand's fingertips reach that far past the palm);
        True when now held."""

    @abstractmethod
    def release(self) -> str | None: ...

    def shape_hand(self, arm: str, thumb: float, fingers: float) -> bool:
        """Pre-shape the empty hand of `arm` before reaching for an object: the thumb `thumb` and the index and
        middle `fingers` of their way from open to closed (grasp.mode fingers). False where the backend has no
        such hand (or it holds something): the hand stays as it is."""
        return False

    def held_at(self, point: np.ndarray) -> None:
        """The closing hand moved what it holds: its centre is now at `point` (world, m; a sweep pinch pushes it
        against the thumb). A backend that places the held object by where it was seen before the grasp keeps it
        there in the hand from now on; one that knows where it is (the simulator's truth) ignores this."""

    def came_to_rest(self, name: str, position: np.ndarray) -> None:
        """Where an object the robot let go of, not seen since, has come to rest (its centre; world, m): the
        controller's estimate (let go over a container, it lies in it, not where the hand opened). A backend that
        keeps a let-go object where the hand let go until it sees it again moves that belief here; one that knows
        where it is (the simulator's truth) ignores this."""

    def finger_pinch(self) -> Pinch | None:
        """Where the current arm's closed hand pinches, from its finger joint state (memora_core.robot.hand_pinch);
        None where the backend has no finger hand."""
        return None

    def seen_fraction(self, name: str) -> float | None:
        """Of `name`'s box, the fraction the view it is kept by explained (1: seen whole); None where objects
        are not perceived, or it is not seen."""
        return None

    def look_at(self, name: str) -> float | None:
        """Look at `name` from the head's viewpoints (the empty hand's arm out of the way) and keep the view that
        shows the most of it; that view's `seen_fraction`. None where the backend cannot (objects not
        perceived, or no viewpoints to take)."""
        return None

    def look(self, around: bool = False) -> bool:
        """Take a fresh look at the table before planning from it: a robot whose objects come from its camera
        takes a new frame (`around`: also from a few other head viewpoints, turning and leaning its waist, and
        back). False where the objects are not perceived (nothing to look at again)."""
        return False

    @abstractmethod
    def held_object(self) -> str | None: ...

    @abstractmethod
    def settle(self, seconds: float) -> None:
        """Let time pass without new commands (physics runs in sim; waits on hardware)."""

    # --- shared, enforced -------------------------------------------------------------------------
    @property
    def limits(self) -> JointLimits:
        if self._limits is None:
            self._limits = JointLimits(self.joint_ranges(), self.config.limits)
        return self._limits

    def command(self, target: dict[str, float], duration_s: float | None = None) -> MotionReport:
        """Move to joint targets in `duration_s` (None: as fast as the velocity limit allows, plus 5 %).
        Raises EStopActive, or LimitViolation (nothing sent) when unsafe: a duration that is not a finite
        number in (0, max_duration_s], a target that is not a finite number inside its joint's range, or a
        duration too short for the velocity limit from the measured joints (refused, not stretched: the
        caller asked for that timing). Backends also keep every streamed frame within the velocity limit
        from their own commanded start (memora_core/robot/trajectory.py)."""
        if self.estop.engaged:
            raise EStopActive("e-stop engaged")
        target = self.limits.target(target)  # before any arithmetic on it
        if duration_s is not None:
            duration_s = self.limits.duration(duration_s)
        if not target:
            return MotionReport(completed=True)
        current = self.joint_positions()
        duration = duration_s if duration_s is not None else max(self.limits.min_duration(current, target) * 1.05, 1e-3)
        self.limits.check(current, target, duration)
        return self._moved(self._move(target, duration))

    def command_path(self, targets: list[dict[str, float]], duration_s: float) -> MotionReport:
        """Move through a sequence of joint targets in at least `duration_s` (time shared by joint distance;
        stretched to what the velocity limit needs). The duration and every waypoint are validated, and the
        whole path limit-checked, before the first one is sent."""
        if self.estop.engaged:
            raise EStopActive("e-stop engaged")
        targets = [self.limits.target(t) for t in targets]  # before any arithmetic on them
        duration_s = self.limits.duration(duration_s)
        if not targets:
            return MotionReport(completed=True)
        current = self.joint_positions()
        prev, lengths = current, []
        for t in targets:
            lengths.append(self.limits.distance(prev, t))
            prev = {**prev, **t}
        total = sum(lengths)
        # The shortest duration that keeps every segment under the velocity limit.
        needed = total / self.config.limits.max_velocity * PEAK_TO_MEAN_SPEED * 1.05
        duration = max(duration_s, needed, 1e-3)
        prev = current
        times = []
        for t, length in zip(targets, lengths):
            seg = duration * (length / total) if total > 0 else duration / len(targets)
            self.limits.check(prev, t, max(seg, 1e-3))
            times.append(seg)
            prev = {**prev, **t}
        return self._moved(self._move_path(targets, times))

    def _moved(self, report: MotionReport) -> MotionReport:
        if self.on_motion is not None:
            self.on_motion()
        return report

    def _move_path(self, targets: list[dict[str, float]], times: list[float]) -> MotionReport:
        """Default: one command per waypoint. Backends may blend them into one smooth motion."""
        collisions: set[str] = set()
        for t, dt in zip(targets, times):
            rep = self._move(t, max(dt, 1e-3))
            collisions |= set(rep.collisions)
            if not rep.completed:
                return MotionReport(completed=False, collisions=sorted(collisions),
                                    stopped_by_estop=rep.stopped_by_estop)
        return MotionReport(completed=True, collisions=sorted(collisions))

    def arm_planner(self, arm: str) -> Any | None:
        """A collision-free motion planner for `arm` (+ waist) on a planning copy of the scene as it is now, what
        the hand holds attached (`memora_core.robot.motion.ArmMotionPlanner`); None when the backend has none."""
        return None

    def reachability(self) -> Any | None:
        """What each arm reaches over the table (`memora_core.robot.motion.ReachabilityMap`), precomputed once per
        robot model; None when the backend has none (the controller then chooses by the object's side)."""
        return None

    def emergency_stop(self) -> None:
        self.estop.trigger()


# type → "module:Class"; imported only when that backend is made.
ROBOT_REGISTRY: dict[str, str] = {
    "sim": "sim.robot_backend:SimRobot",
    "sim_perceived": "sim.perceived_robot:PerceivedSimRobot",
    "unitree_g1": "memora_core.robot.backends.unitree_g1:UnitreeG1Robot",
}


def register_robot(kind: str, target: str) -> None:
    ROBOT_REGISTRY[kind] = target


def make_robot(config: RobotConfig | str, **kwargs: Any) -> Robot:
    if isinstance(config, str):
        config = load_robot_config(config)
    module_name, cls_name = ROBOT_REGISTRY[config.type].split(":")
    cls = getattr(importlib.import_module(module_name), cls_name)
    return cls(config, **kwargs)
