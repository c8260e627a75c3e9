"""Video ingest on real files encoded by PyAV: the segment grid, 2 FPS sampling, the cap, tail folding."""
from __future__ import annotations

import numpy as np
import pytest

from memora_core.config import SegmentingConfig
from memora_core.ingest.segments import plan_segments, sample_times
from memora_core.ingest.video import LiveSegmenter, VideoReport, iter_video_segments
from tests.formation.conftest import make_video


def test_plan_folds_short_tail_only():
    cfg = SegmentingConfig()
    assert plan_segments(25.0, cfg) == [(0.0, 10.0), (10.0, 20.0), (20.0, 25.0)]
    assert plan_segments(20.5, cfg) == [(0.0, 10.0), (10.0, 20.5)]  # 0.5 s tail folds
    assert plan_segments(21.0, cfg) == [(0.0, 10.0), (10.0, 20.0), (20.0, 21.0)]  # 1 s tail does not
    assert plan_segments(0.4, cfg) == [(0.0, 0.4)]  # a short video is one segment, never dropped
    assert plan_segments(30.0, SegmentingConfig(segment_s=15)) == [(0.0, 15.0), (15.0, 30.0)]


def test_sample_times_rate_and_cap():
    cfg = SegmentingConfig()
    assert sample_times(0, 10, cfg) == [i * 0.5 for i in range(20)]
    long = sample_times(0, 60, SegmentingConfig(segment_s=60))
    assert len(long) == 24 and long[0] == 0 and long[-1] < 60


@pytest.mark.parametrize("suffix", [".mp4", ".webm"])
def test_video_segments(tmp_path, seg_cfg, suffix):
    path = make_video(tmp_path / f"clip{suffix}", seconds=25.4, fps=10)
    report = VideoReport(str(path))
    segs = list(iter_video_segments(path, "P99", seg_cfg, report=report))
    assert report.ok, report.describe()
    assert [(s.segment.index, s.segment.start_s) for s in segs] == [(0, 0.0), (1, 10.0), (2, 20.0)]
    assert abs(segs[-1].segment.end_s - 25.4) < 0.15
    assert [len(s.frames) for s in segs[:2]] == [20, 20]  # 2 FPS over 10 s
    assert len(segs[2].frames) == 11
    first = segs[0]
    assert first.segment.segment_id == "P99/clip/00000"
    assert first.segment.frame_times_s[:3] == pytest.approx([0.0, 0.5, 1.0], abs=0.051)
    assert first.frames[0].dtype == np.uint8 and first.frames[0].shape == (48, 64, 3)
    # the sampled frame at 1.0 s is frame 10, whose grey level is 70 (mpeg4 is lossy: allow slack)
    assert abs(int(np.median(first.frames[2][:, 40:, 1])) - 70) < 12


def test_video_tail_under_one_second_folds(tmp_path, seg_cfg):
    path = make_video(tmp_path / "tail.mp4", seconds=20.6, fps=10)
    segs = list(iter_video_segments(path, "P99", seg_cfg))
    assert [s.segment.index for s in segs] == [0, 1]
    assert segs[1].segment.end_s == pytest.approx(20.6, abs=0.15)
    assert 20 <= len(segs[1].frames) <= 24


def test_live_segmenter_matches_grid_and_folds(seg_cfg):
    live = LiveSegmenter("P99", "cam", seg_cfg)
    out = []
    frames = [(np.full((4, 4, 3), i, np.uint8), i / 4) for i in range(int(20.5 * 4))]  # 4 Hz camera, 20.5 s
    for img, t in frames:
        out += live.push(img, t)
    assert [s.segment.index for s in out] == [0]  # segment 1 is held: the stream might end in a short tail
    out += live.close(20.5)
    assert [s.segment.index for s in out] == [0, 1]
    assert out[1].segment.end_s == 20.5
    assert len(out[0].frames) == 20 and len(out[1].frames) == 21
    assert int(out[0].frames[1][0, 0, 0]) == 2  # 0.5 s at 4 Hz is frame 2
    with pytest.raises(ValueError):
        live2 = LiveSegmenter("P99", "cam", seg_cfg)
        live2.push(frames[5][0], 2.0)
        live2.push(frames[1][0], 1.0)


def test_live_segmenter_emits_without_waiting_for_close(seg_cfg):
    live = LiveSegmenter("P99", "cam", seg_cfg)
    emitted = []
    for i in range(0, 2 * 45):  # 2 Hz for 45 s
        emitted += live.push(np.zeros((2, 2, 3), np.uint8), i / 2)
    # the last frame is at 44.5 s: segment 3 (30-40 s) is final since 41 s; segment 4 is still open
    assert [s.segment.index for s in emitted] == [0, 1, 2, 3]
    emitted += live.close()
    assert [s.segment.index for s in emitted] == [0, 1, 2, 3, 4]
