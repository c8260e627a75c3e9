"""E-stop latency from fresh client processes while a step runs: a real controller node on real MuJoCo.

`execute --estop-after 1` engages the e-stop as soon as the goal's first feedback (step 0 started) arrives.
The step's own duration, measured by the controller from its start to its stop, covers the whole path: the
feedback reaching a fresh client, the e-stop reaching the controller, the motion loop stopping. A fresh
client whose readers the server had not discovered yet got that feedback up to 2.3 s late, so the e-stop
landed after the step had run on for that long, or after its end; each round starts a new client.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from memora_core.schemas import Plan, PlanStep

pytestmark = [pytest.mark.ros, pytest.mark.sim]

POSES = {"coca-cola bottle": [0.40, -0.25, 0.0], "fanta can": [0.40, -0.05, 0.0],
         "orange cup": [0.52, -0.20, 0.0], "yellow bowl": [0.45, -0.40, 0.0]}
# Fresh clients, one goal each. With the old execute, 6 of 39 such goals (0 to 4 of 10 in a run) were stopped
# late (0.80-1.55 s) or not in step 0 at all: this test then failed in 3 of 8 runs. It is a race, not a sure trap.
ROUNDS = 5
# Step start -> robot stopped, e-stop sent on the step's first feedback: 7-64 ms measured alone; one of five took 0.62 s
# in a clean-clone CI dry run under the full suite's load. The bound is that of a late delivery, not of the stop path.
MAX_STOP_S = 1.0
GOAL_ABORTED = 6  # action_msgs GoalStatus.STATUS_ABORTED


@pytest.fixture(scope="module")
def controller(ros_env, node_bin, tmp_path_factory):
    log = tmp_path_factory.mktemp("estop_latency") / "controller.log"
    with log.open("w") as out:
        proc = subprocess.Popen([str(node_bin / "controller"), "--ros-args", "-p",
                                 f"layout_poses_json:='{json.dumps(POSES)}'"],
                                env=ros_env, stdout=out, stderr=subprocess.STDOUT, text=True)
    yield proc
    proc.terminate()
    proc.wait(timeout=20)


# Clears the e-stop between rounds from one long-lived process (the `estop` tool's own functions), so that
# nothing but the execute clients joins the DDS domain between goals, as in back-to-back operator commands.
_CLEARER = """
import sys, rclpy
from std_msgs.msg import Bool
from memora.nodes.estop import ESTOP_QOS, send_estop, wait_for_subscriber
rclpy.init()
node = rclpy.create_node("estop_clearer")
pub = node.create_publisher(Bool, "/memora/estop", ESTOP_QOS)
for _ in sys.stdin:
    print("cleared" if wait_for_subscriber(node, pub, 10) and send_estop(pub, False, 10) else "failed", flush=True)
"""


@pytest.fixture(scope="module")
def clearer(ros_env):
    proc = subprocess.Popen([sys.executable, "-c", _CLEARER], env=ros_env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    yield proc
    proc.stdin.close()
    proc.wait(timeout=20)


def _clear(clearer) -> str:
    clearer.stdin.write("clear\n")
    clearer.stdin.flush()
    return clearer.stdout.readline().strip()


def _estop_tool(ros_env, node_bin, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(node_bin / "estop"), *args], env=ros_env, capture_output=True, text=True, timeout=60)


def _estop_on_first_feedback(ros_env, node_bin, tmp_path, target: str, then: str):
    plan = Plan(participant_id="P01", instruction="test", planner="test",
                steps=[PlanStep(index=0, action="move_to", target=target), PlanStep(index=1, action="move_to", target=then)])
    path = tmp_path / "plan.json"
    path.write_text(plan.model_dump_json())
    res = subprocess.run([str(node_bin / "execute"), str(path), "--timeout", "60", "--estop-after", "1"],
                         env=ros_env, capture_output=True, text=True, timeout=100)
    lines = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    return res, next((line for line in lines if "result" in line), None)


@pytest.mark.slow
def test_estop_from_a_fresh_client_stops_the_running_step(controller, clearer, ros_env, node_bin, tmp_path):
    stops = []
    for i in range(ROUNDS):
        target, then = ("table center", "home") if i % 2 == 0 else ("home", "table center")
        res, result = _estop_on_first_feedback(ros_env, node_bin, tmp_path, target, then)
        assert res.returncode == 3, res.stderr
        assert result["status"] == GOAL_ABORTED
        r = result["result"]
        # Stopped inside step 0, the step the e-stop was sent in: it did not run on to its end.
        assert r["steps_completed"] == 0 and len(r["step_results"]) == 1, r["message"]
        step = r["step_results"][0]
        assert json.loads(step["details_json"])["reason"] == "estop", step
        stops.append(step["duration_s"])
        assert _clear(clearer) == "cleared"
    print(f"step start -> stop with the e-stop sent on its first feedback, {ROUNDS} fresh clients: "
          f"{[round(s, 3) for s in stops]} s")
    assert max(stops) < MAX_STOP_S, stops


def test_estop_tool_clears_and_confirms(controller, ros_env, node_bin):
    res = _estop_tool(ros_env, node_bin, "--clear")
    assert res.returncode == 0, res.stderr
    assert "delivered" in res.stderr


def test_estop_tool_refuses_without_a_subscriber(ros_env, node_bin):
    # Nothing subscribes to this topic: the e-stop is not reported as delivered.
    res = _estop_tool(ros_env, node_bin, "--topic", "/memora/test/nobody_listens", "--timeout", "1")
    assert res.returncode == 2
    assert "no subscriber" in res.stderr
