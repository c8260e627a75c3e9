"""The Robot interface every backend implements (sim MuJoCo, real G1 over DDS), its typed configuration
and a registry of backends by `type` (the LeRobot pattern). Backends are imported lazily by dotted path,
so importing this module never pulls MuJoCo or DDS."""
from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from memora_core.config import CONFIG_DIR, load_yaml
from memora_core.robot.limits import EStop, EStopActive, JointLimits, LimitsConfig

Vec3 = tuple[float, float, float]


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GraspConfig(_Cfg):
    radius: float = Field(gt=0)
    clearance: float = Field(ge=0)


class IKConfig(_Cfg):
    tolerance: float = Field(gt=0)
    iterations: int = Field(ge=1)
    dt: float = Field(gt=0)
    posture_cost: float = Field(ge=0)
    orientation_cost: float = Field(ge=0)


class MotionConfig(_Cfg):
    lift_height: float = Field(gt=0)
    approach_height: float = Field(gt=0)
    speed: float = Field(gt=0)
    min_segment_s: float = Field(gt=0)
    settle_s: float = Field(ge=0)
    place_tolerance: float = Field(gt=0)
    collision_force: float = Field(gt=0)
    pour_angle: float
    pour_hold_s: float = Field(ge=0)


class DDSConfig(_Cfg):
    domain: int = 0
    interface: str = "eth0"
    command_hz: float = Field(default=250.0, gt=0)


class GainsConfig(_Cfg):
    kp_arm: float = 60.0
    kd_arm: float = 1.5
    kp_leg: float = 120.0
    kd_leg: float = 2.0


class PhysicsConfig(_Cfg):
    real_time: bool = False


class RobotConfig(_Cfg):
    type: Literal["sim", "unitree_g1"]
    scene: str = "scenes/kitchen.yaml"
    arm: Literal["right", "left"] = "right"
    home: dict[str, float] = Field(default_factory=dict)
    limits: LimitsConfig
    grasp: GraspConfig
    ik: IKConfig
    motion: MotionConfig
    dds: DDSConfig | None = None
    gains: GainsConfig | None = None
    physics: PhysicsConfig = Field(default_factory=PhysicsConfig)

    def scene_path(self) -> Path:
        path = Path(self.scene)
        return path if path.is_absolute() else CONFIG_DIR / path


def load_robot_config(name_or_path: str | Path = "sim_g1") -> RobotConfig:
    path = Path(name_or_path)
    if not path.suffix:
        path = CONFIG_DIR / "robots" / f"{name_or_path}.yaml"
    return RobotConfig.model_validate(load_yaml(path))


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
    position: Vec3 | None = None  # None: not present / not seen


class MotionReport(_Cfg):
    completed: bool
    collisions: list[str] = Field(default_factory=list)  # objects the arm hit hard while moving
    stopped_by_estop: bool = False


class Robot(ABC):
    """A robot the controller can drive. `command()` is the only way to move joints: it enforces the
    e-stop and the joint limits before anything reaches the backend."""

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

    @abstractmethod
    def object_pose(self, name: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(position, 3x3 rotation) of a named object, or None when it is not there."""

    @abstractmethod
    def hand_position(self) -> np.ndarray: ...

    @abstractmethod
    def solve_ik(self, target: np.ndarray, seed: dict[str, float] | None = None) -> tuple[dict[str, float], float]:
        """Joint targets putting the palm at `target`, and the remaining position error (m)."""

    @abstractmethod
    def _move(self, target: dict[str, float], duration_s: float) -> MotionReport: ...

    @abstractmethod
    def grasp(self, name: str) -> bool:
        """Close the hand on `name` if the palm is within the grasp radius; True when now held."""

    @abstractmethod
    def release(self) -> str | None: ...

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
        """Move to joint targets. Raises EStopActive or LimitViolation (nothing sent) when unsafe."""
        if self.estop.engaged:
            raise EStopActive("e-stop engaged")
        current = self.joint_positions()
        needed = self.limits.min_duration(current, target) * 1.05
        duration = max(duration_s if duration_s is not None else needed, 1e-3)
        self.limits.check(current, target, duration)
        return self._move(target, duration)

    def emergency_stop(self) -> None:
        self.estop.trigger()


# type → "module:Class"; imported only when that backend is made.
ROBOT_REGISTRY: dict[str, str] = {
    "sim": "sim.robot_backend:SimRobot",
    "unitree_g1": "sim.unitree_bridge.robot:UnitreeG1Robot",
}


def register_robot(kind: str, target: str) -> None:
    ROBOT_REGISTRY[kind] = target


def make_robot(config: RobotConfig | str, **kwargs: Any) -> Robot:
    if isinstance(config, str):
        config = load_robot_config(config)
    module_name, cls_name = ROBOT_REGISTRY[config.type].split(":")
    cls = getattr(importlib.import_module(module_name), cls_name)
    return cls(config, **kwargs)
