"""What ingest and perception produce: a segment of experience and what was seen/done in it."""
from __future__ import annotations

from pydantic import Field, model_validator

from memora_core.schemas.common import Confidence, ObjectName, ParticipantId, Seconds, StrictModel

MAX_FRAMES_PER_SEGMENT = 24


def segment_id_for(participant_id: str, video_id: str, index: int) -> str:
    """Deterministic id: a rerun after a crash produces the same ids, which makes resume exact."""
    return f"{participant_id}/{video_id}/{index:05d}"


class Segment(StrictModel):
    participant_id: ParticipantId
    video_id: str = Field(min_length=1)
    index: int = Field(ge=0)
    start_s: Seconds
    end_s: Seconds
    frame_times_s: list[Seconds] = Field(default_factory=list, max_length=MAX_FRAMES_PER_SEGMENT)
    frame_refs: list[str] = Field(default_factory=list, max_length=MAX_FRAMES_PER_SEGMENT)
    transcript: str = ""

    @model_validator(mode="after")
    def _check(self) -> "Segment":
        if self.end_s <= self.start_s:
            raise ValueError(f"segment end_s ({self.end_s}) must be after start_s ({self.start_s})")
        return self

    @property
    def segment_id(self) -> str:
        return segment_id_for(self.participant_id, self.video_id, self.index)

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s


class ObjectObservation(StrictModel):
    """One object as perception reports it. Unknown attributes stay None: never invented."""

    name: ObjectName
    category: str | None = None
    colour: str | None = None
    material: str | None = None
    label: str | None = None
    location: str | None = None
    state: str | None = None
    confidence: Confidence = 1.0
    aliases: list[str] = Field(default_factory=list)

    def attributes(self) -> dict[str, str]:
        """The identity-bearing attributes that are known (used for matching and updates)."""
        out = {}
        for key in ("category", "colour", "material", "label"):
            value = getattr(self, key)
            if value:
                out[key] = value
        return out


class ActionObservation(StrictModel):
    verb: str = Field(min_length=1)
    nouns: list[ObjectName] = Field(default_factory=list)
    start_s: Seconds
    end_s: Seconds
    text: str = ""
    source_id: str | None = None  # e.g. the EPIC narration_id

    @model_validator(mode="after")
    def _ordered(self) -> "ActionObservation":
        if self.end_s < self.start_s:
            raise ValueError(f"action end_s ({self.end_s}) is before start_s ({self.start_s})")
        return self


class SegmentObservation(StrictModel):
    """The perception JSON for one segment: the seam between every perception backend and the editor."""

    segment: Segment
    objects: list[ObjectObservation] = Field(default_factory=list)
    actions: list[ActionObservation] = Field(default_factory=list)
    summary: str = ""
    backend: str = Field(min_length=1)
