"""Activity Memory and Environment Memory records."""
from __future__ import annotations

from pydantic import Field

from memora_core.schemas.common import ObjectName, ParticipantId, Seconds, StrictModel
from memora_core.schemas.observation import ActionObservation


class Activity(StrictModel):
    """What was done in one segment: one record per segment."""

    activity_id: str
    participant_id: ParticipantId
    segment_id: str
    video_id: str
    start_s: Seconds
    end_s: Seconds
    seq: int = Field(ge=0)
    summary: str
    verbs: list[str] = Field(default_factory=list)
    objects: list[ObjectName] = Field(default_factory=list)
    actions: list[ActionObservation] = Field(default_factory=list)

    def describe(self) -> str:
        return f"[{self.video_id} {self.start_s:.0f}-{self.end_s:.0f}s] {self.summary}"


class Place(StrictModel):
    """A place or container in the environment (counter, fridge, drawer, cupboard ...)."""

    place_id: str
    participant_id: ParticipantId
    name: ObjectName
    kind: str = "place"  # place | container
    last_seen_video: str | None = None
    last_seen_s: Seconds | None = None


class ObjectPlacement(StrictModel):
    """Environment Memory's 'what is where': the last place an entity was seen or put."""

    participant_id: ParticipantId
    entity_id: str
    place_name: ObjectName
    video_id: str
    t_s: Seconds
    segment_id: str
