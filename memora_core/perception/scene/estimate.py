"""An object's pose, size and shape from its segmented points: the footprint is the minimum-area rectangle
of the points dropped onto the table plane (the top face is seen from above, the near sides fall inside it),
the height the top of the points above the plane."""
from __future__ import annotations

import math

import cv2
import numpy as np

from memora_core.perception.scene.segment import Blob
from memora_core.perception.scene.types import PerceivedObject, Shape

TOP_BAND_M = 0.006     # points this close to the top are the top face (or a container's rim)
BOX_FILL = 0.90        # a footprint filling at least this much of its rectangle is a box (a disc fills pi/4)
RIM_COVER = 0.45       # a top that covers less than this of the footprint is a rim (open container) or a cap
RING_HOLE = 0.5        # a rim is a ring: no top point within this × the radius of its centre (a disc's top has ~25 %)
RING_HOLE_SHARE = 0.05  # ... at most this share of them, for noise
TOP_QUANTILE = 0.98    # of the heights: the top, robust to a stray point
ELONGATED = 2.0        # a footprint at least this many times as long as wide shows its long axis, box or not


def _area(xy: np.ndarray) -> float:
    return float(cv2.contourArea(cv2.convexHull(xy.astype(np.float32))))


def _top_cover(xy: np.ndarray, top: np.ndarray, cell: float) -> float:
    """Fraction of the footprint's grid cells that hold a top-band point."""
    lo = xy.min(axis=0)
    ij = np.floor((xy - lo) / cell).astype(int)
    shape = tuple(ij.max(axis=0) + 1)
    foot = np.zeros(shape, np.uint8)
    hull = cv2.convexHull(ij[:, ::-1].astype(np.int32))
    cv2.fillConvexPoly(foot, hull, 1)
    tops = np.zeros(shape, np.uint8)
    tops[ij[top, 0], ij[top, 1]] = 1
    return float(tops.sum()) / max(1.0, float(foot.sum()))


def _top_is_ring(xy: np.ndarray, top: np.ndarray, radius: float) -> bool:
    """True when the top-band points form a ring with an empty middle (an open container's rim), False when they
    fill a disc (a closed top seen sparsely from afar: few pixels cover few cells, yet it is no rim)."""
    if radius <= 0 or top.sum() < 10:
        return True  # too few to tell: keep the cover's verdict
    centre, _ = fit_circle(xy[top])
    inner = np.linalg.norm(xy[top] - centre, axis=1) < RING_HOLE * radius
    return float(inner.mean()) <= RING_HOLE_SHARE


def fit_circle(xy: np.ndarray) -> tuple[np.ndarray, float]:
    """Least-squares circle (Kasa) through points: centre and radius. Points on part of the circle suffice."""
    a = np.column_stack([2 * xy, np.ones(len(xy))])
    b = (xy ** 2).sum(axis=1)
    (cx, cy, c), *_ = np.linalg.lstsq(a, b, rcond=None)
    return np.array([cx, cy]), float(np.sqrt(max(c + cx * cx + cy * cy, 0.0)))


def estimate(points: np.ndarray, blob: Blob, normal: np.ndarray, table_z: float,
             cell_m: float = 0.003) -> PerceivedObject:
    p = points[blob.index]
    h = blob.heights
    xy = (p - np.outer(h, normal))[:, :2]  # dropped onto the table plane along its normal
    height = float(np.quantile(h, TOP_QUANTILE))
    (cx, cy), (w, l), angle = cv2.minAreaRect(xy.astype(np.float32))
    long_side, short_side = max(w, l), min(w, l)
    rect = max(w * l, 1e-9)
    fill = _area(xy) / rect
    top = h > height - TOP_BAND_M
    # OpenCV's angle is of the side of length w; the yaw is that of the long side, in [-pi/2, pi/2).
    long_yaw = (math.radians(angle if w >= l else angle + 90.0) + math.pi / 2) % math.pi - math.pi / 2
    if fill >= BOX_FILL:
        shape = Shape.BOX
        yaw = long_yaw
    else:
        # Not a box, yet a long thin footprint still shows which way it lies (a spoon, its bowl wider than its
        # handle; a long object partly hidden). Matched to a round object, the yaw is dropped (objects.py).
        yaw = long_yaw if long_side >= ELONGATED * short_side else None
        d = (long_side + short_side) / 2  # a disc's rectangle is a square: its side is the diameter
        open_top = _top_cover(xy, top, cell_m) < RIM_COVER and _top_is_ring(xy, top, d / 2)
        shape = Shape.CONTAINER if open_top else Shape.CYLINDER
        if shape is Shape.CONTAINER and top.sum() >= 10:
            # The rim is a ring seen from above: a circle through it finds the centre even when a neighbour
            # or the image border hides part of the container.
            centre, radius = fit_circle(xy[top])
            (cx, cy), d = centre, max(d, 2 * radius)
        long_side = short_side = d
    return PerceivedObject(position=(float(cx), float(cy), table_z + height / 2), yaw=yaw,
                           size=(float(long_side), float(short_side), height), shape=shape, colour=None,
                           pixels=len(blob.index))
