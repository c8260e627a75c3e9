"""Depth back-projection and the table plane: pure numpy."""
from __future__ import annotations

import numpy as np

from memora_core.perception.scene.types import RGBDFrame


class NoTableError(ValueError):
    """The depth image holds no horizontal support surface to model a scene on."""


def back_project(frame: RGBDFrame, stride: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """World points (N x 3) of the pixels with a depth return, and their flat pixel indices (into H*W)."""
    k = frame.intrinsics
    h, w = frame.depth.shape
    vs, us = np.mgrid[0:h:stride, 0:w:stride]
    z = frame.depth[vs, us].astype(np.float64) * frame.depth_unit_m
    ok = z > 0
    us, vs, z = us[ok], vs[ok], z[ok]
    cam = np.stack([(us - k.cx) / k.fx * z, (vs - k.cy) / k.fy * z, z], axis=1)
    T = frame.world_from_camera
    return cam @ T[:3, :3].T + T[:3, 3], vs * w + us


def fit_plane(points: np.ndarray) -> tuple[np.ndarray, float]:
    """Least-squares plane through points: unit normal n (z up) and offset d with n.p = d on the plane."""
    c = points.mean(axis=0)
    _, _, vt = np.linalg.svd(points - c, full_matrices=False)
    n = vt[-1]
    if n[2] < 0:
        n = -n
    return n, float(n @ c)


def table_plane(points: np.ndarray, rng: np.random.Generator, iterations: int = 100, inlier_m: float = 0.004,
                min_normal_z: float = 0.97, sample: int = 20000, bin_m: float = 0.01, level_fraction: float = 0.25,
                band_m: float = 0.02) -> tuple[np.ndarray, float, np.ndarray]:
    """The support surface. Points are in a z-up world frame (the camera pose is known), so horizontal
    surfaces are peaks of the height histogram: the table is the highest level holding at least
    `level_fraction` of the biggest one's points (a floor seen beyond it may hold more; an object's top far
    fewer). RANSAC among near-horizontal planes through the points within `band_m` of that level then finds
    its exact height and tilt, refined by least squares. Returns (normal, offset) with n.p = d on the plane
    and the inlier mask over `points`."""
    if len(points) < 3:
        raise NoTableError("no depth points to find a table in")
    z = points[:, 2]
    edges = np.arange(z.min(), z.max() + 2 * bin_m, bin_m)
    hist, edges = np.histogram(z, edges)
    levels = np.flatnonzero(hist >= level_fraction * hist.max())
    level = 0.5 * (edges[levels[-1]] + edges[levels[-1] + 1])
    band = points[np.abs(z - level) < band_m]
    sub = band[rng.choice(len(band), min(sample, len(band)), replace=False)]
    best: tuple[int, np.ndarray, float] | None = None
    for _ in range(iterations):
        a, b, c = sub[rng.choice(len(sub), 3, replace=False)]
        n = np.cross(b - a, c - a)
        norm = np.linalg.norm(n)
        if norm < 1e-9:
            continue
        n = n / norm * (1 if n[2] >= 0 else -1)
        if n[2] < min_normal_z:
            continue
        d = float(n @ a)
        count = int((np.abs(sub @ n - d) < inlier_m).sum())
        if best is None or count > best[0]:
            best = (count, n, d)
    if best is None:
        raise NoTableError("no horizontal plane in the depth image")
    _, n, d = best
    for _ in range(3):  # least squares on the inliers, then again on the refined plane's
        n, d = fit_plane(band[np.abs(band @ n - d) < inlier_m])
    return n, d, np.abs(points @ n - d) < inlier_m
