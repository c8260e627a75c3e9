"""A node interrupted while it is still loading (torch, models, the store) stops at once, cleanly.

rclpy's own signal handlers only shut the context down, which a constructor never looks at: before run_node
raised KeyboardInterrupt during construction, the memory writer finished loading first (5-9 s on a busy
machine, past the 5 s after which ros2 launch escalates SIGINT to SIGTERM).
"""
from __future__ import annotations

import signal
import subprocess
import time

import pytest

from memora_core.config import load_config
from memora_core.store import MemoryStore
from tests.ros.test_nodes import _start, _wait_line

pytestmark = pytest.mark.ros
STOP_BOUND_S = 2.0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_memory_writer_interrupted_while_loading_stops_within_2_s(ros_env, node_bin, tmp_path, sig):
    store = tmp_path / "store"
    proc = _start(node_bin, ros_env, "memory_writer", f"store_dir:={store}")
    try:
        _wait_line(proc, "memory writer loading", timeout=120)
        proc.send_signal(sig)
        sent = time.monotonic()
        out, _ = proc.communicate(timeout=60)
        stop_s = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "memory writer ready" not in out, "the signal was only handled after loading finished"
    assert proc.returncode == 0, out
    assert "Traceback" not in out, out
    assert stop_s <= STOP_BOUND_S, f"{stop_s:.2f} s from the signal to exit"
    # Whatever it had opened, the store is free for the next writer.
    MemoryStore.open_writer(store, load_config()).close()
