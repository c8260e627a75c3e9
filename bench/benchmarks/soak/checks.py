"""What a soak run shows: segment accounting against the store, RSS growth, query latency early vs late,
the camera speed achieved. Pure functions over the run's files (no ROS)."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np

from memora_core.config import SegmentingConfig, load_config
from memora_core.ingest.segments import plan_segments

from bench.benchmarks.soak.sampler import DB_FILENAME

RSS_WINDOW_S = 3 * 3600.0  # RSS growth is judged over the last 3 h of video (or the last 3/4 of a shorter run)
RSS_LIMIT = 0.10


def segment_accounting(events: list[dict], store_dir: Path, participant: str,
                       segmenting: SegmentingConfig | None = None) -> dict:
    """Segments the camera published (its episodes' end events, cut by the ingest grid) against the rows of
    the store's segments table: missing, duplicated, unexpected."""
    segmenting = segmenting or load_config().segmenting
    ends = [e for e in events if e["kind"] == "episode" and e["event"] == "end"]
    expected = {(e["video_id"], i) for e in ends for i in range(len(plan_segments(e["duration_s"], segmenting)))}
    con = sqlite3.connect(store_dir / DB_FILENAME, timeout=10.0)
    try:
        con.execute("PRAGMA query_only = 1")
        rows = con.execute("SELECT video_id, idx FROM segments WHERE participant_id = ?", (participant,)).fetchall()
    finally:
        con.close()
    stored = [(v, int(i)) for v, i in rows]
    unique = set(stored)
    return {"episodes_published": len({e["video_id"] for e in ends}), "episode_end_events": len(ends),
            "segments_published": len(expected), "segments_stored": len(stored),
            "missing": sorted(f"{v}/{i}" for v, i in expected - unique)[:20], "n_missing": len(expected - unique),
            "n_duplicated": len(stored) - len(unique),
            "unexpected": sorted(f"{v}/{i}" for v, i in unique - expected)[:20], "n_unexpected": len(unique - expected),
            "ok": bool(expected) and expected == unique and len(stored) == len(unique) and len(ends) == len({e["video_id"] for e in ends})}


def rss_growth(samples: list[dict], window_s: float = RSS_WINDOW_S) -> dict:
    """RSS at the start of the window (the first sample with that much video in memory) vs the last sample,
    per node and in total. The window is the last `window_s` of video, or the last 3/4 of a shorter run."""
    samples = [s for s in samples if s["rss"]]
    if len(samples) < 2:
        return {"ok": False, "reason": "fewer than two samples"}
    total_s = samples[-1]["video_s"]
    start_s = total_s - min(window_s, 0.75 * total_s)
    first = next(s for s in samples if s["video_s"] >= start_s)
    last = samples[-1]
    nodes = sorted(set(first["rss"]) & set(last["rss"]))
    per_node = {n: {"start_mb": first["rss"][n] / 2**20, "end_mb": last["rss"][n] / 2**20,
                    "growth": last["rss"][n] / first["rss"][n] - 1.0} for n in nodes}
    start_total, end_total = sum(first["rss"][n] for n in nodes), sum(last["rss"][n] for n in nodes)
    growth = end_total / start_total - 1.0
    return {"window_video_h": [first["video_s"] / 3600, last["video_s"] / 3600], "total_start_mb": start_total / 2**20,
            "total_end_mb": end_total / 2**20, "total_growth": growth, "per_node": per_node,
            "peak_total_mb": max(sum(s["rss"].values()) for s in samples) / 2**20,
            "limit": RSS_LIMIT, "ok": growth < RSS_LIMIT and all(v["growth"] < RSS_LIMIT for v in per_node.values())}


def video_at(samples: list[dict], wall: float) -> float:
    """Seconds of video in memory at wall time `wall` (interpolated between samples)."""
    walls = np.array([s["wall"] for s in samples])
    return float(np.interp(wall, walls, [s["video_s"] for s in samples]))


def _pct(values: list[float], q: float) -> float | None:
    return float(np.percentile(values, q)) if values else None


def query_latency(events: list[dict], samples: list[dict], fraction: float = 0.25) -> dict:
    """Planner-call latency in the first and the last `fraction` of the video (by video in memory)."""
    queries = [e for e in events if e["kind"] == "query"]
    timed = [(video_at(samples, q["wall"]), q["latency_s"]) for q in queries if q["latency_s"] is not None]
    if not timed:
        return {"n": len(queries), "timeouts": len(queries)}
    total = samples[-1]["video_s"]
    early = [lat for v, lat in timed if v <= fraction * total]
    late = [lat for v, lat in timed if v >= (1 - fraction) * total]
    out = {"n": len(queries), "timeouts": sum(q["latency_s"] is None for q in queries),
           "not_ok": sum(not q["ok"] for q in queries), "fraction": fraction,
           "early": {"n": len(early), "p50_s": _pct(early, 50), "p95_s": _pct(early, 95)},
           "late": {"n": len(late), "p50_s": _pct(late, 50), "p95_s": _pct(late, 95)},
           "all": {"p50_s": _pct([t for _, t in timed], 50), "p95_s": _pct([t for _, t in timed], 95)}}
    if early and late:
        out["p95_late_over_early"] = out["late"]["p95_s"] / out["early"]["p95_s"]
    return out


def camera_speed(events: list[dict]) -> dict:
    """Video seconds per wall second the camera achieved: per episode (start to end event) and overall."""
    starts = {e["video_id"]: e["wall"] for e in events if e["kind"] == "episode" and e["event"] == "start"}
    ends = [e for e in events if e["kind"] == "episode" and e["event"] == "end" and e["video_id"] in starts]
    if not ends:
        return {"episodes": 0}
    per = [e["duration_s"] / max(1e-6, e["wall"] - starts[e["video_id"]]) for e in ends]
    span = max(e["wall"] for e in ends) - min(starts[e["video_id"]] for e in ends)
    return {"episodes": len(ends), "video_s": sum(e["duration_s"] for e in ends),
            "overall_x": sum(e["duration_s"] for e in ends) / max(1e-6, span),
            "episode_median_x": float(np.median(per)), "episode_min_x": float(min(per)),
            "frames": sum(e["frames"] for e in ends)}


def writer_throughput(samples: list[dict]) -> dict:
    """Video seconds committed to memory per wall second, from the first to the last committed segment."""
    active = [s for s in samples if s["segments"] > 0]
    if len(active) < 2:
        return {}
    a = active[0]
    b = next(s for s in active if s["segments"] == active[-1]["segments"])  # when the last segment landed
    return {"video_per_wall_x": (b["video_s"] - a["video_s"]) / max(1e-6, b["wall"] - a["wall"]),
            "segments_per_s": (b["segments"] - a["segments"]) / max(1e-6, b["wall"] - a["wall"])}


def writer_backlog(events: list[dict]) -> dict:
    """Episodes the camera had finished that the writer had not yet written, at worst. Each one waiting
    holds its frames in the writer (~0.2 MB per frame at 320x240, 2 FPS): RSS growth that is backlog, not a
    leak, when the camera plays faster than the writer writes."""
    ends = sorted(e["wall"] for e in events if e["kind"] == "episode" and e["event"] == "end")
    written = sorted(e["wall"] for e in events if e["kind"] == "written")
    worst, w = 0, 0
    for n, t in enumerate(ends, 1):
        while w < len(written) and written[w] <= t:
            w += 1
        worst = max(worst, n - w)
    return {"max_episodes_behind": worst}
