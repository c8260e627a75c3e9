"""Shape and appearance measures of an object region (the input of the attribute forest). Every measure is
computed from the region's own pixels; none names an object."""
from __future__ import annotations

import cv2
import numpy as np

from memora_core.perception.camera.colour import chromatic_mask, hsv_pixels
from memora_core.perception.camera.labels import LABEL_FEATURE_NAMES, label_features
from memora_core.perception.camera.regions import Region

FEATURE_NAMES = ("log_area", "box_w", "box_h", "long_side", "short_side", "elongation", "rect_fill", "solidity",
                 "centre_x", "centre_y", "chromatic", "white", "dark", "sat_median", "val_median", "val_std",
                 "hue_sin", "hue_cos", "core_val", "rim_val", "white_rows")


def region_features(rgb: np.ndarray, r: Region) -> np.ndarray:
    h, w = r.mask.shape
    m8 = r.mask.astype(np.uint8)
    ys, xs = np.nonzero(r.mask)
    pts = np.stack([xs, ys], axis=1).astype(np.float32)
    (_, _), (rw, rh), _ = cv2.minAreaRect(pts)
    long_side, short_side = max(rw, rh, 1.0), max(min(rw, rh), 1.0)
    hull = cv2.convexHull(pts)
    hull_area = max(float(cv2.contourArea(hull)), 1.0)
    hsv = hsv_pixels(rgb[ys, xs])
    chrom = chromatic_mask(hsv)
    white = (hsv[:, 1] < 0.15) & (hsv[:, 2] > 0.85)
    dark = hsv[:, 2] < 0.25
    hue = np.radians(hsv[chrom, 0]) if chrom.any() else np.zeros(1)
    core = cv2.erode(m8, np.ones((3, 3), np.uint8), iterations=max(1, int(short_side // 6)))
    core_v = float(hsv_pixels(rgb[core > 0])[:, 2].mean()) if core.any() else float(hsv[:, 2].mean())
    rim = (m8 > 0) & (core == 0)
    rim_v = float(hsv_pixels(rgb[rim])[:, 2].mean()) if rim.any() else core_v
    # a label band: rows (along the region's box) that are mostly white
    x0, y0, bw, bh = r.box
    sub_white = np.zeros((bh, bw), bool)
    sub_white[ys - y0, xs - x0] = white
    row_frac = sub_white.sum(1) / np.maximum(1, r.mask[y0:y0 + bh, x0:x0 + bw].sum(1))
    return np.array([
        np.log(r.area), bw / w, bh / h, long_side / w, short_side / w, long_side / short_side,
        r.area / (long_side * short_side), r.area / hull_area, r.centre[0] / w, r.centre[1] / h,
        chrom.mean(), white.mean(), dark.mean(), np.median(hsv[:, 1]), np.median(hsv[:, 2]), hsv[:, 2].std(),
        float(np.sin(hue).mean()), float(np.cos(hue).mean()), core_v, rim_v, float((row_frac > 0.5).mean()),
    ], np.float32)


# the measures of a region's colour alone (no size, shape or place): what the colour forest is fitted on
COLOUR_FEATURES = tuple(FEATURE_NAMES.index(n) for n in (
    "chromatic", "white", "dark", "sat_median", "val_median", "val_std", "hue_sin", "hue_cos", "core_val", "rim_val"))
ALL_FEATURE_NAMES = FEATURE_NAMES + LABEL_FEATURE_NAMES  # the category and material forests read the first part


def region_vector(rgb: np.ndarray, r: Region) -> np.ndarray:
    """Every measure of a region: shape/appearance (FEATURE_NAMES) then label pattern (LABEL_FEATURE_NAMES)."""
    return np.concatenate([region_features(rgb, r), label_features(rgb, r)])
