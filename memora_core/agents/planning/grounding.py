"""Grounding a plan: entity ids and locations of its objects from each family's memory, targets from the
plan's own placements, and what could not be grounded noted as missing."""
from __future__ import annotations

from memora_core.agents.calls import CallLog
from memora_core.agents.planning.base import PlannerBase
from memora_core.agents.planning.labels import split_label
from memora_core.agents.step_text import grounding_order, with_place
from memora_core.schemas import Evidence, Plan, unique_evidence
from memora_core.tools.registry import LOCATE_MAX_NAMES
from memora_core.tools.text import overlap


class Grounding(PlannerBase):
    """Grounding: entity ids and locations from each family's memory; targets from the plan's own places."""

    def _ground(self, plan: Plan, log: CallLog) -> None:
        objects: list[str] = []
        for s in plan.steps:
            for o in (s.object, s.target):
                if o and o not in objects:
                    objects.append(o)
        # the plan's own placements ('put colander in sink') say where an object goes; the person's body
        # ('pour soap into hand') is not a place
        placed = {s.object: s.target for s in plan.steps if s.object and s.target and self._is_place(s.target)}
        found: dict[str, tuple[str | None, list[Evidence], str | None]] = {}
        order = grounding_order(plan.steps, objects, placed)
        if self.family == "memora":
            # an object an earlier Entity memory read of this plan returned (resolving the task's words, a
            # category's members) is grounded from that record: no call spent to read it again
            for o in order:
                it = self._entities_read.get(o.lower())
                if it is not None:
                    found[o] = (it["entity_id"], _seen_evidence(it), it.get("location"))
            order = [o for o in order if o not in found]
        if self.family == "memora" and "locate_objects" in self.memory.tool_names and order and self._budget_left(log):
            # Entity memory answers for every object of the plan in one call, each name on its own
            batch = order[:LOCATE_MAX_NAMES]
            r = self._call(log, "locate_objects", {"names": batch})
            for it in r.items:
                o = it.get("query")
                if o in batch and it.get("entity_id") and overlap(o, it.get("name") or "") > 0:
                    found[o] = (it["entity_id"], _seen_evidence(it), it.get("location"))
            order = order[len(batch):]
        for o in order:
            if not self._budget_left(log) or self.family == "parametric":
                break
            if self.family == "memora":
                r = self._call(log, "search_objects", {"name": o, "top_k": 1})
                hit = r.items[0] if r.items and overlap(o, r.items[0]["name"]) > 0 else None
                if hit:
                    found[o] = (hit["entity_id"], r.evidence[:1], hit.get("location"))
            elif self.family == "graph2d":
                r = self._call(log, "search_entities", {"name": o, "top_k": 1})
                if r.items:
                    found[o] = (r.items[0]["node_id"], [], r.items[0].get("location"))
            elif self.family == "flat1d":
                r = self._call(log, "search_memory", {"query": f"put {o}", "top_k": 5})
                lines = [ln for ln in r.items if overlap(o, ln["text"]) > 0]
                if lines:
                    found[o] = (None, r.evidence[:1], _place_in_lines(o, [ln["text"] for ln in lines]))
        now: dict[str, str] = {}  # where the plan's own steps have put each object so far
        for s in plan.steps:
            if s.object in found:
                s.entity_id = found[s.object][0]
                s.evidence = unique_evidence(s.evidence + found[s.object][1])
            if s.object and not s.target:
                # an object is where the plan last put it, else where memory last saw it; only an object memory
                # has no place for takes the place the plan puts it later
                loc = now.get(s.object) or found.get(s.object, (None, [], None))[2] or placed.get(s.object)
                if loc and loc != s.object and self._is_place(loc):
                    s.target = loc
                    s.text = with_place(s.text, s.action, loc)
            elif s.object and s.target and self._is_place(s.target):
                now[s.object] = s.target
        ungrounded = [o for o in objects if o not in found and self.family != "parametric"]
        if ungrounded and len(found) < len(objects):
            plan.missing += [f"object not grounded in memory: {o}" for o in ungrounded
                             if self._budget_left(log) or o in objects[: len(found) + 1]]
        for s in plan.steps:
            if s.object and not s.target:
                plan.missing.append(f"no known location for '{s.object}' (step {s.index})")


    def _is_place(self, name: str) -> bool:
        """Anything but a part of the person's body (agents.body_categories of the EPIC noun taxonomy)."""
        return not (self.vocab and self.vocab.category_of(name) in set(self.cfg.agents.body_categories))


def _seen_evidence(item: dict) -> list[Evidence]:
    """Where an Entity memory record was last seen, as evidence."""
    seen = item.get("last_seen_video")
    t = float(item.get("last_seen_s") or 0.0)
    return [Evidence(video_id=seen, start_s=t, end_s=t)] if seen else []


def _place_in_lines(obj: str, lines: list[str]) -> str | None:
    """Where a flat log says the object was put ('put bowl in sink' -> 'sink'): the most frequent place."""
    counts: dict[str, int] = {}
    for text in lines:
        for part in text.split(" | seen:")[0].split(";"):
            _, o, t = split_label(part.strip())
            if o == obj and t:
                counts[t] = counts.get(t, 0) + 1
    return max(sorted(counts), key=lambda k: counts[k]) if counts else None
