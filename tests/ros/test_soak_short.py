"""The soak benchmark's code on a short run: ~1.5 min of demonstration video at 20x through the real node
graph (camera, memory writer with sim perception, consolidation on a timer, planner under calls).
Every segment the camera published is in the store exactly once; every node is sampled; the graph is
stopped by the soak, not by a crash."""
from __future__ import annotations

import json
import sqlite3

import pytest

from bench.benchmarks.soak.checks import camera_speed, segment_accounting
from bench.benchmarks.soak.run import SoakSettings, read_jsonl, run_soak
from bench.benchmarks.soak.sessions import render_sessions
from memora_core.config import load_config
from memora_core.ingest.segments import plan_segments
from memora_core.store.migrations import migrate


@pytest.mark.ros
@pytest.mark.sim
@pytest.mark.slow


def test_short_soak_loses_and_duplicates_no_segment(ros_env, tmp_path):
    sessions = render_sessions(tmp_path / "demos", ["task_a_drink"], sessions=1, seed=0, pad_to_s=0.0)
    duration = sessions[0].meta().duration_s
    settings = SoakSettings(video_s=80.0, speed=20.0, sample_s=1.0, query_period_s=1.0, consolidate_period_s=3.0,
                            max_wall_s=240.0)
    files = run_soak(sessions, tmp_path / "soak", settings, env=ros_env, progress=lambda _m: None)

    report = json.loads(files.supervisor_report.read_text())
    assert report["exit_code"] == 130 and report["failed"] == [], report["reason"]  # stopped by the soak's SIGINT
    events, samples = read_jsonl(files.events), read_jsonl(files.samples)
    # every replay played in full: the camera's episodes are the planned ones
    replays = len(files.videos)
    assert replays == 4 and len(set(files.videos)) == replays
    per_video = len(plan_segments(duration, load_config().segmenting))
    seg = segment_accounting(events, files.store, settings.participant)
    assert seg["episodes_published"] == replays
    assert seg["segments_published"] == replays * per_video
    assert seg["n_missing"] == 0 and seg["n_duplicated"] == 0 and seg["n_unexpected"] == 0, seg
    assert seg["segments_stored"] == replays * per_video and seg["ok"]
    # the sampler saw every node of the graph and the store growing
    assert set(samples[-1]["rss"]) == {"camera", "memory_writer", "consolidation", "planner"}
    assert samples[-1]["segments"] == replays * per_video and samples[-1]["store_bytes"] > 0
    assert camera_speed(events)["overall_x"] > 5.0  # played at high speed, not in real time
    assert any(e["kind"] == "query" and e["latency_s"] is not None for e in events)


def test_accounting_names_missing_duplicated_and_unexpected_segments(tmp_path):
    """The check itself, on the store's real schema: 25 s of video is 3 segments (10, 10, 5 s)."""
    con = sqlite3.connect(tmp_path / "memory.sqlite")
    migrate(con)
    rows = [("a", 0), ("a", 1), ("b", 0), ("b", 1), ("b", 2), ("c", 0)]  # a/2 missing, c/0 unexpected
    con.executemany("INSERT INTO segments VALUES (?, 'P', ?, ?, ?, 0, 10, 'sim', '{}')",
                    [(f"P/{v}/{i}", v, i, n) for n, (v, i) in enumerate(rows)])
    con.commit()
    ends = [{"kind": "episode", "event": "end", "video_id": v, "duration_s": 25.0, "frames": 50} for v in "ab"]
    seg = segment_accounting(ends, tmp_path, "P")
    assert (seg["segments_published"], seg["segments_stored"]) == (6, 6)
    assert seg["missing"] == ["a/2"] and seg["unexpected"] == ["c/0"] and not seg["ok"]
    # the same segment written twice under two ids is a duplicate
    con.execute("DELETE FROM segments WHERE video_id = 'c'")
    con.execute("INSERT INTO segments VALUES ('P/a/2', 'P', 'a', 2, 10, 20, 25, 'sim', '{}')")
    con.execute("INSERT INTO segments VALUES ('P/a/2bis', 'P', 'a', 2, 11, 20, 25, 'sim', '{}')")
    con.commit()
    con.close()
    seg = segment_accounting(ends, tmp_path, "P")
    assert seg["n_missing"] == 0 and seg["n_unexpected"] == 0 and seg["n_duplicated"] == 1 and not seg["ok"]
