"""Plans produced by the planners and consumed by the robot controller."""
from __future__ import annotations

from pydantic import Field

from memora_core.schemas.clean import CleanStr
from memora_core.schemas.common import Evidence, ParticipantId, StrictModel


class PlanStep(StrictModel):
    index: int = Field(ge=0)
    action: CleanStr = Field(min_length=1)  # steps may come from a model: sanitised (schemas.clean)
    object: CleanStr | None = None
    target: CleanStr | None = None  # location / receptacle
    text: CleanStr = ""
    entity_id: str | None = None
    evidence: list[Evidence] = Field(default_factory=list)

    def render(self) -> str:
        if self.text:
            return self.text
        words = [self.action]
        if self.object:
            words.append(self.object)
        if self.target:
            words += ["in" if self.action in ("place", "put", "pour") else "at", self.target]
        return " ".join(words)


class Plan(StrictModel):
    participant_id: ParticipantId
    instruction: str
    steps: list[PlanStep] = Field(default_factory=list)
    planner: str
    condition: str = "memora"
    routine_id: str | None = None
    preferences_used: list[str] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)  # what memory could not ground
    evidence: list[Evidence] = Field(default_factory=list)
    tool_calls: list[dict] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.steps) and not self.missing
