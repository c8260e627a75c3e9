"""What the reference's RGP script reads from a participant's full memory, taken from our MEMORA store.

The reference (yuzihaowashu/MEMORA @ 9c80048, `scripts/paper_results/planning_metrics.py`: `_load_memory`,
`_memory_nouns`, `compute_planning_metrics`) scores every condition against the participant's *full* memory
file: its object-registry names, its procedure templates (goal, key objects, canonical steps) and its
preference statements (text, keywords). Ours maps one to one: Entity-memory names, consolidated routines
(goal, key_objects, steps) and consolidated preferences (statement, keywords) of the participant's MEMORA
store, which every condition is built from. The view is written into results.json so a recomputation needs
nothing else.
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Procedure(BaseModel):
    model_config = ConfigDict(extra="forbid")
    goal: str = ""
    key_objects: list[str] = Field(default_factory=list)
    steps: list[str] = Field(default_factory=list)


class PreferenceStatement(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str
    keywords: list[str] = Field(default_factory=list)


class MemoryView(BaseModel):
    model_config = ConfigDict(extra="forbid")
    object_names: list[str] = Field(default_factory=list)
    procedures: list[Procedure] = Field(default_factory=list)
    preferences: list[PreferenceStatement] = Field(default_factory=list)


def memory_view(store: Any, participant_id: str) -> MemoryView:
    """Entity names (live entities), routines and preferences of one participant, in store order."""
    return MemoryView(
        object_names=[e.name for e in store.entities(participant_id)],
        procedures=[Procedure(goal=r.goal, key_objects=list(r.key_objects), steps=list(r.steps))
                    for r in store.routines(participant_id)],
        preferences=[PreferenceStatement(text=p.statement, keywords=list(p.keywords))
                     for p in store.preferences(participant_id)])
