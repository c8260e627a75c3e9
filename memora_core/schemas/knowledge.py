"""Inferred Knowledge: routine skills and preferences mined offline, each grounded in episodes."""
from __future__ import annotations

from pydantic import Field

from memora_core.schemas.common import Confidence, Evidence, ParticipantId, StrictModel


class RoutineSkill(StrictModel):
    routine_id: str
    participant_id: ParticipantId
    goal: str = Field(min_length=1)
    name: str = ""
    summary: str = ""
    steps: list[str] = Field(min_length=1)
    key_objects: list[str] = Field(default_factory=list)
    episodes: list[Evidence] = Field(min_length=1)
    frequency: int = Field(ge=1)

    def describe(self) -> str:
        steps = "; ".join(f"{i + 1}. {s}" for i, s in enumerate(self.steps))
        cites = ", ".join(e.cite() for e in self.episodes[:3])
        return (f"{self.routine_id} goal: {self.goal} (seen {self.frequency}x) steps: {steps} "
                f"key objects: {', '.join(self.key_objects)} evidence: {cites}")


class Preference(StrictModel):
    pref_id: str
    participant_id: ParticipantId
    statement: str = Field(min_length=1)
    kind: str = "preference"  # preference | habit
    keywords: list[str] = Field(min_length=1)
    confidence: Confidence
    support: int = Field(ge=1)
    episodes: list[Evidence] = Field(min_length=1)  # a statement without evidence must not exist

    def describe(self) -> str:
        cites = ", ".join(e.cite() for e in self.episodes[:3])
        return f"{self.pref_id} ({self.kind}, conf {self.confidence:.2f}): {self.statement} evidence: {cites}"
