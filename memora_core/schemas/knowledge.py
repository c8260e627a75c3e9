"""Inferred Knowledge: routine skills, preferences and habits mined offline, each grounded in episodes.

Preferences and habits are typed records: their fields (what is chosen, for which object and action, what
follows what) are what the tools serve and the agents read. `statement` is only a rendering of those fields
for people and for text retrieval; nothing parses it back.
"""
from __future__ import annotations

from enum import Enum
from typing import Literal

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


class PreferenceAttribute(str, Enum):
    """What a preference chooses."""

    COMPANION = "companion"  # the second object for 'verb X' (tool, container, place): 'cut onion' -> knife
    TREATMENT = "treatment"  # what is done to an object: onion -> chop
    VARIANT = "variant"      # which of same-named objects: mug -> the blue one


class Preference(StrictModel):
    """The person's usual choice: for `subject` (when doing `action`, in `context`), `attribute` = `choice`."""

    kind: Literal["preference"] = "preference"
    pref_id: str
    participant_id: ParticipantId
    subject: str = Field(min_length=1, max_length=500)   # the object the choice is about
    action: str = Field(default="", max_length=500)       # the verb it is about ('put-in'), '' for variants
    attribute: PreferenceAttribute
    choice: str = Field(min_length=1, max_length=500)    # chosen object / verb / attribute values
    choice_text: str = Field(min_length=1, max_length=500)  # the chosen action as narrated ('chop onion')
    alternatives: dict[str, int] = Field(default_factory=dict)  # other choices seen, with their counts
    context: str = Field(default="", max_length=500)     # when it applies ('put-in sweet potato')
    polarity: Literal[1, -1] = 1                          # 1: prefers; -1: avoids
    confidence: Confidence                                # strength: share of the occasions
    support: int = Field(ge=1)                            # occasions with this choice
    occasions: int = Field(ge=1)                          # occasions where the choice was open
    keywords: list[str] = Field(min_length=1)
    episodes: list[Evidence] = Field(min_length=1)  # a preference without evidence must not exist
    statement: str = Field(min_length=1)

    def describe(self) -> str:
        cites = ", ".join(e.cite() for e in self.episodes[:3])
        return f"{self.pref_id} ({self.kind}, conf {self.confidence:.2f}): {self.statement} evidence: {cites}"


class Follower(StrictModel):
    """One action observed right after a habit's trigger, with how often."""

    action: str
    object: str = ""
    text: str = Field(min_length=1)
    count: int = Field(ge=1)


class Habit(StrictModel):
    """After the trigger (`after_action` `after_object`), the person usually does `action` `object` next."""

    kind: Literal["habit"] = "habit"
    habit_id: str
    participant_id: ParticipantId
    after_action: str = Field(min_length=1, max_length=500)
    after_object: str = Field(default="", max_length=500)
    after_text: str = Field(min_length=1, max_length=500)
    action: str = Field(min_length=1, max_length=500)
    object: str = Field(default="", max_length=500)
    text: str = Field(min_length=1, max_length=500)
    followers: list[Follower] = Field(default_factory=list)  # every next action seen, most frequent first
    context: str = Field(default="", max_length=500)
    time_of_day: str | None = None  # not observable from narrations; set when a timestamped clock is known
    frequency: int = Field(ge=1)    # times the trigger was seen
    videos: int = Field(ge=1)       # videos where the habit was seen
    confidence: Confidence          # share of the trigger's occurrences followed by this action
    support: int = Field(ge=1)
    keywords: list[str] = Field(min_length=1)
    episodes: list[Evidence] = Field(min_length=1)
    statement: str = Field(min_length=1)

    @property
    def pref_id(self) -> str:  # one id namespace for the knowledge a plan cites
        return self.habit_id

    def describe(self) -> str:
        cites = ", ".join(e.cite() for e in self.episodes[:3])
        return f"{self.habit_id} ({self.kind}, conf {self.confidence:.2f}): {self.statement} evidence: {cites}"


Knowledge = Preference | Habit
