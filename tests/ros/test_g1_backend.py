"""robot:=g1 with g1_bridge:=sim: the controller node drives the G1 through the Unitree SDK (Cyclone DDS on
loopback) and the `unitree_sim_bridge` node answers from MuJoCo; both started from launch/graph.yaml's own
command lines (the wiring `memora launch` and the ROS launch file use), as real processes.

A move_to goal succeeds with feedback and really commands the bridge (LowCmd frames arrive there); a pick
fails with object_missing because no scene model runs here (the G1 sees objects only through it), without the
node crashing.

DDS domains: the Unitree SDK uses this test worker's domain on `lo` (tests/dds_domains.py; 1 without xdist, as in
graph.yaml; MEMORA_TEST_G1_DDS_DOMAIN overrides it). The ROS side gets its own ROS_DOMAIN_ID (200 + the session's
id % 30, or MEMORA_TEST_G1_ROS_DOMAIN), so a controller left by another test module on the session's domain cannot
answer this test's goals.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from memora_core.runtime.graph import load_graph
from memora_core.schemas import Plan, PlanStep
from tests.dds_domains import unitree_domain
from tests.ros.conftest import stop_with_sigint

# solo: a sim bridge keeping real time against deadlines (TEST_WORKERS=N make test runs it alone, after the workers)
pytestmark = [pytest.mark.ros, pytest.mark.solo]

REPO = Path(__file__).resolve().parents[2]
NODES = ("unitree_sim_bridge", "controller")
STATUS_TOPIC = "/memora/sim_bridge/status"


@pytest.fixture(scope="module")
def g1_env(ros_env) -> dict[str, str]:
    env = dict(ros_env)
    env["ROS_DOMAIN_ID"] = os.environ.get("MEMORA_TEST_G1_ROS_DOMAIN", str(200 + int(ros_env["ROS_DOMAIN_ID"]) % 30))
    return env


def _specs() -> dict[str, list[str]]:
    graph = load_graph(REPO / "launch" / "graph.yaml")
    overrides = {"robot": "g1", "g1_bridge": "sim",
                 "g1_domain": os.environ.get("MEMORA_TEST_G1_DDS_DOMAIN", str(unitree_domain()))}
    specs = {s.name: s.argv for s in graph.process_specs(graph.argument_values(overrides))}
    assert set(NODES) <= set(specs), f"robot:=g1 must start {NODES}; got {sorted(specs)}"
    # This module checks the arm path over DDS. The G1 backend sees no objects here (no scene model runs), so a move_to
    # planned blind to the kitchen's objects may brush one in the bridge's world (seen once: "lift: hand
    # blocked 9.7 cm short"); the bridge runs without objects here, and without the head camera's CPU load.
    # tests/ros/test_sim_node.py checks the kitchen, ground truth and camera of the same node.
    specs["unitree_sim_bridge"] = [*specs["unitree_sim_bridge"], "-p", "kitchen_objects:=false",
                                   "-p", "head_camera_hz:=0.0", "-p", "rgbd_hz:=0.0"]
    return {name: specs[name] for name in NODES}


@pytest.fixture(scope="module")
def g1_graph(g1_env, tmp_path_factory):
    pytest.importorskip("unitree_sdk2py")
    logs = tmp_path_factory.mktemp("g1_logs")
    procs: dict[str, tuple[subprocess.Popen, Path]] = {}
    for name, argv in _specs().items():
        log = logs / f"{name}.log"
        procs[name] = (subprocess.Popen(argv, env=g1_env, cwd=REPO, stdout=log.open("w"), stderr=subprocess.STDOUT,
                                        start_new_session=True), log)
    yield procs
    for proc, _ in procs.values():  # all at once: each then has the whole grace period
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
    for name, (proc, log) in procs.items():
        stop_with_sigint(name, proc, log)


@pytest.mark.parametrize("args, domain, interface, bridge", [
    ({"robot": "g1"}, 1, "lo", True),                                               # the default: sim bridge
    ({"robot": "g1", "g1_bridge": "none"}, None, None, False),                      # hardware: robot config's
    ({"robot": "g1", "g1_bridge": "none", "g1_interface": "enp3s0"}, None, "enp3s0", False),
    ({"robot": "g1", "g1_domain": "7"}, 7, "lo", True),
])
def test_graph_wires_the_g1_backend(args, domain, interface, bridge):
    """What the launch arguments resolve to: parameter files read in order, later ones winning (as ROS does)."""
    import yaml

    graph = load_graph(REPO / "launch" / "graph.yaml")
    values = graph.argument_values(args)
    nodes = {n.name: n for n in graph.nodes_for(values)}
    assert ("unitree_sim_bridge" in nodes) is bridge

    def params(name: str) -> dict:
        out: dict = {}
        for f in graph.param_files(nodes[name], values):
            out |= yaml.safe_load(f.read_text())["/**"]["ros__parameters"]
        return out | graph.param_overrides(nodes[name], values)

    ctl = params("controller")
    assert ctl["robot_config"] == "unitree_g1"
    assert ctl["dds_domain"] == (-1 if domain is None else domain)  # -1: the robot config's (0 on hardware)
    assert ctl["dds_interface"] == (interface or "")
    if bridge:  # the bridge answers where the controller talks
        assert {k: params("unitree_sim_bridge")[k] for k in ("dds_domain", "dds_interface")} == {
            "dds_domain": ctl["dds_domain"], "dds_interface": ctl["dds_interface"]}


def test_sim_robot_keeps_the_simulated_controller():
    graph = load_graph(REPO / "launch" / "graph.yaml")
    values = graph.argument_values({})
    nodes = {n.name: n for n in graph.nodes_for(values)}
    assert "unitree_sim_bridge" not in nodes
    assert [f.name for f in graph.param_files(nodes["controller"], values)] == ["common.yaml", "controller.yaml"]


def test_hardware_defaults_are_the_robots_own():
    """g1_bridge:=none leaves domain and interface to robot_configs/robots/unitree_g1.yaml: domain 0."""
    from memora_core.robot import load_robot_config

    dds = load_robot_config("unitree_g1").dds
    assert dds is not None and dds.domain == 0 and dds.interface != "lo"


def _logs(procs) -> str:
    return "\n".join(f"--- {name} (rc {p.poll()})\n{log.read_text()[-1500:]}" for name, (p, log) in procs.items())


def _status(env, node_bin, timeout: float) -> dict:
    res = subprocess.run([str(node_bin / "echo"), STATUS_TOPIC, "std_msgs/msg/String", "--count", "1",
                          "--timeout", str(timeout)], env=env, capture_output=True, text=True, timeout=timeout + 30)
    assert res.returncode == 0, f"no bridge status on {STATUS_TOPIC}: {res.stdout}{res.stderr}"
    return json.loads(json.loads(res.stdout.splitlines()[0])["data"])


def _execute(env, node_bin, tmp_path: Path, steps: list[PlanStep]):
    plan = Plan(participant_id="P01", instruction="g1 backend test", planner="test", steps=steps)
    path = tmp_path / "plan.json"
    path.write_text(plan.model_dump_json())
    res = subprocess.run([str(node_bin / "execute"), str(path), "--timeout", "60"], env=env,
                         capture_output=True, text=True, timeout=120)
    lines = [json.loads(line) for line in res.stdout.splitlines() if line.startswith("{")]
    feedback = [line["feedback"] for line in lines if "feedback" in line]
    return res, feedback, next((line for line in lines if "result" in line), None)


def _ready(procs, env, node_bin) -> dict:
    """The bridge's first status once it streams (it builds its MuJoCo model first; CPUs are shared)."""
    deadline = time.monotonic() + 60
    while True:
        status = _status(env, node_bin, timeout=30)
        dead = {n: p.poll() for n, (p, _) in procs.items() if p.poll() is not None}
        assert not dead, f"nodes exited: {dead}\n{_logs(procs)}"
        if status["running"] and status["lowstate_published"] > 0 or time.monotonic() > deadline:
            return status
        time.sleep(0.5)


