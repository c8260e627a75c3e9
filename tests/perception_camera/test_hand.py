"""The hand mask includes the palm: on rendered frames of a layout the model was not trained on, the pixels the
renderer's segmentation shows as the palm (the skin-coloured box at the forearm's end) are found as hand when the
model's hand-share table grows the hand from the forearm, and mostly not by the colour table alone; objects are
hardly ever taken for the palm."""
from __future__ import annotations

import numpy as np
import pytest

from memora_core.perception.camera.config import CameraPerceptionConfig
from memora_core.perception.camera.groundtruth import OBJECT, SessionLabeller, decode_video
from memora_core.perception.camera.regions import PalmSettings, find_regions


@pytest.fixture(scope="module")
def palm_frames(test_demo):
    """(rgb, palm mask, object mask) of frames where the palm shows."""
    lab = SessionLabeller(test_demo)
    try:
        m = lab.view.model
        hand = m.body("demo_hand").id
        box = int(__import__("mujoco").mjtGeom.mjGEOM_BOX)
        palm_geoms = [g for g in range(m.ngeom) if m.geom_bodyid[g] == hand and m.geom_type[g] == box]
        meta = test_demo.meta()
        out = []
        for t, rgb in decode_video(test_demo.video, list(np.arange(0, meta.duration_s, 0.5)), fps=meta.fps):
            f = lab.label(t, rgb)
            seg = lab.view._renderer.render()
            palm = np.isin(seg[..., 0], palm_geoms) & (seg[..., 1] == int(lab._mj.mjtObj.mjOBJ_GEOM))
            if palm.sum() >= 40:
                out.append((rgb, palm, f.pixel_class == OBJECT))
        return out
    finally:
        lab.close()


def test_the_palm_is_hand(palm_frames, camera_model) -> None:
    assert camera_model.hand_share is not None  # camera-train keeps it
    assert len(palm_frames) >= 5
    c = CameraPerceptionConfig()
    palm_cfg = PalmSettings(camera_model.hand_share, c.palm_min_share, c.palm_reach)
    found, found_colour_only, palm_px, obj_eaten, obj_px = 0, 0, 0, 0, 0
    for rgb, palm, obj in palm_frames:
        _, _, hand = find_regions(rgb, camera_model.lut, 60, 25, palm=palm_cfg)
        _, _, hand0 = find_regions(rgb, camera_model.lut, 60, 25)
        found += int((hand & palm).sum())
        found_colour_only += int((hand0 & palm).sum())
        palm_px += int(palm.sum())
        grown = hand & ~hand0
        obj_eaten += int((grown & obj).sum())
        obj_px += int(obj.sum())
    assert found >= 0.7 * palm_px, (found, found_colour_only, palm_px)
    assert found >= found_colour_only + 0.15 * palm_px, (found, found_colour_only, palm_px)
    assert obj_eaten <= 0.02 * obj_px, (obj_eaten, obj_px)
