"""Synthetic memory for the store benchmark: segments of one long-lived participant and many others.

Every segment writes what the online editor writes: one activity, the entity observations of the
objects seen, and (sometimes) a new entity; activities and new entities are the vector-indexed items.
`RandomUnitEmbedder` stands in for the embedder at sizes where embedding would dominate the build: it
returns normalised pseudo-random vectors of the real dimension, seeded by the text (same text, same
vector), and the benchmark says so in its output.
"""
from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from memora_core.schemas import (
    Activity,
    EditDecision,
    EditOp,
    EntityObservation,
    EntityRecord,
    ObjectObservation,
    Segment,
    SegmentObservation,
)
from memora_core.store import SegmentWrite
from memora_core.store.embedding import Embedder

NOUNS = ["cup", "plate", "knife", "spoon", "bowl", "pan", "pot", "kettle", "sponge", "tap", "fridge", "drawer",
         "onion", "tomato", "bread", "butter", "milk", "tea", "coffee", "glass", "lid", "board", "oil", "salt",
         "fork", "jar", "tray", "towel", "egg", "cheese", "rice", "pasta", "carrot", "pepper", "mug", "bottle"]
ADJECTIVES = ["red", "blue", "green", "white", "black", "yellow", "small", "large", "glass", "steel", "wooden",
              "ceramic", "plastic", "old", "new", "striped"]
VERBS = ["take", "put", "wash", "open", "close", "cut", "pour", "stir", "dry", "fill", "move", "turn-on",
         "turn-off", "peel", "mix", "check", "rinse", "wipe", "carry", "place"]
PLACES = ["counter", "sink", "hob", "table", "shelf", "cupboard", "drawer", "fridge", "rack", "oven"]
SEGMENTS_PER_VIDEO = 180  # 30 min videos of 10 s segments
SEGMENT_S = 10.0
MAIN = "P000"


class RandomUnitEmbedder(Embedder):
    """Bypasses text embedding (not the index): a pseudo-random unit vector per distinct text."""

    name = "hashing"  # reuses the hashing collections' names; the vectors are what differ

    def __init__(self, dim: int = 384) -> None:
        self.dim = dim

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
            out[row] = np.random.default_rng(seed).standard_normal(self.dim, dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)


@dataclass
class Layout:
    """Who owns the indexed items: `main_share` of them belong to one long-lived participant (P000), the
    rest are spread evenly over `participants - 1` others."""

    items: int
    participants: int = 100
    main_share: float = 0.5
    new_entity_rate: float = 0.25  # new entities per segment (a kitchen keeps revealing objects)
    seen_per_segment: int = 3  # observations of known objects per segment
    seed: int = 0

    def pids(self) -> list[str]:
        return [f"P{i:03d}" for i in range(self.participants)]


@dataclass
class _Participant:
    pid: str
    seq: int = 0
    entities: list[EntityRecord] = field(default_factory=list)


@dataclass
class Written:
    """What the generator handed to the store, per participant and per collection."""

    activities: dict[str, int] = field(default_factory=dict)
    entities: dict[str, int] = field(default_factory=dict)
    segments: int = 0
    entity_observations: int = 0

    @property
    def items(self) -> int:
        return sum(self.activities.values()) + sum(self.entities.values())


def _entity_name(rng: random.Random, n: int) -> str:
    return f"{rng.choice(ADJECTIVES)} {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} {n}"


def _segment_write(p: _Participant, rng: random.Random, new_entity: bool, seen: int) -> SegmentWrite:
    video_no, index = divmod(p.seq, SEGMENTS_PER_VIDEO)
    video, start = f"{p.pid}_{video_no:04d}", index * SEGMENT_S
    seg = Segment(participant_id=p.pid, video_id=video, index=index, start_s=start, end_s=start + SEGMENT_S)
    entities, history, decisions = [], [], []
    if new_entity:
        n = len(p.entities)
        rec = EntityRecord(entity_id=f"{p.pid}:e{n}", participant_id=p.pid, name=_entity_name(rng, n),
                           location=rng.choice(PLACES), first_seen_video=video, first_seen_s=start,
                           last_seen_video=video, last_seen_s=start, first_seen_seq=p.seq, last_seen_seq=p.seq)
        p.entities.append(rec)
        entities.append(rec)
        history.append((rec, EditOp.ADD))
    for rec in rng.sample(p.entities[:-1] if new_entity else p.entities, min(seen, len(p.entities) - new_entity)):
        history.append((rec, EditOp.NOOP))
    observations = []
    for rec, op in history:
        observations.append(EntityObservation(entity_id=rec.entity_id, participant_id=p.pid,
                                              segment_id=seg.segment_id, video_id=video, t_s=start, seq=p.seq, op=op))
        decisions.append(EditDecision(op=op, observed_name=rec.name, target_entity_id=rec.entity_id, reason="bench"))
    objects = [rec.name.rsplit(" ", 1)[0] for rec, _ in history] or [rng.choice(NOUNS)]
    verb = rng.choice(VERBS)
    summary = f"{verb} {', '.join(objects[:3])} at {rng.choice(PLACES)}"
    activity = Activity(activity_id=f"act:{seg.segment_id}", participant_id=p.pid, segment_id=seg.segment_id,
                        video_id=video, start_s=start, end_s=start + SEGMENT_S, seq=p.seq, summary=summary,
                        verbs=[verb], objects=objects[:3])
    obs = SegmentObservation(segment=seg, objects=[ObjectObservation(name=o) for o in objects[:3]],
                             summary=summary, backend="bench")
    write = SegmentWrite(observation=obs, seq=p.seq, entities=entities, entity_observations=observations,
                         decisions=decisions, activity=activity)
    p.seq += 1
    return write


def segment_writes(layout: Layout, written: Written) -> Iterator[SegmentWrite]:
    """Segments until exactly `layout.items` items (activities + new entities) were handed out.

    Written a video at a time, as ingest does: each video goes to P000 with probability `main_share`,
    else to the next of the other participants in turn."""
    rng = random.Random(layout.seed)
    people = [_Participant(pid) for pid in layout.pids()]
    main, others = people[0], people[1:] or people[:1]
    left, turn = layout.items, 0
    while left > 0:
        if main.seq == 0 or rng.random() < layout.main_share:  # the long-lived participant came first
            p = main
        else:
            p, turn = others[turn % len(others)], turn + 1
        while left > 0:
            new_entity = left >= 2 and (not p.entities or rng.random() < layout.new_entity_rate)
            write = _segment_write(p, rng, new_entity, layout.seen_per_segment)
            left -= 1 + int(new_entity)
            written.segments += 1
            written.entity_observations += len(write.entity_observations)
            written.activities[p.pid] = written.activities.get(p.pid, 0) + 1
            written.entities[p.pid] = written.entities.get(p.pid, 0) + int(new_entity)
            yield write
            if p.seq % SEGMENTS_PER_VIDEO == 0:
                break
