#!/usr/bin/env python
"""Memory-formation benchmark on the EPIC narration stream of P06 and P28.

For each participant: writes the narration stream with narration perception + the configured editor
into fresh stores several times and prints the medians of
  - compression ratio (entity observations ÷ retained entities) and the decision profile,
  - the two reference points computed from the same rows (one entity per distinct noun; one per EPIC
    noun class), so the figure is read against them,
  - side-by-side merges: segments where two distinct nouns landed on one entity (must be 0),
  - throughput as × real time (sum of the videos' durations ÷ wall time of the write), pinned to one core.

    .venv/bin/python bench/benchmarks/formation_bench.py [--runs 3] [--embedding minilm|hashing]
        [--vectors chroma|none] [--participants P06 P28] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from memora_core.cli.stats import stats_dict  # noqa: E402
from memora_core.config import load_config  # noqa: E402
from memora_core.editing import MemoryWriter, load_editor_config, make_decider  # noqa: E402
from memora_core.ingest.narration import (  # noqa: E402
    NarrationRow,
    group_narrations,
    load_narrations,
    load_video_durations,
)
from memora_core.perception import load_perception_config, make_perception  # noqa: E402
from memora_core.store import MemoryStore  # noqa: E402


def references(rows: list[NarrationRow], segment_s: float) -> dict[str, float]:
    """Compression if memory kept one entity per distinct noun / per noun class (obs once per 10 s segment)."""
    by_noun, by_class = set(), set()
    for r in rows:
        seg = int(r.start_s // segment_s)
        for noun, cls in zip(r.all_nouns, r.all_noun_classes):
            by_noun.add((r.video_id, seg, noun))
            by_class.add((r.video_id, seg, cls))
    return {"per_noun": len(by_noun) / len({n for *_, n in by_noun}),
            "per_class": len(by_class) / len({c for *_, c in by_class})}


def side_by_side_merges(store: MemoryStore, pid: str) -> int:
    """Segments where fewer entities were observed than distinct nouns were mentioned."""
    seen = defaultdict(set)
    for r in store.query("SELECT segment_id, entity_id FROM entity_observations WHERE participant_id = ?", (pid,)):
        seen[r[0]].add(r[1])
    merges = 0
    for obs in store.segment_observations(pid):
        if len(seen[obs.segment.segment_id]) < len({o.name for o in obs.objects}):
            merges += 1
    return merges


def run_once(pid: str, rows: list[NarrationRow], durations: dict[str, float], args: argparse.Namespace) -> dict:
    config = load_config()
    config.store.embedding.backend = args.embedding
    config.store.vectors.backend = args.vectors
    pcfg = load_perception_config()
    pcfg.data_dir = str(config.data_path())
    if args.flush_every is not None:
        config.store.vectors.flush_every_segments = args.flush_every
    ecfg = load_editor_config()
    with tempfile.TemporaryDirectory(prefix="formation_bench_") as tmp:
        store = MemoryStore.open(Path(tmp) / "store", config)
        writer = MemoryWriter(store, make_perception(pcfg), make_decider(ecfg), config=ecfg)
        if writer.embedder is not None:
            writer.embedder.embed(["warm up"])  # model load is a one-off per process, not per segment
        segments = group_narrations(rows, config.segmenting, durations)
        t0 = time.perf_counter()
        summary = writer.write_narrations(segments, durations=durations)
        wall = time.perf_counter() - t0
        out = stats_dict(store, pid)
        out["side_by_side_merges"] = side_by_side_merges(store, pid)
        store.close()
    out["wall_s"] = wall
    out["media_s"] = summary.media_s
    out["x_real_time"] = summary.media_s / wall
    out["x_segment_time"] = summary.segment_s / wall
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--participants", nargs="+", default=["P06", "P28"])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--embedding", choices=["minilm", "hashing"], default="minilm")
    p.add_argument("--vectors", choices=["chroma", "none"], default="chroma")
    p.add_argument("--flush-every", type=int, default=None,
                   help="override store.vectors.flush_every_segments (segments per vector-index flush)")
    p.add_argument("--all-cores", action="store_true", help="do not pin to one core")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    if not args.all_cores and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
        import torch

        torch.set_num_threads(1)
    data = load_config().data_path() / "epic100"
    durations = load_video_durations(data / "EPIC_100_video_info.csv")
    results = {}
    for pid in args.participants:
        rows = load_narrations(data / "EPIC_100_extension_narrations_P06_P28.csv", pid)
        runs = [run_once(pid, rows, durations, args) for _ in range(args.runs)]
        first = runs[0]
        # memory content is deterministic; only timing varies between runs
        assert all(r["decisions"] == first["decisions"] for r in runs), "non-deterministic memory"
        results[pid] = {
            "compression_ratio": first["compression_ratio"],
            "compression_ratio_all_entities": first["compression_ratio_all_entities"],
            "reference": {k: round(v, 2) for k, v in references(rows, load_config().segmenting.segment_s).items()},
            "decisions": first["decisions"], "decision_pct": first["decision_pct"],
            "entities": first["entities"], "entities_deleted": first["entities_deleted"],
            "entity_observations": first["entity_observations"], "segments": first["segments"],
            "side_by_side_merges": first["side_by_side_merges"],
            "median_wall_s": round(statistics.median(r["wall_s"] for r in runs), 3),
            "median_x_real_time": round(statistics.median(r["x_real_time"] for r in runs), 1),
            "median_x_segment_time": round(statistics.median(r["x_segment_time"] for r in runs), 1),
            "video_s": round(first["media_s"], 1), "runs": args.runs,
            "embedding": args.embedding, "vectors": args.vectors,
            "vector_flush_every": args.flush_every or load_config().store.vectors.flush_every_segments,
        }
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for pid, r in results.items():
        pct = r["decision_pct"]
        print(f"{pid}: compression {r['compression_ratio']:.2f}x (references: one per noun "
              f"{r['reference']['per_noun']:.2f}x, one per noun class {r['reference']['per_class']:.2f}x); "
              f"{r['entities']} entities retained, {r['entities_deleted']} deleted, "
              f"{r['entity_observations']} observations, {r['segments']} segments")
        print(f"     decisions: add {pct['add']}% update {pct['update']}% delete {pct['delete']}% noop {pct['noop']}% "
              f"(noop+update {pct['noop'] + pct['update']:.1f}%); side-by-side merges {r['side_by_side_merges']}")
        print(f"     throughput: median {r['median_x_real_time']}x real time over {r['runs']} runs "
              f"({r['video_s']:.0f}s of video in {r['median_wall_s']:.2f}s; "
              f"{r['median_x_segment_time']}x of narrated segment time); "
              f"vectors={r['vectors']} embedding={r['embedding']} flush_every={r['vector_flush_every']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
