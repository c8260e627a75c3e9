"""A one-shot tool (echo, instruct, execute) whose DDS teardown stalls still ends, with its own exit code."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.ros

# A real rclpy context and node; only the teardown is made to stall, as FastDDS participant destruction once did.
_TOOL = textwrap.dedent("""
    import time
    import memora.common as common

    real_finish = common._finish

    def stalled_finish(node, code):
        time.sleep(120)
        return real_finish(node, code)

    common._finish = stalled_finish
    with common.one_shot_node("stalling_tool", ["stalling_tool"]) as tool:
        tool.code = {code}
    raise SystemExit(tool.code)
""")


@pytest.mark.parametrize("code", [0, 4])
def test_stalled_teardown_ends_with_the_tools_code(ros_env, code):
    started = time.monotonic()
    res = subprocess.run([sys.executable, "-c", _TOOL.format(code=code)], env=ros_env,
                         capture_output=True, text=True, timeout=60)
    elapsed = time.monotonic() - started
    assert res.returncode == code, res.stderr
    assert "teardown took over" in res.stderr
    assert elapsed < 30, f"took {elapsed:.1f} s"


def test_normal_teardown_is_silent(ros_env):
    tool = textwrap.dedent("""
        import memora.common as common
        with common.one_shot_node("quick_tool", ["quick_tool"]) as tool:
            tool.code = 3
        raise SystemExit(tool.code)
    """)
    res = subprocess.run([sys.executable, "-c", tool], env=ros_env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 3, res.stderr
    assert "teardown took over" not in res.stderr


def test_the_interpreters_own_teardown_cannot_change_the_tools_code(ros_env):
    # Something crashing at interpreter exit (here an atexit hook that segfaults, standing in for rclpy handles
    # finalised after their context) would turn a delivered result into -11; the tool ends before it.
    tool = textwrap.dedent("""
        import atexit, ctypes
        import memora.common as common
        atexit.register(lambda: ctypes.string_at(0))
        with common.one_shot_node("quick_tool", ["quick_tool"]) as tool:
            tool.code = 5
        raise SystemExit(99)
    """)
    res = subprocess.run([sys.executable, "-c", tool], env=ros_env, capture_output=True, text=True, timeout=60)
    assert res.returncode == 5, res.stderr
