#!/usr/bin/env python
"""Store benchmark: build rate and query latency of the memory store by number of vectors indexed.

A size is a number of vector-indexed items (activities + entities) written through the real store path
(MemoryStore.commit_segment -> outbox -> flush_vectors -> Chroma). One long-lived participant (P000)
owns `--main-share` of them, the rest belong to `--participants - 1` others, all in one store. Queries
go through MemoryStore.semantic_search with the filters the tools use (participant; participant + video
+ time window; participant + a span of their history) for P000 and for one small participant, and
every latency is printed next to the number of vectors indexed.

    .venv/bin/python bench/benchmarks/store_bench.py [--sizes 10000 100000] [--vectors hashing|minilm|random]
        [--store-dir DIR] [--shared] [--json]

`--vectors random` bypasses the embedder (not the index) for the largest sizes; the output says so.
`--shared` also measures a Chroma server (`chroma run`) with one writer and `--readers` reader processes.
Prints figures; asserts nothing (timing targets are read by people, not by tests).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from collections.abc import Callable
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from store_build import VECTOR_MODES, Build, build_store, load_build, open_store  # noqa: E402
from store_data import MAIN, SEGMENT_S, SEGMENTS_PER_VIDEO, Layout  # noqa: E402
from store_queries import WINDOW_S, query_suite, summarise, timed  # noqa: E402
from store_report import print_report  # noqa: E402
from store_shared import SharedSpec, run_shared  # noqa: E402

from memora_core.store import MemoryStore  # noqa: E402


def measure(store: MemoryStore, layout: Layout, build: Build, args: argparse.Namespace) -> dict[str, Any]:
    """Query figures of the store as it stands, with what was written and what the index holds."""
    assert store.vectors is not None
    pids = [MAIN] + layout.pids()[1:2]
    rows = query_suite(store, {pid: store.next_seq(pid) for pid in pids}, args.repeats, args.seed)
    rng = random.Random(args.seed + 1)
    videos = store.videos(MAIN)

    def sql_read() -> None:
        t0 = rng.uniform(0, SEGMENTS_PER_VIDEO * SEGMENT_S - WINDOW_S)
        store.entity_observations_in(MAIN, video_id=rng.choice(videos), t0=t0, t1=t0 + WINDOW_S, limit=100)

    sql = {"query": "entity_observations_in(participant, video, window)", **summarise(timed(sql_read, args.repeats))}
    counts = {c: store.vectors.count(c) for c in ("activities", "entities")}
    written = build.written
    return {"size": build.items, "inserted": {"activities": sum(written["activities"].values()),
                                              "entities": sum(written["entities"].values()), "total": build.items},
            "indexed": {**counts, "total": sum(counts.values())},
            "build": {**asdict(build), "items": build.items, "items_per_s": round(build.items_per_s(), 1)},
            "vector_queries": rows, "sql_query": sql}


def run_sizes(root: Path, args: argparse.Namespace, results: dict[str, Any], save: Callable[[], None]) -> None:
    """One build of the largest size, measured at every requested size on the way (or a reused build)."""
    top = max(args.sizes)
    layout = Layout(items=top, participants=args.participants, main_share=args.main_share, seed=args.seed)
    reused = load_build(root, layout, args.vectors)
    if reused is not None:
        store = open_store(root, args.vectors, args.flush_every, readonly=True)
        try:
            results["sizes"].append(measure(store, layout, reused, args))
        finally:
            store.close()
        save()
        return

    def at_size(store: MemoryStore, so_far: Build) -> None:
        results["sizes"].append(measure(store, layout, so_far, args))
        save()

    build_store(root, layout, args.vectors, args.flush_every, progress=not args.no_progress,
                checkpoints={n: at_size for n in sorted(set(args.sizes))})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000],
                    help="vector-indexed items (none: only --shared)")
    ap.add_argument("--vectors", choices=sorted(VECTOR_MODES), default="hashing")
    ap.add_argument("--participants", type=int, default=100)
    ap.add_argument("--main-share", type=float, default=0.5, help="share of the items owned by P000")
    ap.add_argument("--flush-every", type=int, default=256, help="store.vectors.flush_every_segments")
    ap.add_argument("--repeats", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--store-dir", type=Path, help="keep the built store here; a rerun measures it again")
    ap.add_argument("--shared", action="store_true", help="also measure a Chroma server, 1 writer + N readers")
    ap.add_argument("--readers", type=int, default=3)
    ap.add_argument("--shared-items", type=int, default=20_000, help="items in the server before readers start")
    ap.add_argument("--shared-write-items", type=int, default=5_000, help="items the writer adds meanwhile")
    ap.add_argument("--shared-seconds", type=float, default=20.0, help="how long each reader queries")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--out", type=Path, help="also write the JSON here, after every measured size")
    args = ap.parse_args()
    if any(s < 2 for s in args.sizes) or args.participants < 1 or not 0 < args.main_share <= 1:
        print("store_bench: sizes must be >= 2, participants >= 1, 0 < main-share <= 1", file=sys.stderr)
        return 2
    results: dict[str, Any] = {"vectors": args.vectors, "vectors_note": VECTOR_MODES[args.vectors], "sizes": [],
                               "machine": {"cpus": os.cpu_count(), "loadavg_1m_start": os.getloadavg()[0]}}

    def save() -> None:
        results["machine"]["loadavg_1m_last"] = os.getloadavg()[0]  # other processes share these CPUs
        if args.out is not None:
            args.out.write_text(json.dumps(results, indent=2))

    with tempfile.TemporaryDirectory() as tmp:
        base = args.store_dir or Path(tmp)
        if args.sizes:
            run_sizes(base / f"items_{max(args.sizes)}_{args.vectors}_p{args.participants}_s{args.seed}", args,
                      results, save)
        if args.shared:
            spec = SharedSpec(items=args.shared_items, write_items=args.shared_write_items, readers=args.readers,
                              seconds=args.shared_seconds, vectors=args.vectors, participants=args.participants,
                              main_share=args.main_share, flush_every=args.flush_every, seed=args.seed)
            results["shared"] = run_shared(Path(tmp) / "shared", spec)
            save()
    save()
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
