"""The head RGB-D camera over ROS (issue 19): a rendered frame as the RealSense driver's messages and back
is the same frame, and the scene model node turns the simulator node's topics into a typed SceneModel whose
objects are where the seeded layout put them (ground truth only scores)."""
from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from tests.ros.conftest import stop_with_sigint

# solo: a sim bridge keeping real time against deadlines (TEST_WORKERS=N make test runs it alone, after the workers)
pytestmark = pytest.mark.solo

REPO = Path(__file__).resolve().parents[2]
LAYOUT_SEED = 7001  # the scene bench's dev range


@pytest.mark.ros
@pytest.mark.sim
def test_rgbd_frame_round_trips_through_realsense_messages():
    pytest.importorskip("sensor_msgs")
    from builtin_interfaces.msg import Time

    from memora.rgbd import frame_to_msgs, msgs_to_frame
    from memora_core.robot import load_robot_config, make_robot
    from sim.head_camera import HeadCameraSpec, HeadRGBD

    os.environ.setdefault("MUJOCO_GL", "egl")
    robot = make_robot(load_robot_config("sim_g1"), seed=LAYOUT_SEED)
    cam = HeadRGBD(robot.model, HeadCameraSpec(width=320, height=240))
    try:
        frame = cam.render(robot.data)
        colour, depth, info, pose = frame_to_msgs(frame, Time(sec=3, nanosec=500_000_000))
        assert (colour.encoding, depth.encoding) == ("rgb8", "16UC1")
        assert info.k[0] == pytest.approx(frame.intrinsics.fx) and info.distortion_model == "plumb_bob"
        assert colour.header.frame_id == depth.header.frame_id == info.header.frame_id == pose.child_frame_id
        back = msgs_to_frame(colour, depth, info, pose)
        assert np.array_equal(back.rgb, frame.rgb) and np.array_equal(back.depth, frame.depth)
        assert np.allclose(back.world_from_camera, frame.world_from_camera, atol=1e-6)
        assert back.stamp_s == 3.5
    finally:
        cam.close()
        robot.close()


@pytest.fixture(scope="module")
def sim_and_scene_nodes(ros_env, node_bin, tmp_path_factory):
    pytest.importorskip("unitree_sdk2py")
    from memora_core.runtime.graph import load_graph

    dds = str(60 + (int(ros_env["ROS_DOMAIN_ID"]) + 8) % 40)  # parity kept: see conftest
    old_path = os.environ.get("AMENT_PREFIX_PATH")
    os.environ["AMENT_PREFIX_PATH"] = ros_env["AMENT_PREFIX_PATH"]
    try:
        graph = load_graph(REPO / "launch" / "graph.yaml")
        values = graph.argument_values({"robot": "g1", "g1_bridge": "sim", "g1_domain": dds})
        argv = next(s.argv for s in graph.process_specs(values) if s.name == "unitree_sim_bridge")
    finally:
        if old_path is None:
            os.environ.pop("AMENT_PREFIX_PATH")
        else:
            os.environ["AMENT_PREFIX_PATH"] = old_path
    argv += ["-p", f"layout_seed:={LAYOUT_SEED}", "-p", "head_camera_hz:=0.0", "-p", "rgbd_hz:=2.0"]
    logs = tmp_path_factory.mktemp("scene_nodes")
    sim = subprocess.Popen(argv, env=ros_env, cwd=REPO, stdout=(logs / "sim.log").open("w"),
                           stderr=subprocess.STDOUT, start_new_session=True)
    scene = subprocess.Popen([str(node_bin / "scene_model")], env=ros_env, cwd=REPO,
                             stdout=(logs / "scene.log").open("w"), stderr=subprocess.STDOUT, start_new_session=True)
    yield logs
    stop_with_sigint("scene model", scene, logs / "scene.log")
    stop_with_sigint("sim bridge", sim, logs / "sim.log")


@pytest.mark.ros
@pytest.mark.sim
@pytest.mark.slow
def test_scene_model_node_names_and_places_the_kitchen_objects(sim_and_scene_nodes, ros_env, node_bin):
    logs = sim_and_scene_nodes
    echo = subprocess.run([str(node_bin / "echo"), "/memora/scene_model", "memora_interfaces/msg/SceneModel",
                           "--count", "1", "--timeout", "120"], env=ros_env, capture_output=True, text=True,
                          timeout=150)
    assert echo.returncode == 0, (echo.stdout[-500:] + echo.stderr[-500:] + "\n--- sim\n"
                                  + (logs / "sim.log").read_text()[-1500:] + "\n--- scene\n"
                                  + (logs / "scene.log").read_text()[-1500:])
    msg = next(json.loads(line) for line in echo.stdout.splitlines() if line.startswith("{"))
    from tests.ros.test_sim_node import _layout

    layout = _layout(LAYOUT_SEED)
    assert abs(msg["table_z"] - 0.74) < 0.01 and msg["header"]["frame_id"] == "world"
    named = {o["name"]: o for o in msg["objects"] if o["name"]}
    assert len(named) >= len(layout) - 1, [(o["name"], o["colour"], o["shape"]) for o in msg["objects"]]
    for name, o in named.items():
        x, y, _ = layout[name]
        assert math.hypot(o["x"] - x, o["y"] - y) < 0.03, (name, o, layout[name])
