"""Whether the hand holds something, frame by frame, and when it takes hold and lets go.

The tracker (tracker.py) reads actions from where things rest; it learns that an object was put down only when the
object shows at rest after the hand has drawn back, and that one was taken when its place stays empty, so its
times are often a second or more off, and now and then it reads a move where nothing was held. The hand itself says
when: an object in the hand moves with it (its pixels next to the hand are not where the object pixels of the frame
before were, once the view's own motion is taken out), sticks out past it over the floor, and touches it in one
region. A forest trained on rendered demonstrations (`memora camera-train`; the label is the renderer's record of
what the hand holds) reads these measures of a frame together with how they changed from the frame before and to
the frame after; a frame's state is the majority of its own reading and its two neighbours', so one misread frame
makes no grasp. A second forest reads, of the frames in a hold, those where the held object is tilted (pouring;
labelled by the object's lean in the renderer's record). hand_timing.py times the tracker's actions by these
moments."""
from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from memora_core.perception.camera.groundtruth import BACKGROUND, OBJECT, TABLE

HOLD_MEASURES = ("hand_area", "hand_x0", "hand_x1", "hand_y0", "hand_y1", "object_within_3px", "object_within_8px",
                 "object_within_16px", "object_within_32px", "background_around_hand", "table_around_hand",
                 "regions_touching", "touching_area", "largest_touching", "moved_share")
HELD = "held"
TILTED = "tilted"
POUR_TILT_DEG = 45.0  # a held object whose up axis leans this far from vertical is tilted (pouring), for training


def tilted_label(quat_wxyz: np.ndarray) -> str:
    """TILTED when the body's up axis leans more than POUR_TILT_DEG from the world's vertical, else HELD."""
    w, x, y, z = (float(v) for v in quat_wxyz)
    up_z = 1.0 - 2.0 * (x * x + y * y)
    return TILTED if up_z < np.cos(np.radians(POUR_TILT_DEG)) else HELD


def warp_mask(mask: np.ndarray, h: np.ndarray) -> np.ndarray:
    """A frame's boolean mask carried into the next frame's pixels by the view's 3 x 3 transform `h`."""
    return cv2.warpPerspective(mask.astype(np.uint8), h, (mask.shape[1], mask.shape[0]),
                               flags=cv2.INTER_NEAREST) > 0


def hold_measures(cls: np.ndarray, hand: np.ndarray, touching_areas: list[int],
                  before: np.ndarray | None) -> np.ndarray:
    """The measures of HOLD_MEASURES for one frame: its pixel classes, hand mask, the areas of the object regions
    touching the hand, and the frame before's object pixels carried into this frame (None: first frame)."""
    h, w = cls.shape
    obj = cls == OBJECT
    x = [float(hand.mean())]
    if hand.any():
        ys, xs = np.nonzero(hand)
        x += [xs.min() / w, xs.max() / w, ys.min() / h, ys.max() / h]
        dist = cv2.distanceTransform(np.where(hand, 0, 255).astype(np.uint8), cv2.DIST_L2, 3)
    else:
        x += [0.0, 0.0, 0.0, 0.0]
        dist = np.full(cls.shape, np.inf, np.float32)
    x += [100.0 * float((obj & (dist <= r)).sum()) / (w * h) for r in (3, 8, 16, 32)]
    ring = (dist > 0) & (dist <= 12)
    x += [float((cls[ring] == BACKGROUND).mean()) if ring.any() else 0.0,
          float((cls[ring] == TABLE).mean()) if ring.any() else 0.0]
    x += [float(len(touching_areas)), 100.0 * sum(touching_areas) / (w * h),
          100.0 * max(touching_areas, default=0) / (w * h)]
    moved = 0.0
    if before is not None and hand.any():
        near = obj & (dist <= 16)
        moved = float((near & ~before).sum()) / max(1, int(near.sum()))
    x.append(moved)
    return np.array(x, np.float32)


def with_context(xs: np.ndarray) -> np.ndarray:
    """Rows of one video's measures with how they changed from the frame before and to the frame after (the first
    and last frame count as unchanged)."""
    if len(xs) == 0:
        return np.zeros((0, 3 * len(HOLD_MEASURES)), np.float32)
    prev = np.vstack([xs[:1], xs[:-1]])
    nxt = np.vstack([xs[1:], xs[-1:]])
    return np.hstack([xs, xs - prev, nxt - xs]).astype(np.float32)


def smoothed(held: np.ndarray) -> np.ndarray:
    """Each frame's state as the majority of its own and its neighbours' readings (edges padded)."""
    if len(held) < 3:
        return held.copy()
    p = np.concatenate([held[:1], held, held[-1:]]).astype(int)
    return (p[:-2] + p[1:-1] + p[2:] >= 2).astype(held.dtype)


@dataclass
class HoldReader:
    """One video's frames as they arrive: the grasps and releases decided so far. A frame's state is decided once
    the frame after the next has arrived (two frames of delay: its reading needs the next frame, its majority the
    next reading), or at `finish()`."""

    forest: object  # model.Forest with classes including HELD
    pour_forest: object | None = None  # model.Forest with classes including TILTED: held frames tilted (pouring)
    tilted: list[float] = field(default_factory=list)  # times of held frames read as tilted
    times: list[float] = field(default_factory=list)
    xs: list[np.ndarray] = field(default_factory=list)
    transitions: list[tuple[float, str]] = field(default_factory=list)  # (t, "grasp" | "release")
    _decided: int = 0
    _state: int = 0  # the hand is empty when the video starts
    _before: np.ndarray | None = None

    def step(self, t: float, cls: np.ndarray, hand: np.ndarray, touching_areas: list[int],
             view: np.ndarray | None) -> None:
        """Frame at `t`: its pixel classes and hand mask, the areas of object regions touching the hand, and the
        view's transform from the frame before (None: unknown)."""
        before = None if self._before is None or view is None else warp_mask(self._before, view)
        self.xs.append(hold_measures(cls, hand, touching_areas, before))
        self.times.append(t)
        self._before = cls == OBJECT
        self._decide(len(self.times) - 2)

    def finish(self) -> None:
        self._decide(len(self.times))

    def _decide(self, upto: int) -> None:
        """Decide the states of frames before index `upto` (whose neighbours' readings are known)."""
        if upto <= self._decided:
            return
        n = len(self.xs)
        # only the frames whose readings the new states need (linear in the video's length): readings of
        # lo..hi-1 need the measures of lo-1..hi
        lo, hi = max(0, self._decided - 1), min(n, upto + 1)
        a = max(0, lo - 1)
        x = with_context(np.array(self.xs[a:min(n, hi + 1)]))[lo - a:hi - a]
        p = self.forest.predict_proba(x)[:, list(self.forest.classes).index(HELD)]
        held = (p >= 0.5).astype(np.int8)
        # a frame used here has both neighbours in the window, or is the video's first or last (padded)
        states = smoothed(held)
        tilt = None if self.pour_forest is None else \
            self.pour_forest.predict_proba(x)[:, list(self.pour_forest.classes).index(TILTED)]
        for i in range(self._decided, upto):
            s = int(states[i - lo])
            if s != self._state:  # it changed between the frame before and this one: timed half way
                t = self.times[i] if i == 0 else (self.times[i - 1] + self.times[i]) / 2
                self.transitions.append((t, "grasp" if s else "release"))
                self._state = s
            if s and tilt is not None and tilt[i - lo] >= 0.5:
                self.tilted.append(self.times[i])
        self._decided = upto
