"""Camera node: a real video file becomes rate-limited sensor_msgs/Image frames and episode events."""
from __future__ import annotations

import json
import subprocess
import time

import pytest

pytestmark = pytest.mark.ros


def _echo(node_bin, env, topic, type_, count, ready, qos="reliable", timeout=40):
    return subprocess.Popen([str(node_bin / "echo"), topic, type_, "--count", str(count), "--timeout", str(timeout),
                             "--qos", qos, "--ready-file", str(ready)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_ready(paths, timeout=30):
    deadline = time.monotonic() + timeout
    while not all(p.exists() for p in paths):
        assert time.monotonic() < deadline, "listeners did not start"
        time.sleep(0.05)


def test_camera_publishes_video_frames_and_episode(ros_env, node_bin, tiny_video, tmp_path):
    # Episode events are latched (transient local): a slow discovery under load still gets both.
    episodes = _echo(node_bin, ros_env, "/memora/camera/episode", "memora_interfaces/msg/EpisodeEvent", 2,
                     tmp_path / "r1", qos="latched")
    images = _echo(node_bin, ros_env, "/memora/camera/image", "sensor_msgs/msg/Image", 3, tmp_path / "r2",
                   qos="sensor")
    camera = None
    try:
        _wait_ready([tmp_path / "r1", tmp_path / "r2"])
        # 5 fps limit on a 10 fps, 3 s video: frames at t = 0, 0.2, ..., 2.8 -> 15 published.
        camera = subprocess.Popen(
            [str(node_bin / "camera"), "--ros-args", "-p", f"videos:=[{tiny_video}]", "-p", "fps:=5.0",
             "-p", "speed:=1.0", "-p", "max_side:=48", "-p", "participant_id:=P07", "-p", "start_delay_s:=2.0"],
            env=ros_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ep_out, ep_err = episodes.communicate(timeout=60)
        im_out, im_err = images.communicate(timeout=30)
    finally:
        for p in (episodes, images, camera):
            if p is not None and p.poll() is None:
                p.terminate()
                p.wait(timeout=15)
    assert episodes.returncode == 0, ep_err
    start, end = (json.loads(line) for line in ep_out.splitlines())
    assert (start["event"], end["event"]) == ("start", "end")
    assert start["video_id"] == end["video_id"] == "P01_demo"
    assert end["participant_id"] == "P07"
    assert end["frames"] == 15
    assert 2.8 <= end["duration_s"] <= 3.0
    assert images.returncode == 0, im_err
    frames = [json.loads(line) for line in im_out.splitlines()]
    assert len(frames) == 3
    for f in frames:
        assert (f["width"], f["height"], f["encoding"]) == (48, 32, "rgb8")  # 96x64 scaled to max side 48
        assert f["data"] == {"len": 48 * 32 * 3}
    # Stamps are origin + video time: consecutive published frames are 1/fps apart in video time.
    stamps = [f["header"]["stamp"]["sec"] + f["header"]["stamp"]["nanosec"] * 1e-9 for f in frames]
    assert all(abs((b - a) - 0.2) < 0.02 for a, b in zip(stamps, stamps[1:])), stamps
    assert camera.returncode in (0, -15), "camera should stop cleanly on SIGTERM"


def test_camera_with_missing_video_fails(ros_env, node_bin, tmp_path):
    res = subprocess.run([str(node_bin / "camera"), "--ros-args", "-p", f"videos:=[{tmp_path}/nope.mp4]"],
                         env=ros_env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 1
    assert "nope.mp4" in res.stdout + res.stderr


def test_episodes_played_faster_than_real_time_never_share_a_stamp(ros_env, node_bin, tiny_video, tmp_path):
    # At 4x a 3 s video is played in 0.75 s, while its frames are stamped up to origin + 2.8 s: the next episode's
    # origin must come after them, or a late frame of the first is placed in the second by its stamp.
    episodes = _echo(node_bin, ros_env, "/memora/camera/episode", "memora_interfaces/msg/EpisodeEvent", 4,
                     tmp_path / "r1", qos="latched")
    camera = None
    try:
        _wait_ready([tmp_path / "r1"])
        camera = subprocess.Popen(
            [str(node_bin / "camera"), "--ros-args", "-p", f"videos:=[{tiny_video}, {tiny_video}]", "-p", "fps:=5.0",
             "-p", "speed:=4.0", "-p", "max_side:=48", "-p", "start_delay_s:=2.0"],
            env=ros_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ep_out, ep_err = episodes.communicate(timeout=60)
    finally:
        for p in (episodes, camera):
            if p is not None and p.poll() is None:
                p.terminate()
                p.wait(timeout=15)
    assert episodes.returncode == 0, ep_err
    events = [json.loads(line) for line in ep_out.splitlines()]
    assert [e["event"] for e in events] == ["start", "end", "start", "end"]
    origin = [e["stamp_origin"]["sec"] + e["stamp_origin"]["nanosec"] * 1e-9 for e in events]
    assert origin[2] >= origin[1] + events[1]["duration_s"], (origin, events[1]["duration_s"])
