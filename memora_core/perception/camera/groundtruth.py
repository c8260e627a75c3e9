"""Pixel-level ground truth for training and tests, from a rendered demonstration (training time only: the
backend never reads simulator state). The demonstration's scene is rebuilt and its trace replayed into a
segmentation render, giving for each video frame which object (or the table, the hand, the background)
every pixel shows.

Pixel classes: BACKGROUND (floor, table legs, anything else), TABLE (the table top), HAND (the person's
hand and forearm), OBJECT (any scene object); `object_ids` keeps which object, for attribute labels."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

BACKGROUND, TABLE, HAND, OBJECT = 0, 1, 2, 3
CLASSES = ("background", "table", "hand", "object")


@dataclass
class LabelledFrame:
    t: float
    rgb: np.ndarray          # H x W x 3 uint8, as decoded from the video
    pixel_class: np.ndarray  # H x W uint8 (BACKGROUND/TABLE/HAND/OBJECT)
    object_id: np.ndarray    # H x W int16: index into `specs`, -1 where no object


def decode_video(path: Path | str, times: list[float] | None = None, fps: float | None = None) -> list[tuple[float, np.ndarray]]:
    """(t, RGB) of the video's frames; with `times`, the frame nearest each time (in order, no repeats)."""
    import av

    out: list[tuple[float, np.ndarray]] = []
    with av.open(str(path)) as c:
        stream = c.streams.video[0]
        rate = float(fps or stream.average_rate or 12.0)
        for k, frame in enumerate(c.decode(stream)):
            out.append((k / rate, frame.to_ndarray(format="rgb24")))
    if times is None:
        return out
    ts = np.array([t for t, _ in out])
    picked, last = [], -1
    for t in times:
        k = int(np.argmin(np.abs(ts - t)))
        if k != last:
            picked.append(out[k])
            last = k
    return picked


class SessionLabeller:
    """Segmentation ground truth for one rendered session (uses sim/, imported here only)."""

    def __init__(self, session: Any) -> None:
        import mujoco

        from sim.perception import DemoView, load_sim_perception_config
        from sim.scene.builder import DEMO_CAMERA, DEMO_HAND

        self._mj = mujoco
        self.camera = DEMO_CAMERA
        self.view = DemoView(session, load_sim_perception_config())
        m = self.view.model
        hand = m.body(DEMO_HAND).id
        n_obj = len(self.view.specs)
        geom_obj = self.view._geom_obj  # geom -> object index, surfaces after the objects, -1 otherwise
        self.geom_class = np.full(m.ngeom + 1, BACKGROUND, np.uint8)
        self.geom_class[:-1][(geom_obj[:-1] >= 0) & (geom_obj[:-1] < n_obj)] = OBJECT
        self.geom_class[:-1][geom_obj[:-1] >= n_obj] = TABLE
        self.geom_class[:-1][m.geom_bodyid == hand] = HAND
        self.geom_obj = np.where((geom_obj >= 0) & (geom_obj < n_obj), geom_obj, -1).astype(np.int16)
        self.specs = self.view.specs

    def label(self, t: float, rgb: np.ndarray) -> LabelledFrame:
        v = self.view
        k = v.trace.index_at(t)
        v.restore(k)
        v._renderer.update_scene(v.data, camera=self.camera)
        seg = v._renderer.render()
        ids, types = seg[..., 0], seg[..., 1]
        geom = np.where((types == int(self._mj.mjtObj.mjOBJ_GEOM)) & (ids >= 0), ids, -1)
        return LabelledFrame(t=t, rgb=rgb, pixel_class=self.geom_class[geom], object_id=self.geom_obj[geom])

    def close(self) -> None:
        self.view.close()
