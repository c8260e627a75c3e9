"""The writer: perception output → editor decisions → one store transaction per segment.

    writer = MemoryWriter(store, perception, decider, config=editor_config)
    write = writer.process(PerceptionInput(segment, narrations=rows))   # or a SegmentObservation
    summary = writer.write_narrations(narration_segments)              # skips committed segments
    summary = writer.write_video(path, "P06", segmenting_config)

Every object of a segment yields exactly one decision and one EntityObservation row (Add, Update,
Noop and Delete alike): the append-only history whose size over the retained entities is the
compression ratio. Entity ids are numbered per participant from the store's count, and segment ids
come from `segment_id_for`, so a rerun after a crash rebuilds exactly the same memory.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tqdm import tqdm

from memora_core.config import EmbeddingConfig, SegmentingConfig
from memora_core.editing.candidates import EntityIndex
from memora_core.editing.config import EditorConfig
from memora_core.editing.deciders import DecisionContext, Decider
from memora_core.ingest.narration import NarrationSegment
from memora_core.ingest.video import VideoReport, iter_video_segments
from memora_core.perception.base import PerceptionBackend, PerceptionInput
from memora_core.schemas import (
    Activity,
    EditDecision,
    EditOp,
    EntityObservation,
    EntityRecord,
    ObjectObservation,
    ObjectPlacement,
    Place,
    SegmentObservation,
)
from memora_core.store.embedding import Embedder, HashingEmbedder, make_embedder
from memora_core.store.sqlite_store import SegmentWrite, SQLiteStore

log = logging.getLogger(__name__)


@dataclass
class WriteSummary:
    """What a write run did; `media_s` is the experience time it covered (for × real time)."""

    processed: int = 0
    skipped: int = 0
    wall_s: float = 0.0
    media_s: float = 0.0
    segment_s: float = 0.0
    video_reports: list[VideoReport] = field(default_factory=list)

    @property
    def speed(self) -> float:
        return self.media_s / self.wall_s if self.wall_s > 0 else 0.0

    def as_dict(self) -> dict:
        return {"processed": self.processed, "skipped": self.skipped, "wall_s": round(self.wall_s, 3),
                "media_s": round(self.media_s, 2), "x_real_time": round(self.speed, 1),
                "damaged": [r.describe() for r in self.video_reports if not r.ok]}


class _LazyEmbedder(Embedder):
    """Loads the model on the first embed: with EPIC categories the editor may never need it."""

    def __init__(self, config: EmbeddingConfig) -> None:
        self.config = config
        self.name = config.backend
        self.dim = config.dim
        self._inner: Embedder | None = None

    def embed(self, texts: list[str]) -> np.ndarray:
        if self._inner is None:
            self._inner = make_embedder(self.config)
        return self._inner.embed(texts)


def _editor_embedder(store: SQLiteStore, config: EditorConfig) -> Embedder | None:
    mode = config.candidates.embedder
    if mode == "none":
        return None
    if mode == "hashing":
        return HashingEmbedder()
    store_cfg = getattr(store, "config", None)
    if mode == "minilm" or store_cfg is None:
        return _LazyEmbedder(EmbeddingConfig(backend="minilm") if mode == "minilm" else EmbeddingConfig())
    return _LazyEmbedder(store_cfg.embedding)


class MemoryWriter:
    def __init__(self, store: SQLiteStore, perception: PerceptionBackend | None, decider: Decider, *,
                 config: EditorConfig | None = None, embedder: Embedder | None = None) -> None:
        self.store = store
        self.perception = perception
        self.decider = decider
        self.config = config or EditorConfig()
        self.embedder = embedder if embedder is not None else _editor_embedder(store, self.config)
        self._indexes: dict[str, EntityIndex] = {}
        env = self.config.environment
        self._containers, self._places = set(env.containers), set(env.places)

    # ------------------------------------------------------------------ state
    def index(self, participant_id: str) -> EntityIndex:
        """The participant's live entities, loaded once from the store (so resume sees what was committed)."""
        idx = self._indexes.get(participant_id)
        if idx is None:
            idx = EntityIndex(self.config.candidates, self.embedder)
            total = int(self.store.query("SELECT COUNT(*) FROM entities WHERE participant_id = ?",
                                         (participant_id,))[0][0])
            idx.load(self.store.entities(participant_id), total)
            self._indexes[participant_id] = idx
        return idx

    # ------------------------------------------------------------------ one segment
    def observe(self, item: PerceptionInput | SegmentObservation) -> SegmentObservation:
        if isinstance(item, SegmentObservation):
            return item
        if self.perception is None:
            raise ValueError("this writer has no perception backend; pass SegmentObservation objects")
        return self.perception.observe(item)

    def process(self, item: PerceptionInput | SegmentObservation) -> SegmentWrite:
        """Perceive (if needed), decide every object, and commit the segment in one transaction."""
        obs = self.observe(item)
        write = self.plan(obs)
        self._commit(write)
        idx = self.index(obs.segment.participant_id)
        for e in write.entities:
            idx.put(e)
        idx.total_ever += sum(1 for d in write.decisions if d.op == EditOp.ADD)
        return write

    def plan(self, obs: SegmentObservation) -> SegmentWrite:
        """The segment's edits, computed against the in-memory index; nothing is written here."""
        seg = obs.segment
        pid, sid = seg.participant_id, seg.segment_id
        seq = self.store.next_seq(pid)
        idx = self.index(pid)
        claimed: set[str] = set()  # an entity matched once in a segment is not matched by another object
        touched: dict[str, EntityRecord] = {}
        decisions: list[EditDecision] = []
        observations: list[EntityObservation] = []
        placements: list[ObjectPlacement] = []
        next_number = idx.total_ever
        for o in obs.objects:
            candidates = idx.retrieve(o, exclude=claimed)
            known = {k: v for k, v in idx.entities.items() if k not in claimed}
            ctx = DecisionContext(pid, sid, known=known, summary=obs.summary)
            d = self.decider.decide(o, candidates, ctx)
            if d.op == EditOp.ADD:
                entity_id = f"{pid}:e{next_number:05d}"
                next_number += 1
                rec = self._new_entity(entity_id, o, obs, seq)
                changes = {k: v for k, v in {"name": o.name, "attributes": o.attributes(), "state": o.state,
                                             "location": o.location}.items() if v}
                d = d.model_copy(update={"target_entity_id": entity_id, "after": changes})
            else:
                rec, changes = self._edited(idx.entities[d.target_entity_id], o, d, obs, seq)
            log.debug("%s %s %r -> %s: %s", sid, d.op.value, o.name, rec.entity_id, d.reason)
            claimed.add(rec.entity_id)
            touched[rec.entity_id] = rec
            decisions.append(d)
            observations.append(EntityObservation(
                entity_id=rec.entity_id, participant_id=pid, segment_id=sid, video_id=seg.video_id,
                t_s=seg.start_s, seq=seq, op=d.op, changes=changes, state=rec.state, location=rec.location))
            if o.location and not rec.deleted:
                placements.append(ObjectPlacement(participant_id=pid, entity_id=rec.entity_id,
                                                  place_name=o.location, video_id=seg.video_id, t_s=seg.start_s,
                                                  segment_id=sid))
        return SegmentWrite(observation=obs, seq=seq, entities=list(touched.values()),
                            entity_observations=observations, decisions=decisions,
                            activity=self._activity(obs, seq), places=self._places_seen(obs),
                            placements=placements)

    @staticmethod
    def _new_entity(entity_id: str, o: ObjectObservation, obs: SegmentObservation, seq: int) -> EntityRecord:
        seg = obs.segment
        return EntityRecord(
            entity_id=entity_id, participant_id=seg.participant_id, name=o.name,
            aliases=sorted(set(a for a in o.aliases if a != o.name)), attributes=o.attributes(), state=o.state,
            location=o.location, first_seen_video=seg.video_id, first_seen_s=seg.start_s,
            last_seen_video=seg.video_id, last_seen_s=seg.start_s, first_seen_seq=seq, last_seen_seq=seq,
            observation_count=1)

    @staticmethod
    def _edited(old: EntityRecord, o: ObjectObservation, d: EditDecision, obs: SegmentObservation,
                seq: int) -> tuple[EntityRecord, dict]:
        seg = obs.segment
        upd: dict = {"last_seen_video": seg.video_id, "last_seen_s": seg.start_s, "last_seen_seq": seq,
                     "observation_count": old.observation_count + 1}
        changes: dict = {}
        if d.op == EditOp.UPDATE:
            changes = dict(d.after or {})
            if "state" in changes:
                upd["state"] = changes["state"]
            if "location" in changes:
                upd["location"] = changes["location"]
            if "attributes" in changes:
                upd["attributes"] = {**old.attributes, **changes["attributes"]}
            if "aliases" in changes:
                upd["aliases"] = sorted(set(old.aliases) | set(changes["aliases"]))
        elif d.op == EditOp.DELETE:
            changes = {"deleted": True, **({"state": o.state} if o.state else {})}
            upd["deleted"] = True
            if o.state:
                upd["state"] = o.state
        return old.model_copy(update=upd), changes

    def _activity(self, obs: SegmentObservation, seq: int) -> Activity:
        seg = obs.segment
        verbs = list(dict.fromkeys(a.verb for a in obs.actions))
        summary = obs.summary or "; ".join(a.text or f"{a.verb} {' '.join(a.nouns)}".strip() for a in obs.actions)
        return Activity(activity_id=f"act:{seg.segment_id}", participant_id=seg.participant_id,
                        segment_id=seg.segment_id, video_id=seg.video_id, start_s=seg.start_s, end_s=seg.end_s,
                        seq=seq, summary=summary, verbs=verbs, objects=[o.name for o in obs.objects],
                        actions=obs.actions)

    def _places_seen(self, obs: SegmentObservation) -> list[Place]:
        """Places/containers seen in this segment: named locations plus objects that are places."""
        seg = obs.segment
        names: dict[str, str] = {}
        for o in obs.objects:
            if o.location:
                names.setdefault(o.location, self._kind(o.location, None))
            kind = self._kind(o.name, o.category)
            if o.name in self._containers or o.name in self._places or (o.category or "") in self._containers \
                    or (o.category or "") in self._places:
                names.setdefault(o.name, kind)
        return [Place(place_id=f"{seg.participant_id}:place:{n}", participant_id=seg.participant_id, name=n,
                      kind=k, last_seen_video=seg.video_id, last_seen_s=seg.start_s) for n, k in sorted(names.items())]

    def _kind(self, name: str, category: str | None) -> str:
        return "container" if name in self._containers or (category or "") in self._containers else "place"

    def _commit(self, write: SegmentWrite) -> None:
        # The store batches vector-index updates itself (store.vectors.flush_every_segments); its outbox
        # keeps the index exact across crashes.
        self.store.commit_segment(write)

    def flush(self) -> None:
        """Bring the vector index up to date now (e.g. before a semantic search by another reader)."""
        flush = getattr(self.store, "flush_vectors", None)
        if flush is not None:
            flush()

    # ------------------------------------------------------------------ streams
    def write_narrations(self, segments: Iterable[NarrationSegment], *, progress: bool = False,
                         durations: dict[str, float] | None = None) -> WriteSummary:
        """Write narration segments in order, skipping those already committed (resume)."""
        segments = list(segments)
        summary = WriteSummary()
        committed: dict[str, set[str]] = {}
        t0 = time.perf_counter()
        videos: set[str] = set()
        for ns in tqdm(segments, desc="write", unit="seg", disable=not progress):
            seg = ns.segment
            done = committed.setdefault(seg.participant_id, self.store.committed_segment_ids(seg.participant_id))
            videos.add(seg.video_id)
            summary.segment_s += seg.duration_s
            if seg.segment_id in done:
                summary.skipped += 1
                continue
            self.process(PerceptionInput(segment=seg, narrations=ns.rows))
            summary.processed += 1
        self.flush()
        summary.wall_s = time.perf_counter() - t0
        summary.media_s = sum((durations or {}).get(v, 0.0) for v in videos) or summary.segment_s
        return summary

    def write_video(self, path: Path | str, participant_id: str, segmenting: SegmentingConfig, *,
                    video_id: str | None = None, transcriber: object | None = None, progress: bool = False,
                    max_side: int | None = 640) -> WriteSummary:
        """Decode, perceive and write one video; a damaged file keeps every segment before the damage."""
        summary = WriteSummary()
        report = VideoReport(str(path))
        done = self.store.committed_segment_ids(participant_id)
        samples = None
        if transcriber is not None:
            from memora_core.ingest.audio import load_audio

            samples = load_audio(path)
        t0 = time.perf_counter()
        bar = tqdm(desc=f"write {Path(path).name}", unit="seg", disable=not progress)
        for sf in iter_video_segments(path, participant_id, segmenting, video_id=video_id, max_side=max_side,
                                      report=report):
            seg = sf.segment
            summary.segment_s += seg.duration_s
            bar.update(1)
            if seg.segment_id in done:
                summary.skipped += 1
                continue
            if samples is not None:
                seg = seg.model_copy(update={"transcript": transcriber.transcribe(samples, seg.start_s, seg.end_s)})
            self.process(PerceptionInput(segment=seg, frames=sf.frames))
            summary.processed += 1
        bar.close()
        self.flush()
        summary.wall_s = time.perf_counter() - t0
        summary.media_s = report.decoded_until_s or summary.segment_s
        summary.video_reports.append(report)
        return summary
