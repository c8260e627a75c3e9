"""One full task on the real node graph: `memora launch` starts the controller (G1 in MuJoCo, execution
video, simulator topics) and the recorder as real rclpy processes over DDS; the `execute` CLI sends the plan
as an ExecutePlan goal and ends the graph. Checked: feedback per step, the result, the object's final
position (simulator ground truth, read back from the MCAP), the recording's topics and the video."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from memora_core.runtime.recording import string_messages, topic_counts
from memora_core.schemas import Plan, PlanStep

pytestmark = [pytest.mark.ros, pytest.mark.sim]
REPO = Path(__file__).resolve().parents[2]
POSES = {"coca-cola bottle": [0.40, -0.25, 0.0], "fanta can": [0.40, -0.05, 0.0],
         "orange cup": [0.52, -0.20, 0.0], "yellow bowl": [0.45, -0.40, 0.0]}


def test_graph_runs_one_task_in_the_simulator(ros_env, tmp_path):
    plan = Plan(participant_id="P01", instruction="put the coke in the bowl", planner="test", steps=[
        PlanStep(index=0, action="pick", object="coca-cola bottle"),
        PlanStep(index=1, action="put", object="coca-cola bottle", target="in yellow bowl")])
    (tmp_path / "plan.json").write_text(plan.model_dump_json())
    graph = {
        "params_dirs": [str(REPO / "robot_configs" / "ros")],
        "supervisor": {"sigint_grace_s": 15.0, "sigterm_grace_s": 3.0},
        "nodes": [
            {"name": "controller", "executable": "controller", "params": ["common.yaml", "controller.yaml"],
             "set": {"layout_poses_json": json.dumps(POSES).replace("{", "{{").replace("}", "}}"), "video_path": str(tmp_path / "exec" / "execution.mp4"),
                     "sim_topics_hz": "4.0"}, "required": True},
            {"name": "recorder", "executable": "recorder", "params": ["common.yaml"],
             "set": {"out": str(tmp_path / "bag")}, "required": True},
            # the driver: waits for the action server, sends the goal, prints feedback + result, exits
            {"name": "driver", "executable": "execute", "ends_graph": True,
             "args": [str(tmp_path / "plan.json"), "--timeout", "120"]},
        ]}
    (tmp_path / "graph.yaml").write_text(yaml.safe_dump(graph))
    proc = subprocess.run([sys.executable, "-m", "memora_core.cli.main", "launch", "--graph",
                           str(tmp_path / "graph.yaml"), "--log-dir", str(tmp_path / "logs")],
                          env=ros_env, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]

    lines = [json.loads(x) for x in (tmp_path / "logs" / "driver.log").read_text().splitlines() if x.startswith("{")]
    feedback = [x["feedback"] for x in lines if "feedback" in x]
    result = next(x for x in lines if "result" in x)["result"]
    assert [(f["step_index"], f["status"]) for f in feedback] == [
        (0, "started"), (0, "succeeded"), (1, "started"), (1, "succeeded")]
    assert result["success"] and result["steps_completed"] == 2

    # The MCAP is complete (the recorder closed it on shutdown) and holds the task's topics.
    counts = topic_counts(tmp_path / "bag")
    assert counts["/memora/primitive_result"] == 2
    assert counts["/memora/sim/head_camera/image"] >= 1
    truth = string_messages(tmp_path / "bag", "/memora/sim/ground_truth")
    assert truth, counts
    final = truth[-1]["objects"]
    bottle, bowl = np.array(final["coca-cola bottle"]), np.array(final["yellow bowl"])
    assert np.linalg.norm(bottle[:2] - bowl[:2]) < 0.06, (bottle, bowl)  # in the bowl, not where it started
    assert np.linalg.norm(bottle[:2] - np.array(POSES["coca-cola bottle"][:2])) > 0.1
    assert truth[-1]["held"] is None

    # Execution video (closed cleanly on SIGINT) and one key frame per step.
    import av

    with av.open(str(tmp_path / "exec" / "execution.mp4")) as video:
        frames = sum(1 for _ in video.decode(video=0))
    assert frames >= 2
    assert len(list((tmp_path / "exec" / "frames").glob("plan01_step*_ok.png"))) == 2
