"""Train the camera backend's model from rendered demonstrations (`memora camera-train`).

1. Pixel classes: frames sampled at the segment rate from each session are paired with their segmentation
   ground truth (groundtruth.py); every quantised RGB colour gets the class it most often shows (colours
   never seen stay OBJECT: an unknown colour is more likely a new thing than the table); each colour also
   keeps the share of its pixels that were hand (palm and forearm), to find the palm next to the forearm
   (hand.py). With `context_scales`, a pixel classifier with spatial context (context.py) is fitted on the same
   frames: each colour's class probabilities, at the pixel and averaged around it, to the true class.
2. Attributes: object regions are found in the same frames with that table; a region whose pixels are
   mostly one object is a sample labelled with that object's category and material from the scene
   description; a random forest per attribute is fitted: category and material on the regions'
   shape/appearance measures, the printed label (labels.py; NO_LABEL when the object has none) on those and
   the label-pattern measures; with `colour_forest`, the colour word from the scene description on the region's
   colour measures alone (features.COLOUR_FEATURES), so that the rendering's light and shading are learned rather
   than fixed hue and saturation bounds (colour.py, the fallback).
3. Instances (with `instances`, before 2 so that its regions are found as at inference): each frame's object
   pixels are cut into superpixels, each labelled with the object it mostly shows in the renderer's masks; the
   touching pairs, at every stage of merging them by that truth, train a forest telling whether two pieces are
   one object (instances.py).
Deterministic for the same sessions and seed: the same decoded frames give the same arrays (`camera-train` renders
its sessions lossless so that the decoded frames are the same on every render)."""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from memora_core.perception.camera.features import COLOUR_FEATURES, FEATURE_NAMES, region_vector
from memora_core.perception.camera.labels import NO_LABEL
from memora_core.perception.camera.groundtruth import OBJECT, SessionLabeller, decode_video
from memora_core.perception.camera.instances import lab_and_edges, measure, pair_samples, piece_identity, superpixels
from memora_core.perception.camera.model import (ATTRIBUTES, OPTIONAL_ATTRIBUTES, CameraModel, MergeForest,
                                                 forest_from_sklearn)
from memora_core.perception.camera.codec import jpeg_roundtrip
from memora_core.perception.camera.config import CameraPerceptionConfig
from memora_core.perception.camera.context import ContextClassifier, colour_probabilities, fit_context
from memora_core.perception.camera.hand import hand_share_table
from memora_core.perception.camera.holding import HELD, TILTED, hold_measures, tilted_label, warp_mask, with_context
from memora_core.perception.camera.motion import ViewMotion
from memora_core.perception.camera.regions import (LUT_BITS, PalmSettings, coarse_hue, find_regions, lut_index,
                                                   object_pixels)

log = logging.getLogger(__name__)


@dataclass
class TrainSettings:
    fps: float = 2.0            # frames per second of video used (the segment sampling rate)
    min_purity: float = 0.6     # a region is a sample when this fraction of it is one object
    trees: int = 25
    max_depth: int = 12
    seed: int = 0
    min_px: int = 60
    min_part: int = 25
    palm_min_share: float = CameraPerceptionConfig.model_fields["palm_min_share"].default
    palm_reach: float = CameraPerceptionConfig.model_fields["palm_reach"].default
    context_scales: tuple[int, ...] | None = None  # window sizes of the context classifier (None: colour table only)
    context_pixels: int = 1500  # pixels per frame the context classifier is fitted on
    codec_quality: int | None = 85  # training frames through JPEG at this quality, like the lossy videos (codec.py)
    instances: bool = True      # learn which touching superpixels are one object (instances.py)
    merge_trees: int = 25
    merge_depth: int = 12
    merge_samples: int = 80000  # pairs the merge forest is fitted on at most (an even spread of those collected)
    merge_min_p: float = 0.5    # the merge bar at which the attribute forests' training regions are found
    colour_forest: bool = True  # learn colour words from the regions' colour measures (else colour.py's hue rule)
    holding: bool = True        # learn when the hand holds something (holding.py), from `hold_sessions` or `sessions`
    hold_trees: int = 50


@dataclass
class _Collected:
    counts: np.ndarray = field(default_factory=lambda: np.zeros((2 ** (3 * LUT_BITS), 4), np.int64))
    frames: list = field(default_factory=list)  # (rgb, object_id, specs, pixel_class)


