"""Object instances on rendered frames (camera/instances.py): superpixels merged by the forest that `camera-train`
learned from the renderer's instance masks (on another layout) keep two touching objects of one hue apart, and
a printed object in one piece, more often than connected regions split by colour. Ground truth: the renderer's masks of
the test layout; each figure is counted over its frames at 1 per second."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from memora_core.perception.camera.groundtruth import HAND, SessionLabeller, decode_video
from memora_core.perception.camera.instances import PAIR_FEATURE_NAMES, superpixels, lab_and_edges
from memora_core.perception.camera.model import CameraModel
from memora_core.perception.camera.regions import PalmSettings, coarse_hue, find_regions

MIN_PX = 80


@pytest.fixture(scope="module")
def outcomes(test_demo, camera_model):
    """For both ways of finding instances: touching one-hue pairs kept apart, such pairs; printed objects found
    whole, found in parts, printed objects seen (away from the hand)."""
    m = camera_model
    palm = PalmSettings(m.hand_share, 0.1, 0.08)
    ways = {"colour": None, "learned": (m.merge, 0.5)}
    apart = {w: 0 for w in ways}
    whole = {w: 0 for w in ways}
    parts = {w: 0 for w in ways}
    pairs = printed = 0
    lab = SessionLabeller(test_demo)
    try:
        meta = test_demo.meta()
        for t, rgb in decode_video(test_demo.video, list(np.arange(0, meta.duration_s, 1.0)), fps=meta.fps):
            f = lab.label(t, rgb)
            found = {w: find_regions(rgb, m.lut, 60, 25, palm=palm, merge=mg)[0] for w, mg in ways.items()}
            ids, cnt = np.unique(f.object_id[f.object_id >= 0], return_counts=True)
            masks = {int(k): f.object_id == k for k, c in zip(ids, cnt) if c >= MIN_PX}
            hue = {k: int(np.bincount(coarse_hue(rgb[mk]), minlength=7).argmax()) for k, mk in masks.items()}
            near_hand = cv2.dilate((f.pixel_class == HAND).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
            for i, mi in masks.items():
                grown = cv2.dilate(mi.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
                for j, mj in masks.items():
                    if j <= i or hue[i] != hue[j] or not (grown & mj).any():
                        continue
                    pairs += 1
                    for w, regions in found.items():
                        apart[w] += not any((r.mask & mi).sum() >= 0.5 * mi.sum() and (r.mask & mj).sum() >= 0.5 * mj.sum()
                                            for r in regions)
                if lab.specs[i].label and not near_hand[mi].any():
                    printed += 1
                    for w, regions in found.items():
                        whole[w] += any((r.mask & mi).sum() >= 0.5 * r.area and (r.mask & mi).sum() >= 0.5 * mi.sum()
                                        for r in regions)
                        on_it = [(r.mask & mi).sum() for r in regions if (r.mask & mi).sum() >= 0.5 * r.area]
                        parts[w] += bool(len(on_it) >= 2 and max(on_it) < 0.5 * mi.sum() <= sum(on_it))
    finally:
        lab.close()
    return apart, pairs, whole, parts, printed


def test_touching_look_alikes_come_out_as_two(outcomes) -> None:
    apart, pairs, _, _, _ = outcomes
    assert pairs >= 5, pairs  # the layout shows such pairs: the test cannot pass by having none
    assert apart["learned"] >= 0.5 * pairs, (apart, pairs)
    assert apart["learned"] > apart["colour"], (apart, pairs)


def test_a_printed_object_does_not_come_out_in_parts(outcomes) -> None:
    """In parts: no region holds half of it, but regions mostly on it together do. Split by colour, a printed
    object's body and print fall apart; merged by the learned forest they stay one."""
    _, _, whole, parts, printed = outcomes
    assert printed >= 20, printed
    assert parts["colour"] >= 3, parts  # the layout shows the problem: the test cannot pass by having none
    assert parts["learned"] <= 0.05 * printed, (parts, printed)
    assert parts["learned"] < parts["colour"], (parts, printed)
    assert whole["learned"] >= 0.4 * printed, (whole, printed)  # not kept from parts by merging it with others


def test_superpixels_are_small_and_cover_the_object_pixels(test_demo, camera_model) -> None:
    meta = test_demo.meta()
    (_, rgb), = decode_video(test_demo.video, [meta.duration_s / 2], fps=meta.fps)
    m = camera_model
    from memora_core.perception.camera.regions import object_pixels
    obj, _, _ = object_pixels(rgb, m.lut, PalmSettings(m.hand_share, 0.1, 0.08))
    _, edges = lab_and_edges(rgb)
    pieces = superpixels(rgb, obj > 0, edges)
    assert ((pieces > 0) == (obj > 0)).mean() > 0.999
    sizes = np.bincount(pieces.ravel())[1:]
    assert np.median(sizes[sizes > 0]) <= 80


def test_merge_forest_is_saved_and_loaded(camera_model, camera_model_path) -> None:
    loaded = CameraModel.load(camera_model_path)
    assert loaded.merge is not None
    x = np.random.default_rng(0).normal(size=(50, len(PAIR_FEATURE_NAMES))).astype(np.float32)
    assert np.array_equal(loaded.merge.same_probability(x), camera_model.merge.same_probability(x))
