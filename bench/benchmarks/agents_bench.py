#!/usr/bin/env python
"""Agents benchmark: consolidation time on full extension data, and `memora plan --planner structured` latency.

For each participant (default P06 and P28): write the narrations with the real writer into a temporary
store (hashing embedder, no vector index, so the figure is consolidation itself), then time
`consolidate` (mine + replace_knowledge) `--repeats` times, and time the `memora plan` command as a
real subprocess (interpreter start included) over a few instructions. Prints medians.

    .venv/bin/python bench/benchmarks/agents_bench.py [--participants P06 P28] [--repeats 5] [--json]

Targets (issue 4): consolidation <= 60 s per participant on one core; `memora plan` <= 2 s.
Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from memora_core.cli.main import main as memora_main  # noqa: E402
from memora_core.config import EmbeddingConfig, MemoraConfig, StoreConfig, VectorConfig, load_config  # noqa: E402
from memora_core.consolidation import consolidate  # noqa: E402
from memora_core.store import MemoryStore  # noqa: E402

NARRATIONS = "epic100/EPIC_100_extension_narrations_P06_P28.csv"
INSTRUCTIONS = ["Help {p} wash the bowl.", "Help {p} prepare hot water with the kettle.", "Help {p} wash the onion.",
                "Help {p} put the pan away."]


def bench_participant(pid: str, repeats: int, workdir: Path) -> dict:
    root = workdir / pid
    narr = load_config().data_path() / NARRATIONS
    rc = memora_main(["write", "--participant", pid, "--narrations", str(narr), "--store", str(root),
                      "--embedding", "hashing", "--vectors", "none", "--quiet"])
    if rc != 0:
        raise SystemExit(f"memora write failed for {pid}")
    cfg = MemoraConfig(store=StoreConfig(vectors=VectorConfig(backend="none"), embedding=EmbeddingConfig(backend="hashing")))
    store = MemoryStore.open(root, cfg)
    times, counts = [], (0, 0)
    for _ in range(repeats):
        t0 = time.perf_counter()
        routines, prefs = consolidate(store, pid)
        times.append(time.perf_counter() - t0)
        counts = (len(routines), len(prefs))
    stats = store.stats(pid)
    store.close()
    plan_times, plan_steps = [], []
    for instr in INSTRUCTIONS:
        for _ in range(max(1, repeats // 2)):
            t0 = time.perf_counter()
            out = subprocess.run([sys.executable, "-m", "memora_core.cli.main", "plan", "--store", str(root),
                                  "--participant", pid, "--planner", "structured", "--json", instr.format(p=pid)],
                                 cwd=ROOT, capture_output=True, text=True, check=False)
            plan_times.append(time.perf_counter() - t0)
            if out.returncode == 0:
                plan_steps.append(len(json.loads(out.stdout)["steps"]))
    return {"participant": pid, "segments": stats.segments, "activities": stats.activities,
            "routines": counts[0], "preferences": counts[1],
            "consolidate_median_s": round(statistics.median(times), 4), "consolidate_max_s": round(max(times), 4),
            "plan_cli_median_s": round(statistics.median(plan_times), 3), "plan_cli_max_s": round(max(plan_times), 3),
            "plans_with_steps": f"{len(plan_steps)}/{len(plan_times)}"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--participants", nargs="+", default=["P06", "P28"])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="agents_bench_") as tmp:
        rows = [bench_participant(p, args.repeats, Path(tmp)) for p in args.participants]
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        for r in rows:
            print(f"{r['participant']}: {r['segments']} segments, {r['activities']} activities -> {r['routines']} routines, "
                  f"{r['preferences']} preferences | consolidate median {r['consolidate_median_s']:.3f}s "
                  f"(max {r['consolidate_max_s']:.3f}s; target <= 60 s) | memora plan median "
                  f"{r['plan_cli_median_s']:.2f}s (max {r['plan_cli_max_s']:.2f}s; target <= 2 s), "
                  f"plans with steps {r['plans_with_steps']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
