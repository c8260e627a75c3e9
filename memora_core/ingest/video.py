"""Video ingest: PyAV decoding into segments (10 s, 2 FPS, at most 24 frames) and a live segmenter.

Only the sampled frames are converted to arrays; every other decoded frame is dropped at once, which
is what keeps decoding at a fraction of real time. A damaged or truncated file keeps every segment
completed before the damage, and `VideoReport` says where decoding stopped.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from memora_core.config import SegmentingConfig
from memora_core.errors import BadInputError
from memora_core.schemas import Segment

log = logging.getLogger(__name__)

VIDEO_SUFFIXES = (".mp4", ".webm", ".mkv", ".mov", ".avi")


@dataclass
class SegmentFrames:
    """A segment and its sampled RGB frames (uint8, H×W×3), in time order."""

    segment: Segment
    frames: list[np.ndarray] = field(default_factory=list)


@dataclass
class VideoReport:
    """What decoding achieved; `failed_at_s` is set when the file ended or broke before its declared end."""

    path: str
    declared_duration_s: float | None = None
    decoded_until_s: float = 0.0
    segments_emitted: int = 0
    failed_at_s: float | None = None
    failed_segment_index: int | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def describe(self) -> str:
        if self.ok:
            return f"{self.path}: {self.segments_emitted} segments, decoded to {self.decoded_until_s:.2f}s"
        return (f"{self.path}: damaged at {self.failed_at_s:.2f}s (segment {self.failed_segment_index}); "
                f"kept {self.segments_emitted} complete segments before it; {self.error}")


class VideoDecodeError(BadInputError, RuntimeError):
    """The file cannot be used as a video at all (missing, empty, not a video, an mp4 cut before its
    index was written, no decodable frame): refused before any segment is built."""


@dataclass
class _Open:
    index: int
    start_s: float
    end_s: float
    slots: dict[int, tuple[float, np.ndarray]] = field(default_factory=dict)
    last_t: float = 0.0


class LiveSegmenter:
    """Cuts a stream of (frame, time) pairs into segments on the shared grid.

    `push` returns the segments that became final. A segment is held back until the stream has gone
    `min_tail_s` past its end, because only then do we know the next piece is not a short tail that
    must be folded into it. `close` flushes (and folds) at the end of the stream.
    """

    def __init__(self, participant_id: str, video_id: str, cfg: SegmentingConfig,
                 convert: Callable[[Any], np.ndarray] | None = None) -> None:
        self.participant_id = participant_id
        self.video_id = video_id
        self.cfg = cfg
        self.convert = convert or (lambda f: np.asarray(f))
        self._open: _Open | None = None
        self._held: _Open | None = None
        self.last_t: float | None = None

    def _new(self, index: int) -> _Open:
        return _Open(index, index * self.cfg.segment_s, (index + 1) * self.cfg.segment_s)

    def push(self, frame: Any, t_s: float) -> list[SegmentFrames]:
        if self.last_t is not None and t_s < self.last_t:
            raise ValueError(f"frame time {t_s:.3f}s goes back in time (previous {self.last_t:.3f}s)")
        self.last_t = t_s
        out: list[SegmentFrames] = []
        if self._held is not None and t_s >= self._held.end_s + self.cfg.min_tail_s:
            out.append(self._emit(self._held))
            self._held = None
        index = int(t_s // self.cfg.segment_s)
        if self._open is None or index != self._open.index:
            if self._open is not None:
                if self._held is not None:  # a gap skipped whole segments: nothing can fold into the held one
                    out.append(self._emit(self._held))
                self._held = self._open
                if t_s >= self._held.end_s + self.cfg.min_tail_s:
                    out.append(self._emit(self._held))
                    self._held = None
            self._open = self._new(index)
        seg = self._open
        slot = int((t_s - seg.start_s) * self.cfg.fps)
        if slot not in seg.slots:  # first frame of each 1/fps slot is the sample; the rest are never converted
            seg.slots[slot] = (t_s, self.convert(frame))
        seg.last_t = t_s
        return out

    def close(self, end_s: float | None = None) -> list[SegmentFrames]:
        """Flush at end of stream; `end_s` is the stream's end (default: the last frame time)."""
        out: list[SegmentFrames] = []
        op, held = self._open, self._held
        self._open = self._held = None
        if op is None:
            return [self._emit(held)] if held is not None else []
        end = end_s if end_s is not None else op.last_t
        op.end_s = max(min(op.end_s, end), op.last_t)
        if held is not None and held.index == op.index - 1 and op.end_s - op.start_s < self.cfg.min_tail_s:
            held.slots.update({k + 10**6: v for k, v in op.slots.items()})  # keys only order samples
            held.end_s = op.end_s
            return [self._emit(held)]
        if held is not None:
            out.append(self._emit(held))
        if op.end_s <= op.start_s:  # a single frame exactly on a boundary: give it a sliver of time
            op.end_s = op.start_s + 1.0 / self.cfg.fps
        out.append(self._emit(op))
        return out

    def discard_open(self) -> int | None:
        """Drop the segment being filled (e.g. decoding broke inside it); returns its index."""
        idx = self._open.index if self._open is not None else None
        self._open = None
        return idx

    def _emit(self, seg: _Open) -> SegmentFrames:
        samples = [seg.slots[k] for k in sorted(seg.slots)]
        if len(samples) > self.cfg.max_frames:  # folded tail or long window: spread the cap evenly
            step = len(samples) / self.cfg.max_frames
            samples = [samples[int(i * step)] for i in range(self.cfg.max_frames)]
        segment = Segment(participant_id=self.participant_id, video_id=self.video_id, index=seg.index,
                          start_s=seg.start_s, end_s=seg.end_s, frame_times_s=[round(t, 3) for t, _ in samples],
                          frame_refs=[f"{self.video_id}@{t:.2f}s" for t, _ in samples])
        return SegmentFrames(segment, [f for _, f in samples])


