"""Test fixture: commit EPIC narrations into a MemoryStore as SegmentWrites, without the online editor.

A deliberately simple stand-in for memora_core.editing.writer (used until/unless that is available):
one activity per segment carrying every narrated action, one entity per object name, and a placement
for 'put X in/on Y'. It is real data through the real store; it is not the editor under test here.
"""
from __future__ import annotations

from pathlib import Path

from memora_core.config import MemoraConfig, SegmentingConfig, load_config
from memora_core.ingest.narration import group_narrations, load_narrations, load_video_durations, readable_noun
from memora_core.schemas import (
    ActionObservation,
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
from memora_core.store import MemoryStore, SegmentWrite

NARRATIONS = "epic100/EPIC_100_extension_narrations_P06_P28.csv"


def test_config(vectors: str = "none", embedding: str = "hashing") -> MemoraConfig:
    cfg = load_config()
    data = cfg.model_dump()
    data["store"]["vectors"]["backend"] = vectors
    data["store"]["embedding"]["backend"] = embedding
    return MemoraConfig.model_validate(data)


def build_store(root: Path, participant: str, *, config: MemoraConfig | None = None, videos: set[str] | None = None,
                max_segments: int | None = None) -> MemoryStore:
    config = config or test_config()
    data = config.data_path()
    rows = load_narrations(data / NARRATIONS, participant)
    if videos is not None:
        rows = [r for r in rows if r.video_id in videos]
    durations = load_video_durations(data / "epic100/EPIC_100_video_info.csv")
    segs = group_narrations(rows, SegmentingConfig(), durations)
    if max_segments is not None:
        segs = segs[:max_segments]
    store = MemoryStore.open(root, config)
    entities: dict[str, EntityRecord] = {}
    for seq, ns in enumerate(segs):
        seg = ns.segment
        actions = [ActionObservation(verb=r.verb, nouns=[readable_noun(n) for n in r.all_nouns] or [r.noun],
                                     start_s=r.start_s, end_s=max(r.stop_s, r.start_s), text=r.narration,
                                     source_id=r.narration_id) for r in ns.rows]
        names = sorted({n for a in actions for n in a.nouns})
        obs = SegmentObservation(segment=seg, objects=[ObjectObservation(name=n) for n in names], actions=actions,
                                 summary="; ".join(r.narration for r in ns.rows), backend="narration")
        changed, hist, decisions, places, placements = [], [], [], [], []
        for n in names:
            eid = f"{participant}-E-{n.replace(' ', '_')}"
            prev = entities.get(n)
            rec = EntityRecord(entity_id=eid, participant_id=participant, name=n,
                               first_seen_video=prev.first_seen_video if prev else seg.video_id,
                               first_seen_s=prev.first_seen_s if prev else seg.start_s,
                               last_seen_video=seg.video_id, last_seen_s=seg.start_s,
                               first_seen_seq=prev.first_seen_seq if prev else seq, last_seen_seq=seq,
                               observation_count=(prev.observation_count + 1) if prev else 1)
            op = EditOp.UPDATE if prev else EditOp.ADD
            for a in actions:
                if a.nouns and a.nouns[0] == n and len(a.nouns) > 1 and a.verb.startswith(("put", "place")):
                    rec.location = a.nouns[1]
                    places.append(Place(place_id=f"{participant}-L-{a.nouns[1].replace(' ', '_')}",
                                        participant_id=participant, name=a.nouns[1], kind="container",
                                        last_seen_video=seg.video_id, last_seen_s=a.start_s))
                    placements.append(ObjectPlacement(participant_id=participant, entity_id=eid,
                                                      place_name=a.nouns[1], video_id=seg.video_id, t_s=a.start_s,
                                                      segment_id=seg.segment_id))
            entities[n] = rec
            changed.append(rec)
            hist.append(EntityObservation(entity_id=eid, participant_id=participant, segment_id=seg.segment_id,
                                          video_id=seg.video_id, t_s=seg.start_s, seq=seq, op=op,
                                          location=rec.location))
            decisions.append(EditDecision(op=op, observed_name=n, target_entity_id=eid if prev else None,
                                          reason="fixture: one entity per name"))
        activity = Activity(activity_id=f"{seg.segment_id}/act", participant_id=participant,
                            segment_id=seg.segment_id, video_id=seg.video_id, start_s=seg.start_s, end_s=seg.end_s,
                            seq=seq, summary=obs.summary, verbs=sorted({a.verb for a in actions}), objects=names,
                            actions=actions)
        dedup_places = {p.name: p for p in places}
        store.commit_segment(SegmentWrite(observation=obs, seq=seq, entities=changed, entity_observations=hist,
                                          decisions=decisions, activity=activity, places=list(dedup_places.values()),
                                          placements=list({p.entity_id: p for p in placements}.values())))
    store.flush_vectors()
    return store