@pytest.mark.sim
@pytest.mark.slow
def test_move_to_succeeds_through_the_sim_bridge(g1_graph, g1_env, node_bin, tmp_path):
    before = _ready(g1_graph, g1_env, node_bin)
    assert before["running"] and before["rate_hz"] > 50, before  # LowState streams at the physics rate
    assert before["dds_domain"] == int(os.environ.get("MEMORA_TEST_G1_DDS_DOMAIN", unitree_domain())) and before["dds_interface"] == "lo"

    res, feedback, result = _execute(g1_env, node_bin, tmp_path, [PlanStep(index=0, action="move_to", target="table center")])
    assert res.returncode == 0, f"{res.stdout}{res.stderr}\n{_logs(g1_graph)}"
    assert [(f["step_index"], f["status"]) for f in feedback] == [(0, "started"), (0, "succeeded")]
    assert feedback[0]["total_steps"] == 1 and feedback[1]["result"]["primitive"] == "move_to"
    assert result["result"]["success"] and result["result"]["steps_completed"] == 1
    # The hand reached the region as measured from rt/lowstate (the controller's postcondition).
    details = json.loads(result["result"]["step_results"][0]["details_json"])
    assert details["placement_error_m"] < 0.03, details

    after = _status(g1_env, node_bin, timeout=10)
    assert after["lowcmd_received"] > before["lowcmd_received"] + 100, (before, after)  # commands went over DDS
    assert after["lowcmd_bad_crc"] == 0


