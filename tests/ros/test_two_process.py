"""The toolchain proof: a custom memora_interfaces message crosses between two real node processes."""
from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.ros


def _wait_for(path: Path, proc: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, f"listener exited early: {proc.communicate()}"
        assert time.monotonic() < deadline, f"{path} not created within {timeout} s"
        time.sleep(0.05)


def test_instruction_message_crosses_processes(ros_env, node_bin, tmp_path):
    ready = tmp_path / "ready"
    listener = subprocess.Popen(
        [str(node_bin / "echo"), "/memora/instruction", "memora_interfaces/msg/Instruction",
         "--count", "1", "--timeout", "30", "--ready-file", str(ready)],
        env=ros_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(ready, listener, 30)
        sender = subprocess.run(
            [str(node_bin / "instruct"), "Prepare my drink.", "--participant", "P02", "--timeout", "20"],
            env=ros_env, capture_output=True, text=True, timeout=40)
        assert sender.returncode == 0, sender.stderr
        out, err = listener.communicate(timeout=30)
    finally:
        if listener.poll() is None:
            listener.kill()
    assert listener.returncode == 0, err
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert len(lines) == 1
    msg = lines[0]
    assert msg["text"] == "Prepare my drink."
    assert msg["participant_id"] == "P02"
    assert msg["source"] == "text"
    assert msg["header"]["stamp"]["sec"] > 0


def test_instruct_reports_missing_listener(ros_env, node_bin):
    # Nobody subscribes in this test's domain on this topic: the CLI must say so and exit non-zero.
    res = subprocess.run([str(node_bin / "instruct"), "hello", "--topic", "/memora/nobody_listens", "--timeout", "1"],
                         env=ros_env, capture_output=True, text=True, timeout=30)
    assert res.returncode == 2
    assert "nobody subscribes" in res.stderr
