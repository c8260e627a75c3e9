"""The segment's transcript from its video's audio track (faster-whisper tiny.en, memora_core.ingest.audio).
The video file is found by video id under a root directory; a video without audio gives no transcript."""
from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)


class AudioTranscripts:
    def __init__(self, video_root: str | None, max_tracks: int = 2) -> None:
        self.root = Path(video_root).expanduser() if video_root else None
        self._audio: dict[str, np.ndarray | None] = {}
        self._max = max_tracks
        self._asr = None

    def _samples(self, video_id: str) -> np.ndarray | None:
        if video_id not in self._audio:
            from memora_core.ingest.audio import load_audio

            found = sorted(self.root.rglob(f"{video_id}.mp4")) if self.root and self.root.is_dir() else []
            self._audio[video_id] = load_audio(found[0]) if found else None
            while len(self._audio) > self._max:
                self._audio.pop(next(iter(self._audio)))
        return self._audio[video_id]

    def text(self, video_id: str, start_s: float, end_s: float) -> str:
        samples = self._samples(video_id)
        if samples is None:
            return ""
        if self._asr is None:
            from memora_core.ingest.audio import WhisperTranscriber

            self._asr = WhisperTranscriber()
        return self._asr.transcribe(samples, start_s, end_s)
