"""The video encoder's loss, simulated deterministically for training.

`camera-train` renders its sessions lossless, because libx264 at its lossy default gave different bytes for the
same frames now and then (so the model could not be made again). The videos the backend sees are lossy, though:
block and ringing artifacts give colours at object edges that the lossless frames never show, and a colour table
learned without them calls them objects (unseen colours are OBJECT). So each training frame is passed through a
JPEG encode and decode (OpenCV's libjpeg, integer DCT: the same bytes on every run) at a quality whose error matches
the demo videos' (`quality`; on the demo renders, libx264 crf 23 against lossless: PSNR 35.4 dB; JPEG 85: 35.1)."""
from __future__ import annotations

import cv2
import numpy as np


def jpeg_roundtrip(rgb: np.ndarray, quality: int) -> np.ndarray:
    """The RGB frame after a JPEG encode/decode at `quality` (1..100)."""
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return cv2.cvtColor(cv2.imdecode(buf, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
