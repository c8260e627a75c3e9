"""Sparse fringe is no object (backend.solid_regions): the pixels along the edges of several objects (codec halos,
shading) can join into one region that spans half the table while it fills little of its convex hull; an object,
even a thin one lying across the view, fills most of its hull."""
from __future__ import annotations

import cv2
import numpy as np

from memora_core.perception.camera.backend import solid_regions
from memora_core.perception.camera.regions import Region

H, W = 240, 320


def _region(mask: np.ndarray) -> Region:
    ys, xs = np.nonzero(mask)
    x0, y0 = int(xs.min()), int(ys.min())
    return Region(mask=mask, box=(x0, y0, int(xs.max()) - x0 + 1, int(ys.max()) - y0 + 1), area=int(mask.sum()),
                  centre=(float(xs.mean()), float(ys.mean())), colour="orange")


def _draw(fn) -> np.ndarray:
    m = np.zeros((H, W), np.uint8)
    fn(m)
    return m > 0


def test_fringe_along_several_objects_is_dropped_objects_are_kept() -> None:
    rgb = np.full((H, W, 3), 200, np.uint8)
    cup = _draw(lambda m: cv2.circle(m, (60, 60), 14, 1, -1))
    spoon = _draw(lambda m: cv2.line(m, (150, 40), (200, 80), 1, 4))  # thin, lying diagonally
    # outlines of three objects joined by thin seams: one region 180 px across
    fringe = _draw(lambda m: (cv2.circle(m, (100, 160), 20, 1, 1), cv2.circle(m, (170, 190), 18, 1, 1),
                              cv2.rectangle(m, (230, 120), (270, 170), 1, 1), cv2.line(m, (120, 160), (152, 190), 1, 1),
                              cv2.line(m, (188, 190), (230, 160), 1, 1)))
    regions = [_region(cup), _region(spoon), _region(fringe)]
    kept, x = solid_regions(rgb, regions, 0.15)
    assert [r.box for r in kept] == [regions[0].box, regions[1].box]
    assert len(x) == 2
    kept, _ = solid_regions(rgb, regions, 0.0)  # the filter off: the fringe passes as an object
    assert len(kept) == 3
