#!/usr/bin/env python
"""Demonstration benchmark: render speed of a 60 s egocentric demonstration on one core, and memory
formation over rendered sessions with `sim` perception and the deterministic editor.

1. Renders one session of a routine padded to --duration seconds (default 60) pinned to one CPU core,
   and prints wall time, × real time and fps (target: a 60 s video in ≤ 60 s).
2. Renders (or reuses, under --demo-dir) --sessions sessions of each routine and writes them with
   MemoryWriter(sim perception, deterministic decider) into fresh stores: one participant per routine,
   and one 'demonstrator' participant who does every routine each day (sessions interleaved). Prints
   compression ratio (entity observations ÷ retained entities), decision profile, and the median
   over the participants (target ≥ 18× on dense perception). Compression grows with footage per object,
   so the footage of each participant is printed with it.

    .venv/bin/python bench/benchmarks/demo_render_bench.py [--duration 60] [--sessions 6]
        [--routines task_a_drink task_b_breakfast] [--demo-dir runs/demos] [--skip-render-speed] [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("MUJOCO_GL", "egl")

from memora_core.cli.stats import stats_dict  # noqa: E402
from memora_core.config import EmbeddingConfig, MemoraConfig, StoreConfig, VectorConfig  # noqa: E402
from memora_core.editing import MemoryWriter, load_editor_config, make_decider  # noqa: E402
from memora_core.store import MemoryStore  # noqa: E402
from sim.demonstrator import DemoSession, load_render_config, render_session, video_id_for  # noqa: E402
from sim.perception import SimPerception, demo_inputs  # noqa: E402


def render_speed(routine: str, duration_s: float, seed: int) -> dict:
    cfg = load_render_config()
    with tempfile.TemporaryDirectory(prefix="demo_bench_") as tmp:
        t0 = time.perf_counter()
        session = render_session(routine, seed, 0, Path(tmp), cfg, pad_to_s=duration_s)
        wall = time.perf_counter() - t0
        meta = session.meta()
        size = session.video.stat().st_size
    return {"routine": routine, "video_s": round(meta.duration_s, 2), "frames": meta.frames,
            "resolution": f"{meta.width}x{meta.height}", "fps_video": meta.fps, "wall_s": round(wall, 2),
            "x_real_time": round(meta.duration_s / wall, 2), "render_fps": round(meta.frames / wall, 1),
            "mp4_kb": round(size / 1024, 1)}


def sessions_for(routines: list[str], n: int, seed: int, demo_dir: Path) -> dict[str, list[DemoSession]]:
    out: dict[str, list[DemoSession]] = {}
    for r in routines:
        out[r] = []
        for s in range(n):
            existing = DemoSession(demo_dir / r, video_id_for(r, seed, s))
            out[r].append(existing if existing.complete() else render_session(r, seed, s, demo_dir / r))
    return out


def formation(participants: dict[str, list[DemoSession]], embedding: str) -> dict:
    config = MemoraConfig(store=StoreConfig(vectors=VectorConfig(backend="none"),
                                            embedding=EmbeddingConfig(backend=embedding)))
    ecfg = load_editor_config()
    results = {}
    with tempfile.TemporaryDirectory(prefix="demo_formation_") as tmp:
        store = MemoryStore.open(Path(tmp) / "store", config)
        perception = SimPerception()
        writer = MemoryWriter(store, perception, make_decider(ecfg), config=ecfg)
        for pid, sessions in participants.items():
            t0 = time.perf_counter()
            footage = 0.0
            for session in sessions:
                footage += session.meta().duration_s
                for item in demo_inputs(session, pid):
                    writer.process(item)
            writer.flush()
            st = stats_dict(store, pid)
            st["wall_s"] = round(time.perf_counter() - t0, 2)
            st["footage_s"] = round(footage, 1)
            st["sessions"] = len(sessions)
            results[pid] = st
        perception.close()
        store.close()
    return results


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--duration", type=float, default=60.0, help="seconds of video for the speed test")
    p.add_argument("--speed-routine", default="task_b_breakfast")
    p.add_argument("--routines", nargs="+", default=["task_a_drink", "task_b_breakfast"])
    p.add_argument("--sessions", type=int, default=6, help="sessions per routine for the formation run")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--demo-dir", type=Path, default=Path("runs/demos"), help="rendered sessions (reused)")
    p.add_argument("--embedding", choices=["hashing", "minilm"], default="hashing",
                   help="editor candidate embedder (names are canonical in sim, so hashing suffices)")
    p.add_argument("--skip-render-speed", action="store_true")
    p.add_argument("--skip-formation", action="store_true")
    p.add_argument("--all-cores", action="store_true", help="do not pin to one core")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    if not args.all_cores and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    out: dict = {"load_avg_1m": round(os.getloadavg()[0], 2)}
    if not args.skip_render_speed:
        out["render"] = render_speed(args.speed_routine, args.duration, args.seed)
    if not args.skip_formation:
        by_routine = sessions_for(args.routines, args.sessions, args.seed, args.demo_dir)
        participants = {f"demo_{r}": s for r, s in by_routine.items()}
        # one person doing every routine each day: session i of each routine, day by day
        participants["demonstrator"] = [by_routine[r][i] for i in range(args.sessions) for r in args.routines]
        form = formation(participants, args.embedding)
        out["formation"] = form
        out["median_compression_ratio"] = statistics.median(v["compression_ratio"] for v in form.values())
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"load average (1 min) at start: {out['load_avg_1m']} (the machine is shared; pinned to one core: "
          f"{not args.all_cores})")
    if "render" in out:
        r = out["render"]
        print(f"render: {r['video_s']:.1f}s demonstration ({r['routine']}, {r['frames']} frames {r['resolution']} "
              f"@ {r['fps_video']} fps) in {r['wall_s']:.1f}s wall = {r['x_real_time']:.2f}x real time "
              f"({r['render_fps']} frames/s incl. physics + H.264); target <= {args.duration:.0f}s wall")
    if "formation" in out:
        for pid, s in out["formation"].items():
            pct = s["decision_pct"]
            print(f"{pid}: {s['sessions']} sessions, {s['footage_s']:.0f}s footage, {s['segments']} segments: "
                  f"compression {s['compression_ratio']:.2f}x ({s['entities']} entities, "
                  f"{s['entity_observations']} observations); decisions add {pct['add']}% update {pct['update']}% "
                  f"delete {pct['delete']}% noop {pct['noop']}%; {s['activities']} activities; "
                  f"write {s['wall_s']:.1f}s")
        print(f"median compression over participants: {out['median_compression_ratio']:.2f}x (target >= 18x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
