#!/usr/bin/env python
"""Store benchmark: write throughput and query latency of the memory store at 10k and 100k records.

Records are entity observations (the largest table: one row per object per segment), written the way
the online editor writes them: one transaction per segment, ~50 observations per segment, the
segment's activity and changed entities queued for the vector index in the same transaction.

    .venv/bin/python bench/benchmarks/store_bench.py [--sizes 10000 100000] [--embedding hashing|minilm] [--json]

Prints figures; asserts nothing (timing targets are read by people, not by tests).
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tqdm import tqdm  # noqa: E402

from memora_core.config import EmbeddingConfig, StoreConfig, VectorConfig  # noqa: E402
from memora_core.schemas import (  # noqa: E402
    Activity,
    EditDecision,
    EditOp,
    EntityObservation,
    EntityRecord,
    ObjectObservation,
    Segment,
    SegmentObservation,
)
from memora_core.store import MemoryStore, SegmentWrite  # noqa: E402

NOUNS = ["cup", "plate", "knife", "spoon", "bowl", "pan", "pot", "kettle", "sponge", "tap", "fridge", "drawer",
         "onion", "tomato", "bread", "butter", "milk", "tea", "coffee", "glass", "lid", "board", "oil", "salt"]
PARTICIPANTS = ["P01", "P02", "P03", "P04"]
OBS_PER_SEGMENT = 50
ENTITIES_PER_PARTICIPANT = 400
SEGMENTS_PER_VIDEO = 180  # 30 min videos


def build_write(pid: str, seq: int, rng: random.Random, known: dict[str, EntityRecord]) -> SegmentWrite:
    video_no, index = divmod(seq, SEGMENTS_PER_VIDEO)
    video = f"{pid}_{video_no:03d}"
    start = index * 10.0
    seg = Segment(participant_id=pid, video_id=video, index=index, start_s=start, end_s=start + 10)
    names = rng.sample(range(ENTITIES_PER_PARTICIPANT), OBS_PER_SEGMENT)
    entities, history, decisions, objects = [], [], [], []
    for n in names:
        eid = f"{pid}:e{n}"
        name = f"{NOUNS[n % len(NOUNS)]} {n}"
        objects.append(ObjectObservation(name=name))
        rec = known.get(eid)
        op = EditOp.ADD if rec is None else (EditOp.UPDATE if rng.random() < 0.2 else EditOp.NOOP)
        if rec is None:
            rec = EntityRecord(entity_id=eid, participant_id=pid, name=name, first_seen_video=video,
                               first_seen_s=start, last_seen_video=video, last_seen_s=start,
                               first_seen_seq=seq, last_seen_seq=seq)
        else:
            rec = rec.model_copy(update={"last_seen_video": video, "last_seen_s": start, "last_seen_seq": seq,
                                         "observation_count": rec.observation_count + 1})
        known[eid] = rec
        if op is not EditOp.NOOP:
            entities.append(rec)
        history.append(EntityObservation(entity_id=eid, participant_id=pid, segment_id=seg.segment_id,
                                         video_id=video, t_s=start, seq=seq, op=op))
        decisions.append(EditDecision(op=op, observed_name=name, target_entity_id=eid, reason="bench"))
    summary = "handle " + ", ".join(o.name for o in objects[:6])
    activity = Activity(activity_id=f"act:{seg.segment_id}", participant_id=pid, segment_id=seg.segment_id,
                        video_id=video, start_s=start, end_s=start + 10, seq=seq, summary=summary,
                        verbs=["take"], objects=[o.name for o in objects[:6]])
    obs = SegmentObservation(segment=seg, objects=objects, summary=summary, backend="bench")
    return SegmentWrite(observation=obs, seq=seq, entities=entities, entity_observations=history,
                        decisions=decisions, activity=activity)


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def timed(fn, repeats: int) -> dict[str, float]:
    samples = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t) * 1000)
    return {"p50_ms": round(statistics.median(samples), 3), "p95_ms": round(percentile(samples, 0.95), 3)}


def run_size(size: int, embedding: str, seed: int) -> dict:
    rng = random.Random(seed)
    cfg = StoreConfig(vectors=VectorConfig(backend="chroma"), embedding=EmbeddingConfig(backend=embedding))
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore(Path(tmp) / "mem", cfg)
        segments = size // OBS_PER_SEGMENT
        known: dict[str, EntityRecord] = {}
        seqs = {p: 0 for p in PARTICIPANTS}
        writes = []
        for i in range(segments):
            pid = PARTICIPANTS[i % len(PARTICIPANTS)]
            writes.append(build_write(pid, seqs[pid], rng, known))
            seqs[pid] += 1
        t = time.perf_counter()
        for w in tqdm(writes, desc=f"write {size}", unit="seg", leave=False):
            store.commit_segment(w)
        write_s = time.perf_counter() - t
        n_obs = store.query("SELECT COUNT(*) FROM entity_observations")[0][0]
        pid = PARTICIPANTS[0]
        videos = store.videos(pid)
        queries = {}
        qrng = random.Random(seed + 1)

        def sql_unfiltered():
            store.query("SELECT * FROM entity_observations WHERE entity_id = ? ORDER BY seq",
                        (f"{PARTICIPANTS[qrng.randrange(4)]}:e{qrng.randrange(ENTITIES_PER_PARTICIPANT)}",))

        def sql_filtered():
            t0 = qrng.uniform(0, 1500)
            store.entity_observations_in(pid, video_id=qrng.choice(videos), t0=t0, t1=t0 + 120, limit=100)

        def vec_unfiltered():
            store.vectors._collections["activities"].query(
                query_embeddings=list(store.vectors.embedder.embed([f"take {qrng.choice(NOUNS)}"])), n_results=10)

        def vec_filtered():
            t0 = qrng.uniform(0, 1500)
            store.semantic_search("activities", f"take {qrng.choice(NOUNS)}", participant_id=pid, k=10,
                                  where={"$and": [{"t_s": {"$gte": t0}}, {"t_s": {"$lte": t0 + 300}}]})

        queries["sql_history_unfiltered"] = timed(sql_unfiltered, 200)
        queries["sql_participant_time_filter"] = timed(sql_filtered, 200)
        queries["vector_unfiltered"] = timed(vec_unfiltered, 100)
        queries["vector_participant_time_filter"] = timed(vec_filtered, 100)
        store.close()
        return {"records": n_obs, "segments": segments, "activities_indexed": segments,
                "write_obs_per_s": round(n_obs / write_s, 1), "write_segments_per_s": round(segments / write_s, 1),
                "queries": queries}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--embedding", choices=["hashing", "minilm"], default="hashing")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results = {"embedding": args.embedding, "sizes": [run_size(s, args.embedding, args.seed) for s in args.sizes]}
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"store benchmark (embedding={args.embedding}; records = entity observations)")
    for r in results["sizes"]:
        print(f"- {r['records']:>7} records: write {r['write_obs_per_s']:>9.0f} obs/s "
              f"({r['write_segments_per_s']:.0f} segments/s, one transaction each)")
        for name, q in r["queries"].items():
            print(f"    {name:<32} p50 {q['p50_ms']:7.2f} ms   p95 {q['p95_ms']:7.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
