"""Depth segmentation over the table plane: points standing above the table, inside its outline, grouped
into objects by connectivity on a top-down grid; a group whose height jumps where two objects touch is cut apart
(`split.py`)."""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from memora_core.perception.scene.split import SplitSettings, split_group


@dataclass(frozen=True)
class SegmentSettings:
    cell_m: float = 0.003        # top-down grid cell
    min_height_m: float = 0.005  # a point this far above the table plane belongs to something on it
    max_height_m: float = 0.45   # above this it is not on the table (an arm, a person)
    min_cells: int = 12          # smaller blobs are noise
    join_cells: int = 1          # closing radius (cells) that joins a blob's pixels across depth gaps
    # Objects stand inside the seen table's outline grown by this much: where the image cuts the table off,
    # an object's near side still drops onto the table outside the part that is seen.
    table_grow_m: float = 0.10
    split: SplitSettings | None = SplitSettings()  # touching objects cut apart at height jumps; None: not


@dataclass
class Blob:
    index: np.ndarray      # into the point array
    heights: np.ndarray    # above the table plane (m), per point


def _grid(xy: np.ndarray, origin: np.ndarray, cell: float, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    ij = np.floor((xy - origin) / cell).astype(int)
    ok = (ij[:, 0] >= 0) & (ij[:, 1] >= 0) & (ij[:, 0] < shape[0]) & (ij[:, 1] < shape[1])
    return ij, ok


def segment(points: np.ndarray, normal: np.ndarray, offset: float, table: np.ndarray,
            s: SegmentSettings | None = None) -> list[Blob]:
    """Objects on the table: `table` marks the plane's inliers; returns one Blob per connected group."""
    s = s or SegmentSettings()
    height = points @ normal - offset
    txy = points[table, :2]
    if len(txy) < 3:
        return []
    grow = int(np.ceil(s.table_grow_m / s.cell_m))
    origin = txy.min(axis=0) - (grow + 2) * s.cell_m
    shape = tuple(np.ceil((txy.max(axis=0) + (grow + 2) * s.cell_m - origin) / s.cell_m).astype(int) + 1)
    hull = cv2.convexHull(np.floor((txy - origin) / s.cell_m).astype(np.int32)[:, ::-1])
    inside = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(inside, hull, 1)
    inside = cv2.dilate(inside, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1)))
    cand = np.flatnonzero((height > s.min_height_m) & (height < s.max_height_m))
    ij, ok = _grid(points[cand, :2], origin, s.cell_m, shape)
    cand, ij = cand[ok], ij[ok]
    on = inside[ij[:, 0], ij[:, 1]] > 0
    cand, ij = cand[on], ij[on]
    occ = np.zeros(shape, np.uint8)
    occ[ij[:, 0], ij[:, 1]] = 1
    if s.join_cells > 0:
        k = 2 * s.join_cells + 1
        occ = cv2.morphologyEx(occ, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(occ, connectivity=8)
    lab = labels[ij[:, 0], ij[:, 1]]
    top = _cell_tops(ij, height[cand], shape) if s.split is not None else None
    blobs = []
    for c in range(1, n):
        if stats[c, cv2.CC_STAT_AREA] < s.min_cells:
            continue
        mine = lab == c
        idx = cand[mine]
        if not len(idx):
            continue
        if top is None:
            blobs.append(Blob(index=idx, heights=height[idx]))
            continue
        cells = np.argwhere(labels == c)
        piece = np.full(shape, -1, int)
        piece[cells[:, 0], cells[:, 1]] = split_group(cells, top[cells[:, 0], cells[:, 1]], s.min_cells, s.split)
        of_point = piece[ij[mine, 0], ij[mine, 1]]
        for k in np.unique(of_point):
            part = idx[of_point == k]
            blobs.append(Blob(index=part, heights=height[part]))
    return blobs


def _cell_tops(ij: np.ndarray, heights: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Each grid cell's highest point above the table; a cell with no point of its own (joined by the closing)
    takes the highest of its neighbours'."""
    top = np.full(shape, -1.0, np.float32)
    np.maximum.at(top, (ij[:, 0], ij[:, 1]), heights.astype(np.float32))
    filled = cv2.dilate(top, np.ones((3, 3), np.uint8))
    return np.where(top >= 0, top, filled)
