"""Typed configuration of human demonstrations (robot_configs/demos/*.yaml).

Two kinds of file:
- `render.yaml`: how a demonstration is filmed and acted (video size and rate, the head camera and its
  sway, the kinematic hand, phase durations and their per-session jitter, physics settling);
- one file per routine (e.g. `task_a_drink.yaml`): the sequence of steps a person performs, with blocks
  that may be done in any order and optional blocks, so repeated sessions vary naturally.
"""
from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memora_core.config import CONFIG_DIR, load_yaml

DEMO_CONFIG_DIR = CONFIG_DIR / "demos"
Vec3 = tuple[float, float, float]
Vec2 = tuple[float, float]


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class VideoConfig(_Cfg):
    width: int = Field(default=320, ge=64, le=1280)
    height: int = Field(default=240, ge=48, le=960)
    fps: float = Field(default=12.0, gt=0, le=30)
    codec: str = "libx264"
    crf: int = Field(default=23, ge=0, le=51)
    preset: str = "veryfast"
    offsamples: int = Field(default=0, ge=0, le=16)  # anti-aliasing samples (0: off, ~2x faster software GL)


class HeadConfig(_Cfg):
    """The person's head: where the eyes are, how the gaze follows what the hand does, and its sway."""

    eye: Vec3 = (0.06, -0.10, 1.45)       # standing where the robot would stand, eyes ~1.5 m up
    fovy_deg: float = Field(default=65.0, gt=10, lt=150)
    gaze_tau_s: float = Field(default=0.22, gt=0)   # first-order lag of the gaze towards its goal
    lean: float = Field(default=0.15, ge=0, le=0.5)  # fraction of the way the head leans towards the gaze
    sway_pos_m: float = Field(default=0.008, ge=0)   # amplitude of head position sway
    sway_gaze_m: float = Field(default=0.015, ge=0)  # amplitude of gaze-point sway on the table
    sway_hz: tuple[float, ...] = (0.21, 0.37, 0.53)  # incommensurate frequencies: no visible period


class HandConfig(_Cfg):
    rest: Vec3 = (0.22, -0.26, 0.93)       # where the right hand waits between actions
    shoulder: Vec3 = (0.0, -0.22, 1.30)    # the hand points away from here (forearm behind it)
    grip_m: float = Field(default=0.018, gt=0)      # palm centre above an object's top when holding it
    pre_grasp_m: float = Field(default=0.10, gt=0)  # hover height above the top before descending
    lift_m: float = Field(default=0.14, gt=0)       # lift after grasping
    carry_clearance_m: float = Field(default=0.26, gt=0)  # carried object's bottom above the table top
    drop_m: float = Field(default=0.008, ge=0)      # release this far above the resting pose
    pour_tilt_deg: float = Field(default=110.0, gt=30, lt=180)
    pour_height_m: float = Field(default=0.10, gt=0)  # palm above the container's rim while pouring
    rest_jitter_m: float = Field(default=0.02, ge=0)


class TimingConfig(_Cfg):
    """Seconds per motion phase; each is scaled by U(1-jitter, 1+jitter) per occurrence."""

    approach_s: float = 1.0
    descend_s: float = 0.5
    grasp_hold_s: float = 0.2
    lift_s: float = 0.5
    carry_s: float = 1.1
    lower_s: float = 0.6
    release_hold_s: float = 0.2
    retract_s: float = 0.5
    to_rest_s: float = 0.8
    pour_move_s: float = 1.0
    pour_tilt_s: float = 0.8
    pour_hold_s: float = 1.4
    look_s: float = 1.2
    pause_s: Vec2 = (0.3, 0.8)  # a random pause between steps (perception reads it as the end of a move)
    jitter: float = Field(default=0.15, ge=0, lt=1)
    settle_s: float = Field(default=0.5, ge=0)  # physics settles before the first frame


class PlaceConfig(_Cfg):
    """Free-spot search on the table for `put ... on table`."""

    grid_step_m: float = Field(default=0.02, gt=0)
    clearance_m: float = Field(default=0.02, ge=0)
    margin_m: float = Field(default=0.06, ge=0)  # keep away from the table's edge


class RenderConfig(_Cfg):
    video: VideoConfig = Field(default_factory=VideoConfig)
    head: HeadConfig = Field(default_factory=HeadConfig)
    hand: HandConfig = Field(default_factory=HandConfig)
    timing: TimingConfig = Field(default_factory=TimingConfig)
    place: PlaceConfig = Field(default_factory=PlaceConfig)
    weld_solref: Vec2 = (0.01, 1.0)  # the carried object's weld to the hand (the stand-in for gripping)


class Step(_Cfg):
    do: Literal["pick", "put", "pour", "look", "rest"]
    object: str | None = None
    target: str | None = None   # put: a container name or 'table'; pour: a container
    near: str | None = None     # put on table: an object or region name to put it next to; 'origin' = back
    duration_s: float | None = Field(default=None, gt=0)  # look/rest: override the configured duration

    @model_validator(mode="after")
    def _fields(self) -> "Step":
        if self.do in ("pick", "put", "pour", "look") and not self.object:
            raise ValueError(f"step '{self.do}' needs an object")
        if self.do in ("put", "pour") and not self.target:
            raise ValueError(f"step '{self.do}' needs a target")
        return self


class SequenceItem(_Cfg):
    """One block of a routine: `steps` in order, or `any_order` blocks permuted per session; included
    with probability `p` (a step a person does only sometimes)."""

    steps: list[Step] = Field(default_factory=list)
    any_order: list[list[Step]] = Field(default_factory=list)
    p: float = Field(default=1.0, ge=0, le=1)

    @model_validator(mode="after")
    def _one_kind(self) -> "SequenceItem":
        if bool(self.steps) == bool(self.any_order):
            raise ValueError("a sequence item has either 'steps' or 'any_order'")
        return self


class RoutineConfig(_Cfg):
    name: str
    description: str = ""
    # What the person says as they set about the task (heard by a microphone; `sim` perception reports it
    # as the segment's transcript). One is drawn per session; empty: the person works in silence.
    announce: list[str] = Field(default_factory=list)
    words_per_s: float = Field(default=2.5, gt=0)  # speaking rate: how long an utterance lasts
    scene: str = "kitchen"           # robot_configs/scenes/<scene>.yaml
    idle_start_s: Vec2 = (2.0, 4.0)  # looking around before starting
    idle_end_s: Vec2 = (2.0, 4.0)
    sequence: list[SequenceItem] = Field(min_length=1)

    def all_steps(self) -> list[Step]:
        out: list[Step] = []
        for item in self.sequence:
            out.extend(item.steps)
            for block in item.any_order:
                out.extend(block)
        return out


def load_render_config(path: Path | str | None = None) -> RenderConfig:
    path = Path(path) if path else DEMO_CONFIG_DIR / "render.yaml"
    return RenderConfig.model_validate(load_yaml(path)) if path.exists() else RenderConfig()


def routine_path(name_or_path: str | Path) -> Path:
    p = Path(name_or_path)
    if p.suffix in (".yaml", ".yml") and p.exists():
        return p
    return DEMO_CONFIG_DIR / f"{p.name}.yaml"


def load_routine(name_or_path: str | Path) -> RoutineConfig:
    path = routine_path(name_or_path)
    if not path.exists():
        known = sorted(q.stem for q in DEMO_CONFIG_DIR.glob("task_*.yaml"))
        raise FileNotFoundError(f"routine {name_or_path!r} not found at {path}; known: {known}")
    return RoutineConfig.model_validate(load_yaml(path))
