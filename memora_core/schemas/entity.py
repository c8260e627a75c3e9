"""Entity Memory: one record per real object, its turn-aligned history, and the editor's decisions."""
from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import Field, model_validator

from memora_core.schemas.common import ObjectName, ParticipantId, Seconds, StrictModel


class EditOp(str, Enum):
    ADD = "add"
    UPDATE = "update"
    DELETE = "delete"
    NOOP = "noop"


class EntityRecord(StrictModel):
    entity_id: str = Field(min_length=1)
    participant_id: ParticipantId
    name: ObjectName
    aliases: list[str] = Field(default_factory=list)
    attributes: dict[str, str] = Field(default_factory=dict)
    state: str | None = None
    location: str | None = None
    first_seen_video: str
    first_seen_s: Seconds
    last_seen_video: str
    last_seen_s: Seconds
    first_seen_seq: int = Field(ge=0)
    last_seen_seq: int = Field(ge=0)
    observation_count: int = Field(default=1, ge=0)
    deleted: bool = False

    def describe(self) -> str:
        attrs = ", ".join(f"{k}={v}" for k, v in sorted(self.attributes.items()))
        bits = [f"{self.entity_id} '{self.name}'"]
        if attrs:
            bits.append(f"[{attrs}]")
        if self.state:
            bits.append(f"state={self.state}")
        if self.location:
            bits.append(f"at={self.location}")
        bits.append(f"last seen {self.last_seen_video}@{self.last_seen_s:.0f}s")
        return " ".join(bits)


class EntityObservation(StrictModel):
    """One row of an entity's history: which segment saw it and what that segment changed."""

    entity_id: str
    participant_id: ParticipantId
    segment_id: str
    video_id: str
    t_s: Seconds
    seq: int = Field(ge=0)
    op: EditOp
    changes: dict[str, Any] = Field(default_factory=dict)
    state: str | None = None
    location: str | None = None


class EditDecision(StrictModel):
    op: EditOp
    observed_name: ObjectName
    target_entity_id: str | None = None
    reason: str = Field(min_length=1)
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    converted_from: EditOp | None = None  # set when a robust conversion rewrote the decider's op

    @model_validator(mode="after")
    def _target_rules(self) -> "EditDecision":
        if self.op in (EditOp.UPDATE, EditOp.DELETE, EditOp.NOOP) and not self.target_entity_id:
            raise ValueError(f"{self.op.value} decision needs target_entity_id")
        return self
