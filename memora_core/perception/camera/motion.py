"""How the view moved between two frames (the head turns and sways): a similarity transform (shift, turn,
scale) fitted with RANSAC to ORB feature matches between consecutive grey frames, the hand masked out (it
moves on its own). Most of what is seen (table, floor, objects at rest) does not move, so the transform that
most matches agree on is the camera's."""
from __future__ import annotations

import cv2
import numpy as np

IDENTITY = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


class ViewMotion:
    def __init__(self, features: int = 500, min_inliers: int = 12) -> None:
        self.orb = cv2.ORB_create(nfeatures=features, fastThreshold=10, edgeThreshold=15, patchSize=15)
        self.matcher = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True)
        self.min_inliers = min_inliers
        self._prev = None

    def update(self, grey: np.ndarray, hand: np.ndarray | None = None) -> np.ndarray:
        """2 x 3 transform taking the previous frame's pixel coordinates to this frame's (identity when there
        is no previous frame or too few matches agree)."""
        mask = None if hand is None else np.where(hand, 0, 255).astype(np.uint8)
        kp, des = self.orb.detectAndCompute(grey, mask)
        prev, self._prev = self._prev, (kp, des)
        if prev is None or des is None or prev[1] is None or len(kp) < self.min_inliers:
            return IDENTITY.copy()
        matches = self.matcher.match(prev[1], des)
        if len(matches) < self.min_inliers:
            return IDENTITY.copy()
        src = np.float32([prev[0][m.queryIdx].pt for m in matches])
        dst = np.float32([kp[m.trainIdx].pt for m in matches])
        a, inliers = cv2.estimateAffinePartial2D(src, dst, method=cv2.RANSAC, ransacReprojThreshold=3.0)
        if a is None or inliers is None or int(inliers.sum()) < self.min_inliers:
            return IDENTITY.copy()
        return a


def apply(a: np.ndarray, p: np.ndarray) -> np.ndarray:
    return a[:, :2] @ p + a[:, 2]
