"""The person's hand in a frame: the forearm and the palm at its end.

The pixel table (regions.py) marks a pixel hand by its colour alone. That finds the forearm, whose colour
nothing else on the table has, but the skin-coloured palm shares its colours with the table and with objects,
so by colour alone it reads as table or object half the time; a held object then touches an "object" (the
palm), not the hand. `camera-train` therefore also keeps, per quantised colour, the share of its training
pixels that were hand in the renderer's segmentation (palm and forearm). At inference the hand grows from the
forearm into the pixels next to it whose colour is often hand (at least `min_share`), no further than
`reach_px` from the forearm: a palm-coloured pixel is hand only where a hand can be."""
from __future__ import annotations

import cv2
import numpy as np

from memora_core.perception.camera.groundtruth import HAND


def hand_share_table(counts: np.ndarray) -> np.ndarray:
    """Per quantised colour, the share of its training pixels that were hand, as uint8 (0..255)."""
    total = counts.sum(1)
    share = counts[:, HAND] / np.maximum(total, 1)
    return np.round(255 * share).astype(np.uint8)


def forearm_mask(cls: np.ndarray, min_frac: float = 0.005) -> np.ndarray:
    """Hand-class components of at least `min_frac` of the frame (stray pixels of a hand-like colour elsewhere
    are not a hand)."""
    n, lbl, stats, _ = cv2.connectedComponentsWithStats((cls == HAND).astype(np.uint8), connectivity=8)
    big = [j for j in range(1, n) if stats[j, cv2.CC_STAT_AREA] >= min_frac * cls.size]
    return np.isin(lbl, big) if big else np.zeros(cls.shape, bool)


def palm_mask(colour_index: np.ndarray, forearm: np.ndarray, hand_share: np.ndarray, min_share: float,
              reach_px: float) -> np.ndarray:
    """Pixels of an often-hand colour (`colour_index`: each pixel's quantised colour, regions.lut_index)
    connected to the forearm and within `reach_px` of it."""
    if not forearm.any():
        return np.zeros(forearm.shape, bool)
    likely = hand_share[colour_index] >= int(round(255 * min_share))
    dist = cv2.distanceTransform(np.where(forearm, 0, 255).astype(np.uint8), cv2.DIST_L2, 3)
    cand = ((likely & (dist <= reach_px)) | forearm).astype(np.uint8)
    cand = cv2.morphologyEx(cand, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))  # speckles of other colours within
    n, lbl = cv2.connectedComponents(cand, connectivity=8)
    keep = np.unique(lbl[forearm])
    return np.isin(lbl, keep[keep > 0]) & ~forearm & (dist <= reach_px)
