"""When the hand holds something (camera/holding.py), read from rendered frames by the holding forest of a model
trained on other rendered layouts (conftest.py): each hold the renderer recorded is read once (a pour is no
let-go), its grasp and release within a second at the median, two at most; a lone misread frame makes no grasp. The
pour's tilted frames are not read on this layout (strict xfail: a known gap)."""
from __future__ import annotations

import numpy as np
import pytest

from memora_core.perception import PerceptionInput
from memora_core.perception.camera.backend import CameraPerception
from memora_core.perception.camera.groundtruth import decode_video
from memora_core.perception.camera.holding import HoldReader, smoothed


def test_a_lone_misread_frame_changes_nothing():
    held = np.array([0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0], np.int8)
    assert smoothed(held).tolist() == [0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0]


def truth_moments(session) -> list[tuple[float, str]]:
    trace = session.trace()
    held = trace.attached >= 0
    return [(float(trace.t[i]), "grasp" if held[i] else "release") for i in range(1, len(held))
            if held[i] != held[i - 1]]


def read_holds(camera_model, camera_config, session) -> HoldReader:
    """The session through the backend as the memory writer runs it (segment by segment): its hand reader."""
    from memora_core.config import load_config
    from sim.perception import demo_segments

    backend = CameraPerception(camera_config, model=camera_model)
    meta = session.meta()
    frames = decode_video(session.video, fps=meta.fps)
    ts = np.array([t for t, _ in frames])
    backend.set_duration(meta.video_id, meta.duration_s)
    for seg in demo_segments(session, "P01", load_config().segmenting):
        backend.observe(PerceptionInput(segment=seg, frames=[frames[int(np.argmin(np.abs(ts - t)))][1]
                                                             for t in seg.frame_times_s]))
    return backend.hand_reader(meta.video_id)


def test_grasps_and_releases_read_from_the_frames(camera_model, camera_config, test_demo):
    assert "holding" in camera_model.forests
    reader = read_holds(camera_model, camera_config, test_demo)
    truth = truth_moments(test_demo)
    assert [k for _, k in reader.transitions] == [k for _, k in truth]  # every hold, once: the pour is no let-go
    dts = [abs(a - b) for (a, _), (b, _) in zip(reader.transitions, truth)]
    # measured on this layout: 0.8, 0.9, 0.2 and 1.8 s (the spoon, thin, reads let go as it is lowered into the bowl)
    assert np.median(dts) <= 1.0 and max(dts) <= 2.0


@pytest.mark.xfail(strict=True, reason="known gap: the tilt forest of `memora camera-train` reads tilted frames in "
                   "4 of the 6 pours of dev seed 4711, none in this layout's pour (nor does this test's model)")
def test_the_pour_is_read_as_tilted_frames_in_its_hold(camera_model, camera_config, test_demo):
    assert "pouring" in camera_model.forests
    reader = read_holds(camera_model, camera_config, test_demo)
    pour = next(e for e in test_demo.events().events if e.kind == "pour")
    assert reader.tilted and all(pour.start_s - 1.0 <= t <= pour.end_s + 1.0 for t in reader.tilted)
    assert abs((min(reader.tilted) + max(reader.tilted)) / 2 - pour.key_s) <= 1.0
