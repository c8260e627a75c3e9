"""Shared field types and the evidence pointer every memory record carries."""
from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

_PARTICIPANT_RE = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")


def _check_participant(value: str) -> str:
    if not _PARTICIPANT_RE.match(value):
        raise ValueError(f"participant_id {value!r} must be 1-64 chars of letters, digits, '_' or '-'")
    return value


def _check_name(value: str) -> str:
    value = " ".join(value.strip().split())
    if not value:
        raise ValueError("name must not be empty")
    return value.lower()


ParticipantId = Annotated[str, AfterValidator(_check_participant)]
ObjectName = Annotated[str, AfterValidator(_check_name)]
Seconds = Annotated[float, Field(ge=0.0)]
Confidence = Annotated[float, Field(ge=0.0, le=1.0)]


class StrictModel(BaseModel):
    """Base for every boundary model: unknown fields are errors, values are validated on assignment."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, frozen=False)


class Evidence(StrictModel):
    """Where in the person's experience a memory record comes from."""

    video_id: str = Field(min_length=1)
    start_s: Seconds
    end_s: Seconds
    segment_id: str | None = None

    @model_validator(mode="after")
    def _ordered(self) -> "Evidence":
        if self.end_s < self.start_s:
            raise ValueError(f"end_s ({self.end_s}) is before start_s ({self.start_s})")
        return self

    def cite(self) -> str:
        return f"{self.video_id}@{self.start_s:.1f}-{self.end_s:.1f}s"


def unique_evidence(evidence: list[Evidence]) -> list[Evidence]:
    """Evidence in first-seen order without repeats (same video and times to 0.1 s)."""
    seen: set[tuple[str, float, float]] = set()
    out: list[Evidence] = []
    for e in evidence:
        key = (e.video_id, round(e.start_s, 1), round(e.end_s, 1))
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out