def collect_pixels(sessions, st: TrainSettings, progress: Callable[[str], None] | None) -> _Collected:
    c = _Collected()
    for s in sessions:
        lab = SessionLabeller(s)
        try:
            meta = s.meta()
            times = list(np.arange(0.0, meta.duration_s, 1.0 / st.fps))
            for t, rgb in decode_video(s.video, times, fps=meta.fps):
                if st.codec_quality is not None:
                    rgb = jpeg_roundtrip(rgb, st.codec_quality)
                lf = lab.label(t, rgb)
                idx = lut_index(rgb).ravel()
                np.add.at(c.counts, (idx, lf.pixel_class.ravel()), 1)
                c.frames.append((rgb, lf.object_id, lab.specs, lf.pixel_class))
        finally:
            lab.close()
        if progress:
            progress(s.video_id)
    return c


def pixel_table(counts: np.ndarray) -> np.ndarray:
    lut = counts.argmax(1).astype(np.uint8)
    lut[counts.sum(1) == 0] = OBJECT
    return lut


def merge_forest(frames, lut: np.ndarray, st: TrainSettings, hand_share: np.ndarray | None = None,
                 context: ContextClassifier | None = None) -> tuple[MergeForest, int]:
    """The superpixel merge forest (instances.py) from the frames' object pixels, as found at inference, and
    the renderer's instance of each pixel; also the number of pairs it was fitted on."""
    from sklearn.ensemble import RandomForestClassifier

    palm = None if hand_share is None else PalmSettings(hand_share, st.palm_min_share, st.palm_reach)
    rng = np.random.default_rng(st.seed)
    xs, ys = [], []
    for rgb, object_id, _, _ in frames:
        obj, _, _ = object_pixels(rgb, lut, palm, context)
        lab, edges = lab_and_edges(rgb)
        pieces = superpixels(rgb, obj > 0, edges)
        hue = np.zeros(obj.shape, np.uint8)
        yy, xx = np.nonzero(obj)
        hue[yy, xx] = coarse_hue(rgb[yy, xx])
        p = measure(pieces, lab, edges, hue)
        x, y = pair_samples(p, piece_identity(pieces, object_id, len(p.n), st.min_purity), rng)
        xs.append(x)
        ys.append(y)
    x, y = np.concatenate(xs), np.concatenate(ys)
    if len(set(y.tolist())) < 2:
        raise ValueError("the training sessions show no touching pieces of one object and of two")
    pick = np.linspace(0, len(x) - 1, min(len(x), st.merge_samples)).astype(np.int64)
    rf = RandomForestClassifier(n_estimators=st.merge_trees, max_depth=st.merge_depth, random_state=st.seed,
                                class_weight="balanced", n_jobs=1)
    rf.fit(x[pick], y[pick])
    return MergeForest(forest_from_sklearn(rf, [str(c) for c in rf.classes_])), len(pick)


def region_samples(frames, lut: np.ndarray, st: TrainSettings, hand_share: np.ndarray | None = None,
                   context: ContextClassifier | None = None,
                   merge: MergeForest | None = None) -> tuple[np.ndarray, dict[str, list[str]]]:
    xs, ys = [], {a: [] for a in ATTRIBUTES + OPTIONAL_ATTRIBUTES}
    palm = None if hand_share is None else PalmSettings(hand_share, st.palm_min_share, st.palm_reach)
    for rgb, object_id, specs, _ in frames:
        regions, _, _ = find_regions(rgb, lut, st.min_px, st.min_part, palm=palm, context=context,
                                     merge=None if merge is None else (merge, st.merge_min_p))
        for r in regions:
            ids = object_id[r.mask]
            ids = ids[ids >= 0]
            if len(ids) < st.min_purity * r.area:
                continue
            k = np.bincount(ids).argmax()
            if (ids == k).sum() < st.min_purity * r.area:
                continue
            xs.append(region_vector(rgb, r))
            for a in ATTRIBUTES + OPTIONAL_ATTRIBUTES:
                v = getattr(specs[k], a)
                ys[a].append(NO_LABEL if a == "label" and not v else str(v))
    return np.array(xs, np.float32), ys


