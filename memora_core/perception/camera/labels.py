"""Label patches: the measures the label forest reads to tell which printed label (if any) an object region
carries, and the label attribute's class for "no label".

At the demo camera's 320x240 a brand label is ~15 px across and its print is a few pixels: OCR (rapidocr on
crops upscaled 4-6x, three rotations) reads nothing there. What stays visible is the label's pattern: its
bands of colour, white and dark print, and the fine texture the print makes. These measures describe that
pattern without regard to the object's turn in the image (histograms over the region's own pixels, gradient
energy, the share of white and dark print between coloured bands); the forest that maps them to a label is
trained by `memora camera-train` on rendered frames, the label of each region taken from the scene
description. It knows only the labels of its training scenes (a closed set; reading unseen text is OCR's job
on higher-resolution footage, or the `vlm` backend's)."""
from __future__ import annotations

import cv2
import numpy as np

from memora_core.perception.camera.colour import chromatic_mask, hsv_pixels
from memora_core.perception.camera.regions import Region

NO_LABEL = ""  # the label forest's class for a region without a label
HUE_BINS, VAL_BINS, SAT_BINS = 12, 6, 4
LABEL_FEATURE_NAMES = (tuple(f"hue_{i}" for i in range(HUE_BINS)) + tuple(f"val_{i}" for i in range(VAL_BINS))
                       + tuple(f"sat_{i}" for i in range(SAT_BINS))
                       + ("grad_mean", "grad_std", "grad_high", "light_achrom", "dark_achrom", "hue_modes"))


def label_features(rgb: np.ndarray, r: Region) -> np.ndarray:
    """Pattern measures of one region (len(LABEL_FEATURE_NAMES) floats)."""
    ys, xs = np.nonzero(r.mask)
    hsv = hsv_pixels(rgb[ys, xs])
    n = max(1, len(hsv))
    chrom = chromatic_mask(hsv)
    hue_hist = np.bincount((hsv[chrom, 0] // (360 / HUE_BINS)).astype(np.int64).clip(0, HUE_BINS - 1),
                           minlength=HUE_BINS) / n
    val_hist = np.bincount((hsv[:, 2] * VAL_BINS).astype(np.int64).clip(0, VAL_BINS - 1), minlength=VAL_BINS) / n
    sat_hist = np.bincount((hsv[:, 1] * SAT_BINS).astype(np.int64).clip(0, SAT_BINS - 1), minlength=SAT_BINS) / n
    # print texture: grey gradients inside the region (its outline left out)
    x0, y0, bw, bh = r.box
    x1, y1 = min(rgb.shape[1], x0 + bw + 1), min(rgb.shape[0], y0 + bh + 1)
    x0, y0 = max(0, x0 - 1), max(0, y0 - 1)
    grey = cv2.cvtColor(np.ascontiguousarray(rgb[y0:y1, x0:x1]), cv2.COLOR_RGB2GRAY).astype(np.float32)
    gx, gy = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    inner = cv2.erode(r.mask[y0:y1, x0:x1].astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    g = np.hypot(gx, gy)[inner] / 255.0 if inner.any() else np.zeros(1, np.float32)
    achrom = ~chrom
    modes = int((hue_hist >= 0.08).sum())
    return np.concatenate([hue_hist, val_hist, sat_hist, [
        float(g.mean()), float(g.std()), float((g > 0.5).mean()),
        float((achrom & (hsv[:, 2] >= 0.7)).mean()), float((achrom & (hsv[:, 2] < 0.3)).mean()), float(modes),
    ]]).astype(np.float32)
