"""Compact perception JSON for MemOpt's prompts (writer, faithfulness evaluator, key-fact extraction).

A segment's perception JSON (any backend) spends most of its characters on what a 135M writer cannot use: null
attributes, the segment header (the prompt already names the clip and its times), annotation ids, the backend
name and a summary that repeats the actions. The compact form keeps every known fact and drops only those:
- objects: name plus each known attribute (category only when it differs from the name), confidence when < 1;
- actions: start second (rounded) and what was done (the action's text, else verb + nouns);
- summary: kept unless it is just the action texts joined with ";".
Over `max_chars`, trailing objects go first, then trailing actions (whole items, never a cut mid-JSON).
"""
from __future__ import annotations

import json

from memora_core.schemas import SegmentObservation

from memora_bench.memlife.types import SegmentInput

OBJECT_ATTRS = ("colour", "material", "label", "location", "state")


def _object(o) -> dict:
    d: dict = {"name": o.name}
    if o.category and o.category != o.name:
        d["category"] = o.category
    d.update({k: getattr(o, k) for k in OBJECT_ATTRS if getattr(o, k)})
    if o.confidence < 1.0:
        d["confidence"] = round(o.confidence, 2)
    if o.aliases:
        d["aliases"] = list(o.aliases)
    return d


def _action(a) -> dict:
    did = a.text.strip() or " ".join([a.verb.replace("-", " "), *a.nouns])
    return {"t": int(round(a.start_s)), "did": did}


def _parts(summary: str) -> list[str]:
    return [p.strip() for p in summary.split(";") if p.strip()]


def _dump(doc: dict) -> str:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False)


def compact_perception(perception_json: str, max_chars: int) -> str:
    """The compact JSON of one segment's perception, at most `max_chars` characters where whole items allow."""
    obs = SegmentObservation.model_validate_json(perception_json)
    objects = [_object(o) for o in obs.objects]
    actions = [_action(a) for a in obs.actions]
    doc: dict = {}
    summary = obs.summary.strip()
    if summary and _parts(summary) != [a.text.strip() for a in obs.actions]:
        doc["summary"] = summary
    doc["actions"], doc["objects"] = actions, objects
    text = _dump(doc)
    while len(text) > max_chars and (doc["objects"] or doc["actions"]):
        (doc["objects"] or doc["actions"]).pop()
        text = _dump(doc)
    if len(text) > max_chars and "summary" in doc:
        doc["summary"] = summary[:max(0, max_chars - len(_dump({**doc, "summary": ""})))]
        text = _dump(doc)
    return text


def compact_segment(seg: SegmentInput, max_chars: int) -> SegmentInput:
    """The same segment with its perception JSON in compact form."""
    return seg.model_copy(update={"perception_json": compact_perception(seg.perception_json, max_chars)})
