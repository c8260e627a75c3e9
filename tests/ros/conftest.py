"""Fixtures for tests that start real rclpy processes over DDS.

Every test run gets its own ROS_DOMAIN_ID (random in 100-199, one parity per xdist worker) and localhost-only
discovery, so parallel runs by other engineers on this machine, and the suite's xdist workers, do not see each
other's topics. The environment comes from
scripts/ros_env.sh, sourced in a fresh bash, so the tests work whether or not the caller sourced it.
"""
from __future__ import annotations

import os
import random
import signal
import subprocess
from pathlib import Path

import pytest

from tests.dds_domains import worker_index

REPO = Path(__file__).resolve().parents[2]
INSTALL = REPO / "ros2_ws" / "install"
NODE_BIN = INSTALL / "memora" / "lib" / "memora"


def _workspace_built() -> str | None:
    """None when the colcon workspace is built, else why not (the skip reason)."""
    for path in (NODE_BIN / "echo", INSTALL / "memora_interfaces" / "share" / "memora_interfaces" / "package.xml"):
        if not path.exists():
            return f"ROS workspace not built ({path.relative_to(REPO)} missing): run scripts/build_ros.sh (`make test` does)"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = _workspace_built()
    if reason is None:
        return
    for item in items:
        if "ros" in item.keywords:
            item.add_marker(pytest.mark.skip(reason=reason))


def _session_domain() -> int:
    """A random domain in 100-199 whose parity is the pytest-xdist worker's (gw0 even, gw1 odd). Every domain a
    test derives from it (170 + id % 30, 200 + id % 30, 60 + id % 40, 60 + (id + 8) % 40) keeps that parity, so
    two xdist workers (TEST_WORKERS=2 make test) never share a DDS domain."""
    return 100 + 2 * random.randint(0, 49) + worker_index() % 2


@pytest.fixture(scope="session")
def ros_env() -> dict[str, str]:
    """The environment of scripts/ros_env.sh plus an isolated DDS domain for this test run."""
    out = subprocess.run(["bash", "-c", "source scripts/ros_env.sh && env -0"], cwd=REPO, check=True,
                         capture_output=True).stdout
    env = dict(item.split("=", 1) for item in out.decode().split("\0") if "=" in item)
    env["ROS_DOMAIN_ID"] = os.environ.get("MEMORA_TEST_DOMAIN_ID", str(_session_domain()))
    env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    env["PYTHONUNBUFFERED"] = "1"
    env["RCUTILS_COLORIZED_OUTPUT"] = "0"
    return env


@pytest.fixture(scope="session")
def node_bin() -> Path:
    return NODE_BIN


@pytest.fixture(scope="session")
def tiny_video(tmp_path_factory) -> Path:
    """A real 3 s, 10 fps H.264 file (colour changes every frame), written with PyAV."""
    import av
    import numpy as np

    path = tmp_path_factory.mktemp("video") / "P01_demo.mp4"
    with av.open(str(path), "w") as out:
        stream = out.add_stream("libx264", rate=10)
        stream.width, stream.height, stream.pix_fmt = 96, 64, "yuv420p"
        for i in range(30):
            img = np.zeros((64, 96, 3), np.uint8)
            img[..., 0] = (i * 8) % 256
            img[:, : 3 * i % 96, 1] = 200
            for packet in stream.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    return path


def stop_with_sigint(name: str, proc: subprocess.Popen, log: Path) -> None:
    """End a node process as a user would (SIGINT) and fail the test if it ignores it."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"{name} ignored SIGINT:\n{log.read_text()[-2000:]}")
