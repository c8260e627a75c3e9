"""A node's ROS log shows what its core logged: `memora_core` and `sim` use Python `logging` (no ROS), and
run_node bridges those records into the node's rclpy logger for the node's life."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.ros

_NODE = textwrap.dedent("""
    import logging
    from rclpy.node import Node
    import memora.common as common

    class Once(Node):
        def __init__(self):
            super().__init__("core_log_probe")
            self.create_timer(0.05, self.tick)

        def tick(self):
            logging.getLogger("memora_core.robot.control.recovery").info("moved the jar aside; trying again")
            logging.getLogger("sim.robot_backend").warning("servo trails its target")
            logging.getLogger("some_library").info("not ours")
            raise SystemExit(0)

    code = common.run_node(Once, ["core_log_probe"])
    logging.getLogger("memora_core.after").warning("after the node")
    raise SystemExit(code)
""")


def test_core_records_reach_the_nodes_ros_log(ros_env):
    res = subprocess.run([sys.executable, "-c", _NODE], env=ros_env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr[-2000:]
    lines = res.stderr.splitlines()
    info = [ln for ln in lines if "moved the jar aside" in ln]
    assert len(info) == 1 and "[INFO]" in info[0] and "[core_log_probe]" in info[0], res.stderr
    warn = [ln for ln in lines if "servo trails its target" in ln]
    assert len(warn) == 1 and "[WARN]" in warn[0] and "[core_log_probe]" in warn[0], res.stderr
    assert "not ours" not in res.stderr  # only the project's loggers are bridged
    # detached with the node: a later record goes to Python's own last-resort handler, not through ROS
    after = [ln for ln in lines if "after the node" in ln]
    assert after and "[core_log_probe]" not in after[0]
