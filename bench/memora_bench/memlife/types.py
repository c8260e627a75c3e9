"""MemLife shared types (issue 14): the global timeline, intervals, segment inputs, memory entries, reader traces.

Contract with MemOpt: /tmp/h/memlife_contract.md. Times: every `t*` field is on one participant's global
timeline (seconds): the participant's videos in id order (their recording order), each starting where the
previous one ended (durations from EPIC_100_video_info.csv; a video missing there ends at its last narration).
"""
from __future__ import annotations

import bisect
import csv
import math
from pathlib import Path
from typing import Iterable, Literal

from pydantic import BaseModel, Field, model_validator

EntryKey = tuple[str, str, int]  # (participant_id, video_id, segment_index)
REPLY_LOG_CHARS = 500


class Interval(BaseModel):
    """A closed span [start, end] on the global timeline."""
    model_config = {"frozen": True}
    start: float = Field(description="start, seconds on the global timeline")
    end: float = Field(description="end, seconds on the global timeline (>= start)")

    @model_validator(mode="after")
    def _ordered(self) -> "Interval":
        if not (math.isfinite(self.start) and math.isfinite(self.end)) or self.end < self.start:
            raise ValueError(f"interval needs finite start <= end, got [{self.start}, {self.end}]")
        return self

    def clip(self, question_time: float) -> "Interval | None":
        """The part at or before `question_time`, starting no earlier than 0; None when nothing is left."""
        start, end = max(0.0, self.start), min(self.end, question_time)
        return Interval(start=start, end=end) if end >= start else None

    def overlaps(self, other: "Interval") -> bool:
        return self.start <= other.end and other.start <= self.end

    def contains(self, other: "Interval") -> bool:
        return self.start <= other.start and other.end <= self.end


class Timeline:
    """One participant's videos laid end to end in id order."""

    def __init__(self, durations: dict[str, float]) -> None:
        self.videos = sorted(durations)
        self.durations = {v: float(durations[v]) for v in self.videos}
        self.offsets: dict[str, float] = {}
        acc = 0.0
        for v in self.videos:
            self.offsets[v] = acc
            acc += self.durations[v]
        self.end = acc
        self._starts = [self.offsets[v] for v in self.videos]

    @classmethod
    def from_epic(cls, video_ids: Iterable[str], video_info_csv: Path | None,
                  last_narration_end: dict[str, float] | None = None) -> "Timeline":
        """Durations from EPIC_100_video_info.csv; a video missing there ends at its last narration."""
        known: dict[str, float] = {}
        if video_info_csv is not None and Path(video_info_csv).is_file():
            with open(video_info_csv, newline="", encoding="utf-8") as fh:
                for row in csv.DictReader(fh):
                    known[row["video_id"]] = float(row["duration"])
        ends = last_narration_end or {}
        return cls({v: known.get(v, ends.get(v, 0.0)) for v in video_ids})

    def to_global(self, video_id: str, s: float) -> float:
        return self.offsets[video_id] + s

    def to_local(self, t: float) -> tuple[str, float]:
        if not self.videos:
            raise ValueError("empty timeline")
        i = max(0, bisect.bisect_right(self._starts, t) - 1)
        v = self.videos[i]
        return v, t - self.offsets[v]

    def video_interval(self, video_id: str) -> Interval:
        o = self.offsets[video_id]
        return Interval(start=o, end=o + self.durations[video_id])


class SegmentInput(BaseModel):
    """What the writer sees for one segment."""
    participant_id: str
    video_id: str
    index: int = Field(ge=0, description="segment index within the video")
    start_s: float = Field(description="start within the video, seconds")
    end_s: float = Field(description="end within the video, seconds")
    t_start: float = Field(description="start on the global timeline")
    t_end: float = Field(description="end on the global timeline")
    perception_json: str = Field(description="a memora_core SegmentObservation dumped as JSON (any backend)")
    transcript: str = ""
    frames: list[str] = Field(default_factory=list, description="image paths; VLM path only")

    @property
    def key(self) -> EntryKey:
        return (self.participant_id, self.video_id, self.index)


class MemoryEntry(BaseModel):
    """One first-person memory entry for one segment."""
    participant_id: str
    video_id: str
    segment_index: int = Field(ge=0)
    t_start: float
    t_end: float
    text: str
    writer_id: str = Field(description="which writer produced it, e.g. 'template' or 'llm:<model>:v1'")

    @property
    def key(self) -> EntryKey:
        return (self.participant_id, self.video_id, self.segment_index)

    @property
    def interval(self) -> Interval:
        return Interval(start=self.t_start, end=self.t_end)


class ScoredEntry(BaseModel):
    entry: MemoryEntry
    score: float


ActionKind = Literal["search", "fetch_memory", "fetch_video", "rewrite", "answer"]


class ReaderAction(BaseModel):
    """One reader round's tool call as executed (interval already clipped to the question time)."""
    kind: ActionKind
    query: str | None = None
    interval: Interval | None = None
    budget: int = 0
    returned: list[EntryKey] = Field(default_factory=list)
    unavailable: bool = False  # fetch_video where no source video exists


class ReaderTrace(BaseModel):
    question_id: str
    question_time: float
    actions: list[ReaderAction] = Field(default_factory=list)
    answer: str | None = None  # letters, e.g. "B" or "AC" for multi-select
    parse_failure: bool = False
    rounds: int = 0
    reader_id: str = ""
    replies: list[str] = Field(default_factory=list)  # the LLM reader's raw replies, each cut to REPLY_LOG_CHARS

    def returned_intervals(self, entries: dict[EntryKey, MemoryEntry]) -> list[tuple[str, Interval]]:
        """(video_id, global interval) of every entry any action returned."""
        out = []
        for a in self.actions:
            for k in a.returned:
                e = entries.get(tuple(k))  # type: ignore[arg-type]
                if e is not None:
                    out.append((e.video_id, e.interval))
        return out
