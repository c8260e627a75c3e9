"""Tool schemas, declared once: a pydantic argument model per tool -> OpenAI function-calling schema.

Every agent and LLM backend reads `ToolSpec.openai_schema()` and every call goes through
`ToolSet.call(name, args)`, which validates the (untrusted) arguments and never raises: a wrong tool
name, wrong argument types or a failing read come back as `ToolResult(ok=False, error=...)`.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from memora_core.schemas import Evidence

log = logging.getLogger(__name__)


class ToolResult(BaseModel):
    """What a tool returns: compact text for an LLM, structured items, evidence, and which store answered."""

    tool: str
    ok: bool = True
    text: str = ""
    items: list[dict[str, Any]] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    store: str = "none"
    error: str | None = None


class Args(BaseModel):
    model_config = ConfigDict(extra="ignore")  # models add stray keys; ignoring them is harmless


TopK = Field(default=5, ge=1, le=20, description="how many results")


# ---------------------------------------------------------------- argument models (one per tool)
class SearchObjectsArgs(Args):
    name: str = Field(min_length=1, description="object name, e.g. 'bowl'")
    attributes: dict[str, str] | None = Field(default=None, description="optional colour/material/label filter")
    top_k: int = TopK


LOCATE_MAX_NAMES = 12  # object names one locate_objects call takes


class LocateObjectsArgs(Args):
    names: list[str] = Field(min_length=1, max_length=LOCATE_MAX_NAMES,
                             description="object names, e.g. ['bowl', 'knife']: each is looked up on its own")

    @field_validator("names")
    @classmethod
    def _bounded(cls, v: list[str]) -> list[str]:
        out = [n.strip()[:200] for n in v if n and n.strip()]
        if not out:
            raise ValueError("no object name")
        return out


class GetObjectHistoryArgs(Args):
    entity_id: str = Field(min_length=1, description="an entity id returned by search_objects")
    limit: int = Field(default=12, ge=1, le=50)


class GetRoutineSkillArgs(Args):
    goal_query: str = Field(min_length=1, description="the task or goal, e.g. 'wash the bowl'")
    top_k: int = Field(default=3, ge=1, le=10)


class GetPreferencesArgs(Args):
    query: str | None = Field(default=None, description="topic; omit for the most confident preferences")
    kind: Literal["preference", "habit"] | None = Field(default=None, description="only preferences or habits")
    after: str | None = Field(default=None, max_length=300,
                              description="an action, e.g. 'pick up cup': the habits it triggers (what follows it)")
    top_k: int = TopK


class GetEpisodeStepsArgs(Args):
    video_id: str = Field(min_length=1, max_length=100, description="the video (episode) to read")
    about: str = Field(min_length=1, max_length=300, description="the object(s) the steps are about, e.g. 'cup'")
    context: int = Field(default=1, ge=0, le=3, description="steps kept on either side of each step about it")


class SearchActivitiesArgs(Args):
    query: str = Field(min_length=1, description="what was done, e.g. 'fill kettle'")
    video_id: str | None = Field(default=None, description="restrict to one video")
    start_s: float | None = Field(default=None, ge=0, description="time range start (s) within the video")
    end_s: float | None = Field(default=None, ge=0, description="time range end (s)")
    top_k: int = TopK


class SearchArgs(Args):
    query: str = Field(min_length=1, description="anything: objects, actions, habits, routines")
    top_k: int = TopK


class SearchMemoryArgs(Args):
    query: str = Field(min_length=1, description="keywords to find in the chronological memory log")
    video_id: str | None = None
    top_k: int = TopK


class ReadLogArgs(Args):
    video_id: str = Field(min_length=1)
    start_s: float = Field(ge=0)
    end_s: float = Field(ge=0)


class SearchEntitiesArgs(Args):
    name: str = Field(min_length=1, description="entity (object) name")
    top_k: int = TopK


class GetEntityEventsArgs(Args):
    entity: str = Field(min_length=1, description="entity node id or name")
    verb: str | None = Field(default=None, description="optional action filter, e.g. 'wash'")
    top_k: int = Field(default=8, ge=1, le=30)


class SearchEventsArgs(Args):
    query: str = Field(min_length=1)
    video_id: str | None = None
    top_k: int = TopK


class GetTemporalNeighborsArgs(Args):
    event_id: str = Field(min_length=1, description="an event node id")
    before: int = Field(default=3, ge=0, le=20)
    after: int = Field(default=8, ge=0, le=30)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    args_model: type[Args]
    store: str  # which memory store answers this tool (for the per-store call shares)

    def openai_schema(self) -> dict[str, Any]:
        params = self.args_model.model_json_schema()
        params.pop("title", None)
        for prop in params.get("properties", {}).values():
            prop.pop("title", None)
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": params}}

    def prompt_line(self) -> str:
        props = self.args_model.model_json_schema().get("properties", {})
        return f"- {self.name}({', '.join(props)}): {self.description}"


SPECS: dict[str, ToolSpec] = {s.name: s for s in [
    ToolSpec("search_objects", "Find objects in Entity Memory by name (and attributes); gives ids, state, "
             "location, last seen.", SearchObjectsArgs, "entity_memory"),
    ToolSpec("locate_objects", "Where several objects are, in one call: for each name, the object in Entity Memory "
             "that search_objects would rank first (id, location, last seen), or none.", LocateObjectsArgs,
             "entity_memory"),
    ToolSpec("get_object_history", "The observed history of one object (where/when seen, changes).",
             GetObjectHistoryArgs, "entity_memory"),
    ToolSpec("get_routine_skill", "Routines the person repeats (goal, ordered steps, key objects) for a goal.",
             GetRoutineSkillArgs, "inferred_knowledge"),
    ToolSpec("get_preferences", "The person's typed preferences (subject, action, choice) and habits (after an "
             "action, what they do next, with counts); `after` finds the habits an action triggers.",
             GetPreferencesArgs, "inferred_knowledge"),
    ToolSpec("get_episode_steps", "One video's consolidated step list about an object: every narrated step with "
             "it, once each, in the order done, with its neighbouring steps.", GetEpisodeStepsArgs,
             "inferred_knowledge"),
    ToolSpec("search_activities", "Search Activity Memory: what was done, when, in which video.",
             SearchActivitiesArgs, "activity_memory"),
    ToolSpec("search", "Search all memory stores at once (fallback).", SearchArgs, "unified"),
    ToolSpec("search_memory", "Keyword search over the chronological text memory log.", SearchMemoryArgs,
             "flat_text"),
    ToolSpec("read_log", "Read the memory log of one video between two times.", ReadLogArgs, "flat_text"),
    ToolSpec("search_entities", "Find entity nodes in the memory graph by name.", SearchEntitiesArgs, "graph"),
    ToolSpec("get_entity_events", "Event nodes linked to an entity node (optionally one verb).",
             GetEntityEventsArgs, "graph"),
    ToolSpec("search_events", "Search event nodes of the memory graph by text.", SearchEventsArgs, "graph"),
    ToolSpec("get_temporal_neighbors", "Events just before/after an event (temporal edges).",
             GetTemporalNeighborsArgs, "graph"),
]}


class ToolSet:
    """A set of named tools with validated, never-raising dispatch."""

    def __init__(self, handlers: dict[str, Callable[[Any], ToolResult]]) -> None:
        unknown = set(handlers) - set(SPECS)
        if unknown:
            raise ValueError(f"tools without a declared spec: {sorted(unknown)}")
        self._handlers = handlers

    @property
    def tool_names(self) -> list[str]:
        return list(self._handlers)

    def tool_specs(self) -> list[dict[str, Any]]:
        return [SPECS[n].openai_schema() for n in self._handlers]

    def specs(self) -> list[ToolSpec]:
        return [SPECS[n] for n in self._handlers]

    def call(self, tool_name: str, args: Any) -> ToolResult:
        name = tool_name if isinstance(tool_name, str) else repr(tool_name)
        if name not in self._handlers:
            return ToolResult(tool=name, ok=False, error=f"unknown tool {name!r}; available: "
                              f"{', '.join(self._handlers) or 'none'}")
        spec = SPECS[name]
        try:
            parsed = spec.args_model.model_validate(args if isinstance(args, dict) else {})
        except ValidationError as exc:
            msg = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:3])
            return ToolResult(tool=name, ok=False, store=spec.store, error=f"bad arguments: {msg}")
        try:
            result = self._handlers[name](parsed)
        except Exception as exc:  # a failing read must not kill the agent; it is reported to it instead
            log.warning("tool %s failed: %s", name, exc)
            return ToolResult(tool=name, ok=False, store=spec.store, error=f"{type(exc).__name__}: {exc}")
        return result.model_copy(update={"tool": name, "store": result.store if result.store != "none"
                                         else spec.store})
