"""Colour words from pixels. A region's colour is named from the circular mean hue and the median saturation
and value of its chromatic pixels (highlights, shadows and a white label band are set aside); a region with
hardly any chromatic pixels is achromatic: silver when bright, else grey."""
from __future__ import annotations

import math

import cv2
import numpy as np

CHROMA_S, CHROMA_V = 0.22, 0.18   # a pixel with at least this saturation and value has a hue worth reading
MIN_CHROMATIC = 0.25              # a region needs this fraction of chromatic pixels to get a hue word


def hsv_pixels(rgb_pixels: np.ndarray) -> np.ndarray:
    """N x 3 float: hue in degrees, saturation and value in 0..1."""
    hsv = cv2.cvtColor(np.ascontiguousarray(rgb_pixels, np.uint8).reshape(1, -1, 3), cv2.COLOR_RGB2HSV)
    out = hsv.reshape(-1, 3).astype(np.float32)
    out[:, 0] *= 2.0
    out[:, 1:] /= 255.0
    return out


def chromatic_mask(hsv: np.ndarray) -> np.ndarray:
    return (hsv[:, 1] >= CHROMA_S) & (hsv[:, 2] >= CHROMA_V)


def hue_word(hue: float, sat: float) -> str:
    if hue >= 330 or hue < 15:
        return "red" if sat >= 0.5 else "brown"
    if hue < 45:  # orange hues: bright and saturated is orange, dull is brown
        return "orange" if sat >= 0.7 else "brown"
    if hue < 70:
        return "yellow"
    if hue < 170:
        return "green"
    if hue < 270:
        return "blue"
    return "purple"


def region_colour(rgb_pixels: np.ndarray) -> str | None:
    """The colour word of a region's RGB pixels (N x 3 uint8); None for an empty region."""
    if len(rgb_pixels) == 0:
        return None
    hsv = hsv_pixels(rgb_pixels)
    chrom = chromatic_mask(hsv)
    if chrom.mean() >= MIN_CHROMATIC:
        h = np.radians(hsv[chrom, 0])
        hue = math.degrees(math.atan2(float(np.sin(h).mean()), float(np.cos(h).mean()))) % 360
        return hue_word(hue, float(np.median(hsv[chrom, 1])))
    bright = float(np.median(hsv[:, 2]))
    return "silver" if bright >= 0.85 else ("grey" if bright >= 0.2 else "black")
