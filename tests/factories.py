"""Small builders of valid memory records for tests (no logic under test lives here)."""
from __future__ import annotations

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
    Segment,
    SegmentObservation,
)
from memora_core.store import SegmentWrite


def segment_write(pid: str, video: str, index: int, seq: int, objects: list[str],
                  *, verb: str = "take", place: str | None = None, t0: float | None = None) -> SegmentWrite:
    """A segment where every object is seen for the first time (Add) and acted on with `verb`."""
    start = index * 10.0 if t0 is None else t0
    seg = Segment(participant_id=pid, video_id=video, index=index, start_s=start, end_s=start + 10.0)
    obs = SegmentObservation(
        segment=seg, backend="test", summary=f"{verb} " + ", ".join(objects),
        objects=[ObjectObservation(name=o, location=place) for o in objects],
        actions=[ActionObservation(verb=verb, nouns=objects, start_s=start + 1, end_s=start + 2)],
    )
    entities, history, decisions, placements = [], [], [], []
    for o in objects:
        eid = f"{pid}:{video}:{index}:{o.replace(' ', '_')}"
        entities.append(EntityRecord(entity_id=eid, participant_id=pid, name=o, location=place,
                                     first_seen_video=video, first_seen_s=start, last_seen_video=video,
                                     last_seen_s=start, first_seen_seq=seq, last_seen_seq=seq))
        history.append(EntityObservation(entity_id=eid, participant_id=pid, segment_id=seg.segment_id,
                                         video_id=video, t_s=start, seq=seq, op=EditOp.ADD,
                                         changes={"name": o}, location=place))
        decisions.append(EditDecision(op=EditOp.ADD, observed_name=o, target_entity_id=eid, reason="new object"))
        if place:
            placements.append(ObjectPlacement(participant_id=pid, entity_id=eid, place_name=place, video_id=video,
                                              t_s=start, segment_id=seg.segment_id))
    activity = Activity(activity_id=f"act:{seg.segment_id}", participant_id=pid, segment_id=seg.segment_id,
                        video_id=video, start_s=seg.start_s, end_s=seg.end_s, seq=seq, summary=obs.summary,
                        verbs=[verb], objects=objects, actions=obs.actions)
    places = [Place(place_id=f"{pid}:place:{place}", participant_id=pid, name=place, last_seen_video=video,
                    last_seen_s=start)] if place else []
    return SegmentWrite(observation=obs, seq=seq, entities=entities, entity_observations=history,
                        decisions=decisions, activity=activity, places=places, placements=placements)
