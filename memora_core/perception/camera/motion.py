"""How the view moved between two frames (the head turns, tilts and sways): a plane homography fitted with RANSAC
to ORB feature matches between consecutive grey frames, the hand masked out (it moves on its own). Most of what
is seen (the table top, the floor, objects at rest) does not move, so the transform most matches agree on is
the camera's. A homography, not a similarity: a head turn over a tabletop changes the perspective (the far
edge of the table shrinks while the near one grows), which a shift + turn + scale cannot follow; a point at
rest on the table is carried to where it shows in the new frame. When the homography is implausible (too few
inliers, folding or extreme stretching) the similarity fit on the same matches is used, and with too few
matches the identity."""
from __future__ import annotations

import cv2
import numpy as np

IDENTITY = np.eye(3)


def plausible(h: np.ndarray, width: int, height: int, max_stretch: float = 2.0) -> bool:
    """A homography a head movement between two frames can give: it keeps the frame's orientation (no fold)
    and maps the frame's corners to a convex quadrilateral whose sides are within `max_stretch` of the old."""
    corners = np.float32([[0, 0], [width, 0], [width, height], [0, height]]).reshape(-1, 1, 2)
    q = cv2.perspectiveTransform(corners, h).reshape(-1, 2)
    if not np.all(np.isfinite(q)) or not cv2.isContourConvex(q.astype(np.float32)):
        return False
    if cv2.contourArea(q.astype(np.float32), oriented=True) <= 0:
        return False
    sides = np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)
    old = np.array([width, height, width, height], float)
    ratio = sides / old
    return bool(np.all(ratio < max_stretch) and np.all(ratio > 1.0 / max_stretch))


class ViewMotion:
    def __init__(self, features: int = 800, min_inliers: int = 12, homography: bool = True) -> None:
        self.orb = cv2.ORB_create(nfeatures=features, fastThreshold=10, edgeThreshold=15, patchSize=15)
        self.matcher = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True)
        self.min_inliers = min_inliers
        self.homography = homography
        self._prev = None

    def update(self, grey: np.ndarray, hand: np.ndarray | None = None) -> np.ndarray:
        """3 x 3 transform taking the previous frame's pixel coordinates to this frame's (identity when there
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
        if self.homography:
            h, inliers = cv2.findHomography(src, dst, cv2.RANSAC, 3.0)
            if h is not None and inliers is not None and int(inliers.sum()) >= self.min_inliers \
                    and plausible(h, grey.shape[1], grey.shape[0]):
                return h
        a, inliers = cv2.estimateAffinePartial2D(src, dst, method=cv2.RANSAC, ransacReprojThreshold=3.0)
        if a is None or inliers is None or int(inliers.sum()) < self.min_inliers:
            return IDENTITY.copy()
        return np.vstack([a, [0.0, 0.0, 1.0]])


def apply(h: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The point `p` (x, y) carried by the 3 x 3 transform `h` (a 2 x 3 affine is accepted too)."""
    if h.shape[0] == 2:
        return h[:, :2] @ p + h[:, 2]
    q = h @ np.array([p[0], p[1], 1.0])
    return q[:2] / q[2] if abs(q[2]) > 1e-9 else np.asarray(p, float)
