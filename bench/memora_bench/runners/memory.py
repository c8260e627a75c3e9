"""Memory per participant, formed once from the narration perception stream and shared by every condition.

Only the participant's `video_scope` videos enter memory. The store lives under OUT/memory/<pid>/ and is
reused by both benchmarks and by a resumed run (the writer skips committed segments; consolidation is a
pure function of the stored episodes, so re-running it gives the same bank).
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memora_core.config import MemoraConfig, load_config
from memora_core.store import MemoryStore

from memora_bench.data import BenchData
from memora_bench.metrics.planning import PreferenceView

log = logging.getLogger(__name__)


@dataclass
class ParticipantMemory:
    participant_id: str
    store: MemoryStore
    videos: list[str]
    n_narrations: int
    n_segments: int
    write_summary: dict[str, Any] = field(default_factory=dict)
    bank: list[PreferenceView] = field(default_factory=list)  # full consolidated preference bank
    kb_objects: set[str] = field(default_factory=set)         # entity + place names known to memory
    n_routines: int = 0

    def stats(self) -> dict[str, Any]:
        s = self.store.stats(self.participant_id)
        return {"participant": self.participant_id, "videos": len(self.videos), "narrations": self.n_narrations,
                "segments": self.n_segments, "entities": s.entities, "entity_observations": s.entity_observations,
                "activities": s.activities, "places": s.places, "routines": s.routines,
                "preferences": s.preferences, "compression_ratio": s.compression_ratio,
                "narrations_per_entity": (self.n_narrations / s.entities) if s.entities else 0.0,
                "decisions": s.decisions}


def store_config(base: MemoraConfig | None, vectors_backend: str, embedding_backend: str | None) -> MemoraConfig:
    data = (base or load_config()).model_dump()
    data["store"]["vectors"]["backend"] = vectors_backend
    if embedding_backend:
        data["store"]["embedding"]["backend"] = embedding_backend
    return MemoraConfig.model_validate(data)


def form_memory(data: BenchData, pid: str, root: Path, *, config: MemoraConfig,
                editor_embedder: str | None = None, progress: bool = True) -> ParticipantMemory:
    """Narrations of the scope videos → narration perception → MemoryWriter → store; then consolidate once."""
    from memora_core.consolidation import consolidate
    from memora_core.editing.config import load_editor_config
    from memora_core.editing.deciders import make_decider
    from memora_core.editing.writer import MemoryWriter
    from memora_core.ingest.narration import group_narrations, load_narrations, load_video_durations
    from memora_core.perception.base import load_perception_config, make_perception

    scope = data.video_scope(pid)
    rows = []
    for path in data._narration_files():
        try:
            rows.extend(r for r in load_narrations(path, pid) if r.video_id in set(scope))
        except ValueError as exc:  # not a narration table (e.g. a different CSV in the folder)
            log.debug("skipping %s: %s", path, exc)
    if not rows:
        raise FileNotFoundError(f"no narrations for {pid}'s {len(scope)} scope videos under {data.root}")
    info = data.root / "epic100" / "EPIC_100_video_info.csv"
    durations = load_video_durations(info) if info.exists() else {}
    segments = group_narrations(rows, config.segmenting, durations)

    root.mkdir(parents=True, exist_ok=True)
    store = MemoryStore.open(root, config)
    editor_cfg = load_editor_config(**({"candidates": {"embedder": editor_embedder}} if editor_embedder else {}))
    perception = make_perception(load_perception_config(data_dir=str(data.root)))
    writer = MemoryWriter(store, perception, make_decider(editor_cfg), config=editor_cfg)
    summary = writer.write_narrations(segments, progress=progress, durations=durations)
    routines, prefs = consolidate(store, pid)
    mem = ParticipantMemory(participant_id=pid, store=store, videos=sorted({r.video_id for r in rows}),
                            n_narrations=len(rows), n_segments=len(segments), write_summary=summary.as_dict(),
                            n_routines=len(routines))
    mem.bank = [PreferenceView(statement=p.statement, keywords=list(p.keywords)) for p in prefs]
    mem.kb_objects = {e.name for e in store.entities(pid)} | {p.name for p in store.places(pid)}
    log.info("%s: %d narrations, %d segments → %s", pid, len(rows), len(segments), mem.stats())
    return mem
