"""EPIC-KITCHENS-100 narration tables → per-video segments on the shared grid.

API (kept small for the writer, the benchmarks and the ROS node):
- `load_narrations(csv_path, participant_id=None) -> list[NarrationRow]` (refuses missing columns by name)
- `NounClasses.load(csv_path)` / `.normalise(raw_noun)`: EPIC noun-class taxonomy (synonyms → class key)
- `load_video_durations(csv_path) -> dict[video_id, seconds]`
- `group_narrations(rows, cfg, durations) -> list[NarrationSegment]` in video order, then time order
"""
from __future__ import annotations

import ast
import csv
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from memora_core.config import SegmentingConfig
from memora_core.ingest.segments import plan_segments, segment_index_at
from memora_core.schemas import Segment

REQUIRED_COLUMNS = ("narration_id", "participant_id", "video_id", "start_timestamp", "stop_timestamp",
                    "narration", "verb", "verb_class", "noun", "noun_class", "all_nouns", "all_noun_classes")


class NarrationFormatError(ValueError):
    """The CSV is not an EPIC narration table (missing columns, unparsable values)."""


@dataclass(frozen=True)
class NarrationRow:
    narration_id: str
    participant_id: str
    video_id: str
    start_s: float
    stop_s: float
    narration: str
    verb: str
    verb_class: int
    noun: str
    noun_class: int
    all_nouns: tuple[str, ...]
    all_noun_classes: tuple[int, ...]


@dataclass
class NarrationSegment:
    segment: Segment
    rows: list[NarrationRow]


def parse_timestamp(value: str) -> float:
    """'HH:MM:SS.ff' → seconds."""
    parts = value.strip().split(":")
    if len(parts) != 3:
        raise ValueError(f"timestamp {value!r} is not HH:MM:SS.ff")
    h, m, s = parts
    return int(h) * 3600 + int(m) * 60 + float(s)


def _literal_list(value: str, column: str, where: str) -> list:
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError) as exc:
        raise NarrationFormatError(f"{where}: column {column!r} is not a list literal: {value!r}") from exc
    if not isinstance(parsed, (list, tuple)):
        raise NarrationFormatError(f"{where}: column {column!r} is not a list: {value!r}")
    return list(parsed)


def load_narrations(path: Path | str, participant_id: str | None = None) -> list[NarrationRow]:
    """Read an EPIC narration CSV (optionally one participant's rows), sorted by video then start time."""
    path = Path(path)
    with path.open(newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise NarrationFormatError(f"{path}: not an EPIC narration table, missing columns: {', '.join(missing)}")
        rows = []
        for line, rec in enumerate(reader, start=2):
            if participant_id is not None and rec["participant_id"] != participant_id:
                continue
            where = f"{path}:{line}"
            try:
                nouns = tuple(str(n) for n in _literal_list(rec["all_nouns"], "all_nouns", where))
                classes = tuple(int(c) for c in _literal_list(rec["all_noun_classes"], "all_noun_classes", where))
                row = NarrationRow(
                    narration_id=rec["narration_id"], participant_id=rec["participant_id"],
                    video_id=rec["video_id"], start_s=parse_timestamp(rec["start_timestamp"]),
                    stop_s=parse_timestamp(rec["stop_timestamp"]), narration=rec["narration"].strip(),
                    verb=rec["verb"].strip(), verb_class=int(rec["verb_class"]), noun=rec["noun"].strip(),
                    noun_class=int(rec["noun_class"]), all_nouns=nouns, all_noun_classes=classes)
            except (TypeError, ValueError) as exc:
                if isinstance(exc, NarrationFormatError):
                    raise
                raise NarrationFormatError(f"{where}: {exc}") from exc
            if len(nouns) != len(classes):
                raise NarrationFormatError(f"{where}: all_nouns and all_noun_classes differ in length")
            rows.append(row)
    rows.sort(key=lambda r: (r.video_id, r.start_s, r.narration_id))
    return rows


@dataclass(frozen=True)
class NounClass:
    id: int
    key: str
    category: str


class NounClasses:
    """EPIC noun classes: 'cabinet' and 'cupboard' are one class whose key is 'cupboard'."""

    def __init__(self, classes: dict[int, NounClass]) -> None:
        self.classes = classes

    @classmethod
    def load(cls, path: Path | str) -> "NounClasses":
        path = Path(path)
        with path.open(newline="") as fh:
            reader = csv.DictReader(fh)
            missing = [c for c in ("id", "key", "category") if c not in (reader.fieldnames or [])]
            if missing:
                raise NarrationFormatError(f"{path}: missing columns: {', '.join(missing)}")
            return cls({int(r["id"]): NounClass(int(r["id"]), r["key"], r["category"]) for r in reader})

    def get(self, class_id: int) -> NounClass | None:
        return self.classes.get(class_id)

    def key(self, class_id: int) -> str | None:
        c = self.classes.get(class_id)
        return readable_noun(c.key) if c else None


def readable_noun(raw: str) -> str:
    """EPIC writes 'board:chopping' for 'chopping board': head noun first, modifiers after colons."""
    parts = [p for p in raw.strip().lower().split(":") if p]
    return " ".join(reversed(parts)) if parts else raw.strip().lower()


def load_video_durations(path: Path | str) -> dict[str, float]:
    with Path(path).open(newline="") as fh:
        return {r["video_id"]: float(r["duration"]) for r in csv.DictReader(fh)}


def group_narrations(rows: list[NarrationRow], cfg: SegmentingConfig,
                     durations: dict[str, float] | None = None) -> list[NarrationSegment]:
    """Group rows into the same segments a video of that length would get (by start time).

    Segments without any narration are not emitted: they carry no evidence for a text stream.
    A video missing from `durations` ends at its last narration's stop time.
    """
    by_video: dict[str, list[NarrationRow]] = defaultdict(list)
    for r in rows:
        by_video[r.video_id].append(r)
    out: list[NarrationSegment] = []
    for video_id in sorted(by_video):
        vrows = by_video[video_id]
        pid = vrows[0].participant_id
        duration = (durations or {}).get(video_id) or max(r.stop_s for r in vrows)
        duration = max(duration, max(r.start_s for r in vrows) + 1e-3)
        bounds = plan_segments(duration, cfg)
        buckets: dict[int, list[NarrationRow]] = defaultdict(list)
        for r in vrows:
            buckets[segment_index_at(r.start_s, bounds, cfg)].append(r)
        for idx in sorted(buckets):
            start, end = bounds[idx]
            out.append(NarrationSegment(Segment(participant_id=pid, video_id=video_id, index=idx,
                                                start_s=start, end_s=end), buckets[idx]))
    return out
