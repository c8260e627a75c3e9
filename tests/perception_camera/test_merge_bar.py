"""The merge bar (camera.merge_min_p in perception.yaml): a thin object (the yellow spoon) comes out as a region of
its own, not merged into what it lies against, in more frames at the configured bar than at an even 0.5, and the
container of its colour (the yellow bowl) is not broken up more for it. Ground truth: the renderer's masks of the
test layout, frames at 4 per second where the thin object shows. (In this small test model the spoon lying in the
bowl stays merged with it at either bar; on the dev sessions with the shipped model the bar kept it apart more.)"""
from __future__ import annotations

import numpy as np
import pytest

from memora_core.perception import load_perception_config
from memora_core.perception.camera.groundtruth import SessionLabeller, decode_video
from memora_core.perception.camera.regions import PalmSettings, find_regions

THIN, CONTAINER = "yellow spoon", "yellow bowl"


@pytest.fixture(scope="module")
def outcomes(test_demo, camera_model):
    """Per bar: frames where the thin object has a region of its own (holding half of it, mostly it) and where the
    container has one (holding half of it); frames where the thin object shows."""
    m = camera_model
    bar = load_perception_config(None, backend="camera").camera.merge_min_p
    palm = PalmSettings(m.hand_share, 0.1, 0.08)
    own = {0.5: 0, bar: 0}
    whole = {0.5: 0, bar: 0}
    shown = 0
    lab = SessionLabeller(test_demo)
    try:
        names = [s.name for s in lab.specs]
        i, j = names.index(THIN), names.index(CONTAINER)
        meta = test_demo.meta()
        for t, rgb in decode_video(test_demo.video, list(np.arange(0, meta.duration_s, 0.25)), fps=meta.fps):
            f = lab.label(t, rgb)
            thin, cont = f.object_id == i, f.object_id == j
            if thin.sum() < 100 or cont.sum() < 100:
                continue
            shown += 1
            for p in own:
                regions = find_regions(rgb, m.lut, 60, 25, palm=palm, merge=(m.merge, p))[0]
                own[p] += any((r.mask & thin).sum() >= 0.5 * thin.sum() and (r.mask & thin).sum() >= 0.6 * r.area
                              for r in regions)
                whole[p] += any((r.mask & cont).sum() >= 0.5 * cont.sum() for r in regions)
    finally:
        lab.close()
    return bar, own, whole, shown


@pytest.mark.slow
def test_thin_object_comes_out_on_its_own_more_often_at_the_bar(outcomes) -> None:
    bar, own, whole, shown = outcomes
    assert shown >= 20, shown
    assert bar > 0.5
    assert own[0.5] < shown, (own, shown)  # merged at times at 0.5: the test cannot pass by having no such frame
    assert own[bar] > own[0.5], (own, shown)
    assert whole[bar] >= whole[0.5] - max(1, shown // 20), (whole, shown)
