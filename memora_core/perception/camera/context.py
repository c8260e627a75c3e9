"""Pixel classes with spatial context: a pixel's class from its own colour and from what the colours around it
say, at two scales.

The colour table alone (regions.py) decides each pixel by its colour: an object's pixels whose colour is common on
the table (a shaded side, a highlight, a print band) read as table, so object masks are full of holes, resting
objects flicker in and out between frames and their centres jump. Here every quantised colour keeps its class
probabilities from the training pixels (the renderer's segmentation), and a pixel's features are those
probabilities at the pixel (as logs) and their means over square windows around it (`scales`, in pixels at the work
width; as probabilities and as logs). A multinomial logistic regression, fitted by `camera-train` on pixels of the
training frames, maps them to the class. The cost is a table look-up, two box filters and one small matrix product
per frame (a few ms at 320 x 240).

Measured on dev (2026-12-02), it is off by default (`camera-train --context` fits it): object pixels improve (on
dev seed 0 precision 0.93 -> 0.97, recall 0.88 -> 0.96), but objects recall fell on every dev set tried (fuller
masks of neighbouring objects join into one region more often) and action recall did not rise."""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from memora_core.perception.camera.groundtruth import OBJECT

N_CLASSES = 4
SCALES = (5, 15)  # window sizes (pixels at the work width) of `camera-train --context`
_EPS = 1e-3


def colour_probabilities(counts: np.ndarray, prior: float = 1.0) -> np.ndarray:
    """Per quantised colour, its class probabilities from the training pixel counts (colours x classes), with
    `prior` pseudo-pixels of OBJECT (a colour never seen is more likely a new thing than the table)."""
    c = counts.astype(np.float64)
    c[:, OBJECT] += prior
    return (c / c.sum(1, keepdims=True)).astype(np.float32)


def n_features(scales: tuple[int, ...]) -> int:
    return N_CLASSES * (1 + 2 * len(scales))


def pixel_features(prob_map: np.ndarray, scales: tuple[int, ...]) -> np.ndarray:
    """H x W x F features from the H x W x 4 per-pixel colour probabilities."""
    parts = [np.log(prob_map + _EPS)]
    for s in scales:
        m = cv2.blur(prob_map, (s, s), borderType=cv2.BORDER_REFLECT)
        parts += [m, np.log(m + _EPS)]
    return np.concatenate(parts, axis=2)


@dataclass
class ContextClassifier:
    prob: np.ndarray      # colours x 4 float32: class probabilities of each quantised colour
    weights: np.ndarray   # F x 4 float32 (logistic regression)
    bias: np.ndarray      # 4 float32
    scales: tuple[int, ...]

    def classify(self, colour_index: np.ndarray) -> np.ndarray:
        """H x W uint8 pixel classes for a frame given each pixel's quantised colour (regions.lut_index)."""
        f = pixel_features(self.prob[colour_index], self.scales)
        h, w, k = f.shape
        score = f.reshape(-1, k) @ self.weights + self.bias
        return score.argmax(1).astype(np.uint8).reshape(h, w)


def fit_context(prob: np.ndarray, frames: list[tuple[np.ndarray, np.ndarray]], scales: tuple[int, ...],
                per_frame: int, seed: int) -> ContextClassifier:
    """Fit the regression on `per_frame` pixels drawn (seeded) from each (colour_index, true class) frame."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for idx, cls in frames:
        f = pixel_features(prob[idx], scales).reshape(-1, n_features(scales))
        k = rng.choice(len(f), size=min(per_frame, len(f)), replace=False)
        xs.append(f[k])
        ys.append(cls.ravel()[k])
    x, y = np.concatenate(xs), np.concatenate(ys)
    lr = LogisticRegression(max_iter=300, C=1.0)
    lr.fit(x, y)
    w = np.zeros((x.shape[1], N_CLASSES), np.float32)
    b = np.full(N_CLASSES, -1e9, np.float32)  # a class absent from training is never chosen
    for j, c in enumerate(lr.classes_):
        w[:, int(c)] = lr.coef_[j] if len(lr.classes_) > 2 else (lr.coef_[0] if j == 1 else -lr.coef_[0])
        b[int(c)] = lr.intercept_[j] if len(lr.classes_) > 2 else (lr.intercept_[0] if j == 1 else -lr.intercept_[0])
    return ContextClassifier(prob=prob, weights=w, bias=b, scales=tuple(scales))
