"""Thumbnails for the HTML reports: frames of the demonstration videos, by (video_id, time), decoded with
PyAV in one pass per video and saved as small JPEG files beside the page (relative links, so a copied run
directory still shows them).

Callers first ask for frames (`FrameSheet.want`, which returns a `Thumb` to put in the page data), then
call `extract()` once; a thumb whose video is absent, or beyond the sheet's bound, keeps `src = None` and the
page shows its citation as text instead.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

VIDEO_SUFFIXES = (".mp4", ".mkv", ".webm")


@dataclass
class Thumb:
    """One frame of a video, shared by every place in the page that cites the same moment."""

    video_id: str
    t: float
    src: str | None = None  # path relative to the page, once extracted

    @property
    def label(self) -> str:
        return f"{self.video_id}@{self.t:.1f}s"


def find_videos(root: Path) -> dict[str, Path]:
    """Every video under `root` by video id (its file stem); hidden (partial) files are skipped."""
    if not root.is_dir():
        return {}
    found = (p for p in sorted(root.rglob("*")) if p.suffix in VIDEO_SUFFIXES and not p.name.startswith("."))
    return {p.stem: p for p in found}


def video_duration(path: Path) -> float:
    """Seconds of the first video stream (0.0 when the container does not say)."""
    import av

    with av.open(str(path)) as c:
        stream = c.streams.video[0]
        if stream.duration is not None and stream.time_base is not None:
            return float(stream.duration * stream.time_base)
        return float(c.duration / av.time_base) if c.duration else 0.0


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:80]


class FrameSheet:
    """Collects frame requests, then extracts each distinct one once (at most `limit` of them)."""

    def __init__(self, videos: dict[str, Path], out_dir: Path, page_dir: Path, *, width: int = 200,
                 limit: int = 400) -> None:
        self.videos = videos
        self.out_dir = out_dir
        self.page_dir = page_dir
        self.width = width
        self.limit = limit
        self._wanted: dict[tuple[str, float], Thumb] = {}

    def want(self, video_id: str, t: float) -> Thumb:
        key = (video_id, round(max(0.0, t), 1))
        thumb = self._wanted.get(key)
        if thumb is None:
            thumb = self._wanted[key] = Thumb(video_id, key[1])
        return thumb

    def extract(self) -> int:
        """Decode what was asked for; returns how many thumbnails were written."""
        import av

        by_video: dict[str, list[Thumb]] = {}
        for thumb in list(self._wanted.values())[: self.limit]:
            if thumb.video_id in self.videos:
                by_video.setdefault(thumb.video_id, []).append(thumb)
        written = 0
        for video_id, thumbs in by_video.items():
            try:
                written += self._extract_video(self.videos[video_id], sorted(thumbs, key=lambda th: th.t))
            except (av.FFmpegError, OSError) as exc:  # a broken video loses its frames, not the page
                log.warning("report: frames of %s not extracted: %s", self.videos[video_id], exc)
        return written

    def _extract_video(self, path: Path, thumbs: list[Thumb]) -> int:
        import av

        self.out_dir.mkdir(parents=True, exist_ok=True)
        written, i, last = 0, 0, None
        with av.open(str(path)) as c:
            for frame in c.decode(video=0):
                last = frame
                t = float(frame.time or 0.0)
                while i < len(thumbs) and thumbs[i].t <= t:
                    written += self._save(thumbs[i], frame)
                    i += 1
                if i == len(thumbs):
                    break
        while last is not None and i < len(thumbs):  # asked for past the end: the last frame
            written += self._save(thumbs[i], last)
            i += 1
        return written

    def _save(self, thumb: Thumb, frame: Any) -> int:
        import cv2

        img = frame.to_ndarray(format="bgr24")
        h, w = img.shape[:2]
        if w > self.width:
            img = cv2.resize(img, (self.width, max(1, round(h * self.width / w))), interpolation=cv2.INTER_AREA)
        path = self.out_dir / f"{_safe(thumb.video_id)}_{round(thumb.t * 10):06d}.jpg"
        if not cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 82]):
            return 0
        thumb.src = path.relative_to(self.page_dir).as_posix()
        return 1
