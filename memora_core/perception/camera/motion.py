"""How the view moved between two frames (the head turns and sways): the image translation between them by
phase correlation of their grey images, refined by the previous frame's resting objects that land on
regions of the same colour in this frame (most things on a table stay put, so the best-supported shift is
the camera's; the object being moved is an outlier)."""
from __future__ import annotations

import cv2
import numpy as np


def global_shift(prev_grey: np.ndarray | None, grey: np.ndarray) -> np.ndarray:
    """(dx, dy) such that a point at p in the previous frame is near p + (dx, dy) in this one."""
    if prev_grey is None or prev_grey.shape != grey.shape:
        return np.zeros(2)
    win = cv2.createHanningWindow(grey.shape[::-1], cv2.CV_32F)
    (dx, dy), _ = cv2.phaseCorrelate(prev_grey.astype(np.float32), grey.astype(np.float32), win)
    return np.array([dx, dy])


def refine_shift(guess: np.ndarray, prev: list[tuple[np.ndarray, str | None]],
                 cur: list[tuple[np.ndarray, str | None]], tol: float) -> np.ndarray:
    """The guess corrected by the median residual of the previous resting objects (moved by the guess) that
    fall within `tol` of a region of their colour; the guess itself when fewer than two do."""
    if not prev or not cur:
        return guess
    q = np.array([c for c, _ in cur], float)
    res = []
    for c, colour in prev:
        moved = c + guess
        d = np.linalg.norm(q - moved, axis=1)
        d = np.where([col == colour for _, col in cur], d, np.inf)
        j = int(np.argmin(d))
        if d[j] < tol:
            res.append(q[j] - moved)
    return guess + np.median(np.array(res), axis=0) if len(res) >= 2 else guess
