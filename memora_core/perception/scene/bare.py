"""Where one frame saw the table itself with nothing on it: negative evidence for object permanence.

A kept sighting says where an object was last seen; a later frame that shows the table bare at that place says it
is no longer there (the hand pushed it, a grasp flicked it away), though where it went may not be in view. Cells of
`cell_m` on the table plane are bare when the frame has plane points in them and nothing above the plane (an
object, an arm) over them; a cell the frame did not see (hidden behind something, out of view) is not bare."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Plane points a cell needs to count as seen.
MIN_TABLE_POINTS = 3


@dataclass(frozen=True)
class BareTable:
    """`mask[i, j]`: the cell spanning x in [x0 + i*cell_m, +cell_m), y in [y0 + j*cell_m, +cell_m) was seen bare."""

    x0: float
    y0: float
    cell_m: float
    mask: np.ndarray  # rows along x, columns along y; bool

    @classmethod
    def from_points(cls, table_xy: np.ndarray, above_xy: np.ndarray, cell_m: float = 0.01) -> BareTable | None:
        """From the plane's points (x/y) and the points above it (x/y of anything standing or reaching over the
        table); None without plane points."""
        table_xy = np.asarray(table_xy, float).reshape(-1, 2)
        if len(table_xy) == 0:
            return None
        origin = np.floor(table_xy.min(axis=0) / cell_m) * cell_m
        shape = tuple(int(v) for v in np.floor((table_xy.max(axis=0) - origin) / cell_m).astype(int) + 1)
        counts = np.zeros(shape, np.int32)
        ij = np.floor((table_xy - origin) / cell_m).astype(int)
        np.add.at(counts, (np.clip(ij[:, 0], 0, shape[0] - 1), np.clip(ij[:, 1], 0, shape[1] - 1)), 1)
        mask = counts >= MIN_TABLE_POINTS
        above = np.floor((np.asarray(above_xy, float).reshape(-1, 2) - origin) / cell_m).astype(int)
        inside = (above[:, 0] >= 0) & (above[:, 1] >= 0) & (above[:, 0] < shape[0]) & (above[:, 1] < shape[1])
        mask[above[inside, 0], above[inside, 1]] = False
        return cls(float(origin[0]), float(origin[1]), float(cell_m), mask)

    def shows_bare(self, xy, radius: float) -> bool:
        """Whether every cell that the square of half side `radius` around `xy` touches was seen bare (a place
        partly out of the grid is not)."""
        if not (np.all(np.isfinite(np.asarray(xy, float)[:2])) and np.isfinite(radius) and radius >= 0):
            return False
        lo = np.floor((np.asarray(xy[:2], float) - radius - (self.x0, self.y0)) / self.cell_m).astype(int)
        hi = np.floor((np.asarray(xy[:2], float) + radius - (self.x0, self.y0)) / self.cell_m).astype(int)
        if lo.min() < 0 or hi[0] >= self.mask.shape[0] or hi[1] >= self.mask.shape[1]:
            return False
        return bool(self.mask[lo[0]:hi[0] + 1, lo[1]:hi[1] + 1].all())
