"""Object regions in a frame: a colour lookup table classifies every pixel (background, table, hand, object;
learned from rendered frames, see train.py); object pixels become instances either by superpixels merged by a
learned classifier (instances.py; when the model has one), or as connected regions, a region holding two
differently coloured parts of fair size (two objects touching in the image) split by colour.

A Region carries what later stages read: its pixels, box, centre, colour word and shape measures."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np

from memora_core.perception.camera.colour import chromatic_mask, hsv_pixels, region_colour
from memora_core.perception.camera.context import ContextClassifier
from memora_core.perception.camera.hand import forearm_mask, palm_mask
from memora_core.perception.camera.instances import lab_and_edges, measure, merge_pieces, superpixels

BACKGROUND, TABLE, HAND, OBJECT = 0, 1, 2, 3
LUT_BITS = 5  # RGB quantised to 5 bits a channel: a 32 x 32 x 32 table


def lut_index(rgb: np.ndarray) -> np.ndarray:
    q = (rgb >> (8 - LUT_BITS)).astype(np.int32)
    return (q[..., 0] << (2 * LUT_BITS)) | (q[..., 1] << LUT_BITS) | q[..., 2]


def classify_pixels(rgb: np.ndarray, lut: np.ndarray) -> np.ndarray:
    """H x W uint8 pixel classes (BACKGROUND/TABLE/HAND/OBJECT)."""
    return lut[lut_index(rgb)]


@dataclass
class PalmSettings:
    hand_share: np.ndarray  # per quantised colour, the share of training pixels that were hand (uint8, 0..255)
    min_share: float        # a pixel next to the forearm is palm when its colour's hand share is at least this
    reach: float            # ... and it is within this fraction of the image width of the forearm


class MergeModel(Protocol):
    def same_probability(self, pair_features: np.ndarray) -> np.ndarray: ...


@dataclass
class Region:
    mask: np.ndarray                 # H x W bool
    box: tuple[int, int, int, int]   # x, y, w, h
    area: int
    centre: tuple[float, float]      # x, y (pixels)
    colour: str | None
    touches_hand: bool = False
    features: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))


def coarse_hue(rgb_pixels: np.ndarray) -> np.ndarray:
    """Per pixel: 0 mid grey, 1 red, 2 orange/brown, 3 yellow, 4 green, 5 blue/purple, 6 other achromatic
    (white label bands, highlights, black print)."""
    hsv = hsv_pixels(rgb_pixels)
    h = hsv[:, 0]
    out = np.full(len(hsv), 6, np.uint8)
    out[~chromatic_mask(hsv) & (hsv[:, 2] >= 0.3) & (hsv[:, 2] < 0.8)] = 0
    chrom = chromatic_mask(hsv)
    out[chrom & ((h >= 330) | (h < 15))] = 1
    out[chrom & (h >= 15) & (h < 45)] = 2
    out[chrom & (h >= 45) & (h < 70)] = 3
    out[chrom & (h >= 70) & (h < 170)] = 4
    out[chrom & (h >= 170) & (h < 330)] = 5
    return out


def _split(rgb: np.ndarray, comp: np.ndarray, min_part: int) -> list[np.ndarray]:
    """A component split into per-colour parts. Seeds are the hue classes with at least `min_part` pixels and
    a twentieth of the component; two seeds of neighbouring hues (yellow and its own orange shadow side) both
    need three tenths of it. Every other pixel joins its nearest seed. One part when there is at most one seed."""
    ys, xs = np.nonzero(comp)
    hue = coarse_hue(rgb[ys, xs])
    n = len(ys)
    counts = np.bincount(hue, minlength=7)
    kept: list[int] = []
    far = lambda a, b: a == 0 or b == 0 or abs(a - b) >= 2  # noqa: E731 - grey is far from every hue
    for k in sorted(range(0, 6), key=lambda k: -counts[k]):
        if counts[k] < max(min_part, 0.05 * n):
            continue
        # a hue next to one kept (yellow and its orange shadow side) is another object only when both are large
        if all(far(k, j) or min(counts[k], counts[j]) >= 0.3 * n for j in kept):
            kept.append(k)
    if len(kept) <= 1:
        return [comp]
    seeds = []
    for k in kept:
        m = np.zeros(comp.shape, np.uint8)
        m[ys[hue == k], xs[hue == k]] = 1
        n, lbl, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
        j = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
        seeds.append(lbl == j)
    dists = [cv2.distanceTransform(np.where(s, 0, 255).astype(np.uint8), cv2.DIST_L2, 3) for s in seeds]
    owner = np.argmin(np.stack(dists), axis=0)
    return [comp & (owner == i) for i in range(len(seeds))]


def _hand_mask(forearm: np.ndarray) -> np.ndarray:
    """The hand grown by 2 px, so that what it holds touches it."""
    return cv2.dilate(forearm.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0


def object_pixels(rgb: np.ndarray, lut: np.ndarray, palm: PalmSettings | None = None,
                  context: ContextClassifier | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The frame's object pixels (H x W uint8 0/1, small gaps closed, specks opened, hand removed), its pixel
    classes and its forearm (with the palm when `palm` is given)."""
    idx = lut_index(rgb)
    cls = lut[idx] if context is None else context.classify(idx)
    forearm = forearm_mask(cls)
    if palm is not None:
        grown = palm_mask(idx, forearm, palm.hand_share, palm.min_share, palm.reach * rgb.shape[1])
        cls[grown] = HAND
        forearm |= grown
    obj = (cls == OBJECT).astype(np.uint8)
    obj = cv2.morphologyEx(obj, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))  # pixels of an object read as table
    obj = cv2.morphologyEx(obj, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    obj[cls == HAND] = 0
    return obj, cls, forearm


def find_regions(rgb: np.ndarray, lut: np.ndarray, min_px: int, min_part: int,
                 max_background: float = 0.6, max_dark_v: int = 64, palm: PalmSettings | None = None,
                 context: ContextClassifier | None = None,
                 merge: tuple["MergeModel", float] | None = None) -> tuple[list[Region], np.ndarray, np.ndarray]:
    """Object regions of one frame, the frame's pixel classes and its hand mask. With `context` (context.py) the
    pixel classes come from colour and neighbourhood instead of the colour table alone. With `palm` (the model's
    hand-share table and its settings), the palm at the forearm's end is hand too (hand.py). With `merge` (the
    model's learned merge and the least probability to merge), instances come from superpixels merged by it
    (instances.py) instead of connected components split by colour."""
    obj, cls, forearm = object_pixels(rgb, lut, palm, context)
    hand = _hand_mask(forearm)
    parts = (_colour_parts(rgb, obj, min_part) if merge is None
             else _learned_parts(rgb, obj > 0, merge[0], merge[1], min_px))
    out: list[Region] = []
    for comp, subparts in parts:
        if comp.sum() < min_px:
            continue
        ring = cv2.dilate(comp.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
        ring &= ~comp
        if ring.any() and (cls[ring] == BACKGROUND).mean() > max_background:
            continue  # not on the table: the table's own edge, the floor, something far off
        for part in subparts():
            area = int(part.sum())
            if area < min_px:
                continue
            ys, xs = np.nonzero(part)
            if (rgb[ys, xs].max(axis=1) < max_dark_v).mean() > 0.5:
                continue  # mostly in deep shade: the table's own edge, a gap, a shadow
            x0, y0 = int(xs.min()), int(ys.min())
            box = (x0, y0, int(xs.max()) - x0 + 1, int(ys.max()) - y0 + 1)
            out.append(Region(mask=part, box=box, area=area, centre=(float(xs.mean()), float(ys.mean())),
                              colour=region_colour(rgb[ys, xs]), touches_hand=bool((hand & part).any())))
    return out, cls, hand


def _colour_parts(rgb: np.ndarray, obj: np.ndarray, min_part: int):
    """Without a learned merge: connected components of the object pixels (thin bridges broken), each split by
    colour (_split). Yields (component, parts callable)."""
    core = cv2.erode(obj, np.ones((3, 3), np.uint8))  # thin bridges between neighbours in the image break
    n, lbl, stats, _ = cv2.connectedComponentsWithStats(core, connectivity=4)
    # every object pixel belongs to the nearest core component (within 2 px)
    dist, near = cv2.distanceTransformWithLabels(np.where(core > 0, 0, 255).astype(np.uint8), cv2.DIST_L2, 3,
                                                 labelType=cv2.DIST_LABEL_PIXEL)
    ys, xs = np.nonzero(core)
    pix_comp = np.zeros(int(near.max()) + 1, np.int32)
    pix_comp[near[ys, xs]] = lbl[ys, xs]
    owner = np.where((obj > 0) & (dist <= 2.0), pix_comp[near], 0)
    for j in range(1, n):
        comp = owner == j
        yield comp, (lambda comp=comp: _split(rgb, comp, min_part))


def _learned_parts(rgb: np.ndarray, obj: np.ndarray, merge: MergeModel, min_p: float, min_px: int):
    """With a learned merge (instances.py): superpixels merged into objects. Yields (instance, parts callable)."""
    labels = instance_labels(rgb, obj, merge, min_p, min_px)
    for j in np.unique(labels[labels > 0]):
        comp = labels == j
        yield comp, (lambda comp=comp: [comp])


def instance_labels(rgb: np.ndarray, obj: np.ndarray, merge: MergeModel, min_p: float, min_px: int = 0) -> np.ndarray:
    """H x W int32 instance of each object pixel (0: none), by learned merging of superpixels."""
    lab, edges = lab_and_edges(rgb)
    pieces = superpixels(rgb, obj, edges)
    hue = np.zeros(obj.shape, np.uint8)
    ys, xs = np.nonzero(obj)
    hue[ys, xs] = coarse_hue(rgb[ys, xs])
    return merge_pieces(measure(pieces, lab, edges, hue), merge.same_probability, min_p, min_px)
