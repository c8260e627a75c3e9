"""EPIC-KITCHENS-100 narration tables → per-video segments on the shared grid.

API (kept small for the writer, the benchmarks and the ROS node):
- `load_narrations(csv_path, participant_id=None, durations=None) -> list[NarrationRow]`: every row validated
  (columns, timestamps finite and in range, start <= stop, non-empty verb/narration, field sizes); any problem
  raises NarrationFormatError naming file:line: column
- `NounClasses.load(csv_path)` / `.normalise(raw_noun)`: EPIC noun-class taxonomy (synonyms → class key)
- `load_video_durations(csv_path) -> dict[video_id, seconds]`
- `group_narrations(rows, cfg, durations) -> list[NarrationSegment]` in video order, then time order
"""
from __future__ import annotations

import ast
import csv
import math
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import TypeAdapter

from memora_core.config import SegmentingConfig
from memora_core.errors import BadInputError
from memora_core.ingest.segments import plan_segments, segment_index_at
from memora_core.schemas import Segment
from memora_core.schemas.common import ParticipantId

_PARTICIPANT = TypeAdapter(ParticipantId)

REQUIRED_COLUMNS = ("narration_id", "participant_id", "video_id", "start_timestamp", "stop_timestamp",
                    "narration", "verb", "verb_class", "noun", "noun_class", "all_nouns", "all_noun_classes")

# Bounds on what a row may hold. EPIC's longest video is about an hour and its longest field under 100
# characters; anything far past these is an error in the file, and refusing it keeps the segment grid
# (one entry per 10 s) and every later step bounded.
MAX_TIMESTAMP_S = 24 * 3600.0
DURATION_SLACK_S = 1.0           # narrations may run this far past the video's recorded duration
MAX_FIELD_CHARS = 1024
MAX_NOUNS_PER_ROW = 64
MAX_CLASS_ID = 100_000

_TIMESTAMP_RE = re.compile(r"(-?)(\d{1,9}):([0-5]?\d):([0-5]?\d(?:\.\d{1,9})?)")
_TEXT_COLUMNS = ("narration", "verb")  # must be non-empty: an action without a verb is not an action


class NarrationFormatError(BadInputError):
    """The CSV is not an EPIC narration table (missing columns, unparsable or out-of-range values).

    The message starts with `file:line:` and names the column, so a user can go straight to it."""


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


class _FieldError(ValueError):
    """A bad value in one column; load_narrations adds file and line."""

    def __init__(self, column: str, problem: str) -> None:
        super().__init__(f"{column}: {problem}")
        self.column = column


def parse_timestamp(value: str) -> float:
    """'HH:MM:SS.ff' → seconds (finite, non-negative, at most MAX_TIMESTAMP_S); ValueError otherwise."""
    m = _TIMESTAMP_RE.fullmatch(value.strip())
    if m is None:
        raise ValueError(f"timestamp {_show(value)} is not HH:MM:SS.ff")
    sign, h, mi, sec = m.groups()
    seconds = int(h) * 3600 + int(mi) * 60 + float(sec)
    if sign:
        raise ValueError(f"timestamp {_show(value)} is negative")
    if seconds > MAX_TIMESTAMP_S:
        raise ValueError(f"timestamp {_show(value)} is past the {MAX_TIMESTAMP_S / 3600:.0f} h limit")
    return seconds


def _show(value: str, limit: int = 40) -> str:
    """A value for an error message: quoted, one line, cut short."""
    return repr(value if len(value) <= limit else value[:limit] + "...")


def _literal_list(value: str, column: str, item_type: type) -> list:
    """A Python list literal of `item_type` items (strings or ints), e.g. "['tap', 'water']"."""
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as exc:
        raise _FieldError(column, f"not a list literal: {_show(value)}") from exc
    if not isinstance(parsed, (list, tuple)):
        raise _FieldError(column, f"not a list: {_show(value)}")
    if len(parsed) > MAX_NOUNS_PER_ROW:
        raise _FieldError(column, f"{len(parsed)} items, more than {MAX_NOUNS_PER_ROW}")
    for item in parsed:
        if type(item) is not item_type:
            raise _FieldError(column, f"holds {_show(repr(item))}, not a {item_type.__name__}")
    return list(parsed)


