"""`memora launch`: the pip-only runner starts the graph, forwards signals, reports a crashed node."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.ros
REPO = Path(__file__).resolve().parents[2]


def _graph(tmp_path: Path, nodes: list[dict]) -> Path:
    graph = {"arguments": {"videos": {"default": "[]"}},
             "params_dirs": [str(REPO / "robot_configs" / "ros")],
             "supervisor": {"sigint_grace_s": 8.0, "sigterm_grace_s": 2.0},
             "nodes": nodes}
    path = tmp_path / "graph.yaml"
    path.write_text(yaml.safe_dump(graph))
    return path


def _launch(env, graph: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "memora_core.cli.main", "launch", "--graph", str(graph), *extra],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


CAMERA = {"name": "camera", "executable": "camera", "params": ["common.yaml", "camera.yaml"],
          "set": {"videos": "{videos}", "speed": "1.0"}}


def test_crashed_node_is_reported_and_graph_exits_nonzero(ros_env, tmp_path):
    idle = {"name": "idle_camera", "executable": "camera", "params": ["camera.yaml"]}
    graph = _graph(tmp_path, [CAMERA, idle])
    proc = _launch(ros_env, graph, f"videos:=[{tmp_path}/missing.mp4]", "--report", str(tmp_path / "r.json"))
    out, _ = proc.communicate(timeout=90)
    assert proc.returncode == 1, out
    assert "node camera crashed (exited with code 1)" in out
    assert "missing.mp4" in out  # the crashed node's last output is shown
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["failed"] == ["camera"]
    other = next(p for p in report["processes"] if p["name"] == "idle_camera")
    assert other["returncode"] == 0 and not other["killed"], "the healthy node must be shut down cleanly"


def test_sigint_is_forwarded_and_nodes_stop_cleanly(ros_env, tmp_path):
    graph = _graph(tmp_path, [CAMERA, {"name": "second", "executable": "camera", "params": ["camera.yaml"]}])
    proc = _launch(ros_env, graph, "--report", str(tmp_path / "r.json"), "--log-dir", str(tmp_path / "logs"))
    time.sleep(4.0)  # both nodes up (rclpy import + init)
    assert proc.poll() is None, proc.communicate()[0]
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGINT, out
    report = json.loads((tmp_path / "r.json").read_text())
    assert {p["name"] for p in report["processes"]} == {"camera", "second"}
    for p in report["processes"]:
        assert p["returncode"] == 0 and not p["killed"], p
        # the process is really gone
        assert subprocess.run(["kill", "-0", str(p["pid"])], capture_output=True).returncode != 0
    assert (tmp_path / "logs" / "camera.log").exists()


def test_driver_node_ends_graph_cleanly(ros_env, tmp_path, tiny_video):
    # Two real nodes talk over DDS inside the supervised graph: the echo "driver" exits 0 on the
    # camera's first episode event, which ends the graph with exit code 0.
    driver = {"name": "driver", "executable": "echo", "ends_graph": True,
              "args": ["/memora/camera/episode", "memora_interfaces/msg/EpisodeEvent", "--count", "1",
                       "--timeout", "60", "--qos", "latched"]}
    graph = _graph(tmp_path, [CAMERA, driver])
    proc = _launch(ros_env, graph, f"videos:=[{tiny_video}]")
    out, _ = proc.communicate(timeout=90)
    assert proc.returncode == 0, out
    assert "driver finished: shut down the graph" in out
    assert '"event": "start"' in out