def _to_rgb(max_side: int | None) -> Callable[[Any], np.ndarray]:
    def convert(frame: Any) -> np.ndarray:
        w, h = frame.width, frame.height
        if max_side and max(w, h) > max_side:
            scale = max_side / max(w, h)
            w, h = max(2, int(w * scale) // 2 * 2), max(2, int(h * scale) // 2 * 2)
        return frame.to_ndarray(format="rgb24", width=w, height=h)
    return convert


def video_id_from_path(path: Path | str) -> str:
    return Path(path).stem


def iter_video_segments(path: Path | str, participant_id: str, cfg: SegmentingConfig, *,
                        video_id: str | None = None, max_side: int | None = 640,
                        report: VideoReport | None = None, max_gap_s: float = 1.0) -> Iterator[SegmentFrames]:
    """Decode a video file into segments. Fill `report` (pass one in) to learn whether and where it broke.

    Raises VideoDecodeError only when the file cannot be opened at all (e.g. an mp4 cut before its index
    was written). Damage later in the file (a decode error, frames missing for more than `max_gap_s`,
    or a stream ending before its declared duration) ends the iteration after the last complete
    segment before it, never with an exception.
    """
    import av

    path = Path(path)
    rep = report if report is not None else VideoReport(str(path))
    rep.path = str(path)
    container = _open_container(path)
    with container:
        stream = _video_stream(container, path)
        stream.thread_type = "AUTO"
        rep.declared_duration_s = _declared_duration(container, stream)
        live = LiveSegmenter(participant_id, video_id or video_id_from_path(path), cfg, _to_rgb(max_side))
        frame_dt = 1.0 / float(stream.average_rate) if stream.average_rate else 1.0 / 30
        last_t = None
        try:
            for frame in container.decode(stream):
                if frame.time is None:
                    continue
                t = float(frame.time)
                if last_t is not None and t - last_t > max(max_gap_s, 3 * frame_dt):
                    # the demuxer skipped a corrupt stretch silently: treat it as the damage point
                    _mark_damage(rep, live, last_t, f"frames missing from {last_t:.2f}s to {t:.2f}s")
                    break
                for seg in live.push(frame, t):
                    rep.segments_emitted += 1
                    yield seg
                last_t = t
        except (av.error.FFmpegError, ValueError, EOFError) as exc:
            _mark_damage(rep, live, last_t, f"decode error: {exc}")
        if rep.error is None:
            end = (last_t + frame_dt) if last_t is not None else 0.0
            declared = rep.declared_duration_s
            tolerance = max(1.0, 3 * frame_dt)
            if last_t is None:
                rep.error = "no decodable frames"
                rep.failed_at_s, rep.failed_segment_index = 0.0, 0
            elif declared is not None and declared - end > tolerance:
                _mark_damage(rep, live, last_t, f"stream ends at {end:.2f}s but declares {declared:.2f}s")
            if rep.error is None:
                end = min(end, declared) if declared else end
                for seg in live.close(end):
                    rep.segments_emitted += 1
                    yield seg
                rep.decoded_until_s = end
                return
        for seg in live.close():  # the held, complete segment survives; the damaged one was discarded
            rep.segments_emitted += 1
            yield seg
        log.warning("%s", rep.describe())


def probe_video(path: Path | str) -> float | None:
    """Check that `path` is a video this ingest can decode, before anything is written from it: opens
    it and decodes its first frame. Returns the declared duration (None if the file declares none).

    Raises VideoDecodeError for a missing or empty file, a file that is not a video, an mp4 whose index
    (written last) is missing because the file was cut, or a video without a single decodable frame.
    """
    import av

    path = Path(path)
    if not path.is_file():
        raise VideoDecodeError(f"{path}: no such video file")
    if path.stat().st_size == 0:
        raise VideoDecodeError(f"{path}: empty file, not a video")
    with _open_container(path) as container:
        stream = _video_stream(container, path)
        try:
            for frame in container.decode(stream):
                if frame.time is not None:
                    return _declared_duration(container, stream)
        except (av.error.FFmpegError, ValueError, EOFError) as exc:
            raise VideoDecodeError(f"{path}: its first frame does not decode: {exc}") from exc
    raise VideoDecodeError(f"{path}: no decodable video frame")


def _open_container(path: Path) -> Any:
    import av

    try:
        return av.open(str(path))
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        raise VideoDecodeError(f"{path}: cannot open as video (not a video, or written only in part: an mp4 "
                               f"cut before its index): {exc}") from exc


def _video_stream(container: Any, path: Path) -> Any:
    if not container.streams.video:
        container.close()
        raise VideoDecodeError(f"{path}: no video stream")
    return container.streams.video[0]


def _mark_damage(rep: VideoReport, live: LiveSegmenter, last_t: float | None, error: str) -> None:
    rep.error = error
    rep.failed_at_s = last_t or 0.0
    rep.decoded_until_s = last_t or 0.0
    dropped = live.discard_open()
    rep.failed_segment_index = dropped if dropped is not None else int((last_t or 0.0) // live.cfg.segment_s)


def _declared_duration(container: Any, stream: Any) -> float | None:
    if stream.duration is not None and stream.time_base is not None:
        return float(stream.duration * stream.time_base)
    if container.duration is not None:
        return container.duration / 1_000_000
    return None