def _class_id(value: str, column: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise _FieldError(column, f"not an integer: {_show(value)}") from None
    if not 0 <= number < MAX_CLASS_ID:
        raise _FieldError(column, f"{number} is outside 0..{MAX_CLASS_ID - 1}")
    return number


def _timestamp(rec: dict[str, str], column: str) -> float:
    try:
        return parse_timestamp(rec[column])
    except ValueError as exc:
        raise _FieldError(column, str(exc)) from None


def _row(rec: dict[str, str], durations: dict[str, float]) -> NarrationRow:
    """One validated row: everything later steps (segments, perception, schemas) require holds here."""
    for column, value in rec.items():
        if len(value) > MAX_FIELD_CHARS:
            raise _FieldError(column, f"{len(value)} characters, more than {MAX_FIELD_CHARS}")
    try:
        participant_id = _PARTICIPANT.validate_python(rec["participant_id"])
    except ValueError:
        raise _FieldError("participant_id", f"{_show(rec['participant_id'])} is not 1-64 letters, digits, "
                                            "'_' or '-'") from None
    for column in ("narration_id", "video_id", *_TEXT_COLUMNS):
        if not rec[column].strip():
            raise _FieldError(column, "is empty")
    start_s, stop_s = _timestamp(rec, "start_timestamp"), _timestamp(rec, "stop_timestamp")
    if stop_s < start_s:
        raise _FieldError("stop_timestamp", f"{rec['stop_timestamp']} is before start_timestamp "
                                            f"{rec['start_timestamp']}")
    video_id = rec["video_id"].strip()
    duration = durations.get(video_id)
    if duration is not None and stop_s > duration + DURATION_SLACK_S:
        raise _FieldError("stop_timestamp", f"{rec['stop_timestamp']} is past the end of video {video_id} "
                                            f"({duration:.2f} s)")
    nouns = tuple(_literal_list(rec["all_nouns"], "all_nouns", str))
    classes = tuple(_class_id(str(c), "all_noun_classes")
                    for c in _literal_list(rec["all_noun_classes"], "all_noun_classes", int))
    if len(nouns) != len(classes):
        raise _FieldError("all_noun_classes", f"{len(classes)} classes for {len(nouns)} nouns in all_nouns")
    for noun in nouns:
        if not readable_noun(noun):
            raise _FieldError("all_nouns", f"holds an empty noun: {_show(rec['all_nouns'])}")
    return NarrationRow(
        narration_id=rec["narration_id"].strip(), participant_id=participant_id, video_id=video_id,
        start_s=start_s, stop_s=stop_s, narration=rec["narration"].strip(), verb=rec["verb"].strip(),
        verb_class=_class_id(rec["verb_class"], "verb_class"), noun=rec["noun"].strip(),
        noun_class=_class_id(rec["noun_class"], "noun_class"), all_nouns=nouns, all_noun_classes=classes)


def _records(path: Path, required: tuple[str, ...], what: str) -> Iterator[tuple[int, dict[str, str]]]:
    """(line, record) of a CSV with `required` columns; every way the file can be unreadable (I/O,
    not UTF-8, CSV syntax, oversized field, ragged row) becomes a NarrationFormatError naming file:line."""
    line = 0
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            missing = [c for c in required if c not in (reader.fieldnames or [])]
            if missing:
                raise NarrationFormatError(f"{path}: not {what}, missing columns: {', '.join(missing)}")
            for rec in reader:
                line = reader.line_num
                if None in rec or None in rec.values():
                    raise NarrationFormatError(f"{path}:{line}: the row does not have the header's "
                                               f"{len(reader.fieldnames or [])} fields")
                yield line, rec
    except (csv.Error, UnicodeDecodeError) as exc:
        raise NarrationFormatError(f"{path}:{line + 1}: unreadable CSV: {_show(str(exc), 120)}") from None
    except OSError as exc:
        raise NarrationFormatError(f"{path}: cannot read: {exc.strerror or exc}") from None


def load_narrations(path: Path | str, participant_id: str | None = None, *,
                    durations: dict[str, float] | None = None) -> list[NarrationRow]:
    """Read an EPIC narration CSV (optionally one participant's rows), sorted by video then start time.

    Every row kept is validated (see `_row`; with `durations`, also against its video's length) before
    anything is returned, so a bad row is refused before a single segment is built. Any problem with
    the file raises NarrationFormatError naming file, line and column; nothing else escapes.
    """
    path = Path(path)
    durations = durations or {}
    rows: list[NarrationRow] = []
    for line, rec in _records(path, REQUIRED_COLUMNS, "an EPIC narration table"):
        if participant_id is not None and rec["participant_id"] != participant_id:
            continue
        try:
            rows.append(_row(rec, durations))
        except _FieldError as exc:
            raise NarrationFormatError(f"{path}:{line}: {exc}") from None
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
    """EPIC_100_video_info.csv → {video_id: seconds}; NarrationFormatError (file:line) on a bad row."""
    path = Path(path)
    out: dict[str, float] = {}
    for line, rec in _records(path, ("video_id", "duration"), "an EPIC video info table"):
        raw = rec["duration"]
        try:
            seconds = float(raw) if len(raw) <= 64 else math.nan
        except ValueError:
            seconds = math.nan
        if not rec["video_id"] or not 0.0 < seconds <= MAX_TIMESTAMP_S:
            raise NarrationFormatError(f"{path}:{line}: duration: {_show(raw)} is not a number of seconds "
                                       f"in (0, {MAX_TIMESTAMP_S:.0f}]")
        out[rec["video_id"]] = seconds
    return out


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
