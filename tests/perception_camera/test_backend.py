"""The `camera` backend end to end on a rendered demonstration: registered and built from configuration, a
SegmentObservation per segment from frames alone (objects named from what is seen, the table, states), the
transcript from the video's audio track (espeak-ng soundtrack -> faster-whisper), and the benchmark on one
session (every figure present and in range)."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from memora_core.perception import PerceptionConfig, PerceptionInput, make_perception, registered_backends
from memora_core.perception.camera.backend import CameraPerception
from memora_core.perception.camera.bench import run_bench
from memora_core.perception.camera.groundtruth import decode_video


def _segments(session):
    from memora_core.config import load_config
    from sim.perception import demo_segments

    return demo_segments(session, "P01", load_config().segmenting)


def test_registered_and_built_from_config(camera_config) -> None:
    assert "camera" in registered_backends()
    assert isinstance(make_perception(camera_config), CameraPerception)


def test_observations_from_frames(test_demo, camera_model, camera_config) -> None:
    backend = CameraPerception(camera_config, model=camera_model)
    meta = test_demo.meta()
    frames = decode_video(test_demo.video, fps=meta.fps)
    ts = np.array([t for t, _ in frames])
    layout_names = set(meta.objects)
    seen = set()
    for seg in _segments(test_demo):
        picked = [frames[int(np.argmin(np.abs(ts - t)))][1] for t in seg.frame_times_s]
        obs = backend.observe(PerceptionInput(segment=seg, frames=picked))
        assert obs.backend == "camera" and obs.segment.segment_id == seg.segment_id
        names = [o.name for o in obs.objects]
        assert len(names) == len(set(names))  # one object per name
        assert "table" in names
        for o in obs.objects:
            if o.name == "table":
                continue
            # the name is made of what was seen: its label's first word, or its colour or material word, and its kind
            assert o.category and o.name.endswith(o.category)
            if o.label:
                assert o.name == f"{o.label.split()[0]} {o.category}"
            else:
                assert o.colour in o.name or o.material in o.name or o.name == o.category
            assert (o.location is None) == (o.state == "held")
            seen.add(o.name)
    # most things on the table are found, and several carry the layout's own (colour + kind) names
    assert len(seen) >= 8
    assert len(seen & layout_names) >= 5


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng (scripts/apt-packages.txt) not installed")
def test_transcript_from_the_audio_track(tmp_path, camera_model) -> None:
    from sim.demonstrator import RoutineConfig, render_session
    from sim.demonstrator.soundtrack import add_soundtrack, has_audio

    from .conftest import SHORT

    spoken = {**SHORT, "name": "camera_spoken", "announce": ["Time to prepare my drink."],
              "sequence": [{"steps": [{"do": "look", "object": "orange cup", "duration_s": 1.0}]}]}
    session = render_session(RoutineConfig.model_validate(spoken), seed=5, session=0, out_dir=tmp_path)
    assert not has_audio(session.video)
    assert add_soundtrack(session) and has_audio(session.video)
    assert len(decode_video(session.video)) == session.meta().frames  # the frames are untouched
    cfg = PerceptionConfig(backend="camera", options={"demo_root": str(tmp_path)})
    backend = CameraPerception(cfg, model=camera_model)
    seg = _segments(session)[0]
    obs = backend.observe(PerceptionInput(segment=seg, frames=[f for _, f in decode_video(session.video)[:3]]))
    words = obs.segment.transcript.lower()
    assert "prepare" in words and "drink" in words, words
    assert obs.summary.lower().count("drink") >= 1


def test_bench_on_one_session(test_demo, camera_model, camera_config, tmp_path) -> None:
    path = camera_model.save(tmp_path / "model.npz")
    cfg = camera_config.model_copy(update={"camera": camera_config.camera.model_copy(update={"model_path": str(path)})})
    r = run_bench([test_demo], cfg)
    for k in ("recall", "precision"):
        assert 0.0 <= r["objects"][k] <= 1.0 and 0.0 <= r["actions"][k] <= 1.0
    assert r["objects"]["recall"] > 0.3  # the objects are seen; names and colours mostly agree
    assert r["objects_identity"]["recall"] >= r["objects"]["recall"] - 0.2
    assert r["compression_median"] > 1.0 and r["oracle_compression_median"] > 1.0
    assert r["realtime_factor"] > 1.0  # faster than the video plays, at 2 frames a second
    assert r["sessions"] == 1 and r["actions"]["oracle"] == 5
    # the hand reader against the renderer's record: two holds, four moments (test_holding.py: three within 1 s)
    assert r["hand"]["truth"] == 4 and r["hand"]["matched"] >= 2 and r["hand"]["read"] >= r["hand"]["matched"]


def test_cli_refuses_bad_input() -> None:
    from memora_core.cli.main import main

    assert main(["perception-bench", "--sessions", "0"]) == 2
    assert main(["camera-train", "--sessions", "0"]) == 2
    assert main(["camera-train", "--hold-sessions", "-1"]) == 2
