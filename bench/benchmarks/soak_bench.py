#!/usr/bin/env python
"""Soak benchmark: hours of egocentric video through the real node graph (camera at high speed, memory
writer with sim perception, consolidation on a timer, the planner answering calls all along).

    source scripts/ros_env.sh
    nice -n 10 .venv/bin/python bench/benchmarks/soak_bench.py [--hours 4] [--speed 30] [--out runs/soak] [--json]

The graph is launch/graph.yaml's memory nodes under memora_core's Supervisor (bench/benchmarks/soak/graph.py).
A few demonstrations are rendered once (`memora render-demo`, padded with looking around) and replayed
under distinct video ids until the hours are reached (bench/benchmarks/soak/sessions.py says how). Every
--sample-s seconds the RSS of each node process and the store's size are sampled; a client calls the
planner every --query-period-s seconds. At the end: segments in the store's segments table against the
segments the camera published (none missing, none duplicated), RSS growth over the last 3 h of video
(< 10 %), planner-call p95 in the first vs the last quarter of the video. Writes <out>/soak.json and
<out>/soak.png; prints figures and exits 0 (it is a benchmark: the verdicts are in the figures).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.benchmarks.soak.checks import (  # noqa: E402
    camera_speed,
    query_latency,
    rss_growth,
    segment_accounting,
    writer_backlog,
    writer_throughput,
)
from bench.benchmarks.soak.plot import plot_soak  # noqa: E402
from bench.benchmarks.soak.run import SoakFiles, SoakSettings, read_jsonl, run_soak  # noqa: E402
from bench.benchmarks.soak.sessions import render_sessions  # noqa: E402


def summarise(files: SoakFiles, settings: SoakSettings) -> dict:
    samples, events = read_jsonl(files.samples), read_jsonl(files.events)
    report = json.loads(files.supervisor_report.read_text()) if files.supervisor_report.exists() else None
    return {"settings": vars(settings), "videos": len(files.videos),
            "segments": segment_accounting(events, files.store, settings.participant),
            "rss": rss_growth(samples), "queries": query_latency(events, samples),
            "camera": camera_speed(events), "writer": writer_throughput(samples) | writer_backlog(events),
            "store_mb": samples[-1]["store_bytes"] / 2**20 if samples else None,
            "video_h_in_memory": samples[-1]["video_s"] / 3600 if samples else None,
            "wall_s": samples[-1]["wall"] - samples[0]["wall"] if samples else None,
            "graph_exit": report["exit_code"] if report else None, "graph_reason": report["reason"] if report else None}


def _print(s: dict) -> None:
    seg, rss, q, cam, w = s["segments"], s["rss"], s["queries"], s["camera"], s["writer"]
    print(f"video: {s['video_h_in_memory']:.2f} h in memory from {s['videos']} episodes; wall {s['wall_s']:.0f} s")
    print(f"camera: {cam.get('overall_x', 0):.1f}x real time overall (episode median {cam.get('episode_median_x', 0):.1f}x), "
          f"{cam.get('frames', 0)} frames; writer: {w.get('video_per_wall_x', 0):.1f}x real time, "
          f"{w.get('segments_per_s', 0):.2f} segments/s, at worst {w['max_episodes_behind']} episodes behind the camera")
    print(f"segments: published {seg['segments_published']}, stored {seg['segments_stored']}, missing {seg['n_missing']}, "
          f"duplicated {seg['n_duplicated']}, unexpected {seg['n_unexpected']} -> {'OK' if seg['ok'] else 'FAIL'}")
    if "total_growth" in rss:
        print(f"RSS (all nodes) {rss['total_start_mb']:.0f} -> {rss['total_end_mb']:.0f} MiB over video "
              f"{rss['window_video_h'][0]:.2f}-{rss['window_video_h'][1]:.2f} h: {100 * rss['total_growth']:+.1f} % "
              f"(limit {100 * rss['limit']:.0f} %) -> {'OK' if rss['ok'] else 'FAIL'}")
        for node, v in rss["per_node"].items():
            print(f"  {node:14s} {v['start_mb']:7.0f} -> {v['end_mb']:7.0f} MiB  {100 * v['growth']:+.1f} %")
    if "early" in q:
        print(f"planner calls: {q['n']} ({q['timeouts']} timed out, {q['not_ok']} refused); p95 early "
              f"{q['early']['p95_s']:.3f} s (n={q['early']['n']}) vs late {q['late']['p95_s'] or float('nan'):.3f} s "
              f"(n={q['late']['n']})")
    print(f"store: {s['store_mb']:.1f} MiB on disk; graph: {s['graph_reason']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hours", type=float, default=4.0, help="hours of video the camera plays")
    ap.add_argument("--speed", type=float, default=30.0, help="camera playback speed (multiple of real time)")
    ap.add_argument("--out", type=Path, default=Path("runs/soak"))
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    ap.add_argument("--demos", type=Path, default=None, help="rendered demonstrations (default <out>/demos)")
    ap.add_argument("--routines", nargs="+", default=["task_a_drink", "task_b_breakfast"])
    ap.add_argument("--sessions", type=int, default=3, help="rendered sessions per routine")
    ap.add_argument("--pad-to", type=float, default=120.0, help="each rendered session lasts at least this (s)")
    ap.add_argument("--sample-s", type=float, default=10.0)
    ap.add_argument("--query-period-s", type=float, default=2.0)
    ap.add_argument("--consolidate-period-s", type=float, default=60.0)
    ap.add_argument("--settle-s", type=float, default=30.0, help="keep sampling this long after the last write")
    args = ap.parse_args(argv)
    if args.hours <= 0 or args.speed <= 0:
        print("soak_bench: --hours and --speed must be positive", file=sys.stderr)
        return 2
    if "AMENT_PREFIX_PATH" not in os.environ:
        print("soak_bench: source scripts/ros_env.sh first (the node graph needs the colcon workspace)", file=sys.stderr)
        return 2
    env = dict(os.environ)
    env.setdefault("ROS_DOMAIN_ID", str(random.randint(100, 199)))  # not the domain of anything else running
    env.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    env["PYTHONUNBUFFERED"] = "1"
    out = args.out.resolve()
    sessions = render_sessions(args.demos or out / "demos", args.routines, args.sessions, 0, args.pad_to)
    settings = SoakSettings(video_s=args.hours * 3600, speed=args.speed, sample_s=args.sample_s,
                            query_period_s=args.query_period_s, consolidate_period_s=args.consolidate_period_s,
                            settle_s=args.settle_s)
    files = run_soak(sessions, out, settings, env, progress=lambda m: print(m, file=sys.stderr, flush=True))
    summary = summarise(files, settings)
    summary["plot"] = str(plot_soak(read_jsonl(files.samples), read_jsonl(files.events), out / "soak.png",
                                    f"memora soak: {args.hours:g} h of video at {args.speed:g}x"))
    (out / "soak.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary, indent=1)) if args.json else _print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
