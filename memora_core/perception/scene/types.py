"""Data that crosses the scene-model boundary: an RGB-D frame with its intrinsics and pose, the description
of a known entity, and what was perceived."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

import numpy as np


class Shape(str, Enum):
    """What a footprint and a profile tell apart: round things standing up, upright boxes, flat long things,
    and open containers (a rim seen above a lower inside)."""

    CYLINDER = "cylinder"
    BOX = "box"
    CONTAINER = "container"


@dataclass(frozen=True)
class CameraIntrinsics:
    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float

    def matrix(self) -> np.ndarray:
        return np.array([[self.fx, 0, self.cx], [0, self.fy, self.cy], [0, 0, 1.0]])


@dataclass
class RGBDFrame:
    """Colour (H x W x 3 uint8), depth aligned to it (H x W uint16, `depth_unit_m` per count, 0 = none), the
    colour stream's intrinsics and the world-from-optical-frame pose (4x4; optical: x right, y down, z ahead)."""

    rgb: np.ndarray
    depth: np.ndarray
    depth_unit_m: float
    intrinsics: CameraIntrinsics
    world_from_camera: np.ndarray
    stamp_s: float = 0.0


@dataclass(frozen=True)
class EntityDescription:
    """A known object as memory / the scene catalogue describes it: what to look for."""

    name: str
    category: str
    colour: str
    shape: Shape
    height: float                      # m, standing on the table
    footprint: tuple[float, float]     # m, full extent (long side, short side); a round one: (diameter, diameter)
    label: str | None = None


@dataclass
class PerceivedObject:
    """One object segmented from depth, in the world frame."""

    position: tuple[float, float, float]   # centre of its volume (footprint centre, half its height up)
    yaw: float | None                      # rad, of the long side (boxes); None for round things
    size: tuple[float, float, float]       # long side, short side, height (m)
    shape: Shape
    colour: str | None
    pixels: int
    truncated: bool = False                # cut by the image border: its size is a lower bound
    occluded: bool = False                 # partly hidden behind a nearer object: likewise

    @property
    def partial(self) -> bool:
        """Part of it is not seen: its size is a lower bound and its outline may mislead the shape."""
        return self.truncated or self.occluded
    name: str | None = None                # the matched entity, None when nothing known fits
    match_cost: float | None = None
    explained: float | None = None         # of the named entity's box, the fraction its size accounts for


@dataclass
class SceneModel:
    table_z: float
    objects: list[PerceivedObject] = field(default_factory=list)
    stamp_s: float = 0.0

    def get(self, name: str) -> PerceivedObject | None:
        return next((o for o in self.objects if o.name == name), None)

    def unmatched(self) -> list[PerceivedObject]:
        return [o for o in self.objects if o.name is None]