@pytest.mark.sim
@pytest.mark.slow
def test_pick_fails_with_object_missing_and_the_node_survives(g1_graph, g1_env, node_bin, tmp_path):
    _ready(g1_graph, g1_env, node_bin)
    steps = [PlanStep(index=0, action="pick", object="coca-cola bottle"), PlanStep(index=1, action="move_to", target="home")]
    res, feedback, result = _execute(g1_env, node_bin, tmp_path, steps)
    assert res.returncode == 3, f"{res.stdout}{res.stderr}"
    assert result["status"] == 6  # GoalStatus.STATUS_ABORTED: the first failed step ends the plan
    assert [(f["step_index"], f["status"]) for f in feedback] == [(0, "started"), (0, "failed")]
    step = result["result"]["step_results"][0]
    assert not step["success"] and json.loads(step["details_json"])["reason"] == "object_missing"
    assert result["result"]["steps_completed"] == 0

    # Still serving: the next goal runs (an arm move back home).
    res, _, result = _execute(g1_env, node_bin, tmp_path, [PlanStep(index=0, action="move_to", target="home")])
    assert res.returncode == 0 and result["result"]["success"], f"{res.stdout}{res.stderr}\n{_logs(g1_graph)}"
    assert all(p.poll() is None for p, _ in g1_graph.values()), _logs(g1_graph)


@pytest.mark.sim
@pytest.mark.slow
def test_nodes_stop_cleanly_on_sigint(g1_graph):
    for proc, _ in g1_graph.values():
        proc.send_signal(signal.SIGINT)
    codes = {}
    for name, (proc, _) in g1_graph.items():
        try:
            codes[name] = proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            codes[name] = None
    assert codes == {name: 0 for name in NODES}, f"{codes}\n{_logs(g1_graph)}"
    assert "unitree sim bridge stopped" in g1_graph["unitree_sim_bridge"][1].read_text()


def test_param_file_condition_names_known_arguments():
    from memora_core.runtime.graph import GraphDef

    with pytest.raises(ValueError, match="unknown arguments"):
        GraphDef.model_validate({"arguments": {"robot": {"default": "sim"}},
                                 "nodes": [{"name": "a", "executable": "x",
                                            "params": [{"file": "p.yaml", "when": {"bridge": "sim"}}]}]})
