"""Query workloads of the store benchmark, with the filters the memory tools use.

`search_activities` (memora_core/tools/memora_tools.py) asks the index for one participant's nearest
3 x top_k (15) activities: that `participant` query is the one the tools send today (a time-range read,
video_id + start_s/end_s, is answered from SQLite without the index). `video+window` is that time-range
read sent to the index (one video, a two-minute window); `span` is a fifth of the participant's history
(a range of their segment sequence), the wide case. Every row carries the number of vectors indexed: in
the collection kind and of the queried participant.
"""
from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from store_data import NOUNS, SEGMENT_S, SEGMENTS_PER_VIDEO, VERBS

from memora_core.store import MemoryStore

TOOL_K = 15  # search_activities: top_k (5) x 3 candidates from the semantic index
WINDOW_S = 120.0  # a time-range read: two minutes of one video
SPAN_FRACTION = 0.2  # a time-span read: a fifth of the participant's segments


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def summarise(samples_ms: list[float]) -> dict[str, float]:
    return {"n": len(samples_ms), "p50_ms": round(statistics.median(samples_ms), 2),
            "p95_ms": round(percentile(samples_ms, 0.95), 2), "mean_ms": round(statistics.fmean(samples_ms), 2)}


def query_text(rng: random.Random) -> str:
    return f"{rng.choice(VERBS)} {rng.choice(NOUNS)}"


def where_for(kind: str, pid: str, segments: int, rng: random.Random) -> dict[str, Any] | None:
    """The where clause (besides participant_id, which the store always adds) of one query kind."""
    if kind == "participant":
        return None
    if kind == "video+window":
        video_no = rng.randrange(max(1, segments // SEGMENTS_PER_VIDEO))
        t0 = rng.uniform(0, SEGMENTS_PER_VIDEO * SEGMENT_S - WINDOW_S)
        return {"video_id": f"{pid}_{video_no:04d}", "$and": [{"t_s": {"$gte": t0}}, {"t_s": {"$lte": t0 + WINDOW_S}}]}
    if kind == "span":
        span = max(1, int(segments * SPAN_FRACTION))
        s0 = rng.randrange(max(1, segments - span + 1))
        return {"$and": [{"seq": {"$gte": s0}}, {"seq": {"$lte": s0 + span}}]}
    raise ValueError(f"unknown query kind {kind!r}")


KINDS = ("participant", "video+window", "span")


def timed(fn: Callable[[], Any], repeats: int, warmup: int = 3) -> list[float]:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    return samples


def one_query(store: MemoryStore, collection: str, kind: str, pid: str, segments: int,
              rng: random.Random) -> Callable[[], list[tuple[str, float]]]:
    def run() -> list[tuple[str, float]]:
        where = where_for(kind, pid, segments, rng) if collection == "activities" else None
        return store.semantic_search(collection, query_text(rng), participant_id=pid, k=TOOL_K, where=where)
    return run


def query_suite(store: MemoryStore, segments_of: dict[str, int], repeats: int, seed: int) -> list[dict[str, Any]]:
    """Latency rows for each queried participant, collection and filter kind."""
    assert store.vectors is not None
    rng = random.Random(seed)
    rows = []
    totals = {c: store.vectors.count(c) for c in ("activities", "entities")}
    for pid, segments in segments_of.items():
        for collection in ("activities", "entities"):
            own = store.vectors.count(collection, pid)  # asked of Chroma, not of our own counts
            for kind in (KINDS if collection == "activities" else ("participant",)):
                samples = timed(one_query(store, collection, kind, pid, segments, rng), repeats)
                rows.append({"collection": collection, "participant": pid, "filter": kind, "k": TOOL_K,
                             "indexed_collection": totals[collection], "indexed_participant": own,
                             **summarise(samples)})
    return rows
