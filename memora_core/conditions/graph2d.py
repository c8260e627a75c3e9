"""Graph-2D memory (M3-Agent style): entity and event nodes with involvement and temporal edges.

raw: built from the append-only perception records with no identity resolution (that is the editor's
job): one entity node per object *mention* in a perception record (segment), holding what was perceived
then (attributes, location), linked only to that segment's events; one event node per perceived action.
Looking an object up therefore finds its latest mention, not a resolved object. processed: entity nodes are Entity Memory records (ids, attributes,
location after the online editor), events come from Activity Memory. Tools: search_entities,
get_entity_events, search_events, get_temporal_neighbors.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Any

from memora_core.conditions.base import ConditionMemory
from memora_core.schemas import ActionObservation, Evidence
from memora_core.store.sqlite_store import SQLiteStore
from memora_core.tools.registry import (
    GetEntityEventsArgs,
    GetTemporalNeighborsArgs,
    SearchEntitiesArgs,
    SearchEventsArgs,
    ToolResult,
)
from memora_core.tools.text import BM25, normalise_noun, tokens


def _event(i: int, video: str, a: ActionObservation, seg: str) -> dict[str, Any]:
    nouns = [normalise_noun(n) for n in a.nouns]
    return {"event_id": f"ev{i:06d}", "video_id": video, "start_s": a.start_s, "end_s": max(a.end_s, a.start_s),
            "verb": a.verb, "nouns": nouns, "text": a.text or " ".join([a.verb, *nouns]), "segment_id": seg}


def raw_graph(store: SQLiteStore, pid: str) -> tuple[dict[str, dict], list[dict]]:
    entities: dict[str, dict] = {}
    events: list[dict] = []
    for obs in store.segment_observations(pid):
        seg = obs.segment
        for o in obs.objects:
            node_id = f"ent:{seg.segment_id}:{o.name}"
            entities[node_id] = {"node_id": node_id, "name": o.name, "attributes": dict(o.attributes()),
                                 "location": o.location, "mentions": 1, "segment_id": seg.segment_id,
                                 "video_id": seg.video_id, "t_s": seg.start_s}
        for a in sorted(obs.actions, key=lambda x: x.start_s):
            events.append(_event(len(events), seg.video_id, a, seg.segment_id))
    return entities, events


def processed_graph(store: SQLiteStore, pid: str) -> tuple[dict[str, dict], list[dict]]:
    entities: dict[str, dict] = {}
    placements = {p.entity_id: p.place_name for p in store.placements(pid)}
    for e in store.entities(pid):
        entities[e.name] = {"node_id": e.entity_id, "name": e.name, "attributes": e.attributes,
                            "location": e.location or placements.get(e.entity_id), "mentions": e.observation_count}
    events: list[dict] = []
    seen: set = set()
    for act in store.activities(pid):
        for a in sorted(act.actions, key=lambda x: x.start_s):
            key = (act.video_id, a.source_id or (a.verb, tuple(a.nouns), a.start_s))
            if key not in seen:
                seen.add(key)
                events.append(_event(len(events), act.video_id, a, act.segment_id))
    return entities, events


class Graph2DMemory(ConditionMemory):
    family = "graph2d"

    def __init__(self, condition_id: str, participant_id: str, entities: dict[str, dict], events: list[dict]) -> None:
        self.entities = entities
        self.events = sorted(events, key=lambda e: (e["video_id"], e["start_s"], e["event_id"]))
        self.pos = {e["event_id"]: i for i, e in enumerate(self.events)}
        self.by_entity: dict[str, list[int]] = defaultdict(list)
        self.by_segment: dict[str, list[int]] = defaultdict(list)
        for i, ev in enumerate(self.events):
            self.by_segment[ev["segment_id"]].append(i)
            for n in ev["nouns"]:
                self.by_entity[n].append(i)
        self._index = BM25([e["text"] for e in self.events])
        super().__init__(condition_id, participant_id, {
            "search_entities": self.search_entities, "get_entity_events": self.get_entity_events,
            "search_events": self.search_events, "get_temporal_neighbors": self.get_temporal_neighbors})

    @staticmethod
    def _ev(evs: list[dict]) -> list[Evidence]:
        return [Evidence(video_id=e["video_id"], start_s=e["start_s"], end_s=e["end_s"], segment_id=e["segment_id"])
                for e in evs]

    @staticmethod
    def _render(evs: list[dict]) -> str:
        return "\n".join(f"{e['event_id']} [{e['video_id']} {e['start_s']:.0f}s] {e['text']}" for e in evs)

    def _node_events(self, node: dict) -> list[int]:
        """A resolved entity links to every event naming it; a raw mention only to its own segment's events."""
        if "segment_id" in node:
            return [i for i in self.by_segment.get(node["segment_id"], []) if node["name"] in self.events[i]["nouns"]]
        return self.by_entity.get(node["name"], [])

    @staticmethod
    def _rank(node: dict) -> tuple:
        return (node["mentions"], node.get("video_id", ""), node.get("t_s", 0.0))  # then the latest mention

    def _resolve(self, name: str) -> dict | None:
        name = name.strip().lower()
        exact = [n for n in self.entities.values() if n["node_id"].lower() == name or n["name"] == name]
        if exact:
            return max(exact, key=self._rank)
        q = set(tokens(name))
        best = max(self.entities.values(), key=lambda n: (len(q & set(tokens(n["name"]))), *self._rank(n)), default=None)
        return best if best is not None and q & set(tokens(best["name"])) else None

    def search_entities(self, args: SearchEntitiesArgs) -> ToolResult:
        q = set(tokens(args.name))
        scored = [(len(q & set(tokens(n["name"]))) / max(len(q), 1) + (n["name"] == args.name.lower()), n)
                  for n in self.entities.values() if q & set(tokens(n["name"]))]
        # stable sorts: among equal matches the most mentioned, then (raw mentions) the latest one first
        scored.sort(key=lambda x: (x[1].get("video_id", ""), x[1].get("t_s", 0.0)), reverse=True)
        scored.sort(key=lambda x: (-x[0], -x[1]["mentions"]))
        nodes = [{**n, "events": len(self._node_events(n))} for s, n in scored if s > 0][: args.top_k]
        text = "\n".join(f"{n['node_id']} '{n['name']}' attrs={n['attributes']} location={n['location']} "
                         f"events={n['events']}" for n in nodes) or f"no entity {args.name!r}"
        return ToolResult(tool="search_entities", text=text, items=nodes, store="graph")

    def get_entity_events(self, args: GetEntityEventsArgs) -> ToolResult:
        node = self._resolve(args.entity)
        if node is None:
            return ToolResult(tool="get_entity_events", ok=False, error=f"no entity {args.entity!r}", store="graph")
        evs = [self.events[i] for i in self._node_events(node)]
        if args.verb:
            vq = set(tokens(args.verb))
            evs = [e for e in evs if vq & set(tokens(e["verb"]))] or evs
        evs = evs[: args.top_k]
        return ToolResult(tool="get_entity_events", text=self._render(evs) or "no events", items=evs,
                          evidence=self._ev(evs), store="graph")

    def search_events(self, args: SearchEventsArgs) -> ToolResult:
        cands = [i for i, e in enumerate(self.events) if args.video_id is None or e["video_id"] == args.video_id]
        evs = [{**self.events[i], "score": round(s, 4)} for i, s in self._index.top(args.query, args.top_k,
                                                                                    candidates=cands)]
        return ToolResult(tool="search_events", text=self._render(evs) or "no events", items=evs,
                          evidence=self._ev(evs), store="graph")

    def get_temporal_neighbors(self, args: GetTemporalNeighborsArgs) -> ToolResult:
        if args.event_id not in self.pos:
            return ToolResult(tool="get_temporal_neighbors", ok=False, error=f"no event {args.event_id!r}", store="graph")
        i = self.pos[args.event_id]
        video = self.events[i]["video_id"]
        evs = [e for e in self.events[max(0, i - args.before): i + args.after + 1] if e["video_id"] == video]
        return ToolResult(tool="get_temporal_neighbors", text=self._render(evs), items=evs, evidence=self._ev(evs),
                          store="graph")

    def stats(self) -> dict[str, Any]:
        edges = sum(len(e["nouns"]) for e in self.events) + max(len(self.events) - 1, 0)
        return {**super().stats(), "entity_nodes": len(self.entities), "event_nodes": len(self.events), "edges": edges}

    def export(self) -> dict[str, Any]:
        return {**self.stats(), "entities": list(self.entities.values()), "events": self.events}
