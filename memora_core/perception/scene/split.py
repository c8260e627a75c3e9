"""Touching objects apart: a connected group of cells on the top-down grid may hold two objects that touch (a spoon
lying against a bowl, a box standing in one). Seen from above, each object is a surface whose height changes little
from cell to cell, and where one object meets another the height jumps. So the group is cut along jumps larger than
`step_m` into pieces, and pieces are joined back where they are one object's parts:
- a piece too small to be an object joins the neighbour it meets at the smallest height jump;
- a piece lying within a neighbour's outline and no higher than its top is that neighbour's inside (a cup's floor
  seen past its wall) or its lower part; a piece higher than the neighbour it lies in is a part of it on top (a
  bottle's cap over its shoulders), unless that neighbour is an open container, whose rim stands at its outline: then
  it is what stands in the container.
Pure numpy / scipy on the grid; `segment.py` calls it for each connected group."""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

# 8-neighbour offsets, each edge once
_STEPS = ((0, 1), (1, 0), (1, 1), (1, -1))


@dataclass(frozen=True)
class SplitSettings:
    step_m: float = 0.02          # a height jump between neighbouring cells larger than this parts two surfaces
    inside_share: float = 0.6     # a piece with this share of its cells within a neighbour's outline lies in it
    rim_share: float = 0.6        # an open container: this share of its top cells lie in the outer part of its outline
    rim_radius: float = 0.7       # ... the outer part: beyond this fraction of the outline's radius from its centre
    top_band_m: float = 0.006     # cells this close to a piece's top are its top


def _neighbours(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (a, b) of the group's cells that are 8-neighbours, each pair once."""
    lo = cells.min(axis=0)
    rel = cells - lo
    index = np.full(tuple(rel.max(axis=0) + 3), -1, np.int64)  # a border of -1 all round: no wrap-around
    index[rel[:, 0] + 1, rel[:, 1] + 1] = np.arange(len(cells))
    a, b = [], []
    for di, dj in _STEPS:
        other = index[rel[:, 0] + 1 + di, rel[:, 1] + 1 + dj]
        ok = other >= 0
        a.append(np.flatnonzero(ok))
        b.append(other[ok])
    return np.concatenate(a), np.concatenate(b)


def _pieces(n: int, a: np.ndarray, b: np.ndarray, height: np.ndarray, step: float) -> np.ndarray:
    """Label (0..k-1) of each of `n` cells after cutting the group at height jumps > `step`."""
    keep = np.abs(height[a] - height[b]) <= step
    graph = coo_matrix((np.ones(int(keep.sum())), (a[keep], b[keep])), shape=(n, n))
    return connected_components(graph, directed=False)[1]


def _borders(a: np.ndarray, b: np.ndarray, height: np.ndarray,
             label: np.ndarray) -> dict[tuple[int, int], tuple[int, float]]:
    """For each pair of pieces that touch: how many neighbouring cell pairs they share (any height), and the
    smallest height jump across them."""
    la, lb = label[a], label[b]
    cross = la != lb
    lo, hi = np.minimum(la, lb)[cross], np.maximum(la, lb)[cross]
    jump = np.abs(height[a] - height[b])[cross]
    out: dict[tuple[int, int], tuple[int, float]] = {}
    for key, count in zip(*np.unique(np.stack([lo, hi], axis=1), axis=0, return_counts=True)):
        pick = (lo == key[0]) & (hi == key[1])
        out[(int(key[0]), int(key[1]))] = (int(count), float(jump[pick].min()))
    return out


def _outline(cells: np.ndarray) -> np.ndarray:
    """A piece's convex outline (OpenCV hull, points as (column, row))."""
    return cv2.convexHull(cells[:, ::-1].astype(np.int32))


def _inside_share(piece: np.ndarray, outline: np.ndarray) -> float:
    """The share of `piece`'s cells inside the convex `outline` or on its edge (exact, in integer arithmetic): on
    the same side of every edge, and within the outline's bounding box (which settles a hull of one or two
    corners, all of whose edges a point on their line is "on")."""
    if len(piece) == 0:
        return 0.0
    corners = outline.reshape(-1, 2)[:, ::-1].astype(np.int64)  # (i, j), in the hull's order
    edges = np.roll(corners, -1, axis=0) - corners
    rel = piece[:, None, :].astype(np.int64) - corners[None]
    cross = edges[None, :, 0] * rel[..., 1] - edges[None, :, 1] * rel[..., 0]
    inside = (cross >= 0).all(axis=1) | (cross <= 0).all(axis=1)
    inside &= ((piece >= corners.min(axis=0)) & (piece <= corners.max(axis=0))).all(axis=1)
    return float(inside.mean())


def _is_open_container(cells: np.ndarray, height: np.ndarray, s: SplitSettings) -> bool:
    """The piece's top cells lie mostly in the outer part of its outline: a rim around a lower middle."""
    top = height >= height.max() - s.top_band_m
    centre = cells.mean(axis=0)
    radius = np.linalg.norm(cells - centre, axis=1)
    outer = radius[top] >= s.rim_radius * max(float(radius.max()), 1e-9)
    return bool(top.sum() >= 3 and outer.mean() >= s.rim_share)


def split_group(cells: np.ndarray, height: np.ndarray, min_cells: int, s: SplitSettings | None = None) -> np.ndarray:
    """Piece label per cell of one connected group (`cells`: N x 2 grid indices, `height`: each cell's highest
    point above the table). Labels are 0..k-1; one label when the group is one object."""
    s = s or SplitSettings()
    if len(cells) < 2 * min_cells:
        return np.zeros(len(cells), int)
    a, b = _neighbours(cells)
    label = _pieces(len(cells), a, b, height, s.step_m)
    while True:
        ids, sizes = np.unique(label, return_counts=True)
        if len(ids) == 1:
            break
        borders = _borders(a, b, height, label)
        merge = _next_merge(cells, height, label, ids, sizes, borders, min_cells, s)
        if merge is None:
            break
        small, into = merge
        label[label == small] = into
    return np.unique(label, return_inverse=True)[1]


def _next_merge(cells: np.ndarray, height: np.ndarray, label: np.ndarray, ids: np.ndarray, sizes: np.ndarray,
                borders: dict[tuple[int, int], tuple[int, float]], min_cells: int,
                s: SplitSettings) -> tuple[int, int] | None:
    """The next (piece, neighbour) to join, smallest piece first; None when every piece stands apart. A piece too
    small to be an object joins the neighbour it meets at the smallest height jump (a stray cell of a bottle's side
    beside a spoon is the bottle's)."""
    for k in ids[np.argsort(sizes, kind="stable")]:
        near = {(b if a == k else a): v for (a, b), v in borders.items() if k in (a, b)}
        if not near:
            continue
        if sizes[ids == k][0] < min_cells:
            return int(k), min(near, key=lambda o: (near[o][1], -near[o][0]))
        mine = label == k
        for other in sorted(near, key=lambda o: near[o][0], reverse=True):
            theirs = label == other
            if _inside_share(cells[mine], _outline(cells[theirs])) < s.inside_share:
                continue
            below = height[mine].max() <= height[theirs].max() + s.step_m
            if below or not _is_open_container(cells[theirs], height[theirs], s):
                return int(k), int(other)
    return None
