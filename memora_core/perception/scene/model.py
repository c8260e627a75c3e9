"""RGB-D frame -> scene model: table plane, depth segmentation, per-object pose/size/shape, colour words from
the camera perception backend's colour naming, and the match to known entities."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memora_core.perception.camera.colour import region_colour
from memora_core.perception.scene.estimate import estimate
from memora_core.perception.scene.geometry import back_project, table_plane
from memora_core.perception.scene.match import MatchSettings, match
from memora_core.perception.scene.segment import SegmentSettings, segment
from memora_core.perception.scene.types import EntityDescription, RGBDFrame, SceneModel, Shape


@dataclass
class SceneModeller:
    """Builds a SceneModel from one frame. `entities` are the known objects to name what is seen."""

    entities: list[EntityDescription]
    segment_settings: SegmentSettings = field(default_factory=SegmentSettings)
    match_settings: MatchSettings = field(default_factory=MatchSettings)
    seed: int = 0

    def observe(self, frame: RGBDFrame) -> SceneModel:
        points, pix = back_project(frame)
        normal, offset, table = table_plane(points, np.random.default_rng(self.seed))
        blobs = segment(points, normal, offset, table, self.segment_settings)
        rgb = frame.rgb.reshape(-1, 3)
        h, w = frame.depth.shape
        label = np.full(h * w, -1, np.int32)
        for k, blob in enumerate(blobs):
            label[pix[blob.index]] = k
        objects = []
        for k, blob in enumerate(blobs):
            centre = points[blob.index].mean(axis=0)
            table_z = float((offset - normal[0] * centre[0] - normal[1] * centre[1]) / normal[2])
            obj = estimate(points, blob, normal, table_z, self.segment_settings.cell_m)
            px = pix[blob.index]
            obj.colour = _colour(rgb[px])
            obj.truncated = _touches_border(px, w, h)
            obj.occluded = _occluded(k, px, label, frame.depth.reshape(-1), w, h)
            objects.append(obj)
        match(objects, self.entities, self.match_settings)
        return SceneModel(table_z=float(offset / normal[2]), objects=objects, stamp_s=frame.stamp_s)


ACHROMATIC = ("silver", "grey", "black")


def _colour(pixels: np.ndarray, level: int = 250, min_fraction: float = 0.2) -> str | None:
    """The colour word of a region from its pixels none of whose channels is clipped at the sensor's top (a
    clipped channel shifts a brightly lit surface's hue). A region nearly all clipped keeps an achromatic
    word (a bright silver clips by nature) and otherwise gets none: its hue is unknown."""
    keep = pixels.max(axis=1) < level
    if keep.sum() >= min_fraction * len(pixels):
        return region_colour(pixels[keep])
    word = region_colour(pixels)
    return word if word in ACHROMATIC else None


def _touches_border(pix: np.ndarray, width: int, height: int, margin: int = 4) -> bool:
    rows, cols = pix // width, pix % width
    return bool((rows < margin).any() or (rows >= height - margin).any() or (cols < margin).any()
                or (cols >= width - margin).any())


def _occluded(k: int, px: np.ndarray, label: np.ndarray, depth: np.ndarray, width: int, height: int,
              ring_px: int = 3, nearer_m_units: int = 10, min_px: int = 5) -> bool:
    """Whether another object's pixels next to this one's (within `ring_px` in the image) are nearer to the
    camera than this object by more than `nearer_m_units` depth units: that object hides part of it."""
    import cv2

    mask = np.zeros(height * width, np.uint8)
    mask[px] = 1
    mask = mask.reshape(height, width)
    ring = (cv2.dilate(mask, np.ones((2 * ring_px + 1, 2 * ring_px + 1), np.uint8)) > 0) & (mask == 0)
    ring = np.flatnonzero(ring.reshape(-1))
    others = ring[(label[ring] >= 0) & (label[ring] != k) & (depth[ring] > 0)]
    if len(others) < min_px:
        return False
    own = float(np.median(depth[px]))
    return int((depth[others] < own - nearer_m_units).sum()) >= min_px


def entity_from_object(name: str, category: str, colour: str, half_height: float, radius: float,
                       extent: tuple[float, float] | None, container: bool, label: str | None = None
                       ) -> EntityDescription:
    """An entity from the robot's object description (memora_core.robot.robot.SceneObject's fields):
    box half-extents or a radius, half height, whether it is a container."""
    if extent is not None:
        shape, foot = Shape.BOX, (2 * max(extent), 2 * min(extent))
    else:
        shape, foot = (Shape.CONTAINER if container else Shape.CYLINDER), (2 * radius, 2 * radius)
    return EntityDescription(name=name, category=category, colour=colour, shape=shape, height=2 * half_height,
                             footprint=foot, label=label)
