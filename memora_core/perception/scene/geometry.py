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


def table_plane(points: np.ndarray, rng: np.random.Generator, iterations: int = 150, inlier_m: float = 0.004,
                min_normal_z: float = 0.97, sample: int = 20000) -> tuple[np.ndarray, float, np.ndarray]:
    """RANSAC for the support surface: among near-horizontal planes, the one holding the most points, the
    highest of those within 80 % of the best count (a table seen above a floor). Returns the refined
    (normal, offset) and the inlier mask over `points`."""
    if len(points) < 3:
        raise NoTableError("no depth points to find a table in")
    sub = points[rng.choice(len(points), min(sample, len(points)), replace=False)]
    found: list[tuple[int, float, np.ndarray, float]] = []
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
        found.append((count, d, n, float(a[2])))
    if not found:
        raise NoTableError("no horizontal plane in the depth image")
    best = max(f[0] for f in found)
    count, d, n, _ = max((f for f in found if f[0] >= 0.8 * best), key=lambda f: f[3])
    inliers = np.abs(points @ n - d) < inlier_m
    n, d = fit_plane(points[inliers])
    return n, d, np.abs(points @ n - d) < inlier_m
