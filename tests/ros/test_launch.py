"""`ros2 launch memora demo_kitchen.launch.py` exit codes: a node that dies and a task that fails end the launch
non-zero, a driver that finishes ends it with 0 (launch itself returns 0 after any Shutdown event).

Runs where ROS 2 launch and launch_ros are importable; CI installs only the pip ROS wheels, which have no
launch, so there it skips. The launch file runs small graphs (its `graph:=` argument) in mode:=live, through
launch.LaunchService as `ros2 launch` does (ros2launch.api.launch_a_launch_file).
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from memora_core.runtime.verdict import EXIT_COMPLETED_WITH_FAILURES


def _launch_missing() -> str | None:
    try:
        from launch import LaunchService  # noqa: F401 - the repository's launch/ folder is no package of it
        import launch_ros.actions  # noqa: F401
    except ImportError as exc:
        return f"ROS 2 launch / launch_ros not importable ({exc}); CI has only the pip ROS wheels, which lack them"
    return None


pytestmark = [pytest.mark.ros, pytest.mark.skipif(_launch_missing() is not None, reason=str(_launch_missing()))]
REPO = Path(__file__).resolve().parents[2]
LAUNCH_FILE = REPO / "launch" / "demo_kitchen.launch.py"
RUNNER = """
import sys
from launch import LaunchDescription, LaunchService
from launch.actions import IncludeLaunchDescription
from launch.launch_description_sources import AnyLaunchDescriptionSource

args = sys.argv[2:]
service = LaunchService(argv=args)
service.include_launch_description(LaunchDescription([IncludeLaunchDescription(
    AnyLaunchDescriptionSource(sys.argv[1]), launch_arguments=[tuple(a.split(":=", 1)) for a in args])]))
sys.exit(service.run())
"""
CAMERA = {"name": "camera", "executable": "camera", "params": ["common.yaml", "camera.yaml"],
          "set": {"videos": "{videos}", "speed": "1.0"}}
IDLE = {"name": "idle_camera", "executable": "camera", "params": ["camera.yaml"]}  # up until stopped


def _graph(tmp_path: Path, nodes: list[dict], arguments: dict[str, str]) -> Path:
    path = tmp_path / "graph.yaml"
    path.write_text(yaml.safe_dump({"arguments": {k: {"default": v} for k, v in arguments.items()},
                                    "params_dirs": [str(REPO / "robot_configs" / "ros")], "nodes": nodes}))
    return path


def _ros2_launch(env: dict[str, str], graph: Path, *args: str) -> tuple[int, str, float]:
    t0 = time.monotonic()
    res = subprocess.run([sys.executable, "-c", RUNNER, str(LAUNCH_FILE), "mode:=live", f"graph:={graph}", *args],
                         env=env, cwd=graph.parent, capture_output=True, text=True, timeout=150)
    return res.returncode, res.stdout + res.stderr, time.monotonic() - t0


def test_a_driver_that_finishes_ends_the_launch_with_0(ros_env, tmp_path, tiny_video):
    driver = {"name": "driver", "executable": "echo", "ends_graph": True,
              "args": ["/memora/camera/episode", "memora_interfaces/msg/EpisodeEvent", "--count", "1",
                       "--timeout", "60", "--qos", "latched"]}
    code, out, _ = _ros2_launch(ros_env, _graph(tmp_path, [CAMERA, driver], {"videos": "[]"}), f"videos:=[{tiny_video}]")
    assert code == 0, out
    assert "driver finished: shut down the graph" in out, out
    assert "process has died" not in out and "SIGTERM" not in out, out  # the camera stopped on SIGINT


def test_a_node_that_dies_ends_the_launch_non_zero(ros_env, tmp_path):
    graph = _graph(tmp_path, [CAMERA, IDLE], {"videos": "[]"})
    code, out, seconds = _ros2_launch(ros_env, graph, f"videos:=[{tmp_path}/missing.mp4]")
    assert code != 0, out
    assert "node camera crashed (exited with code 1)" in out, out
    assert "memora graph failed (exit 1)" in out, out
    assert "SIGTERM" not in out, out  # the healthy node stopped on SIGINT, within launch's timeout
    assert seconds < 120, out


def test_a_failed_task_ends_the_launch_non_zero(ros_env, tmp_path):
    # Empty memory: the planner cannot ground the instruction, the task fails, the driver completes with failures.
    tasks = json.dumps([{"instruction": "Prepare my drink.", "expected_objects": ["coca-cola bottle"]}])
    nodes = [{"name": "planner", "executable": "planner", "params": ["common.yaml", "planner.yaml"],
              "set": {"store_dir": str(tmp_path / "empty_memory")}},
             {"name": "demo_driver", "executable": "demo_driver", "params": ["common.yaml"], "ends_graph": True,
              "set": {"out_dir": str(tmp_path / "run"), "tasks_json": "{tasks}"}}]
    code, out, _ = _ros2_launch(ros_env, _graph(tmp_path, nodes, {"tasks": "[]"}), f"tasks:={tasks}")
    assert code != 0, out
    assert f"demo_driver exited with code {EXIT_COMPLETED_WITH_FAILURES}" in out, out
    assert "crashed" not in out, out
    assert json.loads((tmp_path / "run" / "driver_summary.json").read_text())["all_success"] is False, out
