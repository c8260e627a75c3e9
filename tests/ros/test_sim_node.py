"""The simulator node (`unitree_sim_bridge`, robot:=g1 g1_bridge:=sim): a real process started from
launch/graph.yaml's command line steps MuJoCo in the seeded kitchen behind the Unitree SDK and publishes
ground truth and the head camera on the controller's simulator topics, over DDS.

DDS domains: the ROS side uses this run's ROS_DOMAIN_ID (conftest); the node's Unitree SDK side gets a
domain of its own (60 + ROS_DOMAIN_ID % 40, or MEMORA_TEST_SIM_DDS_DOMAIN) so it never answers the
LowCmd of a G1 backend test running on its Unitree domain (tests/dds_domains.py) at the same time.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from tests.ros.conftest import stop_with_sigint

# solo: a sim bridge keeping real time against deadlines (TEST_WORKERS=N make test runs it alone, after the workers)
pytestmark = pytest.mark.solo

REPO = Path(__file__).resolve().parents[2]
GT_TOPIC = "/memora/sim/ground_truth"
CAMERA_TOPIC = "/memora/sim/head_camera/image"
STATUS_TOPIC = "/memora/sim_bridge/status"
LAYOUT_SEED = 7        # not the default (1002), so the test sees the parameter take effect
CAMERA_SIZE = (200, 150)  # not the default (320x240), likewise


def _layout(seed: int) -> dict:
    from memora_core.robot import load_robot_config
    from sim.scene.config import load_scene_config
    from sim.scene.layout import sample_layout

    return sample_layout(load_scene_config(load_robot_config("sim_g1").scene_path()), seed).poses


def test_params_file_defaults_match_the_demo():
    """The node's YAML: the demo's layout seed, the controller's topic names, a 320x240 camera."""
    import yaml

    from memora_core.runtime.graph import load_graph

    p = yaml.safe_load((REPO / "robot_configs/ros/sim_bridge.yaml").read_text())["/**"]["ros__parameters"]
    demo = yaml.safe_load((REPO / "robot_configs/demo.yaml").read_text())
    graph = load_graph(REPO / "launch" / "graph.yaml")
    assert p["layout_seed"] == demo["layout_seed"] == int(graph.argument_values({})["layout_seed"])
    ctl = yaml.safe_load((REPO / "robot_configs/ros/controller.yaml").read_text())["/**"]["ros__parameters"]
    assert (p["ground_truth_topic"], p["head_camera_topic"]) == (ctl["ground_truth_topic"], ctl["head_camera_topic"])
    assert p["head_camera_size"] == [320, 240] and 0 < p["head_camera_hz"] <= 10


@pytest.mark.sim
def test_head_camera_thread_renders_what_the_robot_sees():
    """bridge.HeadCamera (snapshot on its own thread) renders the same image as SimRobot.render_head."""
    import threading

    import numpy as np

    from sim.unitree_bridge.bridge import HeadCamera, make_bridge_robot

    robot = make_bridge_robot("sim_g1", 1000)
    frames: list = []
    got = threading.Event()
    cam = HeadCamera(robot.model, 160, 120, lambda img, t: (frames.append((img.copy(), t)), got.set()))
    try:
        cam.request(robot.data, 1.25)
        assert got.wait(30), cam.error
        img, t = frames[0]
        assert t == 1.25 and img.shape == (120, 160, 3)
        ref = robot.render_head(160, 120)
        assert img.std() > 5  # a scene, not a blank frame
        assert np.abs(img.astype(int) - ref.astype(int)).mean() < 1.0
    finally:
        cam.close()
        robot.close()


