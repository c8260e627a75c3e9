"""The reader's tools, executed the same way for every reader policy.

Every interval is clipped to the question time before use (a reader never reads the future); an interval that
lies wholly after it returns nothing. SearchMemory ranks by similarity, keeps at most 32, and hands the hits back
in chronological order; FetchMemory returns at most 64 entries inside the interval, chronological; FetchVideo
returns at most 50 frames + transcript where a source video exists, else a typed "unavailable".
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from pydantic import BaseModel, Field

from memora_bench.memlife.index import MemLifeIndex
from memora_bench.memlife.types import Interval, MemoryEntry, ReaderAction

SEARCH_MAX, FETCH_MAX, VIDEO_FRAMES_MAX = 32, 64, 50


class VideoClip(BaseModel):
    frames: list[str] = Field(default_factory=list, max_length=VIDEO_FRAMES_MAX)  # image paths
    transcript: str = ""


class VideoSource(Protocol):
    def clip(self, interval: Interval, max_frames: int) -> VideoClip | None:
        """Frames + transcript of the interval, or None where no source video covers it."""


@dataclass
class ToolResult:
    action: ReaderAction
    entries: list[MemoryEntry] = field(default_factory=list)  # chronological
    video: VideoClip | None = None


def chronological(entries: list[MemoryEntry]) -> list[MemoryEntry]:
    return sorted(entries, key=lambda e: (e.t_start, e.video_id, e.segment_index))


class ReaderTools:
    def __init__(self, index: MemLifeIndex, question_time: float, *, search_k: int = SEARCH_MAX,
                 fetch_k: int = FETCH_MAX, video_frames: int = VIDEO_FRAMES_MAX,
                 video: VideoSource | None = None) -> None:
        self.index, self.question_time, self.video = index, question_time, video
        self.search_k = min(search_k, SEARCH_MAX)
        self.fetch_k = min(fetch_k, FETCH_MAX)
        self.video_frames = min(video_frames, VIDEO_FRAMES_MAX)

    def window(self, interval: Interval | None) -> Interval | None:
        """The interval clipped to [0, question time]; no interval means the whole past."""
        base = interval or Interval(start=0.0, end=max(0.0, self.question_time))
        return base.clip(self.question_time)

    def search(self, query: str, interval: Interval | None = None, k: int | None = None) -> ToolResult:
        budget = min(k or self.search_k, self.search_k)
        win = self.window(interval)
        hits = [] if win is None else [s.entry for s in self.index.search(query, win, budget)]
        hits = chronological(hits)
        return ToolResult(ReaderAction(kind="search", query=query, interval=win, budget=budget,
                                       returned=[e.key for e in hits]), hits)

    def fetch_memory(self, interval: Interval, k: int | None = None) -> ToolResult:
        budget = min(k or self.fetch_k, self.fetch_k)
        win = self.window(interval)
        hits = [] if win is None else self.index.fetch(win, budget)
        return ToolResult(ReaderAction(kind="fetch_memory", interval=win, budget=budget,
                                       returned=[e.key for e in hits]), hits)

    def fetch_video(self, interval: Interval) -> ToolResult:
        win = self.window(interval)
        clip = None if (win is None or self.video is None) else self.video.clip(win, self.video_frames)
        if clip is not None and len(clip.frames) > self.video_frames:
            clip = VideoClip(frames=clip.frames[:self.video_frames], transcript=clip.transcript)
        return ToolResult(ReaderAction(kind="fetch_video", interval=win, budget=self.video_frames,
                                       unavailable=clip is None), video=clip)

    def rewrite(self, query: str) -> ToolResult:
        return ToolResult(ReaderAction(kind="rewrite", query=query))

    def handed(self, entries: list[MemoryEntry]) -> ToolResult:
        """Oracle: entries given to the reader directly, recorded as a fetch (clipped to the question time)."""
        kept = chronological([e for e in entries if e.t_end <= self.question_time])[:self.fetch_k]
        return ToolResult(ReaderAction(kind="fetch_memory", query="oracle", budget=self.fetch_k,
                                       returned=[e.key for e in kept]), kept)


def render(entries: list[MemoryEntry], max_chars: int) -> str:
    """Tool result text for a model: one line per entry, chronological, bounded."""
    lines, used = [], 0
    for e in entries:
        line = f"[{e.t_start:.0f}-{e.t_end:.0f} s | {e.video_id} #{e.segment_index}] {e.text}"
        if used + len(line) > max_chars:
            lines.append("[... more entries cut]")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines) if lines else "(no entries)"
