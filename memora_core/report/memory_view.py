"""What the report's memory inspector shows, read from a run's store (SQLite, read-only): entities with
their history and the frames that saw them, routines and preferences with their evidence, the editor's
decision profile and the compression figures, and each demonstration's segments as memory recorded them."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from memora_core.report.frames import FrameSheet, Thumb
from memora_core.schemas import Activity, EntityObservation, EntityRecord, Evidence, Preference, RoutineSkill
from memora_core.store.sqlite_store import DB_FILENAME, SQLiteStore, StoreStats


@dataclass
class HistoryRow:
    obs: EntityObservation
    thumb: Thumb


@dataclass
class TimelineItem:
    """One Add / Update / Delete, or a run of Noops (seen again, nothing changed) shown together."""

    op: str
    rows: list[HistoryRow]


@dataclass
class EntityView:
    record: EntityRecord
    history: list[HistoryRow]

    @property
    def timeline(self) -> list[TimelineItem]:
        items: list[TimelineItem] = []
        for h in self.history:
            if h.obs.op.value == "noop" and items and items[-1].op == "noop":
                items[-1].rows.append(h)
            else:
                items.append(TimelineItem(h.obs.op.value, [h]))
        return items


@dataclass
class EvidenceView:
    evidence: Evidence
    thumb: Thumb


@dataclass
class SegmentView:
    activity: Activity
    thumb: Thumb


@dataclass
class KnowledgeView:
    item: RoutineSkill | Preference
    evidence: list[EvidenceView]


@dataclass
class MemoryView:
    participant: str
    stats: StoreStats
    entities: list[EntityView]
    routines: list[KnowledgeView]
    preferences: list[KnowledgeView]
    videos: dict[str, list[SegmentView]] = field(default_factory=dict)  # demonstration -> its segments

    @property
    def compression_ratio(self) -> float:
        return self.stats.compression_ratio


def evidence_view(e: Evidence, frames: FrameSheet) -> EvidenceView:
    """A cited span of a demonstration, shown by its middle frame."""
    return EvidenceView(e, frames.want(e.video_id, (e.start_s + e.end_s) / 2))


def read_memory(store_dir: Path, participant: str, frames: FrameSheet) -> MemoryView | None:
    """The memory view of `participant`, or None when the run has no store."""
    if not (store_dir / DB_FILENAME).exists():
        return None
    store = SQLiteStore(store_dir, readonly=True)
    try:
        seen_at: dict[str, Thumb] = {}  # segment id -> the frame of it the memory writer saw mid-segment
        for so in store.segment_observations(participant):
            seg = so.segment
            times = seg.frame_times_s
            t = times[len(times) // 2] if times else (seg.start_s + seg.end_s) / 2
            seen_at[seg.segment_id] = frames.want(seg.video_id, t)
        videos: dict[str, list[SegmentView]] = {}
        for a in store.activities(participant):
            thumb = seen_at.get(a.segment_id) or frames.want(a.video_id, (a.start_s + a.end_s) / 2)
            videos.setdefault(a.video_id, []).append(SegmentView(a, thumb))
        entities = [
            EntityView(e, [HistoryRow(h, seen_at.get(h.segment_id) or frames.want(h.video_id, h.t_s))
                           for h in store.entity_history(e.entity_id, participant)])
            for e in store.entities(participant, include_deleted=True)]
        routines = [KnowledgeView(r, [evidence_view(e, frames) for e in r.episodes]) for r in store.routines(participant)]
        prefs = [KnowledgeView(p, [evidence_view(e, frames) for e in p.episodes]) for p in store.preferences(participant)]
        return MemoryView(participant, store.stats(participant), entities, routines, prefs, videos)
    finally:
        store.close()