def hold_samples(sessions, lut: np.ndarray, st: TrainSettings, hand_share: np.ndarray | None = None,
                 context: ContextClassifier | None = None,
                 merge: MergeForest | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per frame (at the segment rate) the hand measures with their context (holding.with_context), measured as at
    inference, and what the renderer's record says the hand did then: "empty", HELD, or TILTED (held, leaning)."""
    palm = None if hand_share is None else PalmSettings(hand_share, st.palm_min_share, st.palm_reach)
    xs, ys = [], []
    for s in sessions:
        meta, trace = s.meta(), s.trace()
        motion, before, rows = ViewMotion(), None, []
        for t, rgb in decode_video(s.video, list(np.arange(0.0, meta.duration_s, 1.0 / st.fps)), fps=meta.fps):
            if st.codec_quality is not None:
                rgb = jpeg_roundtrip(rgb, st.codec_quality)
            regions, cls, hand = find_regions(rgb, lut, st.min_px, st.min_part, palm=palm, context=context,
                                              merge=None if merge is None else (merge, st.merge_min_p))
            view = motion.update(cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY), hand)
            rows.append(hold_measures(cls, hand, [r.area for r in regions if r.touches_hand],
                                      None if before is None else warp_mask(before, view)))
            before = cls == OBJECT
            k = trace.index_at(t)
            a = int(trace.attached[k])
            ys.append(tilted_label(trace.obj_quat[k, a]) if a >= 0 else "empty")
        xs.append(with_context(np.array(rows)))
    return np.vstack(xs), np.array(ys)


def kind_table(categories, materials, forests) -> np.ndarray:
    """Training regions per (category, material) pair, rows and columns in the forests' class order."""
    cats, mats = forests["category"].classes, forests["material"].classes
    table = np.zeros((len(cats), len(mats)), np.int64)
    for c, m in zip(categories, materials):
        table[cats.index(c), mats.index(m)] += 1
    return table


def train(sessions, out: Path | str, st: TrainSettings | None = None,
          progress: Callable[[str], None] | None = None, hold_sessions=None) -> tuple[Path, dict]:
    from sklearn.ensemble import RandomForestClassifier

    st = st or TrainSettings()
    col = collect_pixels(sessions, st, progress)
    lut = pixel_table(col.counts)
    hand_share = hand_share_table(col.counts)
    context = None
    if st.context_scales:
        context = fit_context(colour_probabilities(col.counts), [(lut_index(f[0]), f[3]) for f in col.frames],
                              st.context_scales, st.context_pixels, st.seed)
    merge, report = None, {"sessions": [s.video_id for s in sessions]}
    if st.instances:
        merge, report["merge_pairs"] = merge_forest(col.frames, lut, st, hand_share, context)
    x, ys = region_samples(col.frames, lut, st, hand_share, context, merge)
    if len(x) == 0:
        raise ValueError("no object regions in the training sessions")
    forests = {}
    report["regions"] = int(len(x))
    columns = {"label": None, "colour": COLOUR_FEATURES}  # the others: the shape/appearance part
    for a in ATTRIBUTES + (("colour",) if st.colour_forest else ()):
        classes = sorted(set(ys[a]))
        y = np.array([classes.index(v) for v in ys[a]])
        rf = RandomForestClassifier(n_estimators=st.trees, max_depth=st.max_depth, random_state=st.seed,
                                    class_weight="balanced", n_jobs=1, oob_score=True)
        cols = columns.get(a, tuple(range(len(FEATURE_NAMES))))
        rf.fit(x if cols is None else x[:, list(cols)], y)
        forests[a] = forest_from_sklearn(rf, classes, cols)
        report[f"{a}_oob_accuracy"] = round(float(rf.oob_score_), 4)
    if st.holding:
        hx, hy = hold_samples(hold_sessions or sessions, lut, st, hand_share, context, merge)
        held = np.where(hy == TILTED, HELD, hy)
        for name, x, y in (("holding", hx, held), ("pouring", hx[held == HELD], hy[held == HELD])):
            classes = sorted(set(y.tolist()))
            if len(classes) < 2:
                continue
            rf = RandomForestClassifier(n_estimators=st.hold_trees, max_depth=st.max_depth, random_state=st.seed,
                                        min_samples_leaf=3, n_jobs=1, oob_score=True)
            rf.fit(x, np.array([classes.index(v) for v in y]))
            forests[name] = forest_from_sklearn(rf, classes)
            report[f"{name}_frames"], report[f"{name}_oob_accuracy"] = int(len(y)), round(float(rf.oob_score_), 4)
    path = CameraModel(lut=lut, forests=forests, hand_share=hand_share, context=context, merge=merge,
                       kinds=kind_table(ys["category"], ys["material"], forests)).save(out)
    return path, report
