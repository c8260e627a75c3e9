"""Every node stops within 2 s of SIGINT (issue 17): ros2 launch escalates to SIGTERM after 5 s, and a node that
needs that long loses what its clean shutdown would have written.

The graphs are launch/graph.yaml's own, run by `memora launch` (the supervisor forwards SIGINT and reports each
node's time from the signal to its exit as `stop_s`). The memory writer's in-flight segment is checked on its
own: the writer stops without waiting for it, and the next run writes it, once.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from memora_core.runtime.graph import load_graph
from tests.dds_domains import unitree_domain
from tests.ros.test_nodes import _start, _wait_line

pytestmark = pytest.mark.ros
REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
STOP_BOUND_S = 2.0
# What each node prints once it is up; None: nothing (it is up once the others are, being lighter than them).
READY = {"camera": "camera done", "controller": "controller ready", "memory_writer": "memory writer ready",
         "consolidation": "consolidation ready", "planner": "planner ready", "recorder": "recording ",
         "demo_driver": None, "unitree_sim_bridge": "unitree sim bridge: domain", "scene_model": "scene model:"}


def _launch_and_interrupt(env: dict[str, str], tmp_path: Path, graph: Path, args: list[str]) -> dict:
    values = load_graph(graph).argument_values(dict(a.split(":=", 1) for a in args))
    names = [n.name for n in load_graph(graph).nodes_for(values)]
    assert set(names) <= set(READY), f"say in READY what a new node prints once up: {set(names) - set(READY)}"
    logs, report = tmp_path / "logs", tmp_path / "report.json"
    proc = subprocess.Popen([sys.executable, "-m", "memora_core.cli.main", "launch", "--graph", str(graph), *args,
                             "--log-dir", str(logs), "--report", str(report)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 240
        waiting = {n for n in names if READY[n]}
        while waiting and proc.poll() is None and time.monotonic() < deadline:
            waiting = {n for n in waiting if not (logs / f"{n}.log").exists()
                       or READY[n] not in (logs / f"{n}.log").read_text(errors="replace")}
            time.sleep(0.5)
        assert proc.poll() is None and not waiting, f"not up: {sorted(waiting)}\n{proc.communicate(timeout=60)[0]}"
        time.sleep(1.0)  # idle, as after a demo
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGINT, out
    processes = json.loads(report.read_text())["processes"]
    assert sorted(p["name"] for p in processes) == sorted(names)
    return {p["name"]: p for p in processes}


def _assert_quick_clean_stops(run: Callable[[Path], dict], tmp_path: Path) -> None:
    """Every stop is clean, and within the bound in one of two graph runs: a wall-clock bound on a shared 2-core
    host (CI, 2026-12-05: every node of the demo graph 2.5-3.4 s once, 0.3-0.7 s on reruns) gets a second
    measurement; a shutdown that regressed is over the bound in both."""
    slow = {}
    for attempt in (1, 2):
        (attempt_dir := tmp_path / f"attempt{attempt}").mkdir()
        processes = run(attempt_dir)
        print("seconds from SIGINT to exit:", {n: p["stop_s"] for n, p in processes.items()})
        assert all(p["returncode"] == 0 and not p["killed"] for p in processes.values()), processes
        slow = {n: p["stop_s"] for n, p in processes.items() if p["stop_s"] is None or p["stop_s"] > STOP_BOUND_S}
        if not slow:
            return
    pytest.fail(f"seconds from SIGINT to exit over {STOP_BOUND_S} s in both runs (the second: {slow})")


@pytest.mark.solo  # a 2 s bound, measured with the machine quiet (TEST_WORKERS=N: run alone, after the workers)
def test_every_node_of_the_demo_graph_stops_within_2_s_of_sigint(ros_env, tmp_path):
    # The demo's graph, the driver waiting for a demonstration that never comes.
    def run(d: Path) -> dict:
        args = [f"run_dir:={d / 'run'}", f"demo_root:={d / 'demos'}", "driver:=demo", "episodes:=1",
                'tasks:=[{"instruction": "Prepare my drink."}]']
        return _launch_and_interrupt(ros_env, d, REPO / "launch" / "graph.yaml", args)

    _assert_quick_clean_stops(run, tmp_path)


@pytest.mark.slow
@pytest.mark.solo  # a 2 s bound, measured with the machine quiet (TEST_WORKERS=N: run alone, after the workers)
def test_the_g1_controller_sim_bridge_and_scene_model_stop_within_2_s_of_sigint(ros_env, tmp_path):
    pytest.importorskip("unitree_sdk2py")
    # graph.yaml with only the nodes robot:=g1 adds or changes; DDS domains as in test_g1_backend.py
    data = yaml.safe_load((REPO / "launch" / "graph.yaml").read_text())
    data["params_dirs"] = [str(REPO / "robot_configs" / "ros")]
    data["nodes"] = [n for n in data["nodes"] if n["name"] in ("controller", "unitree_sim_bridge", "scene_model")]
    graph = tmp_path / "graph.yaml"
    graph.write_text(yaml.safe_dump(data))
    env = {**ros_env, "ROS_DOMAIN_ID": os.environ.get("MEMORA_TEST_G1_ROS_DOMAIN",
                                                      str(200 + int(ros_env["ROS_DOMAIN_ID"]) % 30))}
    domain = os.environ.get("MEMORA_TEST_G1_DDS_DOMAIN", unitree_domain())
    _assert_quick_clean_stops(lambda d: _launch_and_interrupt(
        env, d, graph, ["robot:=g1", "g1_bridge:=sim", f"run_dir:={d / 'run'}", f"g1_domain:={domain}"]), tmp_path)


@pytest.mark.slow
def test_memory_writer_stops_with_a_segment_in_flight_and_the_next_run_writes_it(ros_env, node_bin, tiny_video,
                                                                                 tmp_path):
    cfg = tmp_path / "memora.yaml"
    cfg.write_text("store: {vectors: {backend: none}, embedding: {backend: hashing}}\n"
                   "segmenting: {segment_s: 1.0, fps: 5.0, max_frames: 24, min_tail_s: 0.5}\n")
    env = {**ros_env, "MEMORA_CONFIG": str(cfg), "PYTHONPATH": f"{HERE.parents[1]}:{ros_env.get('PYTHONPATH', '')}"}
    store, started = tmp_path / "store", tmp_path / "started"

    def run(options: dict) -> tuple[subprocess.Popen, subprocess.Popen]:
        writer = _start(node_bin, env, "memory_writer", f"store_dir:={store}", "perception_backend:=slow_colour",
                        "perception_plugin:=tests.ros.slow_perception",
                        f"perception_options_json:='{json.dumps(options)}'")  # a YAML string, not a mapping
        _wait_line(writer, "memory writer ready")
        camera = _start(node_bin, env, "camera", f"videos:=[{tiny_video}]", "fps:=5.0", "speed:=1.0",
                        "participant_id:=P07", "start_delay_s:=4.0")
        return writer, camera

    from memora_core.store.sqlite_store import SQLiteStore

    def committed() -> list[str]:
        s = SQLiteStore(store, readonly=True)
        try:  # one activity per segment: a segment written twice would show as a fourth
            return sorted(s.committed_segment_ids("P07")) + [f"{len(s.activities('P07'))} activities"]
        finally:
            s.close()

    # Segment 0 is written at once; segment 1 takes 30 s in perception and is in flight at SIGINT.
    writer, camera = run({"slow_from_index": 1, "delay_s": 30.0, "started_file": str(started)})
    try:
        deadline = time.monotonic() + 120
        while not (started / "1").exists() and writer.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (started / "1").exists(), writer.communicate(timeout=30)[0]
        t0 = time.monotonic()
        writer.send_signal(signal.SIGINT)
        out, _ = writer.communicate(timeout=60)
        stop_s = time.monotonic() - t0
    finally:
        for p in (writer, camera):
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
                p.communicate(timeout=30)
    assert writer.returncode == 0, out
    assert stop_s <= STOP_BOUND_S, f"{stop_s:.2f} s from SIGINT to exit\n{out}"
    assert committed() == ["P07/P01_demo/00000", "1 activities"], "the committed segment stays, the one in flight is not"

    # The next run replays the video: segment 0 is not written twice, segments 1 and 2 are written.
    writer, camera = run({})
    try:
        deadline = time.monotonic() + 120
        while len(committed()) < 4 and writer.poll() is None and time.monotonic() < deadline:
            time.sleep(0.5)
    finally:
        for p in (camera, writer):
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
            out = p.communicate(timeout=30)[0]
    assert committed() == [f"P07/P01_demo/{i:05d}" for i in range(3)] + ["3 activities"], out
