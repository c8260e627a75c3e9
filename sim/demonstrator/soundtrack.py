"""A demonstration's soundtrack: what the person said (meta.speech), spoken by espeak-ng at the times it was
said, muxed into the mp4 as an AAC track (the video packets are copied, so the frames are unchanged). This is
what a head-worn microphone would have recorded; perception transcribes it back (faster-whisper), it never
reads meta.speech itself.

    add_soundtrack(session)   # no-op when the video already has audio or the person said nothing
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
import wave
from pathlib import Path

import numpy as np

from sim.demonstrator.trace import DemoSession

RATE = 16_000


class SoundtrackError(RuntimeError):
    """The soundtrack could not be made (espeak-ng missing or failing)."""


def _speak(text: str, voice: str, wpm: int) -> np.ndarray:
    if shutil.which("espeak-ng") is None:
        raise SoundtrackError("espeak-ng missing (scripts/apt-packages.txt)")
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "u.wav"
        subprocess.run(["espeak-ng", "-v", voice, "-s", str(wpm), "-w", str(path), text], check=True,
                       capture_output=True)
        with wave.open(str(path)) as w:
            rate, n = w.getframerate(), w.getnframes()
            pcm = np.frombuffer(w.readframes(n), np.int16).astype(np.float32) / 32768.0
    if rate != RATE:  # linear resampling is plenty for speech recognition
        t = np.arange(int(len(pcm) * RATE / rate)) * rate / RATE
        pcm = np.interp(t, np.arange(len(pcm)), pcm).astype(np.float32)
    return pcm


def has_audio(video: Path) -> bool:
    import av

    with av.open(str(video)) as c:
        return bool(c.streams.audio)


def add_soundtrack(session: DemoSession, voice: str = "en", words_per_minute: int = 150) -> bool:
    """Mux the spoken utterances into the session's mp4; True when a track was added."""
    import av

    meta = session.meta()
    if not meta.speech or has_audio(session.video):
        return False
    track = np.zeros(int(meta.duration_s * RATE) + RATE, np.float32)
    for u in meta.speech:
        pcm = _speak(u.text, voice, words_per_minute)
        a = int(u.start_s * RATE)
        track[a:a + len(pcm)] += pcm[: max(0, len(track) - a)]
    tmp = session.video.with_name(f".{session.video.stem}.audio.mp4")
    with av.open(str(session.video)) as src, av.open(str(tmp), "w") as dst:
        vin = src.streams.video[0]
        vout = dst.add_stream_from_template(vin)
        aout = dst.add_stream("aac", rate=RATE)
        aout.layout = "mono"
        for packet in src.demux(vin):
            if packet.dts is None:
                continue
            packet.stream = vout
            dst.mux(packet)
        frame_len = 1024
        for i in range(0, len(track), frame_len):
            chunk = track[i:i + frame_len]
            frame = av.AudioFrame.from_ndarray(chunk.reshape(1, -1), format="flt", layout="mono")
            frame.sample_rate = RATE
            frame.pts = i
            for p in aout.encode(frame):
                dst.mux(p)
        for p in aout.encode():
            dst.mux(p)
    tmp.replace(session.video)
    return True
