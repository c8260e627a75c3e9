"""Fixtures of the formation tests: small real videos made with PyAV, writers on real stores."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memora_core.config import SegmentingConfig


def make_video(path: Path, seconds: float, fps: int = 10, size: tuple[int, int] = (64, 48),
               codec: str | None = None) -> Path:
    """Encode a real video whose frame i shows brightness i (so tests can tell which frame was sampled)."""
    import av

    codec = codec or {".webm": "libvpx", ".mkv": "mpeg4", ".mp4": "mpeg4"}[path.suffix]
    n = int(round(seconds * fps))
    with av.open(str(path), mode="w") as out:
        stream = out.add_stream(codec, rate=fps)
        stream.width, stream.height = size
        stream.pix_fmt = "yuv420p"
        for i in range(n):
            img = np.full((size[1], size[0], 3), (i * 7) % 256, dtype=np.uint8)
            img[:, : (i % size[0]) + 1, 0] = 255
            for packet in stream.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return path


@pytest.fixture
def seg_cfg() -> SegmentingConfig:
    return SegmentingConfig()
