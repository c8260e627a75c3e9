"""The memory writer node is one more writer of its store: with another process writing the store, the node
is refused in one line with the store-locked exit code (no traceback), and the holder's memory is untouched."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memora_core.errors import ExitCode

pytestmark = pytest.mark.ros
HERE = Path(__file__).resolve().parent

HOLDER = textwrap.dedent("""
    import sys, time
    from memora_core.config import load_config
    from memora_core.store import MemoryStore
    store = MemoryStore.open_writer(sys.argv[1], load_config())
    print("holding", flush=True)
    sys.stdin.read()   # until the test closes our stdin
    store.close()
""")


def test_memory_writer_node_refused_on_a_store_another_process_writes(ros_env, node_bin, tmp_path):
    cfg = tmp_path / "memora.yaml"
    cfg.write_text("store: {vectors: {backend: none}, embedding: {backend: hashing}}\n")
    env = {**ros_env, "MEMORA_CONFIG": str(cfg), "PYTHONPATH": f"{HERE.parents[1]}:{ros_env.get('PYTHONPATH', '')}"}
    store = tmp_path / "store"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(store)], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding", holder.stderr.read()
        node = subprocess.run([str(node_bin / "memory_writer"), "--ros-args", "-p", f"store_dir:={store}",
                               "-p", "perception_backend:=colour", "-p", "perception_plugin:=tests.ros.colour_perception"],
                              env=env, capture_output=True, text=True, timeout=120)
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    out = node.stdout + node.stderr
    assert node.returncode == ExitCode.STORE_LOCKED, out
    assert "Traceback" not in out, out
    assert f"pid {holder.pid}" in out, out   # the refusal names the holder
    assert holder.returncode == 0