# --- the node as a process over DDS -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def sim_node(ros_env, tmp_path_factory):
    pytest.importorskip("unitree_sdk2py")
    from memora_core.runtime.graph import load_graph

    dds = os.environ.get("MEMORA_TEST_SIM_DDS_DOMAIN", str(60 + int(ros_env["ROS_DOMAIN_ID"]) % 40))
    old_path = os.environ.get("AMENT_PREFIX_PATH")
    os.environ["AMENT_PREFIX_PATH"] = ros_env["AMENT_PREFIX_PATH"]  # graph resolves executables from it
    try:
        graph = load_graph(REPO / "launch" / "graph.yaml")
        values = graph.argument_values({"robot": "g1", "g1_bridge": "sim", "g1_domain": dds})
        argv = next(s.argv for s in graph.process_specs(values) if s.name == "unitree_sim_bridge")
    finally:
        if old_path is None:
            os.environ.pop("AMENT_PREFIX_PATH")
        else:
            os.environ["AMENT_PREFIX_PATH"] = old_path
    argv += ["-p", f"layout_seed:={LAYOUT_SEED}", "-p", f"head_camera_size:=[{CAMERA_SIZE[0]}, {CAMERA_SIZE[1]}]"]
    log = tmp_path_factory.mktemp("sim_node") / "sim_bridge.log"
    proc = subprocess.Popen(argv, env=ros_env, cwd=REPO, stdout=log.open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    yield proc, log, int(dds)
    stop_with_sigint("sim bridge", proc, log)


def _echo(env, node_bin, topic: str, msg_type: str, count: int, timeout: float, qos: str = "reliable"):
    return subprocess.Popen([str(node_bin / "echo"), topic, msg_type, "--count", str(count), "--timeout",
                             str(timeout), "--qos", qos], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _lines(proc: subprocess.Popen, what: str, log: Path) -> list[dict]:
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 0, f"no {what}: {out[-500:]}{err}\n--- node log\n{log.read_text()[-2000:]}"
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


@pytest.mark.ros
@pytest.mark.sim
@pytest.mark.slow
def test_node_publishes_ground_truth_and_head_camera(sim_node, ros_env, node_bin):
    proc, log, dds = sim_node
    # Both listen at once: the node builds its kitchen model first (several seconds on shared CPUs).
    gt = _echo(ros_env, node_bin, GT_TOPIC, "std_msgs/msg/String", 1, 45)
    cam = _echo(ros_env, node_bin, CAMERA_TOPIC, "sensor_msgs/msg/Image", 1, 45, qos="sensor")

    truth = json.loads(_lines(gt, "ground truth", log)[0]["data"])
    layout = _layout(LAYOUT_SEED)
    assert set(truth["objects"]) == set(layout) and len(layout) >= 10, truth
    for name, (x, y, _yaw) in layout.items():  # where the seeded layout put them (they settle, not move)
        px, py, pz = truth["objects"][name]
        assert abs(px - x) < 0.02 and abs(py - y) < 0.02 and pz > 0.7, (name, truth["objects"][name], (x, y))
    assert truth["held"] is None and truth["sim_time_s"] >= 0
    assert set(_layout(1000)) == set(layout) and _layout(1000) != layout  # the seed matters

    img = _lines(cam, "head camera image", log)[0]
    assert (img["width"], img["height"]) == CAMERA_SIZE and img["encoding"] == "rgb8"
    assert img["step"] == 3 * CAMERA_SIZE[0] and img["data"]["len"] == 3 * CAMERA_SIZE[0] * CAMERA_SIZE[1]
    assert img["header"]["frame_id"] == "head_camera"

    # The bridge keeps its LowState stream on its own DDS domain with the camera rendering: the render runs off
    # the loop's thread, so not every status window holds a gap near a render's ~70 ms. The stream's rate is a
    # figure, not a bound (200 Hz nominal; 76-128 Hz measured on a slow host CPU): it must only never stop.
    # (Listened to now that the node streams: its model build takes a varying time on shared CPUs.)
    status = _echo(ros_env, node_bin, STATUS_TOPIC, "std_msgs/msg/String", 4, 30)
    reports = [json.loads(m["data"]) for m in _lines(status, "status", log)]
    streaming = [r for r in reports if r["lowstate_published"] > 0 and r["head_camera_frames"] > 0]
    assert len(streaming) >= 3, reports
    assert all(r["dds_domain"] == dds and r["objects"] == len(layout) and r["layout_seed"] == LAYOUT_SEED
               for r in streaming), streaming
    print("LowState Hz per status window:", [r["rate_hz"] for r in streaming])
    assert all(r["rate_hz"] > 0 for r in streaming), streaming
    assert min(r["max_gap_ms"] for r in streaming[1:]) < 50, streaming
    assert proc.poll() is None, log.read_text()[-2000:]


@pytest.mark.ros
@pytest.mark.sim
@pytest.mark.slow
def test_node_stops_cleanly_on_sigint(sim_node):
    proc, log, _ = sim_node
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=20) == 0, log.read_text()[-2000:]
    text = log.read_text()
    assert "unitree sim bridge stopped" in text and "head camera frames" in text, text[-2000:]
